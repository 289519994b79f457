// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "alerts.h"

#define NS 4026531839u

static struct policy pol;
static int fired[3];
static uint64_t last_bytes;

static const char *last_rule;
static uint64_t last_owner;
static enum policy_scope last_scope;

static void on_alert(enum alert_kind kind, const struct policy_rule *r,
		     enum policy_scope scope, uint64_t owner, int id,
		     uint64_t bytes, uint64_t threshold, void *ctx)
{
	(void)id;
	(void)threshold;
	(void)ctx;
	fired[kind]++;
	last_bytes = bytes;
	last_rule = r->name;
	last_owner = owner;
	last_scope = scope;
}

/*
 * The kernel's record, as a test gives it: the rule the creator's uid
 * matches (with cgroup "/c" for uids 5000 and up, as if the kernel saw
 * the creator there), owners uid, gid = uid + 1, cgroup = uid * 10.
 * Segments with an odd id above 100 have no record.
 */
static bool test_record(const struct seg *s, struct seg_record *out,
			void *ctx)
{
	(void)ctx;
	if (s->row.id > 100 && s->row.id % 2)
		return false;
	out->rule = policy_match(&pol, s->row.uid, s->row.uid + 1,
				 s->row.uid >= 5000 ? "/c" : "", NS);
	out->owner[IPCW_SCOPE_UID] = s->row.uid;
	out->owner[IPCW_SCOPE_GID] = s->row.uid + 1;
	out->owner[IPCW_SCOPE_CGROUP] = (uint64_t)s->row.uid * 10;
	out->owner[IPCW_SCOPE_IPCNS] = NS;
	return true;
}

static void add_seg(struct ipc_state *st, int id, uint32_t uid,
		    uint64_t size)
{
	struct ipcw_event e;

	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHM_CREATE;
	e.ipcns = NS;
	e.uid = uid;
	e.shm_create.id = id;
	e.shm_create.size = size;
	state_apply(st, &e);
}

static void setup_policy(void)
{
	struct policy_rule *r = &pol.rules[0];

	memset(&pol, 0, sizeof(pol));
	pol.nrules = 1;
	strcpy(r->name, "all");
	r->alert_segment_bytes = (struct policy_amount){ .set = true,
							 .bytes = 1000 };
	r->alert_owner_bytes = (struct policy_amount){ .set = true,
						       .bytes = 1500 };
	r->alert_namespace_bytes = (struct policy_amount){ .set = true,
							   .bytes = 3000 };
}

static void alerts_fire_once_and_rearm(void **state)
{
	struct ipc_state st;
	struct alerts al = { 0 };

	(void)state;
	setup_policy();
	memset(fired, 0, sizeof(fired));
	state_init(&st, NS);
	add_seg(&st, 1, 1000, 999);		/* under every threshold */
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT] + fired[ALERT_OWNER] +
			 fired[ALERT_NAMESPACE], 0);

	add_seg(&st, 2, 1000, 1000);		/* segment at, owner over */
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT], 1);
	assert_int_equal(fired[ALERT_OWNER], 1);
	assert_int_equal(fired[ALERT_NAMESPACE], 0);
	/* still over: no repeat */
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT], 1);
	assert_int_equal(fired[ALERT_OWNER], 1);

	add_seg(&st, 3, 2000, 1500);		/* namespace 3499 */
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_NAMESPACE], 1);
	assert_int_equal(last_bytes, 3499);
	assert_int_equal(fired[ALERT_SEGMENT], 2);	/* the new segment */
	assert_int_equal(fired[ALERT_OWNER], 2);	/* uid 2000 */

	/* uid 1000 falls below, then crosses again: a second alert */
	st.segs[1].row.size = 1;
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	st.segs[1].row.size = 1000;
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_OWNER], 3);
	alerts_free(&al);
	state_free(&st);
}

static void alerts_only_for_matching_owners(void **state)
{
	struct ipc_state st;
	struct alerts al = { 0 };

	(void)state;
	setup_policy();
	pol.rules[0].match_uid = true;
	pol.rules[0].uid = 42;
	memset(fired, 0, sizeof(fired));
	state_init(&st, NS);
	add_seg(&st, 1, 1000, 5000);
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT] + fired[ALERT_OWNER], 0);
	/* the namespace threshold applies whoever owns the memory */
	assert_int_equal(fired[ALERT_NAMESPACE], 1);
	alerts_free(&al);
	state_free(&st);
}

/* The rule is the record's: a cgroup rule before a catch-all decides. */
static void alerts_follow_the_recorded_rule(void **state)
{
	struct ipc_state st;
	struct alerts al = { 0 };

	(void)state;
	setup_policy();
	/* rule 0: cgroup /c, alerts at 100 bytes per cgroup; rule 1: all */
	pol.rules[1] = pol.rules[0];
	strcpy(pol.rules[1].name, "catch-all");
	pol.rules[1].alert_segment_bytes.bytes = 1u << 30;
	pol.rules[1].alert_owner_bytes.bytes = 1u << 30;
	pol.rules[1].alert_namespace_bytes.set = false;
	strcpy(pol.rules[0].name, "containers");
	strcpy(pol.rules[0].cgroup, "/c");
	pol.rules[0].scope = SCOPE_CGROUP;
	pol.rules[0].alert_segment_bytes.bytes = 100;
	pol.rules[0].alert_owner_bytes.bytes = 150;
	pol.rules[0].alert_namespace_bytes.set = false;
	pol.nrules = 2;
	memset(fired, 0, sizeof(fired));
	state_init(&st, NS);
	add_seg(&st, 1, 5000, 100);	/* in /c: rule containers */
	add_seg(&st, 2, 42, 5000);	/* elsewhere: catch-all, under it */
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT], 1);
	assert_int_equal(fired[ALERT_OWNER], 0);
	assert_string_equal(last_rule, "containers");
	assert_int_equal(last_owner, 5000);
	assert_int_equal(last_scope, SCOPE_UID);
	/* the owner is the rule's scope: cgroup 50000 holds 160 bytes */
	add_seg(&st, 4, 5000, 60);
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_OWNER], 1);
	assert_int_equal(last_scope, SCOPE_CGROUP);
	assert_int_equal(last_owner, 50000);
	assert_int_equal(last_bytes, 160);
	assert_string_equal(last_rule, "containers");
	alerts_free(&al);
	state_free(&st);
}

/* No record, no segment or owner alert, and no bytes to an owner. */
static void alerts_skip_segments_without_record(void **state)
{
	struct ipc_state st;
	struct alerts al = { 0 };

	(void)state;
	setup_policy();
	pol.rules[0].alert_namespace_bytes.set = false;
	memset(fired, 0, sizeof(fired));
	state_init(&st, NS);
	add_seg(&st, 101, 1000, 5000);	/* no record */
	add_seg(&st, 102, 1000, 999);	/* recorded, under 1500 alone */
	alerts_tick(&al, &st, &pol, test_record, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT] + fired[ALERT_OWNER], 0);
	alerts_free(&al);
	state_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alerts_fire_once_and_rearm),
		cmocka_unit_test(alerts_only_for_matching_owners),
		cmocka_unit_test(alerts_follow_the_recorded_rule),
		cmocka_unit_test(alerts_skip_segments_without_record),
	};

	return cmocka_run_group_tests_name("alerts", tests, NULL, NULL);
}
