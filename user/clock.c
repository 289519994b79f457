// SPDX-License-Identifier: GPL-2.0
#include "clock.h"

#include <time.h>

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int64_t mono_to_real_ns(void)
{
	struct timespec real;

	clock_gettime(CLOCK_REALTIME, &real);
	return (int64_t)real.tv_sec * 1000000000LL + real.tv_nsec -
	       (int64_t)mono_ns();
}
