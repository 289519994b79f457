/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of the benchmarks (vmtest/guest/bench.c): medians,
 * spreads and ratios to a baseline, and the verdicts of issue 14's
 * targets. Plain C with no guest dependency, so the host's unit tests
 * check it (tests/unit/test_bench_stats.c).
 */
#ifndef IPCWATCH_BENCH_STATS_H
#define IPCWATCH_BENCH_STATS_H

#include <stdbool.h>

/* The median of @n values (the mean of the middle two when n is even); 0 if n is 0. */
double stats_median(const double *v, int n);

/* The smallest and the largest of @n values (0 and 0 if n is 0). */
void stats_range(const double *v, int n, double *min, double *max);

/* A set of values summed up: its median and range. */
struct stats_summary {
	int n;
	double median, min, max;
};

struct stats_summary stats_summarize(const double *v, int n);

/*
 * A configuration's cost against the baseline of the same cycle:
 * value / baseline (1.0 = the same cost); 0 when the baseline is not
 * positive (no ratio can be taken).
 */
double stats_ratio(double value, double baseline);

/*
 * The ratios of cycle i (value[i] / baseline[i]) summed up: the
 * median ratio and its range over the cycles. A cycle without a
 * positive baseline or value is left out.
 */
struct stats_summary stats_ratios(const double *value, const double *baseline,
				  int cycles);

/* Overhead in percent of a ratio: (ratio - 1) * 100. */
double stats_overhead_pct(double ratio);

/* Target: tracing overhead within @pct_max percent of the baseline. */
bool stats_within_pct(double ratio, double pct_max);

/*
 * Target: the overhead of @ratio at most @fraction of @peer_ratio's
 * (fentry at most half of bpftrace kfunc's: fraction 0.5). A peer with
 * no overhead cannot be beaten by a ratio above 1.
 */
bool stats_overhead_at_most(double ratio, double peer_ratio, double fraction);

#endif
