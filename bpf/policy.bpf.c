// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch policy enforcement: per-owner SHM quotas checked in the
 * kernel, by a BPF LSM program on shm_alloc_security.
 *
 * The size is not in the segment yet when the LSM hook runs, so it is
 * carried from newseg() by an fentry program. A request is charged to
 * its owner's total when it is checked (atomically, so concurrent
 * requests cannot both slip under a limit); the charge is kept when
 * newseg() succeeds, rolled back when it fails, and credited back when
 * the segment is destroyed.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ipcwatch_policy.h"

#define EPERM	1
#define ENOMEM	12
#define EEXIST	17
#define EINVAL	22
#define ENOSPC	28

#define IPC_RMID 0

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPCW_RULE_SLOTS);
	__type(key, __u32);
	__type(value, struct ipcw_rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ipcw_policy_config);
} policy_live SEC(".maps");

/* The cgroup of each rule that matches one, by rule slot. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, IPCW_RULE_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} rule_cgroups SEC(".maps");

/*
 * Charged by BPF; may go below zero for segments seeded by user space.
 * Its size is set by user space (enforce --max-owners).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPCW_OWNERS_DEFAULT);
	__type(key, struct ipcw_owner_key);
	__type(value, struct ipcw_owner_total);
} owner_totals SEC(".maps");

/* Segments that existed at start, written by user space only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPCW_OWNERS_DEFAULT);
	__type(key, struct ipcw_owner_key);
	__type(value, struct ipcw_seed_total);
} seed_totals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPCW_CHARGES_MAX);
	__type(key, struct ipcw_charge_key);
	__type(value, struct ipcw_charge);
} charges SEC(".maps");

/* newseg() in flight: its size, then what it was charged to. */
struct newseg_call {
	__u64 size;
	__u32 ipcns;
	__u32 charged;
	__u32 rule_id;
	__u32 reserved;		/* holds a place in charges */
	__u64 owner[IPCW_SCOPES];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);		/* pid_tgid */
	__type(value, struct newseg_call);
} calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} decisions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPCW_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* decisions the ring buffer could not take */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost_decisions SEC(".maps");

/* IPC_RMID guard decisions (struct ipcw_rmid_decision). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} rmid_decisions SEC(".maps");

/* rmid_counters[object * 2 + enforced] */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPCW_RMID_OBJECTS * 2);
	__type(key, __u32);
	__type(value, __u64);
} rmid_counters SEC(".maps");

/* Read by the daemons only: which build and daemon the pins belong to. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ipcw_pin_info);
} pin_info SEC(".maps");

/*
 * The start-up proof that the LSM is really on: the daemon's own test
 * shmget() of this random key must be refused, and counted. A key, not
 * a tid: the daemon may run in a pid namespace.
 */
__s32 canary_key;
__u64 canary_hits;
/*
 * The same proof for the IPC_RMID guard: an IPC_RMID of an object of
 * this key is refused, each kind counted apart. The daemon's test
 * segment is made with canary_pass_key, which the quota program lets
 * through uncharged: no rule can refuse the proof its object.
 */
__s32 canary_rmid_key;
__s32 canary_pass_key;
__u64 canary_rmid_hits[IPCW_RMID_OBJECTS];

/*
 * Processes the guard lets remove: the daemon's own reaper helpers,
 * each for the one removal it was forked for (rmid_forced is a policy
 * the administrator asked for). Written only through the pinned map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} rmid_exempt SEC(".maps");

/*
 * Places taken in charges, by requests in flight and by segments; a
 * request that finds none left is refused before its segment exists,
 * so every segment charged has its record. User space takes a place for
 * each segment it seeds.
 */
__s64 charges_reserved;
/* credits that could not be made (a seeded owner's total not created) */
__u64 credit_failures;
/*
 * The scopes totals are kept in, a bit per scope: set by user space
 * before attaching, then fixed for as long as the programs run (charges
 * and credits must agree on it).
 */
