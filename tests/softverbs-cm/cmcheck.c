// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cmcheck: rdma_cm semantics over softverbs' librdmacm, two processes per
 * case, the two roles of the test kit's kit_run_roles (tests/kit/check.h:
 * forked before either touches the CM; the passive role binds port 0 and
 * hands the real port to the active role over the kit's socketpair).
 *
 *   cmcheck -l          list the cases
 *   cmcheck [CASE...]   run them (default: all; names or shell patterns)
 *
 * A case is one check, the active role's: "ok   CASE[active]: what it
 * checks" or "FAIL CASE[ROLE]: why"; a passive role that fails, crashes
 * or hangs fails the case too.  The last line is "N passed, N failed" and
 * the exit status is 1 on any failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KIT_IMPLEMENTATION
#include "cmcheck.h"

char why[512];

int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int bad(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return -1;	/* keep the first reason */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -1;
}

long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* the next event within ms, or NULL (why says so) */
struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) != 1) {
		bad("no event within %d ms", ms);
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		bad("rdma_get_cm_event: %s", strerror(errno));
		return NULL;
	}
	return ev;
}

/* the next event must be type (and status); returns it, unacked */
struct rdma_cm_event *want_event(struct rdma_event_channel *ch,
					enum rdma_cm_event_type type,
					int status, int ms)
{
	struct rdma_cm_event *ev = next_event(ch, ms);

	if (!ev)
		return NULL;
	if (ev->event != type || ev->status != status) {
		bad("got %s status %d, want %s status %d",
		    rdma_event_str(ev->event), ev->status, rdma_event_str(type),
		    status);
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

int want_ack(struct rdma_event_channel *ch,
		    enum rdma_cm_event_type type, int status, int ms)
{
	struct rdma_cm_event *ev = want_event(ch, type, status, ms);

	if (!ev)
		return -1;
	rdma_ack_cm_event(ev);
	return 0;
}

void sa_make(struct sockaddr_storage *ss, const char *ip,
		    uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, ip, &s6->sin6_addr);
		s6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		inet_pton(AF_INET, ip, &s4->sin_addr);
		s4->sin_port = htons(port);
	}
}

/* ---- the two roles ------------------------------------------------------ */

int peer_put(struct peer *p, uint32_t v)
{
	const char *w;

	if (kit_send(p->fd, &v, sizeof(v), TMO, &w))
		return bad("sending to the peer process: %s", w);
	return 0;
}

int peer_get(struct peer *p, uint32_t *v)
{
	const char *w;

	if (kit_recv(p->fd, v, sizeof(*v), TMO, &w))
		return bad("peer process sent nothing (%s)", w);
	return 0;
}

/* the result descriptor of this role (the kit's), for die() */
static int role_resfd = -1;

/* the role's process dies: its counts to the kit, then _exit (no atexit
 * handlers, no destructors: softverbs' at-exit flush does not run) */
static void die(void) __attribute__((noreturn));
static void die(void)
{
	_exit(kit_role_report(role_resfd) ? 1 : 0);
}

/* passive: listen on ip, port 0; publish the port to the active role */
int passive_listen(struct peer *s, const char *ip,
			  enum rdma_port_space ps)
{
	struct sockaddr_storage ss;

	sa_make(&ss, ip, 0);
	s->ch = rdma_create_event_channel();
	if (!s->ch)
		return bad("rdma_create_event_channel: %s", strerror(errno));
	if (rdma_create_id(s->ch, &s->listen, NULL, ps))
		return bad("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(s->listen, (struct sockaddr *)&ss))
		return bad("rdma_bind_addr: %s", strerror(errno));
	if (rdma_listen(s->listen, 8))
		return bad("rdma_listen: %s", strerror(errno));
	return peer_put(s, ntohs(rdma_get_src_port(s->listen)));
}

/* active: resolve ip:port (port from the passive role when 0) */
int active_resolve(struct peer *c, const char *ip, uint16_t port,
			  enum rdma_port_space ps)
{
	struct sockaddr_storage ss;
	uint32_t p = port;

