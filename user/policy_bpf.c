// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "policy_bpf.h"

#include "ipcns.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/random.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "collector.h"
#include "hooks.h"
#include "policy.skel.h"
#include "policy_pins.h"
#include "sysvipc.h"

struct enforcer {
	struct policy_bpf *skel;
	struct ring_buffer *rb;
	decision_fn fn;
	rmid_decision_fn on_rmid;
	void *ctx;
	uint32_t generation;
	const char *pin_dir;	/* NULL: nothing pinned */
	uint32_t discarded;	/* pid whose unfinished pins were removed */
	uint32_t unseeded;	/* adopted: what its first daemon left out */
	bool adopted;
};

static bool verbose_libbpf;

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	(void)level;
	return verbose_libbpf ? vfprintf(stderr, fmt, args) : 0;
}


/*
 * Whether "bpf" is in the active LSM list: 1 yes, 0 no (the list is put
 * in @list), -1 cannot tell (no securityfs here).
 */
static int bpf_lsm_listed(char *list, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lsm", "r");
	char copy[512], *tok, *save = NULL;

	list[0] = '\0';
	if (!f)
		return -1;
	if (!fgets(list, (int)len, f))
		list[0] = '\0';
	fclose(f);
	list[strcspn(list, "\n")] = '\0';
	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return 1;
	return 0;
}

/*
 * The proof that the BPF LSM enforces: a shmget() of a random key that
 * the attached program must refuse. Linux 6.1 attaches LSM programs even
 * when the BPF LSM is not active, so an attach proves nothing.
 */
static int prove_lsm(struct enforcer *e, char *err, size_t errlen)
{
	/* adopted, the count is the pinned one: only this proof's hit counts */
	uint64_t hits_before = e->skel->bss->canary_hits;
	int id = -1, saved = EEXIST, tries;
	key_t key;

	/* a key nobody uses: a segment of it would be EEXIST */
	for (tries = 0; tries < 8 && saved == EEXIST; tries++) {
		if (getrandom(&key, sizeof(key), 0) != sizeof(key))
			key = (key_t)(getpid() ^ tries);
		if (key == IPC_PRIVATE)
			continue;
		e->skel->bss->canary_key = key;
		id = shmget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
		saved = id >= 0 ? 0 : errno;
		e->skel->bss->canary_key = 0;
	}
	if (id >= 0) {
		shmctl(id, IPC_RMID, NULL);
		snprintf(err, errlen,
			 "the BPF LSM is not active: a test shmget() that the "
			 "policy must refuse was allowed; add bpf to lsm= on "
			 "the kernel command line");
		return -ENOTSUP;
	}
	if (saved != EPERM || e->skel->bss->canary_hits == hits_before) {
		snprintf(err, errlen,
			 "cannot prove the BPF LSM enforces: the test shmget() "
			 "failed with %s before the policy saw it",
			 strerror(saved));
		return -ENOTSUP;
	}
	return 0;
}

/* A key no object of @kind (0: sem, 1: shm) has; 0 when none is found. */
static key_t unused_key(int shm)
{
	key_t key;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		if (getrandom(&key, sizeof(key), 0) != sizeof(key))
			key = (key_t)(getpid() ^ (tries << 20));
		if (key == IPC_PRIVATE)
			continue;
		if ((shm ? shmget(key, 0, 0) : semget(key, 0, 0)) < 0 &&
		    errno == ENOENT)
			return key;
	}
	return IPC_PRIVATE;
}

/*
 * The same proof for the IPC_RMID guard, of each hook: an IPC_RMID of
 * the daemon's own test set and segment must be refused and counted
 * (they are then removed). Made with canary_pass_key, the segment is
 * neither charged nor refused by a rule.
 */