__u32 kept_scopes;
/*
 * Set while a fresh start seeds the totals of what existed before it:
 * until then no total can be judged, so rules with total or count
 * limits give accounting decisions (refused when they enforce).
 */
__u32 seeding;

SEC("fentry/newseg")
int BPF_PROG(policy_newseg_enter, struct ipc_namespace *ns,
	     struct ipc_params *params)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct newseg_call call = {
		.size = BPF_CORE_READ(params, u.size),
		.ipcns = BPF_CORE_READ(ns, ns.inum),
	};

	/* no record: the LSM program refuses rather than guess */
	bpf_map_update_elem(&calls, &pid_tgid, &call, BPF_ANY);
	return 0;
}

static __always_inline bool rule_matches(const struct ipcw_rule *r,
					 __u32 slot, __u32 uid, __u32 gid,
					 __u32 ipcns)
{
	if ((r->flags & IPCW_RULE_MATCH_UID) && r->uid != uid)
		return false;
	if ((r->flags & IPCW_RULE_MATCH_GID) && r->gid != gid)
		return false;
	if ((r->flags & IPCW_RULE_MATCH_IPCNS) && r->ipcns != ipcns)
		return false;
	if ((r->flags & IPCW_RULE_MATCH_CGROUP) &&
	    bpf_current_task_under_cgroup(&rule_cgroups, slot) != 1)
		return false;
	return true;
}

/*
 * Add to (or take from) one owner's total: 0 with the total after it in
 * @now (bytes, segments), or -1 when the total could not be made (the
 * map is full) or kept dying under us. A total that reaches zero is
 * marked dead under its lock, loses its key, and is deleted; a charge
 * that finds it dead, or finds another owner's key in a reused element,
 * looks it up again. A marker preempted between its unlock and its
 * delete can make a racing charge use up its tries: that request is
 * then an accounting decision (refused when enforcing), and a credit
 * that gives up is counted in credit_failures (the total stays high).
 */
static __always_inline int add_total(__u32 scope, __u64 owner, __s64 bytes,
				     __s64 segments, __s64 *now)
{
	struct ipcw_owner_key key = { .scope = scope, .owner = owner };
	struct ipcw_owner_total fresh = { .owner = owner, .scope = scope };
	struct ipcw_owner_total *t;
	bool done = false, empty = false;
	int tries, err;

	/* few tries: each is verified apart, and a retry is rare */
	for (tries = 0; tries < 4 && !done; tries++) {
		t = bpf_map_lookup_elem(&owner_totals, &key);
		if (!t) {
			err = bpf_map_update_elem(&owner_totals, &key, &fresh,
						  BPF_NOEXIST);
			if (err && err != -EEXIST)
				return -1;
			continue;
		}
		bpf_spin_lock(&t->lock);
		/* a dead total has lost its key: no match */
		if (t->scope == scope && t->owner == owner) {
			t->bytes += bytes;
			t->segments += segments;
			now[0] = t->bytes;
			now[1] = t->segments;
			empty = !t->bytes && !t->segments;
			if (empty) {
				t->dead = 1;
				t->owner = ~0ULL;
				t->scope = IPCW_SCOPES;
			}
			done = true;
		}
		bpf_spin_unlock(&t->lock);
	}
	if (!done)
		return -1;
	if (empty)
		bpf_map_delete_elem(&owner_totals, &key);
	return 0;
}

/*
 * Charge a segment to its owners in every kept scope, all or none: 0 with
 * the totals of scope @want after the charge in @now, or -1 with
 * nothing charged.
 */
