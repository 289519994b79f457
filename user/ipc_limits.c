// SPDX-License-Identifier: GPL-2.0
#include "ipc_limits.h"

#include <stdio.h>

#include "units.h"

double limit_fraction(unsigned __int128 used, unsigned __int128 limit)
{
	if (limit == 0)
		return used ? 1.0 : 0.0;
	return (double)((long double)used / (long double)limit);
}

unsigned __int128 shmall_bytes(const struct ipc_limits *l)
{
	return (unsigned __int128)l->shmall * l->page_size;
}

uint64_t shmmax_pages(const struct ipc_limits *l)
{
	if (!l->page_size)
		return 0;
	return l->shmmax / l->page_size + (l->shmmax % l->page_size != 0);
}

static void row(struct limit_row *r, const char *name, const char *sysctl,
		unsigned __int128 used, unsigned __int128 limit, bool bytes)
{
	r->name = name;
	r->sysctl = sysctl;
	r->used = used;
	r->limit = limit;
	r->bytes = bytes;
	r->fraction = limit_fraction(used, limit);
}

int limit_rows(const struct ipc_limits *l, const struct ipc_usage *u,
	       struct limit_row rows[LIMIT_ROWS])
{
	row(&rows[0], "segments", "kernel.shmmni", u->segments, l->shmmni,
	    false);
	row(&rows[1], "shm_tot", "kernel.shmall",
	    (unsigned __int128)u->shm_tot * l->page_size, shmall_bytes(l),
	    true);
	row(&rows[2], "sem_sets", "kernel.sem semmni", u->sem_sets,
	    l->semmni, false);
	row(&rows[3], "semaphores", "kernel.sem semmns", u->sems, l->semmns,
	    false);
	row(&rows[4], "msg_queues", "kernel.msgmni", u->msg_queues,
	    l->msgmni, false);
	/* memory in segments against the machine, when known */
	row(&rows[5], "shm_memory", "MemTotal",
	    (unsigned __int128)u->shm_tot * l->page_size, l->mem_total, true);
	return l->mem_total ? LIMIT_ROWS : LIMIT_ROWS - 1;
}

static struct hazard *add(struct hazard *out, int *n, enum hazard_id id,
			  const char *name)
{
	struct hazard *h;

	if (*n >= MAX_HAZARDS)
		return NULL;
	h = &out[(*n)++];
	h->id = id;
	h->name = name;
	h->text[0] = '\0';
	return h;
}

/*
 * "Effectively unlimited": shmall covers more than the machine's memory
 * (or, memory unknown, is at least 2^63 bytes).
 */
static bool shm_unlimited(const struct ipc_limits *l)
{
	unsigned __int128 cap = l->mem_total ? l->mem_total :
				(unsigned __int128)1 << 63;

	return shmall_bytes(l) >= cap && l->shmmax >= (l->mem_total ?
							l->mem_total :
							UINT64_C(1) << 63);
}

int find_hazards(const struct ipc_limits *l, const struct ipc_usage *u,
		 struct hazard out[MAX_HAZARDS])
{
	struct limit_row rows[LIMIT_ROWS];
	char a[UNITS_BUF], b[UNITS_BUF];
	struct hazard *h;
	int n = 0, nrows, i;

	if (l->shmmax >= SHM_LIMIT_DEFAULT) {
		h = add(out, &n, HAZARD_SHMMAX_NEAR_ULONG_MAX,
			"shmmax_near_ulong_max");
		snprintf(h->text, sizeof(h->text),
			 "kernel.shmmax is %llu, %llu below ULONG_MAX: a script "
			 "that reads it and adds more wraps it to a tiny value "
			 "and breaks every shmget()",
			 (unsigned long long)l->shmmax,
			 (unsigned long long)(UINT64_MAX - l->shmmax));
	}
	if (l->shmall == 0) {
		h = add(out, &n, HAZARD_SHM_DISABLED, "shm_disabled");
		snprintf(h->text, sizeof(h->text),
			 "kernel.shmall is 0: every shmget() that creates a "
			 "segment fails with ENOSPC");
	} else if (l->shmall < shmmax_pages(l)) {
		h = add(out, &n, HAZARD_SHMALL_BELOW_SHMMAX,
			"shmall_below_shmmax");
		snprintf(h->text, sizeof(h->text),
			 "kernel.shmall (%llu pages, %s) is below kernel.shmmax "
			 "(%s): a segment of kernel.shmmax bytes can never be "
			 "created",
			 (unsigned long long)l->shmall,
			 fmt_bytes(a, sizeof(a), shmall_bytes(l)),
			 fmt_bytes(b, sizeof(b), l->shmmax));
	}
	if (!l->shm_rmid_forced && shm_unlimited(l)) {
		h = add(out, &n, HAZARD_UNLIMITED_NO_RMID_FORCED,
			"unlimited_without_rmid_forced");
		snprintf(h->text, sizeof(h->text),
			 "kernel.shmall and kernel.shmmax exceed the memory "
			 "of this machine and kernel.shm_rmid_forced is 0: one "
			 "user can take all memory as segments, and orphaned "
			 "ones are never freed");
	}
	nrows = limit_rows(l, u, rows);
	for (i = 0; i < nrows; i++) {
		if (rows[i].fraction < NEAR_LIMIT_FRACTION || !rows[i].limit)
			continue;
		h = add(out, &n, HAZARD_NEAR_LIMIT, "near_limit");
		if (!h)
			break;
		snprintf(h->text, sizeof(h->text), "%s at %.0f%% of %s",
			 rows[i].name, rows[i].fraction * 100, rows[i].sysctl);
	}
	return n;
}
