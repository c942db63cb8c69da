// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_conn (docs/conn.md): the RC connection setup rate through the RDMA
 * CM, like rdma-core's cmtime but one connection at a time and timed
 * step by step.  open() makes what lasts the test: the server's CM
 * listener on the control connection's local address (its device gives
 * the PD, the CQ and the registered buffer), announced to the client
 * with a token of 8 random bytes; the client's event channel and the
 * device its first resolution of the server's address found.  Each
 * transaction then runs seven steps:
 *
 *   client                              server
 *   resolve_addr  create_id, ADDR_RESOLVED
 *   resolve_route ROUTE_RESOLVED
 *   create_qp     rdma_create_qp
 *   connect       REQ (the token) ---->  CONNECT_REQUEST: the client's
 *                                        host and token only; a QP, a
 *                                        receive posted, rdma_accept
 *                 ESTABLISHED  <------>  ESTABLISHED
 *   first_msg     send msg_size ------>  receive, answer msg_size
 *                 its answer  <-------
 *   disconnect    DREQ --------------->  DISCONNECTED, rdma_disconnect
 *                 DISCONNECTED <------   (DREP)
 *   destroy       rdma_destroy_qp, rdma_destroy_id (both)
 *
 * (the server's first three steps have nothing to do).  Every wait is a
 * poll() of the CM's channel, the CQ's channel and the control
 * connection, bounded by the timeout.  A client's step fails the test,
 * naming the transaction and step; it never stops half way at the timer
 * (the server always answers), so a transaction begun ends.  The server
 * rejects requests from other hosts or without the token, drops a
 * connection whose client goes away, stalls or errs (TP_SOFT: what it
 * made is destroyed and the next request served), and stops at the
 * timer or the client's "test done" at any point: close() disconnects
 * what is left, bounded.  With --qps N each transaction is a storm of N
 * connections at once: verbs_rcstorm.c, over the helpers of
 * verbs_rcconn.h.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "lib/addr.h"
#include "lib/random.h"
#include "verbs_rcconn.h"

const struct conn_steps rcc_names = {
	7, { "resolve_addr", "resolve_route", "create_qp", "connect",
	     "first_msg", "disconnect", "destroy" }
};

int rcc_timeout_ms(const struct tsess *s)
{
	uint64_t ms = s->p.timeout / 1000000;

	return ms > 0x7fffffff ? 0x7fffffff : ms ? (int)ms : 1;
}

static int ms_until(uint64_t deadline)
{
	uint64_t now = now_ns(), ms;

	if (now >= deadline)
		return 0;
	ms = (deadline - now) / 1000000 + 1;
	return ms > 1000 ? 1000 : (int)ms;
}

int rcc_wait(struct tsess *s, struct verbs_priv *v, bool cq,
		    uint64_t deadline, struct rdma_cm_event **ev)
{
	for (;;) {
		struct pollfd p[3] = {
			{ v->cm_ch->fd, POLLIN, 0 },
			{ cq ? v->cc->fd : -1, POLLIN, 0 },
			{ s->ch->watch_fd, POLLPRI | POLLRDHUP, 0 },
		};
		struct ibv_cq *c;
		void *ctx;

		if (rdma_get_cm_event(v->cm_ch, ev) == 0)
			return W_EVENT;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (cq && ibv_get_cq_event(v->cc, &c, &ctx) == 0) {
			ibv_ack_cq_events(c, 1);
			v->armed = false;
			return W_CQ;
		}
		if (s->server && tsess_stopped(s))
			return 0;
		if (now_ns() >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(p, 3, ms_until(deadline)) < 0 && errno != EINTR)
			return -1;
		if (p[2].revents) {
			errno = ECONNRESET;
			return -1;
		}
	}
}

void rcc_refuse(struct rcc_priv *r, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;

	r->strangers++;
	rdma_reject(id, NULL, 0);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
}

bool rcc_request_ok(struct tsess *s, const struct rcc_priv *r,
		    const struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *cp = &ev->param.conn;
	struct sockaddr_storage from;
	struct sockaddr *pa = rdma_get_peer_addr(ev->id);

	memset(&from, 0, sizeof(from));
	memcpy(&from, pa, pa->sa_family == AF_INET6 ?
				  sizeof(struct sockaddr_in6) :
				  sizeof(struct sockaddr_in));
	return sa_same_host(&from, &s->ch->peer) &&
	       cp->private_data_len >= RCC_TOKEN && cp->private_data &&
	       !memcmp(cp->private_data, r->token, RCC_TOKEN);
}

/*
 * An event that is not the current connection's: a new request (the
 * server keeps one from the client's host with the token; others are
 * refused) or a late event of an id gone.  Takes ev.  Returns 1 if it
 * was such an event, 0 if it is the caller's.
 */
static int rcc_other(struct tsess *s, struct rcc_priv *r,
		     struct rdma_cm_event *ev)
{
	struct verbs_priv *v = &r->v;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (ev->id == v->cm_id)
			return 0;
		rdma_ack_cm_event(ev);
		return 1;
	}
	if (!s->server || r->pending || !rcc_request_ok(s, r, ev)) {
		rcc_refuse(r, ev);
		return 1;
	}
	r->pending = ev->id;
	rdma_ack_cm_event(ev);
	return 1;
}