static __always_inline int charge_all(const __u64 *owner, __u64 size,
				      __u32 want, __s64 *now)
{
	__s64 after[2];
	__u32 scope, undo;

	for (scope = 0; scope < IPCW_SCOPES; scope++) {
		if (!(kept_scopes & (1U << scope)))
			continue;
		if (!add_total(scope, owner[scope], (__s64)size, 1, after)) {
			if (scope == want) {
				now[0] = after[0];
				now[1] = after[1];
			}
			continue;
		}
		for (undo = 0; undo < scope; undo++)
			if ((kept_scopes & (1U << undo)) &&
			    add_total(undo, owner[undo], -(__s64)size, -1,
				      after))
				__sync_fetch_and_add(&credit_failures, 1);
		return -1;
	}
	return 0;
}

static __always_inline void credit_all(const __u64 *owner, __u64 size)
{
	__s64 after[2];
	__u32 scope;

	for (scope = 0; scope < IPCW_SCOPES; scope++)
		if ((kept_scopes & (1U << scope)) &&
		    add_total(scope, owner[scope], -(__s64)size, -1, after))
			__sync_fetch_and_add(&credit_failures, 1);
}

static __always_inline void count(__u32 rule, __u32 kind, bool enforced)
{
	__u32 slot = (rule * IPCW_LIMIT_MAX + kind) * 2 + enforced;
	__u64 *c = bpf_map_lookup_elem(&counters, &slot);

	if (c)
		(*c)++;
}

static __always_inline void decide(__u32 rule, const struct ipcw_rule *r,
				   const struct newseg_call *call, __u64 owner,
				   __u32 kind, __s64 bytes, __s64 segments,
				   __u64 limit, __u32 uid, __u32 gid,
				   bool enforced, int err)
{
	struct ipcw_decision *d;
	__u32 zero = 0;
	__u64 *lost;

	count(rule, kind, enforced);
	d = bpf_ringbuf_reserve(&decisions, sizeof(*d), 0);
	if (!d) {
		lost = bpf_map_lookup_elem(&lost_decisions, &zero);
		if (lost)
			__sync_fetch_and_add(lost, 1);
		return;
	}
	d->ts_ns = bpf_ktime_get_ns();
	d->size = call->size;
	d->owner = owner;
	d->total_bytes = bytes;
	d->total_segments = segments;
	d->limit = limit;
	d->pid = bpf_get_current_pid_tgid() >> 32;
	d->tid = (__u32)bpf_get_current_pid_tgid();
	d->uid = uid;
	d->gid = gid;
	d->ipcns = call->ipcns;
	d->rule = rule;
	d->rule_id = r ? r->id : IPCW_NO_RULE;
	d->scope = r ? r->scope : 0;
	d->kind = kind;
	d->enforced = enforced;
	d->err = enforced ? err : 0;
	d->pad = 0;
	bpf_get_current_comm(d->comm, sizeof(d->comm));
	bpf_ringbuf_submit(d, 0);
}

/* An owner's seed totals, read under their lock (zero when none). */
static __always_inline void seed_of(const struct ipcw_owner_key *key,
				    __s64 *bytes, __s64 *segments)
{
	struct ipcw_seed_total *seed = bpf_map_lookup_elem(&seed_totals, key);

	*bytes = *segments = 0;
	if (!seed)
		return;
	bpf_spin_lock(&seed->lock);
	*bytes = seed->bytes;
	*segments = seed->segments;
	bpf_spin_unlock(&seed->lock);
}

/* Give back a place in charges. */
static __always_inline void release_place(struct newseg_call *call)
{
	if (call->reserved) {
		__sync_fetch_and_add(&charges_reserved, -1);
		call->reserved = 0;
	}
}

