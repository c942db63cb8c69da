// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's coordinator on rank 0 (see cluster.h): the joins, then
 * the run (cluster_report.c, in rounds: coord_round.c) and the end of
 * every rank.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster_coord.h"
#include "cluster_json.h"
#include "cluster_msg.h"
#include "cluster_report.h"
#include "core/ctl.h"
#include "coord_round.h"
#include "output/json.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

/*
 * The joins.  Every connection to the rendezvous port is read at once
 * (poll, non-blocking reads into its own buffer); one that has not said
 * its whole JOIN within JOIN_SAY_NS is dropped, and when JOIN_PENDING
 * connections wait, the oldest is dropped for a new one, so no one can
 * hold the join window.  A JOIN is taken only if sealed with the job
 * secret (cluster_msg.h), for this job's size, a rank below it and not
 * taken yet; every refusal is a line naming the address (at most
 * JOIN_LOG_MAX lines, then a count).
 */
#define JOIN_SAY_NS (2 * NS_PER_SEC)
#define JOIN_PENDING 256
#define JOIN_LOG_MAX 100

struct pend {
	int fd;
	uint64_t deadline;
	struct cchan ch;
	struct cin in;
	char addr[CMSG_HOST_MAX]; /* numeric, IPv4-mapped made plain */
	char port[8];
};

struct joining {
	struct coord *c;
	struct pend *pd;
	size_t np;
	uint32_t in; /* ranks joined */
	unsigned logged, unlogged;
};

/* The numeric address and port of a peer. */
static void peer_name(const struct sockaddr_storage *ss, socklen_t sl,
		      char *addr, size_t alen, char *port, size_t plen)
{
	if (getnameinfo((const struct sockaddr *)ss, sl, addr, alen, port,
			plen, NI_NUMERICHOST | NI_NUMERICSERV)) {
		xsnprintf(addr, alen, "?");
		xsnprintf(port, plen, "?");
	}
	/* An IPv4 peer of a dual-stack socket: plain IPv4. */
	if (!strncmp(addr, "::ffff:", 7) && strchr(addr + 7, '.'))
		memmove(addr, addr + 7, strlen(addr + 7) + 1);
}

/* Drop pending connection k, saying why (what: "refused a JOIN", ...). */
static void drop(struct joining *j, size_t k, const char *what,
		 const char *why)
{
	struct pend *q = &j->pd[k];

	if (j->logged < JOIN_LOG_MAX) {
		fprintf(stderr, "qperf: rank 0: %s from %s port %s: %s\n", what,
			q->addr, q->port, why);
		j->logged++;
	} else {
		j->unlogged++;
	}
	close(q->fd);
	cin_clear(&q->in);
	j->pd[k] = j->pd[--j->np];
}

/* A whole block came on pending connection k: a JOIN, or refused. */
static void take_join(struct joining *j, size_t k)
{
	struct coord *c = j->c;
	struct pend *q = &j->pd[k];
	struct cmsg m;
	struct crank *r;
	char why[400];
	int rc = cmsg_open(&q->ch, q->in.buf, q->in.have, &m, why,
			   sizeof(why));

	if (rc != 0)
		goto refuse;
	if (m.u.join.size != c->n) {
		xsnprintf(why, sizeof(why),
			  "it is of a job of %u ranks, this one has %u",
			  m.u.join.size, c->n);
		goto refuse;
	}
	if (m.u.join.rank >= c->n) {
		xsnprintf(why, sizeof(why),
			  "rank %u is beyond this job's ranks 0 to %u",
			  m.u.join.rank, c->n - 1);
		goto refuse;
	}
	r = &c->r[m.u.join.rank];
	if (r->joined) {
		xsnprintf(why, sizeof(why),
			  "rank %u has joined already, from %s", m.u.join.rank,
			  r->addr);
		goto refuse;
	}
	r->fd = q->fd;
	r->ch = q->ch;
	r->joined = r->alive = true;
	r->port = m.u.join.port;
	r->local = m.u.join.local_rank;
	xsnprintf(r->host, sizeof(r->host), "%s", m.u.join.host);
	r->nfind = m.u.join.nfind < CMSG_FIND_MAX ? m.u.join.nfind :
						      CMSG_FIND_MAX;
	memcpy(r->find, m.u.join.find, sizeof(r->find));
	xsnprintf(r->addr, sizeof(r->addr), "%s", q->addr);
	cin_clear(&q->in);
	j->pd[k] = j->pd[--j->np];
	j->in++;
	return;
refuse:
	drop(j, k, "refused a JOIN", why);
}

