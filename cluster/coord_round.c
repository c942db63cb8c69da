// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rank 0's rounds (coord_round.h).
 *
 * A round hands each of its pairs its jobs one after the other: for each
 * test of the plan, a runs it as client against b's server and, for a
 * one-way bandwidth test, then b against a.  The pairs of a round run at
 * the same time; the round ends when every pair is done.  Every wait is
 * bounded: a job by its test's time and timeouts, an idle rank by the
 * pings rank 0 sends it, a join by the join window.  A rank that leaves,
 * times out or never joins is marked gone and the run goes on without it.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transports/transport.h"
#include "coord_round.h"
#include "coord_fig.h"
#include "cluster_json.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

void coord_gone(struct coord *c, uint32_t k, const char *why)
{
	struct crank *r = &c->r[k];

	if (!r->alive)
		return;
	r->alive = false;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	cin_clear(&r->in);
	xsnprintf(r->why, sizeof(r->why), "%s", why);
	fprintf(stderr, "qperf: cluster: rank %u (%s) %s\n", k,
		r->host[0] ? r->host : "?", why);
	coord_json_gone(c, k);
}

uint64_t coord_job_bound(const struct plan *p, size_t i)
{
	const struct par_set *ps = &p->tests[i].s.par;
	uint64_t t = ps->val[SIDE_LOC][PAR_TIME];
	uint64_t to = ps->val[SIDE_LOC][PAR_TIMEOUT];

	if (!t || ps->val[SIDE_LOC][PAR_NO_MSGS])
		t = DEFAULT_MAX_TIME;
	return t + 4 * to + 10 * NS_PER_SEC;
}

void coord_ping_all(struct coord *c)
{
	struct cmsg m;
	char err[256];

	c->next_ping = now_ns() + CLUSTER_PING_NS;
	memset(&m, 0, sizeof(m));
	m.type = CMSG_PING;
	for (uint32_t k = 0; k < c->n; k++)
		if (c->r[k].alive &&
		    cluster_send(c->r[k].fd, &c->r[k].ch, CLUSTER_SEND_NS, &m,
				 err, sizeof(err)) < 0)
			coord_gone(c, k, "left (cannot send to it)");
}

/* One pair's place in a round. */
struct slot {
	uint32_t a, b;
	uint32_t next; /* next job: item * 2 + reverse */
	uint32_t job; /* id of the job running, 0 = none */
	uint32_t client; /* rank running it */
	uint64_t deadline;
	bool done;
};

/* Start the slot's next job; marks it done when none is left. */
static void slot_next(struct coord *c, struct slot *s)
{
	while (!s->done) {
		uint32_t item = s->next / 2, rev = s->next % 2;
		uint32_t cl = rev ? s->b : s->a, sv = rev ? s->a : s->b;
		struct cmsg m;
		char err[256];

		if (item >= c->item_hi) {
			s->done = true;
			break;
		}
		s->next++;
		if (item < c->item_lo ||
		    (rev && !coord_one_way(c->p->tests[item].test)))
			continue;
		if (!c->r[cl].alive || !c->r[sv].alive) {
			s->done = !c->r[s->a].alive || !c->r[s->b].alive;
			continue;
		}
		memset(&m, 0, sizeof(m));
		m.type = CMSG_RUN;
		m.u.run.job = ++c->job_seq;
		m.u.run.item = item;
		m.u.run.peer = sv;
		m.u.run.peer_local = c->r[sv].local;
		m.u.run.port = c->r[sv].port;
		xsnprintf(m.u.run.addr, sizeof(m.u.run.addr), "%s",
			  c->r[sv].addr);
		if (cluster_send(c->r[cl].fd, &c->r[cl].ch, CLUSTER_SEND_NS,
				 &m, err, sizeof(err)) < 0) {
			coord_gone(c, cl, "left (cannot send to it)");
			continue;
		}
		s->job = m.u.run.job;
		s->client = cl;
		s->deadline = now_ns() + coord_job_bound(c->p, item);
		c->cur_item = item;
		return;
	}
}

