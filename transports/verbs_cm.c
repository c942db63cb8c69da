// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs sessions connected through RDMA CM (-cm1), spec §2.9 "RDMA tests
 * over RDMA-CM".  The CM makes the QP's connection instead of the NODE
 * exchange: the server listens on a CM port of its own, announces it on
 * the control connection (u32, little endian) and accepts; the client
 * resolves the control connection's peer address and connects.  NODE is
 * still exchanged afterwards for the buffer address and rkey.
 *
 * With a 0.4.11 peer exactly 0.4.11's way: RC only, IPv4, responder
 * resources and initiator depth 1, retry and RNR counts 7, NODE with
 * lid/qpn/psn 0.  Deliberate differences: the server listens before it
 * announces the port (0.4.11 announces first, a race), and the client
 * retries a refused connect within the timeout (so it tolerates a 0.4.11
 * server that is not listening yet).  Between 0.5 peers also IPv6, -nr
 * (the depths follow each side's rd_atomic), UC (RDMA_PS_TCP, a UC QP)
 * and UD (RDMA_PS_UDP: the client takes the address handle, QPN and Q_Key
 * from the ESTABLISHED event; the server learns the client's QPN from
 * NODE).  A connection request from any host other than the control
 * connection's peer is rejected, and the wait goes on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "lib/addr.h"
#include "verbs_int.h"

#define CM_REJ_CONSUMER 28 /* IB CM reject reason: the peer said no */
#define CM_CLOSE_WAIT 2000000000ULL /* ns, for DISCONNECTED at close */

static bool legacy(const struct tsess *s)
{
	return !s->ch->ext;
}

static int ms_of(uint64_t ns)
{
	uint64_t ms = ns / 1000000;

	return ms > 0x7fffffff ? 0x7fffffff : ms ? (int)ms : 1;
}

/* The peer gave up on the control connection: its notice, if any. */
static int peer_gone(struct tsess *s, const char *what, char *err,
		     size_t errlen)
{
	char b;

	if (s->ch->recv(s->ch, &b, 1, what, err, errlen) < 0)
		return -1;
	seterr(err, errlen, "the peer went away while waiting for %s", what);
	return -1;
}

/*
 * The next CM event before deadline (ns), watching the control
 * connection.  0 with *ev (to be acked), or -1 with err.
 */
static int cm_next(struct tsess *s, struct verbs_priv *v, uint64_t deadline,
		   const char *what, struct rdma_cm_event **ev, char *err,
		   size_t errlen)
{
	for (;;) {
		struct pollfd p[2] = {
			{ v->cm_ch->fd, POLLIN, 0 },
			{ s->ch->watch_fd, POLLPRI | POLLRDHUP, 0 },
		};
		uint64_t now;

		if (rdma_get_cm_event(v->cm_ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			seterr(err, errlen, "failed to get RDMA CM event: %s",
				  strerror(errno));
			return -1;
		}
		now = now_ns();
		if (now >= deadline) {
			seterr(err, errlen, "timed out waiting for %s", what);
			return -1;
		}
		if (poll(p, s->ch->watch_fd >= 0 ? 2 : 1,
			 ms_of(deadline - now)) < 0 && errno != EINTR) {
			seterr(err, errlen, "poll failed: %s", strerror(errno));
			return -1;
		}
		if (p[1].revents)
			return peer_gone(s, what, err, errlen);
	}
}

static void unexpected(const struct rdma_cm_event *ev,
		       enum rdma_cm_event_type want, char *err, size_t errlen)
{
	seterr(err, errlen,
		  "unexpected event from RDMA CM: %s (status %d); expecting: %s",
		  rdma_event_str(ev->event), ev->status, rdma_event_str(want));
}

/*
 * A connection request on the server: from the control connection's
 * peer host (returns 1, the id kept in v->cm_id), or from a stranger
 * (rejected and destroyed, returns 0).
 */
static int take_request(struct tsess *s, struct verbs_priv *v,
			struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct sockaddr_storage from;
	struct sockaddr *pa = rdma_get_peer_addr(id);
	size_t n = pa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					       sizeof(struct sockaddr_in);

	memset(&from, 0, sizeof(from));
	memcpy(&from, pa, n);
	if (v->cm_id || !sa_same_host(&from, &s->ch->peer)) {
		rdma_reject(id, NULL, 0);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(id);
		return 0;
	}
	v->cm_resp = ev->param.conn.responder_resources;
	v->cm_init = ev->param.conn.initiator_depth;
	v->cm_id = id;
	rdma_ack_cm_event(ev);
	return 1;
}

/* Wait for event want on the connection (the server rejects strangers'
 * requests meanwhile).  0, or -1 with err; *status of a REJECTED. */
static int cm_expect(struct tsess *s, struct verbs_priv *v,
		     enum rdma_cm_event_type want, uint64_t deadline,
		     int *status, char *err, size_t errlen)
{
	struct rdma_cm_event *ev;

	for (;;) {
		if (cm_next(s, v, deadline, rdma_event_str(want), &ev, err,
			    errlen))
			return -1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
		    want != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_reject(ev->id, NULL, 0);
			rdma_ack_cm_event(ev);
			rdma_destroy_id(ev->id);
			continue;
		}
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (take_request(s, v, ev))
				return 0;
			continue;
		}
		if (ev->event != want) {
			unexpected(ev, want, err, errlen);
			if (status)
				*status = ev->event == RDMA_CM_EVENT_REJECTED ?
						  ev->status :
						  -1;
			rdma_ack_cm_event(ev);
			return -1;
		}
		if (want == RDMA_CM_EVENT_ESTABLISHED && v->k->cm_established)
			v->k->cm_established(v, ev);
		rdma_ack_cm_event(ev);
		return 0;
	}
}

