// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* SHM_LOCK, SHM_UNLOCK */
#include "state.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <time.h>

#ifndef SHM_DEST
#define SHM_DEST 01000
#endif
#ifndef SHM_LOCKED
#define SHM_LOCKED 02000
#endif

void state_init(struct ipc_state *st, uint32_t ipcns)
{
	memset(st, 0, sizeof(*st));
	st->ipcns = ipcns;
}

static void free_sets(struct ipc_state *st)
{
	size_t i;

	for (i = 0; i < st->nsets; i++) {
		free(st->sets[i].row.val);
		free(st->sets[i].row.ncnt);
		free(st->sets[i].row.zcnt);
		free(st->sets[i].row.pid);
	}
	free(st->sets);
	st->sets = NULL;
	st->nsets = 0;
}

void state_set_ns(struct ipc_state *st, const struct ipcns *ns)
{
	st->ns = *ns;
	st->ipcns = ns->inum;
	st->foreign = !ns->own;
	st->identified = true;
	ipcns_identify(ns, &st->id);
}

/* The @what tables of the state's namespace. */
static int read_tables(struct ipc_state *st, unsigned int what,
		       struct ipcns_tables *t, char *err, size_t errlen)
{
	int ret;

	if (st->pre_what) {
		bool take = st->pre_what == what && !st->pre_ret;

		st->pre_what = 0;
		if (take) {
			*t = st->pre;
			memset(&st->pre, 0, sizeof(st->pre));
			return 0;
		}
		ipcns_tables_free(&st->pre);
	}
	ret = ipcns_read(st->foreign ? &st->ns : NULL, what, t, err,
			     errlen);

	/* its way in went, maybe not it: gone only if no longer found */
	if (ret == -ESRCH && st->foreign && !ipcns_refind(&st->ns))
		ret = ipcns_read(&st->ns, what, t, err, errlen);
	return ret;
}

#define REFRESH_TABLES (IPCNS_LIMITS | IPCNS_USAGE | IPCNS_SEM | IPCNS_MSG)

void state_prefetch(struct ipc_state *const *st, size_t n)
{
	const struct ipcns **ns = calloc(n ? n : 1, sizeof(*ns));
	struct ipcns_tables *t = calloc(n ? n : 1, sizeof(*t));
	int *ret = calloc(n ? n : 1, sizeof(*ret));
	size_t i, k = 0;

	/* no memory: each is read alone, as without this */
	if (!ns || !t || !ret)
		goto out;
	for (i = 0; i < n; i++)
		if (st[i]->foreign)
			ns[k++] = &st[i]->ns;
	ipcns_read_many(ns, k, REFRESH_TABLES, t, ret);
	for (i = 0, k = 0; i < n; i++) {
		if (!st[i]->foreign)
			continue;
		if (st[i]->pre_what)
			ipcns_tables_free(&st[i]->pre);
		st[i]->pre = t[k];
		st[i]->pre_ret = ret[k++];
		st[i]->pre_what = REFRESH_TABLES;
	}
out:
	free(ns);
	free(t);
	free(ret);
}

void state_free(struct ipc_state *st)
{
	if (st->pre_what)
		ipcns_tables_free(&st->pre);
	proc_cache_free(&st->procs);
	free(st->msgs);
	free(st->cgroups);
	free(st->set_owners);
	free(st->segs);
	free_sets(st);
	free(st->waiters);
	memset(st, 0, sizeof(*st));
}

