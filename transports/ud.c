// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UD transport: unreliable datagrams (transports/verbs*.c).  A message
 * must fit the path MTU, which open() checks (max_msg is the largest MTU
 * there is).  Receives land VERBS_GRH (40) bytes into s->buf.  Each send
 * names an address handle, the peer's QP and its Q_Key; a datagram from
 * any other QP is dropped.  Through RDMA CM there is no connection: SIDR
 * gives the client the server's QP, Q_Key and address.
 */
#include <errno.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "verbs_int.h"

static int ud_ah(struct verbs_priv *v, struct ibv_ah_attr *av, char *err,
		 size_t errlen)
{
	v->ah = ibv_create_ah(v->pd, av);
	if (!v->ah) {
		seterr(err, errlen, "failed to create address handle: %s",
			  strerror(errno));
		return -1;
	}
	return 0;
}

/* RTR and RTS need nothing of the peer; the address handle does. */
static int ud_connect(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	struct ibv_qp_attr a;
	struct ibv_ah_attr av;

	for (uint32_t i = 0; i < v->nqp; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		if (verbs_modify(v->qps[i], &a, IBV_QP_STATE, "QP to RTR", err,
				 errlen))
			return -1;
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = v->me.psn;
		if (verbs_modify(v->qps[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN,
				 "QP to RTS", err, errlen))
			return -1;
	}
	/* one address handle: every QP of the peer is on its port */
	verbs_make_av(s, v, v->peer.lid, v->port, &av);
	return ud_ah(v, &av, err, errlen);
}

static void ud_address(const struct verbs_priv *v, struct ibv_send_wr *w,
		       uint32_t qi)
{
	w->wr.ud.ah = v->ah;
	w->wr.ud.remote_qpn = v->peer_qpns[qi];
	w->wr.ud.remote_qkey = v->peer_qkey;
}

/*
 * UD hears any QP that knows our QPN and Q_Key: a stranger's datagram
 * (not from peer_qpn, the peer's QP of the receiving one) is neither
 * counted nor answered (its receive is posted again at once).
 */
static bool ud_stray(const struct verbs_priv *v, const struct ibv_wc *wc,
		     uint32_t peer_qpn)
{
	return (wc->opcode & IBV_WC_RECV) && v->info.peer_known &&
	       wc->src_qp != peer_qpn;
}

static void ud_cm_established(struct verbs_priv *v,
			      const struct rdma_cm_event *ev)
{
	v->cm_ah = ev->param.ud.ah_attr;
	v->peer.qpn = ev->param.ud.qp_num;
	v->peer_qkey = ev->param.ud.qkey;
}

/* After the NODE exchange: the address handle and the peer's Q_Key. */
static int ud_cm_finish(struct tsess *s, struct verbs_priv *v, char *err,
			size_t errlen)
{
	struct ibv_ah_attr av;

	if (verbs_mtu_fits(s, v, v->info.path_mtu, err, errlen))
		return -1;
	v->info.peer_qpn = v->peer.qpn;
	if (s->server) { /* the client's QP is the CM's: its Q_Key */
		v->peer_qkey = RDMA_UDP_QKEY;
		verbs_make_av(s, v, v->peer.lid, v->port, &av);
		return ud_ah(v, &av, err, errlen);
	}
	v->cm_ah.port_num = v->port;
	return ud_ah(v, &v->cm_ah, err, errlen);
}

const struct verbs_kind verbs_kind_ud = {
	.qp_type = IBV_QPT_UD,
	.rx_off = VERBS_GRH,
	.mtu_bound = true,
	.cm = true,
	.create = verbs_qp_create_one,
	.connect = ud_connect,
	.address = ud_address,
	.stray = ud_stray,
	.cm_established = ud_cm_established,
	.cm_finish = ud_cm_finish,
};

VERBS_TRANSPORT(ud, "UD", TF_LOSSY | TF_RDMA | TF_SLOTS, 4096);