static int prove_guard(struct enforcer *e, char *err, size_t errlen)
{
	static const char *const make[] = { "semget", "shmget" };
	static const char *const ctl[] = { "semctl", "shmctl" };
	typeof(e->skel->bss) bss = e->skel->bss;
	int obj, id, refused, saved;
	uint64_t before;
	key_t key;

	for (obj = 0; obj < IPCW_RMID_OBJECTS; obj++) {
		key = unused_key(obj);
		if (key == IPC_PRIVATE) {
			snprintf(err, errlen, "cannot prove the IPC_RMID guard: "
				 "no unused key found");
			return -EEXIST;
		}
		if (obj == IPCW_RMID_SHM)
			bss->canary_pass_key = key;
		id = obj == IPCW_RMID_SHM ?
		     shmget(key, 1, IPC_CREAT | IPC_EXCL | 0600) :
		     semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
		saved = errno;
		bss->canary_pass_key = 0;
		if (id < 0) {
			snprintf(err, errlen, "cannot prove the IPC_RMID guard: "
				 "its test %s() failed: %s", make[obj],
				 strerror(saved));
			return -saved;
		}
		before = bss->canary_rmid_hits[obj];
		bss->canary_rmid_key = key;
		refused = (obj == IPCW_RMID_SHM ? shmctl(id, IPC_RMID, NULL) :
			   semctl(id, 0, IPC_RMID)) < 0;
		saved = errno;
		bss->canary_rmid_key = 0;
		/* the test object goes, proven or not */
		if (refused && obj == IPCW_RMID_SHM)
			shmctl(id, IPC_RMID, NULL);
		else if (refused)
			semctl(id, 0, IPC_RMID);
		if (!refused) {
			snprintf(err, errlen, "the IPC_RMID guard is not in "
				 "force: a test %s(IPC_RMID) it must refuse "
				 "was allowed", ctl[obj]);
			return -ENOTSUP;
		}
		if (saved != EPERM || bss->canary_rmid_hits[obj] == before) {
			snprintf(err, errlen, "cannot prove the IPC_RMID guard: "
				 "the test %s(IPC_RMID) failed with %s before "
				 "the policy saw it", ctl[obj], strerror(saved));
			return -ENOTSUP;
		}
	}
	return 0;
}

/* Every hook of the policy programs, checked before anything is loaded. */
static int check_policy_hooks(char *err, size_t errlen)
{
	struct hook_state *st = calloc(nhooks, sizeof(*st));
	struct btf *btf = btf__load_vmlinux_btf();
	char why[96];
	size_t i;
	int ret = 0;

	if (!st || !btf) {
		snprintf(err, errlen, "%s", !st ? "out of memory" :
			 "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "ipcwatch needs CONFIG_DEBUG_INFO_BTF=y");
		free(st);
		btf__free(btf);
		return -ENOENT;
	}
	hooks_probe(btf, "/proc/kallsyms", st);
	for (i = 0; i < nhooks; i++) {
		if (hooks[i].set != HOOKS_POLICY || st[i].status == HOOK_OK)
			continue;
		snprintf(err, errlen, "enforce needs the %s hook %s: %s%s",
			 hook_kind_name(hooks[i].kind), st[i].target,
			 hook_status_text(&st[i], why, sizeof(why)),
			 hooks[i].kind == HOOK_LSM ? " (CONFIG_BPF_LSM=y)" : "");
		ret = -ENOENT;
		break;
	}
	free(st);
	btf__free(btf);
	return ret;
}

static int handle_decision(void *ctx, void *data, size_t size)
{
	struct enforcer *e = ctx;

	if (size < sizeof(struct ipcw_decision))
		return 0;
	return e->fn(data, e->ctx);
}

static int handle_rmid(void *ctx, void *data, size_t size)
{
	struct enforcer *e = ctx;

	if (size < sizeof(struct ipcw_rmid_decision) || !e->on_rmid)
		return 0;
	return e->on_rmid(data, e->ctx);
}

static void to_bpf_rule(const struct policy_rule *r, struct ipcw_rule *b)
{
	memset(b, 0, sizeof(*b));
	if (r->match_uid) {
		b->flags |= IPCW_RULE_MATCH_UID;
		b->uid = r->uid;
	}
	if (r->match_gid) {
		b->flags |= IPCW_RULE_MATCH_GID;
		b->gid = r->gid;
	}
	if (r->match_ipcns) {
		b->flags |= IPCW_RULE_MATCH_IPCNS;
		b->ipcns = r->ipcns;
	}
	if (r->cgroup[0])
		b->flags |= IPCW_RULE_MATCH_CGROUP;
	if (r->mode == POLICY_ENFORCE)
		b->flags |= IPCW_RULE_ENFORCE;
	if (r->max_segment_bytes.set) {
		b->flags |= IPCW_RULE_MAX_SEGMENT;
		b->max_segment_bytes = r->max_segment_bytes.bytes;
	}
	if (r->max_total_bytes.set) {
		b->flags |= IPCW_RULE_MAX_TOTAL;
		b->max_total_bytes = r->max_total_bytes.bytes;
	}
	if (r->has_max_segments) {
		b->flags |= IPCW_RULE_MAX_COUNT;
		b->max_segments = r->max_segments;
	}
	b->scope = (uint32_t)r->scope;
	b->id = policy_rule_id(r->name);
}

/* "uid, gid" for a set of scope bits; "nothing" when none. */
static const char *scope_list(uint32_t scopes)
{
	static char buf[64];
	size_t used = 0;
	int s;

	buf[0] = '\0';
	for (s = 0; s < IPCW_SCOPES; s++)
		if (scopes & (1U << s))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "%s%s", used ? ", " : "",
						 policy_scope_name(s));
	return used ? buf : "nothing";
}

