/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System V IPC limits of one IPC namespace, the use against each, and
 * the hazards of the values in force. Pure arithmetic: reading them from
 * the kernel is sysvipc.c's job.
 */
#ifndef IPCWATCH_IPC_LIMITS_H
#define IPCWATCH_IPC_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ipc_limits {
	uint64_t shmmax;	/* bytes */
	uint64_t shmall;	/* pages */
	uint64_t shmmni;
	uint64_t shm_rmid_forced;
	uint64_t semmsl, semmns, semopm, semmni;
	uint64_t msgmax, msgmnb, msgmni;	/* bytes, bytes, queues */
	uint64_t page_size;
	uint64_t mem_total;	/* bytes, 0 if unknown */
};

struct ipc_usage {
	uint64_t segments;
	uint64_t shm_tot;	/* pages */
	uint64_t sem_sets;
	uint64_t sems;
	uint64_t msg_queues;
	uint64_t msg_messages;	/* queued in all queues */
	uint64_t msg_bytes;	/* their text */
};

/* One row of `ipcwatch limits`: a use against its limit. */
struct limit_row {
	const char *name;	/* "segments", "shm_tot", ... */
	const char *sysctl;	/* "kernel.shmmni", ... */
	unsigned __int128 used;
	unsigned __int128 limit;
	bool bytes;		/* used and limit are bytes */
	double fraction;	/* used / limit; 1 when limit is 0 and used */
};

#define LIMIT_ROWS 6

/*
 * Fill rows for segments, shm_tot (bytes), semaphore sets, semaphores,
 * message queues and, when MemTotal is known, shm memory: how many.
 */
int limit_rows(const struct ipc_limits *l, const struct ipc_usage *u,
	       struct limit_row rows[LIMIT_ROWS]);

/* used / limit without overflow; limit 0 means "nothing allowed". */
double limit_fraction(unsigned __int128 used, unsigned __int128 limit);

/* shmall in bytes: 128 bits, as it overflows 64 at the default */
unsigned __int128 shmall_bytes(const struct ipc_limits *l);

/* ceil(shmmax / page size), the pages one largest segment takes */
uint64_t shmmax_pages(const struct ipc_limits *l);

enum hazard_id {
	HAZARD_SHMMAX_NEAR_ULONG_MAX,
	HAZARD_SHMALL_BELOW_SHMMAX,
	HAZARD_SHM_DISABLED,
	HAZARD_UNLIMITED_NO_RMID_FORCED,
	HAZARD_NEAR_LIMIT,
};

struct hazard {
	enum hazard_id id;
	const char *name;	/* stable identifier for --json */
	char text[256];		/* what it means, in words */
};

#define MAX_HAZARDS 8

/* The hazards of @l and @u; returns how many were written. */
int find_hazards(const struct ipc_limits *l, const struct ipc_usage *u,
		 struct hazard out[MAX_HAZARDS]);

/* Kernel default of shmmax and shmall since 2014: ULONG_MAX - 2^24 */
#define SHM_LIMIT_DEFAULT (UINT64_MAX - (UINT64_C(1) << 24))
/* Share of a limit in use from which `limits` warns */
#define NEAR_LIMIT_FRACTION 0.9

#endif
