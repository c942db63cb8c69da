// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: connections.  rdma_listen, rdma_connect,
 * rdma_accept, rdma_reject, rdma_disconnect, rdma_establish,
 * and the CM protocol on the connection sockets (see cm_internal.h).
 *
 * RC handshake: active REQ -> passive CONNECT_REQUEST; rdma_accept moves
 * the passive QP to RTS and sends REP; the active side moves its QP to RTS,
 * sends RTU and reports ESTABLISHED; RTU gives the passive ESTABLISHED.
 * rdma_reject sends REJ (REJECTED, status 28, private data); no listener
 * gives REJECTED status 8.  rdma_disconnect sends DREQ, both QPs go to ERR
 * and both sides report DISCONNECTED (the initiator on DREP).  A socket
 * that ends (the peer died or destroyed its id) counts as DREQ when
 * connected, as a failed handshake otherwise.
 *
 * The progress thread only changes states, sends messages and posts
 * events; the QP moves (the active side's RTR and RTS before its RTU, ERR
 * on REJECTED, on a failed handshake and on DISCONNECTED) happen when the
 * application takes the event: cm_conn_taken().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cm_internal.h"

static bool is_ud(const struct cm_id *p)
{
	return p->id.qp_type == IBV_QPT_UD;
}

/* how much private data the receiver of a message type sees */
static unsigned int pdata_size(const struct cm_id *p, enum cm_msg_type t)
{
	unsigned int hdr = CM_IP_HDR;	/* no AF_IB addresses */

	(void)p;

	switch (t) {
	case CM_MSG_REQ:
		return CM_REQ_PDATA - hdr;
	case CM_MSG_REP:
		return CM_REP_PDATA;
	case CM_MSG_REJ:
		return CM_REJ_PDATA;
	case CM_MSG_SIDR_REQ:
		return CM_SIDR_REQ_PDATA - hdr;
	case CM_MSG_SIDR_REP:
		return CM_SIDR_REP_PDATA;
	default:
		return 0;
	}
}

void cm_msg_init(struct cm_id *p, struct cm_msg *m, enum cm_msg_type type)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;

	memset(m, 0, sizeof(*m));
	m->type = type;
	m->ps = (uint32_t)p->id.ps;
	m->qp_type = (uint32_t)p->id.qp_type;
	m->qpn = p->id.qp ? p->qpn : p->conn.qp_num;
	m->psn = p->psn;
	m->qkey = RDMA_UDP_QKEY;
	m->resp_res = p->conn.responder_resources;
	m->init_depth = p->conn.initiator_depth;
	m->flow_control = p->conn.flow_control;
	m->retry = p->conn.retry_count;
	m->rnr_retry = p->conn.rnr_retry_count;
	m->srq = p->conn.srq;
	if (p->id.verbs && !ibv_query_port(p->id.verbs, 1, &pa)) {
		m->lid = pa.lid;
		m->mtu = (uint8_t)pa.active_mtu;
	}
	if (p->id.verbs && !ibv_query_gid(p->id.verbs, 1, p->gid_index, &gid))
		memcpy(m->gid, gid.raw, 16);
	memcpy(&m->src, &p->id.route.addr.src_storage, sizeof(m->src));
	memcpy(&m->dst, &p->id.route.addr.dst_storage, sizeof(m->dst));
}

int cm_msg_pdata(struct cm_id *p, struct cm_msg *m, const void *pd,
		 unsigned int len)
{
	if (len > pdata_size(p, (enum cm_msg_type)m->type))
		return -EINVAL;
	if (len && !pd)
		return -EINVAL;
	if (len)
		memcpy(m->pdata, pd, len);
	m->pdlen = (uint16_t)len;
	return 0;
}