SEC("lsm/shm_alloc_security")
int BPF_PROG(policy_shm_alloc, struct kern_ipc_perm *perm, int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct task_struct *task = bpf_get_current_task_btf();
	struct newseg_call *call = bpf_map_lookup_elem(&calls, &pid_tgid);
	struct ipcw_policy_config *cfg;
	const struct ipcw_rule *r = NULL;
	struct ipcw_owner_key key = {};
	__u32 key0 = 0, uid, gid, i, rule = IPCW_MAX_RULES, nrules = 0;
	__u32 base = 0, flags = 0;
	__s64 bytes, segments, now[2] = {}, seed_bytes, seed_segments;
	bool enforcing, enforced;
	__u64 live;

	if (ret)
		return ret;
	if (canary_key && BPF_CORE_READ(perm, key) == canary_key) {
		__sync_fetch_and_add(&canary_hits, 1);
		return -EPERM;
	}
	if (canary_pass_key && BPF_CORE_READ(perm, key) == canary_pass_key)
		return 0;
	cfg = bpf_map_lookup_elem(&policy_live, &key0);
	if (cfg) {
		live = *(volatile __u64 *)&cfg->live;
		nrules = (__u32)live & 0xff;
		flags = ((__u32)live >> 8) & 0xff;
		base = (live >> 32) & 1 ? IPCW_MAX_RULES : 0;
	}
	enforcing = flags & IPCW_LIVE_ENFORCING;
	/*
	 * The request's size was not seen (its record could not be made):
	 * it cannot be charged, so it is an accounting decision like a full
	 * map, logged and counted, refused when the policy enforces.
	 */
	if (!call) {
		struct newseg_call unseen = {};

		uid = BPF_CORE_READ(task, cred, euid.val);
		gid = BPF_CORE_READ(task, cred, egid.val);
		decide(IPCW_MAX_RULES, NULL, &unseen, uid,
		       IPCW_LIMIT_ACCOUNTING, 0, 0, 0, uid, gid, enforcing,
		       ENOSPC);
		return enforcing ? -ENOSPC : 0;
	}
	/* the owner a segment gets: the effective ids, as ipc_addid() */
	uid = BPF_CORE_READ(task, cred, euid.val);
	gid = BPF_CORE_READ(task, cred, egid.val);
	call->owner[IPCW_SCOPE_UID] = uid;
	call->owner[IPCW_SCOPE_GID] = gid;
	call->owner[IPCW_SCOPE_CGROUP] = bpf_get_current_cgroup_id();
	call->owner[IPCW_SCOPE_IPCNS] = call->ipcns;

	for (i = 0; i < IPCW_MAX_RULES; i++) {
		__u32 slot = base + i;

		if (i >= nrules)
			break;
		r = bpf_map_lookup_elem(&rules, &slot);
		if (r && rule_matches(r, slot, uid, gid, call->ipcns)) {
			rule = i;
			break;
		}
		r = NULL;
	}
	call->rule_id = r ? r->id : IPCW_NO_RULE;
	enforced = r && (r->flags & IPCW_RULE_ENFORCE);

	if (r && (r->flags & IPCW_RULE_MAX_SEGMENT) &&
	    call->size > r->max_segment_bytes) {
		decide(rule, r, call, uid, IPCW_LIMIT_SEGMENT, 0, 0,
		       r->max_segment_bytes, uid, gid, enforced, EINVAL);
		if (enforced)
			return -EINVAL;
	}

	/*
	 * 2^63 bytes or more cannot be a charge (it would be negative);
	 * no file that large can be set up, so newseg() fails anyway.
	 * Over any total a rule can have: refused where one applies.
	 */
	if (call->size > (__u64)0x7fffffffffffffffULL) {
		if (!r || !(r->flags & IPCW_RULE_MAX_TOTAL))
			return 0;
		decide(rule, r, call, uid, IPCW_LIMIT_TOTAL, 0, 0,
		       r->max_total_bytes, uid, gid, enforced, ENOSPC);
		return enforced ? -ENOSPC : 0;
	}

	/* the owner the rule counts: a switch keeps the verifier's bounds */
	switch (r ? r->scope : IPCW_SCOPE_UID) {
	case IPCW_SCOPE_GID:
		key.scope = IPCW_SCOPE_GID;
		key.owner = gid;
		break;
	case IPCW_SCOPE_CGROUP:
		key.scope = IPCW_SCOPE_CGROUP;
		key.owner = call->owner[IPCW_SCOPE_CGROUP];
		break;
	case IPCW_SCOPE_IPCNS:
		key.scope = IPCW_SCOPE_IPCNS;
		key.owner = call->ipcns;
		break;
	default:
		key.scope = IPCW_SCOPE_UID;
		key.owner = uid;
	}

	/*
	 * A place for its record, then the charge, reserved before the
	 * check: two requests cannot both pass on one margin. Either
	 * failing is logged, and refused when the policy enforces.
	 */
	if (__sync_fetch_and_add(&charges_reserved, 1) >= IPCW_CHARGES_MAX) {
		__sync_fetch_and_add(&charges_reserved, -1);
		goto unaccounted;
	}
	call->reserved = 1;
	/* the rule's total as this charge left it, read under its lock */
	if (charge_all(call->owner, call->size, key.scope, now)) {
		release_place(call);
		goto unaccounted;
	}
	call->charged = 1;
	if (!r || !(r->flags & (IPCW_RULE_MAX_TOTAL | IPCW_RULE_MAX_COUNT)))
		return 0;
	/*
	 * No total to judge by: the start has not seeded what existed
	 * before it yet, or (never, as user space refuses such a policy)
	 * the rule counts in a scope not kept.
	 */
	if (seeding || !(kept_scopes & (1U << key.scope)))
		goto cannot_judge;

	seed_of(&key, &seed_bytes, &seed_segments);
	bytes = now[0] + seed_bytes;
	segments = now[1] + seed_segments;

	if ((r->flags & IPCW_RULE_MAX_TOTAL) &&
	    bytes > (__s64)r->max_total_bytes) {
		decide(rule, r, call, key.owner, IPCW_LIMIT_TOTAL, bytes,
		       segments, r->max_total_bytes, uid, gid, enforced,
		       ENOSPC);
	} else if ((r->flags & IPCW_RULE_MAX_COUNT) &&
		   segments > (__s64)r->max_segments) {
		decide(rule, r, call, key.owner, IPCW_LIMIT_COUNT, bytes,
		       segments, r->max_segments, uid, gid, enforced, ENOSPC);
	} else {
		return 0;
	}
	if (!enforced)
		return 0;
	credit_all(call->owner, call->size);
	call->charged = 0;
	release_place(call);
	return -ENOSPC;

cannot_judge:
	/* the rule's limits cannot be checked: refused if it enforces */
	decide(rule, r, call, key.owner, IPCW_LIMIT_ACCOUNTING, 0, 0, 0, uid,
	       gid, enforced, ENOSPC);
	if (!enforced)
		return 0;	/* allowed, and kept charged */
	credit_all(call->owner, call->size);
	call->charged = 0;
	release_place(call);
	return -ENOSPC;

unaccounted:
	/* the totals cannot be kept: refuse rather than let it pass */
	decide(rule, r, call, uid, IPCW_LIMIT_ACCOUNTING, 0, 0, 0, uid, gid,
	       enforcing, ENOSPC);
	return enforcing ? -ENOSPC : 0;
}