/*
 * The one decision on whether a policy may run on these totals, at
 * start, adoption and reload: its rules count only in kept scopes (a
 * scope not kept has no totals to count from), and it enforces nothing
 * while existing segments went uncharged (the totals would let quotas
 * be passed).
 */
int enforcer_policy_fits(const struct enforcer *e, const struct policy *p,
			 char *err, size_t errlen)
{
	uint32_t kept = e->skel->bss->kept_scopes;
	uint32_t missing = policy_total_scopes(p) & ~kept;
	int i;

	for (i = 0; missing && i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];

		if (!(missing & (1U << r->scope)))
			continue;
		snprintf(err, errlen,
			 "rule %s counts per %s, and the policy programs "
			 "running keep totals only per %s (fixed when they "
			 "started): `ipcwatch enforce --stop`, then start, to "
			 "count per %s", r->name, policy_scope_name(r->scope),
			 scope_list(kept), policy_scope_name(r->scope));
		return -EINVAL;
	}
	if (e->unseeded && policy_enforces(p)) {
		snprintf(err, errlen,
			 "%u existing segments cannot be charged: the "
			 "per-owner totals are full (raise --max-owners)",
			 e->unseeded);
		return -ENOSPC;
	}
	return 0;
}

int enforcer_set_policy(struct enforcer *e, const struct policy *p,
			char *err, size_t errlen)
{
	uint32_t gen = e->generation + 1, base = gen & 1 ? IPCW_MAX_RULES : 0;
	int rules_fd = bpf_map__fd(e->skel->maps.rules);
	int cg_fd = bpf_map__fd(e->skel->maps.rule_cgroups);
	int cfg_fd = bpf_map__fd(e->skel->maps.policy_live);
	struct ipcw_policy_config cfg;
	uint32_t zero = 0, flags = 0;
	struct ipcw_rule b;
	int i, ret;

	ret = enforcer_policy_fits(e, p, err, errlen);
	if (ret)
		return ret;
	/* write the idle generation, then flip: no half policy is seen */
	for (i = 0; i < p->nrules; i++) {
		uint32_t slot = base + (uint32_t)i;

		to_bpf_rule(&p->rules[i], &b);
		if (b.flags & IPCW_RULE_ENFORCE)
			flags |= IPCW_LIVE_ENFORCING;
		if (bpf_map_update_elem(rules_fd, &slot, &b, BPF_ANY)) {
			snprintf(err, errlen, "writing rule %s: %s",
				 p->rules[i].name, strerror(errno));
			return -errno;
		}
		if (p->rules[i].cgroup[0]) {
			int fd = open(p->rules[i].cgroup, O_RDONLY | O_DIRECTORY);

			if (fd < 0 ||
			    bpf_map_update_elem(cg_fd, &slot, &fd, BPF_ANY)) {
				int e2 = errno;

				snprintf(err, errlen, "cgroup %s of rule %s: %s",
					 p->rules[i].cgroup, p->rules[i].name,
					 strerror(e2));
				if (fd >= 0)
					close(fd);
				return -e2;
			}
			close(fd);
		}
	}
	/* in the same word as the rules: one switch for both */
	if (p->guard_rmid == GUARD_AUDIT)
		flags |= IPCW_LIVE_GUARD_AUDIT;
	else if (p->guard_rmid == GUARD_DENY)
		flags |= IPCW_LIVE_GUARD_DENY;
	cfg.live = IPCW_LIVE(gen, flags, (uint32_t)p->nrules);
	if (bpf_map_update_elem(cfg_fd, &zero, &cfg, BPF_ANY)) {
		snprintf(err, errlen, "switching the policy: %s",
			 strerror(errno));
		return -errno;
	}
	e->generation = gen;
	return 0;
}

