// SPDX-License-Identifier: GPL-2.0-only
/*
 * Socket transports: the descriptors of tcp, udp, sdp, sctp and rds, and
 * the data-socket setup they share (spec §2.9).
 *
 * Differences from 0.4.11, all deliberate: the server's data socket uses
 * the address family of the control connection (so a host without IPv6
 * works); the stream listener is created before the port is announced and
 * its accept() is bounded by the timeout (0.4.11 could hang forever);
 * socket buffer sizes are set before listen() so window scaling can use
 * them, and the client applies its own -lsb; the client connects to the
 * address its control connection reached instead of re-resolving.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/ctl.h"
#include "../core/measure.h"
#include "../core/util.h"
#include "sock.h"

#ifndef AF_INET_SDP
#define AF_INET_SDP 27
#endif
#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif

const struct xport xport_tcp = { "TCP", "tcp", SS_STREAM, 0, SOCK_STREAM, 0 };
const struct xport xport_udp = { "UDP", "udp", SS_DGRAM, 0, SOCK_DGRAM, 0 };
const struct xport xport_sdp = { "SDP", "sdp", SS_STREAM, AF_INET_SDP,
				 SOCK_STREAM, 0 };
const struct xport xport_sctp = { "SCTP", "sctp", SS_STREAM, 0, SOCK_STREAM,
				  IPPROTO_SCTP };
const struct xport xport_rds = { "RDS", "rds", SS_RDS, AF_RDS, SOCK_SEQPACKET,
				 0 };

void sock_set_idle(int fd, uint64_t ns)
{
	struct timeval tv = { (time_t)(ns / NS_PER_SEC),
			      (suseconds_t)(ns % NS_PER_SEC / 1000) };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static void set_bufs(int fd, uint32_t size)
{
	int v = size > 0x7fffffff ? 0x7fffffff : (int)size;

	if (!size)
		return;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

/* Error for a failed socket(), saying what the kernel lacks. */
static int socket_error(const struct xport *xp, int e, char *err,
			size_t errlen)
{
	if (e == EAFNOSUPPORT || e == EPROTONOSUPPORT || e == ESOCKTNOSUPPORT ||
	    e == EPFNOSUPPORT)
		return seterr(err, errlen,
			      "unable to make %s socket: %s (this kernel lacks %s support)",
			      xp->name, strerror(e), xp->name);
	return seterr_errno(err, errlen, e, "unable to make %s socket",
			    xp->name);
}

static uint16_t sa_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* A wildcard address of the control connection's family, with port. */
static socklen_t any_addr(int ctlfd, uint16_t port,
			  struct sockaddr_storage *ss)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);

	memset(ss, 0, sizeof(*ss));
	if (getsockname(ctlfd, (struct sockaddr *)&local, &len) < 0 ||
	    local.ss_family != AF_INET) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
}

static socklen_t sa_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

static int send_port(struct ctl *c, uint16_t port, const char *item,
		     char *err, size_t errlen)
{
	uint8_t b[4] = { (uint8_t)port, (uint8_t)(port >> 8), 0, 0 };

	return ctl_send(c, b, sizeof(b), item, err, errlen);
}

static int recv_port(struct ctl *c, uint16_t *port, const char *item,
		     char *err, size_t errlen)
{
	uint8_t b[4];
	uint32_t v;

	if (ctl_recv(c, b, sizeof(b), item, err, errlen) < 0)
		return -1;
	v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	if (v == 0 || v > 65535)
		return seterr(err, errlen, "invalid %s: %u", item, v);
	*port = (uint16_t)v;
	return 0;
}

/*
 * accept() within timeout ns; returns the fd or -1 with err filled.  The
 * control connection is watched too: if the client hangs up or reports
 * an error meanwhile, there is nobody left to wait for.  (Its POLLIN is
 * not a sign of trouble: the client may send its sync before we accept.)
 */