SEC("fexit/newseg")
int BPF_PROG(policy_newseg_exit, struct ipc_namespace *ns,
	     struct ipc_params *params, int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct newseg_call *call = bpf_map_lookup_elem(&calls, &pid_tgid);

	if (!call)
		return 0;
	if (call->charged) {
		if (ret >= 0) {
			struct ipcw_charge_key k = { call->ipcns, ret };
			struct ipcw_charge c = { .size = call->size,
						 .rule_id = call->rule_id };

			__builtin_memcpy(c.owner, call->owner, sizeof(c.owner));
			/* its place was reserved: this cannot find it full */
			if (bpf_map_update_elem(&charges, &k, &c, BPF_ANY))
				__sync_fetch_and_add(&credit_failures, 1);
			call->reserved = 0;	/* the record holds it now */
		} else {
			/* refused after the check, by the kernel itself */
			credit_all(call->owner, call->size);
		}
	}
	release_place(call);
	bpf_map_delete_elem(&calls, &pid_tgid);
	return 0;
}

SEC("fentry/shm_destroy")
int BPF_PROG(policy_shm_destroy, struct ipc_namespace *ns,
	     struct shmid_kernel *shp)
{
	struct ipcw_charge_key k = {
		.ipcns = BPF_CORE_READ(ns, ns.inum),
		.id = BPF_CORE_READ(shp, shm_perm.id),
	};
	struct ipcw_charge *c = bpf_map_lookup_elem(&charges, &k);
	struct ipcw_charge copy;