/* Why a wait failed, for a client's message. */
const char *rcc_wait_why(int e)
{
	return e == ETIMEDOUT ? "no answer within the timeout" :
	       e == ECONNRESET ? "the server went away" :
				 strerror(e);
}

/*
 * The current connection's next event, which must be want: 1, 0 (the
 * timer ended a server's wait), or -1 with why filled (*got: the event
 * that came instead, or -1).
 */
static int rcc_expect(struct tsess *s, struct rcc_priv *r,
		      enum rdma_cm_event_type want, char *why, size_t len,
		      int *got)
{
	uint64_t deadline = now_ns() + s->p.timeout;
	struct rdma_cm_event *ev;

	*got = -1;
	for (;;) {
		int w = rcc_wait(s, &r->v, false, deadline, &ev);
		int st;

		if (w <= 0)
			return w ? seterr(why, len, "%s", rcc_wait_why(errno)) : 0;
		if (rcc_other(s, r, ev))
			continue;
		*got = ev->event;
		st = ev->status;
		rdma_ack_cm_event(ev);
		if (*got == (int)want)
			return 1;
		return seterr(why, len, "%s (status %d) instead of %s",
			      rdma_event_str(*got), st, rdma_event_str(want));
	}
}

/* Post the receive of msg_size bytes (the server's request, the
 * client's answer) into the buffer, or the send of as many from it; the
 * work request's id is the transaction's number (a completion of a
 * connection dropped before is not this one's).  0 or an errno value. */
static int post_recv(struct tsess *s, struct rcc_priv *r)
{
	struct verbs_priv *v = &r->v;
	struct ibv_sge sg = { (uintptr_t)v->mem, s->p.msg_size, v->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = r->n, .sg_list = &sg,
				 .num_sge = 1 },
			   *bad;

	return ibv_post_recv(v->qp, &w, &bad);
}

static int post_send(struct tsess *s, struct rcc_priv *r)
{
	struct verbs_priv *v = &r->v;
	struct ibv_sge sg = { (uintptr_t)v->mem, s->p.msg_size, v->mr->lkey };
	struct ibv_send_wr w = { .wr_id = r->n, .sg_list = &sg, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED },
			   *bad;

	return ibv_post_send(v->qp, &w, &bad);
}

/*
 * Wait for the completions wanted (send, recv), watching the connection:
 * 1, 0 (the timer ended a server's wait), or -1 with why filled.
 */
