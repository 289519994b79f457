// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <string.h>

#include "ipc_limits.h"

static struct ipc_limits defaults(void)
{
	struct ipc_limits l = {
		.shmmax = SHM_LIMIT_DEFAULT,
		.shmall = SHM_LIMIT_DEFAULT,
		.shmmni = 4096,
		.semmsl = 32000, .semmns = 1024000000, .semopm = 500,
		.semmni = 32000,
		.msgmax = 8192, .msgmnb = 16384, .msgmni = 32000,
		.page_size = 4096,
		.mem_total = 2ULL << 30,
	};
	return l;
}

static bool has(const struct hazard *h, int n, enum hazard_id id)
{
	for (int i = 0; i < n; i++)
		if (h[i].id == id)
			return true;
	return false;
}

static void limits_shmall_bytes_no_overflow(void **state)
{
	struct ipc_limits l = defaults();
	unsigned __int128 want = (unsigned __int128)SHM_LIMIT_DEFAULT * 4096;

	(void)state;
	assert_true(shmall_bytes(&l) == want);
	/* the 64-bit product would have wrapped */
	assert_true((uint64_t)(SHM_LIMIT_DEFAULT * 4096) != want);
}

static void limits_shmmax_pages_rounds_up(void **state)
{
	struct ipc_limits l = defaults();

	(void)state;
	l.shmmax = 4097;
	assert_int_equal(shmmax_pages(&l), 2);
	l.shmmax = 8192;
	assert_int_equal(shmmax_pages(&l), 2);
	l.shmmax = UINT64_MAX;
	assert_int_equal(shmmax_pages(&l), 1ULL << 52);
}

static void limits_fraction(void **state)
{
	(void)state;
	assert_float_equal(limit_fraction(1, 4), 0.25, 1e-12);
	assert_float_equal(limit_fraction(0, 0), 0.0, 1e-12);
	assert_float_equal(limit_fraction(3, 0), 1.0, 1e-12);
	/* 128-bit values do not overflow */
	assert_float_equal(limit_fraction((unsigned __int128)1 << 70,
					  (unsigned __int128)1 << 71), 0.5,
			   1e-12);
}

static void limits_rows_against_limits(void **state)
{
	struct ipc_limits l = defaults();
	struct ipc_usage u = { .segments = 1024, .shm_tot = 262144,
			       .sem_sets = 16000, .sems = 10,
			       .msg_queues = 8000 };
	struct limit_row rows[LIMIT_ROWS];
	int n;

	(void)state;
	n = limit_rows(&l, &u, rows);
	assert_int_equal(n, 6);
	assert_string_equal(rows[0].name, "segments");
	assert_float_equal(rows[0].fraction, 0.25, 1e-12);
	assert_string_equal(rows[1].name, "shm_tot");
	assert_true(rows[1].used == 1ULL << 30);
	assert_true(rows[1].bytes);
	assert_float_equal(rows[2].fraction, 0.5, 1e-12);
	assert_string_equal(rows[4].name, "msg_queues");
	assert_float_equal(rows[4].fraction, 0.25, 1e-12);
	assert_string_equal(rows[5].name, "shm_memory");
	assert_float_equal(rows[5].fraction, 0.5, 1e-12);
	l.mem_total = 0;
	assert_int_equal(limit_rows(&l, &u, rows), 5);
}

static void limits_hazards_at_kernel_defaults(void **state)
{
	struct ipc_limits l = defaults();
	struct ipc_usage u = { 0 };
	struct hazard h[MAX_HAZARDS];
	int n;

	(void)state;
	n = find_hazards(&l, &u, h);
	assert_int_equal(n, 2);
	assert_true(has(h, n, HAZARD_SHMMAX_NEAR_ULONG_MAX));
	assert_true(has(h, n, HAZARD_UNLIMITED_NO_RMID_FORCED));
	assert_non_null(strstr(h[0].text, "16777216 below ULONG_MAX"));
	/* with shm_rmid_forced on, only the shmmax margin is left */
	l.shm_rmid_forced = 1;
	n = find_hazards(&l, &u, h);
	assert_int_equal(n, 1);
}

static void limits_hazard_shmall_zero(void **state)
{
	struct ipc_limits l = defaults();
	struct ipc_usage u = { 0 };
	struct hazard h[MAX_HAZARDS];
	int n;

	(void)state;
	l.shmall = 0;
	n = find_hazards(&l, &u, h);
	assert_true(has(h, n, HAZARD_SHM_DISABLED));
	assert_false(has(h, n, HAZARD_SHMALL_BELOW_SHMMAX));
	assert_false(has(h, n, HAZARD_UNLIMITED_NO_RMID_FORCED));
}

static void limits_hazard_shmall_below_shmmax(void **state)
{
	struct ipc_limits l = defaults();
	struct ipc_usage u = { 0 };
	struct hazard h[MAX_HAZARDS];
	int n;

	(void)state;
	l.shmmax = 64ULL << 20;		/* 16384 pages */
	l.shmall = 16383;
	n = find_hazards(&l, &u, h);
	assert_true(has(h, n, HAZARD_SHMALL_BELOW_SHMMAX));
	assert_false(has(h, n, HAZARD_SHMMAX_NEAR_ULONG_MAX));
	l.shmall = 16384;
	n = find_hazards(&l, &u, h);
	assert_false(has(h, n, HAZARD_SHMALL_BELOW_SHMMAX));
}

static void limits_hazard_near_limit(void **state)
{
	struct ipc_limits l = defaults();
	struct ipc_usage u = { .segments = 3700 };
	struct hazard h[MAX_HAZARDS];
	int n;

	(void)state;
	l.shm_rmid_forced = 1;
	l.shmmax = 1 << 20;
	n = find_hazards(&l, &u, h);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].id, HAZARD_NEAR_LIMIT);
	assert_string_equal(h[0].text, "segments at 90% of kernel.shmmni");
	u.segments = 3600;
	assert_int_equal(find_hazards(&l, &u, h), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limits_shmall_bytes_no_overflow),
		cmocka_unit_test(limits_shmmax_pages_rounds_up),
		cmocka_unit_test(limits_fraction),
		cmocka_unit_test(limits_rows_against_limits),
		cmocka_unit_test(limits_hazards_at_kernel_defaults),
		cmocka_unit_test(limits_hazard_shmall_zero),
		cmocka_unit_test(limits_hazard_shmall_below_shmmax),
		cmocka_unit_test(limits_hazard_near_limit),
	};

	return cmocka_run_group_tests_name("limits", tests, NULL, NULL);
}
