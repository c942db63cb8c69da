// SPDX-License-Identifier: GPL-2.0-only
/*
 * --conns: several data connections in one socket session (tcp_bw,
 * udp_bw).  Each is made by the one data-connection setup of sock.c (its
 * port over the control connection, the data secret between 0.5 peers),
 * one after the other; each UDP link is a socket of its own, so a flow of
 * its own (port pair).  The session's one send and receive path
 * (sock_io.c) serves them: before each message the link to use is loaded
 * into struct sock_priv, chosen round robin among those poll() finds
 * ready (a sender: writable; a receiver: readable), so a link whose
 * buffer is full is passed over rather than waited for.  Every link
 * counts its messages; a link whose peer closed it drops out, and the
 * session ends when the last one has.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/fdlimit.h"
#include "sock_io.h"

#define FD_SPARE 64 /* descriptors the process needs besides the links' */

/* Is s a session of a --conns test (even one holding a single link)? */
static bool multi(const struct tsess *s)
{
	return s->p.conns > 1 || s->p.conns_test > 1;
}

/* The links of the whole test, and those this session and the ones
 * after it make. */
static uint32_t conns_all(const struct tsess *s)
{
	return s->p.conns_test > s->p.conns ? s->p.conns_test : s->p.conns;
}

/* RLIMIT_NOFILE: a descriptor per link (the server has a listening one
 * besides for a moment), for every link still to be made. */
static int nofile_check(const struct tsess *s, char *err, size_t errlen)
{
	uint64_t want = conns_all(s) - s->p.conns_before, need, open, hard;

	if (!fdlimit_reserve(want, FD_SPARE, &need, &open, &hard))
		return 0;
	return seterr(err, errlen,
		      "--conns %u needs %" PRIu64 " file descriptors (one per connection; %" PRIu64 " are open), above RLIMIT_NOFILE's hard limit (%" PRIu64 "; ulimit -Hn); at most %" PRIu64 " connections fit",
		      conns_all(s), need, open, hard,
		      hard > open + FD_SPARE ? hard - open - FD_SPARE : 0);
}

int sock_conns_check(struct tsess *s, char *err, size_t errlen)
{
	return multi(s) && s->p.conns_before == 0 ?
		       nofile_check(s, err, errlen) :
		       0;
}

int sock_conns_begin(struct tsess *s, struct sock_priv *sp, char *err,
		     size_t errlen)
{
	struct sock_conns *mc;
	uint32_t n = s->p.conns > 1 ? s->p.conns : 1;

	if (!multi(s))
		return 0;
	if (sock_conns_check(s, err, errlen) < 0)
		return -1;
	mc = xcalloc(1, sizeof(*mc));
	mc->l = xcalloc(n, sizeof(*mc->l));
	mc->pfd = xcalloc(n, sizeof(*mc->pfd));
	mc->ready = xcalloc(n, sizeof(*mc->ready));
	mc->n = n;
	for (uint32_t i = 0; i < n; i++)
		mc->l[i].fd = -1;
	mc->start_ns = now_ns();
	sp->mc = mc;
	return 0;
}

static void link_save(struct sock_priv *sp, struct sock_link *l)
{
	l->fd = sp->fd;
	l->rcvtimeo = sp->rcvtimeo;
	if (sp->xp->style != SS_DGRAM)
		return;
	l->peer = sp->peer;
	l->peerlen = sp->peerlen;
	l->dgram_peer = sp->dgram_peer;
	l->client = sp->client;
	l->clientlen = sp->clientlen;
}

static void link_load(struct sock_priv *sp, const struct sock_link *l)
{
	sp->fd = l->fd;
	sp->rcvtimeo = l->rcvtimeo;
	if (sp->xp->style != SS_DGRAM)
		return;
	sp->peer = l->peer;
	sp->peerlen = l->peerlen;
	sp->dgram_peer = l->dgram_peer;
	sp->client = l->client;
	sp->clientlen = l->clientlen;
}

/* Make link i the one in use. */
static void link_use(struct sock_priv *sp, uint32_t i)
{
	struct sock_conns *mc = sp->mc;

	if (mc->loaded && mc->cur == i)
		return;
	if (mc->loaded)
		link_save(sp, &mc->l[mc->cur]);
	link_load(sp, &mc->l[i]);
	mc->cur = i;
	mc->loaded = true;
}