static int accept_bounded(int lfd, int ctlfd, uint64_t timeout, char *err,
			  size_t errlen)
{
	uint64_t deadline = now_ns() + timeout;

	for (;;) {
		struct pollfd pfd[2] = { { lfd, POLLIN, 0 },
					 { ctlfd, POLLPRI | POLLRDHUP, 0 } };
		uint64_t now = now_ns();
		int fd, r;

		if (now >= deadline)
			return seterr(err, errlen,
				      "failed to accept data connection: timed out");
		r = poll(pfd, 2, (int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			return seterr_errno(err, errlen, errno, "poll failed");
		if (r <= 0)
			continue;
		if (pfd[1].revents)
			return seterr(err, errlen,
				      "failed to accept data connection: client not responding");
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
			return seterr_errno(err, errlen, errno,
					    "failed to accept data connection");
	}
}

int sock_connect_bounded(int fd, const struct sockaddr *sa, socklen_t len,
			   uint64_t timeout)
{
	int fl = fcntl(fd, F_GETFL);
	int r, e = 0;
	socklen_t el = sizeof(e);
	struct pollfd pfd = { fd, POLLOUT, 0 };
	uint64_t deadline = now_ns() + timeout;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	r = connect(fd, sa, len);
	if (r < 0 && errno == EINPROGRESS) {
		do {
			uint64_t now = now_ns();

			if (now >= deadline) {
				errno = ETIMEDOUT;
				return -1;
			}
			r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		} while (r < 0 ? errno == EINTR : r == 0);
		if (r < 0)
			return -1;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e) {
			errno = e;
			return -1;
		}
		r = 0;
	}
	if (r == 0)
		fcntl(fd, F_SETFL, fl);
	return r;
}

static int make_socket(const struct xport *xp, int family, char *err,
		       size_t errlen)
{
	int one = 1;
	int fd = socket(xp->family ? xp->family : family,
			xp->socktype | SOCK_CLOEXEC, xp->protocol);

	if (fd < 0)
		return socket_error(xp, errno, err, errlen);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6 && xp->family != AF_RDS) {
		int zero = 0;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	return fd;
}

static void nodelay(const struct xport *xp, int fd, bool lat)
{
	int one = 1;

	if (lat && xp == &xport_tcp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Numeric host of ss; v4-mapped IPv6 addresses become plain IPv4. */
static void numeric_host(const struct sockaddr_storage *ss, char *out,
			 size_t len)
{
	struct sockaddr_storage tmp = *ss;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&tmp;

			memset(&tmp, 0, sizeof(tmp));
			s4->sin_family = AF_INET;
			memcpy(&s4->sin_addr, &s6->sin6_addr.s6_addr[12], 4);
		}
	}
	if (getnameinfo((struct sockaddr *)&tmp, sa_len(&tmp), out,
			(socklen_t)len, NULL, 0, NI_NUMERICHOST) != 0)
		xsnprintf(out, len, "0.0.0.0");
}

#define RDS_IP_SIZE 1025 /* NI_MAXHOST, as 0.4.11 sends it */

/*
 * RDS: the peers learn how they see each other over a short-lived TCP
 * connection, bind RDS sockets to those addresses and swap RDS ports
 * (spec §2.9).  Untested here: no kernel on our machines has RDS.
 */
static int rds_bind_exchange(const struct xport *xp, struct ctl *c,
			     const char *self, uint32_t port, uint32_t bufsize,
			     const char *peer_host, struct run *r, char *err,
			     size_t errlen)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	uint16_t peer_port;
	int fd = make_socket(xp, AF_INET, err, errlen);

	if (fd < 0)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, self, &sin.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) < 0) {
		seterr_errno(err, errlen, errno, "RDS bind to %s failed", self);
		close(fd);
		return -1;
	}
	set_bufs(fd, bufsize);
	if (send_port(c, ntohs(sin.sin_port), "RDS port", err, errlen) < 0 ||
	    recv_port(c, &peer_port, "RDS port", err, errlen) < 0) {
		close(fd);
		return -1;
	}
	memset(&r->peer, 0, sizeof(r->peer));
	sin.sin_port = htons(peer_port);
	if (inet_pton(AF_INET, peer_host, &sin.sin_addr) != 1) {
		close(fd);
		return seterr(err, errlen, "bad RDS peer address");
	}
	memcpy(&r->peer, &sin, sizeof(sin));
	r->peerlen = sizeof(sin);
	r->fd = fd;
	return 0;
}

static int rds_probe(const struct xport *xp, char *err, size_t errlen)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return socket_error(xp, errno, err, errlen);
	close(fd);
	return 0;
}

