// SPDX-License-Identifier: GPL-2.0
/*
 * storm: a seeded, reproducible System V IPC workload for the guest.
 *
 *   storm --seed S --duration SECONDS --workers N [--namespaces K]
 *         [--uid-base U] [--uids M] [--pace MS] [--out FILE]
 *   storm --plan --seed S [--pace MS]
 *                            (digests of "slot gen ops" lines on stdin)
 *
 * Worker slots run as uids U..U+M-1 (two slots share a uid and an IPC
 * namespace, so one removes what the other uses), in K namespaces: the
 * one storm runs in, and K-1 that a holder process makes with
 * unshare(CLONE_NEWIPC), each with its own limits. A worker runs a
 * seeded number of operations, each after a seeded pause of up to
 * --pace ms (so the watchers can keep up), and exits, leaving its
 * segments orphaned
 * or attached by others; its slot is started again with the next
 * generation until the deadline. Every blocking call has a timeout.
 *
 * Each (seed, slot, generation) seeds its own PRNG; the operation and
 * its parameters are drawn before the kernel is asked anything, always
 * the same number of draws, so the sequence never depends on what the
 * kernel answered or on timing. A digest of each generation's
 * operations goes in the report; --plan recomputes it.
 *
 * What every call did and what the kernel answered is counted, per
 * namespace, in memory shared with the workers. After the storm the
 * holders (and storm itself, for its own namespace) stay, so the state
 * can be read in each namespace through /proc/PID/ns/ipc, until stdin
 * is closed or a signal comes. Then storm removes what is left in its
 * own namespace, lets the holders go (their namespaces and everything
 * in them go with them) and writes the counts as one JSON object.
 *
 * stdout, one line each: "holder INDEX IPCNS PID CREATED", "started",
 * "progress SECONDS OPS" every second, "stormed OPS", "finished".
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipcutil.h"

#define MAX_WORKERS	64
#define MAX_NS		8
#define MAX_GENS	2048
#define NERR		134	/* errno values counted one by one */
#define KEYS		16	/* shm keys per namespace */
#define SEM_KEYS	4
#define SEM_NSEMS	4
#define SHM_KEY_BASE	0x53540000
#define SEM_KEY_BASE	0x53450000
#define PAGE		4096UL

/* ---- what is counted ----------------------------------------------------- */

/* One per system call kind; the names are the report's. */
enum stat_kind {
	ST_SHMGET_CREATE,	/* IPC_PRIVATE, or a key, IPC_CREAT|IPC_EXCL */
	ST_SHMGET_LOOKUP,	/* a key, no flags */
	ST_SHMAT,
	ST_SHMDT,
	ST_SHMCTL_IPC_STAT,
	ST_SHMCTL_IPC_SET,
	ST_SHMCTL_IPC_RMID,
	ST_SHMCTL_SHM_INFO,
	ST_SHMCTL_SHM_STAT,
	ST_SEMGET,
	ST_SEMOP_NOWAIT,	/* every operation IPC_NOWAIT: never sleeps */
	ST_SEMTIMEDOP,		/* may sleep, with a timeout */
	ST_SEMCTL_SETVAL,
	ST_SEMCTL_GETNCNT,
	ST_SEMCTL_GETVAL,
	ST_SEMCTL_SEM_INFO,
	ST_SEMCTL_SEM_STAT,
	ST_SEMCTL_IPC_RMID,
	ST_MAX
};

static const char *const stat_names[ST_MAX] = {
	[ST_SHMGET_CREATE] = "shmget_create",
	[ST_SHMGET_LOOKUP] = "shmget_lookup",
	[ST_SHMAT] = "shmat",
	[ST_SHMDT] = "shmdt",
	[ST_SHMCTL_IPC_STAT] = "shmctl_ipc_stat",
	[ST_SHMCTL_IPC_SET] = "shmctl_ipc_set",
	[ST_SHMCTL_IPC_RMID] = "shmctl_ipc_rmid",
	[ST_SHMCTL_SHM_INFO] = "shmctl_shm_info",
	[ST_SHMCTL_SHM_STAT] = "shmctl_shm_stat",
	[ST_SEMGET] = "semget",
	[ST_SEMOP_NOWAIT] = "semop_nowait",
	[ST_SEMTIMEDOP] = "semtimedop",
	[ST_SEMCTL_SETVAL] = "semctl_setval",
	[ST_SEMCTL_GETNCNT] = "semctl_getncnt",
	[ST_SEMCTL_GETVAL] = "semctl_getval",
	[ST_SEMCTL_SEM_INFO] = "semctl_sem_info",
	[ST_SEMCTL_SEM_STAT] = "semctl_sem_stat",
	[ST_SEMCTL_IPC_RMID] = "semctl_ipc_rmid",
};

struct stat_block {
	uint64_t calls;
	uint64_t ok;
	uint64_t err[NERR];	/* err[0]: errnos beyond NERR */
};

