// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: QPs on ids.  rdma_create_qp(_ex), rdma_destroy_qp,
 * rdma_init_qp_attr, and the transitions the CM drives: a new RC QP goes
 * to INIT, UD to RTS; the handshake takes RC to RTR and RTS with what the
 * peer's REQ or REP said (on the application's thread, see cm_internal.h);
 * disconnect moves it to ERR.  Access flags follow
 * the IB CM: remote write always, remote read and atomics when the side
 * offers responder resources.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm_internal.h"

static bool is_ud(const struct cm_id *p)
{
	return p->id.qp_type == IBV_QPT_UD;
}

int cm_qp_attr(struct cm_id *p, struct ibv_qp_attr *a, int *mask)
{
	bool roce = false;
	struct ibv_port_attr pa;

	if (!p->id.verbs)
		return -EINVAL;
	if (!ibv_query_port(p->id.verbs, 1, &pa))
		roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	else
		memset(&pa, 0, sizeof(pa));
	switch (a->qp_state) {
	case IBV_QPS_INIT:
		a->pkey_index = 0;
		a->port_num = 1;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (is_ud(p)) {
			a->qkey = RDMA_UDP_QKEY;
			*mask |= IBV_QP_QKEY;
		} else {
			/* as the IB CM: remote write always, reads and
			 * atomics when we offer responder resources */
			a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
			if (p->conn.responder_resources)
				a->qp_access_flags |= IBV_ACCESS_REMOTE_READ |
						      IBV_ACCESS_REMOTE_ATOMIC;
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		*mask = IBV_QP_STATE;
		if (is_ud(p))
			return 0;
		if (!p->peer.type)
			return -EINVAL;
		a->path_mtu = pa.active_mtu;
		if (p->peer.mtu && p->peer.mtu < a->path_mtu)
			a->path_mtu = (enum ibv_mtu)p->peer.mtu;
		a->dest_qp_num = p->peer.qpn;
		a->rq_psn = p->peer.psn;
		a->max_dest_rd_atomic = p->conn.responder_resources;
		a->min_rnr_timer = 12;
		memset(&a->ah_attr, 0, sizeof(a->ah_attr));
		a->ah_attr.dlid = p->peer.lid;
		a->ah_attr.port_num = 1;
		if (roce) {
			a->ah_attr.is_global = 1;
			memcpy(a->ah_attr.grh.dgid.raw, p->peer.gid, 16);
			a->ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
			a->ah_attr.grh.hop_limit = 64;
			a->ah_attr.grh.traffic_class = p->tos;
		}
		a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (p->conn.responder_resources)
			a->qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC;
		*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			 IBV_QP_MIN_RNR_TIMER | IBV_QP_ACCESS_FLAGS;
		return 0;
	case IBV_QPS_RTS:
		a->sq_psn = p->psn;
		*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (is_ud(p))
			return 0;
		a->timeout = p->ack_timeout ? p->ack_timeout : 14;
		a->retry_cnt = p->conn.retry_count > 7 ? 7 :
							 p->conn.retry_count;
		a->rnr_retry = p->conn.rnr_retry_count > 7 ?
				       7 :
				       p->conn.rnr_retry_count;
		a->max_rd_atomic = p->conn.initiator_depth;
		*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	default:
		return -EINVAL;
	}
}

int cm_qp_modify(struct cm_id *p, enum ibv_qp_state st)
{
	struct ibv_qp_attr a;
	int mask, err;

	if (!p->id.qp)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = st;
	if (st == IBV_QPS_ERR || st == IBV_QPS_RESET) {
		mask = IBV_QP_STATE;
	} else {
		err = cm_qp_attr(p, &a, &mask);
		if (err)
			return err;
	}
	err = ibv_modify_qp(p->id.qp, &a, mask);
	if (err)
		CM_DBG("id %llu: modify qp to %d: %s",
		       (unsigned long long)p->handle, st, strerror(err));
	return -err;
}

CM_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id,
				struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	int err;

	if (!id || !qp_attr || !qp_attr_mask)
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	err = cm_qp_attr((struct cm_id *)id, qp_attr, qp_attr_mask);
	return cm_unlock_ret(err);
}

/* a new QP goes to INIT (RC) or all the way to RTS (UD), as librdmacm does */
static int qp_setup(struct cm_id *p)
{
	int err;

	p->psn = cm_new_psn(p);
	err = cm_qp_modify(p, IBV_QPS_INIT);
	if (!err && is_ud(p)) {
		err = cm_qp_modify(p, IBV_QPS_RTR);
		if (!err)
			err = cm_qp_modify(p, IBV_QPS_RTS);
	}
	return err;
}