/*
 * The credit and bookkeeping programs before the check that charges:
 * a segment charged by the LSM program always finds fexit/newseg there
 * to record it, and fentry/shm_destroy to credit it. Segments made
 * before the LSM program are seeded from /proc afterwards.
 */
static int attach_in_order(struct policy_bpf *skel)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ skel->progs.policy_shm_destroy,
		  &skel->links.policy_shm_destroy },
		{ skel->progs.policy_newseg_exit,
		  &skel->links.policy_newseg_exit },
		{ skel->progs.policy_newseg_enter,
		  &skel->links.policy_newseg_enter },
		{ skel->progs.policy_shm_alloc, &skel->links.policy_shm_alloc },
		{ skel->progs.policy_sem_rmid, &skel->links.policy_sem_rmid },
		{ skel->progs.policy_shm_rmid, &skel->links.policy_shm_rmid },
	};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link)
			return -errno;
	}
	return 0;
}

/* The build of the programs, as pins_find compares it. */
static uint64_t policy_build(void)
{
	size_t size;
	const void *elf = policy_bpf__elf_bytes(&size);

	return pins_build_id(elf, size);
}

/*
 * A daemon's pins in @dir: what to adopt (true), nothing (false), or
 * -1 with @err when they cannot be used. Pins whose daemon died before
 * it finished starting hold totals that were never seeded: adopting
 * them would undercount, so they are removed and the start is fresh
 * (@discarded names that daemon).
 */
static int find_pins(const char *dir, uint32_t max_owners,
		     uint32_t *discarded, char *err, size_t errlen)
{
	struct ipcw_pin_info info;
	enum pins_state state;

	if (pins_find(dir, policy_build(), &state, &info, err, errlen))
		return -1;
	if (state == PINS_HELD) {
		snprintf(err, errlen,
			 "another ipcwatch enforce (pid %u) holds the policy "
			 "pinned in %s", info.pid, dir);
		return -1;
	}
	if (state == PINS_UNFINISHED) {
		int ret = pins_remove(dir);

		if (ret) {
			snprintf(err, errlen,
				 "cannot remove the unfinished pins of pid %u "
				 "in %s: %s", info.pid, dir, strerror(-ret));
			return -1;
		}
		*discarded = info.pid ? info.pid : UINT32_MAX;
		return 0;
	}
	if (state == PINS_ORPHANED && info.max_owners != max_owners) {
		snprintf(err, errlen,
			 "the policy pinned in %s has --max-owners %u, not "
			 "%u: `ipcwatch enforce --stop` first to change it",
			 dir, info.max_owners, max_owners);
		return -1;
	}
	return state == PINS_ORPHANED;
}

