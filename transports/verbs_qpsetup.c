// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_qp_setup (docs/conn.md): what it costs to make and connect an RC QP
 * without the RDMA CM, the way qperf's own open does it, one QP per
 * transaction.  open() makes what lasts the test (device, port, PD, CQ,
 * the registered buffer, this side's GID) and each transaction runs six
 * steps on both sides:
 *
 *   create     ibv_create_qp (one send, one receive, no inline data)
 *   init       RESET -> INIT
 *   exchange   NODE (QPN, PSN, LID, buffer) and its extension (GID, MTU)
 *              on the control connection, the peer's checked
 *   rtr        INIT -> RTR toward the peer's QP
 *   rts        RTR -> RTS
 *   destroy    ibv_destroy_qp
 *
 * In the exchange the client sends first and the server answers, so one
 * round trip of the control connection.  The steps talk on the control
 * connection (TF_CTL_STEPS): the client's end is a NODE naming QP 0
 * (conn_done()), which the server reads where the next NODE would be.
 * The client's steps never stop half way at the timer (each is short,
 * and the exchange bounded by the timeout), so the control connection is
 * always between two NODEs when the loop ends.  A client that goes away
 * ends the server's test with an error: nothing else runs on its
 * control connection.
 *
 * With --qps N (at most QS_STORM_MAX) each transaction is a storm: the
 * same steps, each over N QPs (v->qps[], v->qp the first) before the
 * next; the exchange is NODE for QP 0, then the N QPNs in --qps's blocks
 * (verbs_qpn_exchange()), and QP i is connected to the peer's QP i.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_int.h"

#define QS_STORM_MAX 4096 /* QPs of a storm (--qps) */

enum qs_step { QS_CREATE, QS_INIT, QS_EXCHANGE, QS_RTR, QS_RTS, QS_DESTROY };

static const struct conn_steps qs_names = {
	6, { "create", "init", "exchange", "rtr", "rts", "destroy" }
};

/* Per session: the verbs session, and transactions begun (priv_size). */
struct qs_priv {
	struct verbs_priv v; /* first: verbs_close() and verbs_facts() */
	uint64_t n;
};

static int qs_open(struct tsess *s, char *err, size_t errlen)
{
	struct qs_priv *q = s->priv;

	q->n = 0;
	return verbs_open_shared(s, &verbs_kind_rc, NULL, err, errlen);
}

static int qs_check(struct tsess *s, char *err, size_t errlen)
{
	return verbs_check(s, &verbs_kind_rc, err, errlen);
}

static int qs_create(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	struct ibv_qp_init_attr ia;

	verbs_qp_init_attr(s, v, 0, &ia);
	ia.cap.max_inline_data = 0; /* nothing is sent on it */
	v->qp = ibv_create_qp(v->pd, &ia);
	if (!v->qp)
		return seterr_errno(err, errlen, errno,
				    "failed to create an RC QP");
	v->me.qpn = v->info.qpn = v->qp->qp_num;
	v->me.psn = v->info.psn = (uint32_t)nrand48(v->seed) & 0xffffff;
	return 0;
}

/* The exchange: the client's NODE, then the server's. */
static int qs_exchange(struct tsess *s, struct verbs_priv *v, char *err,
		       size_t errlen)
{
	int r;

	if (!s->server)
		return verbs_node_send(s, v, err, errlen) ||
				       verbs_node_recv(s, v, false, err,
						       errlen) ||
				       verbs_peer_check(s, v, err, errlen)
			       ? -1
			       : 1;
	r = verbs_node_recv(s, v, true, err, errlen);
	if (r)
		return r < 0 ? -1 : 0; /* 0: the client's end */
	return verbs_peer_check(s, v, err, errlen) ||
			       verbs_node_send(s, v, err, errlen)
		       ? -1
		       : 1;
}

static int qs_do(struct tsess *s, struct verbs_priv *v, enum qs_step step,
		 char *err, size_t errlen)
{
	switch (step) {
	case QS_CREATE:
		return qs_create(s, v, err, errlen) ? -1 : 1;
	case QS_INIT:
		return verbs_qp_init(s, v, err, errlen) ? -1 : 1;
	case QS_EXCHANGE:
		return qs_exchange(s, v, err, errlen);
	case QS_RTR:
		return verbs_qp_rtr(s, v, v->qp, v->peer.qpn,
				    v->k->responds, "QP to RTR", err,
				    errlen) ? -1 : 1;
	case QS_RTS:
		return verbs_qp_rts(s, v, v->qp, err, errlen) ? -1 : 1;
	case QS_DESTROY: {
		int e = ibv_destroy_qp(v->qp);

		v->qp = NULL;
		return e ? seterr_errno(err, errlen, e,
					"failed to destroy the QP") : 1;
	}
	}
	return seterr(err, errlen, "internal error: QP setup step %d",
		      (int)step);
}

