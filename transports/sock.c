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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/addr.h"
#include "lib/tlv.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"
#include "lib/sockcall.h"
#include "lib/random.h"
#include "sock.h"
#include "sock_io.h"
#include "transport.h"

#ifndef AF_INET_SDP
#define AF_INET_SDP 27
#endif
#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif

static const struct xport xport_tcp = { "TCP", SS_STREAM, 0, SOCK_STREAM, 0,
					&sock_calls_kernel };
const struct xport *const sock_xport_tcp = &xport_tcp;
static const struct xport xport_udp = { "UDP", SS_DGRAM, 0, SOCK_DGRAM, 0,
					&sock_calls_kernel };
static const struct xport xport_sdp = { "SDP", SS_STREAM, AF_INET_SDP,
					SOCK_STREAM, 0, &sock_calls_kernel };
static const struct xport xport_sctp = { "SCTP", SS_STREAM, 0, SOCK_STREAM,
					 IPPROTO_SCTP, &sock_calls_kernel };
static const struct xport xport_rds = { "RDS", SS_RDS, AF_RDS, SOCK_SEQPACKET,
					0, &sock_calls_kernel };

void sock_set_timeo(const struct xport *xp, int fd, int opt, uint64_t ns)
{
	struct timeval tv = { (time_t)(ns / NS_PER_SEC),
			      (suseconds_t)(ns % NS_PER_SEC / 1000) };

	if (!xp->k->nonblock) /* else every wait is a poll() */
		xp->k->setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

static void set_bufs(const struct xport *xp, int fd, uint32_t size)
{
	int v = size > 0x7fffffff ? 0x7fffffff : (int)size;

	if (!size)
		return;
	xp->k->setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	xp->k->setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

/* Error for a failed socket(), saying what the kernel lacks. */
static int socket_error(const struct xport *xp, int e, char *err,
			size_t errlen)
{
	if (e == EAFNOSUPPORT || e == EPROTONOSUPPORT || e == ESOCKTNOSUPPORT ||
	    e == EPFNOSUPPORT)
		return seterr(err, errlen,
			      "unable to make %s socket: %s (this kernel lacks %s support)%s",
			      xp->name, strerror(e), xp->name,
			      xp == &xport_sdp ?
				      "; try rs_bw or rs_lat (rsockets, SDP's successor)" :
				      "");
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
static socklen_t any_addr(const struct chan *ch, uint16_t port,
			  struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ch->local.ss_family != AF_INET) {
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

/*
 * The address the control connection arrived on, with port: data sockets
 * listen there, not on the wildcard (so a server limited with -lh stays
 * limited).  Without it (cannot happen), the wildcard.
 */
static socklen_t ctl_local_addr(const struct chan *ch, uint16_t port,
				struct sockaddr_storage *ss)
{
	if (ch->local.ss_family != AF_INET && ch->local.ss_family != AF_INET6)
		return any_addr(ch, port, ss);
	*ss = ch->local;
	sa_set_port(ss, port);
	return ch->local.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					       : sizeof(struct sockaddr_in);
}

static socklen_t sa_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

/* A v4-mapped IPv6 address becomes plain IPv4 (port kept); new length. */
static socklen_t unmap_v4(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 s6 = *(struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6.sin6_addr)) {
		memset(ss, 0, sizeof(*ss));
		s4->sin_family = AF_INET;
		s4->sin_port = s6.sin6_port;
		memcpy(&s4->sin_addr, &s6.sin6_addr.s6_addr[12], 4);
	}
	return sa_len(ss);
}

static int send_port(struct chan *c, uint16_t port, const char *item,
		     char *err, size_t errlen)
{
	uint8_t b[4] = { (uint8_t)port, (uint8_t)(port >> 8), 0, 0 };

	return c->send(c, b, sizeof(b), item, err, errlen);
}

static int recv_port(struct chan *c, uint16_t *port, const char *item,
		     char *err, size_t errlen)
{
	uint8_t b[4];
	uint32_t v;

	if (c->recv(c, b, sizeof(b), item, err, errlen) < 0)
		return -1;
	v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	if (v == 0 || v > 65535)
		return seterr(err, errlen, "invalid %s: %u", item, v);
	*port = (uint16_t)v;
	return 0;
}

#define MAX_CANDIDATES 256 /* connections read at once for the secret */

/*
 * Drop candidate i, keeping the others in the order they came, so that
 * cand[0] is always the oldest (the one a full list gives up first).
 * Moving the newest into the hole made a flood of strangers evict the
 * real client's connection as soon as one more came after it.
 */
static void cand_drop(const struct xport *xp, int *cand,
		      uint8_t (*got)[DATA_SECRET], size_t *have, int *n, int i)
{
	size_t rest = (size_t)(*n - i - 1);

	xp->k->close(cand[i]);
	memmove(&cand[i], &cand[i + 1], rest * sizeof(*cand));
	memmove(got[i], got[i + 1], rest * sizeof(*got));
	memmove(&have[i], &have[i + 1], rest * sizeof(*have));
	(*n)--;
}

/*
 * Read what candidate i sent so far (without waiting): its fd when that
 * completes the secret (the winner; its slot is then -1), else -1, the
 * candidate dropped if it hung up, failed or sent something else.
 */
static int cand_read(const struct xport *xp, int *cand,
		     uint8_t (*got)[DATA_SECRET], size_t *have, int *n, int i,
		     const uint8_t *secret, unsigned *strangers)
{
	ssize_t k = xp->k->recv(cand[i], got[i] + have[i],
				DATA_SECRET - have[i], MSG_DONTWAIT);
	int fd;

	if (k > 0)
		have[i] += (size_t)k;
	if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR) ||
	    (have[i] == DATA_SECRET &&
	     memcmp(got[i], secret, DATA_SECRET) != 0)) {
		(*strangers)++;
		cand_drop(xp, cand, got, have, n, i);
		return -1;
	}
	if (have[i] < DATA_SECRET)
		return -1;
	fd = cand[i];
	cand[i] = -1;
	return fd;
}

/*
 * accept() the test's data connection within timeout ns.  Only the
 * control connection's peer host may connect and, when secret is given
 * (a 0.5 client), only a connection that starts with it: several
 * candidates are read at once, so strangers that connect and say nothing
 * cannot hold the real client back.  Any other connection is closed and
 * the wait goes on.  The control connection is watched too: if the
 * client hangs up or reports an error meanwhile, there is nobody left to
 * wait for.  (Its POLLIN is not a sign of trouble: the client may send
 * its sync before we accept.)
 */
static int accept_bounded(const struct xport *xp, int lfd, const struct chan *c,
			  const uint8_t *secret, uint64_t timeout, char *err,
			  size_t errlen)
{
	const struct sock_calls *sk = xp->k;
	uint64_t deadline = now_ns() + timeout;
	int cand[MAX_CANDIDATES], n = 0, winner = -1;
	uint8_t got[MAX_CANDIDATES][DATA_SECRET];
	size_t have[MAX_CANDIDATES];
	unsigned strangers = 0;

	/* Accepted sockets do not inherit it (Linux accept()). */
	sk->fcntl(lfd, F_SETFL, sk->fcntl(lfd, F_GETFL) | O_NONBLOCK);
	while (winner < 0) {
		struct pollfd pfd[2 + MAX_CANDIDATES];
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		uint64_t now = now_ns();
		int fd, r;

		if (now >= deadline)
			break;
		pfd[0] = (struct pollfd){ lfd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ c->watch_fd, POLLPRI | POLLRDHUP, 0 };
		for (int i = 0; i < n; i++)
			pfd[2 + i] = (struct pollfd){ cand[i], POLLIN, 0 };
		r = sk->poll(pfd, (nfds_t)(2 + n),
			 (int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR) {
			seterr_errno(err, errlen, errno, "poll failed");
			goto out;
		}
		if (r <= 0)
			continue;
		if (pfd[1].revents) {
			seterr(err, errlen,
			       "failed to accept data connection: client not responding");
			goto out;
		}
		for (int i = n - 1; i >= 0 && winner < 0; i--)
			if (pfd[2 + i].revents)
				winner = cand_read(xp, cand, got, have, &n, i,
						   secret, &strangers);
		if (winner >= 0 || !(pfd[0].revents & POLLIN))
			continue;
		/*
		 * Empty the listen queue (lfd is non-blocking here), so that
		 * a stranger's flood of connects cannot keep it full and the
		 * real client's SYN dropped until the timeout.
		 */
		for (int burst = 0; burst < MAX_CANDIDATES && winner < 0;
		     burst++) {
			plen = sizeof(peer);
			fd = sk->accept(lfd, (struct sockaddr *)&peer, &plen);
			if (fd < 0) {
				if (errno != EINTR && errno != EAGAIN &&
				    errno != ECONNABORTED) {
					seterr_errno(err, errlen, errno,
						     "failed to accept data connection");
					goto out;
				}
				break;
			}
			if (!sa_same_host(&peer, &c->peer)) {
				strangers++;
				sk->close(fd);
			} else if (!secret) {
				winner = fd;
			} else {
				/* Full: the oldest goes, unless what it sent
				 * meanwhile is the secret (read it first: a
				 * flood must not push out a real client whose
				 * secret came after the last poll). */
				if (n == MAX_CANDIDATES)
					winner = cand_read(xp, cand, got, have,
							   &n, 0, secret,
							   &strangers);
				if (winner >= 0) {
					sk->close(fd);
					break;
				}
				if (n == MAX_CANDIDATES) {
					strangers++;
					cand_drop(xp, cand, got, have, &n, 0);
				}
				cand[n] = fd;
				have[n] = 0;
				n++;
			}
		}
	}
	if (winner < 0)
		seterr(err, errlen,
		       "failed to accept data connection: timed out%s",
		       strangers ? " (only connections from other hosts or without this test's secret came)"
				 : "");
out:
	for (int i = 0; i < n; i++)
		if (cand[i] >= 0)
			sk->close(cand[i]);
	return winner;
}

static int make_socket(const struct xport *xp, int family, char *err,
		       size_t errlen)
{
	int one = 1;
	int fd = xp->k->socket(xp->family ? xp->family : family, xp->socktype,
			       xp->protocol);

	if (fd < 0)
		return socket_error(xp, errno, err, errlen);
	/* Never on datagram sockets: another program could share the port. */
	if (xp->socktype != SOCK_DGRAM)
		xp->k->setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				  sizeof(one));
	if (family == AF_INET6 && xp->family != AF_RDS) {
		int zero = 0;

		xp->k->setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
				  sizeof(zero));
	}
	if (xp->k->nonblock)
		xp->k->fcntl(fd, F_SETFL, xp->k->fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static void nodelay(const struct xport *xp, int fd, bool lat)
{
	int one = 1;

	/* Nagle would hold back every ping-pong message. */
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
static int rds_bind_exchange(const struct xport *xp, struct chan *c,
			     const char *self, uint32_t port, uint32_t bufsize,
			     const char *peer_host, struct sock_priv *r,
			     char *err, size_t errlen)
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
	set_bufs(xp, fd, bufsize);
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

static int rds_server(const struct xport *xp, struct chan *c,
		      const struct tparams *q, struct sock_priv *r, char *err,
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
	len = any_addr(c, 0, &ss);
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
	fd = accept_bounded(&xport_tcp, lfd, c, NULL, c->timeout, err, errlen);
	close(lfd);
	if (fd < 0)
		return -1;
	getpeername(fd, (struct sockaddr *)&peer, &plen);
	close(fd);
	memset(other, 0, sizeof(other));
	numeric_host(&peer, other, sizeof(other));
	if (c->recv(c, self, sizeof(self), "server IP", err, errlen) < 0 ||
	    c->send(c, other, sizeof(other), "client IP", err, errlen) < 0)
		return -1;
	self[sizeof(self) - 1] = '\0';
	return rds_bind_exchange(xp, c, self, q->port, q->sock_buf_size, other,
				 r, err, errlen);
}

static int rds_client(const struct xport *xp, struct chan *c, uint32_t bufsize,
		      struct sock_priv *r, char *err, size_t errlen)
{
	struct sockaddr_storage peer = c->peer;
	char self[RDS_IP_SIZE], other[RDS_IP_SIZE];
	uint16_t port;
	int fd;

	if (rds_probe(xp, err, errlen) < 0)
		return -1;
	if (recv_port(c, &port, "TCP IPv4 server port", err, errlen) < 0)
		return -1;
	sa_set_port(&peer, port);
	fd = socket(peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect_bounded(fd, (struct sockaddr *)&peer,
				      sa_len(&peer), c->timeout) < 0) {
		seterr_errno(err, errlen, errno, "connect failed");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	memset(other, 0, sizeof(other));
	numeric_host(&peer, other, sizeof(other));
	if (c->send(c, other, sizeof(other), "server IP", err, errlen) < 0 ||
	    c->recv(c, self, sizeof(self), "client IP", err, errlen) < 0)
		return -1;
	self[sizeof(self) - 1] = '\0';
	return rds_bind_exchange(xp, c, self, 0, bufsize, other, r, err,
				 errlen);
}


/*
 * Calls without socket timeouts (rsockets) are non-blocking: after
 * EAGAIN, wait up to ns (0: no limit) for ev.  True: try again (ready,
 * or interrupted by the timer, which the caller then sees); false with
 * errno EAGAIN: nothing for that long, or kernel calls (whose timeouts
 * already waited).
 */
bool sock_nb_ready(struct sock_priv *sp, short ev, uint64_t ns)
{
	struct pollfd p = { sp->fd, ev, 0 };
	uint64_t ms = ns / 1000000 + 1;
	int r;

	if (!sp->xp->k->nonblock || !is_eagain(errno))
		return false;
	r = sp->xp->k->poll(&p, 1, !ns ? -1 : ms > 0x7fffffff ? 0x7fffffff
							   : (int)ms);
	if (r == 0)
		errno = EAGAIN;
	return r != 0;
}

/* Send all of buf on a stream (the data secret), waiting as needed. */
static int send_all(struct tsess *s, const struct xport *xp, int fd,
		    const uint8_t *buf, size_t len)
{
	struct sock_priv tmp = { .xp = xp, .fd = fd };

	while (len) {
		ssize_t n = xp->k->send(fd, buf, len, MSG_NOSIGNAL);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n == 0 ||
			   (errno != EINTR &&
			    !sock_nb_ready(&tmp, POLLOUT, s->p.timeout))) {
			return -1;
		}
	}
	return 0;
}

/* Between 0.5 peers a stream's data connection proves it belongs to
 * this test with a secret sent over the control connection. */
static bool use_secret(const struct tsess *s)
{
	const struct sock_priv *sp = s->priv;

	return sp->xp->style == SS_STREAM && s->ch->ext &&
	       (s->ch->peer_caps & CAP_DATA_SECRET);
}

static int send_secret(struct chan *c, struct sock_priv *sp, char *err,
		       size_t errlen)
{
	uint8_t blk[64];
	struct tlv_w w;
	size_t n;

	if (random_bytes(sp->secret, sizeof(sp->secret), err, errlen) < 0)
		return -1;
	tlv_init(&w, blk, sizeof(blk));
	tlv_bytes(&w, 1, sp->secret, sizeof(sp->secret));
	n = tlv_finish(&w);
	return c->send_ext(c, blk, n, "data secret", err, errlen);
}

/* The data secret block's one item (type 1); one of another length is
 * not a secret, and what follows it does not matter. */
static const struct tlv_field secret_tab[] = {
	{ .type = 1, .kind = TLV_BLOB, .off = offsetof(struct sock_priv, secret),
	  .size = DATA_SECRET, .flags = TLVF_LAX },
};

static int recv_secret(struct chan *c, struct sock_priv *sp, char *err,
		       size_t errlen)
{
	uint8_t blk[64];
	uint64_t seen;
	size_t n;

	if (c->recv_ext(c, blk, sizeof(blk), &n, "data secret", err,
			errlen) < 0)
		return -1;
	(void)tlv_decode(blk, n, secret_tab, 1, sp, &seen);
	return seen & TLV_BIT(1) ? 0
				 : seterr(err, errlen, "bad data secret");
}

int sock_listen(struct tsess *s, const struct xport *xp, int backlog,
		char *err, size_t errlen)
{
	const struct sock_calls *k = xp->k;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	len = ctl_local_addr(s->ch, (uint16_t)s->p.port, &ss);
	if (xp->k != &sock_calls_kernel)
		len = unmap_v4(&ss); /* rsockets: IPv4 peers need IPv4 */
	fd = make_socket(xp, ss.ss_family, err, errlen);
	if (fd < 0)
		return -1;
	set_bufs(xp, fd, s->p.sock_buf_size);
	if (k->bind(fd, (struct sockaddr *)&ss, len) < 0) {
		seterr_errno(err, errlen, errno,
			     "unable to bind %s data socket to port %u",
			     xp->name, s->p.port);
		k->close(fd);
		return -1;
	}
	if ((xp->style == SS_STREAM && k->listen(fd, backlog) < 0) ||
	    k->getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		seterr_errno(err, errlen, errno, "unable to make %s socket",
			     xp->name);
		k->close(fd);
		return -1;
	}
	if (send_port(s->ch, sa_port(&ss), "port", err, errlen) < 0) {
		k->close(fd);
		return -1;
	}
	return fd;
}

static int server_open(struct tsess *s, const struct xport *xp,
		       struct sock_priv *sp, char *err, size_t errlen)
{
	const struct sock_calls *k = xp->k;
	struct chan *c = s->ch;
	int fd;

	if (xp->style == SS_RDS)
		return rds_server(xp, c, &s->p, sp, err, errlen);
	fd = sock_listen(s, xp, MAX_CANDIDATES, err, errlen);
	if (fd < 0)
		return -1;
	if (use_secret(s) && send_secret(c, sp, err, errlen) < 0) {
		k->close(fd);
		return -1;
	}
	if (xp->style == SS_STREAM) {
		int afd = accept_bounded(xp, fd, c,
					 use_secret(s) ? sp->secret : NULL,
					 c->timeout, err, errlen);

		k->close(fd);
		if (afd < 0)
			return -1;
		fd = afd;
		set_bufs(xp, fd, s->p.sock_buf_size);
		nodelay(xp, fd, s->t->loop == LOOP_PINGPONG);
	}
	sp->fd = fd;
	return 0;
}

int sock_server_addr(struct tsess *s, struct sockaddr_storage *peer,
		     char *err, size_t errlen)
{
	uint16_t port;

	*peer = s->ch->peer;
	if (recv_port(s->ch, &port, "port", err, errlen) < 0)
		return -1;
	if (peer->ss_family != AF_INET && peer->ss_family != AF_INET6)
		return seterr(err, errlen, "no address of the server");
	sa_set_port(peer, port);
	return (int)sa_len(peer);
}

int sock_socket(const struct xport *xp, int family, uint32_t bufsize,
		char *err, size_t errlen)
{
	int fd = make_socket(xp, family, err, errlen);

	if (fd >= 0)
		set_bufs(xp, fd, bufsize);
	return fd;
}

static int client_open(struct tsess *s, const struct xport *xp,
		       struct sock_priv *sp, char *err, size_t errlen)
{
	const struct sock_calls *k = xp->k;
	struct chan *c = s->ch;
	struct sockaddr_storage peer;
	int fd, len;

	if (xp->style == SS_RDS)
		return rds_client(xp, c, s->p.sock_buf_size, sp, err, errlen);
	len = sock_server_addr(s, &peer, err, errlen);
	if (len < 0 || (use_secret(s) && recv_secret(c, sp, err, errlen) < 0))
		return -1;
	fd = sock_socket(xp, peer.ss_family, s->p.sock_buf_size, err, errlen);
	if (fd < 0)
		return -1;
	if (connect_bounded_calls(k, fd, (struct sockaddr *)&peer,
				  (unsigned)len, c->timeout) < 0 ||
	    (use_secret(s) && send_all(s, xp, fd, sp->secret,
				       sizeof(sp->secret)) < 0)) {
		seterr_errno(err, errlen, errno,
			     "could not make %s connection to server",
			     xp->name);
		k->close(fd);
		return -1;
	}
	nodelay(xp, fd, s->t->loop == LOOP_PINGPONG);
	sp->fd = fd;
	return 0;
}

/*
 * --rate on a TCP sender: let the kernel pace (SO_MAX_PACING_RATE, bytes
 * per second; TCP paces by itself since Linux 4.13, without the fq
 * qdisc).  A 64-bit value needs Linux 4.20; older kernels take 32 bits.
 * Sets s->kernel_paced when the kernel took it, else the loop paces.
 * Never for a latency test: its --rate is the open loop's schedule of
 * requests, and the kernel would pace each tiny packet, headers and all,
 * at that many bytes a second (a 1-byte tcp_lat at 80 kb/s sent a
 * seventh of its schedule).
 */
static void kernel_pace(struct tsess *s, const struct xport *xp, int fd)
{
	/* --conns: the session's rate shared by its links */
	uint64_t r = tsess_rate(s) / (s->p.conns > 1 ? s->p.conns : 1);
	uint32_t r32 = r > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)r;

	if (s->server || !r || xp != &xport_tcp ||
	    xp->k != &sock_calls_kernel || s->t->measure == MEAS_LATENCY)
		return;
	if (xp->k->setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r,
			      sizeof(r)) == 0 ||
	    (r == r32 && xp->k->setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE,
					   &r32, sizeof(r32)) == 0))
		s->kernel_paced = true;
}

