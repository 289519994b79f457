/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Orphan reaping, shm_rmid_forced-style, for the owners a rule names:
 * a segment with nothing attached whose creator is gone is removed
 * after the rule's grace period. Never an attached segment, never a
 * semaphore; the segment's identity is checked again right before
 * IPC_RMID, so an id reused in between is left alone.
 */
#ifndef IPCWATCH_REAPER_H
#define IPCWATCH_REAPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "state.h"

struct orphan {
	int id;
	/* the state's view at first sight: another segment if it changes */
	int64_t seen_ctime;
	int seen_cpid;
	/* the kernel's (IPC_STAT) at first sight, checked before IPC_RMID */
	int64_t ctime;
	int cpid;
	uint64_t since_ns;	/* first seen orphaned */
	int rule;
};

struct reaper {
	struct orphan *orphans;
	size_t n, cap;
	uint64_t removed;
	uint64_t removed_bytes;
	uint64_t skipped_changed;	/* identity changed before IPC_RMID */
	/*
	 * In the helper, around its IPC_RMID (@on, then !@on): lets the
	 * removal past the daemon's own guard. May be NULL; non-zero
	 * refuses the removal.
	 */
	int (*around_rmid)(void *ctx, bool on);
	void *around_ctx;
};

typedef void (*reaped_fn)(const struct seg *s, const struct policy_rule *r,
			  void *ctx);

/*
 * Look at every segment of @st: remove the orphans whose grace is over,
 * checked and removed in @st's namespace (ipcns_call()).
 * The rule of a segment is the one its record names (@record): a
 * segment without a record is never removed.
 */
void reaper_tick(struct reaper *rp, struct ipc_state *st,
		 const struct policy *p, uint64_t now_ns, seg_record_fn record,
		 reaped_fn fn, void *ctx);

void reaper_free(struct reaper *rp);

#endif
