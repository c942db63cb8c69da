// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measurement loops of core/measure.c against an in-memory transport
 * (loops_mem.h): one-sided reads and atomics, verified atomics, RDMA
 * write with memory polling, the timer, and a poll's TP_FATAL from every
 * loop.  test_loops.c has the send, receive, bi-directional and ping-pong
 * tests.  The loops are checked against 0.4.11's counting rules (spec
 * §3.2-3.3).
 */
#include "lib/hist.h"
#include "loops_mem.h"
#include "lib/alloc.h"

static uint64_t window(void)
{
	return ST->real_e - ST->real_s;
}

/* ---- one-sided: reads and atomics ---- */

TEST(onesided_read)
{
	setup(LOOP_ONESIDED, OP_READ, 16, false, false, 4096, 100);
	F.s.p.access_recv = 1;
	M->lazy = true;
	CHECK(prep() == 0);
	CHECK(M->recv_posts == 0);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 100 && ST->r.bytes == 409600);
	CHECK(ST->rem_s.msgs == 100 && ST->rem_s.bytes == 409600);
	CHECK(ST->s.msgs == 0 && ST->rem_r.msgs == 0);
	CHECK(M->posted[OP_READ] == 100);
	CHECK(M->out_max == 16);
	CHECK(M->completed == 100); /* the count waits for all of them */

	setup(LOOP_ONESIDED, OP_READ, 1, false, false, 1, 10);
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 10 && ST->rem_s.bytes == 10);
	CHECK(M->out_max == 1);
}

/* RDMA read latency (depth 1): each read timed; bandwidth: none. */
TEST(onesided_read_timed)
{
	static struct hist h;

	setup(LOOP_ONESIDED, OP_READ, 1, false, false, 1, 10);
	hist_init(&h);
	F.lr.hist = &h;
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 10 && h.count == 10);
	setup(LOOP_ONESIDED, OP_READ, 16, false, false, 64, 100);
	hist_init(&h);
	F.lr.hist = &h;
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 100 && h.count == 0);
}

TEST(onesided_atomics)
{
	setup(LOOP_ONESIDED, OP_FADD, 1024, false, false, 0, 50);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->rem_r.msgs == 50 && ST->rem_r.bytes == 400);
	CHECK(ST->r.msgs == 0 && ST->r.bytes == 0);
	/* each one posted is 8 bytes sent, as 0.4.11 counts it: its -v
	 * report shows send_cost and send/recv_cpus_used (srmode) */
	CHECK(ST->s.msgs == 50 && ST->s.bytes == 400);
	CHECK(ST->rem_s.msgs == 0);
	CHECK(M->posted[OP_FADD] == 50);

	setup(LOOP_ONESIDED, OP_CSWAP, 4, false, false, 0, 2000);
	M->lazy = true;
	CHECK(prep_run() == 0);
	CHECK(ST->rem_r.msgs == 2000 && ST->rem_r.bytes == 16000);
	CHECK(ST->s.msgs == 2000 && ST->s.bytes == 16000);
	CHECK(M->posted[OP_CSWAP] == 2000);
	CHECK(M->out_max == 4);
}

/* 0.4.11 records max_cqe in its bandwidth and atomic loops only: a
 * latency test's (here a read, one outstanding) ends with none. */
TEST(max_cqe_latency_none)
{
	setup(LOOP_ONESIDED, OP_READ, 16, false, false, 64, 100);
	CHECK(prep_run() == 0);
	CHECK(F.s.max_cqes > 0);
	setup(LOOP_ONESIDED, OP_FADD, 16, false, false, 0, 100);
	CHECK(prep_run() == 0);
	CHECK(F.s.max_cqes > 0);
	setup(LOOP_ONESIDED, OP_READ, 1, false, false, 1, 10);
	F.t.measure = MEAS_LATENCY;
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 10);
	CHECK(F.s.max_cqes == 0);
}

TEST(onesided_reliable_idle)
{
	setup(LOOP_ONESIDED, OP_READ, 16, false, false, 64, 100);
	M->never = true;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the server stalled");
	CHECK(ST->r.msgs == 0);
}

static int stub_wait_peer(void *arg, char *err, size_t errlen)
{
	int *mode = arg;

	F.peer_waits++;
	if (*mode)
		return seterr(err, errlen, "the client went away during the test");
	return 0;
}

