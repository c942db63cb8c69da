// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measurement loops of core/measure.c against an in-memory transport
 * (loops_mem.h): one-way bandwidth (both sides), bi-directional and
 * ping-pong loops.  test_loops_rdma.c has the one-sided, verified atomic,
 * write-poll, timer and fatal-poll tests.  The loops are checked against
 * 0.4.11's counting rules (spec §3.2-3.3).
 */
#include "lib/hist.h"
#include "loops_mem.h"

/* ---- one-way bandwidth, sending side ---- */

TEST(send_count_depth_lazy)
{
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 1000, 10);
	M->lazy = true; /* completions trickle in, one per poll */
	CHECK(prep() == 0);
	CHECK(M->credits == 0 && M->recv_posts == 0);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 10);
	CHECK(ST->s.bytes == 10000);
	CHECK(ST->s.errs == 0);
	CHECK(ST->r.msgs == 0 && ST->r.bytes == 0);
	CHECK(M->posted[OP_SEND] == 10);
	CHECK(M->post_n_max <= 4);
	CHECK(M->out_max == 4);
	CHECK(ST->real_e > ST->real_s);
}

TEST(send_count_deep)
{
	setup(LOOP_STREAM_BW, OP_WRITE_IMM, 1024, false, false, 65536, 3000);
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 3000);
	CHECK(ST->s.bytes == 3000ULL * 65536);
	CHECK(M->posted[OP_WRITE_IMM] == 3000);
	CHECK(M->posted_ops == 3000);
	CHECK(M->post_n_max == 1024);
	CHECK(M->out_max <= 1024);

	/* A count below the depth: never more posted than n. */
	setup(LOOP_STREAM_BW, OP_SEND, 1024, false, false, 8, 5);
	M->never = true;
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 5 && ST->s.bytes == 40);
	CHECK(M->posted[OP_SEND] == 5);
	CHECK(M->post_n_max == 5);
}

/* A failed datagram is an error and the test goes on (spec §3.2). */
TEST(send_soft_error_counted)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, true, 100, 10);
	M->ret_at = 3;
	M->ret_val = TP_SOFT;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.errs == 1);
	CHECK(ST->s.msgs == 9);
	CHECK(ST->s.bytes == 900);
	CHECK(M->posted[OP_SEND] == 9);

	/* Reliable, deeper: the failed one is not outstanding. */
	setup(LOOP_STREAM_BW, OP_SEND, 2, false, false, 100, 10);
	M->ret_at = 1;
	M->ret_val = TP_SOFT;
	M->lazy = true;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.errs == 1 && ST->s.msgs == 9);
	CHECK(M->posted[OP_SEND] == 9);
}

TEST(send_idle_error)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, false, 100, 10);
	M->ret_at = 2;
	M->ret_val = TP_IDLE;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data sent for 5 s: the server stalled");
	CHECK(ST->s.msgs == 1);
	CHECK(ST->real_e >= ST->real_s && ST->real_e != 0);
}

TEST(send_post_fatal)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, false, 100, 10);
	M->ret_at = 2;
	M->ret_val = TP_FATAL;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "send failed: Broken pipe");
	CHECK(ST->s.msgs == 1);
}

/* The peer closed (post returns 0 with s->ended): a clean end. */
TEST(send_peer_ended)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, false, 100, 100);
	M->ret_at = 4;
	M->ret_val = 0;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 3);
	CHECK(F.s.ended);
}

/* A reliable sender whose sends never complete: the idle error. */
TEST(send_never_completes)
{
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 3);
	M->never = true;
	CHECK(prep_run() == 0); /* all 3 posted: done by the count */
	CHECK(ST->s.msgs == 3 && M->polls == 0);
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 100);
	M->never = true;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data sent for 5 s: the server stalled");
	CHECK(ST->s.msgs == 4);
}

/* ---- one-way bandwidth, receiving side ---- */