	if (!port && peer_get(c, &p))
		return -1;
	sa_make(&ss, ip, (uint16_t)p);
	c->ch = rdma_create_event_channel();
	if (!c->ch)
		return bad("rdma_create_event_channel: %s", strerror(errno));
	if (rdma_create_id(c->ch, &c->id, NULL, ps))
		return bad("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&ss, 2000))
		return bad("rdma_resolve_addr: %s", strerror(errno));
	if (want_ack(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, 0, TMO))
		return -1;
	if (rdma_resolve_route(c->id, 2000))
		return bad("rdma_resolve_route: %s", strerror(errno));
	return want_ack(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, TMO);
}

int make_qp(struct peer *p, struct rdma_cm_id *id, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a;

	p->pd = ibv_alloc_pd(id->verbs);
	p->cq = p->pd ? ibv_create_cq(id->verbs, 16, NULL, NULL, 0) : NULL;
	p->mr = p->cq ? ibv_reg_mr(p->pd, p->buf, sizeof(p->buf),
				   IBV_ACCESS_LOCAL_WRITE) :
			NULL;
	if (!p->mr)
		return bad("pd/cq/mr: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.send_cq = p->cq;
	a.recv_cq = p->cq;
	a.qp_type = t;
	a.cap.max_send_wr = 4;
	a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, p->pd, &a))
		return bad("rdma_create_qp: %s", strerror(errno));
	if (id->qp->qp_type != t || id->pd != p->pd)
		return bad("id->qp/pd not set by rdma_create_qp");
	return 0;
}

int rc4_connect(struct peer *c)
{
	if (active_resolve(c, "127.0.0.1", 0, RDMA_PS_TCP) ||
	    make_qp(c, c->id, IBV_QPT_RC))
		return -1;
	if (rdma_connect(c->id, NULL))
		return bad("rdma_connect: %s", strerror(errno));
	return 0;
}

int rc4_request(struct peer *s)
{
	struct rdma_cm_event *ev;

	if (passive_listen(s, "127.0.0.1", RDMA_PS_TCP))
		return -1;
	ev = want_event(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0, TMO);
	if (!ev)
		return -1;
	s->id = ev->id;
	rdma_ack_cm_event(ev);
	return 0;
}

int rc4_accept(struct peer *s)
{
	if (rc4_request(s))
		return -1;
	if (make_qp(s, s->id, IBV_QPT_RC) || rdma_accept(s->id, NULL) ||
	    want_ack(s->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO))
		return bad("accept: %s", strerror(errno));
	return 0;
}

int post_recv(struct peer *p, struct rdma_cm_id *id, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)p->buf, (uint32_t)len, p->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *badwr;

	if (ibv_post_recv(id->qp, &wr, &badwr))
		return bad("ibv_post_recv");
	return 0;
}

int wait_wc(struct peer *p, enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	long end = now_ms() + TMO;
	int n;

	while ((n = ibv_poll_cq(p->cq, 1, wc)) == 0 && now_ms() < end)
		usleep(100);
	if (n != 1)
		return bad("no completion (op %d)", op);
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != op)
		return bad("completion status %s opcode %d (want %d)",
			   ibv_wc_status_str(wc->status), wc->opcode, op);
	return 0;
}

int send_msg(struct peer *p, struct rdma_cm_id *id, const char *msg,
		    struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct ibv_sge sge = { (uintptr_t)p->buf, (uint32_t)strlen(msg) + 1,
			       p->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *badwr;
	struct ibv_wc wc;

	strcpy(p->buf, msg);
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = qkey;
	}
	if (ibv_post_send(id->qp, &wr, &badwr))
		return bad("ibv_post_send");
	return wait_wc(p, IBV_WC_SEND, &wc);
}

/* ---- cases --------------------------------------------------------------- */


/* RC over ip: private data and conn params both ways, a SEND from the
 * active side, then the active side disconnects */
