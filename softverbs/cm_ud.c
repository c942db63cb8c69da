// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: UD "connections" (RDMA_PS_UDP, or UD QPs on
 * RDMA_PS_IB), i.e. SIDR: rdma_connect sends a SIDR REQ, rdma_accept
 * answers with the QPN and QKey, and the active side's ESTABLISHED event
 * carries the address handle attributes to reach the passive QP.  After
 * the SIDR REP the connection socket is closed: UD has no connection.
 *
 * Multicast: rdma_join_multicast(_ex) maps the address to an MGID (and, on
 * IB, an MLID) as the kernel does, attaches the id's QP (softverbs' verbs
 * do the fan-out) and reports MULTICAST_JOIN; there is no subnet manager,
 * so a join never fails for want of one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
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

/* ---- multicast ------------------------------------------------------------ */

bool cm_addr_mcast(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return IN_MULTICAST(ntohl(
			((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_MULTICAST(
			&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

/*
 * The MGID of a multicast address, by the kernel rdma_cm's rules.  RoCE:
 * the address as a GID (IPv4-mapped).  IB: the IPoIB mapping in the
 * link-local scope of the default P_Key, ff12:401b:ffff::<low 28 bits> for
 * IPv4 and ff12:601b:ffff:<bytes 6-15> for IPv6, the fourth byte 0x01 (the
 * rdma_cm signature) in the UDP port space; an IPv6 address that is an
 * SA-assigned MGID already (ff1x:a01b) stays as it is.
 */
static void mgid_of(const struct cm_id *p, const struct sockaddr *sa,
		    bool roce, union ibv_gid *g)
{
	const uint8_t *a6 = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	uint32_t a4 = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);

	memset(g, 0, sizeof(*g));
	if (roce) {
		if (sa->sa_family == AF_INET6) {
			memcpy(g->raw, a6, 16);
		} else {
			g->raw[10] = g->raw[11] = 0xff;
			memcpy(g->raw + 12,
			       &((const struct sockaddr_in *)sa)->sin_addr, 4);
		}
		return;
	}
	if (sa->sa_family == AF_INET6 && a6[0] == 0xff &&
	    (a6[1] & 0x10) && a6[2] == 0xa0 && a6[3] == 0x1b) {
		memcpy(g->raw, a6, 16);
		return;
	}
	g->raw[0] = 0xff;
	g->raw[1] = 0x12;
	g->raw[3] = p->id.ps == RDMA_PS_UDP ? 0x01 : 0x1b;
	g->raw[4] = g->raw[5] = 0xff;
	if (sa->sa_family == AF_INET6) {
		g->raw[2] = 0x60;
		memcpy(g->raw + 6, a6 + 6, 10);
	} else {
		g->raw[2] = 0x40;
		g->raw[12] = (uint8_t)((a4 >> 24) & 0x0f);
		g->raw[13] = (uint8_t)(a4 >> 16);
		g->raw[14] = (uint8_t)(a4 >> 8);
		g->raw[15] = (uint8_t)a4;
	}
}

/* IB: the group's multicast LID, the same in every process (there is no
 * subnet manager to assign one); RoCE: 0 */
static uint16_t mlid_of(const union ibv_gid *g, bool roce)
{
	uint32_t h = 2166136261u;
	int i;

	if (roce)
		return 0;
	for (i = 0; i < 16; i++)
		h = (h ^ g->raw[i]) * 16777619u;
	return (uint16_t)(0xc001 + h % 0x3ffe);
}

/* the source GID for sends to group g: the id's own; on RoCE the first
 * RoCE v2 one of the group's family when the id's is of the other (a
 * loopback source has no GID) */
static int mc_gid_index(struct cm_id *p, const union ibv_gid *g, bool roce)
{
	int i = cm_gid_index(p->id.verbs, &p->id.route.addr.src_addr);
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	bool v4 = g->raw[10] == 0xff && g->raw[11] == 0xff && !g->raw[0];

	if (!roce || ibv_query_gid_ex(p->id.verbs, 1, (uint32_t)i, &e, 0) ||
	    (e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff &&
	     !e.gid.raw[0]) == v4 ||
	    ibv_query_port(p->id.verbs, 1, &pa))
		return i;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(p->id.verbs, 1, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    (e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff &&
		     !e.gid.raw[0]) == v4)
			return i;
	}
	return cm_gid_index(p->id.verbs, &p->id.route.addr.src_addr);
}

static struct cm_mc *mc_find(struct cm_id *p, const struct sockaddr *sa,
			     struct cm_mc ***prev)
{
	struct cm_mc **pp, *m;

	for (pp = &p->mcs; (m = *pp); pp = &m->next) {
		if (cm_addr_equal((const struct sockaddr *)&m->addr, sa)) {
			if (prev)
				*prev = pp;
			return m;
		}
	}
	return NULL;
}

static void mc_drop(struct cm_id *p, struct cm_mc *m)
{
	if (m->attached && p->id.qp)
		ibv_detach_mcast(p->id.qp, &m->mgid, m->mlid);
	free(m);
}

void cm_mc_leave_all(struct cm_id *p)
{
	struct cm_mc *m;

	while ((m = p->mcs)) {
		p->mcs = m->next;
		mc_drop(p, m);
	}
}

/* join: attach the id's QP (unless send-only) and report MULTICAST_JOIN
 * with what a sender needs (group AV, QPN 0xFFFFFF, QKey) */
static int mc_join(struct cm_id *p, const struct sockaddr *sa, bool sendonly,
		   void *context)
{
	struct ibv_port_attr pa;
	struct rdma_ud_param *u;
	struct cm_event *e;
	struct cm_mc *m;
	socklen_t len = cm_addrlen(sa);
	bool roce;
	int err;

	if (!len || !cm_addr_mcast(sa))
		return -EINVAL;
	if (!p->id.verbs ||
	    (p->state != CM_BOUND && p->state != CM_ADDR_RESOLVED &&
	     p->state != CM_ROUTE_RESOLVED))
		return -EINVAL;
	if (mc_find(p, sa, NULL))
		return -EADDRINUSE;
	roce = !ibv_query_port(p->id.verbs, 1, &pa) &&
	       pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	memcpy(&m->addr, sa, len);
	m->context = context;
	mgid_of(p, sa, roce, &m->mgid);
	m->mlid = mlid_of(&m->mgid, roce);
	if (p->id.qp && !sendonly) {
		err = ibv_attach_mcast(p->id.qp, &m->mgid, m->mlid);
		if (err) {
			free(m);
			return -err;
		}
		m->attached = true;
	}
	m->next = p->mcs;
	p->mcs = m;
	p->gid_index = mc_gid_index(p, &m->mgid, roce);
	e = cm_event_new(p, RDMA_CM_EVENT_MULTICAST_JOIN, 0);
	if (!e)
		return 0;
	u = &e->ev.param.ud;
	u->private_data = context;	/* librdmacm's: the join's context */
	u->qp_num = 0xffffff;
	u->qkey = RDMA_UDP_QKEY;
	u->ah_attr.is_global = 1;
	u->ah_attr.grh.dgid = m->mgid;
	u->ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
	u->ah_attr.grh.hop_limit = roce ? 64 : 0;
	u->ah_attr.grh.traffic_class = p->tos;
	u->ah_attr.dlid = m->mlid;
	u->ah_attr.port_num = 1;
	cm_event_post(p, e);
	return 0;
}

CM_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id,
				     struct rdma_cm_join_mc_attr_ex *attr,
				     void *context)
{
	bool sendonly;
	int err;

	if (!id || !attr ||
	    (attr->comp_mask & ~(uint32_t)(RDMA_CM_JOIN_MC_ATTR_ADDRESS |
					   RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS)) ||
	    !(attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) || !attr->addr)
		return cm_fail(EINVAL);
	if (!(attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS))
		attr->join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	if (attr->join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER &&
	    attr->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return cm_fail(EINVAL);
	sendonly = attr->join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
	pthread_mutex_lock(&cm.lock);
	err = mc_join((struct cm_id *)id, attr->addr, sendonly, context);
	return cm_unlock_sync((struct cm_id *)id, err,
			      RDMA_CM_EVENT_MULTICAST_JOIN);
}

CM_EXPORT int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
				  void *context)
{
	struct rdma_cm_join_mc_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		      RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	a.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	a.addr = addr;
	return rdma_join_multicast_ex(id, &a, context);
}

CM_EXPORT int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cm_id *p = (struct cm_id *)id;
	struct cm_mc *m, **pp = NULL;
	int err = 0;

	if (!id || !addr || !cm_addrlen(addr))
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	m = mc_find(p, addr, &pp);
	if (!m) {
		err = -EADDRNOTAVAIL;
	} else {
		*pp = m->next;
		mc_drop(p, m);
	}
	return cm_unlock_ret(err);
}
