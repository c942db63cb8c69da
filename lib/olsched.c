// SPDX-License-Identifier: GPL-2.0-only
/* Open-loop latency's schedule and sequence numbers; see olsched.h. */
#include <math.h>
#include <string.h>

#include "lib/olsched.h"
#include "lib/types.h"

const char *ol_arrivals_name(unsigned a)
{
	return a == OL_CONSTANT ? "constant" : a == OL_POISSON ? "poisson"
							       : NULL;
}

int ol_arrivals_parse(const char *v)
{
	if (strcmp(v, "constant") == 0)
		return OL_CONSTANT;
	if (strcmp(v, "poisson") == 0)
		return OL_POISSON;
	return -1;
}

void ol_sched_init(struct ol_sched *s, enum ol_arrivals kind, uint64_t rate,
		   uint64_t start, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->rate = rate ? rate : 1;
	s->start = start;
	s->due = start;
	s->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t ol_interval(uint64_t rate)
{
	return NS_PER_SEC / (rate ? rate : 1);
}

/* A uniform double in (0, 1]: xorshift64*, its top 53 bits. */
static double uniform(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return ((double)((*x * 0x2545f4914f6cdd1dULL) >> 11) + 1.0) /
	       9007199254740992.0;
}

uint64_t ol_sched_next(struct ol_sched *s)
{
	uint64_t t;

	if (s->kind == OL_POISSON) {
		/* Request 0 at start, then exponential gaps. */
		if (s->n)
			s->due += (uint64_t)(-log(uniform(&s->rng)) *
					     (double)NS_PER_SEC /
					     (double)s->rate);
		t = s->due;
	} else {
		/* From start each time: no rounding drift. */
		t = s->start + (uint64_t)((unsigned __int128)s->n *
					  NS_PER_SEC / s->rate);
		s->due = t;
	}
	s->n++;
	return t;
}

unsigned ol_seq_bytes(uint32_t msg_size)
{
	return msg_size < 8 ? msg_size : 8;
}

uint32_t ol_window(unsigned nbytes)
{
	if (nbytes == 0)
		return 1;
	if (nbytes >= 3)
		return OL_WINDOW_MAX;
	return 1u << (8 * nbytes);
}

void ol_seq_put(void *buf, unsigned nbytes, uint64_t seq)
{
	unsigned char *b = buf;

	for (unsigned i = 0; i < nbytes && i < 8; i++)
		b[i] = (unsigned char)(seq >> (8 * i));
}

uint64_t ol_seq_get(const void *buf, unsigned nbytes, uint64_t oldest)
{
	const unsigned char *b = buf;
	uint64_t low = 0, mask;

	if (nbytes == 0)
		return oldest;
	for (unsigned i = 0; i < nbytes && i < 8; i++)
		low |= (uint64_t)b[i] << (8 * i);
	if (nbytes >= 8)
		return low;
	mask = (1ULL << (8 * nbytes)) - 1;
	return oldest + ((low - oldest) & mask);
}