static int rc_passive(struct peer *s, const char *ip)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct ibv_wc wc;

	if (passive_listen(s, ip, RDMA_PS_TCP))
		return -1;
	ev = want_event(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0, TMO);
	if (!ev)
		return -1;
	s->id = ev->id;
	if (CHK(ev->listen_id == s->listen, "listen_id is not the listener") ||
	    CHK(s->id->verbs != NULL, "new id has no verbs") ||
	    CHK(ev->param.conn.private_data_len == 92 - 36,
		"REQ private_data_len %u (want 56 with IP addresses)",
		ev->param.conn.private_data_len) ||
	    CHK(!memcmp(ev->param.conn.private_data, REQ_DATA,
			sizeof(REQ_DATA)), "REQ private data differs") ||
	    CHK(ev->param.conn.responder_resources == 3 &&
		ev->param.conn.initiator_depth == 2,
		"REQ resources %u/%u (want 3/2, swapped)",
		ev->param.conn.responder_resources,
		ev->param.conn.initiator_depth) ||
	    CHK(ev->param.conn.rnr_retry_count == 7 &&
		ev->param.conn.retry_count == 6, "REQ retry counts %u/%u",
		ev->param.conn.retry_count, ev->param.conn.rnr_retry_count) ||
	    CHK(ev->param.conn.qp_num != 0, "REQ qp_num 0") ||
	    CHK(rdma_get_dst_port(s->id) != 0 &&
		rdma_get_src_port(s->id) == rdma_get_src_port(s->listen),
		"new id ports") ||
	    CHK(rdma_get_peer_addr(s->id)->sa_family ==
		rdma_get_local_addr(s->listen)->sa_family, "peer family")) {
		rdma_ack_cm_event(ev);
		return -1;
	}
	rdma_ack_cm_event(ev);
	if (make_qp(s, s->id, IBV_QPT_RC) || post_recv(s, s->id, 4096))
		return -1;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = REP_DATA;
	cp.private_data_len = sizeof(REP_DATA);
	cp.responder_resources = 3;
	cp.initiator_depth = 3;
	cp.rnr_retry_count = 7;
	if (rdma_accept(s->id, &cp))
		return bad("rdma_accept: %s", strerror(errno));
	if (want_ack(s->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO))
		return -1;
	if (wait_wc(s, IBV_WC_RECV, &wc) ||
	    CHK(!strcmp(s->buf, "hello over rdma_cm"), "received '%.40s'",
		s->buf))
		return -1;
	if (want_ack(s->ch, RDMA_CM_EVENT_DISCONNECTED, 0, TMO))
		return -1;
	if (rdma_disconnect(s->id))
		return bad("rdma_disconnect after DISCONNECTED: %s",
			   strerror(errno));
	return 0;
}

static int rc_active(struct peer *c, const char *ip)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;

	if (active_resolve(c, ip, 0, RDMA_PS_TCP) ||
	    make_qp(c, c->id, IBV_QPT_RC))
		return -1;
	if (CHK(c->id->route.num_paths == 1 && c->id->route.path_rec,
		"no path record after ROUTE_RESOLVED"))
		return -1;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = REQ_DATA;
	cp.private_data_len = sizeof(REQ_DATA);
	cp.responder_resources = 2;
	cp.initiator_depth = 3;
	cp.retry_count = 6;
	cp.rnr_retry_count = 7;
	if (rdma_connect(c->id, &cp))
		return bad("rdma_connect: %s", strerror(errno));
	ev = want_event(c->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO);
	if (!ev)
		return -1;
	if (CHK(ev->param.conn.private_data_len == 196, "REP length %u",
		ev->param.conn.private_data_len) ||
	    CHK(!memcmp(ev->param.conn.private_data, REP_DATA,
			sizeof(REP_DATA)), "REP private data differs") ||
	    CHK(ev->param.conn.qp_num != 0 &&
		ev->param.conn.qp_num != c->id->qp->qp_num, "REP qp_num")) {
		rdma_ack_cm_event(ev);
		return -1;
	}
	rdma_ack_cm_event(ev);
	if (send_msg(c, c->id, "hello over rdma_cm", NULL, 0, 0))
		return -1;
	if (rdma_disconnect(c->id))
		return bad("rdma_disconnect: %s", strerror(errno));
	return want_ack(c->ch, RDMA_CM_EVENT_DISCONNECTED, 0, TMO);
}

static int rc4_passive(struct peer *s) { return rc_passive(s, "127.0.0.1"); }
static int rc4_active(struct peer *c) { return rc_active(c, "127.0.0.1"); }
static int rc6_passive(struct peer *s) { return rc_passive(s, "::1"); }
static int rc6_active(struct peer *c) { return rc_active(c, "::1"); }