void sock_conns_made(struct sock_priv *sp, uint32_t i)
{
	struct sock_conns *mc = sp->mc;
	int snd = 0, rcv = 0;
	socklen_t len = sizeof(snd);

	if (!mc)
		return;
	link_save(sp, &mc->l[i]);
	sp->fd = -1;
	mc->made = i + 1;
	if (mc->made < mc->n)
		return;
	mc->setup_ns = now_ns() - mc->start_ns;
	mc->live = mc->n;
	link_use(sp, 0);
	/* what the kernel grants (it doubles what was asked for) */
	if (getsockopt(sp->fd, SOL_SOCKET, SO_SNDBUF, &snd, &len) == 0 &&
	    getsockopt(sp->fd, SOL_SOCKET, SO_RCVBUF, &rcv, &len) == 0)
		mc->buf_B = (uint64_t)snd + (uint64_t)rcv;
}

/* Milliseconds for poll(): a wait in ns rounded up, -1 for none. */
static int wait_ms(const struct sock_priv *sp, uint64_t wait)
{
	uint64_t ns = wait == UINT64_MAX ? sp->idle : wait, ms;

	if (wait == UINT64_MAX && !ns)
		return -1;
	ms = (ns + 999999) / 1000000;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

int sock_conns_pick(struct tsess *s, struct sock_priv *sp, short ev,
		    uint64_t wait)
{
	struct sock_conns *mc = sp->mc;
	int r;

	for (;;) {
		while (mc->at < mc->nready) {
			uint32_t i = mc->ready[mc->at++];

			if (!mc->l[i].gone) {
				link_use(sp, i);
				return 1;
			}
		}
		if (!mc->live)
			return -1;
		if (tsess_stopped(s))
			return 0;
		for (uint32_t i = 0; i < mc->n; i++)
			mc->pfd[i] = (struct pollfd){
				mc->l[i].gone ? -1 : mc->l[i].fd, ev, 0
			};
		r = poll(mc->pfd, mc->n, wait_ms(sp, wait));
		if (r < 0 && errno == EINTR && !tsess_stopped(s))
			continue;
		if (r <= 0)
			return 0;
		/* every ready link once, from a start that moves on */
		mc->nready = mc->at = 0;
		for (uint32_t k = 0; k < mc->n; k++) {
			uint32_t i = mc->next + k < mc->n ? mc->next + k
							   : mc->next + k - mc->n;

			if (mc->pfd[i].revents)
				mc->ready[mc->nready++] = i;
		}
		mc->next = mc->next + 1 < mc->n ? mc->next + 1 : 0;
	}
}

void sock_conns_count(struct sock_priv *sp, uint32_t k)
{
	if (sp->mc && sp->mc->loaded)
		sp->mc->l[sp->mc->cur].msgs += k;
}

bool sock_conns_gone(struct tsess *s, struct sock_priv *sp)
{
	struct sock_conns *mc = sp->mc;

	if (!mc || !mc->loaded || tsess_stopped(s))
		return false;
	if (!mc->l[mc->cur].gone) {
		mc->l[mc->cur].gone = true;
		mc->live--;
	}
	return mc->live > 0;
}

void sock_conns_close(struct sock_priv *sp)
{
	struct sock_conns *mc = sp->mc;

	if (!mc)
		return;
	if (mc->loaded)
		link_save(sp, &mc->l[mc->cur]);
	else if (sp->fd >= 0) /* a link whose setup failed half way */
		sp->xp->k->close(sp->fd);
	sp->fd = -1;
	for (uint32_t i = 0; i < mc->made; i++)
		if (mc->l[i].fd >= 0)
			sp->xp->k->close(mc->l[i].fd);
	free(mc->l);
	free(mc->pfd);
	free(mc->ready);
	free(mc);
	sp->mc = NULL;
}

void sock_conns_stats(const struct tsess *s, struct qp_side *q,
		      uint64_t *counts)
{
	const struct sock_priv *sp = s->priv;
	const struct sock_conns *mc = sp->mc;

	if (!mc || mc->made < mc->n)
		return;
	q->valid = true;
	q->conns = true;
	q->n = mc->n;
	q->setup_ns = mc->setup_ns;
	q->queue_B = mc->buf_B;
	for (uint32_t i = 0; i < mc->n; i++)
		counts[i] = mc->l[i].msgs;
}
