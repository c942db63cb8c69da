// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: UD "connections" (RDMA_PS_UDP, or UD QPs on
 * RDMA_PS_IB), i.e. SIDR: rdma_connect sends a SIDR REQ, rdma_accept
 * answers with the QPN and QKey, and the active side's ESTABLISHED event
 * carries the address handle attributes to reach the passive QP.  After
 * the SIDR REP the connection socket is closed: UD has no connection.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cm_internal.h"

static void sidr_done(struct cm_id *p)
{
	p->deadline = 0;
	cm_fd_close(&p->conn_fd);
}

void cm_ud_sidr_rep(struct cm_id *p, const struct cm_msg *m)
{
	struct rdma_ud_param *u;
	struct ibv_port_attr pa;
	struct cm_event *e;
	unsigned int n;

	if (p->state != CM_REQ_SENT)
		return;
	sidr_done(p);
	if (m->status) {
		cm_enter(p, CM_DEAD, RDMA_CM_EVENT_UNREACHABLE, m->status);
		return;
	}
	p->peer = *m;
	cm_route_fill(p);
	p->state = CM_ESTABLISHED;
	e = cm_event_new(p, RDMA_CM_EVENT_ESTABLISHED, 0);
	if (!e)
		return;
	u = &e->ev.param.ud;
	n = CM_SIDR_REP_PDATA;
	u->private_data = cm_event_pdata(e, m, n);
	u->private_data_len = (uint8_t)n;
	u->qp_num = m->qpn;
	u->qkey = m->qkey;
	u->ah_attr.dlid = m->lid;
	u->ah_attr.port_num = 1;
	if (p->id.verbs && !ibv_query_port(p->id.verbs, 1, &pa) &&
	    pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		u->ah_attr.is_global = 1;
		memcpy(u->ah_attr.grh.dgid.raw, m->gid, 16);
		u->ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
		u->ah_attr.grh.hop_limit = 64;
		u->ah_attr.grh.traffic_class = p->tos;
	}
	cm_event_post(p, e);
}

int cm_ud_accept(struct cm_id *p, struct rdma_conn_param *param)
{
	struct cm_msg m;
	unsigned int len = param ? param->private_data_len : 0;
	int err;

	if (!p->id.qp && !(param && param->qp_num))
		return -EINVAL;
	memset(&p->conn, 0, sizeof(p->conn));
	if (param)
		p->conn = *param;
	cm_msg_init(p, &m, CM_MSG_SIDR_REP);
	if (p->id.qp) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;

		if (!ibv_query_qp(p->id.qp, &a, IBV_QP_QKEY, &ia))
			m.qkey = a.qkey;
	}
	err = cm_msg_pdata(p, &m, param ? param->private_data : NULL, len);
	if (err)
		return err;
	err = cm_send(p, &m);
	sidr_done(p);
	if (!err)
		p->state = CM_ESTABLISHED;
	return err;
}

int cm_ud_reject(struct cm_id *p, const void *pdata, uint8_t len)
{
	struct cm_msg m;
	int err;

	cm_msg_init(p, &m, CM_MSG_SIDR_REP);
	m.status = CM_SIDR_REJECT;
	err = cm_msg_pdata(p, &m, pdata, len);
	if (err)
		return err;
	err = cm_send(p, &m);
	sidr_done(p);
	p->state = CM_DEAD;
	return err;
}
