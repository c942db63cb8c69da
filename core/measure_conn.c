// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection-setup tests' loop (LOOP_CONN: tcp_conn, rc_conn,
 * rc_qp_setup; docs/conn.md), for both roles, over the transport's conn()
 * steps (its conn_steps names them): each transaction runs every step
 * once, in order.  The client times every step and the whole transaction
 * with the monotonic clock (one read per step, none lost between them,
 * so the steps add up to the transaction), and counts a transaction only
 * when all its steps are done: one the timer cut short is neither
 * counted nor timed.  The server serves transactions until its timer,
 * the client's "test done" (core/session.c watches for it) or, for steps
 * on the control connection (TF_CTL_STEPS), the end conn() reads there
 * ends the window; a transaction whose client went away or stalled is
 * counted as an error and the next one served, so no client can end the
 * test for the real one.  The server never stops at -n: the client
 * counts.
 *
 * The loop knows one transaction at a time; what a transaction holds
 * lives in the transport's session.  (A storm of concurrent setups would
 * give conn() a slot and run each step across the slots: docs/conn.md.)
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
	int n = s->tp->conn_steps->n;

	while (!fired && !s->ended &&
	       (s->server || !count_reached(lr, lr->st.s.msgs))) {
		uint64_t t[CONN_STEPS_MAX + 1];
		int k = 1;

		t[0] = h ? now_ns() : 0;
		for (int i = 0; i < n && k == 1; i++) {
			k = s->tp->conn(s, i, err, errlen);
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
		for (int i = 0; i < n; i++)
			hist_add(&h->step[i], t[i + 1] - t[i]);
		hist_add(&h->txn, t[n] - t[0]);
	}
	measure_stop(&lr->st);
	if (!s->server && s->tp->conn_done)
		return s->tp->conn_done(s, err, errlen);
	return 0;
}

void conn_hist_init(struct conn_hist *h, const struct conn_steps *steps)
{
	for (int i = 0; i < steps->n; i++)
		hist_init(&h->step[i]);
	hist_init(&h->txn);
}

void conn_summarize(const struct conn_hist *h, const struct node_stat *st,
		    uint32_t msg_size, const struct conn_steps *steps,
		    struct conn_res *r)
{
	uint64_t ns = st->real_e > st->real_s ? st->real_e - st->real_s : 0;

	r->txns = st->s.msgs;
	r->msg_size = msg_size;
	r->rate = ns ? (double)r->txns * 1e9 / (double)ns : 0;
	r->steps = steps;
	for (int i = 0; i < steps->n; i++)
		hist_summary(h ? &h->step[i] : NULL, 1, &r->step[i]);
	hist_summary(h ? &h->txn : NULL, 1, &r->txn);
}
