// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection-setup tests' loop (core/measure_conn.c) against a
 * scripted conn() step of three steps (tcp_conn's number) or seven
 * (rc_conn's): a client counts and times only whole transactions, stops
 * at -n and then tells the transport (conn_done(), not after a failure);
 * a server drops a transaction whose client went away (TP_SOFT) and
 * serves the next, never stops at -n, and fails on TP_FATAL;
 * conn_summarize() turns the histograms and the window into the figures,
 * with the transport's step names.
 */
#include "lib/hist.h"
#include "loops_mem.h"

/* The script: step calls so far, and what the k-th call returns. */
static struct {
	uint64_t calls;
	uint64_t soft_at, stop_at, fatal_at; /* 1-based call numbers; 0: never */
	uint64_t steps[CONN_STEPS_MAX];
	uint64_t bad_step; /* calls with a step out of range */
	uint64_t done; /* conn_done() calls */
	uint64_t calls_at_done; /* conn() calls before the first */
	int done_ret; /* what conn_done() returns */
} C;

static int script_conn(struct tsess *s, int step, char *err, size_t errlen)
{
	C.calls++;
	if (step < 0 || step >= s->tp->conn_steps->n)
		C.bad_step++;
	else
		C.steps[step]++;
	if (C.calls == C.fatal_at)
		return seterr(err, errlen, "scripted failure");
	if (C.calls == C.soft_at)
		return TP_SOFT;
	if (C.calls == C.stop_at)
		return 0;
	return 1;
}

static int script_done(struct tsess *s, char *err, size_t errlen)
{
	(void)s;
	if (!C.done++)
		C.calls_at_done = C.calls;
	return C.done_ret ? seterr(err, errlen, "scripted end failure") : 0;
}

static const struct conn_steps three = { 3, { "connect", "answer",
					      "close" } };
static const struct conn_steps seven = {
	7, { "resolve_addr", "resolve_route", "create_qp", "connect",
	     "first_msg", "disconnect", "destroy" }
};

/* The script's transport; its steps are each test's (three or seven). */
static struct transport conn_script = {
	.name = "connscript",
	.label = "CONN",
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.conn_steps = &three,
	.conn = script_conn,
	.conn_done = script_done,
};

static struct conn_hist H;

static void conn_setup_steps(const struct conn_steps *steps, bool server,
			     uint64_t n)
{
	setup(LOOP_CONN, OP_SEND, 1, server, false, 10, n);
	F.t.measure = MEAS_CONN;
	conn_script.conn_steps = steps;
	F.t.tp = F.s.tp = &conn_script;
	memset(&C, 0, sizeof(C));
	conn_hist_init(&H, steps);
	F.lr.conn = server ? NULL : &H;
}

static void conn_setup(bool server, uint64_t n)
{
	conn_setup_steps(&three, server, n);
}

TEST(client_counts_whole_transactions)
{
	conn_setup(false, 7);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 7 && ST->r.msgs == 7);
	CHECK(ST->s.bytes == 70 && ST->r.bytes == 70);
	CHECK(C.calls == 21 && C.bad_step == 0);
	for (int i = 0; i < 3; i++)
		CHECK(C.steps[i] == 7 && H.step[i].count == 7);
	CHECK(H.txn.count == 7);
	/* The steps follow each other: their sums make the transactions'. */
	CHECK(H.step[0].sum + H.step[1].sum + H.step[2].sum == H.txn.sum);
	CHECK(ST->real_e > ST->real_s);
	/* The end told once, after the last step. */
	CHECK(C.done == 1 && C.calls_at_done == 21);
}

/* Seven steps (rc_conn's number): each called in order, each timed, the
 * seven adding up to the transaction. */
TEST(client_seven_steps)
{
	uint64_t sum = 0;

	conn_setup_steps(&seven, false, 5);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 5 && C.calls == 35 && C.bad_step == 0);
	for (int i = 0; i < 7; i++) {
		CHECK(C.steps[i] == 5 && H.step[i].count == 5);
		sum += H.step[i].sum;
	}
	CHECK(C.steps[7] == 0 && H.txn.count == 5 && sum == H.txn.sum);
	CHECK(C.done == 1 && C.calls_at_done == 35);
}

/* The end's failure is the test's. */
TEST(client_done_fails)
{
	conn_setup(false, 2);
	C.done_ret = 1;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "scripted end failure");
	CHECK(ST->s.msgs == 2 && C.done == 1);
}