static enum rdma_port_space port_space(const struct verbs_priv *v)
{
	return v->k->connected ? RDMA_PS_TCP : RDMA_PS_UDP;
}

int verbs_cm_take_device(struct verbs_priv *v, struct rdma_cm_id *id,
			 char *err, size_t errlen)
{
	if (!id->verbs) {
		seterr(err, errlen, "RDMA CM gave no device for the connection");
		return -1;
	}
	if (v->ctx) {
		if (v->ctx != id->verbs) {
			seterr(err, errlen,
				  "RDMA CM moved the connection to another device");
			return -1;
		}
		return 0;
	}
	v->ctx = id->verbs;
	v->port = id->port_num ? id->port_num : 1;
	v->info.port = v->port;
	snprintf(v->info.device, sizeof(v->info.device), "%s",
		 ibv_get_device_name(id->verbs->device));
	if (ibv_query_device(v->ctx, &v->dattr)) {
		seterr(err, errlen, "failed to query device %s: %s",
			  v->info.device, strerror(errno));
		return -1;
	}
	return 0;
}

int verbs_cm_channel(struct verbs_priv *v, char *err, size_t errlen)
{
	v->cm_ch = rdma_create_event_channel();
	if (!v->cm_ch) {
		seterr(err, errlen,
			  "rdma_create_event_channel failed: %s (no RDMA CM device? see rdma_cm(7))",
			  strerror(errno));
		v->no_device = true;
		return -1;
	}
	fcntl(v->cm_ch->fd, F_SETFL, fcntl(v->cm_ch->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

static int cm_server(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	struct sockaddr_storage any;
	uint64_t deadline;
	uint32_t port;
	uint8_t b[4];
	bool six = !legacy(s) && s->ch->local.ss_family == AF_INET6 &&
		   !IN6_IS_ADDR_V4MAPPED(
			   &((struct sockaddr_in6 *)&s->ch->local)->sin6_addr);

	memset(&any, 0, sizeof(any));
	any.ss_family = six ? AF_INET6 : AF_INET; /* port 0, any address */
	if (verbs_cm_channel(v, err, errlen))
		return -1;
	if (rdma_create_id(v->cm_ch, &v->cm_listen, NULL, port_space(v))) {
		seterr(err, errlen, "rdma_create_id failed: %s",
			  strerror(errno));
		return -1;
	}
	if (rdma_bind_addr(v->cm_listen, (struct sockaddr *)&any) ||
	    rdma_listen(v->cm_listen, 1)) {
		seterr(err, errlen, "failed to listen on an RDMA CM %s port: %s",
			  six ? "IPv6" : "IPv4", strerror(errno));
		return -1;
	}
	/* Listening before the port goes out (0.4.11 has a race here). */
	port = ntohs(rdma_get_src_port(v->cm_listen));
	b[0] = (uint8_t)port;
	b[1] = (uint8_t)(port >> 8);
	b[2] = b[3] = 0;
	if (s->ch->send(s->ch, b, sizeof(b), "RDMA CM server port", err,
			errlen))
		return -1;
	deadline = now_ns() + s->p.timeout;
	if (cm_expect(s, v, RDMA_CM_EVENT_CONNECT_REQUEST, deadline, NULL, err,
		      errlen))
		return -1;
	return verbs_cm_take_device(v, v->cm_id, err, errlen);
}

int verbs_cm_sockaddr(const struct sockaddr_storage *in, uint16_t port,
		      struct sockaddr_storage *out)
{
	const struct sockaddr_in6 *i6 = (const void *)in;

	memset(out, 0, sizeof(*out));
	if (in->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&i6->sin6_addr)) {
		struct sockaddr_in *o4 = (struct sockaddr_in *)out;

		o4->sin_family = AF_INET;
		memcpy(&o4->sin_addr, &i6->sin6_addr.s6_addr[12], 4);
	} else if (in->ss_family == AF_INET || in->ss_family == AF_INET6) {
		*out = *in;
	} else {
		return AF_UNSPEC;
	}
	if (out->ss_family == AF_INET)
		((struct sockaddr_in *)out)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)out)->sin6_port = htons(port);
	return out->ss_family;
}

