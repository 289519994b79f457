/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers every subcommand's option parsing shares. */
#ifndef IPCWATCH_CLI_H
#define IPCWATCH_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcwatch.h"

/* Exit status for bad usage; runtime failures exit 1. */
#define EXIT_USAGE 2

/*
 * A stream for argp errors that keeps only the first line: argp's
 * "Try --help" line is dropped, so bad options give one line.
 */
FILE *cli_error_stream(void);

/* Parse an unsigned decimal number in [min, max]; argp_error on junk. */
uint64_t cli_number(struct argp_state *state, const char *what,
		    const char *arg, uint64_t min, uint64_t max);

/* Parse a byte count with units ("64M"); argp_error on junk. */
uint64_t cli_bytes(struct argp_state *state, const char *what,
		   const char *arg);

/* Parse seconds (0.1 to 86400, fractions allowed); argp_error on junk. */
double cli_seconds(struct argp_state *state, const char *what,
		   const char *arg);

/* Parse --mode (tracepoint, fentry, auto); argp_error on junk. */
void cli_mode(struct argp_state *state, const char *arg,
	      enum ipcw_mode *mode);

/* One-line runtime error: "ipcwatch CMD: message". */
void cli_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Inode number of the caller's IPC namespace, 0 if unknown. */
uint32_t own_ipcns(void);

#endif
