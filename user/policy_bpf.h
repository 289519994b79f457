/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel half of a policy: loads bpf/policy.bpf.c (BPF LSM on
 * shm_alloc_security), writes the rules, seeds the per-owner totals
 * from the segments that exist, and delivers the decisions it took.
 */
#ifndef IPCWATCH_POLICY_BPF_USER_H
#define IPCWATCH_POLICY_BPF_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcwatch_policy.h"
#include "policy.h"

struct enforcer;

typedef int (*decision_fn)(const struct ipcw_decision *d, void *ctx);
/* An IPC_RMID the guard refused or audited. */
typedef int (*rmid_decision_fn)(const struct ipcw_rmid_decision *d,
				void *ctx);

struct enforcer_opts {
	/* room in the per-owner totals (IPCW_OWNERS_DEFAULT); when they
	 * are full a request is refused under an enforcing policy */
	uint32_t max_owners;
	bool verbose;
	/* bpffs directory to pin in or adopt from; NULL: no pins, all
	 * detached when this process ends */
	const char *pin_dir;
	/* the guard's decisions, with the ctx of decision_fn; NULL: none */
	rmid_decision_fn on_rmid;
};

/*
 * Load and attach with @p in force, or adopt what a dead daemon of this
 * build left pinned in o->pin_dir (its totals untouched): NULL with @err
 * on failure, and then nothing changed (pins found stay in force).
 */
struct enforcer *enforcer_open(const struct policy *p, decision_fn fn,
			       void *ctx, const struct enforcer_opts *o,
			       char *err, size_t errlen);

/* Whether the policy was adopted from pins (no seeding needed). */
bool enforcer_adopted(const struct enforcer *e);

/*
 * The pid of a daemon that died during its start, whose pins were
 * removed before this fresh start; 0 when none.
 */
uint32_t enforcer_discarded(const struct enforcer *e);

/*
 * The start is complete: the totals are seeded (until now no limit on
 * them is judged), and pins are marked so (only such pins are adopted).
 * 0 or -errno.
 */
int enforcer_ready(struct enforcer *e);

/*
 * Whether policy @p may run on these totals: its rules count only in
 * the scopes kept, and it enforces nothing while existing segments went
 * uncharged. 0, or -errno with @err. enforcer_set_policy() asks it too.
 */
int enforcer_policy_fits(const struct enforcer *e, const struct policy *p,
			 char *err, size_t errlen);

/* A descriptor that polls readable when decisions are queued. */
/*
 * Let (@on) or stop letting this process remove objects the guard_rmid
 * guard protects: the reaper's helper, for the one removal it makes.
 */
int enforcer_exempt_self(struct enforcer *e, bool on);

int enforcer_fd(struct enforcer *e);

/*
 * Whether enforce can run here: its hooks, the load, the attach and the
 * proof that the BPF LSM refuses; everything is detached again. 0, or
 * -1 with @err.
 */
int enforcer_probe(bool verbose, char *err, size_t errlen);

/* Put @p in force at once (SIGHUP): 0 or -errno with @err. */
int enforcer_set_policy(struct enforcer *e, const struct policy *p,
			char *err, size_t errlen);

struct ipcns;

/*
 * Charge the segments that existed before the programs were attached
 * in IPC namespace @ipcns (@ns, read in itself, its path renewed if its
 * way in went; NULL: this process's),
 * each with the rule @p gives it now: 0 or -errno (-ESRCH: the
 * namespace is gone). @seeded counts those charged, @unaccounted those
 * that could not be (no room, or too large to be a charge).
 */
int enforcer_seed(struct enforcer *e, const struct policy *p,
		  struct ipcns *ns, uint32_t ipcns, size_t *seeded,
		  size_t *unaccounted, char *err, size_t errlen);

/* The record of segment @id of namespace @ipcns: 0, or -ENOENT. */
int enforcer_segment(struct enforcer *e, uint32_t ipcns, int id,
		     struct ipcw_charge *c);

/* Credits that could not be made: totals left too high (fail closed). */
uint64_t enforcer_credit_failures(struct enforcer *e);

/* Wait up to @timeout_ms for decisions: count handled, or -errno. */
int enforcer_poll(struct enforcer *e, int timeout_ms);

/* The effective total of one owner in one scope (charged + seeded). */
void enforcer_total(struct enforcer *e, enum ipcw_scope scope,
		    uint64_t owner, int64_t *bytes, int64_t *segments);

/* Call @fn for every owner with a total in @scope. */
void enforcer_for_each_total(struct enforcer *e, enum ipcw_scope scope,
			     void (*fn)(uint64_t owner, int64_t bytes,
					int64_t segments, void *ctx),
			     void *ctx);

/* Decisions per rule, limit kind and enforcement, summed over CPUs. */
uint64_t enforcer_count(struct enforcer *e, uint32_t rule,
			enum ipcw_limit kind, bool enforced);

/* IPC_RMID guard decisions per object kind and enforcement. */
uint64_t enforcer_rmid_count(struct enforcer *e, enum ipcw_rmid_object object,
			     bool enforced);

/* Decisions the ring buffer could not take. */
uint64_t enforcer_lost(struct enforcer *e);

/* Leave: the pins (if any) stay, and with them the quotas. */
void enforcer_close(struct enforcer *e);

/* Leave and take the policy away: pins removed, programs detached. */
int enforcer_detach(struct enforcer *e);

#endif