int sock_open(struct tsess *s, const struct xport *xp, char *err,
	      size_t errlen)
{
	struct sock_priv *sp = s->priv;
	uint32_t n = s->p.conns > 1 ? s->p.conns : 1;

	sp->xp = xp;
	sp->fd = -1;
	/* A timed test's alarm already ends every blocking call. */
	sp->idle = !s->p.time || s->p.timeout < s->p.time ? s->p.timeout : 0;
	if (sock_conns_begin(s, sp, err, errlen) < 0)
		return -1;
	/* --conns: each link as the one connection is made (sock_conns.c) */
	for (uint32_t i = 0; i < n; i++) {
		if ((s->server ? server_open(s, xp, sp, err, errlen)
			       : client_open(s, xp, sp, err, errlen)) < 0)
			return -1;
		sock_set_timeo(sp->xp, sp->fd, SO_SNDTIMEO, sp->idle);
		sock_set_timeo(sp->xp, sp->fd, SO_RCVTIMEO, sp->idle);
		sp->rcvtimeo = sp->idle;
		sock_tune_fd(s, sp);
		kernel_pace(s, xp, sp->fd);
		sock_conns_made(sp, i);
	}
	s->buf = xcalloc(1, s->p.msg_size ? s->p.msg_size : 1);
	s->buflen = s->p.msg_size;
	sock_tune(s, sp);
	return 0;
}

