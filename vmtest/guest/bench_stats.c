// SPDX-License-Identifier: GPL-2.0
#include "bench_stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_median(const double *v, int n)
{
	double *sorted, m;

	if (n <= 0)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return 0;
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	return m;
}

void stats_range(const double *v, int n, double *min, double *max)
{
	int i;

	*min = *max = n > 0 ? v[0] : 0;
	for (i = 1; i < n; i++) {
		if (v[i] < *min)
			*min = v[i];
		if (v[i] > *max)
			*max = v[i];
	}
}

struct stats_summary stats_summarize(const double *v, int n)
{
	struct stats_summary s = { .n = n > 0 ? n : 0 };

	s.median = stats_median(v, n);
	stats_range(v, n, &s.min, &s.max);
	return s;
}

double stats_ratio(double value, double baseline)
{
	return baseline > 0 ? value / baseline : 0;
}

struct stats_summary stats_ratios(const double *value, const double *baseline,
				  int cycles)
{
	double r[cycles > 0 ? cycles : 1];
	int i, n = 0;

	for (i = 0; i < cycles; i++)
		if (value[i] > 0 && baseline[i] > 0)
			r[n++] = stats_ratio(value[i], baseline[i]);
	return stats_summarize(r, n);
}

double stats_overhead_pct(double ratio)
{
	return (ratio - 1) * 100;
}

/* ratios are quotients of measured times: 1.02 is 2.0000000000000018% */
#define STATS_EPSILON 1e-9

bool stats_within_pct(double ratio, double pct_max)
{
	return ratio > 0 && stats_overhead_pct(ratio) <= pct_max + STATS_EPSILON;
}

bool stats_overhead_at_most(double ratio, double peer_ratio, double fraction)
{
	double own = ratio - 1, peer = peer_ratio - 1;

	if (ratio <= 0 || peer_ratio <= 0)
		return false;
	if (peer <= 0)
		return own <= STATS_EPSILON;
	return own <= fraction * peer + STATS_EPSILON;
}
