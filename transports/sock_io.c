// SPDX-License-Identifier: GPL-2.0-only
/*
 * The socket transports' data path: send and receive one message, and the
 * post() and poll() operations the loops of core/measure.c call.  Sends
 * are done at once inside post(); a posted receive is a credit that
 * poll() turns into a receive, waiting at most the wait it is given.
 *
 * Fast paths (sock_tune); bench/compare-sock.sh measures them against
 * 0.4.11, iperf3 and sockperf (bench/results-sock.md says what could and
 * could not be told from the noise of a shared 2-CPU machine):
 *   SF_NODELAY  a TCP bandwidth sender sets TCP_NODELAY: a 65,536-byte
 *               message is one full segment plus a short tail that Nagle
 *               holds until the ACK of the previous one comes back;
 *   SF_LOWAT    a tcp_bw receiver sets SO_RCVLOWAT to the message size
 *               (the kernel caps it at half the receive buffer), so a
 *               blocked recv() wakes once per message instead of once per
 *               segment.  Not in tcp_lat: there, with 64 KiB messages, about
 *               1 round trip in 100 stalled for hundreds of ms (the first
 *               message of a connection can wait for a window update the
 *               sleeping receiver does not trigger);
 *   SF_SPIN     -cp1 (poll_mode): the socket is non-blocking and a send or
 *               receive that would block is retried at once (busy polling,
 *               for SPIN_BUDGET of each wait, then poll()) until it moves
 *               data, the timer fires or the wait (the idle limit, the
 *               timeout) has passed; SO_BUSY_POLL is asked for too, where
 *               the kernel allows it (on loopback it has no effect);
 *   SF_MMSG     a udp_bw sender of small messages sends up to SOCK_BATCH
 *               datagrams per sendmmsg() call (batch_of below).
 * Every byte still goes through the user buffer, and -ar1 still reads it.
 * SF_NODELAY and SF_LOWAT apply between qperf 0.5 peers only, so that a
 * run against qperf 0.4.11 measures what two 0.4.11 ends would; SF_SPIN is
 * the user's explicit request and invisible on the wire, so our client
 * spins against any server, but a server serving a 0.4.11 client leaves
 * its side exactly as 0.4.11's (0.4.11 ignores -cp in socket tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "lib/addr.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"
#include "lib/sockcall.h"
#include "sock_io.h"
#include "transport.h"

#define BUSY_POLL_US 50 /* SO_BUSY_POLL asked for with -cp1 */
#define SPIN_BUDGET (BUSY_POLL_US * 1000ULL) /* ns spun before sleeping */

void sock_tune_fd(struct tsess *s, struct sock_priv *sp)
{
	bool legacy = !s->ch->ext;
	bool tcp = sp->xp->style == SS_STREAM && sp->xp->protocol == 0 &&
		   sp->xp->family == 0;
	bool bw = s->t->loop == LOOP_STREAM_BW;
	int one = 1, v;

	if (s->server && legacy)
		return; /* a 0.4.11 client's server side stays 0.4.11's */
	if (sp->xp->k != &sock_calls_kernel)
		return; /* rsockets: their own non-blocking waits (sock.c) */
	if (!legacy && tcp && bw && !s->server &&
	    setsockopt(sp->fd, IPPROTO_TCP, TCP_NODELAY, &one,
		       sizeof(one)) == 0)
		sp->fast |= SF_NODELAY;
	v = s->p.msg_size > INT_MAX ? INT_MAX : (int)s->p.msg_size;
	if (!legacy && tcp && bw && s->server && v > 1 &&
	    setsockopt(sp->fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v)) == 0)
		sp->fast |= SF_LOWAT;
	if (!s->p.poll_mode)
		return;
	v = fcntl(sp->fd, F_GETFL);
	if (v < 0 || fcntl(sp->fd, F_SETFL, v | O_NONBLOCK) < 0)
		return;
	sp->fast |= SF_SPIN;
	v = BUSY_POLL_US; /* refused (EPERM) on some kernels unprivileged */
	setsockopt(sp->fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v));
}