/* The server's CM address: the control connection's peer, CM port. */
static int server_addr(struct tsess *s, uint16_t port,
		       struct sockaddr_storage *dst, char *err, size_t errlen)
{
	int fam = verbs_cm_sockaddr(&s->ch->peer, port, dst);

	if (fam == AF_UNSPEC) {
		seterr(err, errlen, "no address of the server");
		return -1;
	}
	if (fam == AF_INET6 && legacy(s)) {
		seterr(err, errlen,
			  "the server runs qperf 0.4, whose RDMA CM is IPv4-only; connect to it by an IPv4 address for -cm1");
		return -1;
	}
	return 0;
}

/* A new id on v->cm_ch, resolved to dst (address, then route). */
static int cm_resolve(struct tsess *s, struct verbs_priv *v,
		      struct sockaddr_storage *dst, char *err, size_t errlen)
{
	uint64_t deadline = now_ns() + s->p.timeout;
	int ms = ms_of(s->p.timeout);
	struct sockaddr_storage src;
	/* From the control connection's own address, which the server
	 * checks, when it is of the same family. */
	bool bind_src = verbs_cm_sockaddr(&s->ch->local, 0, &src) ==
			dst->ss_family;

	if (rdma_create_id(v->cm_ch, &v->cm_id, NULL, port_space(v))) {
		v->cm_id = NULL;
		seterr(err, errlen, "rdma_create_id failed: %s",
			  strerror(errno));
		return -1;
	}
	if (rdma_resolve_addr(v->cm_id,
			      bind_src ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)dst, ms)) {
		seterr(err, errlen, "rdma_resolve_addr failed: %s",
			  strerror(errno));
		return -1;
	}
	if (cm_expect(s, v, RDMA_CM_EVENT_ADDR_RESOLVED, deadline, NULL, err,
		      errlen))
		return -1;
	if (rdma_resolve_route(v->cm_id, ms)) {
		seterr(err, errlen, "rdma_resolve_route failed: %s",
			  strerror(errno));
		return -1;
	}
	if (cm_expect(s, v, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, NULL, err,
		      errlen))
		return -1;
	return verbs_cm_take_device(v, v->cm_id, err, errlen);
}

static int cm_client(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	struct sockaddr_storage dst;
	uint8_t b[4];
	uint32_t port;

	if (s->ch->recv(s->ch, b, sizeof(b),
			legacy(s) ? "RDMA CM TCP IPv4 server port" :
				    "RDMA CM server port",
			err, errlen))
		return -1;
	port = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
	if (port == 0 || port > 65535) {
		seterr(err, errlen, "server sent a bad RDMA CM port: %u",
			  port);
		return -1;
	}
	if (server_addr(s, (uint16_t)port, &dst, err, errlen) ||
	    verbs_cm_channel(v, err, errlen))
		return -1;
	return cm_resolve(s, v, &dst, err, errlen);
}

