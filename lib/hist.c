// SPDX-License-Identifier: GPL-2.0-only
/*
 * Log-linear latency histogram; see hist.h.
 *
 * Encoding (all varints unsigned LEB128, at most 10 bytes, canonical):
 *   u8 version (1) | u8 HIST_SUB_BITS (7) | count | min | max | sum |
 *   number of non-empty buckets k | k x (gap, n)
 * where bucket index = previous index + 1 + gap (the first: gap), n >= 1.
 * An empty histogram is count 0, min = max = sum = 0, k = 0.
 */
#include <string.h>

#include "hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t hist_bucket_lo(unsigned i)
{
	unsigned shift;

	if (i < HIST_SUB)
		return i;
	shift = i / HIST_SUB - 1;
	return (uint64_t)(i % HIST_SUB + HIST_SUB) << shift;
}

uint64_t hist_bucket_hi(unsigned i)
{
	unsigned shift = i < HIST_SUB ? 0 : i / HIST_SUB - 1;

	return hist_bucket_lo(i) + ((1ULL << shift) - 1);
}

void hist_merge(struct hist *to, const struct hist *from)
{
	if (!from || from->count == 0)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		to->b[i] += from->b[i];
	to->count += from->count;
	to->sum = to->sum > UINT64_MAX - from->sum ? UINT64_MAX
						   : to->sum + from->sum;
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
}

uint64_t hist_value_at(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 100)
		return h->max;
	rank = (uint64_t)((double)h->count * q / 100.0);
	if ((double)rank < (double)h->count * q / 100.0)
		rank++; /* ceil */
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo, mid;

		seen += h->b[i];
		if (seen < rank)
			continue;
		lo = hist_bucket_lo(i);
		mid = lo + (hist_bucket_hi(i) - lo) / 2;
		if (mid < h->min)
			return h->min;
		return mid > h->max ? h->max : mid;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

void hist_summary(const struct hist *h, double div, struct lat_summary *s)
{
	double k = 1e-9 / div;

	memset(s, 0, sizeof(*s));
	if (!h || h->count == 0 || !(div > 0))
		return;
	s->count = h->count;
	s->min = (double)h->min * k;
	s->max = (double)h->max * k;
	s->mean = hist_mean(h) * k;
	s->p50 = (double)hist_value_at(h, 50) * k;
	s->p90 = (double)hist_value_at(h, 90) * k;
	s->p99 = (double)hist_value_at(h, 99) * k;
	s->p999 = (double)hist_value_at(h, 99.9) * k;
	s->p9999 = (double)hist_value_at(h, 99.99) * k;
}

/* A bounded writer and reader of varints. */
struct hcur {
	uint8_t *p;
	const uint8_t *q, *end;
	bool bad;
};

static void put_varint(struct hcur *c, uint64_t v)
{
	do {
		uint8_t byte = (uint8_t)(v & 0x7f);

		v >>= 7;
		if (v)
			byte |= 0x80;
		if (c->p >= c->end) {
			c->bad = true;
			return;
		}
		*c->p++ = byte;
	} while (v);
}

static uint64_t get_varint(struct hcur *c)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10; i++) {
		uint8_t byte;

		if (c->q >= c->end)
			break;
		byte = *c->q++;
		if (i == 9 && byte > 1)
			break; /* more than 64 bits */
		v |= (uint64_t)(byte & 0x7f) << (7 * i);
		if (!(byte & 0x80)) {
			if (i > 0 && byte == 0)
				break; /* not canonical */
			return v;
		}
	}
	c->bad = true;
	return 0;
}

size_t hist_encode(const struct hist *h, uint8_t *out, size_t cap)
{
	struct hcur c = { out, NULL, out + cap, false };
	uint64_t k = 0;
	long prev = -1;

	if (cap < 2)
		return 0;
	*c.p++ = HIST_ENC_VERSION;
	*c.p++ = HIST_SUB_BITS;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		k += h->b[i] != 0;
	put_varint(&c, h->count);
	put_varint(&c, h->count ? h->min : 0);
	put_varint(&c, h->count ? h->max : 0);
	put_varint(&c, h->count ? h->sum : 0);
	put_varint(&c, h->count ? k : 0);
	for (unsigned i = 0; h->count && i < HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		put_varint(&c, (uint64_t)((long)i - prev - 1));
		put_varint(&c, h->b[i]);
		prev = (long)i;
	}
	return c.bad ? 0 : (size_t)(c.p - out);
}

/* Are sum, min, max and count consistent (sum saturates)? */
static bool sum_fits(uint64_t sum, uint64_t min, uint64_t max, uint64_t n)
{
	unsigned __int128 lo = (unsigned __int128)min * n;
	unsigned __int128 hi = (unsigned __int128)max * n;

	if (sum == UINT64_MAX)
		return hi >= sum;
	return lo <= sum && sum <= hi;
}

static int decode_body(struct hcur *c, struct hist *h)
{
	uint64_t count, min, max, sum, k, seen = 0;
	uint64_t idx = 0, first = 0;

	if (c->end - c->q < 2 || c->q[0] != HIST_ENC_VERSION ||
	    c->q[1] != HIST_SUB_BITS)
		return -1;
	c->q += 2;
	count = get_varint(c);
	min = get_varint(c);
	max = get_varint(c);
	sum = get_varint(c);
	k = get_varint(c);
	if (c->bad || k > HIST_BUCKETS)
		return -1;
	if (count == 0)
		return min || max || sum || k ? -1 : 0;
	if (k == 0 || min > max || !sum_fits(sum, min, max, count))
		return -1;
	for (uint64_t j = 0; j < k; j++) {
		uint64_t gap = get_varint(c), n = get_varint(c);

		if (c->bad || n == 0 || gap >= HIST_BUCKETS)
			return -1;
		idx = j == 0 ? gap : idx + 1 + gap;
		if (idx >= HIST_BUCKETS || n > count - seen)
			return -1;
		if (j == 0)
			first = idx;
		h->b[idx] = n;
		seen += n;
	}
	if (seen != count || hist_index(min) != first ||
	    hist_index(max) != idx)
		return -1;
	h->count = count;
	h->min = min;
	h->max = max;
	h->sum = sum;
	return 0;
}

int hist_decode(const uint8_t *in, size_t len, struct hist *h)
{
	struct hcur c = { NULL, in, in + len, false };

	hist_init(h);
	if (decode_body(&c, h) < 0 || c.q != c.end) {
		hist_init(h);
		return -1;
	}
	return 0;
}