struct generation {
	uint32_t planned;	/* operations drawn for it */
	uint32_t done;		/* made before the exit or the deadline */
	uint64_t digest;	/* of the operations made */
};

/*
 * One per worker slot, and one for storm itself. Only one process
 * writes each at a time: a slot's next worker starts after the last
 * one was reaped.
 */
struct actor {
	struct stat_block st[ST_MAX];
	uint64_t exit_detaches;	/* attachments a worker held at exit */
	uint64_t exits;
	uint64_t ops;
	uint32_t ngens;
	struct generation gens[MAX_GENS];
};

/* ---- options ------------------------------------------------------------- */

struct storm_opts {
	uint64_t seed;
	unsigned int duration_s;
	int workers;
	int namespaces;
	unsigned int uid_base;
	int uids;
	const char *out;
	unsigned int hold_s;	/* holders stay at most this long */
	unsigned int pace_ms;	/* longest pause before an operation */
	bool plan;
};

enum { OPT_UID_BASE = 0x100, OPT_UIDS, OPT_PLAN, OPT_HOLD, OPT_PACE };

static const struct argp_option options[] = {
	{ "seed", 's', "S", 0, "PRNG seed (default 1)", 0 },
	{ "duration", 'd', "SECONDS", 0, "How long to storm (default 60)", 0 },
	{ "workers", 'w', "N", 0, "Worker slots (default 12)", 0 },
	{ "namespaces", 'n', "K", 0,
	  "IPC namespaces, storm's own included (default 3)", 0 },
	{ "uid-base", OPT_UID_BASE, "UID", 0, "First uid (default 1000)", 0 },
	{ "uids", OPT_UIDS, "M", 0, "Number of uids (default 4)", 0 },
	{ "out", 'o', "FILE", 0, "Write the counts there (default stdout)", 0 },
	{ "pace", OPT_PACE, "MS", 0,
	  "Pause up to MS ms before each operation, drawn (default 20)", 0 },
	{ "hold", OPT_HOLD, "SECONDS", 0,
	  "Release the holders after this long at most (default 600)", 0 },
	{ "plan", OPT_PLAN, NULL, 0,
	  "Print the digest of each \"slot gen ops\" line of stdin", 0 },
	{ 0 },
};

