/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interval reports (-I, --interval): while a bandwidth test runs, each
 * side cuts its counters into intervals of a fixed length and hands one
 * record per interval to a sink: the client prints its own (and, later,
 * writes JSON), a server sends them to a 0.5 client over the control
 * connection, which prints them as the receiver's figures.
 *
 * Memory is bounded whatever the run length: a record is handed on and
 * forgotten; the client holds at most IVAL_PENDING of the server's records
 * that arrived before its own record of the same interval.  A server's
 * records are bounded too (a hostile server could send them forever): at
 * most the test's intervals plus IVAL_SLACK (a count test: the intervals
 * so far), none ending past the test's time plus its timeout, and the
 * done block within that time after the client's loop; beyond that the
 * client fails the test with one error.
 *
 * Timing: intervals are counted from the start of this side's measured
 * window (node_stat.real_s).  The loops call ival_check() once per
 * iteration; a record is cut when the loop notices that its end is due,
 * so a record covers the times that really passed (a stalled loop gives
 * one longer interval, never a wrong rate).  In a timed test no interval
 * ends at or after the test time: the final record, cut when the loop
 * ends, covers the rest of the window (a shorter one when the test time
 * is not a multiple of the interval, the whole window when the interval
 * is longer than the test).
 *
 * Wire (0.5 peers, docs/protocol.md): the request carries REQX_INTERVAL_NS;
 * a server with CAP_INTERVAL then sends, on the control connection, one
 * TLV block per record during the test and, after its loop, a block with
 * the IVX_DONE item, before STAT.  The client reads records without
 * blocking at each of its own interval ends and the rest after its loop.
 */
#ifndef QPERF_INTERVAL_H
#define QPERF_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/types.h"
#include "lib/clock.h"

#define IVAL_MIN (NS_PER_SEC / 10) /* shortest -I: 0.1 s */
#define IVAL_PENDING 8 /* server records held for ordering */
#define IVAL_BLOCK_MAX 128 /* bytes of one record block */
#define IVAL_SLACK 8 /* server records beyond the test's intervals */

struct ctl;
struct test_desc;

/* The figures of one interval of one side: struct ival_rec, lib/types.h. */

/*
 * Where records go.  emit returns 0, or -1 with err filled (a server that
 * cannot send); after a failure no more records are emitted and
 * ival_finish() returns the error.
 */
struct ival_sink {
	int (*emit)(void *arg, const struct ival_rec *r, char *err,
		    size_t errlen);
	void *arg;
};

/* One side's interval state; ival_init() fills it. */
struct ival {
	uint64_t period; /* ns */
	uint64_t time; /* ns, the test's time; 0: a count test */
	uint64_t base; /* monotonic ns: the window's start; 0 until known */
	uint64_t next; /* monotonic ns: when the current interval ends */
	uint64_t prev; /* monotonic ns: where it began */
	struct ustat ps, pr; /* counters at prev */
	uint32_t index;
	struct ival_sink out;
	bool server; /* send the IVX_DONE block at the end */
	struct ctl *c; /* server: where to send it; client: peer's records */
	bool peer; /* client: the server sends its records */
	bool peer_done; /* client: the server's end block has come */
	uint32_t npeer; /* client: the server's records so far */
	struct ival_rec pend[IVAL_PENDING];
	int npend;
	bool failed;
	char err[256];
};

/*
 * Does test t report intervals?  Bandwidth tests whose side runs a loop
 * with counters (stream, bidirectional, RDMA read); the idle server of
 * RDMA read does not.
 */
bool ival_applies(const struct test_desc *t, bool server);

/*
 * Prepare iv for one side: period and test time in ns, records to out.
 * server: send the end block on c after the final record.  A client that
 * expects the server's records passes peer = true and its control
 * connection c (records are then emitted through out too, peer set).
 */
void ival_init(struct ival *iv, uint64_t period, uint64_t time,
	       struct ival_sink out, bool server, bool peer, struct ctl *c);

/* Cut the interval that ended (loops call ival_check()).  Does not block
 * except for a server's send of one small block. */
void ival_tick(struct ival *iv, const struct node_stat *st);

/* Called by the loops once per iteration; cheap when nothing is due. */
static inline void ival_check(struct ival *iv, const struct node_stat *st)
{
	if (iv && now_ns() >= iv->next)
		ival_tick(iv, st);
}

/*
 * After the loop (st's window closed): emit the final record; a server
 * then sends the end block, a client reads the server's remaining records
 * up to it (each read bounded by the control timeout).  Returns 0, or -1
 * with err filled.
 */
int ival_finish(struct ival *iv, const struct node_stat *st, char *err,
		size_t errlen);

/* A server's sink: send r as one TLV block on the ctl in arg. */
int ival_send(void *arg, const struct ival_rec *r, char *err,
	      size_t errlen);

/*
 * Codec of one record block (pure).  encode returns the size (0 if cap is
 * too small); done encodes the end block instead (r unused).  decode
 * returns 1 for a record, 0 for the end block, -1 if malformed.
 */
size_t ival_encode(const struct ival_rec *r, bool done, uint8_t *out,
		   size_t cap);
int ival_decode(const uint8_t *in, size_t len, struct ival_rec *r);

/* Their text: ival_format(), output/report.h; cluster mode's lowest
 * interval: output/capture.h. */

#endif