/* The timer in the close step: that transaction is neither counted nor
 * timed. */
TEST(client_cut_transaction_not_counted)
{
	conn_setup(false, 100);
	C.stop_at = 3 * 4 + 3; /* the fifth transaction's close */
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 4 && H.txn.count == 4);
	CHECK(H.step[0].count == 4 && H.step[2].count == 4);
	CHECK(C.calls == 15);
	CHECK(C.done == 1 && C.calls_at_done == 15);
}

TEST(client_failure_is_fatal)
{
	conn_setup(false, 100);
	C.fatal_at = 5;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "scripted failure");
	CHECK(ST->s.msgs == 1);
	CHECK(C.done == 0); /* nothing told after a failure */
}

/* A vanished client's transaction is an error; the next is served; -n
 * does not end the server (the client's "test done" does). */
TEST(server_drops_and_goes_on)
{
	conn_setup(true, 2);
	C.soft_at = 5; /* the second transaction's answer */
	C.stop_at = 5 + 3 * 4 + 1; /* four more, then the timer at an open */
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.errs == 1);
	CHECK(ST->s.msgs == 5 && ST->r.msgs == 5);
	CHECK(C.steps[0] == 7 && C.steps[1] == 6);
	CHECK(C.done == 0); /* the client's alone */
}

TEST(server_fatal)
{
	conn_setup(true, 0);
	C.fatal_at = 1;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "scripted failure");
	CHECK(ST->s.msgs == 0 && ST->real_e > 0);
}

TEST(summarize)
{
	struct node_stat st;
	struct conn_res r;

	conn_hist_init(&H, &three);
	for (uint64_t k = 1; k <= 100; k++) {
		hist_add(&H.step[0], 1000 * k);
		hist_add(&H.step[1], 10);
		hist_add(&H.step[2], 20);
		hist_add(&H.txn, 1000 * k + 30);
	}
	memset(&st, 0, sizeof(st));
	st.s.msgs = 100;
	st.real_s = 5 * NS_PER_SEC;
	st.real_e = 7 * NS_PER_SEC;
	conn_summarize(&H, &st, 64, &three, &r);
	CHECK(r.txns == 100 && r.msg_size == 64 && r.steps == &three);
	CHECK(!strcmp(r.steps->name[2], "close"));
	CHECK(r.rate > 49.999 && r.rate < 50.001);
	CHECK(r.step[0].count == 100 && r.txn.count == 100);
	CHECK(r.step[1].p50 > 9.9e-9 && r.step[1].p50 < 10.1e-9);
	CHECK(r.step[0].p50 <= r.step[0].p90 && r.step[0].p90 <= r.step[0].p99 &&
	      r.step[0].p99 <= r.step[0].max);
	CHECK(r.step[0].max > 99.9e-6 && r.step[0].max < 100.1e-6);
	CHECK(r.txn.mean > r.step[0].mean);
	/* No histograms (not timed) and no window: zeros, no division. */
	memset(&st, 0, sizeof(st));
	conn_summarize(NULL, &st, 1, &three, &r);
	CHECK(r.rate == 0 && r.txns == 0 && r.step[2].count == 0);
	/* Seven steps, no message (rc_qp_setup's kind): every step
	 * summarized, msg_size 0 (JSON then has no msg_size_B). */
	conn_hist_init(&H, &seven);
	for (int i = 0; i < 7; i++)
		hist_add(&H.step[i], 1000 * (uint64_t)(i + 1));
	hist_add(&H.txn, 28000);
	st.s.msgs = 1;
	st.real_s = 1;
	st.real_e = 1 + NS_PER_SEC;
	conn_summarize(&H, &st, 0, &seven, &r);
	CHECK(r.msg_size == 0 && r.steps->n == 7 && r.txns == 1);
	CHECK(r.step[6].count == 1 && r.step[6].p50 > 6.9e-6 &&
	      r.step[6].p50 < 7.1e-6);
	CHECK(r.rate > 0.999 && r.rate < 1.001);
}

int main(void)
{
	RUN(client_counts_whole_transactions);
	RUN(client_seven_steps);
	RUN(client_done_fails);
	RUN(client_cut_transaction_not_counted);
	RUN(client_failure_is_fatal);
	RUN(server_drops_and_goes_on);
	RUN(server_fatal);
	RUN(summarize);
	return harness_done();
}