TEST(recv_count)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 4096, 100);
	F.s.p.access_recv = 1;
	M->stream_rx = 100;
	M->rx_burst = 7;
	CHECK(prep() == 0);
	CHECK(M->credits == 16);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 100);
	CHECK(ST->r.bytes == 100ULL * 4096);
	CHECK(ST->r.errs == 0);
	CHECK(ST->s.msgs == 0);
	CHECK(M->credits_max == 16);
	CHECK(M->quiet_polls == 0);

	/* The peer sends more than n, one per poll: exactly n counted. */
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 50);
	M->stream_rx = 80;
	M->rx_burst = 1;
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 50 && ST->r.bytes == 500);
	CHECK(M->arrived == 50);
}

TEST(recv_error_completion)
{
	setup(LOOP_STREAM_BW, OP_SEND, 4, true, false, 10, 10);
	M->stream_rx = 10;
	M->rx_err_at = 4;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.errs == 1);
	CHECK(ST->r.msgs == 9);
	CHECK(ST->r.bytes == 90);
}

TEST(recv_reliable_idle)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the client stalled");
	CHECK(ST->r.msgs == 0);

	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	F.s.p.timeout = 2500 * MS;
	M->stream_rx = 3;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 2.5 s: the client stalled");
	CHECK(ST->r.msgs == 3);
}

/* A lossy count receiver ends quietly; its window ends at the last message. */
TEST(recv_lossy_quiet_window)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, true, 10, 100);
	M->stream_rx = 5;
	M->rx_burst = 1;
	M->quiet_ns = 30 * MS; /* the quiet wait is seen to take time */
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 5);
	CHECK(M->quiet_polls == 1);
	CHECK(ST->real_e >= M->t_last);
	CHECK(ST->real_e - M->t_last < 15 * MS);
	CHECK(ST->real_e > ST->real_s);
}

TEST(recv_peer_ended)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	M->stream_rx = 5;
	M->after = AFTER_ENDED;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 5);
	CHECK(F.s.ended);
}

TEST(recv_poll_fatal_after_data)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	M->stream_rx = 3;
	M->after = AFTER_FATAL;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mem_test failed: Remote access error");
	CHECK(ST->r.msgs == 3);
	CHECK(ST->real_e != 0);
}

/* ---- bi-directional ---- */

TEST(bi_counts)
{
	setup(LOOP_BI_BW, OP_SEND, 8, false, false, 100, 50);
	M->stream_rx = 50;
	M->rx_burst = 5;
	M->lazy = true;
	CHECK(prep() == 0);
	CHECK(M->credits == 8);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 50 && ST->s.bytes == 5000);
	CHECK(ST->r.msgs == 50 && ST->r.bytes == 5000);
	CHECK(M->posted[OP_SEND] == 50);
	CHECK(M->post_n_max <= 8);
	CHECK(M->out_max <= 8);
	CHECK(M->credits_max == 8);

	/* The server side, the peer sending more slowly. */
	setup(LOOP_BI_BW, OP_SEND, 8, true, false, 10, 30);
	M->stream_rx = 30;
	M->rx_burst = 1;
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 30 && ST->r.msgs == 30);
	CHECK(M->posted[OP_SEND] == 30);
}

TEST(bi_peer_ended)
{
	setup(LOOP_BI_BW, OP_SEND, 8, false, false, 10, 100);
	M->stream_rx = 20;
	M->after = AFTER_ENDED;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 20);
	CHECK(ST->s.msgs <= 100 && ST->s.msgs >= 8);
}

TEST(bi_reliable_idle)
{
	setup(LOOP_BI_BW, OP_SEND, 8, true, false, 10, 100);
	M->stream_rx = 10;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the client stalled");
	CHECK(ST->r.msgs == 10);
}

/* ---- ping-pong ---- */

