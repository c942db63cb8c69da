// SPDX-License-Identifier: GPL-2.0-only
/* The monotonic clock; see clock.h. */
#include <errno.h>
#include <time.h>

#include "clock.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL),
			       (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void sleep_until_ns(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ULL),
			       (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}
