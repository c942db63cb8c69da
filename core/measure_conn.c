// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection test's loop (LOOP_CONN: tcp_conn, docs/conn.md), for
 * both roles, over the transport's conn() steps (enum conn_step): each
 * transaction is a new connection, a request and its answer, and a
 * close.  The client times every step and the whole transaction with
 * the monotonic clock (one read per step), and counts a transaction only
 * when all three steps are done: one the timer cut short is neither
 * counted nor timed.  The server serves transactions until its timer or
 * the client's "test done" (core/session.c watches for it) ends the
 * window; a transaction whose client went away or stalled is counted as
 * an error and the next one served, so no client can end the test for
 * the real one.  The server never stops at -n: the client counts.
 */
#include "transports/transport.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "measure.h"
#include "measure_int.h"
#include "progress.h"

/* One transaction's sends and receives, as a ping-pong counts them. */
static void count_txn(struct lrun *lr)
{
	uint32_t m = lr->s->p.msg_size;

	lr->st.s.msgs++;
	lr->st.s.bytes += m;
	lr->st.r.msgs++;
	lr->st.r.bytes += m;
	progress_note(); /* server watchdog (progress.h) */
}

int run_conn(struct lrun *lr, char *err, size_t errlen)
{
	struct tsess *s = lr->s;
	struct conn_hist *h = s->server ? NULL : lr->conn;

	while (!fired && !s->ended &&
	       (s->server || !count_reached(lr, lr->st.s.msgs))) {
		uint64_t t[CONN_STEPS + 1];
		int k = 1;

		t[0] = h ? now_ns() : 0;
		for (int i = 0; i < CONN_STEPS && k == 1; i++) {
			k = s->tp->conn(s, (enum conn_step)i, err, errlen);
			if (h && k == 1)
				t[i + 1] = now_ns();
		}
		if (k == TP_SOFT) {
			lr->st.r.errs++; /* a client gone: serve the next */
			continue;
		}
		if (k < 0) {
			measure_stop(&lr->st);
			return -1;
		}
		if (k == 0)
			break;
		count_txn(lr);
		if (!h)
			continue;
		for (int i = 0; i < CONN_STEPS; i++)
			hist_add(&h->step[i], t[i + 1] - t[i]);
		hist_add(&h->txn, t[CONN_STEPS] - t[0]);
	}
	measure_stop(&lr->st);
	return 0;
}

void conn_summarize(const struct conn_hist *h, const struct node_stat *st,
		    uint32_t msg_size, struct conn_res *r)
{
	uint64_t ns = st->real_e > st->real_s ? st->real_e - st->real_s : 0;

	r->txns = st->s.msgs;
	r->msg_size = msg_size;
	r->rate = ns ? (double)r->txns * 1e9 / (double)ns : 0;
	for (int i = 0; i < CONN_STEPS; i++)
		hist_summary(h ? &h->step[i] : NULL, 1, &r->step[i]);
	hist_summary(h ? &h->txn : NULL, 1, &r->txn);
}
