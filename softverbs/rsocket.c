// SPDX-License-Identifier: MIT
/*
 * softverbs' rsockets: descriptors, connection setup and teardown, options.
 * rsocket, rbind, rlisten, raccept, rconnect, rshutdown, rclose,
 * rgetpeername, rgetsockname, rsetsockopt, rgetsockopt, rfcntl.
 * The data path is in rsocket_io.c; the protocol in rs_internal.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rs_internal.h"

static pthread_mutex_t rs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rsock **rs_tab;
static int rs_tab_len;

struct rsock *rs_get(int fd)
{
	struct rsock *rs = NULL;

	pthread_mutex_lock(&rs_lock);
	if (fd >= 0 && fd < rs_tab_len)
		rs = rs_tab[fd];
	pthread_mutex_unlock(&rs_lock);
	return rs;
}

struct rsock *rs_of(int fd)
{
	struct rsock *rs = rs_get(fd);

	if (!rs)
		errno = EBADF;
	return rs;
}

struct rsock *rs_of_in(int fd, enum rs_state st, int err)
{
	struct rsock *rs = rs_of(fd);

	if (rs && rs->state != st) {
		errno = err;
		return NULL;
	}
	return rs;
}

static int rs_insert(struct rsock *rs)
{
	int fd = rs->fd;

	pthread_mutex_lock(&rs_lock);
	if (fd >= rs_tab_len) {
		int n = fd + 64;
		struct rsock **t = realloc(rs_tab, (size_t)n * sizeof(*t));

		if (!t) {
			pthread_mutex_unlock(&rs_lock);
			return cm_fail(ENOMEM);
		}
		memset(t + rs_tab_len, 0, (size_t)(n - rs_tab_len) * sizeof(*t));
		rs_tab = t;
		rs_tab_len = n;
	}
	rs_tab[fd] = rs;
	pthread_mutex_unlock(&rs_lock);
	return 0;
}

static void rs_remove(int fd)
{
	pthread_mutex_lock(&rs_lock);
	if (fd >= 0 && fd < rs_tab_len)
		rs_tab[fd] = NULL;
	pthread_mutex_unlock(&rs_lock);
}

/* a new rsocket with its own (non-blocking) event channel */
static struct rsock *rs_alloc(int domain)
{
	struct cm_channel *c;
	struct rsock *rs;

	if (cm_init())
		return NULL;
	rs = calloc(1, sizeof(*rs));
	c = rs ? cm_channel_new() : NULL;
	if (!c) {
		free(rs);
		errno = ENOMEM;
		return NULL;
	}
	rs->ch = &c->ch;
	rs->fd = c->ch.fd;
	rs->domain = domain;
	rs->peer_slot = RS_SLOT_MIN;
	fcntl(rs->fd, F_SETFL, fcntl(rs->fd, F_GETFL) | O_NONBLOCK);
	return rs;
}

static void rs_free(struct rsock *rs)
{
	int i;

	rs_teardown(rs);
	for (i = 0; i < rs->nreqs; i++) {
		rdma_reject(rs->reqs[i]->id, NULL, 0);
		rdma_destroy_id(rs->reqs[i]->id);
		rdma_ack_cm_event(rs->reqs[i]);
	}
	if (rs->id)
		rdma_destroy_id(rs->id);
	cm_channel_free((struct cm_channel *)rs->ch);
	free(rs);
}

