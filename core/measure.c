// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test timer, measured window and the socket measurement loops; see
 * measure.h.  The loops count a transfer only when it completed; a
 * transfer cut short by the end of the test is not counted (0.4.11's
 * rule).  Every blocking call is bounded: by the timer, or by the idle
 * timeout (SO_RCVTIMEO/SO_SNDTIMEO set on the data socket), or by EOF.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "../transports/sock.h"
#include "ctl.h"
#include "measure.h"
#include "progress.h"
#include "report.h"
#include "util.h"

static volatile sig_atomic_t fired;

static void on_alarm(int sig)
{
	(void)sig;
	fired = 1;
}

void measure_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: interrupt blocking I/O */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

bool measure_finished(void)
{
	return fired != 0;
}

void measure_disarm(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

int measure_start(struct run *r, char *err, size_t errlen)
{
	struct itimerval it;

	fired = 0;
	r->st.no_cpus = cpu_count();
	r->st.no_ticks = cpu_ticks();
	if (cpu_sample(r->st.time_s, err, errlen) < 0)
		return -1;
	r->st.real_s = now_ns();
	r->st.real_e = 0;
	if (r->time) {
		memset(&it, 0, sizeof(it));
		it.it_value.tv_sec = (time_t)(r->time / NS_PER_SEC);
		it.it_value.tv_usec = (suseconds_t)(r->time % NS_PER_SEC / 1000);
		if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
			it.it_value.tv_usec = 1;
		it.it_interval.tv_usec = 10000;
		setitimer(ITIMER_REAL, &it, NULL);
	}
	return 0;
}

void measure_stop(struct run *r)
{
	char err[64];

	if (r->st.real_e)
		return;
	r->st.real_e = now_ns();
	if (r->st.real_e == r->st.real_s)
		r->st.real_e++;
	if (cpu_sample(r->st.time_e, err, sizeof(err)) < 0)
		memcpy(r->st.time_e, r->st.time_s, sizeof(r->st.time_e));
}

/* Outcome of one transfer. */
enum xfer {
	XF_OK, /* whole message moved */
	XF_STOP, /* the test is over: timer, EOF, peer closed, count */
	XF_ERR, /* this transfer failed; counted, the loop goes on */
	XF_IDLE, /* nothing moved for the idle timeout */
	XF_FATAL /* errno-described failure that ends the test */
};

static bool is_eagain(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK;
}

/* Send one message; stream sockets loop until all msg_size bytes went. */
static enum xfer send_msg(struct run *r, size_t *moved)
{
	size_t off = 0, len = r->msg_size;
	bool stream = r->xp->style == SS_STREAM;

	*moved = 0;
	for (;;) {
		ssize_t n;

		if ((r->server && r->xp->style == SS_DGRAM) ||
		    r->xp->style == SS_RDS)
			n = sendto(r->fd, r->buf + off, len - off, MSG_NOSIGNAL,
				   (struct sockaddr *)&r->peer, r->peerlen);
		else
			n = send(r->fd, r->buf + off, len - off, MSG_NOSIGNAL);
		if (fired)
			return XF_STOP;
		if (n >= 0) {
			progress_note(); /* server watchdog (progress.h) */
			off += (size_t)n;
			if (!stream || off >= len) {
				*moved = off;
				return XF_OK;
			}
			if (n == 0)
				return XF_STOP;
			continue;
		}
		if (errno == EINTR)
			continue;
		r->last_errno = errno;
		if (stream && (errno == EPIPE || errno == ECONNRESET))
			return XF_STOP;
		if (is_eagain(errno))
			return XF_IDLE;
		return stream ? XF_FATAL : XF_ERR;
	}
}

/* Receive one message: msg_size bytes of stream, or one datagram. */
static enum xfer recv_msg(struct run *r, size_t *moved)
{
	size_t off = 0, len = r->msg_size;
	bool stream = r->xp->style == SS_STREAM;

	*moved = 0;
	for (;;) {
		ssize_t n;

		if (r->server && !stream) {
			r->peerlen = sizeof(r->peer);
			n = recvfrom(r->fd, r->buf + off, len - off, 0,
				     (struct sockaddr *)&r->peer, &r->peerlen);
		} else {
			n = recv(r->fd, r->buf + off, len - off, 0);
		}
		if (fired)
			return XF_STOP;
		if (n >= 0 && r->xp->style == SS_RDS && (size_t)n != len)
			return XF_ERR; /* RDS counts whole messages only */
		if (n > 0 || (n == 0 && !stream)) {
			progress_note(); /* server watchdog (progress.h) */
			off += (size_t)n;
			if (!stream || off >= len) {
				*moved = off;
				return XF_OK;
			}
			continue;
		}
		if (n == 0) {
			if (len == 0) { /* 0.4.11 spins on empty messages */
				*moved = 0;
				return XF_OK;
			}
			return XF_STOP; /* EOF: the peer closed */
		}
		if (errno == EINTR)
			continue;
		r->last_errno = errno;
		if (stream && errno == ECONNRESET)
			return XF_STOP;
		if (is_eagain(errno))
			return XF_IDLE;
		return stream ? XF_FATAL : XF_ERR;
	}
}

/* Where touch() leaves its sum, so the reads cannot be optimised away. */
static volatile uint64_t touch_sink;

static void touch(const char *buf, size_t len)
{
	uint64_t sum = 0, w;

	for (size_t i = 0; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, buf + i, sizeof(w));
		sum += w;
	}
	touch_sink = sum;
}