/* A RESULT (or a failure) of the job running in slot s. */
static void slot_result(struct coord *c, struct slot *s,
			const struct cmsg_result *res)
{
	uint32_t item = (s->next - 1) / 2;
	uint32_t sv = s->client == s->a ? s->b : s->a;

	c->record(c, item, s->client, sv, res);
	s->job = 0;
	slot_next(c, s);
}

int coord_read(struct coord *c, uint32_t k, struct cmsg *m)
{
	struct crank *r = &c->r[k];
	char why[400], line[480];
	int rc;

	if (!r->alive)
		return -1;
	rc = cin_read(&r->in, r->fd, why, sizeof(why));
	if (rc == 0)
		return 0;
	if (rc > 0) {
		rc = cmsg_open(&r->ch, r->in.buf, r->in.have, m, why,
			       sizeof(why));
		cin_clear(&r->in);
		if (rc > 0) { /* a RESULT refused: its job fails */
			uint32_t job = m->u.result.job;

			fprintf(stderr,
				"qperf: rank 0: refused a RESULT from rank %u (%s): %s\n",
				k, r->addr, why);
			memset(m, 0, sizeof(*m));
			m->type = CMSG_RESULT;
			m->u.result.job = job;
			m->u.result.status = COORD_REFUSED;
			xsnprintf(m->u.result.err, sizeof(m->u.result.err),
				  "rank 0 refused rank %u's RESULT: %s", k, why);
			return 1;
		}
		if (rc == 0)
			return 1;
		xsnprintf(line, sizeof(line), "sent a message rank 0 refused: %s",
			  why);
	} else {
		xsnprintf(line, sizeof(line), "left: %s", why);
	}
	coord_gone(c, k, line);
	return -1;
}

/* The client of slot s has something to read: its RESULT ends its job
 * (a rank gone fails it in the next pass). */
static void slot_read(struct coord *c, struct slot *s)
{
	struct cmsg m;

	if (coord_read(c, s->client, &m) > 0 && m.type == CMSG_RESULT &&
	    m.u.result.job == s->job)
		slot_result(c, s, &m.u.result);
}

int coord_round(struct coord *c, const struct sched_pair *pairs,
		uint32_t np)
{
	struct slot *sl = xcalloc(np ? np : 1, sizeof(*sl));
	struct pollfd *pf = xcalloc(np ? np : 1, sizeof(*pf));
	for (uint32_t i = 0; i < np; i++) {
		sl[i].a = pairs[i].a;
		sl[i].b = pairs[i].b;
		sl[i].next = 2 * c->item_lo;
		slot_next(c, &sl[i]);
	}
	for (;;) {
		uint32_t nf = 0, *map = NULL;
		uint64_t now = now_ns(), wake = c->next_ping;
		int r;

		map = xcalloc(np ? np : 1, sizeof(*map));
		for (uint32_t i = 0; i < np; i++) {
			if (sl[i].done || !sl[i].job)
				continue;
			if (!c->r[sl[i].client].alive ||
			    now >= sl[i].deadline) {
				struct cmsg_result f = { .status = 1 };

				if (c->r[sl[i].client].alive)
					coord_gone(c, sl[i].client,
						   "did not finish its test in time");
				xsnprintf(f.err, sizeof(f.err), "rank %u is gone",
					  sl[i].client);
				slot_result(c, &sl[i], &f);
				i--; /* look at the slot again */
				continue;
			}
			if (sl[i].deadline < wake)
				wake = sl[i].deadline;
			pf[nf].fd = c->r[sl[i].client].fd;
			pf[nf].events = POLLIN;
			map[nf++] = i;
		}
		if (!nf) {
			free(map);
			break;
		}
		r = poll(pf, nf, wake > now ? (int)((wake - now) / 1000000 + 1)
					   : 0);
		/* (The pings keep their pace across rounds and retests, so
		 * that many short ones leave no rank without a word.) */
		if (now_ns() >= c->next_ping)
			coord_ping_all(c);
		for (uint32_t k = 0; r > 0 && k < nf; k++) {
			struct slot *s = &sl[map[k]];

			if (pf[k].revents && s->job)
				slot_read(c, s);
		}
		free(map);
	}
	free(sl);
	free(pf);
	return 0;
}