static int rcc_complete(struct tsess *s, struct rcc_priv *r, bool send,
			bool recv, char *why, size_t len)
{
	struct verbs_priv *v = &r->v;
	uint64_t deadline = now_ns() + s->p.timeout;

	for (;;) {
		struct ibv_wc wc[2];
		struct rdma_cm_event *ev;
		int n = ibv_poll_cq(v->cq, 2, wc), w;

		if (n < 0)
			return seterr(why, len, "failed to poll the CQ");
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id != r->n)
				continue; /* an earlier connection's */
			if (wc[i].status != IBV_WC_SUCCESS)
				return seterr(why, len, "%s",
					      ibv_wc_status_str(wc[i].status));
			if (wc[i].opcode == IBV_WC_RECV)
				recv = false;
			else
				send = false;
		}
		if (!send && !recv)
			return 1;
		if (n)
			continue;
		if (!v->armed) {
			if (ibv_req_notify_cq(v->cq, 0))
				return seterr(why, len, "failed to arm the CQ");
			v->armed = true;
			continue; /* one more poll: a completion before it */
		}
		w = rcc_wait(s, v, true, deadline, &ev);
		if (w <= 0)
			return w ? seterr(why, len, "%s", rcc_wait_why(errno)) : 0;
		if (w == W_EVENT && !rcc_other(s, r, ev)) {
			seterr(why, len, "%s (status %d) on the connection",
			       rdma_event_str(ev->event), ev->status);
			rdma_ack_cm_event(ev);
			return -1;
		}
	}
}

/* Sends and receives only, so one read or atomic each way (what the
 * peer asks for is never less). */
void rcc_conn_param(struct rdma_conn_param *cp)
{
	memset(cp, 0, sizeof(*cp));
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
}

int rcc_qp_on(struct tsess *s, struct verbs_priv *v, struct rdma_cm_id *id,
	      uint32_t qi, char *why, size_t len)
{
	struct ibv_qp_init_attr ia;

	verbs_qp_init_attr(s, v, qi, &ia);
	if (rdma_create_qp(id, v->pd, &ia)) {
		ia.cap.max_inline_data = 0; /* some devices offer none */
		if (rdma_create_qp(id, v->pd, &ia))
			return seterr(why, len, "%s", strerror(errno));
	}
	return 0;
}

/* A QP on the current id with the session's PD and CQ. */
static int qp_make(struct tsess *s, struct verbs_priv *v, char *why,
		   size_t len)
{
	if (rcc_qp_on(s, v, v->cm_id, 0, why, len))
		return -1;
	v->qp = v->cm_id->qp;
	return 0;
}

/* Destroy the current connection's QP and id; what its work requests
 * left in the CQ (flushed by a disconnect) is taken out. */
static void conn_drop(struct verbs_priv *v)
{
	struct ibv_wc wc[2];

	if (v->cm_id && v->cm_id->qp)
		rdma_destroy_qp(v->cm_id);
	v->qp = NULL;
	while (v->cq && ibv_poll_cq(v->cq, 2, wc) > 0)
		;
	if (v->cm_id)
		rdma_destroy_id(v->cm_id);
	v->cm_id = NULL;
	v->cm_connected = false;
}

/* ---- the client ---- */

int rcc_start_addr(struct tsess *s, struct rcc_priv *r,
		   struct rdma_cm_id **id, void *ctx, char *why, size_t len)
{
	if (rdma_create_id(r->v.cm_ch, id, ctx, RDMA_PS_TCP)) {
		*id = NULL;
		return seterr(why, len, "rdma_create_id: %s", strerror(errno));
	}
	if (rdma_resolve_addr(*id, r->bind_src ? (struct sockaddr *)&r->src
					       : NULL,
			      (struct sockaddr *)&r->dst, rcc_timeout_ms(s)))
		return seterr(why, len, "%s", strerror(errno));
	return 0;
}

