/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Open-loop latency (--rate on a latency test): the send schedule and the
 * sequence numbers requests carry.  Request i is due at its intended
 * time, start + i/rate seconds (constant arrivals) or after exponential
 * gaps of mean 1/rate (Poisson arrivals); its latency is measured from
 * that time, never from when it could actually be sent.  A request
 * carries the low-order bytes of its 64-bit sequence number (as many as
 * fit in the message, at most 8, little-endian) in its first bytes; the
 * responder echoes the message, and the initiator finds the request from
 * the bytes and the oldest request still outstanding.
 * Pure arithmetic over the values given: no clock, no allocation.
 */
#ifndef QPERF_LIB_OLSCHED_H
#define QPERF_LIB_OLSCHED_H

#include <stddef.h>
#include <stdint.h>

/* How requests arrive (--arrivals; on the wire in REQX_ARRIVALS). */
enum ol_arrivals {
	OL_CLOSED = 0, /* no --rate: closed-loop ping-pong */
	OL_CONSTANT = 1, /* a fixed interval of 1/rate */
	OL_POISSON = 2 /* exponential gaps of mean 1/rate */
};

/* Requests outstanding at most (fewer when the sequence bytes that fit
 * in a message cannot tell more apart). */
#define OL_WINDOW_MAX 65536u

struct ol_sched {
	enum ol_arrivals kind;
	uint64_t rate; /* requests/s, at least 1 */
	uint64_t start; /* ns: when request 0 is due */
	uint64_t n; /* requests scheduled so far */
	uint64_t due; /* ns: when request n - 1 is due (Poisson: running) */
	uint64_t rng; /* xorshift64* state, never 0 */
};

/* "constant", "poisson" (NULL for anything else). */
const char *ol_arrivals_name(unsigned a);

/* The arrivals named v: OL_CONSTANT or OL_POISSON, or -1. */
int ol_arrivals_parse(const char *v);

/* A schedule of rate requests/s (0 is taken as 1) from start (ns); seed
 * picks the Poisson gaps (any value). */
void ol_sched_init(struct ol_sched *s, enum ol_arrivals kind, uint64_t rate,
		   uint64_t start, uint64_t seed);

/* The intended time (ns) of the next request; advances the schedule. */
uint64_t ol_sched_next(struct ol_sched *s);

/* The mean interval in ns (1/rate). */
uint64_t ol_interval(uint64_t rate);

/* Sequence bytes a message of msg_size bytes carries: 0..8. */
unsigned ol_seq_bytes(uint32_t msg_size);

/* Requests that may be outstanding with nbytes sequence bytes (1..8). */
uint32_t ol_window(unsigned nbytes);

/* Write the low nbytes of seq into buf (little-endian). */
void ol_seq_put(void *buf, unsigned nbytes, uint64_t seq);

/*
 * The sequence number whose low nbytes bytes are at buf: the first one at
 * or after oldest (the oldest request still outstanding) with those bytes.
 */
uint64_t ol_seq_get(const void *buf, unsigned nbytes, uint64_t oldest);

#endif