TEST(pingpong_initiator_count)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, false, 1, 20);
	M->echo = true;
	CHECK(prep() == 0);
	CHECK(M->credits == 1);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 20 && ST->r.msgs == 20);
	CHECK(ST->s.bytes == 20 && ST->r.bytes == 20);
	CHECK(ST->lost == 0 && ST->r.errs == 0);
	CHECK(M->posted[OP_SEND] == 20);
	CHECK(M->stale_posts == 0);
	CHECK(M->credits_max == 1);

	/* RDMA write with immediate, a bigger message. */
	setup(LOOP_PINGPONG, OP_WRITE_IMM, 1, false, false, 64, 7);
	M->echo = true;
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 7 && ST->r.msgs == 7);
	CHECK(M->posted[OP_WRITE_IMM] == 7);
}

TEST(pingpong_responder_count)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 20);
	M->requests = 20;
	CHECK(prep() == 0);
	CHECK(M->credits == 1);
	next_request(M); /* the client's first message */
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 20 && ST->r.msgs == 20);
	CHECK(M->posted[OP_SEND] == 20);
	CHECK(M->echo_ok == 20 && M->echo_bad == 0);
	CHECK(M->quiet_polls == 0); /* done without waiting for more */
}

/* UD: messages start at buf + 40 (after the GRH) both ways, so the
 * answer carries the request's first byte, or a recovering client would
 * take every answer for a late one. */
TEST(pingpong_responder_echoes_at_rx_off)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, true, true, 8, 10);
	F.s.rx_off = 40;
	M->requests = 10;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK(ST->s.msgs == 10 && ST->r.msgs == 10);
	CHECK(M->echo_ok == 10);
	CHECK(M->echo_bad == 0);
}

TEST(pingpong_responder_idle_and_ended)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 10);
	M->requests = 3;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the client stalled");
	CHECK(ST->r.msgs == 3 && ST->s.msgs == 3);

	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 10);
	M->requests = 3;
	M->after = AFTER_ENDED;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 3 && ST->s.msgs == 3);
}

TEST(pingpong_initiator_idle)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, false, 1, 10);
	M->echo = true;
	M->drop[0] = 4; /* a reliable transport: the answer never comes */
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the server stalled");
	CHECK(ST->s.msgs == 4 && ST->r.msgs == 3);
	CHECK(ST->lost == 0);
}

TEST(pingpong_lossy_drops)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 20);
	M->echo = true;
	M->drop[0] = 3;
	M->drop[1] = 7;
	M->drop[2] = 8;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->dropped == 3);
	CHECK(ST->lost == 3);
	CHECK(ST->r.errs == 3);
	CHECK(ST->r.msgs == 17);
	CHECK(ST->s.msgs == 20);
	CHECK(M->posted[OP_SEND] == 20);
	CHECK(M->finite_waits > 0);

	/* The very first exchange lost. */
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 5);
	M->echo = true;
	M->drop[0] = 1;
	CHECK(prep_run() == 0);
	CHECK(ST->lost == 1 && ST->r.msgs == 4 && ST->s.msgs == 5);
}

/* Every completed round trip is timed into the histogram, nothing else. */
TEST(pingpong_timed)
{
	static struct hist h;

	setup(LOOP_PINGPONG, OP_SEND, 1, false, false, 1, 20);
	M->echo = true;
	hist_init(&h);
	F.lr.hist = &h;
	CHECK(prep_run() == 0);
	CHECK(h.count == 20 && h.min <= h.max && h.max > 0);
	CHECK(hist_value_at(&h, 50) >= h.min);

	/* The responder: its first message answers nothing. */
	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 20);
	M->requests = 20;
	hist_init(&h);
	F.lr.hist = &h;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK(ST->r.msgs == 20 && h.count == 19);

	/* Lost exchanges are restarted, not timed. */
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 20);
	M->echo = true;
	M->drop[0] = 3;
	M->drop[1] = 7;
	hist_init(&h);
	F.lr.hist = &h;
	CHECK(prep_run() == 0);
	CHECK(ST->lost == 2 && ST->r.msgs == 18 && h.count == 18);

	/* No histogram: nothing timed, same counts. */
	setup(LOOP_PINGPONG, OP_SEND, 1, false, false, 1, 20);
	M->echo = true;
	CHECK(prep_run() == 0 && ST->r.msgs == 20);
}