/* rdma_reject with private data: REJECTED, status 28, the data */
static int rej_passive(struct peer *s)
{
	struct rdma_cm_event *ev;
	uint32_t done;

	if (passive_listen(s, "127.0.0.1", RDMA_PS_TCP))
		return -1;
	ev = want_event(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0, TMO);
	if (!ev)
		return -1;
	if (rdma_reject(ev->id, "go away", 8))
		bad("rdma_reject: %s", strerror(errno));
	rdma_destroy_id(ev->id);
	rdma_ack_cm_event(ev);
	return peer_get(s, &done);
}

static int rej_active(struct peer *c)
{
	struct rdma_cm_event *ev;
	int ret = 0;

	if (rc4_connect(c))
		return -1;
	ev = want_event(c->ch, RDMA_CM_EVENT_REJECTED, 28, TMO);
	if (!ev)
		return -1;
	if (CHK(ev->param.conn.private_data_len == 148 &&
		!memcmp(ev->param.conn.private_data, "go away", 8),
		"REJ private data (len %u)", ev->param.conn.private_data_len))
		ret = -1;
	rdma_ack_cm_event(ev);
	peer_put(c, 1);
	return ret;
}

/* nobody listens: REJECTED, status 8 (invalid service ID), promptly */
static int nolisten_passive(struct peer *s)
{
	uint32_t done;

	/* a bound, not listening id reserves the port */
	s->ch = rdma_create_event_channel();
	if (!s->ch || rdma_create_id(s->ch, &s->listen, NULL, RDMA_PS_TCP))
		return bad("create: %s", strerror(errno));
	{
		struct sockaddr_storage ss;

		sa_make(&ss, "127.0.0.1", 0);
		if (rdma_bind_addr(s->listen, (struct sockaddr *)&ss))
			return bad("rdma_bind_addr: %s", strerror(errno));
	}
	if (peer_put(s, ntohs(rdma_get_src_port(s->listen))))
		return -1;
	return peer_get(s, &done);
}

static int nolisten_active(struct peer *c)
{
	long t0;
	int ret;

	if (active_resolve(c, "127.0.0.1", 0, RDMA_PS_TCP) ||
	    make_qp(c, c->id, IBV_QPT_RC))
		return -1;
	t0 = now_ms();
	if (rdma_connect(c->id, NULL))
		return bad("rdma_connect: %s", strerror(errno));
	ret = want_ack(c->ch, RDMA_CM_EVENT_REJECTED, 8, TMO);
	if (!ret && now_ms() - t0 > 2000)
		ret = bad("REJECTED took %ld ms", now_ms() - t0);
	peer_put(c, 1);
	return ret;
}

/* an address no emulated host has: ADDR_ERROR -ETIMEDOUT after the timeout;
 * binding it: EADDRNOTAVAIL; a port bound twice: EADDRINUSE */
static int addr_errors(struct peer *c)
{
	struct sockaddr_storage dst, src;
	struct rdma_cm_id *a, *b;
	long t0, dt;

	sa_make(&dst, "203.0.113.77", 7471);	/* TEST-NET-3 */
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		return bad("create: %s", strerror(errno));
	t0 = now_ms();
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 300))
		return bad("rdma_resolve_addr: %s", strerror(errno));
	if (want_ack(c->ch, RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT, TMO))
		return -1;
	dt = now_ms() - t0;
	if (dt < 250 || dt > 3000)
		return bad("ADDR_ERROR after %ld ms (timeout 300)", dt);
	if (rdma_create_id(c->ch, &a, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(c->ch, &b, NULL, RDMA_PS_TCP))
		return bad("create: %s", strerror(errno));
	if (rdma_bind_addr(a, (struct sockaddr *)&dst) == 0 ||
	    errno != EADDRNOTAVAIL)
		return bad("bind to 203.0.113.77: %s (want EADDRNOTAVAIL)",
			   strerror(errno));
	sa_make(&src, "127.0.0.1", 0);
	if (rdma_bind_addr(a, (struct sockaddr *)&src))
		return bad("bind: %s", strerror(errno));
	sa_make(&src, "127.0.0.1", ntohs(rdma_get_src_port(a)));
	if (rdma_bind_addr(b, (struct sockaddr *)&src) == 0 ||
	    errno != EADDRINUSE)
		return bad("second bind of a port: %s (want EADDRINUSE)",
			   strerror(errno));
	if (rdma_resolve_route(b, 100) == 0 || errno != EINVAL)
		return bad("resolve_route before resolve_addr succeeded");
	rdma_destroy_id(a);
	rdma_destroy_id(b);
	return 0;
}

