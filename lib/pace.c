// SPDX-License-Identifier: GPL-2.0-only
/* The pacer; see pace.h. */
#include <math.h>
#include <string.h>

#include "pace.h"

#define NS 1000000000ULL

/* ns from the schedule's start to unit u's due time (exact: 128 bits). */
static uint64_t due_off(const struct pace *p, uint64_t u)
{
	return (uint64_t)((unsigned __int128)u * NS / p->rate);
}

void pace_init(struct pace *p, uint64_t rate, uint64_t cost, uint64_t now)
{
	memset(p, 0, sizeof(*p));
	p->rate = rate;
	p->start = now;
	p->slice_start = now;
	if (!rate)
		return;
	p->burst_ns = due_off(p, cost * PACE_BURST_MSGS);
	if (p->burst_ns < PACE_BURST_NS)
		p->burst_ns = PACE_BURST_NS;
}

uint64_t pace_wait(const struct pace *p, uint64_t now)
{
	uint64_t due;

	if (!p->rate)
		return 0;
	due = p->start + due_off(p, p->units);
	return due > now ? due - now : 0;
}

uint32_t pace_allow(struct pace *p, uint64_t cost, uint32_t max,
		    uint64_t now)
{
	uint64_t due, ahead, k;

	if (!p->rate || !max)
		return max;
	due = p->start + due_off(p, p->units);
	if (due > now)
		return 0;
	if (now - due > p->burst_ns) {
		uint64_t skip = now - due - p->burst_ns;

		p->start += skip; /* forgive what is beyond the burst */
		p->late_ns += skip;
		due += skip;
	}
	/* Messages whose first unit is due by now: the one at due, and one
	 * more for every cost units the rate allows since. */
	ahead = (uint64_t)((unsigned __int128)(now - due) * p->rate / NS);
	k = cost ? ahead / cost + 1 : max;
	return k < max ? (uint32_t)k : max;
}

static void slice(struct pace *p, uint64_t units, uint64_t now)
{
	uint64_t len;

	p->slice_units += units;
	if (now < p->slice_start + PACE_SLICE_NS)
		return;
	len = now - p->slice_start;
	/* The first slice is left out: it holds the start (a socket
	 * buffer filling, queues being primed), not the steady rate. */
	if (p->warm) {
		double r = (double)p->slice_units * 1e9 / (double)len;

		p->n++;
		p->sum += r;
		p->sumsq += r * r;
	}
	p->warm = true;
	p->slice_start = now;
	p->slice_units = 0;
}

void pace_take(struct pace *p, uint64_t cost, uint32_t k, uint64_t now)
{
	if (p->rate)
		p->units += cost * k;
	slice(p, cost * k, now);
}

void pace_note(struct pace *p, uint64_t units, uint64_t now)
{
	slice(p, units, now);
}

void pace_merge(struct pace *a, const struct pace *b)
{
	a->n += b->n;
	a->sum += b->sum;
	a->sumsq += b->sumsq;
	a->late_ns = a->late_ns > b->late_ns ? a->late_ns : b->late_ns;
}

bool pace_spread(const struct pace *p, double *cv, uint64_t *n)
{
	double mean, var;

	*n = p->n;
	*cv = 0;
	if (p->n < 2)
		return false;
	mean = p->sum / (double)p->n;
	var = (p->sumsq - p->sum * mean) / (double)(p->n - 1);
	if (mean <= 0)
		return false;
	*cv = var > 0 ? sqrt(var) / mean : 0;
	return true;
}