static unsigned long number(struct argp_state *state, const char *what,
			    const char *arg, unsigned long min,
			    unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		argp_error(state, "%s '%s': expected %lu to %lu", what, arg,
			   min, max);
	return v;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct storm_opts *o = state->input;

	switch (key) {
	case 's':
		o->seed = number(state, "seed", arg, 0, ~0UL);
		break;
	case 'd':
		o->duration_s = number(state, "duration", arg, 1, 86400);
		break;
	case 'w':
		o->workers = number(state, "workers", arg, 1, MAX_WORKERS);
		break;
	case 'n':
		o->namespaces = number(state, "namespaces", arg, 1, MAX_NS);
		break;
	case OPT_UID_BASE:
		o->uid_base = number(state, "uid", arg, 1, 1U << 30);
		break;
	case OPT_UIDS:
		o->uids = number(state, "uids", arg, 1, 64);
		break;
	case 'o':
		o->out = arg;
		break;
	case OPT_HOLD:
		o->hold_s = number(state, "hold", arg, 1, 86400);
		break;
	case OPT_PLAN:
		o->plan = true;
		break;
	case OPT_PACE:
		o->pace_ms = number(state, "pace", arg, 0, 10000);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, NULL,
	"A seeded, reproducible System V IPC workload: shmget/shmat/shmdt/"
	"shmctl/semget/semop/semtimedop/semctl by several uids in several "
	"IPC namespaces, with exact counts of what the kernel answered.",
	NULL, NULL, NULL,
};

/* ---- the PRNG ------------------------------------------------------------ */

struct rng {
	uint64_t s[4];		/* xoshiro256** */
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t result = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return result;
}

/* The stream of one generation of one slot: from the seed alone. */
static void rng_seed(struct rng *r, uint64_t seed, unsigned int slot,
		     unsigned int gen)
{
	uint64_t x = seed, i;

	x = splitmix64(&x) ^ ((uint64_t)slot << 32 | gen);
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* ---- operations, drawn before they are made ------------------------------ */

enum op_kind {
	OP_SHM_CREATE,
	OP_SHM_LOOKUP,
	OP_SHMAT,
	OP_SHMDT,
	OP_SHM_STAT,
	OP_SHM_SET,
	OP_SHM_RMID_OWN,
	OP_SHM_RMID_BY_KEY,	/* a segment others of the namespace use */
	OP_SHM_SCAN_RMID,	/* SHM_INFO, SHM_STAT of an index, IPC_RMID */
	OP_SEMGET,
	OP_SEMOP_NOWAIT,
	OP_SEMTIMEDOP,
	OP_SEM_SETVAL,
	OP_SEM_GETNCNT,
	OP_SEM_GETVAL,
	OP_SEM_RMID,
	OP_MAX
};

/* Weights out of 1000. */
static const unsigned int op_weight[OP_MAX] = {
	[OP_SHM_CREATE] = 170, [OP_SHM_LOOKUP] = 50, [OP_SHMAT] = 110,
	[OP_SHMDT] = 80, [OP_SHM_STAT] = 50, [OP_SHM_SET] = 30,
	[OP_SHM_RMID_OWN] = 70, [OP_SHM_RMID_BY_KEY] = 40,
	[OP_SHM_SCAN_RMID] = 40, [OP_SEMGET] = 40, [OP_SEMOP_NOWAIT] = 120,
	[OP_SEMTIMEDOP] = 110, [OP_SEM_SETVAL] = 30, [OP_SEM_GETNCNT] = 30,
	[OP_SEM_GETVAL] = 20, [OP_SEM_RMID] = 10,
};

struct op {
	enum op_kind kind;
	uint64_t size;		/* shmget */
	int key;		/* key index, -1: IPC_PRIVATE */
	unsigned int pick;	/* which entry of a table */
	unsigned int variant;	/* flags, target kind, semaphore op */
	unsigned int value;	/* semaphore value, timeout in ms */
	unsigned int pause_ms;	/* before it is made */
};

/*
 * Sizes: mostly small, some over the suite's rule limits, and the ones
 * the kernel must refuse without overflowing: 0, SIZE_MAX, 2^63,
 * ULONG_MAX - PAGE_SIZE + 2 (a page round-up wrap where kernel.shmmax
 * lets it through), more than the guest's memory.
 */
static uint64_t draw_size(uint64_t a, uint64_t b)
{
	unsigned int c = a % 100;

	if (c < 50)
		return 1 + b % 65536;
	if (c < 60)
		return PAGE * (1 + b % 16);
	if (c < 70)
		return (256 << 10) + b % ((3 << 20) - (256 << 10));
	if (c < 73)
		return 0;
	if (c < 76)
		return SIZE_MAX;
	if (c < 79)
		return 1ULL << 63;
	if (c < 82)
		return ~0UL - PAGE + 2;
	if (c < 85)
		return 4ULL << 30;
	return 1 + b % 4096;
}

/* Always four draws: the stream stays aligned whatever was drawn. */
static void plan_op(struct rng *r, unsigned int pace_ms, struct op *op)
{
	uint64_t a = rng_next(r), b = rng_next(r), c = rng_next(r),
		 d = rng_next(r);
	unsigned int w = a % 1000, k;

	memset(op, 0, sizeof(*op));
	for (k = 0; k < OP_MAX - 1 && w >= op_weight[k]; k++)
		w -= op_weight[k];
	op->kind = k;
	op->pick = (unsigned int)(c >> 16);
	op->variant = (unsigned int)(d % 1000);
	op->value = (unsigned int)((d >> 20) % 1000);
	op->key = -1;
	op->pause_ms = (unsigned int)((a >> 32) % (pace_ms + 1));
	switch (op->kind) {
	case OP_SHM_CREATE:
		op->size = draw_size(b, c);
		if (d % 100 < 40)
			op->key = (d >> 8) % KEYS;
		break;
	case OP_SHM_LOOKUP:
	case OP_SHM_RMID_BY_KEY:
		op->key = b % KEYS;
		op->size = (b >> 8) % 4 ? 0 : 2 << 20;
		break;
	case OP_SEMGET:
		op->key = b % SEM_KEYS;
		break;
	default:
		break;
	}
}

/* FNV-1a over the fields, one at a time: no padding in the digest. */
static uint64_t digest_add(uint64_t h, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t digest_op(uint64_t h, const struct op *op)
{
	h = digest_add(h, op->kind);
	h = digest_add(h, op->size);
	h = digest_add(h, (uint64_t)(int64_t)op->key);
	h = digest_add(h, op->pick);
	h = digest_add(h, op->variant);
	h = digest_add(h, op->value);
	return digest_add(h, op->pause_ms);
}

#define DIGEST_INIT 0xcbf29ce484222325ULL

/* Operations of a generation: drawn first from its stream. */
static uint32_t plan_length(struct rng *r)
{
	return 50 + rng_next(r) % 350;
}

/* ---- a worker ------------------------------------------------------------ */

struct worker {
	struct actor *me;
	struct generation *gen;
	uid_t uid;
	int shm_own[32];
	int nown;
	int shm_found[16];
	int nfound;
	struct { void *addr; int id; } att[16];
	int natt;
	int sem[8];
	int nsem;
};

/* Count one call: @ret < 0 is a failure with @err. */
static long count(struct stat_block *s, long ret, int err)
{
	s->calls++;
	if (ret >= 0)
		s->ok++;
	else
		s->err[err > 0 && err < NERR ? err : 0]++;
	return ret;
}

#define COUNTED(w, kind, call) ({				\
	long __r = (long)(call);				\
	count(&(w)->me->st[kind], __r, errno);			\
})

static void table_put(int *table, int *n, int size, int id, unsigned int pick)
{
	int i;

	for (i = 0; i < *n; i++)
		if (table[i] == id)
			return;
	if (*n < size)
		table[(*n)++] = id;
	else
		table[pick % size] = id;	/* the old one is forgotten */
}

static void table_drop(int *table, int *n, int i)
{
	table[i] = table[--(*n)];
}

/* An id from the own or the found table, or a bad one (-1). */
static int pick_shm(struct worker *w, const struct op *op, int *from_own)
{
	*from_own = -1;
	if (op->variant < 600 && w->nown) {
		*from_own = op->pick % w->nown;
		return w->shm_own[*from_own];
	}
	if (op->variant < 900 && w->nfound)
		return w->shm_found[op->pick % w->nfound];
	return -1;
}

static int pick_sem(struct worker *w, const struct op *op)
{
	return w->nsem ? w->sem[op->pick % w->nsem] : -1;
}

static void do_shm_create(struct worker *w, const struct op *op)
{
	key_t key = op->key < 0 ? IPC_PRIVATE : SHM_KEY_BASE + op->key;
	int flg = op->key < 0 ? IPC_CREAT | 0600 : IPC_CREAT | IPC_EXCL | 0666;
	long id = COUNTED(w, ST_SHMGET_CREATE,
			  shmget(key, (size_t)op->size, flg));

	if (id >= 0)
		table_put(w->shm_own, &w->nown, 32, (int)id, op->pick);
}

static int lookup_key(struct worker *w, const struct op *op)
{
	long id = COUNTED(w, ST_SHMGET_LOOKUP,
			  shmget(SHM_KEY_BASE + op->key, (size_t)op->size, 0));

	if (id >= 0)
		table_put(w->shm_found, &w->nfound, 16, (int)id, op->pick);
	return (int)id;
}

static void do_shmat(struct worker *w, const struct op *op)
{
	int own, id = pick_shm(w, op, &own);
	int flg = op->value % 5 ? 0 : SHM_RDONLY;
	unsigned int where = op->value % 25;
	void *addr = NULL, *at;

	if (where == 0)
		addr = (void *)(~0UL & ~(PAGE - 1));	/* + size wraps */
	else if (where == 1)
		addr = (void *)0x1001;			/* misaligned */
	if (w->natt == 16)
		return;
	at = shmat(id, addr, flg);
	if (at == (void *)-1) {
		count(&w->me->st[ST_SHMAT], -1, errno);
		return;
	}
	count(&w->me->st[ST_SHMAT], 0, 0);
	if (!(flg & SHM_RDONLY))
		*(volatile char *)at = 1;	/* a page of rss */
	w->att[w->natt].addr = at;
	w->att[w->natt++].id = id;
}

static void do_shmdt(struct worker *w, const struct op *op)
{
	int i;

	if (!w->natt) {
		COUNTED(w, ST_SHMDT, shmdt((void *)PAGE));	/* EINVAL */
		return;
	}
	i = op->pick % w->natt;
	if (COUNTED(w, ST_SHMDT, shmdt(w->att[i].addr)) == 0)
		w->att[i] = w->att[--w->natt];
}

static void do_shm_stat(struct worker *w, const struct op *op)
{
	struct shmid_ds ds;
	int own, id = pick_shm(w, op, &own);

	COUNTED(w, ST_SHMCTL_IPC_STAT, shmctl(id, IPC_STAT, &ds));
}

static void do_shm_set(struct worker *w, const struct op *op)
{
	struct shmid_ds ds = { 0 };
	int own, id = pick_shm(w, op, &own);

	ds.shm_perm.uid = geteuid();
	ds.shm_perm.gid = getegid();
	ds.shm_perm.mode = op->value % 2 ? 0666 : 0600;
	COUNTED(w, ST_SHMCTL_IPC_SET, shmctl(id, IPC_SET, &ds));
}

static void do_shm_rmid_own(struct worker *w, const struct op *op)
{
	int i;

	if (!w->nown) {
		COUNTED(w, ST_SHMCTL_IPC_RMID, shmctl(-1, IPC_RMID, NULL));
		return;
	}
	i = op->pick % w->nown;
	COUNTED(w, ST_SHMCTL_IPC_RMID, shmctl(w->shm_own[i], IPC_RMID, NULL));
	table_drop(w->shm_own, &w->nown, i);
}

static void do_shm_rmid_by_key(struct worker *w, const struct op *op)
{
	int id = lookup_key(w, op);

	if (id >= 0)
		COUNTED(w, ST_SHMCTL_IPC_RMID, shmctl(id, IPC_RMID, NULL));
}

static void do_shm_scan_rmid(struct worker *w, const struct op *op)
{
	struct shm_info info;
	struct shmid_ds ds;
	long max, id;

	max = COUNTED(w, ST_SHMCTL_SHM_INFO,
		      shmctl(0, SHM_INFO, (struct shmid_ds *)&info));
	if (max < 0)
		return;
	id = COUNTED(w, ST_SHMCTL_SHM_STAT,
		     shmctl((int)(op->pick % (max + 1)), SHM_STAT, &ds));
	if (id >= 0)
		COUNTED(w, ST_SHMCTL_IPC_RMID, shmctl((int)id, IPC_RMID, NULL));
}

static void do_semget(struct worker *w, const struct op *op)
{
	long id = COUNTED(w, ST_SEMGET, semget(SEM_KEY_BASE + op->key,
					       SEM_NSEMS, IPC_CREAT | 0666));

	if (id >= 0)
		table_put(w->sem, &w->nsem, 8, (int)id, op->pick);
}

static void do_semop(struct worker *w, const struct op *op, bool nowait)
{
	struct sembuf sb = { .sem_num = op->value % SEM_NSEMS };
	struct timespec ts = { .tv_nsec = (10 + op->value % 50) * 1000000L };
	int id = pick_sem(w, op);

	if (nowait) {
		/* post, try to take, or test for zero */
		sb.sem_op = op->variant < 500 ? 1 : op->variant < 800 ? -1 : 0;
		sb.sem_flg = IPC_NOWAIT;
		COUNTED(w, ST_SEMOP_NOWAIT, semop(id, &sb, 1));
		return;
	}
	/*
	 * Take, or wait for zero: sleeps until another worker posts or
	 * sets the value, or until the timeout.
	 */
	sb.sem_op = op->variant < 700 ? -1 : 0;
	COUNTED(w, ST_SEMTIMEDOP, semtimedop(id, &sb, 1, &ts));
}

static void do_semctl(struct worker *w, const struct op *op)
{
	union semun arg = { .val = (int)(op->value % 3) };
	int id = pick_sem(w, op), num = op->variant % SEM_NSEMS, i;

	switch (op->kind) {
	case OP_SEM_SETVAL:
		COUNTED(w, ST_SEMCTL_SETVAL, semctl(id, num, SETVAL, arg));
		break;
	case OP_SEM_GETNCNT:
		COUNTED(w, ST_SEMCTL_GETNCNT, semctl(id, num, GETNCNT));
		break;
	case OP_SEM_GETVAL:
		COUNTED(w, ST_SEMCTL_GETVAL, semctl(id, num, GETVAL));
		break;
	default:
		/* sleepers on it wake with EIDRM; semget makes it again */
		COUNTED(w, ST_SEMCTL_IPC_RMID, semctl(id, 0, IPC_RMID));
		for (i = 0; i < w->nsem; i++)
			if (w->sem[i] == id)
				table_drop(w->sem, &w->nsem, i--);
	}
}

static void make_op(struct worker *w, const struct op *op)
{
	switch (op->kind) {
	case OP_SHM_CREATE:
		do_shm_create(w, op);
		break;
	case OP_SHM_LOOKUP:
		lookup_key(w, op);
		break;
	case OP_SHMAT:
		do_shmat(w, op);
		break;
	case OP_SHMDT:
		do_shmdt(w, op);
		break;
	case OP_SHM_STAT:
		do_shm_stat(w, op);
		break;
	case OP_SHM_SET:
		do_shm_set(w, op);
		break;
	case OP_SHM_RMID_OWN:
		do_shm_rmid_own(w, op);
		break;
	case OP_SHM_RMID_BY_KEY:
		do_shm_rmid_by_key(w, op);
		break;
	case OP_SHM_SCAN_RMID:
		do_shm_scan_rmid(w, op);
		break;
	case OP_SEMGET:
		do_semget(w, op);
		break;
	case OP_SEMOP_NOWAIT:
		do_semop(w, op, true);
		break;
	case OP_SEMTIMEDOP:
		do_semop(w, op, false);
		break;
	default:
		do_semctl(w, op);
	}
}

/* One generation of a slot, in its namespace, as its uid. */
static void __attribute__((noreturn))
worker_run(struct actor *me, const struct storm_opts *o, unsigned int slot,
	   int nsfd, uid_t uid, uint64_t deadline_ms)
{
	struct worker w = { .me = me, .uid = uid };
	struct rng r;
	struct op op;
	uint32_t i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWIPC))
		_exit(3);
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(3);
	w.gen = &me->gens[me->ngens];
	rng_seed(&r, o->seed, slot, me->ngens);
	w.gen->planned = plan_length(&r);
	w.gen->digest = DIGEST_INIT;
	for (i = 0; i < w.gen->planned && mono_ms() < deadline_ms; i++) {
		plan_op(&r, o->pace_ms, &op);
		w.gen->digest = digest_op(w.gen->digest, &op);
		if (op.pause_ms) {
			struct timespec ts = {
				.tv_sec = op.pause_ms / 1000,
				.tv_nsec = op.pause_ms % 1000 * 1000000L,
			};

			nanosleep(&ts, NULL);
		}
		make_op(&w, &op);
		w.gen->done++;
		me->ops++;
	}
	/* what is still attached is detached by the exit */
	me->exit_detaches += w.natt;
	me->exits++;
	_exit(0);
}