/* A 0.4.11 responder does not echo the sequence byte: no recovery, and a
 * lost message ends a lossy count run quietly. */
TEST(pingpong_lossy_legacy_peer)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 10);
	F.ch.ext = false;
	F.ch.peer_caps = 0;
	M->echo = true;
	M->drop[0] = 3;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->finite_waits == 0);
	CHECK(ST->lost == 0 && ST->r.errs == 0);
	CHECK(ST->s.msgs == 3 && ST->r.msgs == 2);
	CHECK(M->buf[0] == 0); /* no sequence byte written */
}

/* A late answer is skipped by its sequence byte, not taken as the next. */
TEST(pingpong_lossy_late_answer)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 10);
	M->echo = true;
	M->late[0] = 4;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->late_arrived == 1); /* it did arrive, after the loss wait */
	CHECK(ST->lost == 1);
	CHECK(ST->r.errs == 1);
	CHECK(ST->r.msgs == 9);
	CHECK(ST->s.msgs == 10);
	CHECK(M->stale_posts == 0); /* never two exchanges in flight */
	CHECK(M->arrived == 10);

	/* UD-like offset, two late answers in a row. */
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 8, 12);
	F.s.rx_off = 40;
	M->echo = true;
	M->late[0] = 5;
	M->late[1] = 6;
	CHECK(prep_run() == 0);
	CHECK(M->late_arrived == 2);
	CHECK(ST->lost == 2 && ST->r.errs == 2);
	CHECK(ST->r.msgs == 10 && ST->s.msgs == 12);
	CHECK(M->stale_posts == 0);
}

/* A failed send (TP_SOFT) counts an error; the exchange is retried. */
TEST(pingpong_soft_send)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 5);
	M->echo = true;
	M->ret_at = 2;
	M->ret_val = TP_SOFT;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.errs == 1);
	CHECK(ST->s.msgs == 4);
	CHECK(ST->r.msgs == 4);
	CHECK(ST->lost == 0);
	CHECK(M->posted[OP_SEND] == 4);

	/* The responder's failed answer: it waits for the next request. */
	setup(LOOP_PINGPONG, OP_SEND, 1, true, true, 1, 5);
	M->requests = 5;
	M->ret_at = 2;
	M->ret_val = TP_SOFT;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK(ST->s.errs == 1 && ST->s.msgs == 4);
	CHECK(ST->r.msgs == 5);
	CHECK(M->quiet_polls == 0);
}

int main(void)
{
	RUN(send_count_depth_lazy);
	RUN(send_count_deep);
	RUN(send_soft_error_counted);
	RUN(send_idle_error);
	RUN(send_post_fatal);
	RUN(send_peer_ended);
	RUN(send_never_completes);
	RUN(recv_count);
	RUN(recv_error_completion);
	RUN(recv_reliable_idle);
	RUN(recv_lossy_quiet_window);
	RUN(recv_peer_ended);
	RUN(recv_poll_fatal_after_data);
	RUN(bi_counts);
	RUN(bi_peer_ended);
	RUN(bi_reliable_idle);
	RUN(pingpong_initiator_count);
	RUN(pingpong_responder_count);
	RUN(pingpong_timed);
	RUN(pingpong_responder_echoes_at_rx_off);
	RUN(pingpong_responder_idle_and_ended);
	RUN(pingpong_initiator_idle);
	RUN(pingpong_lossy_drops);
	RUN(pingpong_lossy_legacy_peer);
	RUN(pingpong_lossy_late_answer);
	RUN(pingpong_soft_send);
	return harness_done();
}
