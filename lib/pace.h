/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pacer: a token bucket with a bounded burst on the monotonic clock,
 * for any loop that posts messages at a given rate (--rate), and the
 * spread of the rate it achieved over fixed slices of time.
 *
 * The bucket is a schedule: unit u of the stream is due at start + u/rate
 * seconds.  A message may go once its first unit is due.  A sender that
 * is late (it could not keep up, or it was stopped) may catch up by at
 * most the burst; anything later is forgiven (the schedule moves on) and
 * counted in late_ns, so the bucket never lets out an unbounded burst.
 * Units are the caller's: bytes for a bandwidth, 1 per message for a
 * message rate.  Pure arithmetic over the times the caller passes in;
 * nothing here reads the clock, sleeps or allocates.
 */
#ifndef QPERF_LIB_PACE_H
#define QPERF_LIB_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define PACE_SLICE_NS 100000000ULL /* 100 ms: the spread's slice */
#define PACE_BURST_NS 10000000ULL /* the burst: 10 ms of the rate ... */
#define PACE_BURST_MSGS 2 /* ... and at least two messages */

struct pace {
	uint64_t rate; /* units per second; 0: not paced (pace_allow()
			* lets everything go) */
	uint64_t start; /* ns: when unit 0 of the schedule was due */
	uint64_t units; /* units taken since start */
	uint64_t burst_ns; /* how far behind the schedule may be caught up */
	uint64_t late_ns; /* schedule time forgiven: the sender fell behind */
	/* The spread: each slice of at least PACE_SLICE_NS closed by
	 * pace_take() or pace_note() but the first adds its rate (units/s)
	 * to n, sum and sumsq. */
	uint64_t slice_start, slice_units; /* ns; units in the open slice */
	bool warm; /* the first slice (left out) is over */
	uint64_t n;
	double sum, sumsq;
};

/*
 * Start a schedule of rate units/s (0: none) at now for messages of cost
 * units each (the burst is the larger of PACE_BURST_NS of the rate and
 * PACE_BURST_MSGS messages).  The spread starts at now too.
 */
void pace_init(struct pace *p, uint64_t rate, uint64_t cost, uint64_t now);

/*
 * How many messages of cost units may go now, at most max (max when not
 * paced).  0: none yet; pace_wait() says how long.  Forgives lateness
 * beyond the burst.
 */
uint32_t pace_allow(struct pace *p, uint64_t cost, uint32_t max,
		    uint64_t now);

/* ns until the next message is due (0: now). */
uint64_t pace_wait(const struct pace *p, uint64_t now);

/* k messages of cost units went at now: advance the schedule (when paced)
 * and count them in the spread's slice. */
void pace_take(struct pace *p, uint64_t cost, uint32_t k, uint64_t now);

/* Count units in the spread without a schedule (kernel-paced sockets). */
void pace_note(struct pace *p, uint64_t units, uint64_t now);

/*
 * Merge b's spread into a (streams: every stream's slices together).
 */
void pace_merge(struct pace *a, const struct pace *b);

/*
 * The spread of the slices' rates: their coefficient of variation (the
 * standard deviation over the mean, 0.05 for 5 %) into *cv and the number
 * of slices into *n.  False when there are fewer than two slices.
 */
bool pace_spread(const struct pace *p, double *cv, uint64_t *n);

#endif