TEST(onesided_server_idles)
{
	int mode = 0;
	enum loop_kind loops[] = { LOOP_ONESIDED, LOOP_ATOMIC_VER };

	for (int i = 0; i < 2; i++) {
		setup(loops[i], OP_READ, 1024, true, false, 65536, 100);
		F.lr.wait_peer = stub_wait_peer;
		F.lr.wait_arg = &mode;
		mode = 0;
		CHECK(loop_idle_side(F.s.t, F.s.server));
		CHECK(prep_run() == 0);
		CHECK(F.peer_waits == 1);
		CHECK(M->calls == 0);
		CHECK(ST->r.msgs == 0 && ST->s.msgs == 0);
		CHECK(ST->real_e > ST->real_s);
		mode = 1;
		CHECK(run() == -1);
		CHECK_STR(F.err, "the client went away during the test");
		CHECK(F.peer_waits == 2);
	}
	F.s.server = false;
	CHECK(!loop_idle_side(F.s.t, F.s.server));
}

/* ---- verified atomics ---- */

TEST(ver_fetch_add_ok)
{
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 64, 3000);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->rem_r.msgs == 3000 && ST->rem_r.bytes == 24000);
	CHECK(ST->s.msgs == 3000 && ST->s.bytes == 24000);
	CHECK(ST->r.msgs == 0);
	CHECK(M->posted[OP_FADD] == 3000);
	CHECK(M->word == 3000);
	CHECK(M->out_max == 8); /* 64 / 8 slots */

	/* Fewer than the slots. */
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 64, 3);
	CHECK(prep_run() == 0);
	CHECK(ST->rem_r.msgs == 3 && M->posted[OP_FADD] == 3);
	CHECK(M->word == 3);
}

TEST(ver_compare_swap_ok)
{
	setup(LOOP_ATOMIC_VER, OP_CSWAP, 1024, false, false, 65536, 5000);
	M->lazy = true;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->rem_r.msgs == 5000 && ST->rem_r.bytes == 40000);
	CHECK(ST->s.msgs == 5000 && ST->s.bytes == 40000);
	CHECK(M->posted[OP_CSWAP] == 5000);
	CHECK(M->word == VER_M + 4999);
	CHECK(M->out_max == 1024); /* min(65536 / 8, depth) */
}

TEST(ver_fetch_add_mismatch)
{
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 64, 100);
	M->corrupt_at = 6; /* sequence 5 finds 6 */
	M->corrupt_by = 1;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mismatch, sequence 6, expected 5, got 6");
	CHECK(ST->rem_r.msgs == 5);
}

TEST(ver_compare_swap_mismatch)
{
	setup(LOOP_ATOMIC_VER, OP_CSWAP, 1024, false, false, 16, 100);
	M->corrupt_at = 4; /* sequence 3 */
	M->corrupt_by = 0x10;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mismatch, sequence 4, expected 123456789abcdf1, "
			 "got 123456789abce01");
	CHECK(ST->rem_r.msgs == 3);

	/* The very first one: expected 0. */
	setup(LOOP_ATOMIC_VER, OP_CSWAP, 1024, false, false, 8, 100);
	M->corrupt_at = 1;
	M->corrupt_by = 0xabc;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mismatch, sequence 1, expected 0, got abc");
	CHECK(ST->rem_r.msgs == 0);
}

TEST(ver_message_too_small)
{
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 7, 100);
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "message size must be at least 8");
	CHECK(M->calls == 0);
	CHECK(ST->rem_r.msgs == 0);
}

/* ---- RDMA write, memory polling ---- */

TEST(write_poll_client)
{
	uint32_t sizes[] = { 64, 1 };

	for (int i = 0; i < 2; i++) {
		uint32_t sz = sizes[i];

		setup(LOOP_WRITE_POLL, OP_WRITE, 1024, false, false, sz, 5);
		M->wp_left = 5;
		CHECK(prep() == 0);
		CHECK((unsigned char)M->buf[0] == ID_CLIENT);
		CHECK((unsigned char)M->buf[sz - 1] == ID_CLIENT);
		CHECK(run() == 0);
		CHECK_STR(F.err, "");
		CHECK(ST->s.msgs == 5 && ST->s.bytes == 5ULL * sz);
		CHECK(ST->r.msgs == 5 && ST->r.bytes == 5ULL * sz);
		CHECK(M->posted[OP_WRITE] == 5);
		CHECK(M->wp_bad == 0);
		CHECK((unsigned char)M->buf[0] == ID_CLIENT);
		CHECK((unsigned char)M->buf[sz - 1] == ID_CLIENT);
	}
}

TEST(write_poll_server)
{
	setup(LOOP_WRITE_POLL, OP_WRITE, 1024, true, false, 64, 5);
	M->wp_left = 5;
	CHECK(prep() == 0);
	CHECK((unsigned char)M->buf[0] == ID_SERVER);
	CHECK((unsigned char)M->buf[63] == ID_SERVER);
	/* The client's first write lands. */
	memset(M->buf, ID_CLIENT, 64);
	M->wp_left--;
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 5 && ST->r.msgs == 5);
	CHECK(ST->s.bytes == 320 && ST->r.bytes == 320);
	CHECK(M->posted[OP_WRITE] == 5);
	CHECK(M->wp_bad == 0);
}