/* A CQ the library makes for an id, with a completion channel of its own
 * and the id as its context: the synchronous helpers of <rdma_verbs.h>
 * (rdma_get_send_comp, rdma_get_recv_comp) arm it and wait on that
 * channel, as with librdmacm.  0 or -errno. */
static int cq_make(struct cm_id *p, uint32_t n, struct ibv_cq **cq,
		   struct ibv_comp_channel **ch)
{
	int err;

	*ch = ibv_create_comp_channel(p->id.verbs);
	if (!*ch)
		return errno ? -errno : -ENOMEM;
	*cq = ibv_create_cq(p->id.verbs, n ? (int)n : 1, &p->id, *ch, 0);
	if (!*cq) {
		err = errno ? -errno : -ENOMEM;
		ibv_destroy_comp_channel(*ch);
		*ch = NULL;
		return err;
	}
	return 0;
}

/* the id's library-made CQs and channels go (not while an XRC SRQ uses
 * the receive CQ) */
static void cqs_free(struct cm_id *p)
{
	struct rdma_cm_id *id = &p->id;

	if (p->own_rcq && !(id->qp_type == IBV_QPT_XRC_RECV && id->srq)) {
		if (id->recv_cq == id->send_cq)
			id->send_cq = NULL;
		ibv_destroy_cq(id->recv_cq);
		ibv_destroy_comp_channel(id->recv_cq_channel);
		id->recv_cq = NULL;
		id->recv_cq_channel = NULL;
		p->own_rcq = false;
	}
	if (p->own_scq) {
		ibv_destroy_cq(id->send_cq);
		ibv_destroy_comp_channel(id->send_cq_channel);
		id->send_cq = NULL;
		id->send_cq_channel = NULL;
		p->own_scq = false;
	}
}

/* Make the CQs an id lacks: a send CQ of sn entries, a receive CQ of rn
 * (0: none).  0 or -errno (nothing made then). */
static int cqs_make(struct cm_id *p, uint32_t sn, uint32_t rn)
{
	struct rdma_cm_id *id = &p->id;
	int err;

	if (rn && !id->recv_cq) {
		err = cq_make(p, rn, &id->recv_cq, &id->recv_cq_channel);
		if (err)
			return err;
		p->own_rcq = true;
	}
	if (sn && !id->send_cq) {
		err = cq_make(p, sn, &id->send_cq, &id->send_cq_channel);
		if (err) {
			cqs_free(p);
			return err;
		}
		p->own_scq = true;
	}
	return 0;
}

static int qp_create(struct cm_id *p, struct ibv_qp_init_attr_ex *ax)
{
	struct rdma_cm_id *id = &p->id;
	enum ibv_qp_type t = ax->qp_type;
	uint32_t sn = 0, rn = 0;
	struct ibv_qp *qp;
	int err;

	if (!id->verbs)
		return -EINVAL;
	if (!ax->pd)
		ax->pd = id->pd ? id->pd : cm_default_pd(id->verbs);
	if (!ax->pd)
		return -ENOMEM;
	if (ax->pd->context != id->verbs)
		return -EINVAL;
	if ((id->recv_cq && ax->recv_cq && id->recv_cq != ax->recv_cq) ||
	    (id->send_cq && ax->send_cq && id->send_cq != ax->send_cq))
		return -EINVAL;
	if (t == IBV_QPT_XRC_RECV &&
	    (!(ax->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !ax->xrcd)) {
		ax->xrcd = cm_default_xrcd(id->verbs);
		if (!ax->xrcd)
			return errno ? -errno : -ENOMEM;
		ax->comp_mask |= IBV_QP_INIT_ATTR_XRCD;
	}
	/* no CQs given: the library makes them, one per direction, each
	 * with its own completion channel (librdmacm's rule: as many
	 * entries as work requests; a CQ the QP type needs gets at least
	 * one) */
	if (!ax->send_cq && (ax->cap.max_send_wr || t != IBV_QPT_XRC_RECV))
		sn = ax->cap.max_send_wr ? ax->cap.max_send_wr : 1;
	if (!ax->recv_cq &&
	    (ax->cap.max_recv_wr || t == IBV_QPT_XRC_RECV ||
	     (t != IBV_QPT_XRC_SEND && !ax->srq && !id->srq)))
		rn = ax->cap.max_recv_wr ? ax->cap.max_recv_wr : 1;
	err = cqs_make(p, sn, rn);
	if (err)
		return err;
	if (!ax->send_cq)
		ax->send_cq = id->send_cq;
	if (!ax->recv_cq)
		ax->recv_cq = id->recv_cq;
	if (id->srq && !ax->srq)
		ax->srq = id->srq;
	ax->comp_mask |= IBV_QP_INIT_ATTR_PD;
	qp = ibv_create_qp_ex(id->verbs, ax);
	if (!qp) {
		err = errno ? -errno : -ENOMEM;
		goto err;
	}
	id->qp = qp;
	p->qpn = qp->qp_num;
	id->qp_type = t;
	err = qp_setup(p);
	if (err) {
		ibv_destroy_qp(qp);
		id->qp = NULL;
		goto err;
	}
	id->pd = ax->pd;
	id->send_cq = ax->send_cq;
	id->recv_cq = ax->recv_cq;
	return 0;
err:
	cqs_free(p);
	return err;
}

CM_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id,
				struct ibv_qp_init_attr_ex *attr)
{
	struct cm_id *p = (struct cm_id *)id;
	struct ibv_qp_init_attr_ex ax;
	int err;

