// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of lib/hist.c: exact bucket boundaries, merging, the 1 %
 * error bound, percentiles of known distributions, the wire encoding and
 * the rejection of malformed encodings.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/hist.h"
#include "harness.h"

static struct hist *mk(void)
{
	struct hist *h = malloc(sizeof(*h));

	if (!h)
		abort();
	hist_init(h);
	return h;
}

/* A small deterministic generator (xorshift64*). */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

TEST(bucket_boundaries)
{
	/* Exact region: one value per bucket up to 255. */
	for (uint64_t v = 0; v < 256; v++) {
		CHECK(hist_index(v) == v);
		CHECK(hist_bucket_lo((unsigned)v) == v);
		CHECK(hist_bucket_hi((unsigned)v) == v);
	}
	/* 256..511: width 2; 512..1023: width 4. */
	CHECK(hist_index(256) == 256 && hist_index(257) == 256);
	CHECK(hist_index(258) == 257);
	CHECK(hist_bucket_lo(256) == 256 && hist_bucket_hi(256) == 257);
	CHECK(hist_index(511) == 383);
	CHECK(hist_index(512) == 384 && hist_index(515) == 384);
	CHECK(hist_index(516) == 385);
	CHECK(hist_bucket_lo(384) == 512 && hist_bucket_hi(384) == 515);
	/* The top bucket ends at the largest uint64_t. */
	CHECK(hist_index(UINT64_MAX) == HIST_BUCKETS - 1);
	CHECK(hist_bucket_hi(HIST_BUCKETS - 1) == UINT64_MAX);
	CHECK(hist_bucket_lo(HIST_BUCKETS - 1) == 255ULL << 56);
	/* Buckets tile the line: each starts right after the previous. */
	for (unsigned i = 1; i < HIST_BUCKETS; i++) {
		CHECK(hist_bucket_lo(i) == hist_bucket_hi(i - 1) + 1);
		CHECK(hist_index(hist_bucket_lo(i)) == i);
		CHECK(hist_index(hist_bucket_hi(i)) == i);
	}
	/* Fixed memory, whatever the run length. */
	CHECK(sizeof(struct hist) < 64 * 1024);
}

TEST(width_bound)
{
	/* No bucket is wider than 1/128 of its lowest value. */
	for (unsigned i = HIST_SUB; i < HIST_BUCKETS; i++) {
		uint64_t lo = hist_bucket_lo(i), w = hist_bucket_hi(i) - lo + 1;

		CHECK(w <= lo / 128 + (lo < 256));
	}
}

TEST(error_bound)
{
	struct hist *h = mk();

	/* One value at a time: every percentile within 1 % (0.4 % here). */
	for (int k = 0; k < 200000; k++) {
		uint64_t v = (rng() >> (rng() % 62)) + 2;
		uint64_t got;

		hist_init(h);
		hist_add(h, v);
		hist_add(h, v / 2 + 1);
		hist_add(h, v); /* p50 and p99 are v */
		got = hist_value_at(h, 99);
		CHECK(fabs((double)got - (double)v) <= (double)v / 256 + 0.5);
		got = hist_value_at(h, 50);
		CHECK(fabs((double)got - (double)v) <= (double)v / 256 + 0.5);
	}
	/* Midpoints over a whole range stay within 1/256. */
	for (uint64_t v = 1; v < 10000000; v = v * 1001 / 1000 + 1) {
		uint64_t lo = hist_bucket_lo(hist_index(v));
		uint64_t mid = lo + (hist_bucket_hi(hist_index(v)) - lo) / 2;

		CHECK(fabs((double)mid - (double)v) <= (double)v / 256);
	}
	free(h);
}

TEST(min_max_mean_count)
{
	struct hist *h = mk();
	struct lat_summary s;

	CHECK(hist_value_at(h, 50) == 0 && hist_mean(h) == 0);
	hist_summary(h, 1, &s);
	CHECK(s.count == 0 && s.p50 == 0 && s.max == 0);
	hist_add(h, 1000);
	hist_add(h, 2000);
	hist_add(h, 6000);
	CHECK(h->count == 3 && h->min == 1000 && h->max == 6000);
	CHECK(hist_mean(h) == 3000);
	CHECK(hist_value_at(h, 0) == 1000 && hist_value_at(h, 100) == 6000);
	hist_summary(h, 2, &s); /* half the round trip, seconds */
	CHECK(s.count == 3);
	CHECK(fabs(s.min - 500e-9) < 1e-15 && fabs(s.max - 3000e-9) < 1e-15);
	CHECK(fabs(s.mean - 1500e-9) < 1e-15);
	free(h);
}