TEST(write_poll_stalled_peer)
{
	setup(LOOP_WRITE_POLL, OP_WRITE, 1024, false, false, 16, 5);
	F.s.p.timeout = 20 * MS;
	M->wp_left = 2;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 0.02 s: the server stalled");
	CHECK(ST->s.msgs == 3 && ST->r.msgs == 2);
	CHECK(window() >= 20 * MS);
}

TEST(write_poll_empty_message)
{
	setup(LOOP_WRITE_POLL, OP_WRITE, 1024, false, false, 0, 5);
	CHECK(prep() == -1);
	CHECK_STR(F.err, "message size must be at least 1");
}

/* ---- the timer ---- */

static bool timer_idle(void)
{
	struct itimerval it;

	getitimer(ITIMER_REAL, &it);
	return it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0 &&
	       it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0;
}

TEST(time_mode_send)
{
	measure_init();
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 0);
	F.s.p.time = 50 * MS;
	M->max_calls = UINT64_MAX;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(measure_finished());
	CHECK(timer_fired);
	CHECK(window() >= 50 * MS);
	CHECK(window() < 1000 * MS);
	CHECK(ST->s.msgs > 0);
	CHECK(ST->s.bytes == ST->s.msgs * 100);
	CHECK(timer_idle());

	/* A second test in the same process starts with the timer unfired. */
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 0);
	F.s.p.time = 20 * MS;
	M->max_calls = UINT64_MAX;
	CHECK(prep_run() == 0);
	CHECK(window() >= 20 * MS && window() < 1000 * MS);
	CHECK(ST->s.msgs > 0);
	CHECK(timer_idle());
}

/* A quiet peer in a timed test is no idle error: the timer ends it. */
TEST(time_mode_recv_quiet)
{
	measure_init();
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 0);
	F.s.p.time = 50 * MS;
	M->max_calls = UINT64_MAX;
	M->stream_rx = 10;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 10);
	CHECK(window() >= 50 * MS && window() < 1000 * MS);
	CHECK(M->quiet_polls > 0);
	CHECK(timer_idle());
}

/* ---- a poll's TP_FATAL propagates from every loop ---- */

TEST(poll_fatal_everywhere)
{
	struct {
		enum loop_kind loop;
		enum op op;
		bool server;
		uint32_t msg;
	} cases[] = {
		{ LOOP_STREAM_BW, OP_SEND, false, 100 },
		{ LOOP_STREAM_BW, OP_SEND, true, 100 },
		{ LOOP_BI_BW, OP_SEND, false, 100 },
		{ LOOP_PINGPONG, OP_SEND, false, 1 },
		{ LOOP_PINGPONG, OP_SEND, true, 1 },
		{ LOOP_ONESIDED, OP_READ, false, 100 },
		{ LOOP_ONESIDED, OP_FADD, false, 0 },
		{ LOOP_ATOMIC_VER, OP_CSWAP, false, 64 },
		{ LOOP_WRITE_POLL, OP_WRITE, false, 8 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		setup(cases[i].loop, cases[i].op, 8, cases[i].server, false,
		      cases[i].msg, 100);
		M->poll_fatal_at = 1;
		M->stream_rx = 100;
		M->echo = !cases[i].server;
		M->requests = cases[i].server ? 100 : 0;
		M->wp_left = 100;
		if (prep() != 0) {
			CHECK(!"prep failed");
			continue;
		}
		if (M->requests)
			next_request(M);
		CHECK(run() == -1);
		if (strcmp(F.err, "mem_test failed: Retries exceeded") != 0)
			fprintf(stderr, "    case %zu: \"%s\"\n", i, F.err);
		CHECK_STR(F.err, "mem_test failed: Retries exceeded");
		CHECK(M->polls == 1);
		CHECK(ST->real_e != 0);
	}
}

int main(void)
{
	RUN(onesided_read);
	RUN(onesided_read_timed);
	RUN(onesided_atomics);
	RUN(max_cqe_latency_none);
	RUN(onesided_reliable_idle);
	RUN(onesided_server_idles);
	RUN(ver_fetch_add_ok);
	RUN(ver_compare_swap_ok);
	RUN(ver_fetch_add_mismatch);
	RUN(ver_compare_swap_mismatch);
	RUN(ver_message_too_small);
	RUN(write_poll_client);
	RUN(write_poll_server);
	RUN(write_poll_stalled_peer);
	RUN(write_poll_empty_message);
	RUN(time_mode_send);
	RUN(time_mode_recv_quiet);
	RUN(poll_fatal_everywhere);
	return harness_done();
}
