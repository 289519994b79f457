// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "alerts.h"

#define NS 4026531839u

static struct policy pol;
static int fired[3];
static uint64_t last_bytes;

static void on_alert(enum alert_kind kind, const struct policy_rule *r,
		     uint32_t owner, int id, uint64_t bytes,
		     uint64_t threshold, void *ctx)
{
	(void)r;
	(void)owner;
	(void)id;
	(void)threshold;
	(void)ctx;
	fired[kind]++;
	last_bytes = bytes;
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
	alerts_tick(&al, &st, &pol, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT] + fired[ALERT_OWNER] +
			 fired[ALERT_NAMESPACE], 0);

	add_seg(&st, 2, 1000, 1000);		/* segment at, owner over */
	alerts_tick(&al, &st, &pol, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT], 1);
	assert_int_equal(fired[ALERT_OWNER], 1);
	assert_int_equal(fired[ALERT_NAMESPACE], 0);
	/* still over: no repeat */
	alerts_tick(&al, &st, &pol, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT], 1);
	assert_int_equal(fired[ALERT_OWNER], 1);

	add_seg(&st, 3, 2000, 1500);		/* namespace 3499 */
	alerts_tick(&al, &st, &pol, on_alert, NULL);
	assert_int_equal(fired[ALERT_NAMESPACE], 1);
	assert_int_equal(last_bytes, 3499);
	assert_int_equal(fired[ALERT_SEGMENT], 2);	/* the new segment */
	assert_int_equal(fired[ALERT_OWNER], 2);	/* uid 2000 */

	/* uid 1000 falls below, then crosses again: a second alert */
	st.segs[1].row.size = 1;
	alerts_tick(&al, &st, &pol, on_alert, NULL);
	st.segs[1].row.size = 1000;
	alerts_tick(&al, &st, &pol, on_alert, NULL);
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
	alerts_tick(&al, &st, &pol, on_alert, NULL);
	assert_int_equal(fired[ALERT_SEGMENT] + fired[ALERT_OWNER], 0);
	/* the namespace threshold applies whoever owns the memory */
	assert_int_equal(fired[ALERT_NAMESPACE], 1);
	alerts_free(&al);
	state_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alerts_fire_once_and_rearm),
		cmocka_unit_test(alerts_only_for_matching_owners),
	};

	return cmocka_run_group_tests_name("alerts", tests, NULL, NULL);
}