CM_EXPORT int rsocket(int domain, int type, int protocol)
{
	int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rsock *rs;

	type &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (domain != AF_INET && domain != AF_INET6)
		return cm_fail(EAFNOSUPPORT);
	if ((type != SOCK_STREAM && type != SOCK_DGRAM) ||
	    (type == SOCK_STREAM && protocol && protocol != IPPROTO_TCP) ||
	    (type == SOCK_DGRAM && protocol && protocol != IPPROTO_UDP))
		return cm_fail(EPROTONOSUPPORT);
	rs = rs_alloc(domain);
	if (!rs)
		return -1;
	rs->dgram = type == SOCK_DGRAM;
	if (rdma_create_id(rs->ch, &rs->id, rs,
			   rs->dgram ? RDMA_PS_UDP : RDMA_PS_TCP) ||
	    rs_insert(rs)) {
		int e = errno;

		rs_free(rs);
		return cm_fail(e);
	}
	rs->nonblock = !!(flags & SOCK_NONBLOCK);
	return rs->fd;
}

CM_EXPORT int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsock *rs = rs_of(socket);

	if (!rs)
		return -1;
	if (!addr || addrlen < cm_addrlen(addr) || rs->state != RS_INIT)
		return cm_fail(EINVAL);
	if (rs->dgram)
		return rs_ds_bind(rs, addr);
	if (rs->v6only)
		rdma_set_option(rs->id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
				&rs->v6only, sizeof(rs->v6only));
	if (rdma_bind_addr(rs->id, (struct sockaddr *)addr))
		return -1;
	rs->state = RS_BOUND;
	return 0;
}

CM_EXPORT int rlisten(int socket, int backlog)
{
	struct rsock *rs = rs_of_in(socket, RS_BOUND, EINVAL);

	if (!rs)
		return -1;
	if (rs->dgram)
		return cm_fail(EOPNOTSUPP);
	if (rdma_listen(rs->id, backlog))
		return -1;
	rs->state = RS_LISTENING;
	return 0;
}

static void rs_hello(struct rsock *rs, struct rs_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = RS_MAGIC;
	h->slot_size = rs->slot_size;
	h->slots = RS_SLOTS;
}

/* the connection parameters of both sides: h (our hello) as private data */
static void rs_conn_param(struct rsock *rs, struct rdma_conn_param *cp,
			  struct rs_hello *h)
{
	rs_hello(rs, h);
	memset(cp, 0, sizeof(*cp));
	cp->private_data = h;
	cp->private_data_len = sizeof(*h);
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	cp->rnr_retry_count = 7;
}

static void rs_peer_hello(struct rsock *rs, const void *pd, uint8_t len)
{
	struct rs_hello h;

	if (!pd || len < sizeof(h))
		return;
	memcpy(&h, pd, sizeof(h));
	if (h.magic == RS_MAGIC && h.slot_size >= RS_SLOT_MIN &&
	    h.slot_size <= RS_SLOT_MAX)
		rs->peer_slot = h.slot_size;
}

static int status_errno(int status, enum rdma_cm_event_type ev)
{
	if (ev == RDMA_CM_EVENT_REJECTED)
		return ECONNREFUSED;
	if (status < 0)
		return -status;
	return ev == RDMA_CM_EVENT_UNREACHABLE ? ETIMEDOUT : EHOSTUNREACH;
}