TEST(percentiles_uniform)
{
	struct hist *h = mk();

	/* 1..100000 ns, each once: pN is N % of 100000 within 0.4 %. */
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(h, v);
	static const double q[] = { 50, 90, 99, 99.9, 99.99 };
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		double want = q[i] * 1000, got = (double)hist_value_at(h, q[i]);

		CHECK(fabs(got - want) <= want / 256 + 1);
	}
	CHECK(hist_value_at(h, 100) == 100000 && hist_value_at(h, 0) == 1);
	CHECK(hist_value_at(h, 0.001) == 1);
	free(h);
}

TEST(percentiles_bimodal)
{
	struct hist *h = mk();

	/* 98 % at 10 us, 2 % delayed to 1 ms: p50 and p90 at 10 us, p99 at
	 * 1 ms (the max, exact): the shape the softverbs delay test looks
	 * for.  10 us is in bucket 9984..10047, read back as its midpoint. */
	for (int i = 0; i < 10000; i++)
		hist_add(h, i % 50 == 0 ? 1000000 : 10000);
	CHECK(hist_value_at(h, 50) == 10015);
	CHECK(hist_value_at(h, 90) == 10015);
	CHECK(hist_value_at(h, 98) == 10015);
	CHECK(hist_value_at(h, 99) == 1000000);
	CHECK(hist_value_at(h, 99.99) == 1000000);
	/* Every value equal: the midpoint is clamped to the exact max. */
	hist_init(h);
	hist_add(h, 10000);
	hist_add(h, 10000);
	CHECK(hist_value_at(h, 50) == 10000);
	free(h);
}

TEST(percentiles_exponential)
{
	struct hist *h = mk();
	const double mean = 20000; /* ns */
	int n = 200000;

	/* Exponential: pq = -mean ln(1 - q); sampling noise about 1 %. */
	for (int i = 0; i < n; i++) {
		double u = ((double)(rng() >> 11) + 0.5) / 9007199254740992.0;

		hist_add(h, (uint64_t)(-mean * log(u)));
	}
	CHECK(fabs(hist_mean(h) - mean) < mean * 0.02);
	CHECK(fabs((double)hist_value_at(h, 50) - mean * log(2)) <
	      mean * log(2) * 0.02);
	CHECK(fabs((double)hist_value_at(h, 99) - mean * log(100)) <
	      mean * log(100) * 0.03);
	free(h);
}

TEST(merge)
{
	struct hist *a = mk(), *b = mk(), *all = mk();

	for (uint64_t v = 1; v <= 5000; v++) {
		hist_add(v % 3 ? a : b, v * 37);
		hist_add(all, v * 37);
	}
	hist_merge(a, b);
	CHECK(a->count == all->count && a->min == all->min &&
	      a->max == all->max && a->sum == all->sum);
	CHECK(memcmp(a->b, all->b, sizeof(a->b)) == 0);
	CHECK(hist_value_at(a, 99) == hist_value_at(all, 99));
	/* Merging an empty one or NULL changes nothing. */
	hist_init(b);
	hist_merge(a, b);
	hist_merge(a, NULL);
	CHECK(a->count == 5000 && a->min == 37);
	/* Into an empty one: a copy. */
	hist_merge(b, all);
	CHECK(b->min == 37 && b->max == 5000 * 37 && b->count == 5000);
	free(a);
	free(b);
	free(all);
}

TEST(sum_saturates)
{
	struct hist *h = mk();

	hist_add(h, UINT64_MAX - 5);
	hist_add(h, 100);
	CHECK(h->sum == UINT64_MAX && h->count == 2);
	free(h);
}

static void roundtrip(const struct hist *h)
{
	static uint8_t buf[HIST_ENC_MAX];
	struct hist *d = mk();
	size_t n = hist_encode(h, buf, sizeof(buf));

	CHECK(n > 0);
	CHECK(hist_decode(buf, n, d) == 0);
	CHECK(d->count == h->count && d->sum == h->sum);
	if (h->count)
		CHECK(d->min == h->min && d->max == h->max);
	CHECK(memcmp(d->b, h->b, sizeof(d->b)) == 0);
	/* Too small a buffer: 0, never an overrun. */
	CHECK(hist_encode(h, buf, n - 1) == 0);
	free(d);
}

TEST(encode_roundtrip)
{
	struct hist *h = mk();
	static uint8_t buf[HIST_ENC_MAX];
	size_t n;

	roundtrip(h); /* empty */
	n = hist_encode(h, buf, sizeof(buf));
	CHECK(n == 7); /* version, bits, five zero varints */
	hist_add(h, 0);
	roundtrip(h);
	for (int i = 0; i < 100000; i++)
		hist_add(h, 5000 + rng() % 20000);
	hist_add(h, 3600ULL * NS_PER_SEC); /* an hour */
	roundtrip(h);
	/* Compact: a few hundred buckets, a few bytes each. */
	n = hist_encode(h, buf, sizeof(buf));
	CHECK(n < 2048);
	/* Worst case: every bucket, huge counts: HIST_ENC_MAX suffices. */
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		h->b[i] = UINT64_MAX / HIST_BUCKETS;
	h->count = UINT64_MAX / HIST_BUCKETS * HIST_BUCKETS;
	h->min = 0;
	h->max = UINT64_MAX;
	h->sum = UINT64_MAX;
	roundtrip(h);
	free(h);
}

