// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open-loop latency's pure parts (lib/olsched.c): the schedule (constant
 * and Poisson arrivals), the sequence bytes a request carries and how an
 * answer's bytes find their request, --arrivals' names; and the request
 * item that carries the arrivals (core/ctl.c REQX_ARRIVALS).
 */
#include <math.h>
#include <string.h>

#include "core/ctl.h"
#include "lib/olsched.h"
#include "harness.h"

#define MS 1000000ULL

TEST(constant_schedule)
{
	struct ol_sched s;
	uint64_t t0 = 7 * NS_PER_SEC;

	ol_sched_init(&s, OL_CONSTANT, 2000, t0, 1);
	CHECK(ol_sched_next(&s) == t0);
	CHECK(ol_sched_next(&s) == t0 + MS / 2);
	CHECK(ol_sched_next(&s) == t0 + MS);
	/* No drift: request 2,000,000 is due exactly 1000 s later. */
	ol_sched_init(&s, OL_CONSTANT, 3, t0, 1);
	for (int i = 0; i < 3; i++)
		ol_sched_next(&s);
	CHECK(ol_sched_next(&s) == t0 + NS_PER_SEC);
	s.n = 3000000;
	CHECK(ol_sched_next(&s) == t0 + 1000000 * NS_PER_SEC);
	CHECK(ol_interval(2000) == MS / 2);
	CHECK(ol_interval(0) == NS_PER_SEC);
}

TEST(poisson_schedule)
{
	struct ol_sched s;
	uint64_t t0 = NS_PER_SEC, prev, t, n = 200000;
	double sum = 0, sumsq = 0, mean, sd;

	ol_sched_init(&s, OL_POISSON, 1000, t0, 42);
	CHECK(ol_sched_next(&s) == t0); /* the first at the start */
	prev = t0;
	for (uint64_t i = 0; i < n; i++) {
		double g;

		t = ol_sched_next(&s);
		CHECK(t >= prev);
		g = (double)(t - prev);
		sum += g;
		sumsq += g * g;
		prev = t;
	}
	/* Exponential gaps of mean 1 ms: mean and deviation both 1 ms
	 * (within 1%: 200,000 samples give a standard error of 0.2%). */
	mean = sum / (double)n;
	sd = sqrt(sumsq / (double)n - mean * mean);
	CHECK(fabs(mean - 1e6) < 1e4, "mean %.0f ns", mean);
	CHECK(fabs(sd - 1e6) < 2e4, "sd %.0f ns", sd);
}

TEST(sequence_bytes)
{
	unsigned char b[8] = { 0 };

	CHECK(ol_seq_bytes(0) == 0 && ol_seq_bytes(1) == 1);
	CHECK(ol_seq_bytes(8) == 8 && ol_seq_bytes(65536) == 8);
	CHECK(ol_window(0) == 1 && ol_window(1) == 256);
	CHECK(ol_window(2) == 65536 && ol_window(8) == OL_WINDOW_MAX);
	ol_seq_put(b, 2, 0x1234);
	CHECK(b[0] == 0x34 && b[1] == 0x12 && b[2] == 0);
	/* One byte: the first sequence at or after the oldest outstanding. */
	ol_seq_put(b, 1, 300);
	CHECK(b[0] == 300 % 256);
	CHECK(ol_seq_get(b, 1, 290) == 300);
	CHECK(ol_seq_get(b, 1, 44) == 44); /* 256 apart: beyond a window of 256 */
	CHECK(ol_seq_get(b, 1, 45) == 300);
	CHECK(ol_seq_get(b, 1, 300) == 300);
	CHECK(ol_seq_get(b, 1, 301) == 556); /* a newer one with those bits */
	/* Eight bytes: the sequence itself. */
	ol_seq_put(b, 8, 0x0102030405060708ULL);
	CHECK(ol_seq_get(b, 8, 5) == 0x0102030405060708ULL);
	/* No bytes (empty messages): the oldest. */
	CHECK(ol_seq_get(b, 0, 77) == 77);
}

TEST(arrivals_names)
{
	CHECK(ol_arrivals_parse("constant") == OL_CONSTANT);
	CHECK(ol_arrivals_parse("poisson") == OL_POISSON);
	CHECK(ol_arrivals_parse("bogus") == -1);
	CHECK(ol_arrivals_parse("") == -1);
	CHECK_STR(ol_arrivals_name(OL_CONSTANT), "constant");
	CHECK_STR(ol_arrivals_name(OL_POISSON), "poisson");
	CHECK(ol_arrivals_name(OL_CLOSED) == NULL);
}

/* REQX_ARRIVALS: carried only when set, 1 or 2; anything else makes
 * the request malformed. */
TEST(request_item)
{
	struct req q, d;
	uint8_t blk[1024];
	size_t n, n0;

	memset(&q, 0, sizeof(q));
	q.time_ns = 2 * NS_PER_SEC;
	q.timeout_ns = 5 * NS_PER_SEC;
	q.gid_index = -1;
	q.msg_rate = 2000;
	n0 = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(n0 > 0);
	memset(&d, 0, sizeof(d));
	CHECK(ext_req_decode(blk, n0, &d) == 0);
	CHECK(d.arrivals == 0 && d.msg_rate == 2000);
	q.arrivals = OL_POISSON;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(n == n0 + 8); /* one u32 item: 4 bytes of header */
	memset(&d, 0, sizeof(d));
	CHECK(ext_req_decode(blk, n, &d) == 0);
	CHECK(d.arrivals == OL_POISSON);
	q.arrivals = 3;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(ext_req_decode(blk, n, &d) < 0);
}

int main(void)
{
	RUN(constant_schedule);
	RUN(poisson_schedule);
	RUN(sequence_bytes);
	RUN(arrivals_names);
	RUN(request_item);
	return harness_done();
}