	if (!c)
		return 0;
	copy = *c;
	/* whoever deletes the charge credits it: once */
	if (bpf_map_delete_elem(&charges, &k))
		return 0;
	__sync_fetch_and_add(&charges_reserved, -1);
	credit_all(copy.owner, copy.size);
	return 0;
}

/* ---- the IPC_RMID guard ---------------------------------------------------- */

/* The guard's flags of the policy in force (IPCW_LIVE_GUARD_*). */
static __always_inline __u32 guard_flags(void)
{
	struct ipcw_policy_config *cfg;
	__u32 key0 = 0;

	cfg = bpf_map_lookup_elem(&policy_live, &key0);
	if (!cfg)
		return 0;
	return ((__u32)(*(volatile __u64 *)&cfg->live) >> 8) &
	       (IPCW_LIVE_GUARD_AUDIT | IPCW_LIVE_GUARD_DENY);
}

/*
 * Whether the process of a struct pid lives, with its number in the
 * initial pid namespace in @nr. The kernel's own record, so no pid
 * namespace or reused number can fool it: the pid's thread group leader
 * is still attached (not reaped), and some thread of it has not begun
 * to exit (signal->live, which do_exit() drops before exit_sem() and
 * exit_shm(): a zombie, or a process dying, is gone).
 */
static __always_inline bool pid_lives(struct pid *p, __u32 *nr)
{
	struct hlist_node *first;
	struct task_struct *leader;
	int live;

	*nr = 0;
	if (!p)
		return false;
	*nr = BPF_CORE_READ(p, numbers[0].nr);
	first = BPF_CORE_READ(p, tasks[PIDTYPE_TGID].first);
	if (!first)
		return false;
	/* container_of(first, struct task_struct, pid_links[PIDTYPE_TGID]) */
	leader = (void *)first -
		 (bpf_core_field_offset(struct task_struct, pid_links) +
		  PIDTYPE_TGID * sizeof(struct hlist_node));
	live = BPF_CORE_READ(leader, signal, live.counter);
	return live > 0;
}

/*
 * The address in @p as a number: the verifier allows no arithmetic with
 * a variable on a kernel pointer, and the walk indexes the semaphores.
 * Every read through it is a bpf_probe_read_kernel().
 */
static __always_inline __u64 address_of(const void *p)
{
	__u64 a = 0;

	bpf_probe_read_kernel(&a, sizeof(a), &p);
	return a;
}

/* What the walk of a semaphore set's queues and last operators found. */
struct sem_walk {
	__u64 sma;		/* struct sem_array * */
	__u64 node;		/* the queue entry being counted, 0: none */
	__u64 head;		/* the queue it is on */
	__u32 sem_size;
	__u32 sems_off;
	__s32 nsems;
	__s32 sem;		/* -1: the set's own queues, then each sem */
	__u32 list;		/* 0: pending_alter, 1: pending_const */
	__u32 waiters;
	__s32 live_semnum;
	__u32 live_pid;
};

