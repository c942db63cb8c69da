/* SPDX-License-Identifier: GPL-2.0-only */
/* The monotonic clock, in nanoseconds, and a sleep that survives signals. */
#ifndef QPERF_LIB_CLOCK_H
#define QPERF_LIB_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds.  Does not block. */
uint64_t now_ns(void);

/* Sleep for ns nanoseconds, resuming after signals. */
void sleep_ns(uint64_t ns);

/* Sleep until now_ns() reaches t (at once if it has), resuming after
 * signals. */
void sleep_until_ns(uint64_t t);

#endif
