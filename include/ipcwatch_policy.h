/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between bpf/policy.bpf.c (enforcement in the kernel) and
 * user space (user/policy_bpf.c): rules as the BPF side reads them, the
 * per-owner totals, and the decision record.
 */
#ifndef IPCWATCH_POLICY_BPF_H
#define IPCWATCH_POLICY_BPF_H

#ifndef __VMLINUX_H__
#include <linux/bpf.h>
#include <linux/types.h>
#endif

#define IPCW_MAX_RULES 32

enum ipcw_rule_flags {
	IPCW_RULE_MATCH_UID = 1 << 0,
	IPCW_RULE_MATCH_GID = 1 << 1,
	IPCW_RULE_MATCH_CGROUP = 1 << 2,
	IPCW_RULE_MATCH_IPCNS = 1 << 3,
	IPCW_RULE_ENFORCE = 1 << 4,
	IPCW_RULE_MAX_SEGMENT = 1 << 5,
	IPCW_RULE_MAX_TOTAL = 1 << 6,
	IPCW_RULE_MAX_COUNT = 1 << 7,
};

enum ipcw_scope { IPCW_SCOPE_UID, IPCW_SCOPE_GID, IPCW_SCOPE_CGROUP,
		  IPCW_SCOPE_IPCNS };

/* The rule id of a segment no rule matched. */
#define IPCW_NO_RULE 0

struct ipcw_rule {
	__u32 flags;
	__u32 scope;		/* enum ipcw_scope */
	__u32 uid, gid, ipcns;
	__u32 id;		/* stable across reloads: policy_rule_id() */
	__u64 max_segment_bytes;
	__u64 max_total_bytes;
	__u64 max_segments;
};

/*
 * The rules map holds two generations of IPCW_MAX_RULES rules; a reload
 * writes the idle one, then flips this word:
 * (generation << 32) | (flags << 8) | nrules, one 64-bit store, so no
 * request sees half a policy.
 */
struct ipcw_policy_config {
	__u64 live;
};

enum ipcw_live_flags {
	/* some rule enforces: a request that cannot be accounted is refused */
	IPCW_LIVE_ENFORCING = 1 << 0,
	/* guard_rmid = audit: an IPC_RMID of an object in use is logged */
	IPCW_LIVE_GUARD_AUDIT = 1 << 1,
	/* guard_rmid = deny: it is refused with EPERM (and logged) */
	IPCW_LIVE_GUARD_DENY = 1 << 2,
};

#define IPCW_LIVE(gen, flags, nrules) \
	((__u64)(gen) << 32 | (__u64)(flags) << 8 | (nrules))

#define IPCW_RULE_SLOTS (2 * IPCW_MAX_RULES)

/*
 * Per-owner totals, kept only in the scopes the rules count in (fixed
 * when the programs are loaded: kept_scopes, a bit per scope), so the
 * map holds no owners nobody limits; a reload may change rules and
 * their order without a recount, but not need a scope not kept. A total
 * that falls to zero is deleted (pruned); the dead flag, set under the
 * lock, tells a concurrent charge to make a fresh one instead. A hash
 * element freed by a delete can be reused at once for another owner
 * while a program still holds its address, so each total carries its
 * own key, and a charge checks it under the lock.
 */
#define IPCW_SCOPES 4
#define IPCW_OWNERS_DEFAULT 65536
#define IPCW_CHARGES_MAX 262144

struct ipcw_owner_key {
	__u32 scope;		/* enum ipcw_scope */
	__u32 pad;
	__u64 owner;		/* uid, gid, cgroup id or ipcns by scope */
};

struct ipcw_owner_total {
	struct bpf_spin_lock lock;
	__u32 dead;
	__s64 bytes;
	__s64 segments;
	__u64 owner;		/* the key this total is for; ~0 once dead */
	__u32 scope;		/* IPCW_SCOPES once dead */
	__u32 pad;
};

/*
 * Totals of the segments that existed at start: user space's own. It
 * updates them in place under the lock (BPF_F_LOCK), and never deletes
 * one, so an element a program holds is never reused for another owner;
 * programs read them under the lock.
 */
struct ipcw_seed_total {
	struct bpf_spin_lock lock;
	__u32 pad;
	__s64 bytes;
	__s64 segments;
};

/* What a segment was charged to, so its destruction credits it back. */
struct ipcw_charge_key {
	__u32 ipcns;
	__s32 id;
};