struct enforcer *enforcer_open(const struct policy *p, decision_fn fn,
			       void *ctx, const struct enforcer_opts *o,
			       char *err, size_t errlen)
{
	struct enforcer *e = calloc(1, sizeof(*e));
	char lsms[256];
	int ret, adopt = 0, lock_fd = -1;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->fn = fn;
	e->on_rmid = o->on_rmid;
	e->ctx = ctx;
	verbose_libbpf = o->verbose;
	libbpf_set_print(print_libbpf);
	if (check_policy_hooks(err, errlen))
		goto fail;
	if (bpf_lsm_listed(lsms, sizeof(lsms)) == 0) {
		snprintf(err, errlen,
			 "the BPF LSM is not active (/sys/kernel/security/lsm: "
			 "%s): boot with lsm=%s%sbpf", lsms, lsms,
			 lsms[0] ? "," : "");
		goto fail;
	}
	if (o->pin_dir) {
		/* held until the pins are claimed: one start at a time */
		lock_fd = pins_lock(o->pin_dir);
		if (lock_fd == -EACCES || lock_fd == -EPERM) {
			/* bpffs is root's: the same want as loading */
			snprintf(err, errlen, "BPF not permitted: run as root "
				 "(CAP_BPF, CAP_PERFMON, CAP_MAC_ADMIN)");
			goto fail;
		}
		if (lock_fd < 0) {
			snprintf(err, errlen, "cannot lock %s: %s", o->pin_dir,
				 strerror(-lock_fd));
			goto fail;
		}
		adopt = find_pins(o->pin_dir, o->max_owners, &e->discarded,
				  err, errlen);
		if (adopt < 0)
			goto fail;
	}
	e->skel = policy_bpf__open();
	if (e->skel &&
	    (bpf_map__set_max_entries(e->skel->maps.owner_totals,
				      o->max_owners) ||
	     bpf_map__set_max_entries(e->skel->maps.seed_totals,
				      o->max_owners))) {
		snprintf(err, errlen, "cannot size the owner maps to %u",
			 o->max_owners);
		goto fail;
	}
	if (e->skel && adopt &&
	    pins_reuse_maps(o->pin_dir, e->skel->skeleton, err, errlen))
		goto fail;
	if (!e->skel || policy_bpf__load(e->skel)) {
		ret = -errno;
		/* EACCES is the verifier's refusal, EPERM a missing right */
		snprintf(err, errlen, "%s",
			 ret == -EPERM ?
			 "BPF not permitted: run as root (CAP_BPF, CAP_PERFMON, "
			 "CAP_MAC_ADMIN)" :
			 "cannot load the policy programs (-v shows why)");
		goto fail;
	}
	if (adopt) {
		struct ipcw_policy_config cfg;
		struct ipcw_pin_info info;
		uint32_t zero = 0;

		/* the pinned links run these programs' twins on these maps */
		if (pins_open_links(o->pin_dir, e->skel->skeleton, err, errlen))
			goto fail;
		if (!bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.policy_live),
					 &zero, &cfg))
			e->generation = (uint32_t)(cfg.live >> 32);
		if (!bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.pin_info),
					 &zero, &info))
			e->unseeded = info.unseeded;
		e->adopted = true;
		/*
		 * Checked now, written by enforcer_set_policy() only when the
		 * whole start has succeeded: a start that fails changes
		 * nothing in force.
		 */
		if (enforcer_policy_fits(e, p, err, errlen))
			goto fail;
	} else {
		/* before any program runs: charges and credits agree */
		e->skel->bss->kept_scopes = policy_total_scopes(p);
		/* the totals are not seeded yet: limits on them wait */
		e->skel->bss->seeding = 1;
		if (enforcer_set_policy(e, p, err, errlen))
			goto fail;
	}
	if (!adopt) {
		ret = attach_in_order(e->skel);
		if (ret) {
			/* 524: the kernel's ENOTSUPP, no BPF trampolines */
			snprintf(err, errlen,
				 "cannot attach the policy programs: %s",
				 ret == -524 ? "this kernel cannot attach BPF "
				 "trampolines, which the BPF LSM needs" :
				 strerror(-ret));
			goto fail;
		}
	}
	if (prove_lsm(e, err, errlen) || prove_guard(e, err, errlen))
		goto fail;
	e->rb = ring_buffer__new(bpf_map__fd(e->skel->maps.decisions),
				 handle_decision, e, NULL);
	if (e->rb && ring_buffer__add(e->rb,
				      bpf_map__fd(e->skel->maps.rmid_decisions),
				      handle_rmid, e)) {
		ring_buffer__free(e->rb);
		e->rb = NULL;
	}
	if (!e->rb) {
		snprintf(err, errlen, "cannot open the decision buffer: %s",
			 strerror(errno));
		goto fail;
	}
	/* proven: now the quotas may outlive this process */
	if (o->pin_dir) {
		/* the claim first: pins are never seen without their owner */
		ret = pins_claim(bpf_map__fd(e->skel->maps.pin_info),
				 policy_build(), o->max_owners);
		if (ret) {
			snprintf(err, errlen, "cannot claim the pins in %s: %s",
				 o->pin_dir, strerror(-ret));
			goto fail;
		}
		if (!adopt &&
		    pins_save(o->pin_dir, e->skel->skeleton, err, errlen))
			goto fail;
		e->pin_dir = o->pin_dir;
		close(lock_fd);
	}
	return e;
fail:
	/* an adopted policy stays in force: only this process gives up */
	if (lock_fd >= 0)
		close(lock_fd);
	enforcer_close(e);
	return NULL;
}

uint32_t enforcer_discarded(const struct enforcer *e)
{
	return e->discarded;
}

int enforcer_ready(struct enforcer *e)
{
	int ret = 0;

	if (e->pin_dir && !e->adopted)
		ret = pins_mark_ready(bpf_map__fd(e->skel->maps.pin_info),
				      e->unseeded);
	/* seeded: the totals can be judged from now on */
	if (!ret && !e->adopted)
		__atomic_store_n(&e->skel->bss->seeding, 0, __ATOMIC_SEQ_CST);
	return ret;
}

bool enforcer_adopted(const struct enforcer *e)
{
	return e->adopted;
}