	if (!id || !attr || id->qp)
		return cm_fail(EINVAL);
	ax = *attr;
	pthread_mutex_lock(&cm.lock);
	err = qp_create(p, &ax);
	pthread_mutex_unlock(&cm.lock);
	if (err)
		return cm_fail(-err);
	attr->cap = ax.cap;
	return 0;
}

CM_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ax;

	if (!qp_init_attr)
		return cm_fail(EINVAL);
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, qp_init_attr, sizeof(*qp_init_attr));
	ax.pd = pd ? pd : (id ? id->pd : NULL);
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	if (rdma_create_qp_ex(id, &ax))
		return -1;
	qp_init_attr->cap = ax.cap;
	qp_init_attr->send_cq = id->send_cq;
	qp_init_attr->recv_cq = id->recv_cq;
	return 0;
}

CM_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct cm_id *p = (struct cm_id *)id;

	if (!id || !id->qp)
		return;
	pthread_mutex_lock(&cm.lock);
	ibv_destroy_qp(id->qp);	/* its multicast attachments go too */
	id->qp = NULL;
	p->qpn = 0;
	for (struct cm_mc *m = p->mcs; m; m = m->next)
		m->attached = false;
	/* CQs the application gave are its own to destroy */
	if (!p->own_scq)
		id->send_cq = NULL;
	if (!p->own_rcq)
		id->recv_cq = NULL;
	cqs_free(p);
	pthread_mutex_unlock(&cm.lock);
}

/* ---- shared receive queues ------------------------------------------------ */

CM_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id,
				 struct ibv_srq_init_attr_ex *attr)
{
	struct cm_id *p = (struct cm_id *)id;
	struct ibv_srq *srq;
	int err = 0;

	if (!id || !attr || !(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (!id->verbs || id->srq) {
		err = -EINVAL;
		goto out;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : cm_default_pd(id->verbs);
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (!attr->pd) {
		err = -ENOMEM;
		goto out;
	}
	if (attr->srq_type == IBV_SRQT_XRC) {
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd) {
			attr->xrcd = cm_default_xrcd(id->verbs);
			if (!attr->xrcd) {
				err = errno ? -errno : -ENOMEM;
				goto out;
			}
		}
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq) {
			/* the SRQ's completions go to the id's receive CQ
			 * (rdma_get_recv_comp) */
			err = cqs_make(p, 0, attr->attr.max_wr);
			if (err)
				goto out;
			attr->cq = id->recv_cq;
		}
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq) {
		err = errno ? -errno : -ENOMEM;
		if (!id->qp)
			cqs_free(p);
		goto out;
	}
	if (!id->pd)
		id->pd = attr->pd;
	id->srq = srq;
out:
	return cm_unlock_ret(err);
}

CM_EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
			      struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ax;
	int ret;

	if (!id || !attr)
		return cm_fail(EINVAL);
	memset(&ax, 0, sizeof(ax));
	ax.srq_context = attr->srq_context;
	ax.attr = attr->attr;
	ax.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ax.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC :
							IBV_SRQT_BASIC;
	ax.pd = pd;
	ret = rdma_create_srq_ex(id, &ax);
	attr->attr = ax.attr;
	return ret;
}

CM_EXPORT void rdma_destroy_srq(struct rdma_cm_id *id)
{
	struct cm_id *p = (struct cm_id *)id;

	if (!id || !id->srq)
		return;
	pthread_mutex_lock(&cm.lock);
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
	if (!id->qp)
		cqs_free(p);
	pthread_mutex_unlock(&cm.lock);
}
