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
	int64_t a, b;		/* segment id and ctime, scope and owner */
};

struct alerts {
	struct alert_key *active;
	size_t n, cap;
	uint64_t fired[3];	/* by enum alert_kind */
};

/*
 * @owner in @scope: the segment's creator uid for ALERT_SEGMENT, the
 * owner in the rule's scope for ALERT_OWNER, the namespace for
 * ALERT_NAMESPACE.
 */
typedef void (*alert_fn)(enum alert_kind kind, const struct policy_rule *r,
			 enum policy_scope scope, uint64_t owner, int id,
			 uint64_t bytes, uint64_t threshold, void *ctx);

/*
 * A segment's rule and owners are those of its record (@record, the
 * kernel's decision at creation): a segment without one raises no
 * segment or owner alert. An owner's bytes are those of its segments in
 * @st that have a record.
 */
void alerts_tick(struct alerts *al, const struct ipc_state *st,
		 const struct policy *p, seg_record_fn record, alert_fn fn,
		 void *ctx);

void alerts_free(struct alerts *al);

#endif