/* the connect state machine and the listener's queue */
int rs_cm_events(struct rsock *rs)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct rs_hello h;
	int n = 0;

	while (!rdma_get_cm_event(rs->ch, &ev)) {
		n++;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (rs->state == RS_LISTENING &&
			    rs->nreqs < (int)(sizeof(rs->reqs) / sizeof(rs->reqs[0]))) {
				rs->reqs[rs->nreqs++] = ev;
				continue;	/* acked by raccept */
			}
			rdma_reject(ev->id, NULL, 0);
			rdma_destroy_id(ev->id);
			break;
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (rdma_resolve_route(rs->id, 2000)) {
				rs->err = errno;
				rs->state = RS_FAILED;
			}
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			if (rs_setup_qp(rs)) {
				rs->err = errno;
				rs->state = RS_FAILED;
				break;
			}
			rs_conn_param(rs, &cp, &h);
			cp.retry_count = 7;
			if (rdma_connect(rs->id, &cp)) {
				rs->err = errno;
				rs->state = RS_FAILED;
				break;
			}
			rs->state = RS_CONNECTING;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (rs->state == RS_CONNECTING) {
				rs_peer_hello(rs, ev->param.conn.private_data,
					      ev->param.conn.private_data_len);
				rs->state = RS_CONNECTED;
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rs->disconnected = true;
			rdma_disconnect(rs->id);
			break;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			if (rs->state == RS_CONNECTED) {
				rs->disconnected = true;
				rs->err = ECONNRESET;
			} else {
				rs->err = status_errno(ev->status, ev->event);
				rs->state = RS_FAILED;
			}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return n;
}

CM_EXPORT int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rsock *l = rs_of_in(socket, RS_LISTENING, EINVAL), *rs;
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct rs_hello h;

	if (!l)
		return -1;
	while (!l->nreqs) {
		rs_cm_events(l);
		if (l->nreqs)
			break;
		if (l->nonblock)
			return cm_fail(EAGAIN);
		rs_wait(l, -1);
	}
	ev = l->reqs[0];
	memmove(l->reqs, l->reqs + 1, (size_t)--l->nreqs * sizeof(l->reqs[0]));
	rs = rs_alloc(l->domain);
	if (!rs)
		goto reject;
	rs->sndbuf = l->sndbuf;
	rs->rcvbuf = l->rcvbuf;
	rs->nodelay = l->nodelay;
	rs->iomapsize = l->iomapsize;
	rs->id = ev->id;
	rs_peer_hello(rs, ev->param.conn.private_data,
		      ev->param.conn.private_data_len);
	if (rdma_migrate_id(rs->id, rs->ch) || rs_setup_qp(rs))
		goto reject;
	rs->id->context = rs;
	rs_conn_param(rs, &cp, &h);
	if (rdma_accept(rs->id, &cp) || rs_insert(rs))
		goto reject;
	rdma_ack_cm_event(ev);
	rs->state = RS_CONNECTED;
	if (addr && addrlen)
		rgetpeername(rs->fd, addr, addrlen);
	return rs->fd;
reject:
	{
		int e = errno ? errno : ENOMEM;

		rdma_reject(ev->id, NULL, 0);
		if (rs) {
			/* its QP, id and (migrated) channel go together */
			rs_remove(rs->fd);
			rs_free(rs);
		} else {
			rdma_destroy_id(ev->id);
		}
		rdma_ack_cm_event(ev);
		errno = e;
	}
	return -1;
}

CM_EXPORT int rconnect(int socket, const struct sockaddr *addr,
		       socklen_t addrlen)
{
	struct rsock *rs = rs_of(socket);

	if (!rs)
		return -1;
	if (!addr || addrlen < cm_addrlen(addr))
		return cm_fail(EINVAL);
	if (rs->dgram)
		return rs_ds_connect(rs, addr);
	if (rs->state == RS_RESOLVING || rs->state == RS_CONNECTING)
		return cm_fail(EALREADY);
	if (rs->state == RS_CONNECTED)
		return cm_fail(EISCONN);
	if (rs->state != RS_INIT && rs->state != RS_BOUND)
		return cm_fail(EINVAL);
	if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr, 2000))
		return -1;
	rs->state = RS_RESOLVING;
	if (rs->nonblock) {
		rs_cm_events(rs);
		if (rs->state == RS_CONNECTED)
			return 0;
		return cm_fail(EINPROGRESS);
	}
	while (rs->state == RS_RESOLVING || rs->state == RS_CONNECTING)
		rs_wait(rs, -1);
	if (rs->state != RS_CONNECTED) {
		errno = rs->err ? rs->err : ECONNREFUSED;
		rs->err = 0;
		return -1;
	}
	return 0;
}

