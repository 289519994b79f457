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

/* Over the threshold: fire unless it already was on the last tick. */
static void over(struct alerts *al, struct tick *t, struct alert_key k,
		 const struct policy_rule *r, uint32_t owner, int id,
		 uint64_t bytes, uint64_t threshold, alert_fn fn, void *ctx)
{
	mark(t, k);
	if (was_active(al, k))
		return;
	al->fired[k.kind]++;
	fn((enum alert_kind)k.kind, r, owner, id, bytes, threshold, ctx);
}

struct owner_sum {
	uint32_t uid, gid;
	uint64_t bytes;
};

void alerts_tick(struct alerts *al, const struct ipc_state *st,
		 const struct policy *p, alert_fn fn, void *ctx)
{
	struct owner_sum *owners = calloc(st->nsegs ? st->nsegs : 1,
					  sizeof(*owners));
	struct tick t = { 0 };
	uint64_t ns_bytes = 0;
	size_t i, j, nowners = 0;
	int rule;

	if (!owners)
		return;
	for (i = 0; i < st->nsegs; i++) {
		const struct seg *s = &st->segs[i];
		const struct policy_rule *r;

		ns_bytes += s->row.size;
		for (j = 0; j < nowners && owners[j].uid != s->row.uid; j++)
			;
		if (j == nowners) {
			owners[nowners].uid = s->row.uid;
			owners[nowners++].gid = s->row.gid;
		}
		owners[j].bytes += s->row.size;

		rule = policy_match(p, s->row.uid, s->row.gid, "", st->ipcns);
		if (rule < 0)
			continue;
		r = &p->rules[rule];
		if (r->alert_segment_bytes.set &&
		    s->row.size >= r->alert_segment_bytes.bytes)
			over(al, &t, (struct alert_key){ ALERT_SEGMENT, rule,
				s->row.id, s->row.ctime }, r, s->row.uid,
			     s->row.id, s->row.size,
			     r->alert_segment_bytes.bytes, fn, ctx);
	}
	for (j = 0; j < nowners; j++) {
		const struct policy_rule *r;

		rule = policy_match(p, owners[j].uid, owners[j].gid, "",
				    st->ipcns);
		if (rule < 0)
			continue;
		r = &p->rules[rule];
		if (r->alert_owner_bytes.set &&
		    owners[j].bytes >= r->alert_owner_bytes.bytes)
			over(al, &t, (struct alert_key){ ALERT_OWNER, rule,
				owners[j].uid, 0 }, r, owners[j].uid, -1,
			     owners[j].bytes, r->alert_owner_bytes.bytes, fn,
			     ctx);
	}
	/* namespace thresholds: every rule that applies to this namespace */
	for (rule = 0; rule < p->nrules; rule++) {
		const struct policy_rule *r = &p->rules[rule];

		if (!r->alert_namespace_bytes.set ||
		    (r->match_ipcns && r->ipcns != st->ipcns))
			continue;
		if (ns_bytes >= r->alert_namespace_bytes.bytes)
			over(al, &t, (struct alert_key){ ALERT_NAMESPACE, rule,
				st->ipcns, 0 }, r, 0, -1, ns_bytes,
			     r->alert_namespace_bytes.bytes, fn, ctx);
	}
	/* what is not over any more re-arms */
	free(al->active);
	al->active = t.over;
	al->n = t.n;
	al->cap = t.cap;
	free(owners);
}

void alerts_free(struct alerts *al)
{
	free(al->active);
	memset(al, 0, sizeof(*al));
}
