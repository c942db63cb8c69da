// SPDX-License-Identifier: GPL-2.0-only
/*
 * The XRC transport (transports/verbs*.c): an XRC domain, an XRC SRQ, a
 * send (INI) and a receive (TGT) QP per side, with today's verbs API.
 * Only between 0.5 peers: the NODE extension carries the QP and SRQ
 * numbers.  The INI QP issues reads and atomics; the TGT QP answers them.
 *
 * --qps N (verbs_qps.c): N send QPs and N TGT QPs on each end, all in the
 * one domain, every TGT QP feeding the one SRQ (its receives are posted
 * once, not per QP); send QP i is connected to the peer's TGT QP i, and
 * every send names the peer's SRQ.  A receive's completion names the TGT
 * QP it came in on, which is how it is counted on its QP.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "verbs_int.h"

/* Send QP i (on its CQ) and TGT QP i.  0, or -1 with err filled. */
static int xrc_pair(struct tsess *s, struct verbs_priv *v, uint32_t i,
		    char *err, size_t errlen)
{
	struct ibv_qp_init_attr_ex qa = { 0 };
	const char *n = v->nqp > 1 ? " " : "";
	uint32_t no = v->nqp > 1 ? i + 1 : 0;

	qa.qp_type = v->k->qp_type;
	qa.send_cq = v->cqs[v->ncq > 1 ? i : 0];
	qa.cap.max_send_wr = v->send_wr;
	qa.cap.max_send_sge = 1;
	qa.cap.max_inline_data = verbs_inline_ask(s);
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = v->pd;
	v->qps[i] = ibv_create_qp_ex(v->ctx, &qa);
	if (!v->qps[i] && !s->p.inline_set) {
		qa.cap.max_inline_data = 0;
		v->qps[i] = ibv_create_qp_ex(v->ctx, &qa);
	}
	if (!v->qps[i]) {
		seterr(err, errlen, "failed to create XRC send QP%s%.0u: %s", n,
		       no, strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qa.xrcd = v->xrcd;
	v->tgts[i] = ibv_create_qp_ex(v->ctx, &qa);
	v->qp = v->qps[0]; /* close() releases from here on */
	v->tgt = v->tgts[0];
	if (!v->tgts[i]) {
		seterr(err, errlen, "failed to create XRC receive QP%s%.0u: %s",
		       n, no, strerror(errno));
		return -1;
	}
	return 0;
}

static int xrc_create(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	struct ibv_xrcd_init_attr xa = { 0 };
	struct ibv_srq_init_attr_ex sa = { 0 };
	uint32_t srqn;

	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = -1; /* a private domain */
	xa.oflags = O_CREAT;
	v->xrcd = ibv_open_xrcd(v->ctx, &xa);
	if (!v->xrcd) {
		seterr(err, errlen, "failed to open XRC domain: %s",
			  strerror(errno));
		return -1;
	}
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_XRCD;
	sa.srq_type = IBV_SRQT_XRC;
	sa.attr.max_wr = v->srq_wr ? v->srq_wr : 1;
	sa.attr.max_sge = 1;
	sa.pd = v->pd;
	sa.cq = v->cq;
	sa.xrcd = v->xrcd;
	v->srq = ibv_create_srq_ex(v->ctx, &sa);
	if (!v->srq) {
		seterr(err, errlen, "failed to create XRC SRQ: %s",
			  strerror(errno));
		return -1;
	}
	if (ibv_get_srq_num(v->srq, &srqn)) {
		seterr(err, errlen, "failed to get the XRC SRQ number");
		return -1;
	}
	v->me.srqn = srqn;
	for (uint32_t i = 0; i < v->nqp; i++)
		if (xrc_pair(s, v, i, err, errlen))
			return -1;
	return 0;
}

/* Each index: RTR of the send QP toward the peer's TGT QP, RTR of the
 * TGT QP from the peer's send QP (all it needs), RTS of the send QP.
 * One QP: the peer's from its NODE extension (the send QP's is NODE's). */
static int xrc_connect(struct tsess *s, struct verbs_priv *v, char *err,
		       size_t errlen)
{
	for (uint32_t i = 0; i < v->nqp; i++)
		if (verbs_qp_rtr(s, v, v->qps[i], v->peer_tgts[i], false,
				 "QP to RTR", err, errlen) ||
		    verbs_qp_rtr(s, v, v->tgts[i],
				 v->nqp > 1 ? v->peer_qpns[i] :
					      v->xpeer.xrc_ini_qpn,
				 true, "XRC receive QP to RTR", err, errlen) ||
		    verbs_qp_rts(s, v, v->qps[i], err, errlen))
			return -1;
	return 0;
}

static void xrc_ext_fill(const struct verbs_priv *v, struct verbs_ext *x)
{
	x->have |= VXH_XRC;
	x->xrc_ini_qpn = v->qp->qp_num;
	x->xrc_tgt_qpn = v->tgt->qp_num;
	x->xrc_srqn = v->me.srqn;
}

static int xrc_peer_check(struct tsess *s, struct verbs_priv *v, char *err,
			  size_t errlen)
{
	const struct verbs_ext *x = &v->xpeer;

	(void)s;
	if (!(x->have & VXH_XRC) || !x->xrc_ini_qpn ||
	    x->xrc_ini_qpn > 0xffffff || !x->xrc_tgt_qpn ||
	    x->xrc_tgt_qpn > 0xffffff || x->xrc_srqn > 0xffffff) {
		seterr(err, errlen,
			  "peer sent no valid XRC QP and SRQ numbers");
		return -1;
	}
	v->peer.srqn = x->xrc_srqn;
	return 0;
}

static void xrc_address(const struct verbs_priv *v, struct ibv_send_wr *w,
			uint32_t qi)
{
	(void)qi; /* every QP sends to the peer's one SRQ */
	w->qp_type.xrc.remote_srqn = v->peer.srqn;
}

const struct verbs_kind verbs_kind_xrc = {
	.qp_type = IBV_QPT_XRC_SEND,
	.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_ATOMIC,
	.reads = true,
	.connected = true,
	.ext_only = true,
	.srq_own = true,
	.create = xrc_create,
	.connect = xrc_connect,
	.ext_fill = xrc_ext_fill,
	.peer_check = xrc_peer_check,
	.address = xrc_address,
};

VERBS_TRANSPORT(xrc, "XRC", TF_RDMA | TF_XRC | TF_SLOTS, 0);
