/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading System V IPC state from the kernel, for the caller's IPC
 * namespace: limits from /proc/sys/kernel, use from shmctl(SHM_INFO),
 * semctl(SEM_INFO) and msgctl(MSG_INFO). The one reader of that state
 * in ipcwatch; ipcns.c runs it inside other namespaces.
 */
#ifndef IPCWATCH_SYSVIPC_H
#define IPCWATCH_SYSVIPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipc_limits.h"

/* Root of the files read: "/proc" unless tests point it elsewhere. */
extern const char *sysvipc_proc_root;

/* 0, or -errno with a one-line message in @err. */
int read_ipc_limits(struct ipc_limits *l, char *err, size_t errlen);
int read_ipc_usage(struct ipc_usage *u, char *err, size_t errlen);

/* A row of /proc/sysvipc/shm. */
struct shm_row {
	int key;
	int id;
	unsigned int mode;	/* permissions and SHM_DEST, SHM_LOCKED */
	uint64_t size;
	int cpid, lpid;		/* in the reader's pid namespace */
	uint64_t nattch;
	uint32_t uid, gid, cuid, cgid;
	int64_t atime, dtime, ctime;
	uint64_t rss, swap;	/* bytes */
};

/* A row of /proc/sysvipc/sem, with its values from semctl(). */
struct sem_row {
	int key;
	int id;
	unsigned int mode;
	int nsems;
	uint32_t uid, gid, cuid, cgid;
	int64_t otime, ctime;
	bool values_known;	/* false when semctl() said EACCES */
	int *val, *ncnt, *zcnt, *pid;	/* nsems each, NULL if unknown */
};

/* A row of /proc/sysvipc/msg. */
struct msg_row {
	int key;
	int id;
	unsigned int mode;
	uint64_t cbytes;	/* bytes queued */
	uint64_t qnum;		/* messages queued */
	int lspid, lrpid;	/* last sender, receiver */
	uint32_t uid, gid, cuid, cgid;
	int64_t stime, rtime, ctime;
};

/* Whole tables; free with free() or free_sem_rows(). */
int read_shm_rows(struct shm_row **rows, size_t *n, char *err, size_t errlen);
int read_sem_rows(struct sem_row **rows, size_t *n, char *err, size_t errlen);
int read_msg_rows(struct msg_row **rows, size_t *n, char *err, size_t errlen);
void free_sem_rows(struct sem_row *rows, size_t n);

/*
 * The parsers behind the readers above, on text already open: the unit
 * tests and the fuzz targets (tests/fuzz/) feed them. @name is the file
 * the errors name. The sem rows come without their values
 * (read_sem_values() reads them).
 */
int parse_shm_table(FILE *f, const char *name, struct shm_row **rows,
		    size_t *n, char *err, size_t errlen);
int parse_sem_table(FILE *f, const char *name, struct sem_row **rows,
		    size_t *n, char *err, size_t errlen);
int parse_msg_table(FILE *f, const char *name, struct msg_row **rows,
		    size_t *n, char *err, size_t errlen);
/* Up to @n unsigned numbers, as /proc/sys/kernel prints them: how many. */
int parse_numbers(FILE *f, uint64_t *v, int n);
/*
 * A /proc/<pid>/stat line: 0 and the start time in clock ticks since
 * boot; -ESRCH for a zombie or no command in it; -EINVAL when the start
 * time is not there (cannot tell).
 */
int parse_pid_stat(const char *line, unsigned long long *start_ticks);

/* Read a set's values, ncnt, zcnt and pids with semctl(): 0 or -errno. */
int read_sem_values(struct sem_row *row);

/*
 * Whether @pid is still the process that created something at @since
 * (a pid started later is a reused one).
 */
bool process_alive_since(int pid, int64_t since);

/*
 * The cgroup of a live process: its id (the inode of its cgroup v2
 * directory) and that directory, as the rules name it. 0 and "" when
 * it cannot be read.
 */
uint64_t process_cgroup(int pid, char *dir, size_t dirlen);

/* The command of @pid from /proc, "" if gone. */
void process_comm(int pid, char *comm, size_t len);

/*
 * The same, remembered per pid until proc_cache_reset(): thousands of
 * segments usually have a handful of creators, and /proc is read once
 * for each.
 */
struct proc_entry {
	int pid;		/* 0: free slot */
	int64_t start;		/* start time in seconds, -1 if gone */
	bool comm_read;
	char comm[16];
};

struct proc_cache {
	struct proc_entry *slots;
	size_t cap, used;
};

void proc_cache_reset(struct proc_cache *c);
void proc_cache_free(struct proc_cache *c);
bool proc_alive_since(struct proc_cache *c, int pid, int64_t since);
const char *proc_comm(struct proc_cache *c, int pid);

#endif