/* ---- namespaces ---------------------------------------------------------- */

struct ns {
	unsigned long inum;
	pid_t holder;		/* storm itself for its own namespace */
	int fd;			/* /proc/HOLDER/ns/ipc, or -1 */
	int release;		/* holder stays while this is open */
	const char *config;
};

struct storm {
	struct storm_opts *o;
	struct actor *actors;	/* worker slots, then storm itself */
	struct ns ns[MAX_NS];
	int sfd;
	uint64_t start_ms, stormed_ms;
};

/*
 * Descriptors a child must not keep: a holder waits for the end of its
 * release pipe, which every other process must have closed.
 */
static void close_inherited(const struct storm *s, int keep_ns)
{
	int i;

	close(s->sfd);
	for (i = 1; i < s->o->namespaces; i++) {
		if (s->ns[i].release >= 0)
			close(s->ns[i].release);
		if (i != keep_ns && s->ns[i].fd >= 0)
			close(s->ns[i].fd);
	}
}

static void write_sysctl(const char *name, const char *value)
{
	if (sysctl_set(name, value))
		_exit(4);
}

/*
 * Limits of the namespaces storm makes, so each refusal has a place:
 * small kernel.shmmni and kernel.shmall, or kernel.shmmax at ULONG_MAX
 * (where SIZE_MAX passes the shmmax check and wraps in the round-up).
 */
