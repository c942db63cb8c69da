/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the bare loops of bench/ (regmr_bare.c, conn_bare.c) share: the
 * monotonic clock in ns and the comparison their medians sort with.
 * Header-only: each is one C file built by its script.
 */
#ifndef QPERF_BENCH_BARE_H
#define QPERF_BENCH_BARE_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