/* Encode a small histogram, let f damage it, expect decode to refuse. */
static void reject(void (*f)(uint8_t *b, size_t *n))
{
	struct hist *h = mk();
	uint8_t buf[256];
	size_t n;

	hist_add(h, 300);
	hist_add(h, 300);
	hist_add(h, 70000);
	n = hist_encode(h, buf, sizeof(buf) - 16);
	CHECK(n > 0);
	f(buf, &n);
	CHECK(hist_decode(buf, n, h) == -1);
	CHECK(h->count == 0 && h->min == UINT64_MAX);
	free(h);
}

/* The encoding of {300, 300, 70000} starts 01 07 | 03 (count) | ac 02
 * (min 300) | ...: the offsets below are from that layout. */
static void bad_version(uint8_t *b, size_t *n)
{
	(void)n;
	b[0] = 2;
}
static void bad_bits(uint8_t *b, size_t *n)
{
	(void)n;
	b[1] = 6;
}
static void truncated(uint8_t *b, size_t *n)
{
	(void)b;
	*n -= 1;
}
static void trailing(uint8_t *b, size_t *n)
{
	b[(*n)++] = 0;
}
static void count_off(uint8_t *b, size_t *n)
{
	(void)n;
	b[2] = 4; /* count 4, buckets add up to 3 */
}
static void min_wrong(uint8_t *b, size_t *n)
{
	(void)n;
	b[3] = 0xae; /* min 302: not in the first bucket (300..301) */
}
static void overlong(uint8_t *b, size_t *n)
{
	/* count as 83 00: a non-canonical varint */
	memmove(b + 4, b + 3, *n - 3);
	b[2] = 0x83;
	b[3] = 0x00;
	(*n)++;
}
static void empty_input(uint8_t *b, size_t *n)
{
	(void)b;
	*n = 0;
}

TEST(decode_rejects)
{
	reject(bad_version);
	reject(bad_bits);
	reject(truncated);
	reject(trailing);
	reject(count_off);
	reject(min_wrong);
	reject(overlong);
	reject(empty_input);
}

TEST(decode_rejects_ranges)
{
	struct hist *h = mk();
	/* Empty with a stray bucket count. */
	static const uint8_t e1[] = { 1, 7, 0, 0, 0, 0, 1 };
	/* Bucket index past the end (gap 7424 = 0x80 0x3a). */
	static const uint8_t e2[] = { 1, 7, 1, 5, 5, 5, 1, 0x80, 0x3a, 1 };
	/* A zero count. */
	static const uint8_t e3[] = { 1, 7, 1, 5, 5, 5, 1, 5, 0 };
	/* min > max. */
	static const uint8_t e4[] = { 1, 7, 1, 6, 5, 5, 1, 5, 1 };
	/* sum below min * count. */
	static const uint8_t e5[] = { 1, 7, 2, 5, 5, 9, 1, 5, 2 };
	/* An 11-byte varint. */
	static const uint8_t e6[] = { 1,    7,    0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	/* The good one these are made from: {5, 5}. */
	static const uint8_t ok[] = { 1, 7, 2, 5, 5, 10, 1, 5, 2 };

	CHECK(hist_decode(e1, sizeof(e1), h) == -1);
	CHECK(hist_decode(e2, sizeof(e2), h) == -1);
	CHECK(hist_decode(e3, sizeof(e3), h) == -1);
	CHECK(hist_decode(e4, sizeof(e4), h) == -1);
	CHECK(hist_decode(e5, sizeof(e5), h) == -1);
	CHECK(hist_decode(e6, sizeof(e6), h) == -1);
	CHECK(hist_decode(ok, sizeof(ok), h) == 0);
	CHECK(h->count == 2 && h->b[5] == 2 && hist_value_at(h, 50) == 5);
	free(h);
}

int main(void)
{
	RUN(bucket_boundaries);
	RUN(width_bound);
	RUN(error_bound);
	RUN(min_max_mean_count);
	RUN(percentiles_uniform);
	RUN(percentiles_bimodal);
	RUN(percentiles_exponential);
	RUN(merge);
	RUN(sum_saturates);
	RUN(encode_roundtrip);
	RUN(decode_rejects);
	RUN(decode_rejects_ranges);
	return harness_done();
}
