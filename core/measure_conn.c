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
 * lives in the transport's session.  A storm (--qps N, the transport's
 * conn_storm()) is one transaction of N setups at once: the transport
 * runs each step over all N before the next, reporting each one's time
 * in it, which go into the step's histogram; the storm's time in each
 * step (the sums say how the storm's time divides) and the whole storm's
 * are timed as a transaction's are.  The counts are the N connections'
 * (a message each way each), -n counts storms.
 */
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "measure.h"
#include "measure_int.h"
#include "progress.h"

/* One transaction's sends and receives, as a ping-pong counts them: one
 * each way per connection (qps of them in a storm). */
static void count_txn(struct lrun *lr, uint32_t qps)
{
	uint64_t m = lr->s->p.msg_size;

	lr->st.s.msgs += qps;
	lr->st.s.bytes += m * qps;
	lr->st.r.msgs += qps;
	lr->st.r.bytes += m * qps;
	progress_note(); /* server watchdog (progress.h) */
}

/* One step of a transaction: conn(), or conn_storm() over the qps slots
 * (their times into slot_ns). */
static int step_run(struct tsess *s, int i, uint32_t qps, uint64_t *slot_ns,
		    char *err, size_t errlen)
{
	if (qps > 1)
		return s->tp->conn_storm(s, i, slot_ns, err, errlen);
	return s->tp->conn(s, i, err, errlen);
}

/* A transaction's times into h: each step's (each slot's, in a storm),
 * the storm's in each step, and the whole one's. */
static void txn_add(struct conn_hist *h, int n, uint32_t qps,
		    const uint64_t *t, const uint64_t *slot_ns)
{
	for (int i = 0; i < n; i++) {
		if (qps < 2) {
			hist_add(&h->step[i], t[i + 1] - t[i]);
			continue;
		}
		for (uint32_t j = 0; j < qps; j++)
			hist_add(&h->step[i], slot_ns[(size_t)i * qps + j]);
		h->storm_ns[i] += t[i + 1] - t[i];
	}
	hist_add(&h->txn, t[n] - t[0]);
}

int run_conn(struct lrun *lr, char *err, size_t errlen)
{
	struct tsess *s = lr->s;
	struct conn_hist *h = s->server ? NULL : lr->conn;
	int n = s->tp->conn_steps->n;
	uint32_t qps = s->p.qps > 1 && s->tp->conn_storm ? s->p.qps : 1;
	uint64_t *slot_ns = xcalloc((size_t)n * qps, sizeof(*slot_ns));

	if (h)
		h->qps = qps;
	while (!fired && !s->ended &&
	       (s->server || !count_reached(lr, lr->st.s.msgs / qps))) {
		uint64_t t[CONN_STEPS_MAX + 1];
		int k = 1;

		t[0] = h ? now_ns() : 0;
		for (int i = 0; i < n && k == 1; i++) {
			k = step_run(s, i, qps, slot_ns + (size_t)i * qps, err,
				     errlen);
			if (h && k == 1)
				t[i + 1] = now_ns();
		}
		if (k == TP_SOFT) {
			lr->st.r.errs++; /* a client gone: serve the next */
			continue;
		}
		if (k < 0) {
			free(slot_ns);
			measure_stop(&lr->st);
			return -1;
		}
		if (k == 0)
			break;
		count_txn(lr, qps);
		if (h)
			txn_add(h, n, qps, t, slot_ns);
	}
	free(slot_ns);
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
	h->qps = 1;
	memset(h->storm_ns, 0, sizeof(h->storm_ns));
}

void conn_summarize(const struct conn_hist *h, const struct node_stat *st,
		    uint32_t msg_size, const struct conn_steps *steps,
		    struct conn_res *r)
{
	uint64_t ns = st->real_e > st->real_s ? st->real_e - st->real_s : 0;

	r->qps = h && h->qps > 1 ? h->qps : 1;
	r->txns = st->s.msgs / r->qps;
	r->msg_size = msg_size;
	r->rate = ns ? (double)r->txns * 1e9 / (double)ns : 0;
	r->qp_rate = r->rate * r->qps;
	r->steps = steps;
	for (int i = 0; i < steps->n; i++) {
		hist_summary(h ? &h->step[i] : NULL, 1, &r->step[i]);
		r->step_storm[i] = h && r->txns ? (double)h->storm_ns[i] /
							  1e9 / (double)r->txns
						: 0;
	}
	hist_summary(h ? &h->txn : NULL, 1, &r->txn);
}
