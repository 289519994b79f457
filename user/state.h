/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one IPC namespace: segments, semaphore sets, the tasks
 * asleep on them, recent refusals and destructions. Built from a
 * snapshot (sysvipc.c), kept current by the event stream, corrected by
 * periodic resyncs. Views (top) only read it.
 */
#ifndef IPCWATCH_STATE_H
#define IPCWATCH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc_limits.h"
#include "ipcns.h"
#include "ipcwatch.h"
#include "sysvipc.h"

struct seg {
	struct shm_row row;	/* as /proc/sysvipc/shm has it */
	char creator_comm[IPCW_COMM_LEN]; /* at creation; "" if unknown */
	bool creator_alive;
	uint64_t last_attach_ns, last_detach_ns; /* monotonic, 0: unseen */
	/* the creator's cgroup at creation (events), else the live
	 * creator's now; 0 if unknown */
	uint64_t cgroup_id;
};

/* Cgroups seen, by id: their paths and who they belong to. */
struct cgroup_name {
	uint64_t id;
	char path[256];
	char label[96];		/* cgroup_owner_label() */
};

struct semset {
	struct sem_row row;	/* values read at the last refresh */
	uint64_t cgroup_id;	/* its creator's at creation, 0 if unseen */
};

/* A set's creator cgroup, from its sem_create event. */
struct set_owner {
	int id;
	uint64_t cgroup_id;
};

/* A task asleep in semop(), from its sem_block event. */
struct sem_waiter {
	uint32_t pid, tid;
	char comm[IPCW_COMM_LEN];
	int id;
	uint32_t nsops, index;
	uint16_t sem_num;
	int16_t sem_op;
	bool zcnt, timeout;
	uint64_t since_ns;	/* monotonic */
};

#define RECENT_MAX 32
#define CGROUP_NAMES_MAX 4096

struct ipc_state {
	uint32_t ipcns;
	/* how to enter it; read in this process when not foreign */
	struct ipcns ns;
	bool foreign;
	bool identified;		/* state_set_ns() was called */
	struct ipcns_identity id;	/* with identified */
	struct ipc_limits limits;
	struct ipc_usage usage;

	struct seg *segs;	/* sorted by id */
	size_t nsegs, segs_cap;
	struct semset *sets;	/* sorted by id */
	size_t nsets;
	struct sem_waiter *waiters;
	size_t nwaiters, waiters_cap;
	struct msg_row *msgs;	/* read at every refresh */
	size_t nmsgs;
	struct cgroup_name *cgroups;
	size_t ncgroups;
	struct set_owner *set_owners;	/* sets created while watched */
	size_t nset_owners;

	/* refusals by reason since the last state_interval_reset() */
	uint64_t refused[IPCW_CREATE_REASON_MAX];
	uint64_t refused_total[IPCW_CREATE_REASON_MAX];
	/* refusals and destructions, newest last */
	struct ipcw_event recent[RECENT_MAX];
	size_t nrecent;

	struct proc_cache procs;	/* creators, read once a refresh */

	/* freed by the namespace's teardown, as its events said */
	uint64_t exit_freed_segs, exit_freed_bytes;

	void *user;		/* what the watcher keeps per namespace */

	/* read ahead with the other namespaces' (state_prefetch) */
	struct ipcns_tables pre;
	unsigned int pre_what;	/* 0: nothing read ahead */
	int pre_ret;

	uint64_t events;	/* applied */
	uint64_t lost;		/* reported by the collector */
	uint64_t corrections;	/* differences the resyncs found */
	uint64_t resyncs;
};

void state_init(struct ipc_state *st, uint32_t ipcns);
/* Read @ns's tables through ipcns_read() from now on (top -A). */
void state_set_ns(struct ipc_state *st, const struct ipcns *ns);
void state_free(struct ipc_state *st);

/* Load everything from the kernel: 0 or -errno with @err set. */
int state_snapshot(struct ipc_state *st, char *err, size_t errlen);

/* Apply one event of the stream; events of other namespaces are ignored. */
void state_apply(struct ipc_state *st, const struct ipcw_event *e);

/*
 * Read the tables again and adopt them, counting every segment or set
 * that was missing, extra or different: 0 or -errno.
 */
int state_resync(struct ipc_state *st, char *err, size_t errlen);

/* Refresh what no event carries: semaphore values, limits, use. */
int state_refresh(struct ipc_state *st, char *err, size_t errlen);

/*
 * The tables state_refresh() reads, of every foreign state of @st, by
 * one helper that enters each in turn instead of one each; the next
 * refresh of each takes them (a result other than success is read
 * again alone, for its error).
 */
void state_prefetch(struct ipc_state *const *st, size_t n);

/* Only whether each segment's creator lives: no table is read. */
void state_check_creators(struct ipc_state *st);

/* Start a new interval for the per-interval refusal counts. */
void state_interval_reset(struct ipc_state *st);

struct seg *state_find_seg(struct ipc_state *st, int id);
struct semset *state_find_set(struct ipc_state *st, int id);

/* Status words of a segment. */
bool seg_dest(const struct seg *s);
bool seg_locked(const struct seg *s);
bool seg_orphaned(const struct seg *s);

/* Orphaned segments and their bytes. */
void state_orphans(const struct ipc_state *st, uint64_t *count,
		   uint64_t *bytes);

/* The cgroup of @id, NULL if it cannot be named. */
const struct cgroup_name *state_cgroup(const struct ipc_state *st,
				      uint64_t id);

/* The largest segment, in bytes. */
uint64_t state_largest_seg(const struct ipc_state *st);

#endif
