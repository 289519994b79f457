/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Alerts on near-unlimited consumers: a segment, an owner's total, the
 * namespace's total at or over a rule's threshold. Each fires once when
 * crossed and again only after falling below.
 */
#ifndef IPCWATCH_ALERTS_H
#define IPCWATCH_ALERTS_H

#include <stddef.h>
#include <stdint.h>

#include "notify.h"
#include "policy.h"
#include "state.h"

struct alert_key {
	int kind;		/* enum alert_kind */
	int rule;
	int64_t a, b;		/* segment id and ctime, or owner uid */
};

struct alerts {
	struct alert_key *active;
	size_t n, cap;
	uint64_t fired[3];	/* by enum alert_kind */
};

typedef void (*alert_fn)(enum alert_kind kind, const struct policy_rule *r,
			 uint32_t owner, int id, uint64_t bytes,
			 uint64_t threshold, void *ctx);

void alerts_tick(struct alerts *al, const struct ipc_state *st,
		 const struct policy *p, alert_fn fn, void *ctx);

void alerts_free(struct alerts *al);

#endif
