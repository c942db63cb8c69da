// SPDX-License-Identifier: GPL-2.0-only
/*
 * The open-loop latency loop (core/openloop.c) over the in-memory
 * transport of loops_mem.h: the initiator sends on the schedule, times
 * every answer from its intended send time, finds wrapped sequence bytes,
 * counts lost (lossy transport) and out-of-order answers; the responder
 * answers every message.
 */
#include "lib/hist.h"
#include "lib/olsched.h"
#include "loops_mem.h"

static struct hist H;

/* An open-loop latency test of n requests at rate/s, msg_size bytes. */
static void setup_open(bool server, bool lossy, uint32_t msg_size,
		       uint64_t n, uint64_t rate)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, server, lossy, msg_size, n);
	F.t.measure = MEAS_LATENCY;
	F.t.uses = PAR_BIT(PAR_RATE) | PAR_BIT(PAR_MSG_RATE);
	F.s.p.msg_rate = rate;
	F.s.p.arrivals = OL_CONSTANT;
	hist_init(&H);
	F.lr.hist = &H;
	M->quiet_ns = 20000; /* a quiet finite wait sleeps, as a socket's */
	M->rx_burst = 1; /* one receive per poll, as a socket's */
}

TEST(initiator_count)
{
	uint64_t t0;

	setup_open(false, false, 1, 50, 20000);
	M->echo = true;
	CHECK(loop_open(&F.t, &F.s.p));
	t0 = now_ns();
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(F.lr.ol.sent == 50 && F.lr.ol.answered == 50);
	CHECK(F.lr.ol.lost == 0 && F.lr.ol.out_of_order == 0);
	CHECK(F.lr.ol.rate == 20000 && F.lr.ol.arrivals == OL_CONSTANT);
	CHECK(ST->s.msgs == 50 && ST->r.msgs == 50);
	CHECK(H.count == 50);
	/* On the schedule: the 50th is due 49 intervals after the first. */
	CHECK(now_ns() - t0 >= 49 * ol_interval(20000));
	CHECK(M->finite_waits > 0); /* it waited for the next to be due */
	/* Without arrivals (no --rate): the closed loop. */
	setup_open(false, false, 1, 5, 20000);
	F.s.p.arrivals = OL_CLOSED;
	CHECK(!loop_open(&F.t, &F.s.p));
}

/* One sequence byte: 600 requests wrap it twice, every answer found. */
TEST(initiator_sequence_wraps)
{
	setup_open(false, false, 1, 600, 200000);
	M->echo = true;
	CHECK(prep_run() == 0);
	CHECK(F.lr.ol.sent == 600 && F.lr.ol.answered == 600);
	CHECK(F.lr.ol.lost == 0 && F.lr.ol.out_of_order == 0);
	CHECK(H.count == 600);
}

/* A lossy transport: unanswered requests are written off as lost. */
TEST(initiator_lossy_drops)
{
	setup_open(false, true, 1, 20, 20000);
	M->echo = true;
	M->drop[0] = 3;
	M->drop[1] = 7;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->dropped == 2);
	CHECK(F.lr.ol.sent == 20 && F.lr.ol.answered == 18);
	CHECK(F.lr.ol.lost == 2);
	CHECK(H.count == 18);
}

/* An answer held back until after later ones: out of order, still
 * timed (from its intended time, so it is the slowest). */
TEST(initiator_out_of_order)
{
	/* All ten due at once: sent back to back before any answer. */
	setup_open(false, false, 1, 10, 10000000);
	M->echo = true;
	M->late[0] = 2;
	CHECK(prep_run() == 0);
	CHECK(F.lr.ol.answered == 10 && F.lr.ol.lost == 0);
	CHECK(F.lr.ol.out_of_order == 1);
	CHECK(M->late_arrived == 1);
}

/* The responder answers each message, echoing it. */
TEST(responder_answers_each)
{
	setup_open(true, false, 8, 0, 20000);
	M->requests = 20;
	M->after = AFTER_ENDED; /* then the client closes */
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 20 && ST->s.msgs == 20);
	CHECK(M->echo_ok == 20 && M->echo_bad == 0);
	CHECK(H.count == 0); /* the client times; the responder does not */
}

