// SPDX-License-Identifier: GPL-2.0
#include "reaper.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "ipcns.h"
#include "sysvipc.h"

/* The namespace of @st to run a check in: NULL for this process's. */
static const struct ipcns *ns_of(const struct ipc_state *st)
{
	return st->foreign ? &st->ns : NULL;
}

static int stat_here(void *arg, void *out)
{
	return shmctl(*(int *)arg, IPC_STAT, out) < 0 ? -errno : 0;
}

/* IPC_STAT of @id in @st's namespace: 0 or -errno. */
static int shm_stat_in(const struct ipc_state *st, int id,
		       struct shmid_ds *ds)
{
	char err[256];

	return ipcns_call(ns_of(st), stat_here, &id, ds, sizeof(*ds), err,
			  sizeof(err));
}

static struct orphan *find(struct reaper *rp, int id)
{
	size_t i;

	for (i = 0; i < rp->n; i++)
		if (rp->orphans[i].id == id)
			return &rp->orphans[i];
	return NULL;
}

/*
 * The orphan entry of @s, made at first sight. Its identity for the
 * check before IPC_RMID is the kernel's, not the state's: the state
 * learns a segment from its creation event, and its ctime is when the
 * event was read, which is a later second when reading lags.
 */
static struct orphan *track(struct reaper *rp, const struct ipc_state *st,
			    const struct seg *s, int rule, uint64_t now_ns)
{
	struct orphan *o = find(rp, s->row.id);
	struct shmid_ds ds;

	/* same id, another segment: start over */
	if (o && (o->seen_ctime != s->row.ctime ||
		  o->seen_cpid != s->row.cpid))
		o->rule = -1;
	if (o && o->rule != -1)
		return o;
	/* gone already: nothing to track */
	if (shm_stat_in(st, s->row.id, &ds))
		return NULL;
	if (!o) {
		if (rp->n == rp->cap) {
			size_t cap = rp->cap ? rp->cap * 2 : 64;
			struct orphan *bigger = realloc(rp->orphans,
							cap * sizeof(*bigger));

			if (!bigger)
				return NULL;
			rp->orphans = bigger;
			rp->cap = cap;
		}
		o = &rp->orphans[rp->n++];
	}
	o->id = s->row.id;
	o->seen_ctime = s->row.ctime;
	o->seen_cpid = s->row.cpid;
	o->ctime = ds.shm_ctime;
	o->cpid = ds.shm_cpid;
	o->since_ns = now_ns;
	o->rule = rule;
	return o;
}

/* The kernel's own view, right before removing: still the same one? */
static bool still_the_orphan(const struct orphan *o)
{
	struct shmid_ds ds;

	if (shmctl(o->id, IPC_STAT, &ds) < 0)
		return false;
	return ds.shm_ctime == o->ctime && ds.shm_cpid == o->cpid &&
	       ds.shm_nattch == 0 &&
	       !process_alive_since(ds.shm_cpid, ds.shm_ctime);
}

/*
 * In the segment's namespace: the check and the removal, back to back.
 * 0 removed, 1 changed (left alone), -errno.
 */
struct rmid_job {
	const struct orphan *o;
	const struct reaper *rp;
};

static int rmid_here(void *arg, void *out)
{
	const struct rmid_job *j = arg;
	int ret;

	(void)out;
	if (!still_the_orphan(j->o))
		return 1;
	if (j->rp->around_rmid && j->rp->around_rmid(j->rp->around_ctx, true))
		return -EPERM;
	ret = shmctl(j->o->id, IPC_RMID, NULL) < 0 ? -errno : 0;
	if (j->rp->around_rmid)
		j->rp->around_rmid(j->rp->around_ctx, false);
	return ret;
}

void reaper_tick(struct reaper *rp, struct ipc_state *st,
		 const struct policy *p, uint64_t now_ns, seg_record_fn record,
		 reaped_fn fn, void *ctx)
{
	size_t i, kept = 0;

	for (i = 0; i < rp->n; i++)
		rp->orphans[i].rule = -2;	/* unseen this tick */
	for (i = 0; i < st->nsegs; i++) {
		struct seg *s = &st->segs[i];
		const struct policy_rule *r;
		struct seg_record rec;
		struct orphan *o;
		struct rmid_job job;
		char err[256];
		int rule, ret, unused = 0;

		if (!seg_orphaned(s) || seg_dest(s))
			continue;
		/* decided at creation, with the creator's cgroup */
		if (!record(s, &rec, ctx))
			continue;
		rule = rec.rule;
		if (rule < 0 || rule >= p->nrules || !p->rules[rule].rmid_forced)
			continue;
		r = &p->rules[rule];
		o = track(rp, st, s, rule, now_ns);
		if (!o)
			continue;
		o->rule = rule;
		if (now_ns - o->since_ns < r->rmid_grace_s * 1000000000ULL)
			continue;
		job.o = o;
		job.rp = rp;
		ret = ipcns_call(ns_of(st), rmid_here, &job, &unused,
				 sizeof(unused), err, sizeof(err));
		if (ret == 1) {
			rp->skipped_changed++;
			o->rule = -2;
			continue;
		}
		if (ret == 0) {
			rp->removed++;
			rp->removed_bytes += s->row.size;
			fn(s, r, ctx);
		}
		o->rule = -2;
	}
	/* forget what is no longer an orphan of ours */
	for (i = 0; i < rp->n; i++)
		if (rp->orphans[i].rule >= 0)
			rp->orphans[kept++] = rp->orphans[i];
	rp->n = kept;
}

void reaper_free(struct reaper *rp)
{
	free(rp->orphans);
	memset(rp, 0, sizeof(*rp));
}