CM_EXPORT int rshutdown(int socket, int how)
{
	struct rsock *rs = rs_of_in(socket, RS_CONNECTED, ENOTCONN);

	if (!rs)
		return -1;
	if (how == SHUT_RD || how == SHUT_RDWR)
		rs->rd_shut = true;
	if ((how == SHUT_WR || how == SHUT_RDWR) && !rs->wr_shut) {
		rs->wr_shut = true;
		if (!rs->disconnected && !rs->fin_sent) {
			rs_progress(rs);
			rs->fin_sent = !rs_ctrl(rs, RS_FIN, 0);
		}
	}
	return 0;
}

CM_EXPORT int rclose(int socket)
{
	struct rsock *rs = rs_of(socket);

	if (!rs)
		return -1;
	if (rs->state == RS_CONNECTED && !rs->disconnected) {
		rs_progress(rs);
		if (rs->linger.l_onoff && !rs->linger.l_linger)
			rs_ctrl(rs, RS_RST, 0);	/* abortive close */
		else if (!rs->fin_sent)
			rs->fin_sent = !rs_ctrl(rs, RS_FIN, 0);
		/*
		 * What was written is delivered, as on a socket; so is the RST
		 * of an abortive close (SO_LINGER 0): the peer must have it
		 * before our DREQ, which moves the peer's QP to ERR once
		 * SOFTVERBS_CM_DRAIN_MS have passed whether or not it has
		 * read the RST by then (it then saw end of file, not a reset).
		 */
		rs_drain(rs, rs->linger.l_onoff && rs->linger.l_linger ?
				     rs->linger.l_linger * 1000 : 5000);
		rdma_disconnect(rs->id);
	}
	rs_remove(socket);
	rs_free(rs);
	return 0;
}

static int name_of(const struct sockaddr *sa, struct sockaddr *addr,
		   socklen_t *addrlen)
{
	socklen_t n = cm_addrlen(sa);

	if (!addr || !addrlen)
		return cm_fail(EFAULT);
	if (!n)
		return cm_fail(ENOTCONN);
	memcpy(addr, sa, *addrlen < n ? *addrlen : n);
	*addrlen = n;
	return 0;
}

CM_EXPORT int rgetpeername(int socket, struct sockaddr *addr,
			   socklen_t *addrlen)
{
	struct rsock *rs = rs_get(socket);

	if (rs && rs->dgram)
		return rs_ds_peer(rs, addr, addrlen);
	rs = rs_of_in(socket, RS_CONNECTED, ENOTCONN);

	if (!rs)
		return -1;
	return name_of(rdma_get_peer_addr(rs->id), addr, addrlen);
}

CM_EXPORT int rgetsockname(int socket, struct sockaddr *addr,
			   socklen_t *addrlen)
{
	struct rsock *rs = rs_of(socket);

	if (!rs)
		return -1;
	if (!cm_addrlen(rdma_get_local_addr(rs->id))) {
		/* unbound: the wildcard address of the family, port 0 */
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		ss.ss_family = (sa_family_t)rs->domain;
		return name_of((struct sockaddr *)&ss, addr, addrlen);
	}
	return name_of(rdma_get_local_addr(rs->id), addr, addrlen);
}

/* ---- options ------------------------------------------------------------- */

/* the int options: where they are in struct rsock */
#define RS_OPT(level, name, field) { level, name, offsetof(struct rsock, field) }
static const struct {
	int level, name;
	size_t off;
} int_opts[] = {
	RS_OPT(SOL_SOCKET, SO_REUSEADDR, reuse),
	RS_OPT(SOL_SOCKET, SO_KEEPALIVE, keepalive),
	RS_OPT(SOL_SOCKET, SO_OOBINLINE, oobinline),
	RS_OPT(SOL_SOCKET, SO_SNDBUF, sndbuf),
	RS_OPT(SOL_SOCKET, SO_RCVBUF, rcvbuf),
	RS_OPT(IPPROTO_TCP, TCP_NODELAY, nodelay),
	RS_OPT(IPPROTO_IPV6, IPV6_V6ONLY, v6only),
	RS_OPT(SOL_RDMA, RDMA_SQSIZE, sqsize),
	RS_OPT(SOL_RDMA, RDMA_RQSIZE, rqsize),
	RS_OPT(SOL_RDMA, RDMA_INLINE, inline_size),
	RS_OPT(SOL_RDMA, RDMA_IOMAPSIZE, iomapsize),
};
#undef RS_OPT