/* a listener that never answers: UNREACHABLE -ETIMEDOUT after
 * SOFTVERBS_CM_TIMEOUT_MS */
static int silent_passive(struct peer *s)
{
	uint32_t done;

	if (passive_listen(s, "127.0.0.1", RDMA_PS_TCP))
		return -1;
	return peer_get(s, &done);	/* the request stays queued */
}

static int silent_active(struct peer *c)
{
	long t0, dt;
	int ret;

	if (active_resolve(c, "127.0.0.1", 0, RDMA_PS_TCP) ||
	    make_qp(c, c->id, IBV_QPT_RC))
		return -1;
	t0 = now_ms();
	if (rdma_connect(c->id, NULL))
		return bad("rdma_connect: %s", strerror(errno));
	ret = want_ack(c->ch, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, TMO);
	dt = now_ms() - t0;
	if (!ret && (dt < 250 || dt > 3000))
		ret = bad("UNREACHABLE after %ld ms (timeout 300)", dt);
	peer_put(c, 1);
	return ret;
}

/* the passive process dies after CONNECT_REQUEST: the active side gets
 * REJECTED, and does not hang */
static int diereq_passive(struct peer *s)
{
	if (passive_listen(s, "127.0.0.1", RDMA_PS_TCP) ||
	    !want_event(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0, TMO))
		return -1;
	die();
}

static int diereq_active(struct peer *c)
{
	if (rc4_connect(c))
		return -1;
	return want_ack(c->ch, RDMA_CM_EVENT_REJECTED, 28, TMO);
}

/* the passive process dies when connected: DISCONNECTED, the QP in ERR */
static int diecon_passive(struct peer *s)
{
	if (rc4_accept(s))
		return -1;
	die();
}

static int diecon_active(struct peer *c)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (rc4_connect(c))
		return -1;
	if (want_ack(c->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO) ||
	    want_ack(c->ch, RDMA_CM_EVENT_DISCONNECTED, 0, TMO))
		return -1;
	if (ibv_query_qp(c->id->qp, &a, IBV_QP_STATE, &ia) ||
	    a.qp_state != IBV_QPS_ERR)
		return bad("QP state %d after DISCONNECTED (want ERR)",
			   a.qp_state);
	return 0;
}

/* the channel fd polls readable exactly when an event is queued, and a
 * non-blocking fd gives EAGAIN when empty */
static int pollable(struct peer *c)
{
	struct ibv_context **devs;
	struct sockaddr_storage dst;
	struct rdma_cm_event *ev;
	struct pollfd p;

	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		return bad("create: %s", strerror(errno));
	p.fd = c->ch->fd;
	p.events = POLLIN;
	if (poll(&p, 1, 50) != 0)
		return bad("empty channel polls readable");
	fcntl(c->ch->fd, F_SETFL, fcntl(c->ch->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_get_cm_event(c->ch, &ev) == 0 || errno != EAGAIN)
		return bad("non-blocking get on an empty channel: %s",
			   strerror(errno));
	sa_make(&dst, "127.0.0.1", 7471);
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 1000))
		return bad("rdma_resolve_addr: %s", strerror(errno));
	if (poll(&p, 1, TMO) != 1 || !(p.revents & POLLIN))
		return bad("channel not readable with an event queued");
	if (rdma_get_cm_event(c->ch, &ev))
		return bad("get: %s", strerror(errno));
	rdma_ack_cm_event(ev);
	if (poll(&p, 1, 0) != 0)
		return bad("drained channel still readable");
	devs = rdma_get_devices(NULL);
	if (devs == NULL)
		return bad("rdma_get_devices");
	rdma_free_devices(devs);
	return 0;
}