int rcc_start_connect(struct rcc_priv *r, struct rdma_cm_id *id, char *why,
		      size_t len)
{
	struct rdma_conn_param cp;

	rcc_conn_param(&cp);
	cp.private_data = r->token;
	cp.private_data_len = RCC_TOKEN;
	if (rdma_connect(id, &cp))
		return seterr(why, len, "%s", strerror(errno));
	return 0;
}

static int client_resolve(struct tsess *s, struct rcc_priv *r, bool route,
			  char *why, size_t len)
{
	struct verbs_priv *v = &r->v;
	int ms = rcc_timeout_ms(s), got;

	if (route) {
		if (rdma_resolve_route(v->cm_id, ms))
			return seterr(why, len, "%s", strerror(errno));
		return rcc_expect(s, r, RDMA_CM_EVENT_ROUTE_RESOLVED, why, len,
				  &got);
	}
	if (rcc_start_addr(s, r, &v->cm_id, NULL, why, len) < 0)
		return -1;
	if (rcc_expect(s, r, RDMA_CM_EVENT_ADDR_RESOLVED, why, len, &got) < 0)
		return -1;
	if (v->ctx && v->cm_id->verbs != v->ctx)
		return seterr(why, len,
			      "the RDMA CM moved the connection to another device");
	return 1;
}

static int client_step(struct tsess *s, struct rcc_priv *r,
		       enum rcc_step step, char *why, size_t len)
{
	struct verbs_priv *v = &r->v;
	int got, rc;

	switch (step) {
	case RCC_ADDR:
	case RCC_ROUTE:
		return client_resolve(s, r, step == RCC_ROUTE, why, len);
	case RCC_CREATE:
		return qp_make(s, v, why, len) ? -1 : 1;
	case RCC_CONNECT:
		if (rcc_start_connect(r, v->cm_id, why, len) < 0)
			return -1;
		rc = rcc_expect(s, r, RDMA_CM_EVENT_ESTABLISHED, why, len,
				&got);
		if (rc < 0 && got == RDMA_CM_EVENT_REJECTED)
			return seterr(why, len,
				      "the server rejected the connection");
		v->cm_connected = rc > 0;
		return rc;
	case RCC_MSG:
		rc = post_recv(s, r);
		if (!rc)
			rc = post_send(s, r);
		if (rc)
			return seterr(why, len, "failed to post: %s",
				      strerror(rc));
		return rcc_complete(s, r, true, true, why, len);
	case RCC_DISC:
		if (rdma_disconnect(v->cm_id))
			return seterr(why, len, "%s", strerror(errno));
		v->cm_connected = false;
		return rcc_expect(s, r, RDMA_CM_EVENT_DISCONNECTED, why, len,
				  &got);
	case RCC_DESTROY:
		conn_drop(v);
		return 1;
	}
	return seterr(why, len, "internal error: step %d", (int)step);
}

/* ---- the server ---- */

/* Wait for the next connection request this test serves: 1, 0 (the
 * timer), or TP_FATAL with err filled (none for the timeout, or the
 * client hung up). */
static int server_request(struct tsess *s, struct rcc_priv *r, char *err,
			  size_t errlen)
{
	uint64_t deadline = now_ns() + s->p.timeout;
	struct rdma_cm_event *ev;

	while (!r->pending) {
		int w = rcc_wait(s, &r->v, false, deadline, &ev);

		if (w == 0)
			return 0;
		if (w < 0 && errno == ETIMEDOUT)
			return seterr(err, errlen,
				      "no transaction from the client for %.3g s: the client stalled%s",
				      (double)s->p.timeout / 1e9,
				      r->strangers ? " (only refused connection requests came)" : "");
		if (w < 0 && errno == ECONNRESET)
			return seterr(err, errlen,
				      "the client went away during the test");
		if (w < 0)
			return seterr_errno(err, errlen, errno,
					    "failed to get an RDMA CM event");
		if (!rcc_other(s, r, ev)) /* not ours: cannot be, no id */
			rdma_ack_cm_event(ev);
	}
	r->v.cm_id = r->pending;
	r->pending = NULL;
	r->n++;
	return 1;
}