/*
 * One step of the walk: count one sleeper, or go to the next queue. A
 * task asleep on the set is on exactly one queue: the set's (complex
 * operations, or while the global lock is used) or one semaphore's.
 * The queues are read without the set's lock (the hook runs before it
 * is taken): a count of that moment, bounded so a changing list cannot
 * hold the walk.
 */
static long sem_walk_step(__u32 i, struct sem_walk *w)
{
	__u64 base, next = 0;
	__u32 nr;

	if (w->node) {
		if (w->waiters >= IPCW_RMID_WAITERS_MAX)
			return 1;
		w->waiters++;
		bpf_probe_read_kernel(&next, sizeof(next),
				      (void *)w->node +
				      bpf_core_field_offset(struct list_head,
							    next));
		w->node = next && next != w->head ? next : 0;
		return 0;
	}
	/* the next queue */
	if (w->list == 1) {
		w->list = 0;
		w->sem++;
	} else if (w->head) {
		w->list = 1;
	}
	if (w->sem >= w->nsems)
		return 1;
	if (w->sem < 0) {
		base = w->sma;
		w->head = base + (w->list ?
			  bpf_core_field_offset(struct sem_array, pending_const) :
			  bpf_core_field_offset(struct sem_array, pending_alter));
	} else {
		base = w->sma + w->sems_off + (__u64)w->sem * w->sem_size;
		w->head = base + (w->list ?
			  bpf_core_field_offset(struct sem, pending_const) :
			  bpf_core_field_offset(struct sem, pending_alter));
		if (!w->list && w->live_semnum < 0) {
			struct pid *sempid = NULL;

			bpf_probe_read_kernel(&sempid, sizeof(sempid),
					      (void *)base +
					      bpf_core_field_offset(struct sem,
								    sempid));
			if (pid_lives(sempid, &nr)) {
				w->live_semnum = w->sem;
				w->live_pid = nr;
			}
		}
	}
	bpf_probe_read_kernel(&next, sizeof(next), (void *)w->head +
			      bpf_core_field_offset(struct list_head, next));
	w->node = next && next != w->head ? next : 0;
	return 0;
}

/*
 * The one decision on an IPC_RMID: whether it removes an object in use
 * (a sleeper on the set, a segment attached, its creator or its last
 * operator process alive) for a process that is not its creator and not
 * of its owner's or creator's uid (root included: systemd-logind's
 * RemoveIPC runs as root). Such a removal is logged, and refused with
 * EPERM under guard_rmid = deny; any other is left to the kernel.
 */