/*
 * SF_MMSG: a udp_bw sender between 0.5 peers sends up to sp->batch
 * messages of at most SOCK_BATCH_MSG bytes (the loop's depth, at most
 * SOCK_BATCH) per sendmmsg(), all from s->buf; each is still one datagram.
 * It cut the sender's CPU per message by 12-16 % at 64 B and 1 KiB and did
 * nothing at 32 KiB, where a burst of 16 also overran the receiver's
 * buffer; recvmmsg() on the receiver saved nothing measurable (it mostly
 * finds one datagram waiting) and was not kept.  bench/compare-sock.sh
 * measures it against QPERF_NO_MMSG=1, which turns it off.
 */
static uint32_t batch_of(const struct tsess *s, const struct sock_priv *sp)
{
	uint32_t n = tsess_depth(s, false);

	/* --conns: one message per link at its turn (round robin) */
	if (!s->ch->ext || s->server || sp->xp->style != SS_DGRAM || sp->mc ||
	    sp->xp->k != &sock_calls_kernel ||
	    s->t->loop != LOOP_STREAM_BW || s->p.msg_size > SOCK_BATCH_MSG ||
	    getenv("QPERF_NO_MMSG"))
		return 1;
	return n < SOCK_BATCH ? n : SOCK_BATCH;
}

void sock_tune(struct tsess *s, struct sock_priv *sp)
{
	sp->batch = batch_of(s, sp);
	if (sp->batch < 2)
		return;
	sp->mm = xcalloc(sp->batch, sizeof(*sp->mm));
	sp->iov = xcalloc(sp->batch, sizeof(*sp->iov));
	for (uint32_t i = 0; i < sp->batch; i++) {
		sp->iov[i].iov_base = s->buf;
		sp->iov[i].iov_len = s->p.msg_size;
		sp->mm[i].msg_hdr.msg_iov = &sp->iov[i];
		sp->mm[i].msg_hdr.msg_iovlen = 1;
	}
	sp->fast |= SF_MMSG;
}

void sock_untune(struct sock_priv *sp)
{
	free(sp->mm);
	free(sp->iov);
	sp->mm = NULL;
	sp->iov = NULL;
	sp->batch = 1;
	sp->fast &= ~SF_MMSG;
}

/*
 * A spinning side's send or receive would block: go on (true) unless the
 * wait that began at start (ns; limit ns, 0 = none) is over.  A blocking
 * side never goes on: its socket timeout already ran out.  For the first
 * SPIN_BUDGET ns of a wait each retry only yields the CPU to anything else
 * runnable on it (the peer, on a small machine); past that the side
 * sleeps in poll() until the socket is ready (events) or the wait is over,
 * as SO_BUSY_POLL does in the kernel.  On an idle machine an answer comes
 * within the budget and no CPU has to wake from sleep; on a loaded one
 * pure spinning of both ends was 2-100x slower than blocking (each end
 * burns the CPU time the other needs).  SIGALRM ends the sleep.
 */
static bool spin_more(const struct tsess *s, const struct sock_priv *sp,
		      uint64_t start,
		      uint64_t limit, short events)
{
	uint64_t spent;
	struct pollfd pfd = { sp->fd, events, 0 };

	if (!(sp->fast & SF_SPIN) || tsess_stopped(s))
		return false;
	spent = now_ns() - start;
	if (limit && spent >= limit)
		return false;
	if (spent < SPIN_BUDGET) {
		sched_yield();
		return true;
	}
	if (limit) {
		/* To the ns: a short wait (open-loop latency's next request
		 * being due) must not sleep a whole ms longer. */
		struct timespec ts = { (time_t)((limit - spent) / NS_PER_SEC),
				       (long)((limit - spent) % NS_PER_SEC) };

		ppoll(&pfd, 1, &ts, NULL);
		return true;
	}
	poll(&pfd, 1, -1);
	return true;
}

