/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading System V IPC state from the kernel, for the caller's IPC
 * namespace: limits from /proc/sys/kernel, use from shmctl(SHM_INFO)
 * and semctl(SEM_INFO). The one reader of that state in ipcwatch.
 */
#ifndef IPCWATCH_SYSVIPC_H
#define IPCWATCH_SYSVIPC_H

#include "ipc_limits.h"

/* Root of the files read: "/proc" unless tests point it elsewhere. */
extern const char *sysvipc_proc_root;

/* 0, or -errno with a one-line message in @err. */
int read_ipc_limits(struct ipc_limits *l, char *err, size_t errlen);
int read_ipc_usage(struct ipc_usage *u, char *err, size_t errlen);

#endif
