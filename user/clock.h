/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks: BPF stamps events with CLOCK_MONOTONIC nanoseconds. */
#ifndef IPCWATCH_CLOCK_H
#define IPCWATCH_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds, as bpf_ktime_get_ns() counts. */
uint64_t mono_ns(void);

/* Add to a monotonic timestamp for the wall clock. */
int64_t mono_to_real_ns(void);

#endif