static __always_inline int rmid_guard(struct kern_ipc_perm *perm, int cmd,
				      __u32 object)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ipcw_rmid_decision *d;
	struct ipcw_rmid_decision r = {};
	__u32 flags, euid, slot, zero = 0;
	__u64 *c, *lost;
	bool enforced;

	if (cmd != IPC_RMID || !perm)
		return 0;
	r.key = BPF_CORE_READ(perm, key);
	if (canary_rmid_key && r.key == canary_rmid_key) {
		__sync_fetch_and_add(&canary_rmid_hits[object & 1], 1);
		return -EPERM;
	}
	flags = guard_flags();
	if (!flags)
		return 0;
	{
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (bpf_map_lookup_elem(&rmid_exempt, &tgid))
			return 0;
	}
	/* the owner and the creator may remove their own, in use or not */
	euid = BPF_CORE_READ(task, cred, euid.val);
	r.owner_uid = BPF_CORE_READ(perm, uid.val);
	r.cuid = BPF_CORE_READ(perm, cuid.val);
	if (euid == r.owner_uid || euid == r.cuid)
		return 0;

	if (object == IPCW_RMID_SHM) {
		struct shmid_kernel *shp = (void *)perm -
			bpf_core_field_offset(struct shmid_kernel, shm_perm);
		struct pid *cprid = BPF_CORE_READ(shp, shm_cprid);

		/* its creator's process, whatever uid it runs as now */
		if (cprid == BPF_CORE_READ(task, signal, pids[PIDTYPE_TGID]))
			return 0;
		r.nattch = BPF_CORE_READ(shp, shm_nattch);
		if (r.nattch)
			r.in_use |= IPCW_USE_ATTACHED;
		if (pid_lives(cprid, &r.creator_pid))
			r.in_use |= IPCW_USE_CREATOR;
		if (pid_lives(BPF_CORE_READ(shp, shm_lprid), &r.last_pid))
			r.in_use |= IPCW_USE_LAST_OP;
		r.last_semnum = -1;
	} else {
		struct sem_walk w, start = {
			.sma = address_of(perm) -
			       bpf_core_field_offset(struct sem_array, sem_perm),
			.sem_size = bpf_core_type_size(struct sem),
			.sems_off = bpf_core_field_offset(struct sem_array,
							  sems),
			.sem = -1,
			.live_semnum = -1,
		};
		struct sem_array *sma = (void *)start.sma;

		start.nsems = BPF_CORE_READ(sma, sem_nsems);
		/*
		 * 6.1 verifies a bpf_loop() callback once, with the state it
		 * is first given, and patches out the branches that state
		 * does not take (every later step of the walk): the state is
		 * copied so that the verifier cannot know its values.
		 */
		bpf_probe_read_kernel(&w, sizeof(w), &start);
		/* two queues per semaphore and the set's, and the sleepers */
		bpf_loop(2 * (__u32)(w.nsems > 0 ? w.nsems : 0) + 3 +
			 IPCW_RMID_WAITERS_MAX, sem_walk_step, &w, 0);
		r.nsems = w.nsems;
		r.waiters = w.waiters;
		r.last_semnum = w.live_semnum;
		r.last_pid = w.live_pid;
		if (w.waiters)
			r.in_use |= IPCW_USE_WAITERS;
		if (w.live_semnum >= 0)
			r.in_use |= IPCW_USE_LAST_OP;
	}
	if (!r.in_use)
		return 0;

	enforced = flags & IPCW_LIVE_GUARD_DENY;
	slot = (object & 1) * 2 + enforced;
	c = bpf_map_lookup_elem(&rmid_counters, &slot);
	if (c)
		(*c)++;
	d = bpf_ringbuf_reserve(&rmid_decisions, sizeof(*d), 0);
	if (d) {
		r.ts_ns = bpf_ktime_get_ns();
		r.cgroup = bpf_get_current_cgroup_id();
		r.pid = bpf_get_current_pid_tgid() >> 32;
		r.tid = (__u32)bpf_get_current_pid_tgid();
		r.uid = euid;
		r.gid = BPF_CORE_READ(task, cred, egid.val);
		r.ipcns = BPF_CORE_READ(task, nsproxy, ipc_ns, ns.inum);
		r.id = BPF_CORE_READ(perm, id);
		r.object = object;
		r.enforced = enforced;
		r.err = enforced ? EPERM : 0;
		bpf_get_current_comm(r.comm, sizeof(r.comm));
		*d = r;
		bpf_ringbuf_submit(d, 0);
	} else {
		lost = bpf_map_lookup_elem(&lost_decisions, &zero);
		if (lost)
			__sync_fetch_and_add(lost, 1);
	}
	return enforced ? -EPERM : 0;
}

SEC("lsm/sem_semctl")
int BPF_PROG(policy_sem_rmid, struct kern_ipc_perm *perm, int cmd, int ret)
{
	if (ret)
		return ret;
	return rmid_guard(perm, cmd, IPCW_RMID_SEM);
}

SEC("lsm/shm_shmctl")
int BPF_PROG(policy_shm_rmid, struct kern_ipc_perm *perm, int cmd, int ret)
{
	if (ret)
		return ret;
	return rmid_guard(perm, cmd, IPCW_RMID_SHM);
}

char LICENSE[] SEC("license") = "GPL";