/* Index of the first segment with id >= @id. */
static size_t seg_slot(const struct ipc_state *st, int id)
{
	size_t lo = 0, hi = st->nsegs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->segs[mid].row.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct seg *state_find_seg(struct ipc_state *st, int id)
{
	size_t i = seg_slot(st, id);

	return i < st->nsegs && st->segs[i].row.id == id ? &st->segs[i] : NULL;
}

struct semset *state_find_set(struct ipc_state *st, int id)
{
	size_t lo = 0, hi = st->nsets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->sets[mid].row.id == id)
			return &st->sets[mid];
		if (st->sets[mid].row.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The segment with @id, inserted zeroed if absent; NULL without memory. */
static struct seg *upsert_seg(struct ipc_state *st, int id, bool *added)
{
	size_t i = seg_slot(st, id);

	*added = false;
	if (i < st->nsegs && st->segs[i].row.id == id)
		return &st->segs[i];
	if (st->nsegs == st->segs_cap) {
		size_t cap = st->segs_cap ? st->segs_cap * 2 : 256;
		struct seg *bigger = realloc(st->segs, cap * sizeof(*bigger));

		if (!bigger)
			return NULL;
		st->segs = bigger;
		st->segs_cap = cap;
	}
	memmove(&st->segs[i + 1], &st->segs[i],
		(st->nsegs - i) * sizeof(*st->segs));
	st->nsegs++;
	memset(&st->segs[i], 0, sizeof(st->segs[i]));
	st->segs[i].row.id = id;
	*added = true;
	return &st->segs[i];
}

static void remove_seg(struct ipc_state *st, int id)
{
	size_t i = seg_slot(st, id);

	if (i >= st->nsegs || st->segs[i].row.id != id)
		return;
	memmove(&st->segs[i], &st->segs[i + 1],
		(st->nsegs - i - 1) * sizeof(*st->segs));
	st->nsegs--;
}

/* The id of the cgroup @pid is in now, 0 if unknown; named in passing. */
static uint64_t live_cgroup(struct ipc_state *st, int pid)
{
	struct cgroup_name *bigger, *c;
	struct cgroup_owner o;
	char dir[PATH_MAX];
	uint64_t id = process_cgroup(pid, dir, sizeof(dir));
	size_t i;

	if (!id)
		return 0;
	for (i = 0; i < st->ncgroups; i++)
		if (st->cgroups[i].id == id)
			return id;
	/* a bound on what a host churning containers makes us keep */
	if (st->ncgroups >= CGROUP_NAMES_MAX)
		return id;
	bigger = realloc(st->cgroups, (st->ncgroups + 1) * sizeof(*bigger));
	if (!bigger)
		return id;
	st->cgroups = bigger;
	c = &st->cgroups[st->ncgroups++];
	c->id = id;
	snprintf(c->path, sizeof(c->path), "%s", cgroup_path_of(dir));
	cgroup_owner_parse(c->path, &o);
	cgroup_owner_label(&o, c->label, sizeof(c->label));
	return id;
}

const struct cgroup_name *state_cgroup(const struct ipc_state *st,
				      uint64_t id)
{
	size_t i;

	for (i = 0; id && i < st->ncgroups; i++)
		if (st->cgroups[i].id == id)
			return &st->cgroups[i];
	return NULL;
}

static void adopt_creator(struct ipc_state *st, struct seg *s)
{
	s->creator_alive = proc_alive_since(&st->procs, s->row.cpid,
					    s->row.ctime);
	if (!s->creator_comm[0] && s->creator_alive)
		snprintf(s->creator_comm, sizeof(s->creator_comm), "%s",
			 proc_comm(&st->procs, s->row.cpid));
	/* not seen created: the creator's cgroup now, if it lives */
	if (!s->cgroup_id && s->creator_alive)
		s->cgroup_id = live_cgroup(st, s->row.cpid);
}

static int compare_set_id(const void *a, const void *b)
{
	const struct semset *x = a, *y = b;

	return (x->row.id > y->row.id) - (x->row.id < y->row.id);
}

/* Semaphore sets are read every time; @rows become the state's. */
static int adopt_sets(struct ipc_state *st, struct sem_row *rows, size_t n)
{
	size_t i;

	free_sets(st);
	st->sets = calloc(n ? n : 1, sizeof(*st->sets));
	if (!st->sets) {
		free_sem_rows(rows, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		size_t k;

		st->sets[i].row = rows[i];
		for (k = 0; k < st->nset_owners; k++)
			if (st->set_owners[k].id == rows[i].id)
				st->sets[i].cgroup_id =
					st->set_owners[k].cgroup_id;
	}
	st->nsets = n;
	free(rows);	/* the arrays now belong to st->sets */
	qsort(st->sets, n, sizeof(*st->sets), compare_set_id);
	return 0;
}

int state_refresh(struct ipc_state *st, char *err, size_t errlen)
{
	struct ipcns_tables t;
	int ret = read_tables(st, REFRESH_TABLES, &t, err, errlen);

	if (ret)
		return ret;
	st->limits = t.limits;
	st->usage = t.usage;
	free(st->msgs);
	st->msgs = t.msg;
	st->nmsgs = t.nmsg;
	t.msg = NULL;
	t.nmsg = 0;
	ret = adopt_sets(st, t.sem, t.nsem);
	t.sem = NULL;
	t.nsem = 0;
	ipcns_tables_free(&t);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	if (st->identified)
		ipcns_identify(&st->ns, &st->id);
	state_check_creators(st);
	return 0;
}

void state_check_creators(struct ipc_state *st)
{
	size_t i;

	proc_cache_reset(&st->procs);
	for (i = 0; i < st->nsegs; i++)
		st->segs[i].creator_alive =
			proc_alive_since(&st->procs, st->segs[i].row.cpid,
					 st->segs[i].row.ctime);
}

/* Whether the event stream and the kernel disagree about a segment. */
static bool seg_differs(const struct shm_row *a, const struct shm_row *b)
{
	return a->key != b->key || a->size != b->size ||
	       a->nattch != b->nattch || a->cpid != b->cpid ||
	       a->uid != b->uid || a->gid != b->gid ||
	       (a->mode & (SHM_DEST | SHM_LOCKED | 0777)) !=
	       (b->mode & (SHM_DEST | SHM_LOCKED | 0777));
}

int state_resync(struct ipc_state *st, char *err, size_t errlen)
{
	struct ipcns_tables t;
	struct shm_row *rows;
	size_t n, i, j;
	char *seen;
	int ret = read_tables(st, IPCNS_SHM, &t, err, errlen);

	if (ret)
		return ret;
	rows = t.shm;
	n = t.nshm;
	st->resyncs++;
	proc_cache_reset(&st->procs);
	for (i = 0; i < n; i++) {
		bool added;
		struct seg *s = upsert_seg(st, rows[i].id, &added);

		if (!s) {
			free(rows);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (!added && seg_differs(&s->row, &rows[i]))
			st->corrections++;
		if (added)
			st->corrections++;
		s->row = rows[i];
		adopt_creator(st, s);
	}
	/* segments the kernel no longer has */
	seen = calloc(st->nsegs ? st->nsegs : 1, 1);
	if (!seen) {
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		seen[seg_slot(st, rows[i].id)] = 1;
	for (i = 0, j = 0; i < st->nsegs; i++) {
		if (seen[i])
			st->segs[j++] = st->segs[i];
		else
			st->corrections++;
	}
	st->nsegs = j;
	free(seen);
	free(rows);
	return 0;
}

int state_snapshot(struct ipc_state *st, char *err, size_t errlen)
{
	int ret = state_resync(st, err, errlen);

	/* the first load is no correction */
	st->corrections = 0;
	st->resyncs = 0;
	return ret ? ret : state_refresh(st, err, errlen);
}

static void push_recent(struct ipc_state *st, const struct ipcw_event *e)
{
	if (st->nrecent == RECENT_MAX) {
		memmove(&st->recent[0], &st->recent[1],
			(RECENT_MAX - 1) * sizeof(st->recent[0]));
		st->nrecent--;
	}
	st->recent[st->nrecent++] = *e;
}

static void apply_create(struct ipc_state *st, const struct ipcw_event *e)
{
	const struct ipcw_shm_create *c = &e->shm_create;
	struct seg *s;
	bool added;

	if (c->err) {
		if (c->reason < IPCW_CREATE_REASON_MAX) {
			st->refused[c->reason]++;
			st->refused_total[c->reason]++;
		}
		push_recent(st, e);
		return;
	}
	s = upsert_seg(st, c->id, &added);
	if (!s)
		return;
	memset(&s->row, 0, sizeof(s->row));
	s->row.id = c->id;
	s->row.key = c->key;
	s->row.mode = c->shmflg & 0777;
	s->row.size = c->size;
	s->row.cpid = (int)e->pid;
	s->row.uid = s->row.cuid = e->uid;
	s->row.gid = s->row.cgid = e->gid;
	s->row.ctime = time(NULL);
	memcpy(s->creator_comm, e->comm, sizeof(s->creator_comm));
	s->creator_alive = true;
	s->last_attach_ns = s->last_detach_ns = 0;
	s->cgroup_id = e->cgroup_id;
	/* named now, while the creator most likely is in it still */
	if (!state_cgroup(st, e->cgroup_id))
		live_cgroup(st, (int)e->pid);
}

/* Forget the creator of set @id (removed, or its id taken again). */
static void drop_set_owner(struct ipc_state *st, int id)
{
	size_t k;

	for (k = 0; k < st->nset_owners; k++)
		if (st->set_owners[k].id == id) {
			st->set_owners[k] = st->set_owners[--st->nset_owners];
			return;
		}
}

static void apply_sem_create(struct ipc_state *st, const struct ipcw_event *e)
{
	struct set_owner *bigger;

	if (e->sem_create.err) {
		push_recent(st, e);
		return;
	}
	drop_set_owner(st, e->sem_create.id);
	/* bounded as the cgroup names are: past it, sets show none */
	if (st->nset_owners >= CGROUP_NAMES_MAX * 8)
		return;
	bigger = realloc(st->set_owners,
			 (st->nset_owners + 1) * sizeof(*bigger));
	if (!bigger)
		return;
	st->set_owners = bigger;
	st->set_owners[st->nset_owners].id = e->sem_create.id;
	st->set_owners[st->nset_owners++].cgroup_id = e->cgroup_id;
	if (!state_cgroup(st, e->cgroup_id))
		live_cgroup(st, (int)e->pid);
}

static void add_waiter(struct ipc_state *st, const struct ipcw_event *e)
{
	struct sem_waiter *w;

	if (st->nwaiters == st->waiters_cap) {
		size_t cap = st->waiters_cap ? st->waiters_cap * 2 : 64;
		struct sem_waiter *bigger = realloc(st->waiters,
						    cap * sizeof(*bigger));

		if (!bigger)
			return;
		st->waiters = bigger;
		st->waiters_cap = cap;
	}
	w = &st->waiters[st->nwaiters++];
	w->pid = e->pid;
	w->tid = e->tid;
	memcpy(w->comm, e->comm, sizeof(w->comm));
	w->id = e->sem_block.id;
	w->nsops = e->sem_block.nsops;
	w->index = e->sem_block.index;
	w->sem_num = e->sem_block.sem_num;
	w->sem_op = e->sem_block.sem_op;
	w->zcnt = e->sem_block.zcnt;
	w->timeout = e->sem_block.timeout;
	w->since_ns = e->ts_ns;
}

static void remove_waiter(struct ipc_state *st, uint32_t tid)
{
	size_t i;

	for (i = 0; i < st->nwaiters; i++)
		if (st->waiters[i].tid == tid) {
			st->waiters[i] = st->waiters[--st->nwaiters];
			return;
		}
}

void state_apply(struct ipc_state *st, const struct ipcw_event *e)
{
	struct seg *s;

	if (e->ipcns != st->ipcns)
		return;
	st->events++;
	switch (e->type) {
	case IPCW_SHM_CREATE:
		apply_create(st, e);
		break;
	case IPCW_SHM_ATTACH:
	case IPCW_SHM_DETACH:
		s = state_find_seg(st, e->nattch.id);
		if (!s)
			break;
		s->row.nattch = e->nattch.nattch;
		s->row.lpid = (int)e->pid;
		if (e->type == IPCW_SHM_ATTACH) {
			s->row.atime = time(NULL);
			s->last_attach_ns = e->ts_ns;
		} else {
			s->row.dtime = time(NULL);
			s->last_detach_ns = e->ts_ns;
		}
		break;
	case IPCW_SHM_DESTROY:
		if (e->shm_destroy.cause == IPCW_DESTROY_NS_EXIT) {
			st->exit_freed_segs++;
			st->exit_freed_bytes += e->shm_destroy.size;
		}
		remove_seg(st, e->shm_destroy.id);
		push_recent(st, e);
		break;
	case IPCW_SHMCTL:
		s = state_find_seg(st, e->shmctl.id);
		if (!s || e->shmctl.ret < 0)
			break;
		if (e->shmctl.cmd == IPC_RMID) {
			/* still attached: marked, and its key made private */
			s->row.mode |= SHM_DEST;
			s->row.key = IPC_PRIVATE;
		} else if (e->shmctl.cmd == SHM_LOCK) {
			s->row.mode |= SHM_LOCKED;
		} else if (e->shmctl.cmd == SHM_UNLOCK) {
			s->row.mode &= ~SHM_LOCKED;
		}
		break;
	case IPCW_SEM_CREATE:
		apply_sem_create(st, e);
		break;
	case IPCW_SEM_DESTROY:
		drop_set_owner(st, e->sem_destroy.id);
		push_recent(st, e);
		break;
	case IPCW_SEM_BLOCK:
		add_waiter(st, e);
		break;
	case IPCW_SEM_WAKE:
		remove_waiter(st, e->tid);
		break;
	default:
		break;
	}
}

void state_interval_reset(struct ipc_state *st)
{
	memset(st->refused, 0, sizeof(st->refused));
}

bool seg_dest(const struct seg *s)
{
	return s->row.mode & SHM_DEST;
}

bool seg_locked(const struct seg *s)
{
	return s->row.mode & SHM_LOCKED;
}

bool seg_orphaned(const struct seg *s)
{
	return s->row.nattch == 0 && !s->creator_alive;
}

void state_orphans(const struct ipc_state *st, uint64_t *count,
		   uint64_t *bytes)
{
	size_t i;

	*count = *bytes = 0;
	for (i = 0; i < st->nsegs; i++)
		if (seg_orphaned(&st->segs[i])) {
			(*count)++;
			*bytes += st->segs[i].row.size;
		}
}

uint64_t state_largest_seg(const struct ipc_state *st)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < st->nsegs; i++)
		if (st->segs[i].row.size > max)
			max = st->segs[i].row.size;
	return max;
}
