// SPDX-License-Identifier: GPL-2.0
/* The benchmarks' arithmetic (vmtest/guest/bench_stats.c). */
#include "unit.h"

#include "bench_stats.c"

static void stats_median_odd_even(void **state)
{
	const double odd[] = { 9, 1, 5 }, even[] = { 4, 1, 3, 2 };
	const double one[] = { 7 };

	(void)state;
	assert_float_equal(stats_median(odd, 3), 5, 0);
	assert_float_equal(stats_median(even, 4), 2.5, 0);
	assert_float_equal(stats_median(one, 1), 7, 0);
	assert_float_equal(stats_median(NULL, 0), 0, 0);
}

static void stats_median_leaves_input(void **state)
{
	double v[] = { 3, 1, 2 };

	(void)state;
	assert_float_equal(stats_median(v, 3), 2, 0);
	assert_float_equal(v[0], 3, 0);
	assert_float_equal(v[1], 1, 0);
	assert_float_equal(v[2], 2, 0);
}

static void stats_summary_range(void **state)
{
	const double v[] = { 4500, 4380, 7360, 4420, 5000 };
	struct stats_summary s = stats_summarize(v, 5);

	(void)state;
	assert_int_equal(s.n, 5);
	assert_float_equal(s.median, 4500, 0);
	assert_float_equal(s.min, 4380, 0);
	assert_float_equal(s.max, 7360, 0);
}

static void stats_ratio_to_same_cycle(void **state)
{
	/* issue 14's figures: fentry against the untraced baseline */
	const double base[] = { 4500, 4380, 7360 };
	const double fentry[] = { 18820, 23400, 23300 };
	struct stats_summary s = stats_ratios(fentry, base, 3);

	(void)state;
	assert_int_equal(s.n, 3);
	assert_float_equal(s.min, 23300.0 / 7360, 1e-12);
	assert_float_equal(s.median, 18820.0 / 4500, 1e-12);
	assert_float_equal(s.max, 23400.0 / 4380, 1e-12);
	assert_float_equal(stats_ratio(5, 0), 0, 0);
}

static void stats_ratio_skips_missing_cycles(void **state)
{
	const double base[] = { 100, 0, 200, 100 };
	const double value[] = { 110, 150, 0, 130 };
	struct stats_summary s = stats_ratios(value, base, 4);

	(void)state;
	assert_int_equal(s.n, 2);
	assert_float_equal(s.median, 1.2, 1e-12);
	assert_float_equal(s.min, 1.1, 1e-12);
	assert_float_equal(s.max, 1.3, 1e-12);
	assert_int_equal(stats_ratios(value, base, 0).n, 0);
}

static void stats_targets(void **state)
{
	(void)state;
	assert_float_equal(stats_overhead_pct(1.25), 25, 1e-12);
	assert_true(stats_within_pct(1.02, 2));
	assert_true(stats_within_pct(0.97, 2));
	assert_false(stats_within_pct(1.0201, 2));
	assert_false(stats_within_pct(0, 2));
	/* fentry at most half of kfunc's overhead */
	assert_true(stats_overhead_at_most(1.5, 2.0, 0.5));
	assert_false(stats_overhead_at_most(1.51, 2.0, 0.5));
	assert_false(stats_overhead_at_most(2.26, 1.58, 0.5));
	assert_true(stats_overhead_at_most(0.99, 0.98, 0.5));
	assert_false(stats_overhead_at_most(1.01, 0.98, 0.5));
	assert_false(stats_overhead_at_most(1.1, 0, 0.5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stats_median_odd_even),
		cmocka_unit_test(stats_median_leaves_input),
		cmocka_unit_test(stats_summary_range),
		cmocka_unit_test(stats_ratio_to_same_cycle),
		cmocka_unit_test(stats_ratio_skips_missing_cycles),
		cmocka_unit_test(stats_targets),
	};

	return cmocka_run_group_tests_name("bench_stats", tests, NULL, NULL);
}