void sock_close(struct tsess *s)
{
	struct sock_priv *sp = s->priv;

	sock_conns_close(sp);
	if (sp->fd >= 0 && sp->xp)
		sp->xp->k->close(sp->fd);
	sp->fd = -1;
	sock_untune(sp);
	free(s->buf);
	s->buf = NULL;
}

#define SOCK_OPEN(x)                                                   \
	static int open_##x(struct tsess *s, char *err, size_t errlen) \
	{                                                              \
		return sock_open(s, &xport_##x, err, errlen);          \
	}
SOCK_OPEN(tcp)
SOCK_OPEN(udp)
SOCK_OPEN(sdp)
SOCK_OPEN(sctp)
SOCK_OPEN(rds)

#define UDP_MAX_PAYLOAD 65507 /* 65535 - IPv4 and UDP headers */

_Static_assert(sizeof(struct sock_priv) <= SOCK_PRIV_MAX,
	       "SOCK_PRIV_MAX too small");

#define SOCK_TRANSPORT(x, lbl, fl, max)                               \
	const struct transport transport_##x = {                      \
		.name = #x, .label = lbl, .flags = (fl) | TF_CLOSE_EARLY, \
		.max_msg = max, .priv_size = sizeof(struct sock_priv),  \
		.check = sock_conns_check, .open = open_##x,            \
		.close = sock_close, .post = sock_post,                 \
		.poll = sock_poll, .counters = sock_counters,           \
		.qp_stats = sock_conns_stats, .facts = sock_facts,      \
	}

SOCK_TRANSPORT(tcp, "TCP", TF_EOF_ENDS, 0);
SOCK_TRANSPORT(udp, "a UDP datagram", TF_LOSSY, UDP_MAX_PAYLOAD);
SOCK_TRANSPORT(sdp, "SDP", TF_EOF_ENDS, 0);
SOCK_TRANSPORT(sctp, "SCTP", TF_EOF_ENDS, 0);
SOCK_TRANSPORT(rds, "RDS", 0, 0);