/* The request's QP, a receive posted, accepted, ESTABLISHED: 1, 0, or
 * -1 (the client's failure: why filled). */
static int server_accept(struct tsess *s, struct rcc_priv *r, char *why,
			 size_t len)
{
	struct verbs_priv *v = &r->v;
	struct rdma_conn_param cp;
	int got, rc;

	if (qp_make(s, v, why, len))
		return -1;
	rc = post_recv(s, r);
	if (rc)
		return seterr(why, len, "failed to post a receive: %s",
			      strerror(rc));
	rcc_conn_param(&cp);
	if (rdma_accept(v->cm_id, &cp))
		return seterr(why, len, "rdma_accept: %s", strerror(errno));
	rc = rcc_expect(s, r, RDMA_CM_EVENT_ESTABLISHED, why, len, &got);
	v->cm_connected = rc > 0;
	return rc;
}

static int server_step(struct tsess *s, struct rcc_priv *r,
		       enum rcc_step step, char *err, size_t errlen)
{
	struct verbs_priv *v = &r->v;
	char why[160];
	int rc, got, e;

	switch (step) {
	case RCC_ADDR:
	case RCC_ROUTE:
	case RCC_CREATE:
		return 1; /* the client's alone */
	case RCC_CONNECT:
		rc = server_request(s, r, err, errlen);
		if (rc != 1)
			return rc;
		rc = server_accept(s, r, why, sizeof(why));
		break;
	case RCC_MSG:
		rc = rcc_complete(s, r, false, true, why, sizeof(why));
		/* Done once the answer is posted: the client, which has it,
		 * may disconnect and say "test done" before its completion
		 * comes (a wait for it would end at the timer, the
		 * transaction uncounted); conn_drop() takes it. */
		if (rc == 1 && (e = post_send(s, r)))
			rc = seterr(why, sizeof(why), "failed to post: %s",
				    strerror(e));
		break;
	case RCC_DISC:
		rc = rcc_expect(s, r, RDMA_CM_EVENT_DISCONNECTED, why,
				sizeof(why), &got);
		if (rc == 1) {
			v->cm_connected = false;
			rdma_disconnect(v->cm_id); /* the DREP; may be sent */
		}
		break;
	case RCC_DESTROY:
		conn_drop(v);
		return 1;
	default:
		return seterr(err, errlen, "internal error: step %d",
			      (int)step);
	}
	if (rc < 0) /* gone, stalled or failed: serve the next one */
		conn_drop(v);
	return rc < 0 ? TP_SOFT : rc;
}

static int rcc_step(struct tsess *s, int step, char *err, size_t errlen)
{
	struct rcc_priv *r = s->priv;
	char why[200];
	int rc;

	if (s->server)
		return server_step(s, r, (enum rcc_step)step, err, errlen);
	if (step == RCC_ADDR)
		r->n++;
	rc = client_step(s, r, (enum rcc_step)step, why, sizeof(why));
	if (rc < 0)
		return seterr(err, errlen, "transaction %llu: %s failed: %s",
			      (unsigned long long)r->n, rcc_names.name[step],
			      why);
	return rc;
}

/* ---- open ---- */

/* The server's listener on the control connection's local address
 * (which gives the device), announced with the token. */
static int rcc_listen(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	struct rcc_priv *r = s->priv;
	struct sockaddr_storage a;

	v->cm = true;
	if (verbs_cm_sockaddr(&s->ch->local, 0, &a) == AF_UNSPEC)
		return seterr(err, errlen, "no local address to listen on");
	if (verbs_cm_channel(v, err, errlen))
		return -1;
	if (rdma_create_id(v->cm_ch, &v->cm_listen, NULL, RDMA_PS_TCP)) {
		v->cm_listen = NULL;
		return seterr_errno(err, errlen, errno,
				    "rdma_create_id failed");
	}
	if (rdma_bind_addr(v->cm_listen, (struct sockaddr *)&a) ||
	    rdma_listen(v->cm_listen, s->p.qps > RCC_BACKLOG ?
					      (int)s->p.qps : RCC_BACKLOG))
		return seterr_errno(err, errlen, errno,
				    "failed to listen on an RDMA CM port");
	if (random_bytes(r->token, sizeof(r->token), err, errlen) < 0)
		return -1;
	return verbs_cm_take_device(v, v->cm_listen, err, errlen);
}