static int ignore_decision(const struct ipcw_decision *d, void *ctx)
{
	(void)d;
	(void)ctx;
	return 0;
}

int enforcer_probe(bool verbose, char *err, size_t errlen)
{
	struct enforcer_opts o = { .max_owners = IPCW_OWNERS_DEFAULT,
				   .verbose = verbose };
	struct policy *none = calloc(1, sizeof(*none));
	struct enforcer *e;

	if (!none) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e = enforcer_open(none, ignore_decision, NULL, &o, err, errlen);
	enforcer_close(e);
	free(none);
	return e ? 0 : -1;
}

/*
 * Add one seeded segment to (or take it from) its owners' seed totals,
 * all or none: 0, or -1 when a total cannot be made (the map is full).
 */
static int add_seed(struct enforcer *e, const __u64 *owner, uint64_t size,
		    int sign)
{
	int fd = bpf_map__fd(e->skel->maps.seed_totals);
	struct ipcw_seed_total t[IPCW_SCOPES];
	struct ipcw_owner_key k[IPCW_SCOPES];
	uint32_t kept = e->skel->bss->kept_scopes;
	int scope, done;

	for (scope = 0; scope < IPCW_SCOPES; scope++) {
		memset(&k[scope], 0, sizeof(k[scope]));
		k[scope].scope = (uint32_t)scope;
		k[scope].owner = owner[scope];
		/* only user space writes the seeds: no lost update */
		if (bpf_map_lookup_elem_flags(fd, &k[scope], &t[scope],
					      BPF_F_LOCK))
			memset(&t[scope], 0, sizeof(t[scope]));
	}
	for (done = 0; done < IPCW_SCOPES; done++) {
		struct ipcw_seed_total v = t[done];

		if (!(kept & (1U << done)))
			continue;
		v.bytes += sign * (int64_t)size;
		v.segments += sign;
		/* in place, under the lock: the element is never replaced */
		if (bpf_map_update_elem(fd, &k[done], &v,
					BPF_ANY | BPF_F_LOCK))
			break;
	}
	if (done == IPCW_SCOPES)
		return 0;
	while (done--)
		if (kept & (1U << done))
			bpf_map_update_elem(fd, &k[done], &t[done],
					    BPF_ANY | BPF_F_LOCK);
	return -1;
}

/* What existed before the programs: decided here, once, as the kernel
 * would have at creation (the creator's ids, its cgroup if alive). */
static void seed_record(const struct policy *p, const struct shm_row *row,
			uint32_t ipcns, struct ipcw_charge *c)
{
	char dir[PATH_MAX];
	int rule;

	memset(c, 0, sizeof(*c));
	dir[0] = '\0';
	c->size = row->size;
	c->owner[IPCW_SCOPE_UID] = row->cuid;
	c->owner[IPCW_SCOPE_GID] = row->cgid;
	if (process_alive_since(row->cpid, row->ctime))
		c->owner[IPCW_SCOPE_CGROUP] =
			process_cgroup(row->cpid, dir, sizeof(dir));
	c->owner[IPCW_SCOPE_IPCNS] = ipcns;
	/* a creator gone: its cgroup is unknown, no cgroup rule matches */
	rule = policy_match(p, row->cuid, row->cgid, dir, ipcns);
	c->rule_id = rule < 0 ? IPCW_NO_RULE :
		     policy_rule_id(p->rules[rule].name);
}

/* Whether @r is in @t unchanged: the same key, creator and size. */
static bool still_there(const struct shm_row *r, const struct ipcns_tables *t)
{
	size_t i;

	for (i = 0; i < t->nshm; i++)
		if (t->shm[i].id == r->id)
			return t->shm[i].key == r->key &&
			       t->shm[i].cpid == r->cpid &&
			       t->shm[i].size == r->size;
	return false;
}

/* ipcns_read(), finding @ns again when its way in went (ipcns_refind) */
static int read_seeded(struct ipcns *ns, struct ipcns_tables *t, char *err,
		       size_t errlen)
{
	int ret = ipcns_read(ns, IPCNS_SHM, t, err, errlen);

	if (ret == -ESRCH && ns && !ipcns_refind(ns))
		ret = ipcns_read(ns, IPCNS_SHM, t, err, errlen);
	return ret;
}