int cm_send(struct cm_id *p, struct cm_msg *m)
{
	size_t len = offsetof(struct cm_msg, pdata) + m->pdlen;
	ssize_t n;

	if (p->conn_fd < 0)
		return -ENOTCONN;
	do {
		n = send(p->conn_fd, m, len, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return 0;
}

/* fill an event's connection parameters from a received message */
static void event_conn(struct cm_id *p, struct cm_event *e,
		       const struct cm_msg *m)
{
	struct rdma_conn_param *c = &e->ev.param.conn;
	unsigned int n = pdata_size(p, (enum cm_msg_type)m->type);

	c->private_data = cm_event_pdata(e, m, n);
	c->private_data_len = (uint8_t)n;
	/* the peer's resources are our depth and the other way round */
	c->responder_resources = m->init_depth;
	c->initiator_depth = m->resp_res;
	c->flow_control = m->flow_control;
	c->retry_count = m->retry;
	c->rnr_retry_count = m->rnr_retry;
	c->srq = m->srq;
	c->qp_num = m->qpn;
}

/* ---- listen --------------------------------------------------------------- */

CM_EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct cm_id *p = (struct cm_id *)id;
	int err = 0;

	(void)backlog;
	if (!id)
		return cm_fail(EINVAL);
	if (cm.listen_delay_ms) /* fault: a late listener (the port may be
				 * announced already: qperf 0.4.11's race) */
		usleep(cm.listen_delay_ms * 1000u);
	pthread_mutex_lock(&cm.lock);
	if (p->state == CM_LISTEN)
		goto out;
	if (p->state != CM_BOUND) {
		err = -EINVAL;
		goto out;
	}
	if (listen(p->port_fd, SOMAXCONN)) {
		err = -errno;
		goto out;
	}
	err = cm_epoll_add(p, p->port_fd);
	if (!err)
		p->state = CM_LISTEN;
out:
	return cm_unlock_ret(err);
}

/* the listener has a new connection socket: a pending child id */
static void listen_accept(struct cm_id *l)
{
	struct cm_id *c;
	int fd;

	for (;;) {
		fd = accept4(l->port_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		c = cm_id_new(l->chan, l->id.context, l->id.ps, l->id.qp_type);
		if (!c) {
			close(fd);
			continue;
		}
		c->conn_fd = fd;
		c->listener = l->handle;
		c->state = CM_PENDING;
		if (cm_epoll_add(c, fd))
			cm_id_free(c);
	}
}

static int rej_status_of_listener(struct cm_id *l, const struct cm_msg *m)
{
	const struct sockaddr *dst = (const struct sockaddr *)&m->dst;
	const struct sockaddr *src = &l->id.route.addr.src_addr;

	if (m->ps != (uint32_t)l->id.ps)
		return CM_REJ_INVALID_SERVICE_ID;
	if (cm_addr_any(src)) {
		if (src->sa_family == AF_INET && dst->sa_family != AF_INET)
			return CM_REJ_INVALID_SERVICE_ID;
		if (src->sa_family == AF_INET6 && dst->sa_family == AF_INET &&
		    l->afonly)
			return CM_REJ_INVALID_SERVICE_ID;
		return 0;
	}
	return cm_addr_equal(src, dst) ? 0 : CM_REJ_INVALID_SERVICE_ID;
}

/* send a message of type t with status st and no private data */
static int send_status(struct cm_id *p, enum cm_msg_type t, int st)
{
	struct cm_msg m;

	cm_msg_init(p, &m, t);
	m.status = st;
	return cm_send(p, &m);
}

static int send_type(struct cm_id *p, enum cm_msg_type t)
{
	return send_status(p, t, 0);
}

/* a REQ (or SIDR REQ) on a pending child */
static void on_req(struct cm_id *c, const struct cm_msg *m)
{
	struct cm_id *l = cm_id_find(c->listener);
	bool sidr = m->type == CM_MSG_SIDR_REQ;
	struct cm_event *e;
	int st;

	st = l && l->state == CM_LISTEN ? rej_status_of_listener(l, m) :
					  CM_REJ_INVALID_SERVICE_ID;
	if (st) {
		send_status(c, sidr ? CM_MSG_SIDR_REP : CM_MSG_REJ,
			    sidr ? CM_SIDR_UNSUPPORTED : st);
		cm_id_free(c);
		return;
	}
	c->peer = *m;
	/* the passive end of an XRC connection is an XRC target */
	c->id.qp_type = m->qp_type == IBV_QPT_XRC_SEND ?
				IBV_QPT_XRC_RECV :
				(enum ibv_qp_type)m->qp_type;
	c->id.verbs = cm.devs[0];
	c->id.port_num = 1;
	c->afonly = l->afonly;
	c->tos = l->tos;
	/* our address is the one the peer talked to, with our port */
	memcpy(&c->id.route.addr.src_storage, &m->dst, sizeof(m->dst));
	memcpy(&c->id.route.addr.dst_storage, &m->src, sizeof(m->src));
	if (cm_addr_port(&c->id.route.addr.src_addr) != l->port)
		cm_addr_set_port(&c->id.route.addr.src_addr, l->port);
	cm_route_fill(c);
	c->state = CM_REQ_RCVD;
	e = cm_event_new(c, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (!e) {
		send_status(c, CM_MSG_REJ, CM_REJ_CONSUMER_DEFINED);
		cm_id_free(c);
		return;
	}
	e->ev.listen_id = &l->id;
	e->owner = l->handle;	/* counts against the listener */
	if (sidr) {
		unsigned int n = pdata_size(c, CM_MSG_SIDR_REQ);

		e->ev.param.ud.private_data = cm_event_pdata(e, m, n);
		e->ev.param.ud.private_data_len = (uint8_t)n;
	} else {
		event_conn(c, e, m);
	}
	/* the event goes to the listener's channel */
	c->chan = l->chan;
	c->id.channel = &l->chan->ch;
	cm_event_post(l, e);
}

/* REP on the active side: without a QP the application moves its own and
 * calls rdma_establish; with one, taking ESTABLISHED moves it and sends RTU
 * (cm_conn_taken) */
static void on_rep(struct cm_id *p, const struct cm_msg *m)
{
	struct cm_event *e;

	if (p->state != CM_REQ_SENT)
		return;
	p->deadline = 0;
	p->peer = *m;
	cm_route_fill(p);
	p->state = CM_REP_RCVD;
	e = cm_event_new(p, p->id.qp ? RDMA_CM_EVENT_ESTABLISHED :
				       RDMA_CM_EVENT_CONNECT_RESPONSE, 0);
	if (!e)
		return;
	if (p->id.qp)
		e->work = CM_WORK_REP;
	event_conn(p, e, m);
	cm_event_post(p, e);
}

/* Stop p's timer, move it to st and report type with status; taking the
 * event moves p's QP to ERR. */
static void enter_qp_err(struct cm_id *p, enum cm_state st,
			 enum rdma_cm_event_type type, int status)
{
	struct cm_event *e;

	p->deadline = 0;
	p->state = st;
	e = cm_event_new(p, type, status);
	if (e) {
		e->work = CM_WORK_QP_ERR;
		cm_event_post(p, e);
	}
}

static void on_rej(struct cm_id *p, const struct cm_msg *m)
{
	struct cm_event *e;
	unsigned int n;

	if (p->state != CM_REQ_SENT && p->state != CM_REP_SENT &&
	    p->state != CM_REP_RCVD)
		return;
	/* an ESTABLISHED not taken yet is void */
	cm_event_withdraw(p, CM_WORK_REP);
	p->deadline = 0;
	p->state = CM_DEAD;
	e = cm_event_new(p, RDMA_CM_EVENT_REJECTED, m->status);
	if (!e)
		return;
	e->work = CM_WORK_QP_ERR;
	n = m->status == CM_REJ_CONSUMER_DEFINED ? CM_REJ_PDATA : 0;
	e->ev.param.conn.private_data = cm_event_pdata(e, m, n);
	e->ev.param.conn.private_data_len = (uint8_t)n;
	cm_event_post(p, e);
}

/*
 * The peer disconnected (DREQ, or its socket ended).  The CM message may
 * overtake data-path packets the peer sent just before (its last ACKs travel
 * on the QP's own socket), which on hardware arrive first.  So the QP goes
 * to ERR, and DISCONNECTED is reported, only after SOFTVERBS_CM_DRAIN_MS.
 */
static void on_dreq(struct cm_id *p, bool reply)
{
	if (p->state == CM_ESTABLISHED || p->state == CM_REP_SENT) {
		p->drep_pending = reply;
		cm_enter_timed(p, CM_DREQ_RCVD, CM_MS_NS(cm.drain_ms));
	} else if (p->state == CM_DREQ_SENT) {
		/* both ends disconnected at once */
		cm_enter(p, CM_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED, 0);
	} else if (p->state == CM_REP_RCVD) {
		/* the passive side disconnected before our RTU: it counts
		 * once the application has taken ESTABLISHED */
		p->dreq_early = true;
		p->drep_pending = reply;
	}
}

/* the active side sent RTU: connected, unless a DREQ came first */
static void active_established(struct cm_id *p)
{
	p->state = CM_ESTABLISHED;
	if (p->dreq_early) {
		p->dreq_early = false;
		on_dreq(p, p->drep_pending);
	}
}

static void dreq_drained(struct cm_id *p)
{
	if (p->drep_pending && p->conn_fd >= 0)
		send_type(p, CM_MSG_DREP);
	p->drep_pending = false;
	enter_qp_err(p, CM_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED, 0);
}

/* the passive side's handshake failed after it sent REP */
static void rep_sent_failed(struct cm_id *p, int status)
{
	enter_qp_err(p, CM_DEAD, RDMA_CM_EVENT_CONNECT_ERROR, status);
}

void cm_conn_taken(struct cm_id *p, struct cm_event *e)
{
	enum cm_work w = e->work;
	int err;

	e->work = CM_WORK_NONE;
	if (w == CM_WORK_QP_ERR) {
		cm_qp_modify(p, IBV_QPS_ERR);
		return;
	}
	/* CM_WORK_REP: nothing when rdma_establish came first */
	if (w != CM_WORK_REP || p->state != CM_REP_RCVD)
		return;
	err = cm_qp_modify(p, IBV_QPS_RTR);
	if (!err)
		err = cm_qp_modify(p, IBV_QPS_RTS);
	if (err) {
		send_status(p, CM_MSG_REJ, CM_REJ_CONSUMER_DEFINED);
		p->state = CM_DEAD;
		e->ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
		e->ev.status = err;
		return;
	}
	send_type(p, CM_MSG_RTU);
	active_established(p);
}

void cm_conn_lost(struct cm_id *p)
{
	cm_fd_close(&p->conn_fd);
	switch (p->state) {
	case CM_PENDING:
		cm_id_free(p);
		return;
	case CM_REQ_SENT:
	case CM_REP_RCVD:
		if (p->state == CM_REP_RCVD && p->id.qp) {
			/* it accepted and went away before our RTU (unseen
			 * on hardware): ESTABLISHED, what it sent, then
			 * DISCONNECTED */
			on_dreq(p, false);
			return;
		}
		/* the passive side went away before it accepted */
		cm_enter(p, CM_DEAD, is_ud(p) ? RDMA_CM_EVENT_UNREACHABLE :
						RDMA_CM_EVENT_REJECTED,
			 is_ud(p) ? -ECONNRESET : CM_REJ_CONSUMER_DEFINED);
		return;
	case CM_REP_SENT:
		rep_sent_failed(p, -ECONNRESET);
		return;
	case CM_ESTABLISHED:
	case CM_DREQ_SENT:
		on_dreq(p, false);
		return;
	default:
		return;
	}
}

static void on_req_msg(struct cm_id *p, const struct cm_msg *m)
{
	if (p->state == CM_PENDING)
		on_req(p, m);
}

static void on_rtu(struct cm_id *p, const struct cm_msg *m)
{
	(void)m;
	if (p->state == CM_REP_SENT)
		cm_enter(p, CM_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED, 0);
}

static void on_dreq_msg(struct cm_id *p, const struct cm_msg *m)
{
	(void)m;
	on_dreq(p, true);
}

static void on_drep(struct cm_id *p, const struct cm_msg *m)
{
	(void)m;
	if (p->state == CM_DREQ_SENT)
		cm_enter(p, CM_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED, 0);
}

/* what each CM message does, by type */
static void (*const msg_handlers[])(struct cm_id *, const struct cm_msg *) = {
	[CM_MSG_REQ] = on_req_msg,	[CM_MSG_SIDR_REQ] = on_req_msg,
	[CM_MSG_REP] = on_rep,		[CM_MSG_RTU] = on_rtu,
	[CM_MSG_REJ] = on_rej,		[CM_MSG_DREQ] = on_dreq_msg,
	[CM_MSG_DREP] = on_drep,	[CM_MSG_SIDR_REP] = cm_ud_sidr_rep,
};

void cm_conn_input(struct cm_id *p)
{
	struct cm_msg m;
	uint64_t h = p->handle;
	ssize_t n;

	if (p->state == CM_LISTEN) {
		listen_accept(p);
		return;
	}
	while (p->conn_fd >= 0) {
		memset(&m, 0, sizeof(m));
		n = recv(p->conn_fd, &m, sizeof(m), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			cm_conn_lost(p);
			return;
		}
		if ((size_t)n < offsetof(struct cm_msg, pdata) ||
		    m.pdlen > CM_PDATA_MAX)
			continue;
		CM_DBG("id %llu: message %u", (unsigned long long)h, m.type);
		if (m.type < sizeof(msg_handlers) / sizeof(msg_handlers[0]) &&
		    msg_handlers[m.type])
			msg_handlers[m.type](p, &m);
		/* a handler may have freed p */
		if (cm_id_find(h) != p)
			return;
	}
}

static void req_retry(struct cm_id *p);

void cm_conn_timeout(struct cm_id *p)
{
	switch (p->state) {
	case CM_ROUTE_QUERY:
		cm_route_resolved(p);
		break;
	case CM_ADDR_QUERY:
		cm_enter(p, CM_BOUND, RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT);
		break;
	case CM_REQ_WAIT:
		req_retry(p);
		break;
	case CM_REQ_SENT:
		cm_enter(p, CM_DEAD, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
		break;
	case CM_REP_SENT:
		rep_sent_failed(p, -ETIMEDOUT);
		break;
	case CM_DREQ_SENT:
		cm_enter(p, CM_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED, 0);
		break;
	case CM_DREQ_RCVD:
		dreq_drained(p);
		break;
	default:
		break;
	}
}

/* ---- connect / accept / reject / disconnect --------------------------- */

/* take the application's connection parameters (NULL: none), within what
 * the emulated device offers */
static void conn_take(struct cm_id *p, const struct rdma_conn_param *c)
{
	memset(&p->conn, 0, sizeof(p->conn));
	if (c)
		p->conn = *c;
	if (p->conn.responder_resources > 16)
		p->conn.responder_resources = 16;
	if (p->conn.initiator_depth > 16)
		p->conn.initiator_depth = 16;
}

static int conn_open(struct cm_id *p)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd, err;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	cm_port_name(&sun, &len, cm_ps_of(p),
		     cm_addr_port(&p->id.route.addr.dst_addr));
	/* blocking: a full backlog waits for the listener's progress thread */
	while (connect(fd, (struct sockaddr *)&sun, len)) {
		if (errno == EINTR)
			continue;
		err = errno;
		close(fd);
		return err == ECONNREFUSED || err == ENOENT ? 1 : -err;
	}
	p->conn_fd = fd;
	err = cm_epoll_add(p, fd);
	if (err) {
		close(fd);
		p->conn_fd = -1;
	}
	return err;
}

/* the handshake failed before a REQ went out: REJECTED (RC) or UNREACHABLE
 * (UD) with status st */
static void req_failed(struct cm_id *p, int st)
{
	cm_enter(p, CM_DEAD, is_ud(p) ? RDMA_CM_EVENT_UNREACHABLE :
					RDMA_CM_EVENT_REJECTED, st);
}

/*
 * Send the REQ (or SIDR REQ) m to the destination port's listener.  With
 * nobody listening there the CM answers with a reject at once; but with
 * SOFTVERBS_CM_REQ_WAIT_MS the REQ is tried again every millisecond (state
 * CM_REQ_WAIT) until a listener appears or that time is over.  A client
 * that connects a second time as soon as its server said it would listen
 * again (perftest -R) then does not race the server's rdma_listen.
 * 0 or -errno.
 */
static int req_send(struct cm_id *p, struct cm_msg *m)
{
	int err = conn_open(p);

	if (err < 0)
		return err;
	if (err > 0) {
		if (!p->req_wait_end || sv_now_ns() >= p->req_wait_end) {
			req_failed(p, is_ud(p) ? CM_SIDR_UNSUPPORTED :
						 CM_REJ_INVALID_SERVICE_ID);
			return 0;
		}
		if (!p->req) {
			p->req = malloc(sizeof(*p->req));
			if (!p->req)
				return -ENOMEM;
			*p->req = *m;
		}
		cm_enter_timed(p, CM_REQ_WAIT, CM_MS_NS(1));
		return 0;
	}
	err = cm_send(p, m);
	if (err)
		return err;
	free(p->req);
	p->req = NULL;
	cm_enter_timed(p, CM_REQ_SENT, CM_MS_NS(cm.connect_ms));
	return 0;
}

/* CM_REQ_WAIT: try the REQ again */
static void req_retry(struct cm_id *p)
{
	int err = req_send(p, p->req);

	if (err)
		req_failed(p, err);
}

CM_EXPORT int rdma_connect(struct rdma_cm_id *id,
			   struct rdma_conn_param *conn_param)
{
	struct cm_id *p = (struct cm_id *)id;
	enum cm_msg_type t;
	struct cm_msg m;
	int err;

	if (!id)
		return cm_fail(EINVAL);
	err = cm_lock_in(id, CM_ROUTE_RESOLVED);
	if (err)
		goto out;
	conn_take(p, conn_param);
	if (!conn_param)
		p->conn.retry_count = 7;
	if (!p->id.qp && !p->psn)
		p->psn = cm_new_psn(p);
	/* the QP's access flags follow the responder resources offered */
	if (p->id.qp && !is_ud(p))
		cm_qp_modify(p, IBV_QPS_INIT);
	t = is_ud(p) ? CM_MSG_SIDR_REQ : CM_MSG_REQ;
	cm_msg_init(p, &m, t);
	err = cm_msg_pdata(p, &m, conn_param ? conn_param->private_data : NULL,
			conn_param ? conn_param->private_data_len : 0);
	if (err)
		goto out;
	p->req_wait_end = cm.req_wait_ms ?
				  sv_now_ns() + CM_MS_NS(cm.req_wait_ms) : 0;
	err = req_send(p, &m);
out:
	return cm_unlock_sync(p, err,
			      is_ud(p) || p->id.qp ? RDMA_CM_EVENT_ESTABLISHED :
						     RDMA_CM_EVENT_CONNECT_RESPONSE);
}

CM_EXPORT int rdma_establish(struct rdma_cm_id *id)
{
	struct cm_id *p = (struct cm_id *)id;
	int err = cm_lock_in(id, CM_REP_RCVD);

	if (!err)
		err = send_type(p, CM_MSG_RTU);
	if (!err)
		active_established(p);
	return cm_unlock_ret(err);
}

CM_EXPORT int rdma_accept(struct rdma_cm_id *id,
			  struct rdma_conn_param *conn_param)
{
	struct cm_id *p = (struct cm_id *)id;
	struct cm_msg m;
	int err;

	if (!id)
		return cm_fail(EINVAL);
	if (p->sync)
		cm_ack_last(id);
	err = cm_lock_in(id, CM_REQ_RCVD);
	if (!err && p->conn_fd < 0)
		err = -ECONNRESET;
	if (err)
		goto out;
	if (is_ud(p)) {
		err = cm_ud_accept(p, conn_param);
		goto out;
	}
	conn_take(p, conn_param);
	if (!conn_param)
		p->conn.rnr_retry_count = 7;
	/* the retry count is the active side's */
	p->conn.retry_count = p->peer.retry;
	if (!p->id.qp && !p->conn.qp_num) {
		err = -EINVAL;
		goto out;
	}
	if (!p->psn)
		p->psn = cm_new_psn(p);
	if (p->id.qp) {
		err = cm_qp_modify(p, IBV_QPS_INIT);
		if (!err)
			err = cm_qp_modify(p, IBV_QPS_RTR);
		if (!err)
			err = cm_qp_modify(p, IBV_QPS_RTS);
		if (err)
			goto out;
	}
	cm_msg_init(p, &m, CM_MSG_REP);
	err = cm_msg_pdata(p, &m, conn_param ? conn_param->private_data : NULL,
			conn_param ? conn_param->private_data_len : 0);
	if (!err)
		err = cm_send(p, &m);
	if (err)
		goto out;
	cm_enter_timed(p, CM_REP_SENT, CM_MS_NS(cm.connect_ms));
out:
	if (is_ud(p))
		return cm_unlock_ret(err);
	return cm_unlock_sync(p, err, RDMA_CM_EVENT_ESTABLISHED);
}

/* rdma_reject of a connection request (RC) */
static int reject_rc(struct cm_id *p, const void *pdata, uint8_t len)
{
	struct cm_msg m;
	int err;

	cm_msg_init(p, &m, CM_MSG_REJ);
	m.status = CM_REJ_CONSUMER_DEFINED;
	err = cm_msg_pdata(p, &m, pdata, len);
	if (!err)
		err = cm_send(p, &m);
	if (!err)
		p->state = CM_DEAD;
	return err;
}

CM_EXPORT int rdma_reject(struct rdma_cm_id *id, const void *private_data,
			  uint8_t private_data_len)
{
	struct cm_id *p = (struct cm_id *)id;
	int err = cm_lock_in(id, CM_REQ_RCVD);

	if (!err)
		err = (is_ud(p) ? cm_ud_reject : reject_rc)(p, private_data,
							   private_data_len);
	return cm_unlock_ret(err);
}

CM_EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
			      uint8_t private_data_len)
{
	return rdma_reject(id, private_data, private_data_len);
}

CM_EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	struct cm_id *p = (struct cm_id *)id;
	int err = 0;

	if (!id)
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	/* accepted, but ESTABLISHED or rdma_establish is still to come: the
	 * passive side takes a DREQ before RTU all the same */
	if (p->state == CM_REP_RCVD)
		active_established(p);
	switch (p->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:
		cm_qp_modify(p, IBV_QPS_ERR);
		if (send_type(p, CM_MSG_DREQ)) {
			/* the peer is gone already */
			cm_enter(p, CM_DISCONNECTED,
				 RDMA_CM_EVENT_DISCONNECTED, 0);
			break;
		}
		cm_enter_timed(p, CM_DREQ_SENT, CM_MS_NS(cm.connect_ms));
		break;
	case CM_DISCONNECTED:
	case CM_DREQ_SENT:
	case CM_DREQ_RCVD:
		cm_qp_modify(p, IBV_QPS_ERR);
		break;
	default:
		err = -EINVAL;
		break;
	}
	return cm_unlock_ret(err);
}

CM_EXPORT int rdma_get_request(struct rdma_cm_id *listen,
			       struct rdma_cm_id **id)
{
	struct cm_id *l = (struct cm_id *)listen, *c;
	struct rdma_cm_event *ev;
	int err;

	if (!listen || !id || !l->sync)
		return cm_fail(EINVAL);
	cm_ack_last(listen);
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	if (ev->status) {
		errno = ev->status < 0 ? -ev->status : EIO;
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		return cm_fail(EINVAL);
	}
	c = (struct cm_id *)ev->id;
	if (rdma_migrate_id(&c->id, NULL))
		goto err;
	if (l->ep_qp_attr) {
		struct ibv_qp_init_attr a = *l->ep_qp_attr;

		if (rdma_create_qp(&c->id, l->ep_pd, &a))
			goto err;
	}
	c->id.event = ev;
	*id = &c->id;
	return 0;
err:
	err = errno;
	rdma_ack_cm_event(ev);
	rdma_destroy_id(&c->id);
	return cm_fail(err);
}

CM_EXPORT int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct cm_id *p = (struct cm_id *)id;
	int err = 0;

	if (!id)
		return cm_fail(EINVAL);
	/* COMM_EST: a receive came before RTU, so the connection is up */
	pthread_mutex_lock(&cm.lock);
	if (event == IBV_EVENT_COMM_EST && p->state == CM_REP_SENT)
		cm_enter(p, CM_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED, 0);
	else if (event != IBV_EVENT_COMM_EST) {
		err = -EINVAL;
	}
	return cm_unlock_ret(err);
}
