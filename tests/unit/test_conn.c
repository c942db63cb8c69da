// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection test's loop (core/measure_conn.c) against a scripted
 * conn() step: a client counts and times only whole transactions and
 * stops at -n; a server drops a transaction whose client went away
 * (TP_SOFT) and serves the next, never stops at -n, and fails on
 * TP_FATAL; conn_summarize() turns the histograms and the window into
 * the figures.
 */
#include "lib/hist.h"
#include "loops_mem.h"

/* The script: step calls so far, and what the k-th call returns. */
static struct {
	uint64_t calls;
	uint64_t soft_at, stop_at, fatal_at; /* 1-based call numbers; 0: never */
	uint64_t steps[CONN_STEPS];
} C;

static int script_conn(struct tsess *s, enum conn_step step, char *err,
		       size_t errlen)
{
	(void)s;
	C.calls++;
	C.steps[step]++;
	if (C.calls == C.fatal_at)
		return seterr(err, errlen, "scripted failure");
	if (C.calls == C.soft_at)
		return TP_SOFT;
	if (C.calls == C.stop_at)
		return 0;
	return 1;
}

static const struct transport conn_script = {
	.name = "connscript",
	.label = "CONN",
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.conn = script_conn,
};

static struct conn_hist H;

static void conn_setup(bool server, uint64_t n)
{
	setup(LOOP_CONN, OP_SEND, 1, server, false, 10, n);
	F.t.measure = MEAS_CONN;
	F.t.tp = F.s.tp = &conn_script;
	memset(&C, 0, sizeof(C));
	for (int i = 0; i < CONN_STEPS; i++)
		hist_init(&H.step[i]);
	hist_init(&H.txn);
	F.lr.conn = server ? NULL : &H;
}

TEST(client_counts_whole_transactions)
{
	conn_setup(false, 7);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 7 && ST->r.msgs == 7);
	CHECK(ST->s.bytes == 70 && ST->r.bytes == 70);
	CHECK(C.calls == 21);
	for (int i = 0; i < CONN_STEPS; i++)
		CHECK(C.steps[i] == 7 && H.step[i].count == 7);
	CHECK(H.txn.count == 7);
	/* The steps follow each other: their sums make the transactions'. */
	CHECK(H.step[0].sum + H.step[1].sum + H.step[2].sum == H.txn.sum);
	CHECK(ST->real_e > ST->real_s);
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
}

TEST(client_failure_is_fatal)
{
	conn_setup(false, 100);
	C.fatal_at = 5;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "scripted failure");
	CHECK(ST->s.msgs == 1);
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
	CHECK(C.steps[CONN_OPEN] == 7 && C.steps[CONN_ANSWER] == 6);
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

	for (int i = 0; i < CONN_STEPS; i++)
		hist_init(&H.step[i]);
	hist_init(&H.txn);
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
	conn_summarize(&H, &st, 64, &r);
	CHECK(r.txns == 100 && r.msg_size == 64);
	CHECK(r.rate > 49.999 && r.rate < 50.001);
	CHECK(r.step[0].count == 100 && r.txn.count == 100);
	CHECK(r.step[1].p50 > 9.9e-9 && r.step[1].p50 < 10.1e-9);
	CHECK(r.step[0].p50 <= r.step[0].p90 && r.step[0].p90 <= r.step[0].p99 &&
	      r.step[0].p99 <= r.step[0].max);
	CHECK(r.step[0].max > 99.9e-6 && r.step[0].max < 100.1e-6);
	CHECK(r.txn.mean > r.step[0].mean);
	/* No histograms (not timed) and no window: zeros, no division. */
	memset(&st, 0, sizeof(st));
	conn_summarize(NULL, &st, 1, &r);
	CHECK(r.rate == 0 && r.txns == 0 && r.step[2].count == 0);
}

int main(void)
{
	RUN(client_counts_whole_transactions);
	RUN(client_cut_transaction_not_counted);
	RUN(client_failure_is_fatal);
	RUN(server_drops_and_goes_on);
	RUN(server_fatal);
	RUN(summarize);
	return harness_done();
}