int enforcer_seed(struct enforcer *e, const struct policy *p,
		  struct ipcns *ns, uint32_t ipcns, size_t *seeded,
		  size_t *unaccounted, char *err, size_t errlen)
{
	int charges_fd = bpf_map__fd(e->skel->maps.charges);
	__s64 *places = &e->skel->bss->charges_reserved;
	struct ipcns_tables t, again;
	struct shm_row *rows;
	bool *charged;
	size_t n, i;
	int ret;

	*seeded = *unaccounted = 0;
	/* the programs are attached: what is created from now on is
	 * charged by them, and a charge already there is theirs */
	ret = read_seeded(ns, &t, err, errlen);
	if (ret)
		return ret;
	rows = t.shm;
	n = t.nshm;
	charged = calloc(n ? n : 1, sizeof(*charged));
	if (!charged) {
		ipcns_tables_free(&t);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct ipcw_charge_key k = { ipcns, rows[i].id };
		struct ipcw_charge c;

		seed_record(p, &rows[i], ipcns, &c);
		if (rows[i].size > POLICY_MAX_BYTES) {
			(*unaccounted)++;
			continue;
		}
		/* a place in charges, as the kernel side takes one */
		if (__atomic_fetch_add(places, 1, __ATOMIC_SEQ_CST) >=
		    IPCW_CHARGES_MAX) {
			__atomic_fetch_sub(places, 1, __ATOMIC_SEQ_CST);
			(*unaccounted)++;
			continue;
		}
		if (bpf_map_update_elem(charges_fd, &k, &c, BPF_NOEXIST)) {
			__atomic_fetch_sub(places, 1, __ATOMIC_SEQ_CST);
			/* EEXIST: the programs charged it themselves */
			if (errno != EEXIST)
				(*unaccounted)++;
			continue;
		}
		if (add_seed(e, c.owner, c.size, 1)) {
			if (!bpf_map_delete_elem(charges_fd, &k))
				__atomic_fetch_sub(places, 1, __ATOMIC_SEQ_CST);
			(*unaccounted)++;
			continue;
		}
		charged[i] = true;
		(*seeded)++;
	}
	/*
	 * Gone between the read and the charge, with no destroy to credit
	 * it: taken back, if the charge is still ours. Read again, in the
	 * namespace: the same segment keeps its key, creator and size (its
	 * ctime moves on IPC_SET, so it is not compared). A namespace gone
	 * meanwhile took every segment with it.
	 */
	ret = read_seeded(ns, &again, err, errlen);
	if (ret && ret != -ESRCH) {
		/* undecided: every charge of this pass is taken back */
		memset(&again, 0, sizeof(again));
	}
	for (i = 0; i < n; i++) {
		struct ipcw_charge_key k = { ipcns, rows[i].id };
		struct ipcw_charge c;

		if (!charged[i] || (!ret && still_there(&rows[i], &again)))
			continue;
		seed_record(p, &rows[i], ipcns, &c);
		if (!bpf_map_delete_elem(charges_fd, &k)) {
			__atomic_fetch_sub(places, 1, __ATOMIC_SEQ_CST);
			add_seed(e, c.owner, c.size, -1);
			(*seeded)--;
		}
	}
	if (!ret)
		ipcns_tables_free(&again);
	free(charged);
	ipcns_tables_free(&t);
	/* a failed check read: the pass is undone and can be run again */
	if (ret && ret != -ESRCH) {
		*unaccounted = 0;
		return ret;
	}
	e->unseeded += *unaccounted > UINT32_MAX - e->unseeded ?
		       UINT32_MAX - e->unseeded : (uint32_t)*unaccounted;
	return 0;
}

int enforcer_segment(struct enforcer *e, uint32_t ipcns, int id,
		     struct ipcw_charge *c)
{
	struct ipcw_charge_key k = { ipcns, id };

	return bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.charges), &k, c) ?
	       -errno : 0;
}

uint64_t enforcer_credit_failures(struct enforcer *e)
{
	return __atomic_load_n(&e->skel->bss->credit_failures,
			       __ATOMIC_RELAXED);
}

int enforcer_poll(struct enforcer *e, int timeout_ms)
{
	int ret = ring_buffer__poll(e->rb, timeout_ms);

	return ret == -EINTR ? 0 : ret;
}

