/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the guest suites: sysctls, namespaces, sleepers. */
#ifndef IPCWATCH_IPCUTIL_H
#define IPCWATCH_IPCUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/sem.h>
#include <sys/types.h>

/* The 2014 default of SHMMAX and SHMALL: ULONG_MAX - 2^24 */
#define SHM_DEFAULT_LIMIT (~0UL - (1UL << 24))

/* glibc leaves union semun to the caller */
union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
	struct seminfo *__buf;
};

/*
 * The kernel the suite runs on, from ipcwatch.kernel= on the command
 * line: "main" (the patched kernel, the default), "preseed" or "stock"
 * (Debian's own). The checks a suite plans depend on it, never on what
 * it finds at run time.
 */
const char *guest_kernel(void);
bool on_kernel(const char *name);

/* Read /proc/sys/kernel/<name> as an unsigned long; aborts if unreadable. */
unsigned long sysctl_get(const char *name);

/* Write a string to /proc/sys/kernel/<name>: 0 or -errno. */
int sysctl_set(const char *name, const char *value);

/* sysctl_set() of a number; aborts on failure (setup, not a check). */
void sysctl_must_set(const char *name, unsigned long value);

/* Enter a new IPC namespace: kernel defaults, no objects. */
void fresh_ipc_ns(void);

/* Inode number of the caller's IPC namespace, as tracepoints report it. */
unsigned long ipc_ns_inum(void);

/*
 * Fork a child that calls semtimedop() (timeout_ms < 0: semop()) and
 * exits with 0 on success or the errno.
 */
pid_t spawn_semop(int semid, const struct sembuf *sops, size_t nsops,
		  long timeout_ms);

/* CLOCK_MONOTONIC in milliseconds, for deadlines */
uint64_t mono_ms(void);
/* Wait until @pid sleeps inside semop()/semtimedop(); false on timeout. */
bool wait_in_semop(pid_t pid);

/* Reap @pid: its exit status, or 128 + signal. */
int reap(pid_t pid);

/* Fork a child that runs fn(arg) and exits with its return value. */
pid_t spawn(int (*fn)(void *arg), void *arg);

#endif