static int qs_step(struct tsess *s, int step, char *err, size_t errlen)
{
	struct qs_priv *q = s->priv;
	char why[200];
	int r;

	if (step == QS_CREATE)
		q->n++;
	r = qs_do(s, &q->v, (enum qs_step)step, why, sizeof(why));
	if (r < 0)
		seterr(err, errlen, "transaction %llu: %s",
		       (unsigned long long)q->n, why);
	return r < 0 ? TP_FATAL : r;
}

/* ---- a storm (--qps N): every step over the N QPs v->qps[] ---- */

/* One storm's step on QP j (not the exchange): 0 or -1 with why. */
static int qs_storm_one(struct tsess *s, struct verbs_priv *v,
			enum qs_step step, uint32_t j, char *why, size_t len)
{
	struct ibv_qp_init_attr ia;
	int e;

	switch (step) {
	case QS_CREATE:
		verbs_qp_init_attr(s, v, j, &ia);
		ia.cap.max_inline_data = 0;
		v->qps[j] = ibv_create_qp(v->pd, &ia);
		if (!v->qps[j])
			return seterr_errno(why, len, errno,
					    "failed to create an RC QP");
		return 0;
	case QS_INIT:
		return verbs_qp_init_one(s, v, v->qps[j], why, len);
	case QS_RTR:
		return verbs_qp_rtr(s, v, v->qps[j], v->peer_qpns[j],
				    v->k->responds, "QP to RTR", why, len);
	case QS_RTS:
		return verbs_qp_rts(s, v, v->qps[j], why, len);
	case QS_DESTROY:
		e = ibv_destroy_qp(v->qps[j]);
		v->qps[j] = NULL;
		return e ? seterr_errno(why, len, e,
					"failed to destroy the QP") : 0;
	case QS_EXCHANGE:
		break;
	}
	return seterr(why, len, "internal error: QP setup step %d", (int)step);
}

/*
 * The storm's step: each QP's in turn, timed alone, or the exchange of
 * them all at once (NODE for QP 0, then the others' QPNs in the blocks
 * of --qps, verbs_qpn_exchange()), which each QP waits the whole of.
 */
static int qs_storm(struct tsess *s, int step, uint64_t *slot_ns, char *err,
		    size_t errlen)
{
	struct qs_priv *q = s->priv;
	struct verbs_priv *v = &q->v;
	char why[200];
	uint64_t t0 = now_ns();
	int r = 1;

	if (step == QS_CREATE)
		q->n++;
	for (uint32_t j = 0; step != QS_EXCHANGE && j < v->nqp; j++) {
		uint64_t t = now_ns();

		if (qs_storm_one(s, v, (enum qs_step)step, j, why,
				 sizeof(why))) {
			v->qp = v->qps[0]; /* close() destroys what is left */
			seterr(err, errlen, "transaction %llu: QP %u: %s",
			       (unsigned long long)q->n, j + 1, why);
			return TP_FATAL;
		}
		slot_ns[j] = now_ns() - t;
	}
	v->qp = v->qps[0];
	if (step == QS_CREATE) {
		v->me.qpn = v->info.qpn = v->qp->qp_num;
		v->me.psn = v->info.psn = (uint32_t)nrand48(v->seed) & 0xffffff;
	}
	if (step == QS_EXCHANGE) {
		r = qs_exchange(s, v, why, sizeof(why));
		if (r == 1 && verbs_qpn_exchange(s, v, why, sizeof(why)))
			r = -1;
		for (uint32_t j = 0; j < v->nqp; j++)
			slot_ns[j] = now_ns() - t0;
	}
	if (r < 0)
		seterr(err, errlen, "transaction %llu: %s",
		       (unsigned long long)q->n, why);
	return r < 0 ? TP_FATAL : r;
}

/* The client's end: a NODE naming no QP where the next one would be (no
 * step of the client's stops half way, so the loop ended between two). */
static int qs_done(struct tsess *s, char *err, size_t errlen)
{
	uint8_t nb[VERBS_NODE_SIZE];

	memset(nb, 0, sizeof(nb));
	return s->ch->send(s->ch, nb, sizeof(nb), "the end of the test", err,
			   errlen);
}

const struct transport transport_rc_qp_setup = {
	.name = "rc",
	.label = "RC",
	.flags = TF_RDMA | TF_CTL_STEPS,
	.priv_size = sizeof(struct qs_priv),
	.check = qs_check,
	.open = qs_open,
	.close = verbs_close,
	.counters = verbs_counters,
	.facts = verbs_facts,
	.conn_steps = &qs_names,
	.conn = qs_step,
	.conn_done = qs_done,
	.conn_storm = qs_storm,
	.storm_max = QS_STORM_MAX,
};