static const char *ns_config(int index)
{
	return index % 2 ? "shmmni 16, shmall 4096 pages" :
			   "shmmax ULONG_MAX";
}

static void configure_ns(int index)
{
	if (index % 2) {
		write_sysctl("shmmni", "16");
		write_sysctl("shmall", "4096");
	} else {
		write_sysctl("shmmax", "18446744073709551615");
	}
}

static int make_ns(struct storm *s, int index)
{
	struct ns *n = &s->ns[index];
	int ready[2], release[2];
	unsigned long inum = 0;
	pid_t pid;
	char path[64];

	if (pipe2(ready, O_CLOEXEC) || pipe2(release, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close_inherited(s, -1);
		close(release[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWIPC))
			_exit(4);
		configure_ns(index);
		inum = ipc_ns_inum();
		if (write(ready[1], &inum, sizeof(inum)) != sizeof(inum))
			_exit(4);
		/* until storm closes the other end */
		while (read(release[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	if (read(ready[0], &inum, sizeof(inum)) != sizeof(inum)) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", pid);
	n->fd = open(path, O_RDONLY | O_CLOEXEC);
	n->inum = inum;
	n->holder = pid;
	n->release = release[1];
	n->config = ns_config(index);
	return n->fd < 0 ? -1 : 0;
}

/* What is left in storm's own namespace is removed by storm, counted. */
static void clean_own_ns(struct actor *me)
{
	struct worker w = { .me = me };
	struct shm_info shm_info;
	struct seminfo sem_info;
	union semun arg = { .__buf = &sem_info };
	struct shmid_ds ds;
	struct semid_ds sds;
	long max, id;
	int i;

	max = COUNTED(&w, ST_SHMCTL_SHM_INFO,
		      shmctl(0, SHM_INFO, (struct shmid_ds *)&shm_info));
	for (i = 0; i <= max; i++) {
		id = COUNTED(&w, ST_SHMCTL_SHM_STAT, shmctl(i, SHM_STAT, &ds));
		if (id >= 0)
			COUNTED(&w, ST_SHMCTL_IPC_RMID,
				shmctl((int)id, IPC_RMID, NULL));
	}
	max = COUNTED(&w, ST_SEMCTL_SEM_INFO, semctl(0, 0, SEM_INFO, arg));
	for (i = 0; i <= max; i++) {
		arg.buf = &sds;
		id = COUNTED(&w, ST_SEMCTL_SEM_STAT,
			     semctl(i, 0, SEM_STAT, arg));
		if (id >= 0)
			COUNTED(&w, ST_SEMCTL_IPC_RMID,
				semctl((int)id, 0, IPC_RMID));
	}
}

/* ---- the report ---------------------------------------------------------- */

static const char *errno_name(int err)
{
	static char buf[16];
	const char *name = err ? strerrorname_np(err) : NULL;

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static void add_block(struct stat_block *sum, const struct stat_block *s)
{
	int e;

	sum->calls += s->calls;
	sum->ok += s->ok;
	for (e = 0; e < NERR; e++)
		sum->err[e] += s->err[e];
}

static void print_block(FILE *f, const char *name, const struct stat_block *s,
			bool comma)
{
	bool first = true;
	int e;

	fprintf(f, "\"%s\":{\"calls\":%llu,\"ok\":%llu,\"errno\":{", name,
		(unsigned long long)s->calls, (unsigned long long)s->ok);
	for (e = 0; e < NERR; e++) {
		if (!s->err[e])
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
			e ? errno_name(e) : "other",
			(unsigned long long)s->err[e]);
		first = false;
	}
	fprintf(f, "}}%s", comma ? "," : "");
}

static int slot_ns(const struct storm *s, int slot)
{
	return (slot / 2) % s->o->namespaces;
}

static uid_t slot_uid(const struct storm *s, int slot)
{
	return s->o->uid_base + (slot / 2) % s->o->uids;
}

static void print_ns(FILE *f, const struct storm *s, int i)
{
	struct stat_block sum[ST_MAX];
	uint64_t detaches = 0, exits = 0, ops = 0;
	int slot, k;
	bool first = true;

	memset(sum, 0, sizeof(sum));
	fprintf(f, "{\"index\":%d,\"ipcns\":%lu,\"holder\":%d,\"created\":%s,"
		"\"config\":\"%s\",\"slots\":[", i, s->ns[i].inum,
		s->ns[i].holder, i ? "true" : "false", s->ns[i].config);
	for (slot = 0; slot < s->o->workers; slot++) {
		const struct actor *a = &s->actors[slot];

		if (slot_ns(s, slot) != i)
			continue;
		fprintf(f, "%s%d", first ? "" : ",", slot);
		first = false;
		for (k = 0; k < ST_MAX; k++)
			add_block(&sum[k], &a->st[k]);
		detaches += a->exit_detaches;
		exits += a->exits;
		ops += a->ops;
	}
	if (i == 0)	/* storm's own clean-up */
		for (k = 0; k < ST_MAX; k++)
			add_block(&sum[k], &s->actors[s->o->workers].st[k]);
	fprintf(f, "],\"operations\":%llu,\"exits\":%llu,"
		"\"exit_detaches\":%llu,\"calls\":{",
		(unsigned long long)ops, (unsigned long long)exits,
		(unsigned long long)detaches);
	for (k = 0; k < ST_MAX; k++)
		print_block(f, stat_names[k], &sum[k], k + 1 < ST_MAX);
	fprintf(f, "}}");
}

static void print_report(FILE *f, const struct storm *s)
{
	int i, slot;
	unsigned int g;
	bool first = true;

	fprintf(f, "{\"seed\":%llu,\"duration_s\":%u,\"workers\":%d,"
		"\"pace_ms\":%u,\"stormed_ms\":%llu,\"uids\":[",
		(unsigned long long)s->o->seed, s->o->duration_s,
		s->o->workers, s->o->pace_ms,
		(unsigned long long)(s->stormed_ms - s->start_ms));
	for (i = 0; i < s->o->uids && i < (s->o->workers + 1) / 2; i++)
		fprintf(f, "%s%u", i ? "," : "", s->o->uid_base + i);
	fprintf(f, "],\"namespaces\":[");
	for (i = 0; i < s->o->namespaces; i++) {
		if (i)
			fputc(',', f);
		print_ns(f, s, i);
	}
	fprintf(f, "],\"slots\":[");
	for (slot = 0; slot < s->o->workers; slot++)
		fprintf(f, "%s{\"slot\":%d,\"uid\":%u,\"ns\":%d}",
			slot ? "," : "", slot, slot_uid(s, slot),
			slot_ns(s, slot));
	/* [slot, generation, planned, done, digest] */
	fprintf(f, "],\"generations\":[");
	for (slot = 0; slot < s->o->workers; slot++) {
		const struct actor *a = &s->actors[slot];

		for (g = 0; g < a->ngens; g++) {
			fprintf(f, "%s[%d,%u,%u,%u,\"%016llx\"]",
				first ? "" : ",", slot, g, a->gens[g].planned,
				a->gens[g].done,
				(unsigned long long)a->gens[g].digest);
			first = false;
		}
	}
	fprintf(f, "]}\n");
}

/* ---- storm itself -------------------------------------------------------- */

static pid_t start_worker(struct storm *s, int slot, uint64_t deadline_ms)
{
	struct actor *a = &s->actors[slot];
	int n = slot_ns(s, slot);
	pid_t pid;

	if (a->ngens == MAX_GENS)
		return 0;
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close_inherited(s, n);
		worker_run(a, s->o, (unsigned int)slot, s->ns[n].fd,
			   slot_uid(s, slot), deadline_ms);
	}
	return pid;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static uint64_t total_ops(const struct storm *s)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < s->o->workers; i++)
		n += s->actors[i].ops;
	return n;
}

/*
 * Workers are started again as they exit, until the deadline; then
 * every one is waited for. A signal ends the storm early.
 */
static void run_storm(struct storm *s, int sfd)
{
	uint64_t deadline = s->start_ms + s->o->duration_s * 1000ULL;
	uint64_t next_progress = s->start_ms + 1000;
	pid_t pids[MAX_WORKERS];
	int running = 0, i;
	bool stopping = false;

	for (i = 0; i < s->o->workers; i++) {
		pids[i] = start_worker(s, i, deadline);
		running += pids[i] > 0;
	}
	while (running) {
		struct pollfd p = { .fd = sfd, .events = POLLIN };
		struct signalfd_siginfo si;
		uint64_t now = mono_ms();
		int status;
		pid_t pid;

		if (now >= next_progress) {
			say("progress %llu %llu",
			    (unsigned long long)(now - s->start_ms) / 1000,
			    (unsigned long long)total_ops(s));
			next_progress += 1000;
		}
		poll(&p, 1,
		     next_progress > now ? (int)(next_progress - now) : 0);
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD && !stopping) {
				/* asked to stop: now, calls in flight lost */
				stopping = true;
				deadline = 0;
				for (i = 0; i < s->o->workers; i++)
					if (pids[i] > 0)
						kill(pids[i], SIGKILL);
			}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			for (i = 0; i < s->o->workers && pids[i] != pid; i++)
				;
			if (i == s->o->workers)
				continue;
			s->actors[i].ngens++;
			pids[i] = 0;
			running--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				fprintf(stderr,
					"storm: worker %d: status 0x%x\n", i,
					status);
			if (mono_ms() < deadline) {
				pids[i] = start_worker(s, i, deadline);
				running += pids[i] > 0;
			}
		}
	}
}

/* Until stdin ends, a signal, or --hold seconds. */
static void hold(const struct storm *s, int sfd)
{
	uint64_t until = mono_ms() + s->o->hold_s * 1000ULL;
	struct pollfd p[2] = { { .fd = 0, .events = POLLIN },
			       { .fd = sfd, .events = POLLIN } };
	char buf[256];

	for (;;) {
		uint64_t now = mono_ms();

		if (now >= until)
			return;
		if (poll(p, 2, (int)(until - now)) < 0 && errno != EINTR)
			return;
		if (p[1].revents) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD)
					return;
		}
		if (p[0].revents && read(0, buf, sizeof(buf)) <= 0)
			return;
	}
}

