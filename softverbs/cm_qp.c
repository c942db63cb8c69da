// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: QPs on ids.  rdma_create_qp(_ex), rdma_destroy_qp,
 * rdma_init_qp_attr, and the transitions the CM drives: a new RC QP goes
 * to INIT, UD to RTS; the handshake takes RC to RTR and RTS with what the
 * peer's REQ or REP said; disconnect moves it to ERR.  Access flags follow
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

static int qp_create(struct cm_id *p, struct ibv_qp_init_attr_ex *ax)
{
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp;
	int err;

	if (!p->id.verbs)
		return -EINVAL;
	if (!ax->pd) {
		ax->pd = cm_default_pd(p->id.verbs);
		if (!ax->pd)
			return -ENOMEM;
	}
	if (ax->pd->context != p->id.verbs)
		return -EINVAL;
	if (!ax->send_cq || !ax->recv_cq) {
		/* no CQs given: one for both, as librdmacm does */
		cq = ibv_create_cq(p->id.verbs,
				   (int)(ax->cap.max_send_wr + ax->cap.max_recv_wr + 1),
				   NULL, NULL, 0);
		if (!cq)
			return -errno;
		if (!ax->send_cq)
			ax->send_cq = cq;
		if (!ax->recv_cq)
			ax->recv_cq = cq;
	}
	ax->comp_mask |= IBV_QP_INIT_ATTR_PD;
	qp = ibv_create_qp_ex(p->id.verbs, ax);
	if (!qp) {
		err = -errno;
		goto err;
	}
	p->id.qp = qp;
	err = qp_setup(p);
	if (err) {
		ibv_destroy_qp(qp);
		p->id.qp = NULL;
		goto err;
	}
	p->id.pd = ax->pd;
	p->id.send_cq = ax->send_cq;
	p->id.recv_cq = ax->recv_cq;
	p->id.srq = ax->srq;
	p->id.qp_type = ax->qp_type;
	p->own_cqs = cq != NULL;
	return 0;
err:
	if (cq)
		ibv_destroy_cq(cq);
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
	struct ibv_cq *cq = NULL;

	if (!id || !id->qp)
		return;
	pthread_mutex_lock(&cm.lock);
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
	if (p->own_cqs)
		cq = id->send_cq;
	p->own_cqs = false;
	pthread_mutex_unlock(&cm.lock);
	if (cq) {
		ibv_destroy_cq(cq);
		id->send_cq = id->recv_cq = NULL;
	}
}