int verbs_cm_device(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	v->cm = true;
	if (!v->k->cm) {
		seterr(err, errlen,
			  "%s cannot connect through RDMA CM (-cm1)", s->t->name);
		return -1;
	}
	if (!v->k->cm_legacy && legacy(s)) {
		seterr(err, errlen,
			  "%s over RDMA CM needs a peer running qperf 0.5 or later",
			  s->t->name);
		return -1;
	}
	return s->server ? cm_server(s, v, err, errlen) :
			   cm_client(s, v, err, errlen);
}

/* On RoCE: this side's GID as the CM chose it (index, type), for -v and
 * the NODE extension. */
static void cm_gid(struct verbs_priv *v)
{
	const union ibv_gid *g = &v->cm_id->route.addr.addr.ibaddr.sgid;
	struct ibv_gid_entry e;

	memcpy(v->info.gid, g->raw, 16);
	v->info.gid_type = VG_IB;
	v->info.gid_index = -1;
	if (!v->info.roce)
		return;
	for (int i = 0; i < v->pattr.gid_tbl_len; i++) {
		memset(&e, 0, sizeof(e));
		if (ibv_query_gid_ex(v->ctx, v->port, (uint32_t)i, &e, 0) ||
		    memcmp(e.gid.raw, g->raw, 16))
			continue;
		v->info.gid_index = i;
		v->info.gid_type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
					   VG_ROCE_V2 :
					   VG_ROCE_V1;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
			break;
	}
	memcpy(v->gid.raw, g->raw, 16);
}

static void conn_param(struct tsess *s, struct verbs_priv *v,
		       struct rdma_conn_param *cp)
{
	uint32_t own = v->me.rd_atomic, init = (uint32_t)v->dattr.max_qp_init_rd_atom;

	memset(cp, 0, sizeof(*cp));
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	if (legacy(s) || !v->k->responds) {
		/* 0.4.11's fixed depths (UC has no reads or atomics) */
		cp->responder_resources = v->k->responds ? 1 : 0;
		cp->initiator_depth = v->k->responds ? 1 : 0;
		return;
	}
	if (s->server) { /* no more than the client asked for */
		own = own < v->cm_resp ? own : v->cm_resp;
		init = init < v->cm_init ? init : v->cm_init;
	}
	cp->responder_resources = (uint8_t)(own > 255 ? 255 : own);
	cp->initiator_depth = (uint8_t)(init > 255 ? 255 : init);
}

static int qp_make(struct tsess *s, struct verbs_priv *v, char *err,
		   size_t errlen)
{
	struct ibv_qp_init_attr ia;

	if (verbs_srq_create(s, v, err, errlen))
		return -1;
	verbs_qp_init_attr(s, v, 0, &ia);
	if (rdma_create_qp(v->cm_id, v->pd, &ia)) {
		ia.cap.max_inline_data = 0; /* some devices offer none */
		if (rdma_create_qp(v->cm_id, v->pd, &ia)) {
			seterr(err, errlen,
				  "failed to create %s QP on the RDMA CM id: %s",
				  s->tp->label, strerror(errno));
			return -1;
		}
	}
	v->qp = v->cm_id->qp;
	if (verbs_qp_made(s, v, err, errlen))
		return -1;
	cm_gid(v);
	return 0;
}

static void qp_drop(struct verbs_priv *v)
{
	if (v->cm_id && v->cm_id->qp)
		rdma_destroy_qp(v->cm_id);
	v->qp = NULL;
}

static int client_connect(struct tsess *s, struct verbs_priv *v, char *err,
			  size_t errlen)
{
	uint64_t deadline = now_ns() + s->p.timeout;
	struct sockaddr_storage dst;
	struct rdma_conn_param cp;

	memcpy(&dst, rdma_get_peer_addr(v->cm_id), sizeof(struct sockaddr_in6));
	for (;;) {
		int status = 0;

		if (qp_make(s, v, err, errlen))
			return -1;
		conn_param(s, v, &cp);
		if (rdma_connect(v->cm_id, &cp)) {
			seterr(err, errlen, "rdma_connect failed: %s",
				  strerror(errno));
			return -1;
		}
		if (!cm_expect(s, v, RDMA_CM_EVENT_ESTABLISHED, deadline,
			       &status, err, errlen))
			break;
		/* Refused, not by the peer's own choice: a 0.4.11 server
		 * may not listen yet.  Again, on a new id, while time is
		 * left. */
		if (status < 0 || status == CM_REJ_CONSUMER ||
		    now_ns() + 10000000ULL >= deadline)
			return -1;
		qp_drop(v);
		rdma_destroy_id(v->cm_id);
		v->cm_id = NULL;
		nanosleep(&(struct timespec){ 0, 10000000L }, NULL);
		if (cm_resolve(s, v, &dst, err, errlen))
			return -1;
	}
	v->cm_connected = v->k->connected;
	return 0;
}