static bool count_done(const struct run *r, uint64_t n)
{
	return r->no_msgs && n >= r->no_msgs;
}

static int idle_error(struct run *r, const char *what, char *err,
		      size_t errlen)
{
	return seterr(err, errlen, "no data %s for %.3g s: the %s stalled",
		      what, (double)r->idle / 1e9,
		      r->server ? "client" : "server");
}

int loop_bw_send(struct run *r, char *err, size_t errlen)
{
	size_t n;

	while (!fired && !count_done(r, r->st.s.msgs + r->st.s.errs)) {
		switch (send_msg(r, &n)) {
		case XF_OK:
			r->st.s.bytes += n;
			r->st.s.msgs++;
			break;
		case XF_ERR:
			r->st.s.errs++;
			break;
		case XF_STOP:
			goto out;
		case XF_IDLE:
			measure_stop(r);
			return idle_error(r, "sent", err, errlen);
		case XF_FATAL:
			measure_stop(r);
			return seterr_errno(err, errlen, r->last_errno,
					    "send failed");
		}
	}
out:
	measure_stop(r);
	return 0;
}

int loop_bw_recv(struct run *r, char *err, size_t errlen)
{
	size_t n;
	uint64_t last = 0;

	while (!fired && !count_done(r, r->st.r.msgs + r->st.r.errs)) {
		switch (recv_msg(r, &n)) {
		case XF_OK:
			r->st.r.bytes += n;
			r->st.r.msgs++;
			if (r->access_recv)
				touch(r->buf, n);
			if (r->count_dgram_idle_end)
				last = now_ns();
			break;
		case XF_ERR:
			r->st.r.errs++;
			break;
		case XF_STOP:
			goto out;
		case XF_IDLE:
			/*
			 * A datagram receiver without a time limit ends when
			 * the sender has gone quiet; its window closes at the
			 * last datagram.  With a timer running, keep waiting.
			 */
			if (r->count_dgram_idle_end) {
				measure_stop(r);
				if (last)
					r->st.real_e = last;
				return 0;
			}
			if (r->time)
				continue;
			measure_stop(r);
			return idle_error(r, "received", err, errlen);
		case XF_FATAL:
			measure_stop(r);
			return seterr_errno(err, errlen, r->last_errno,
					    "receive failed");
		}
	}
out:
	measure_stop(r);
	return 0;
}

int loop_lat(struct run *r, bool initiator, char *err, size_t errlen)
{
	size_t n;
	bool sending = initiator;

	for (;;) {
		enum xfer x;

		if (fired)
			break;
		if (sending && count_done(r, r->st.s.msgs))
			break;
		if (!sending && count_done(r, r->st.r.msgs))
			break;
		x = sending ? send_msg(r, &n) : recv_msg(r, &n);
		if (x == XF_OK) {
			struct ustat *u = sending ? &r->st.s : &r->st.r;

			u->bytes += n;
			u->msgs++;
			sending = !sending;
			continue;
		}
		if (x == XF_STOP)
			break;
		if (x == XF_ERR) {
			(sending ? &r->st.s : &r->st.r)->errs++;
			/* A lost exchange: the initiator starts a new one. */
			sending = initiator;
			continue;
		}
		measure_stop(r);
		if (x == XF_IDLE)
			return idle_error(r, sending ? "sent" : "received", err,
					  errlen);
		return seterr_errno(err, errlen, r->last_errno, "%s failed",
				    sending ? "send" : "receive");
	}
	measure_stop(r);
	return 0;
}

int measure_phase(struct run *r, struct ctl *c, bool lat, char *err,
		  size_t errlen)
{
	int rc;

	r->buf = xcalloc(1, r->msg_size ? r->msg_size : 1);
	/* A timed test's alarm already ends every blocking call. */
	if (!r->time || r->idle < r->time)
		sock_set_idle(r->fd, r->idle);
	debugf(c->debug, "waiting for synchronization before test");
	if (ctl_sync(c, SYNC_BEFORE, err, errlen) < 0)
		return -1;
	debugf(c->debug, "synchronization complete");
	if (measure_start(r, err, errlen) < 0)
		return -1;
	if (lat)
		rc = loop_lat(r, !r->server, err, errlen);
	else if (r->server)
		rc = loop_bw_recv(r, err, errlen);
	else
		rc = loop_bw_send(r, err, errlen);
	measure_disarm();
	/*
	 * Close the data socket now: a legacy server's window ends at EOF,
	 * and a peer blocked sending to us returns.
	 */
	close(r->fd);
	r->fd = -1;
	return rc;
}
