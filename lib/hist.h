/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A log-linear latency histogram in fixed memory (HDR-style): values are
 * unsigned 64-bit nanoseconds; 0..255 ns have a bucket each, and every
 * power of two above is split into HIST_SUB equal buckets, so a bucket is
 * never wider than 1/128 of its lowest value.  A value read back is its
 * bucket's midpoint, clamped to the exact min and max: relative error at
 * most 1/256 (0.4 %), whatever the run length, over the whole uint64_t
 * range (584 years).  Memory: HIST_BUCKETS counters (58 KiB), allocated
 * once per test, never grown.
 *
 * The wire encoding (hist_encode) is sparse: only non-empty buckets, as
 * (index gap, count) varint pairs after a small header, so a typical run
 * costs a few hundred bytes.  Pure functions: no I/O, no allocation.
 */
#ifndef QPERF_HIST_H
#define QPERF_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/types.h"

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS) /* buckets per power of two */
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB) /* 7424 */
#define HIST_ENC_VERSION 1
/* Largest encoding: 2 header bytes, 5 varints, a 2-byte gap and a count
 * per bucket. */
#define HIST_ENC_MAX (2 + 5 * 10 + HIST_BUCKETS * (2 + 10))

struct hist {
	uint64_t count; /* values added */
	uint64_t min, max; /* ns; min is UINT64_MAX while empty */
	uint64_t sum; /* ns, saturates at UINT64_MAX */
	uint64_t b[HIST_BUCKETS]; /* counts per bucket */
};

/* Empty h. */
void hist_init(struct hist *h);

/* The bucket of value v (ns).  Pure. */
static inline unsigned hist_index(uint64_t v)
{
	unsigned m, shift;

	if (v < HIST_SUB)
		return (unsigned)v;
	m = 63u - (unsigned)__builtin_clzll(v);
	shift = m - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (unsigned)(v >> shift) - HIST_SUB;
}

/* Add one value v (ns).  O(1), no allocation. */
static inline void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	h->sum = h->sum > UINT64_MAX - v ? UINT64_MAX : h->sum + v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* The lowest and highest value of bucket i (< HIST_BUCKETS). */
uint64_t hist_bucket_lo(unsigned i);
uint64_t hist_bucket_hi(unsigned i);

/* Add every value of from to to. */
void hist_merge(struct hist *to, const struct hist *from);

/*
 * The value at percentile q (0..100): the smallest bucket value such that
 * at least q % of the values are at or below it (its midpoint, clamped to
 * min..max); q <= 0 gives min, q >= 100 max.  0 if h is empty.
 */
uint64_t hist_value_at(const struct hist *h, double q);

/* Mean in ns (0 if empty). */
double hist_mean(const struct hist *h);

/*
 * Summary in seconds, every value divided by div (2: half the round trip
 * of a ping-pong).  count 0 (all zero) if h is NULL or empty.
 */
void hist_summary(const struct hist *h, double div, struct lat_summary *s);

/*
 * Encode h into out (cap bytes; HIST_ENC_MAX always suffices).  Returns
 * the size, or 0 if it does not fit.
 */
size_t hist_encode(const struct hist *h, uint8_t *out, size_t cap);

/*
 * Decode exactly len bytes into h.  Returns 0, or -1 if they are not a
 * well-formed encoding (bad version, bucket out of range, counts that do
 * not add up, min/max outside their buckets, trailing bytes); h is then
 * empty.
 */
int hist_decode(const uint8_t *in, size_t len, struct hist *h);

#endif