static int rds_server(const struct xport *xp, struct ctl *c,
		      const struct req *q, struct run *r, char *err,
		      size_t errlen)
{
	struct sockaddr_storage ss, peer;
	socklen_t len = sizeof(ss), plen = sizeof(peer);
	char self[RDS_IP_SIZE], other[RDS_IP_SIZE];
	int lfd, fd;

	if (rds_probe(xp, err, errlen) < 0)
		return -1;
	lfd = make_socket(&xport_tcp, AF_INET6, err, errlen);
	if (lfd < 0)
		return -1;
	len = any_addr(c->fd, 0, &ss);
	if (bind(lfd, (struct sockaddr *)&ss, len) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&ss, &len) < 0) {
		close(lfd);
		return seterr_errno(err, errlen, errno,
				    "unable to make TCP socket");
	}
	if (send_port(c, sa_port(&ss), "TCP server port", err, errlen) < 0) {
		close(lfd);
		return -1;
	}
	fd = accept_bounded(lfd, c->fd, c->timeout, err, errlen);
	close(lfd);
	if (fd < 0)
		return -1;
	getpeername(fd, (struct sockaddr *)&peer, &plen);
	close(fd);
	memset(other, 0, sizeof(other));
	numeric_host(&peer, other, sizeof(other));
	if (ctl_recv(c, self, sizeof(self), "server IP", err, errlen) < 0 ||
	    ctl_send(c, other, sizeof(other), "client IP", err, errlen) < 0)
		return -1;
	self[sizeof(self) - 1] = '\0';
	return rds_bind_exchange(xp, c, self, q->port, q->sock_buf_size, other,
				 r, err, errlen);
}

static int rds_client(const struct xport *xp, struct ctl *c, uint32_t bufsize,
		      struct run *r, char *err, size_t errlen)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	char self[RDS_IP_SIZE], other[RDS_IP_SIZE];
	uint16_t port;
	int fd;

	if (rds_probe(xp, err, errlen) < 0)
		return -1;
	if (recv_port(c, &port, "TCP IPv4 server port", err, errlen) < 0)
		return -1;
	if (getpeername(c->fd, (struct sockaddr *)&peer, &plen) < 0)
		return seterr_errno(err, errlen, errno, "getpeername failed");
	sa_set_port(&peer, port);
	fd = socket(peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sock_connect_bounded(fd, (struct sockaddr *)&peer,
				      sa_len(&peer), c->timeout) < 0) {
		seterr_errno(err, errlen, errno, "connect failed");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	memset(other, 0, sizeof(other));
	numeric_host(&peer, other, sizeof(other));
	if (ctl_send(c, other, sizeof(other), "server IP", err, errlen) < 0 ||
	    ctl_recv(c, self, sizeof(self), "client IP", err, errlen) < 0)
		return -1;
	self[sizeof(self) - 1] = '\0';
	return rds_bind_exchange(xp, c, self, 0, bufsize, other, r, err,
				 errlen);
}

int sock_server_open(const struct xport *xp, struct ctl *c,
		     const struct req *q, bool lat, struct run *r, char *err,
		     size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	if (xp->style == SS_RDS)
		return rds_server(xp, c, q, r, err, errlen);
	len = any_addr(c->fd, (uint16_t)q->port, &ss);
	fd = make_socket(xp, ss.ss_family, err, errlen);
	if (fd < 0)
		return -1;
	set_bufs(fd, q->sock_buf_size);
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		seterr_errno(err, errlen, errno,
			     "unable to bind %s data socket to port %u",
			     xp->name, q->port);
		close(fd);
		return -1;
	}
	if ((xp->style == SS_STREAM && listen(fd, 1) < 0) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		seterr_errno(err, errlen, errno, "unable to make %s socket",
			     xp->name);
		close(fd);
		return -1;
	}
	if (send_port(c, sa_port(&ss), "port", err, errlen) < 0) {
		close(fd);
		return -1;
	}
	if (xp->style == SS_STREAM) {
		int afd = accept_bounded(fd, c->fd, c->timeout, err, errlen);

		close(fd);
		if (afd < 0)
			return -1;
		fd = afd;
		set_bufs(fd, q->sock_buf_size);
		nodelay(xp, fd, lat);
	}
	r->fd = fd;
	return 0;
}

int sock_client_open(const struct xport *xp, struct ctl *c, uint32_t bufsize,
		     bool lat, struct run *r, char *err, size_t errlen)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	uint16_t port;
	int fd;

	if (xp->style == SS_RDS)
		return rds_client(xp, c, bufsize, r, err, errlen);
	if (recv_port(c, &port, "port", err, errlen) < 0)
		return -1;
	if (getpeername(c->fd, (struct sockaddr *)&peer, &plen) < 0)
		return seterr_errno(err, errlen, errno, "getpeername failed");
	sa_set_port(&peer, port);
	fd = make_socket(xp, peer.ss_family, err, errlen);
	if (fd < 0)
		return -1;
	set_bufs(fd, bufsize);
	if (sock_connect_bounded(fd, (struct sockaddr *)&peer, sa_len(&peer),
			    c->timeout) < 0) {
		seterr_errno(err, errlen, errno,
			     "could not make %s connection to server",
			     xp->name);
		close(fd);
		return -1;
	}
	nodelay(xp, fd, lat);
	r->fd = fd;
	return 0;
}