/* Outcome of one transfer. */
enum xfer {
	XF_OK, /* whole message(s) moved */
	XF_STOP, /* the test is over: timer, EOF, peer closed */
	XF_ERR, /* this transfer failed; counted, the loop goes on */
	XF_IDLE, /* nothing moved for the idle limit (or the wait) */
	XF_AGAIN, /* s->nowait: the send could not start without waiting */
	XF_FATAL /* errno-described failure that ends the test */
};

/*
 * A send (ev POLLOUT) or receive (POLLIN) call failed with errno, in the
 * wait begun at start (limit ns; nb_wait for a non-blocking call): true
 * to call again, else false with *out the outcome.
 */
static bool xfer_retry(struct tsess *s, struct sock_priv *sp, uint64_t start,
		       uint64_t limit, uint64_t nb_wait, short ev,
		       enum xfer *out)
{
	bool stream = sp->xp->style == SS_STREAM;

	if (errno == EINTR ||
	    (is_eagain(errno) && (spin_more(s, sp, start, limit, ev) ||
				  sock_nb_ready(sp, ev, nb_wait))))
		return true;
	s->last_errno = errno;
	if (stream && (errno == ECONNRESET || (ev == POLLOUT && errno == EPIPE)))
		*out = XF_STOP;
	else if (is_eagain(errno))
		*out = XF_IDLE;
	else
		*out = stream ? XF_FATAL : XF_ERR;
	return false;
}

/*
 * Send one message (stream sockets loop until all msg_size bytes went),
 * or, batching (SF_MMSG), up to *nmsg datagrams in one call.  *nmsg: how
 * many messages went.
 */
static enum xfer send_msg(struct tsess *s, struct sock_priv *sp,
			  uint32_t *nmsg)
{
	size_t off = s->nowait ? sp->tx_off : 0, len = s->p.msg_size;
	bool stream = sp->xp->style == SS_STREAM;
	bool to = (s->server && sp->xp->style == SS_DGRAM && !sp->dgram_peer) ||
		  sp->xp->style == SS_RDS;
	uint64_t start = sp->fast & SF_SPIN ? now_ns() : 0;
	uint32_t want = *nmsg < sp->batch ? *nmsg : sp->batch;
	enum xfer out;

	*nmsg = 0;
	for (;;) {
		/* s->nowait: no try waits; a stream message cut short goes
		 * on from tx_off at the next send, keeping the framing */
		int fl = MSG_NOSIGNAL | (s->nowait ? MSG_DONTWAIT : 0);
		ssize_t n;

		if (want > 1) {
			int k = sendmmsg(sp->fd, sp->mm, want, fl);

			if (k > 0)
				want = (uint32_t)k;
			n = k > 0 ? (ssize_t)len : -1;
		} else if (to) {
			n = sendto(sp->fd, s->buf + off, len - off, fl,
				   (struct sockaddr *)&sp->peer, sp->peerlen);
		} else {
			n = sp->xp->k->send(sp->fd, s->buf + off, len - off,
					       fl);
		}
		if (tsess_stopped(s))
			return XF_STOP;
		if (n < 0 && (fl & MSG_DONTWAIT) && is_eagain(errno)) {
			sp->tx_off = off;
			return XF_AGAIN;
		}
		if (n >= 0) {
			tsess_progress(s); /* a huge message shows progress */
			off += (size_t)n;
			if (!stream || off >= len) {
				*nmsg = want ? want : 1;
				sp->tx_off = 0;
				return XF_OK;
			}
			if (n == 0)
				return XF_STOP;
			if (start)
				start = now_ns();
			continue;
		}
		if (!xfer_retry(s, sp, start, sp->idle, sp->idle, POLLOUT, &out))
			return out;
	}
}

/*
 * A datagram server counts and answers only its client: datagrams from
 * other hosts are ignored, and the first one from the client's host
 * connects the socket to its sender, so the kernel drops all others.
 */
