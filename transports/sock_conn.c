// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection test's transport (tcp_conn, docs/conn.md): a new TCP
 * connection per transaction, like netperf's TCP_CRR.  open() makes the
 * server's listener on the control connection's local address and tells
 * the client its port (the exchange of the other socket tests); each
 * transaction then runs its three steps (enum tcp_step) through conn():
 *
 *   client                               server
 *   connect ------------------------->   accept (the client's host only)
 *   read 1 byte   <--- greeting ------   write 1 byte at once
 *   send msg_size --- request ------->   read msg_size
 *   read msg_size <-- answer ---------   write msg_size
 *   shutdown(WR) ---- FIN ----------->   read to EOF, close
 *   read to EOF, close
 *
 * so a server slow to accept shows in the client's connect step.  Every
 * socket is non-blocking and every wait a poll() bounded by the timeout
 * and cut short by the timer (s->stop).  The server closes, without
 * waiting, connections from any host but the control connection's peer,
 * and drops a transaction whose client goes away or stalls (TP_SOFT), so
 * neither a stranger nor a vanished client can hang it.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/addr.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "sock.h"
#include "sock_io.h"
#include "transport.h"

#define CONN_MAX_MSG (1u << 20) /* bytes of a request, at most */
#define CONN_BACKLOG 4096 /* connections the kernel queues (SOMAXCONN) */
#define CONN_CAND 64 /* greeted connections kept waiting, at most */
#define GREETING 'G'

/* The steps of one transaction, in order (conn_names). */
enum tcp_step {
	CONN_OPEN, /* client: connect, read the greeting; server: accept,
		    * write the greeting */
	CONN_ANSWER, /* client: send the request, read the answer; server:
		      * read the request, send the answer */
	CONN_CLOSE /* client: shut down its side, read to the server's EOF,
		    * close; server: read to the client's EOF, close */
};

static const struct conn_steps conn_names = {
	3, { "connect", "answer", "close" }
};

struct conn_priv {
	int lfd; /* server: the listener; -1 if none */
	int fd; /* this transaction's connection; -1 if none */
	struct sockaddr_storage peer; /* client: the server's data address */
	int peerlen;
	uint64_t n; /* transactions begun */
	uint64_t strangers; /* server: connections from other hosts */
	/* server: greeted connections from the client's host that have
	 * not sent anything yet, oldest first, and when each came (ns) */
	int cand[CONN_CAND];
	uint64_t cand_at[CONN_CAND];
	int ncand;
};

/* What xfer() and wait_fd() return besides 1 (done). */
#define X_STOP 0 /* the timer fired */
#define X_ERR (-1) /* errno set (ETIMEDOUT: nothing for the timeout) */
#define X_EOF (-2) /* the peer closed first */

/* Wait up to deadline for ev on fd. */
static int wait_fd(const struct tsess *s, int fd, short ev, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { fd, ev, 0 };
		uint64_t now = now_ns();
		int r;

		if (tsess_stopped(s))
			return X_STOP;
		if (now >= deadline) {
			errno = ETIMEDOUT;
			return X_ERR;
		}
		r = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return X_ERR;
	}
}

/* Move exactly len bytes of buf on fd (send or receive) by deadline. */
static int xfer(const struct tsess *s, int fd, char *buf, size_t len,
		bool send_it, uint64_t deadline)
{
	while (len) {
		ssize_t n = send_it ? send(fd, buf, len,
					   MSG_NOSIGNAL | MSG_DONTWAIT)
				    : recv(fd, buf, len, MSG_DONTWAIT);
		int w;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0 && !send_it)
			return X_EOF;
		if (n < 0 && !is_eagain(errno) && errno != EINTR)
			return X_ERR;
		w = wait_fd(s, fd, send_it ? POLLOUT : POLLIN, deadline);
		if (w != 1)
			return w;
	}
	return 1;
}

/* Wait for the peer's EOF (1); X_EOF here means it sent more instead. */
static int drain(const struct tsess *s, int fd, uint64_t deadline)
{
	char b;
	int r = xfer(s, fd, &b, 1, false, deadline);

	return r == X_EOF ? 1 : r == 1 ? X_EOF : r;
}

static void conn_drop(struct conn_priv *cp)
{
	if (cp->fd >= 0)
		close(cp->fd);
	cp->fd = -1;
}

/* Take candidate i out of the list (the others stay oldest first). */
static int cand_take(struct conn_priv *cp, int i)
{
	int fd = cp->cand[i];
	size_t rest = (size_t)(cp->ncand - i - 1);

	memmove(&cp->cand[i], &cp->cand[i + 1], rest * sizeof(cp->cand[0]));
	memmove(&cp->cand_at[i], &cp->cand_at[i + 1],
		rest * sizeof(cp->cand_at[0]));
	cp->ncand--;
	return fd;
}

