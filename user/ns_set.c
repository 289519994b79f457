// SPDX-License-Identifier: GPL-2.0
#include "ns_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

int ns_set_own(struct ns_set *set)
{
	set->st = NULL;
	set->n = 0;
	set->ngone = 0;
	set->st = calloc(1, sizeof(*set->st));
	if (set->st)
		set->st[0] = calloc(1, sizeof(*set->st[0]));
	if (!set->st || !set->st[0]) {
		free(set->st);
		set->st = NULL;
		return -ENOMEM;
	}
	state_init(set->st[0], own_ipcns());
	set->n = 1;
	return 0;
}

struct ipc_state *ns_state(struct ns_set *set, uint32_t ipcns)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->st[mid]->ipcns == ipcns)
			return set->st[mid];
		if (set->st[mid]->ipcns < ipcns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ns_gone(struct ns_set *set, size_t i)
{
	struct ipc_state *st = set->st[i];
	struct gone_ns *g;
	size_t k;

	if (set->ngone == RECENT_MAX) {
		memmove(&set->gone[0], &set->gone[1],
			(RECENT_MAX - 1) * sizeof(set->gone[0]));
		set->ngone--;
	}
	g = &set->gone[set->ngone++];
	memset(g, 0, sizeof(*g));
	g->ipcns = st->ipcns;
	snprintf(g->owner, sizeof(g->owner), "%s", st->id.label);
	/* what its events said was freed, and what was left when it went */
	g->segments = st->exit_freed_segs + st->nsegs;
	g->bytes = st->exit_freed_bytes;
	for (k = 0; k < st->nsegs; k++)
		g->bytes += st->segs[k].row.size;
	g->sem_sets = st->nsets;
	g->msg_queues = st->nmsgs;
	g->at = time(NULL);
	if (set->release)
		set->release(st, g, set->ctx);
	state_free(st);
	free(st);
	memmove(&set->st[i], &set->st[i + 1],
		(set->n - i - 1) * sizeof(set->st[0]));
	set->n--;
}

void ns_set_free(struct ns_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (set->release)
			set->release(set->st[i], NULL, set->ctx);
		state_free(set->st[i]);
		free(set->st[i]);
	}
	free(set->st);
	memset(set, 0, sizeof(*set));
}

static int compare_state(const void *a, const void *b)
{
	const struct ipc_state *x = *(struct ipc_state *const *)a;
	const struct ipc_state *y = *(struct ipc_state *const *)b;

	return (x->ipcns > y->ipcns) - (x->ipcns < y->ipcns);
}

int ns_sync(struct ns_set *set, char *err, size_t errlen)
{
	struct ipcns_list list;
	struct ipc_state **bigger;
	size_t i;
	int ret = ipcns_discover(&list, err, errlen);

	set->failed = 0;
	set->failed_err[0] = '\0';
	if (ret)
		return ret;
	for (i = set->n; i-- > 0;) {
		const struct ipcns *ns = ipcns_find(&list, set->st[i]->ipcns);

		if (!ns)
			ns_gone(set, i);
		else
			set->st[i]->ns = *ns;	/* members change */
	}
	bigger = realloc(set->st, (set->n + list.n + 1) * sizeof(*bigger));
	if (!bigger) {
		ipcns_list_free(&list);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	set->st = bigger;
	for (i = 0; i < list.n; i++) {
		struct ipc_state *st;

		if (ns_state(set, list.ns[i].inum))
			continue;
		st = calloc(1, sizeof(*st));
		if (!st) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			break;
		}
		state_init(st, list.ns[i].inum);
		state_set_ns(st, &list.ns[i]);
		ret = state_snapshot(st, err, errlen);
		if (ret) {
			state_free(st);
			free(st);
			/*
			 * Gone between finding and reading: never there. One
			 * that cannot be read stops none of the others: it is
			 * counted, and tried again at the next sync.
			 */
			if (ret != -ESRCH) {
				if (!set->failed++)
					snprintf(set->failed_err,
						 sizeof(set->failed_err), "%s",
						 err);
			}
			ret = 0;
			continue;
		}
		set->st[set->n++] = st;
	}
	if (set->n)
		qsort(set->st, set->n, sizeof(*set->st), compare_state);
	ipcns_list_free(&list);
	return ret;
}