/* ---- harness ----------------------------------------------------------- */

/* a case's roles: fn[0] active, fn[1] passive (a case of one role has
 * none); env "VAR=VAL" for both, or NULL */
struct cmcase {
	int (*fn[2])(struct peer *);
	const char *env;
};

static void role(const struct kit_roles *k, int r, int fd, int resfd);

/* CASE2: the two roles, forked; CASE1: the active role alone */
#define CASE2(nm, passive, active, env_, what)				\
	{ .name = nm, .roles = 2, .timeout_ms = 20000,			\
	  .tags = { "active", "passive" }, .child = role,		\
	  .arg = &(const struct cmcase){ { active, passive }, env_ },	\
	  .doc = what }
#define CASE1(nm, active, what)						\
	{ .name = nm, .roles = 1, .timeout_ms = 20000,			\
	  .tags = { "active", NULL }, .child = role,			\
	  .arg = &(const struct cmcase){ { active, NULL }, NULL },	\
	  .doc = what }

static const struct kit_roles cases[] = {
	CASE2("rc_ipv4", rc4_passive, rc4_active, NULL,
	      "RC connect/accept/send/disconnect, conn params and private data, IPv4"),
	CASE2("rc_ipv6", rc6_passive, rc6_active, NULL,
	      "the same over IPv6 ::1"),
	CASE2("reject", rej_passive, rej_active, NULL,
	      "rdma_reject with private data: REJECTED status 28"),
	CASE2("no_listener", nolisten_passive, nolisten_active, NULL,
	      "connect to a bound, not listening port: REJECTED status 8"),
	CASE1("addr_errors", addr_errors,
	      "unreachable address: ADDR_ERROR -ETIMEDOUT; bind errors"),
	CASE2("connect_timeout", silent_passive, silent_active,
	      "SOFTVERBS_CM_TIMEOUT_MS=300",
	      "a listener that never answers: UNREACHABLE -ETIMEDOUT"),
	CASE2("peer_dies_connecting", diereq_passive, diereq_active, NULL,
	      "passive dies after CONNECT_REQUEST: REJECTED, no hang"),
	CASE2("peer_dies_connected", diecon_passive, diecon_active, NULL,
	      "passive dies when connected: DISCONNECTED, QP in ERR"),
	CASE1("pollable", pollable,
	      "channel fd readiness, O_NONBLOCK EAGAIN"),
	CASE2("ud", ud_passive, ud_active, NULL,
	      "RDMA_PS_UDP: AH attributes, QPN and QKey in ESTABLISHED"),
	CASE2("sync_ep", ep_passive, ep_active, NULL,
	      "rdma_create_ep, rdma_get_request, synchronous connect/accept"),
	CASE2("migrate", migrate_passive, migrate_active, NULL,
	      "rdma_migrate_id: the child's events come on the new channel"),
	CASE2("listener_gone", lgone_passive, lgone_active, NULL,
	      "listener destroyed with an unreported request: REJECTED 28"),
	CASE2("qp_freed_peer_leaves", qpfreed_passive, qpfreed_active, NULL,
	      "QP freed by ibv_destroy_qp, the peer leaves: no use after free"),
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void release(struct peer *p)
{
	if (p->id && p->id->qp)
		rdma_destroy_qp(p->id);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->cq && !p->cq_borrowed)
		ibv_destroy_cq(p->cq);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->listen)
		rdma_destroy_id(p->listen);
	if (p->ch)
		rdma_destroy_event_channel(p->ch);
}

/*
 * Role r of case k (0 active, 1 passive) in its forked child; fd joins it
 * to the other role.  The case is one check (kit_role_outcome); the kit
 * then sends the counts (kit_role_exit).
 */
static void role(const struct kit_roles *k, int r, int fd, int resfd)
{
	const struct cmcase *c = k->arg;
	struct peer p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.fd = fd;
	role_resfd = resfd;
	kit_env_apply(c->env);
	ret = c->fn[r](&p);
	release(&p);
	kit_role_outcome(k, r, !ret, why);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	kit.glob = 1; /* names, or shell patterns */
	return kit_main_roles(argc, argv, cases, NCASES, 22);
}