/* Accept one connection (lfd is ready), say HELLO, and keep it pending. */
static void accept_one(struct joining *j, int lfd, const struct plan *p,
		       bool *said_nofile)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct pend *q;
	char err[256];
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
			 SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0) {
		/* Out of descriptors: say so once, do not spin. */
		if (errno == EMFILE || errno == ENFILE) {
			if (!*said_nofile)
				fprintf(stderr,
					"qperf: rank 0: cannot accept a rank's JOIN: %s\n",
					strerror(errno));
			*said_nofile = true;
			poll(NULL, 0, 100);
		}
		return;
	}
	if (j->np == JOIN_PENDING) {
		/* The oldest (first) is the nearest to its deadline. */
		size_t old = 0;

		for (size_t k = 1; k < j->np; k++)
			if (j->pd[k].deadline < j->pd[old].deadline)
				old = k;
		drop(j, old, "dropped a connection",
		     "too many connections wait to join");
	}
	/* A fan-out's GOs go back to back to one rank: no Nagle delay. */
	ctl_nodelay(fd);
	q = &j->pd[j->np];
	memset(q, 0, sizeof(*q));
	q->fd = fd;
	q->deadline = now_ns() + JOIN_SAY_NS;
	q->ch.key = p->secret;
	q->ch.rank0 = true;
	peer_name(&ss, sl, q->addr, sizeof(q->addr), q->port, sizeof(q->port));
	j->np++;
	if (cluster_hello_send(fd, &q->ch, err, sizeof(err)) < 0)
		drop(j, j->np - 1, "dropped a connection", err);
}

/* Accept and read JOINs until every rank is in or the window closes. */
static void joins(struct coord *c, int lfd)
{
	uint64_t deadline = now_ns() + c->p->cluster.join_window;
	struct joining j = { .c = c };
	struct pollfd *pf = xcalloc(JOIN_PENDING + 1, sizeof(*pf));
	bool said_nofile = false;

	j.pd = xcalloc(JOIN_PENDING, sizeof(*j.pd));
	while (j.in < c->n && now_ns() < deadline) {
		uint64_t now = now_ns(), wake = deadline;
		char why[256];
		int r;

		/* Those that joined wait for the rest: keep them sure that
		 * rank 0 is alive (they give up after CLUSTER_LOSS_NS). */
		if (now >= c->next_ping)
			coord_ping_all(c);
		if (c->next_ping < wake)
			wake = c->next_ping;
		pf[0] = (struct pollfd){ lfd, POLLIN, 0 };
		for (size_t k = 0; k < j.np; k++) {
			pf[k + 1] = (struct pollfd){ j.pd[k].fd, POLLIN, 0 };
			if (j.pd[k].deadline < wake)
				wake = j.pd[k].deadline;
		}
		r = poll(pf, j.np + 1,
			 wake > now ? (int)((wake - now) / 1000000 + 1) : 0);
		if (r < 0)
			continue;
		now = now_ns();
		/* From the last: a dropped one's place takes one seen. */
		for (size_t k = j.np; k-- > 0;) {
			struct pend *q = &j.pd[k];
			int got = 0;

			if (pf[k + 1].revents) {
				got = cin_read(&q->in, q->fd, why, sizeof(why));
				if (got < 0) {
					drop(&j, k, "dropped a connection", why);
					continue;
				}
				if (got > 0) {
					take_join(&j, k);
					continue;
				}
			}
			if (now >= q->deadline) {
				xsnprintf(why, sizeof(why),
					  "%s within %llu s",
					  q->in.have ? "it sent part of a JOIN and stopped"
						     : "it said nothing",
					  (unsigned long long)(JOIN_SAY_NS /
							       NS_PER_SEC));
				drop(&j, k, "dropped a connection", why);
			}
		}
		if (pf[0].revents & POLLIN)
			accept_one(&j, lfd, c->p, &said_nofile);
	}
	while (j.np)
		drop(&j, j.np - 1, "dropped a connection",
		     j.in < c->n ? "the join window closed"
				 : "every rank has joined");
	if (j.unlogged)
		fprintf(stderr,
			"qperf: rank 0: %u more connections refused or dropped (not logged one by one)\n",
			j.unlogged);
	free(j.pd);
	free(pf);
	for (uint32_t k = 0; k < c->n; k++)
		if (!c->r[k].joined) {
			c->r[k].alive = true; /* so that coord_gone() reports */
			coord_gone(c, k, "never joined");
		}
}

int cluster_coord(const struct plan *p, const struct rank_info *ri,
		  int lfd, FILE *plot)
{
	struct coord c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.n = ri->size;
	c.seed = p->cluster.seed;
	c.text = p->json == JSON_OFF;
	c.plot = plot;
	c.json = json_open(p->json, p->argc, p->argv, NULL);
	c.r = xcalloc(c.n, sizeof(*c.r));
	c.next_ping = now_ns() + CLUSTER_PING_NS;
	for (uint32_t k = 0; k < c.n; k++)
		c.r[k].fd = -1;
	joins(&c, lfd);
	rc = coord_run(&c);
	/* DONE first: a slow reader of rank 0's stdout must not hold the
	 * ranks past their CLUSTER_LOSS_NS while the document is written. */
	{
		struct cmsg m;
		char err[256];

		memset(&m, 0, sizeof(m));
		m.type = CMSG_DONE;
		for (uint32_t k = 0; k < c.n; k++) {
			if (c.r[k].alive) {
				cluster_send(c.r[k].fd, &c.r[k].ch,
					     CLUSTER_SEND_NS, &m, err,
					     sizeof(err));
				close(c.r[k].fd);
			}
			cin_clear(&c.r[k].in);
		}
	}
	if (!c.text)
		coord_json(&c, rc);
	coord_free(&c);
	free(c.r);
	return rc;
}