static bool dgram_from_client(struct tsess *s, struct sock_priv *sp)
{
	/* Datagrams queued before connect() still arrive: check each. */
	if (sp->dgram_peer)
		return sp->peerlen == sp->clientlen &&
		       memcmp(&sp->peer, &sp->client, sp->clientlen) == 0;
	if (!sa_same_host(&sp->peer, &s->ch->peer))
		return false;
	if (connect(sp->fd, (struct sockaddr *)&sp->peer, sp->peerlen) == 0) {
		sp->dgram_peer = true;
		sp->client = sp->peer;
		sp->clientlen = sp->peerlen;
	}
	return true;
}

/*
 * Receive one message: msg_size bytes of stream, or one datagram.  A
 * spinning side waits at most limit ns (0 = no limit) for data.  probe:
 * a wait said the socket is readable; if nothing is there after all
 * (rsockets' rpoll can say so for a completion that carried no data),
 * XF_IDLE at once rather than a wait of the idle limit, which in a timed
 * test is no limit at all.  Once part of a message came, the rest is
 * waited for as always.
 */
static enum xfer recv_msg(struct tsess *s, struct sock_priv *sp,
			  uint64_t limit, bool probe, size_t *moved)
{
	size_t off = 0, len = s->p.msg_size;
	bool stream = sp->xp->style == SS_STREAM;
	uint64_t start = sp->fast & SF_SPIN ? now_ns() : 0;
	enum xfer out;

	*moved = 0;
	for (;;) {
		int fl = probe && off == 0 ? MSG_DONTWAIT : 0;
		ssize_t n;

		if (s->server && !stream) {
			sp->peerlen = sizeof(sp->peer);
			n = recvfrom(sp->fd, s->buf + off, len - off, fl,
				     (struct sockaddr *)&sp->peer,
				     &sp->peerlen);
		} else {
			n = sp->xp->k->recv(sp->fd, s->buf + off, len - off,
					       fl);
		}
		if (n < 0 && fl && is_eagain(errno))
			return XF_IDLE;
		if (tsess_stopped(s))
			return XF_STOP;
		if (n >= 0 && s->server && sp->xp->style == SS_DGRAM &&
		    !dgram_from_client(s, sp))
			continue; /* a stranger's: neither counted nor answered */
		if (n >= 0 && sp->xp->style == SS_RDS && (size_t)n != len)
			return XF_ERR; /* RDS counts whole messages only */
		if (n > 0 || (n == 0 && !stream)) {
			tsess_progress(s); /* a huge message shows progress */
			off += (size_t)n;
			if (!stream || off >= len) {
				*moved = off;
				return XF_OK;
			}
			if (start)
				start = now_ns();
			/* Part of a message came: a short wait must not cut
			 * it (the stream would lose its framing). */
			if (limit && limit < sp->idle)
				limit = sp->idle;
			continue;
		}
		if (n == 0) {
			if (len == 0) /* 0.4.11 spins on empty messages */
				return XF_OK;
			return XF_STOP; /* EOF: the peer closed */
		}
		if (!xfer_retry(s, sp, start, limit, sp->rcvtimeo, POLLIN, &out))
			return out;
	}
}

int sock_post(struct tsess *s, const struct twr *wr, uint32_t n,
		     char *err, size_t errlen)
{
	struct sock_priv *sp = s->priv;
	uint32_t sent = n;

	if (wr->op == OP_RECV) {
		sp->credits += n;
		return (int)n;
	}
	if (wr->op != OP_SEND)
		return seterr(err, errlen,
			      "internal error: %s cannot post this operation",
			      sp->xp->name);
again:
	/* --conns: on the next writable link (sock_conns.c) */
	switch (sp->mc ? sock_conns_pick(s, sp, POLLOUT, UINT64_MAX) : 1) {
	case -1:
		s->ended = !tsess_stopped(s);
		return 0;
	case 0:
		return tsess_stopped(s) ? 0 : TP_IDLE;
	}
	switch (send_msg(s, sp, &sent)) {
	case XF_OK:
		sock_conns_count(sp, sent);
		sp->ndone += sent;
		return (int)sent;
	case XF_STOP:
		if (sock_conns_gone(s, sp)) {
			sent = n;
			goto again;
		}
		s->ended = !tsess_stopped(s);
		return 0;
	case XF_ERR:
		return TP_SOFT;
	case XF_IDLE:
		return TP_IDLE;
	case XF_AGAIN:
		return TP_AGAIN;
	default:
		seterr_errno(err, errlen, s->last_errno, "send failed");
		return TP_FATAL;
	}
}