/*
 * Per segment: what it was charged to and the rule that matched when it
 * was created, decided once (in the kernel, or by enforce for segments
 * that existed before it started). The reaper, the alerts and the
 * metrics read it; nothing matches rules again.
 */
struct ipcw_charge {
	__u64 owner[IPCW_SCOPES];	/* by enum ipcw_scope */
	__u64 size;
	__u32 rule_id;			/* IPCW_NO_RULE: none matched */
	__u32 pad;
};

/*
 * What a decision is about: a limit of the rule, or the accounting
 * itself (a full or failed map update; refused when the policy
 * enforces).
 */
enum ipcw_limit { IPCW_LIMIT_SEGMENT, IPCW_LIMIT_TOTAL, IPCW_LIMIT_COUNT,
		  IPCW_LIMIT_ACCOUNTING, IPCW_LIMIT_MAX };

/* A shmget() that broke a rule: refused (enforce) or logged (audit). */
struct ipcw_decision {
	__u64 ts_ns;
	__u64 size;		/* asked for */
	__u64 owner;
	__s64 total_bytes;	/* the owner's, with this request */
	__s64 total_segments;
	__u64 limit;
	__u32 pid, tid, uid, gid, ipcns;
	__u32 rule;		/* index in its generation, IPCW_MAX_RULES: none */
	__u32 rule_id;		/* IPCW_NO_RULE: none matched */
	__u32 scope;
	__u32 kind;		/* enum ipcw_limit */
	__u32 enforced;		/* refused, else only logged */
	__s32 err;		/* errno returned when refused */
	__u32 pad;
	char comm[16];
};

/*
 * counters[rule * IPCW_LIMIT_MAX * 2 + kind * 2 + enforced]; rule
 * IPCW_MAX_RULES counts what no rule matched (accounting failures).
 */
#define IPCW_COUNTERS ((IPCW_MAX_RULES + 1) * IPCW_LIMIT_MAX * 2)

/* What an IPC_RMID the guard judged was about. */
enum ipcw_rmid_object { IPCW_RMID_SEM, IPCW_RMID_SHM, IPCW_RMID_OBJECTS };

/* What made the object in use, a bit each (ipcw_rmid_decision.in_use). */
enum ipcw_rmid_use {
	IPCW_USE_ATTACHED = 1 << 0,	/* shm: nattch > 0 */
	IPCW_USE_WAITERS = 1 << 1,	/* sem: tasks asleep on the set */
	IPCW_USE_CREATOR = 1 << 2,	/* shm: the creator process lives */
	IPCW_USE_LAST_OP = 1 << 3,	/* the last operator process lives */
};

/* Sleepers counted on one set at most: past it the count says "at least". */
#define IPCW_RMID_WAITERS_MAX 4096

/*
 * An IPC_RMID of an object in use by a process that is neither its
 * creator nor of its owner's or creator's uid: refused (guard_rmid =
 * deny) or only logged (audit). Pids are numbers in the initial pid
 * namespace, as the pid of every decision; 0 when there is none.
 */
struct ipcw_rmid_decision {
	__u64 ts_ns;
	__u64 cgroup;		/* the remover's cgroup v2 id */
	__u64 nattch;		/* shm: attaches when it was asked */
	__u32 pid, tid, uid, gid;	/* the remover: tgid, tid, euid, egid */
	__u32 ipcns;
	__s32 id;
	__s32 key;
	__u32 owner_uid, cuid;	/* the object's owner and creator */
	__u32 object;		/* enum ipcw_rmid_object */
	__u32 in_use;		/* enum ipcw_rmid_use bits */
	__u32 waiters;		/* sem: sleepers, up to IPCW_RMID_WAITERS_MAX */
	__u32 nsems;
	__u32 creator_pid;	/* shm: cpid */
	__u32 last_pid;		/* shm: lpid; sem: sempid of last_semnum */
	__s32 last_semnum;	/* sem: the first semaphore whose last
				 * operator lives, else -1 */
	__u32 enforced;		/* refused, else only logged */
	__s32 err;		/* errno returned when refused */
	char comm[16];
};

/*
 * Who holds the pinned policy (pin_info[0]), written by user space only:
 * the build of the programs, so a daemon adopts only its own, and the
 * daemon running now (pid and start time, 0 when none has said so).
 */
struct ipcw_pin_info {
	__u64 build;
	__u64 starttime;	/* /proc/PID/stat field 22 */
	__u32 pid;
	__u32 max_owners;
	__u32 ready;		/* the daemon that pinned them finished its
				 * start (seeded the totals) */
	__u32 unseeded;		/* existing segments it could not charge */
};

#endif
