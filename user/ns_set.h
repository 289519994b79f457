/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IPC namespaces watched, one state each: the caller's alone, or
 * (-A) every one alive on the host, adopted as they appear and reported
 * with what they freed when they go. top and enforce keep theirs here.
 */
#ifndef IPCWATCH_NS_SET_H
#define IPCWATCH_NS_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state.h"

/* A namespace that went away while watched, and what it freed. */
struct gone_ns {
	uint32_t ipcns;
	char owner[96];
	uint64_t segments, bytes, sem_sets, msg_queues;
	int64_t at;		/* wall clock */
};

/*
 * Called for a state about to be freed: @gone says what it freed when
 * the namespace went away, NULL when the set is freed.
 */
typedef void (*ns_release_fn)(struct ipc_state *st, const struct gone_ns *gone,
			      void *ctx);

struct ns_set {
	struct ipc_state **st;	/* sorted by inode */
	size_t n;
	bool all;
	struct gone_ns gone[RECENT_MAX];	/* newest last */
	size_t ngone;
	uint64_t lost;
	/* the last ns_sync(): namespaces it could not read, the first why */
	size_t failed;
	char failed_err[256];
	ns_release_fn release;	/* may be NULL */
	void *ctx;
};

/* Watch the caller's namespace only: 0 or -ENOMEM. */
int ns_set_own(struct ns_set *set);

/* The state of @ipcns, NULL if not watched. */
struct ipc_state *ns_state(struct ns_set *set, uint32_t ipcns);

/*
 * -A: adopt the namespaces alive now. New ones are read whole; ones no
 * longer found are reported gone. One that cannot be read is left out
 * and counted in @set->failed. 0, or -errno with @err set.
 */
int ns_sync(struct ns_set *set, char *err, size_t errlen);

/* Forget the @i-th, reporting what its teardown freed. */
void ns_gone(struct ns_set *set, size_t i);

/* Forget everything; no report. */
void ns_set_free(struct ns_set *set);

#endif