/* --plan: the digest of each "slot gen ops" line, as the workers made. */
static int plan(uint64_t seed, unsigned int pace_ms)
{
	unsigned int slot, gen, ops, i;
	struct rng r;
	struct op op;

	while (scanf("%u %u %u", &slot, &gen, &ops) == 3) {
		uint64_t h = DIGEST_INIT;
		uint32_t planned;

		rng_seed(&r, seed, slot, gen);
		planned = plan_length(&r);
		for (i = 0; i < ops && i < planned; i++) {
			plan_op(&r, pace_ms, &op);
			h = digest_op(h, &op);
		}
		printf("%u %016llx\n", planned, (unsigned long long)h);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct storm_opts o = { .seed = 1, .duration_s = 60, .workers = 12,
				.namespaces = 3, .uid_base = 1000, .uids = 4,
				.hold_s = 600, .pace_ms = 20 };
	struct storm s = { .o = &o };
	sigset_t mask;
	FILE *out = stdout;
	int sfd, i;

	argp_parse(&argp, argc, argv, 0, NULL, &o);
	if (o.plan)
		return plan(o.seed, o.pace_ms);
	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	s.actors = mmap(NULL, sizeof(*s.actors) * (o.workers + 1),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (s.actors == MAP_FAILED) {
		perror("storm: mmap");
		return 2;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	s.sfd = sfd;
	if (sfd < 0) {
		perror("storm: signalfd");
		return 2;
	}

	s.ns[0] = (struct ns){ .inum = ipc_ns_inum(), .holder = getpid(),
			       .fd = -1, .release = -1,
			       .config = "storm's own" };
	for (i = 1; i < o.namespaces; i++)
		s.ns[i] = (struct ns){ .fd = -1, .release = -1 };
	for (i = 1; i < o.namespaces; i++)
		if (make_ns(&s, i)) {
			perror("storm: a namespace");
			return 2;
		}
	for (i = 0; i < o.namespaces; i++)
		say("holder %d %lu %d %d", i, s.ns[i].inum, s.ns[i].holder,
		    i > 0);
	say("started");
	s.start_ms = mono_ms();
	run_storm(&s, sfd);
	s.stormed_ms = mono_ms();
	say("stormed %llu", (unsigned long long)total_ops(&s));

	hold(&s, sfd);
	clean_own_ns(&s.actors[o.workers]);
	for (i = 1; i < o.namespaces; i++) {
		close(s.ns[i].release);
		close(s.ns[i].fd);
		waitpid(s.ns[i].holder, NULL, 0);
	}
	if (o.out && strcmp(o.out, "-")) {
		out = fopen(o.out, "w");
		if (!out) {
			perror(o.out);
			return 2;
		}
	}
	print_report(out, &s);
	if (out != stdout && fclose(out)) {
		perror(o.out);
		return 2;
	}
	say("finished");
	return 0;
}