void enforcer_total(struct enforcer *e, enum ipcw_scope scope,
		    uint64_t owner, int64_t *bytes, int64_t *segments)
{
	struct ipcw_owner_key k = { .scope = scope, .owner = owner };
	struct ipcw_owner_total t;
	struct ipcw_seed_total seed;

	*bytes = *segments = 0;
	/* under the total's lock: bytes and segments of one moment */
	if (!bpf_map_lookup_elem_flags(bpf_map__fd(e->skel->maps.owner_totals),
				       &k, &t, BPF_F_LOCK)) {
		*bytes += t.bytes;
		*segments += t.segments;
	}
	if (!bpf_map_lookup_elem_flags(bpf_map__fd(e->skel->maps.seed_totals),
				       &k, &seed, BPF_F_LOCK)) {
		*bytes += seed.bytes;
		*segments += seed.segments;
	}
}

static int by_owner(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Visit each owner once, in order. A walk of a hash map that changes
 * under it may start over (its last key deleted) and see a key twice:
 * the owners are gathered from both maps, sorted and made unique first.
 */
void enforcer_for_each_total(struct enforcer *e, enum ipcw_scope scope,
			     void (*fn)(uint64_t owner, int64_t bytes,
					int64_t segments, void *ctx),
			     void *ctx)
{
	int fds[2] = { bpf_map__fd(e->skel->maps.owner_totals),
		       bpf_map__fd(e->skel->maps.seed_totals) };
	/* a walk that keeps restarting is cut at four times the map size */
	size_t steps = 4 * (size_t)bpf_map__max_entries(
				   e->skel->maps.owner_totals);
	struct ipcw_owner_key k, next, *prev;
	uint64_t *owners = NULL, *more;
	int64_t bytes, segments;
	size_t n = 0, cap = 0, i, step;
	int m;

	for (m = 0; m < 2; m++) {
		prev = NULL;
		for (step = 0; step < steps &&
		     !bpf_map_get_next_key(fds[m], prev, &next); step++) {
			k = next;
			prev = &k;
			if (k.scope != (uint32_t)scope)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				more = realloc(owners, cap * sizeof(*owners));
				if (!more) {
					free(owners);
					return;
				}
				owners = more;
			}
			owners[n++] = k.owner;
		}
	}
	if (!n) {
		free(owners);
		return;
	}
	qsort(owners, n, sizeof(*owners), by_owner);
	for (i = 0; i < n; i++) {
		if (i && owners[i] == owners[i - 1])
			continue;
		enforcer_total(e, scope, owners[i], &bytes, &segments);
		fn(owners[i], bytes, segments, ctx);
	}
	free(owners);
}

uint64_t enforcer_count(struct enforcer *e, uint32_t rule,
			enum ipcw_limit kind, bool enforced)
{
	return percpu_map_sum(bpf_map__fd(e->skel->maps.counters),
			  (rule * IPCW_LIMIT_MAX + kind) * 2 + enforced);
}

uint64_t enforcer_rmid_count(struct enforcer *e, enum ipcw_rmid_object object,
			     bool enforced)
{
	return percpu_map_sum(bpf_map__fd(e->skel->maps.rmid_counters),
			      (uint32_t)object * 2 + enforced);
}

uint64_t enforcer_lost(struct enforcer *e)
{
	return percpu_map_sum(bpf_map__fd(e->skel->maps.lost_decisions), 0);
}

int enforcer_exempt_self(struct enforcer *e, bool on)
{
	int fd = bpf_map__fd(e->skel->maps.rmid_exempt);
	__u32 tgid = (__u32)getpid();
	__u8 one = 1;

	if (on)
		return bpf_map_update_elem(fd, &tgid, &one, BPF_ANY) ? -errno : 0;
	return bpf_map_delete_elem(fd, &tgid) ? -errno : 0;
}

int enforcer_fd(struct enforcer *e)
{
	return ring_buffer__epoll_fd(e->rb);
}

int enforcer_detach(struct enforcer *e)
{
	int ret = 0, lock_fd;

	if (e && e->pin_dir) {
		/* not while another start is deciding what the pins are */
		lock_fd = pins_lock(e->pin_dir);
		ret = pins_remove(e->pin_dir);
		if (lock_fd >= 0)
			close(lock_fd);
	}
	enforcer_close(e);
	return ret;
}

void enforcer_close(struct enforcer *e)
{
	if (!e)
		return;
	ring_buffer__free(e->rb);
	/* the check before what it relies on (attached in the other order) */
	if (e->skel) {
		bpf_link__destroy(e->skel->links.policy_shm_alloc);
		e->skel->links.policy_shm_alloc = NULL;
	}
	policy_bpf__destroy(e->skel);
	free(e);
}