/*
 * A finite wait of a blocking socket: true once it is readable, false
 * when ns passed or a signal (the test timer) cut the wait short.  Kernel
 * sockets wait to the ns (ppoll), others in whole ms rounded up: a short
 * wait (open-loop latency's next request being due) must not sleep in
 * SO_RCVTIMEO's millisecond steps, nor leave a message half read.
 */
static bool wait_readable(const struct sock_priv *sp, uint64_t ns)
{
	struct pollfd p = { sp->fd, POLLIN, 0 };
	uint64_t ms;

	if (sp->xp->k == &sock_calls_kernel) {
		struct timespec ts = { (time_t)(ns / NS_PER_SEC),
				       (long)(ns % NS_PER_SEC) };

		return ppoll(&p, 1, &ts, NULL) > 0;
	}
	ms = (ns + 999999) / 1000000;
	return sp->xp->k->poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms) > 0;
}

/* Coarse SO_RCVTIMEO steps, so that a changing wait rarely costs a call. */
static uint64_t wait_step(uint64_t ns)
{
	uint64_t ms = 1;

	while (ms * 1000000ULL < ns && ms < (1ULL << 20))
		ms <<= 1;
	return ms * 1000000ULL;
}

int sock_poll(struct tsess *s, struct tcomp *c, int max, uint64_t wait,
		     char *err, size_t errlen)
{
	struct sock_priv *sp = s->priv;
	uint64_t want = wait == UINT64_MAX ? sp->idle : wait_step(wait);
	size_t moved;
	bool probe = false;
	int k = 0;

	if (sp->ndone > 0) {
		for (; k < max && sp->ndone > 0; k++, sp->ndone--)
			c[k] = (struct tcomp){ OP_SEND, TC_OK, 0,
					       (uint32_t)s->p.msg_size };
		return k;
	}
	if (sp->credits == 0 || max < 1)
		return 0;
again:
	if (sp->mc) { /* --conns: the next readable link (sock_conns.c) */
		int r = sock_conns_pick(s, sp, POLLIN, wait);

		if (r <= 0) {
			s->ended = r < 0 && !tsess_stopped(s);
			return 0;
		}
		want = sp->idle; /* a message is coming: read all of it */
	} else if (wait != UINT64_MAX && !(sp->fast & SF_SPIN)) {
		if (!wait_readable(sp, wait))
			return 0;
		want = sp->idle; /* a message is coming: read all of it */
		probe = true;
	}
	if (want != sp->rcvtimeo && !(sp->fast & SF_SPIN)) {
		sock_set_timeo(sp->xp, sp->fd, SO_RCVTIMEO, want);
		sp->rcvtimeo = want;
	}
	/* Spinning, a finite wait is kept exact (0: one try). */
	if (wait != UINT64_MAX && (sp->fast & SF_SPIN))
		want = wait ? wait : 1;
	switch (recv_msg(s, sp, want, probe, &moved)) {
	case XF_OK:
		sp->credits--;
		sock_conns_count(sp, 1);
		c[0] = (struct tcomp){ OP_RECV, TC_OK, 0, (uint32_t)moved };
		return 1;
	case XF_ERR:
		sp->credits--;
		c[0] = (struct tcomp){ OP_RECV, TC_ERR, 0, 0 };
		return 1;
	case XF_STOP:
		if (sock_conns_gone(s, sp))
			goto again; /* that link ended; the others go on */
		s->ended = !tsess_stopped(s);
		return 0;
	case XF_IDLE:
		return 0;
	default:
		seterr_errno(err, errlen, s->last_errno, "receive failed");
		return TP_FATAL;
	}
}
