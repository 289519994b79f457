/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a file the daemon acts on (the policy, the --alert-exec
 * program) can only have been written by root: as sshd's StrictModes,
 * the file and every directory above it must be owned by root and not
 * writable by group or others, else anyone who can write there decides
 * what root enforces or runs.
 */
#ifndef IPCWATCH_TRUST_H
#define IPCWATCH_TRUST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * 0 when @path, and the file it resolves to, are trusted; else -1 with
 * one line in @err naming the file or directory and why. @exec: the
 * file must also be executable.
 */
int trust_file(const char *path, bool exec, char *err, size_t errlen);

#endif
