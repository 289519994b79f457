// SPDX-License-Identifier: GPL-2.0
#include "alerts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Keys over their threshold on this tick, to compare with the last. */
struct tick {
	struct alert_key *over;
	size_t n, cap;
};

static void mark(struct tick *t, struct alert_key k)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct alert_key *bigger = realloc(t->over,
						   cap * sizeof(*bigger));

		if (!bigger)
			return;
		t->over = bigger;
		t->cap = cap;
	}
	t->over[t->n++] = k;
}

static bool was_active(const struct alerts *al, struct alert_key k)
{
	size_t i;

	for (i = 0; i < al->n; i++)
		if (!memcmp(&al->active[i], &k, sizeof(k)))
			return true;
	return false;
}

static bool marked(const struct tick *t, struct alert_key k)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!memcmp(&t->over[i], &k, sizeof(k)))
			return true;
	return false;
}

/* Over the threshold: fire unless it already was on the last tick. */
static void over(struct alerts *al, struct tick *t, struct alert_key k,
		 const struct policy_rule *r, enum policy_scope scope,
		 uint64_t owner, int id, uint64_t bytes, uint64_t threshold,
		 alert_fn fn, void *ctx)
{
	mark(t, k);
	if (was_active(al, k))
		return;
	al->fired[k.kind]++;
	fn((enum alert_kind)k.kind, r, scope, owner, id, bytes, threshold,
	   ctx);
}

struct seg_view {
	bool has;		/* a record, with a rule of this policy */
	struct seg_record rec;
};

void alerts_tick(struct alerts *al, const struct ipc_state *st,
		 const struct policy *p, seg_record_fn record, alert_fn fn,
		 void *ctx)
{
	struct seg_view *v = calloc(st->nsegs ? st->nsegs : 1, sizeof(*v));
	struct tick t = { 0 };
	uint64_t ns_bytes = 0;
	size_t i, j;
	int rule;

	if (!v)
		return;
	for (i = 0; i < st->nsegs; i++) {
		ns_bytes += st->segs[i].row.size;
		v[i].has = record(&st->segs[i], &v[i].rec, ctx);
	}
	for (i = 0; i < st->nsegs; i++) {
		const struct seg *s = &st->segs[i];
		const struct policy_rule *r;
		struct alert_key k;
		uint64_t owner, bytes = 0;

		rule = v[i].has ? v[i].rec.rule : -1;
		if (rule < 0 || rule >= p->nrules)
			continue;
		r = &p->rules[rule];
		if (r->alert_segment_bytes.set &&
		    s->row.size >= r->alert_segment_bytes.bytes)
			over(al, &t, (struct alert_key){ ALERT_SEGMENT, rule,
				s->row.id, s->row.ctime }, r, SCOPE_UID,
			     v[i].rec.owner[IPCW_SCOPE_UID], s->row.id,
			     s->row.size, r->alert_segment_bytes.bytes, fn,
			     ctx);
		if (!r->alert_owner_bytes.set)
			continue;
		/* the owner this rule accounts per, summed once a tick */
		owner = v[i].rec.owner[r->scope];
		k = (struct alert_key){ ALERT_OWNER, rule, r->scope,
					(int64_t)owner };
		if (marked(&t, k))
			continue;
		for (j = 0; j < st->nsegs; j++)
			if (v[j].has && v[j].rec.owner[r->scope] == owner)
				bytes += st->segs[j].row.size;
		if (bytes >= r->alert_owner_bytes.bytes)
			over(al, &t, k, r, r->scope, owner, -1, bytes,
			     r->alert_owner_bytes.bytes, fn, ctx);
	}
	/* namespace thresholds: every rule that applies to this namespace */
	for (rule = 0; rule < p->nrules; rule++) {
		const struct policy_rule *r = &p->rules[rule];

		if (!r->alert_namespace_bytes.set ||
		    (r->match_ipcns && r->ipcns != st->ipcns))
			continue;
		if (ns_bytes >= r->alert_namespace_bytes.bytes)
			over(al, &t, (struct alert_key){ ALERT_NAMESPACE, rule,
				st->ipcns, 0 }, r, SCOPE_IPCNS, st->ipcns, -1,
			     ns_bytes, r->alert_namespace_bytes.bytes, fn, ctx);
	}
	/* what is not over any more re-arms */
	free(al->active);
	al->active = t.over;
	al->n = t.n;
	al->cap = t.cap;
	free(v);
}

void alerts_free(struct alerts *al)
{
	free(al->active);
	memset(al, 0, sizeof(*al));
}