/* Over a transport whose receives have slots (verbs): n slots, the
 * test's p.slots as the core sets it, s->slots as open() would. */
static void use_slots(bool lossy, uint32_t n)
{
	F.t.tp = lossy ? &mem_slotted_lossy : &mem_slotted;
	F.s.tp = F.t.tp;
	F.s.p.slots = loop_open_slots(&F.t, &F.s.p);
	M->slots = n;
	F.s.slots = n;
}

/* Each answer's sequence is read from its own receive slot (a read of
 * the one message buffer would find none), the window is the slots, and
 * every receive stays posted, none beyond the slots. */
TEST(initiator_slots)
{
	setup_open(false, false, 1, 300, 10000000);
	M->echo = true;
	M->rx_burst = 0; /* many receives per poll, as verbs */
	use_slots(false, 8);
	CHECK(F.s.p.slots == 256); /* what 1 sequence byte tells apart */
	CHECK(prep() == 0);
	CHECK(M->credits == 8); /* all posted before the test */
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(F.lr.ol.sent == 300 && F.lr.ol.answered == 300);
	CHECK(F.lr.ol.lost == 0 && F.lr.ol.out_of_order == 0);
	CHECK(H.count == 300);
	CHECK(M->slot_over == 0 && M->credits_max == 8);
	CHECK(M->recv_posts > 1); /* posted again as read */
}

/* Lossy, over slots: lost answers leave no receive behind. */
TEST(initiator_slots_lossy)
{
	setup_open(false, true, 1, 40, 20000);
	M->echo = true;
	M->drop[0] = 3;
	M->drop[1] = 17;
	use_slots(true, 4);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(F.lr.ol.sent == 40 && F.lr.ol.answered == 38);
	CHECK(F.lr.ol.lost == 2);
	CHECK(M->slot_over == 0);
}

/* A loss stalls the full window for the loss wait; what is then sent
 * late, in a burst, is answered at once and must not be written off:
 * the loss wait runs from when a request left, not from when it was due
 * (all ten are due at once here, 500 ms before the burst). */
TEST(initiator_loss_stall_burst)
{
	setup_open(false, true, 1, 10, 10000000);
	M->echo = true;
	M->drop[0] = 1;
	use_slots(true, 2);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(F.lr.ol.sent == 10 && F.lr.ol.answered == 9);
	CHECK(F.lr.ol.lost == 1);
	CHECK(H.count == 9);
}

/* Answers carrying sequence numbers never sent (a garbled peer) over a
 * lossy transport with slots: ignored, their requests written off as
 * lost, the rest timed.  (Reliable, a garbled answer holds the window
 * until the idle limit or the timer ends the test.) */
TEST(initiator_garbage_answers)
{
	setup_open(false, true, 1, 30, 20000);
	M->echo = true;
	M->garble[0] = 4;
	M->garble[1] = 11;
	use_slots(true, 8);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(F.lr.ol.sent == 30 && F.lr.ol.answered == 28);
	CHECK(F.lr.ol.lost == 2);
	CHECK(H.count == 28);
	CHECK(M->slot_over == 0);
}

/* The responder keeps its slots posted and answers each request with
 * its sequence, copied from the request's slot to the answer's. */
TEST(responder_slots)
{
	setup_open(true, false, 8, 0, 20000);
	M->requests = 20;
	M->after = AFTER_ENDED;
	use_slots(false, 4);
	CHECK(prep() == 0);
	CHECK(M->credits == 4);
	next_request(M);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 20 && ST->s.msgs == 20);
	CHECK(M->echo_ok == 20 && M->echo_bad == 0);
	CHECK(M->slot_over == 0);
}

int main(void)
{
	RUN(initiator_count);
	RUN(initiator_sequence_wraps);
	RUN(initiator_lossy_drops);
	RUN(initiator_out_of_order);
	RUN(responder_answers_each);
	RUN(initiator_slots);
	RUN(initiator_slots_lossy);
	RUN(initiator_loss_stall_burst);
	RUN(initiator_garbage_answers);
	RUN(responder_slots);
	return harness_done();
}