static int server_accept(struct tsess *s, struct verbs_priv *v, char *err,
			 size_t errlen)
{
	struct rdma_conn_param cp;
	struct ibv_qp_attr a;

	if (qp_make(s, v, err, errlen))
		return -1;
	conn_param(s, v, &cp);
	if (!v->k->connected)
		cp.qp_num = v->qp->qp_num;
	if (rdma_accept(v->cm_id, &cp)) {
		seterr(err, errlen, "rdma_accept failed: %s",
			  strerror(errno));
		return -1;
	}
	if (!v->k->connected)
		return 0; /* SIDR: no ESTABLISHED on this side */
	if (cm_expect(s, v, RDMA_CM_EVENT_ESTABLISHED,
		      now_ns() + s->p.timeout, NULL, err, errlen))
		return -1;
	v->cm_connected = true;
	if (v->k->responds) { /* as 0.4.11; iWARP refuses: ignored */
		memset(&a, 0, sizeof(a));
		a.min_rnr_timer = 12;
		ibv_modify_qp(v->qp, &a, IBV_QP_MIN_RNR_TIMER);
	}
	return 0;
}

int verbs_cm_connect(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	int rc = s->server ? server_accept(s, v, err, errlen) :
			     client_connect(s, v, err, errlen);
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (rc)
		return rc;
	if (legacy(s)) { /* 0.4.11's NODE under CM */
		v->me.lid = v->me.qpn = v->me.psn = v->me.alt_lid = 0;
		v->info.lid = v->info.qpn = v->info.psn = 0;
	}
	v->info.path_mtu = v->info.active_mtu;
	if (v->k->connected &&
	    !ibv_query_qp(v->qp, &a, IBV_QP_PATH_MTU, &ia))
		v->info.path_mtu = verbs_mtu_bytes(a.path_mtu);
	return 0;
}

void verbs_cm_close_qp(struct verbs_priv *v)
{
	struct rdma_cm_event *ev;
	uint64_t deadline = now_ns() + CM_CLOSE_WAIT;

	if (v->cm_connected && v->cm_id) {
		rdma_disconnect(v->cm_id);
		/* Bounded: a peer that died leaves us nothing to wait for. */
		while (now_ns() < deadline) {
			struct pollfd p = { v->cm_ch->fd, POLLIN, 0 };

			if (rdma_get_cm_event(v->cm_ch, &ev) == 0) {
				enum rdma_cm_event_type t = ev->event;
				struct rdma_cm_id *id = ev->id;

				if (t == RDMA_CM_EVENT_CONNECT_REQUEST)
					rdma_reject(id, NULL, 0);
				rdma_ack_cm_event(ev);
				if (t == RDMA_CM_EVENT_CONNECT_REQUEST)
					rdma_destroy_id(id);
				if (t == RDMA_CM_EVENT_DISCONNECTED &&
				    id == v->cm_id)
					break;
				continue;
			}
			if (errno != EAGAIN && errno != EINTR)
				break;
			poll(&p, 1, 50);
		}
	}
	v->cm_connected = false;
	qp_drop(v);
}

void verbs_cm_release(struct verbs_priv *v)
{
	if (v->cm_id)
		rdma_destroy_id(v->cm_id);
	v->cm_id = NULL;
	if (v->cm_listen)
		rdma_destroy_id(v->cm_listen);
	v->cm_listen = NULL;
	if (v->cm_ch)
		rdma_destroy_event_channel(v->cm_ch);
	v->cm_ch = NULL;
	v->ctx = NULL; /* librdmacm's */
}