static void cand_drop(struct conn_priv *cp, int i)
{
	close(cand_take(cp, i));
}

static void no_delay(int fd)
{
	int one = 1;

	/* Each step is one small message: Nagle would hold the next. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int conn_open(struct tsess *s, char *err, size_t errlen)
{
	struct conn_priv *cp = s->priv;

	cp->lfd = cp->fd = -1;
	if (s->server) {
		cp->lfd = sock_listen(s, sock_xport_tcp, CONN_BACKLOG, err,
				      errlen);
		if (cp->lfd < 0)
			return -1;
		fcntl(cp->lfd, F_SETFL, fcntl(cp->lfd, F_GETFL) | O_NONBLOCK);
	} else {
		cp->peerlen = sock_server_addr(s, &cp->peer, err, errlen);
		if (cp->peerlen < 0)
			return -1;
	}
	s->buf = xcalloc(1, s->p.msg_size ? s->p.msg_size : 1);
	s->buflen = s->p.msg_size;
	return 0;
}

static void conn_close(struct tsess *s)
{
	struct conn_priv *cp = s->priv;

	conn_drop(cp);
	while (cp->ncand)
		cand_drop(cp, 0);
	if (cp->lfd >= 0)
		close(cp->lfd);
	cp->lfd = -1;
	free(s->buf);
	s->buf = NULL;
}

/* The client's failure in a step: one line, naming the transaction. */
static int client_fail(struct tsess *s, const char *what, int r, char *err,
		       size_t errlen)
{
	struct conn_priv *cp = s->priv;
	int e = errno;

	conn_drop(cp);
	if (r == X_STOP)
		return 0;
	if (r == X_EOF)
		return seterr(err, errlen,
			      "transaction %llu: the server closed the connection during %s",
			      (unsigned long long)cp->n, what);
	return seterr_errno(err, errlen, e, "transaction %llu: %s failed",
			    (unsigned long long)cp->n, what);
}

static int client_step(struct tsess *s, enum tcp_step step, char *err,
		       size_t errlen)
{
	struct conn_priv *cp = s->priv;
	uint64_t deadline = now_ns() + s->p.timeout;
	char g;
	int r;

	switch (step) {
	case CONN_OPEN:
		cp->n++;
		cp->fd = sock_socket(sock_xport_tcp, cp->peer.ss_family,
				     s->p.sock_buf_size, err, errlen);
		if (cp->fd < 0)
			return TP_FATAL;
		fcntl(cp->fd, F_SETFL, fcntl(cp->fd, F_GETFL) | O_NONBLOCK);
		no_delay(cp->fd);
		r = connect(cp->fd, (struct sockaddr *)&cp->peer,
			    (socklen_t)cp->peerlen);
		if (r < 0 && errno != EINPROGRESS)
			return client_fail(s, "connect", X_ERR, err, errlen);
		/* Connected (or refused) shows as writable; the greeting
		 * says the server accepted. */
		r = xfer(s, cp->fd, &g, 1, false, deadline);
		return r == 1 ? 1 : client_fail(s, "connect", r, err, errlen);
	case CONN_ANSWER:
		r = xfer(s, cp->fd, s->buf, s->p.msg_size, true, deadline);
		if (r == 1)
			r = xfer(s, cp->fd, s->buf, s->p.msg_size, false,
				 deadline);
		return r == 1 ? 1 : client_fail(s, "the request and its answer",
						r, err, errlen);
	case CONN_CLOSE:
		shutdown(cp->fd, SHUT_WR);
		r = drain(s, cp->fd, deadline);
		if (r == X_EOF)
			return seterr(err, errlen,
				      "transaction %llu: the server sent more than its answer",
				      (unsigned long long)cp->n);
		if (r != 1)
			return client_fail(s, "the close", r, err, errlen);
		conn_drop(cp);
		return 1;
	}
	return seterr(err, errlen, "internal error: connection step %d",
		      (int)step);
}

/*
 * Accept one connection: from another host it is closed unread; from the
 * client's host it is greeted at once and kept as a candidate until it
 * sends its request (a full list gives up its oldest).  One accept per
 * wake-up: a second would only find the queue empty, a system call more
 * in every transaction.  Returns 0, or -1 with err filled (out of
 * descriptors or memory: a failure of this host, which waiting would
 * not mend).
 */
static int accept_one(struct tsess *s, char *err, size_t errlen)
{
	struct conn_priv *cp = s->priv;
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	char g = GREETING;
	int fd = accept4(cp->lfd, (struct sockaddr *)&peer, &len,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			return 0;
		return seterr_errno(err, errlen, errno,
				    "failed to accept a connection");
	}
	if (!sa_same_host(&peer, &s->ch->peer)) {
		cp->strangers++;
		close(fd);
		return 0;
	}
	no_delay(fd);
	/* A new socket's buffer always has room for one byte. */
	if (send(fd, &g, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
		close(fd);
		return 0;
	}
	if (cp->ncand == CONN_CAND)
		cand_drop(cp, 0);
	cp->cand[cp->ncand] = fd;
	cp->cand_at[cp->ncand++] = now_ns();
	return 0;
}

/*
 * The next transaction's connection: the oldest greeted one from the
 * client's host that has sent something (its request, or its EOF, which
 * the answer step then drops).  So a stranger on the client's host that
 * connects and says nothing holds no transaction back: it is closed
 * after the timeout.  The control connection is watched: a client that
 * hung up or failed has no more transactions to make.  1, 0 (the timer
 * fired), or TP_FATAL with err filled.
 */
static int server_accept(struct tsess *s, char *err, size_t errlen)
{
	struct conn_priv *cp = s->priv;
	uint64_t deadline = now_ns() + s->p.timeout;

	for (;;) {
		struct pollfd p[2 + CONN_CAND];
		uint64_t now = now_ns(), until = deadline;
		int r;

		while (cp->ncand && now - cp->cand_at[0] >= s->p.timeout)
			cand_drop(cp, 0); /* silent for the timeout */
		if (tsess_stopped(s))
			return 0;
		if (now >= deadline)
			return seterr(err, errlen,
				      "no transaction from the client for %.3g s: the client stalled%s",
				      (double)s->p.timeout / 1e9,
				      cp->strangers ? " (only connections from other hosts came)" : "");
		p[0] = (struct pollfd){ cp->lfd, POLLIN, 0 };
		p[1] = (struct pollfd){ s->ch->watch_fd, POLLPRI | POLLRDHUP, 0 };
		for (int i = 0; i < cp->ncand; i++)
			p[2 + i] = (struct pollfd){ cp->cand[i], POLLIN, 0 };
		if (cp->ncand && cp->cand_at[0] + s->p.timeout < until)
			until = cp->cand_at[0] + s->p.timeout;
		r = poll(p, (nfds_t)(2 + cp->ncand),
			 (int)((until - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			return seterr_errno(err, errlen, errno, "poll failed");
		if (r <= 0)
			continue;
		if (p[1].revents)
			return seterr(err, errlen,
				      "the client went away during the test");
		for (int i = 0; i < cp->ncand; i++) {
			if (!p[2 + i].revents)
				continue;
			cp->fd = cand_take(cp, i);
			return 1;
		}
		if ((p[0].revents & POLLIN) && accept_one(s, err, errlen) < 0)
			return TP_FATAL;
	}
}

static int server_step(struct tsess *s, enum tcp_step step, char *err,
		       size_t errlen)
{
	struct conn_priv *cp = s->priv;
	uint64_t deadline = now_ns() + s->p.timeout;
	int r;

	switch (step) {
	case CONN_OPEN:
		return server_accept(s, err, errlen);
	case CONN_ANSWER:
		r = xfer(s, cp->fd, s->buf, s->p.msg_size, false, deadline);
		if (r == 1)
			r = xfer(s, cp->fd, s->buf, s->p.msg_size, true,
				 deadline);
		break;
	case CONN_CLOSE:
		r = drain(s, cp->fd, deadline);
		conn_drop(cp);
		break;
	default:
		return seterr(err, errlen,
			      "internal error: connection step %d", (int)step);
	}
	if (r == 1)
		return 1;
	conn_drop(cp); /* gone, stalled or talking out of turn: the next */
	return r == X_STOP ? 0 : TP_SOFT;
}

static int conn_step(struct tsess *s, int step, char *err, size_t errlen)
{
	return s->server ? server_step(s, (enum tcp_step)step, err, errlen)
			 : client_step(s, (enum tcp_step)step, err, errlen);
}

const struct transport transport_tcp_conn = {
	.name = "tcp",
	.label = "a tcp_conn request",
	.flags = TF_CLOSE_EARLY,
	.max_msg = CONN_MAX_MSG,
	.priv_size = sizeof(struct conn_priv),
	.open = conn_open,
	.close = conn_close,
	.conn_steps = &conn_names,
	.conn = conn_step,
};