/* The client: the server's CM port and token, and the device a first
 * resolution of its address finds (that id is held to the end). */
static int rcc_find(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	struct rcc_priv *r = s->priv;
	uint8_t b[RCC_ANNOUNCE];
	uint32_t port;
	char why[160];

	v->cm = true;
	if (s->ch->recv(s->ch, b, sizeof(b), "RDMA CM server port", err,
			errlen))
		return -1;
	port = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
	if (port == 0 || port > 65535)
		return seterr(err, errlen,
			      "server sent a bad RDMA CM port: %u", port);
	memcpy(r->token, b + 4, RCC_TOKEN);
	if (verbs_cm_sockaddr(&s->ch->peer, (uint16_t)port, &r->dst) ==
	    AF_UNSPEC)
		return seterr(err, errlen, "no address of the server");
	r->bind_src = verbs_cm_sockaddr(&s->ch->local, 0, &r->src) ==
		      r->dst.ss_family;
	if (verbs_cm_channel(v, err, errlen))
		return -1;
	if (client_resolve(s, r, false, why, sizeof(why)) < 0)
		return seterr(err, errlen,
			      "failed to resolve the server's RDMA CM address: %s",
			      why);
	v->cm_listen = v->cm_id;
	v->cm_id = NULL;
	return verbs_cm_take_device(v, v->cm_listen, err, errlen);
}

/* This host has an RDMA device (the first is the CM's, as for -cm1). */
static int rcc_check(struct tsess *s, char *err, size_t errlen)
{
	return verbs_check_cm(s, &verbs_kind_rc, err, errlen);
}

static int rcc_open(struct tsess *s, char *err, size_t errlen)
{
	struct rcc_priv *r = s->priv;
	uint8_t b[RCC_ANNOUNCE];
	uint32_t port;

	if (verbs_open_shared(s, &verbs_kind_rc,
			      s->server ? rcc_listen : rcc_find, err, errlen))
		return -1;
	r->n = r->strangers = 0;
	if (rcc_storm_alloc(s, r, err, errlen))
		return -1;
	if (!s->server)
		return 0;
	/* Listening before the port goes out. */
	port = ntohs(rdma_get_src_port(r->v.cm_listen));
	b[0] = (uint8_t)port;
	b[1] = (uint8_t)(port >> 8);
	b[2] = b[3] = 0;
	memcpy(b + 4, r->token, RCC_TOKEN);
	return s->ch->send(s->ch, b, sizeof(b), "RDMA CM server port", err,
			   errlen);
}

/* A request kept for the next transaction is refused, then the rest. */
static void rcc_close(struct tsess *s)
{
	struct rcc_priv *r = s->priv;

	if (r->pending) {
		rdma_reject(r->pending, NULL, 0);
		rdma_destroy_id(r->pending);
	}
	r->pending = NULL;
	rcc_storm_free(r);
	verbs_close(s);
}

const struct transport transport_rc_conn = {
	.name = "rc",
	.label = "RC",
	.flags = TF_RDMA,
	.priv_size = sizeof(struct rcc_priv),
	.check = rcc_check,
	.open = rcc_open,
	.close = rcc_close,
	.counters = verbs_counters,
	.facts = verbs_facts,
	.conn_steps = &rcc_names,
	.conn = rcc_step,
	.conn_storm = rcc_storm,
	.storm_max = RCC_STORM_MAX,
};