static int *int_opt(struct rsock *rs, int level, int name)
{
	size_t i;

	for (i = 0; i < sizeof(int_opts) / sizeof(int_opts[0]); i++)
		if (int_opts[i].level == level && int_opts[i].name == name)
			return (int *)((char *)rs + int_opts[i].off);
	return NULL;
}

CM_EXPORT int rsetsockopt(int socket, int level, int optname,
			  const void *optval, socklen_t optlen)
{
	struct rsock *rs = rs_of(socket);
	int *p;

	if (!rs)
		return -1;
	if (!optval)
		return cm_fail(EFAULT);
	if (level == SOL_SOCKET && optname == SO_LINGER) {
		if (optlen < sizeof(struct linger))
			return cm_fail(EINVAL);
		memcpy(&rs->linger, optval, sizeof(rs->linger));
		return 0;
	}
	p = int_opt(rs, level, optname);
	if (!p) {
		errno = ENOPROTOOPT;	/* RDMA_ROUTE: the route is fixed */
		return -1;
	}
	if (optlen < sizeof(int))
		return cm_fail(EINVAL);
	memcpy(p, optval, sizeof(int));
	if (level == SOL_SOCKET && optname == SO_REUSEADDR)
		rdma_set_option(rs->id, RDMA_OPTION_ID,
				RDMA_OPTION_ID_REUSEADDR, p, sizeof(int));
	return 0;
}

CM_EXPORT int rgetsockopt(int socket, int level, int optname, void *optval,
			  socklen_t *optlen)
{
	struct rsock *rs = rs_of(socket);
	int v, *p;

	if (!rs)
		return -1;
	if (!optval || !optlen)
		return cm_fail(EFAULT);
	if (level == SOL_SOCKET && optname == SO_LINGER) {
		if (*optlen < sizeof(struct linger))
			return cm_fail(EINVAL);
		memcpy(optval, &rs->linger, sizeof(rs->linger));
		*optlen = sizeof(struct linger);
		return 0;
	}
	if (level == SOL_SOCKET && optname == SO_ERROR) {
		rs_progress(rs);
		v = rs->err;
		rs->err = 0;
	} else if (level == IPPROTO_TCP && optname == TCP_MAXSEG) {
		v = (int)(rs->peer_slot < rs->sslot || !rs->sslot ?
				  rs->peer_slot :
				  rs->sslot);
	} else {
		p = int_opt(rs, level, optname);
		if (!p)
			return cm_fail(ENOPROTOOPT);
		v = *p;
		if (level == SOL_SOCKET &&
		    (optname == SO_SNDBUF || optname == SO_RCVBUF) && !v)
			v = RS_SLOTS * RS_SLOT_DEF;
	}
	if (*optlen < sizeof(int))
		return cm_fail(EINVAL);
	memcpy(optval, &v, sizeof(v));
	*optlen = sizeof(int);
	return 0;
}

CM_EXPORT int rfcntl(int socket, int cmd, ...)
{
	struct rsock *rs = rs_of(socket);
	va_list ap;
	long arg;

	if (!rs)
		return -1;
	switch (cmd) {
	case F_GETFL:
		return O_RDWR | (rs->nonblock ? O_NONBLOCK : 0);
	case F_SETFL:
		va_start(ap, cmd);
		arg = va_arg(ap, long);
		va_end(ap);
		rs->nonblock = !!(arg & O_NONBLOCK);
		return 0;
	default:
		return cm_fail(ENOSYS);
	}
}
