// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's coordinator on rank 0 (see cluster.h): joins, rounds,
 * figures, outliers and their retests.  The report is cluster_report.c.
 *
 * A round hands each of its pairs its jobs one after the other: for each
 * test of the plan, a runs it as client against b's server and, for a
 * one-way bandwidth test, then b against a.  The pairs of a round run at
 * the same time; the round ends when every pair is done.  Every wait is
 * bounded: a job by its test's time and timeouts, an idle rank by the
 * pings rank 0 sends it, a join by the join window.  A rank that leaves,
 * times out or never joins is marked gone and the run goes on without it.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transports/transport.h"
#include "cluster.h"
#include "cluster_coord.h"
#include "output/json.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

bool coord_one_way(const struct test_desc *t)
{
	return (t->measure == MEAS_BANDWIDTH ||
		t->measure == MEAS_BANDWIDTH_SR) &&
	       t->loop != LOOP_BI_BW;
}

double coord_goodness(const struct test_desc *t, const struct pair_res *r)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		return r->latency > 0 ? 1 / r->latency : 0;
	case MEAS_MSG_RATE:
		return r->msg_rate;
	default:
		return r->recv_bw;
	}
}

void coord_gone(struct coord *c, uint32_t k, const char *why)
{
	struct crank *r = &c->r[k];

	if (!r->alive)
		return;
	r->alive = false;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	xsnprintf(r->why, sizeof(r->why), "%s", why);
	fprintf(stderr, "qperf: cluster: rank %u (%s) %s\n", k,
		r->host[0] ? r->host : "?", why);
	coord_json_gone(c, k);
}

/* The longest a job of plan item i may take before its client is gone. */
static uint64_t job_bound(const struct plan *p, size_t i)
{
	const struct par_set *ps = &p->tests[i].s.par;
	uint64_t t = ps->val[SIDE_LOC][PAR_TIME];
	uint64_t to = ps->val[SIDE_LOC][PAR_TIMEOUT];

	if (!t || ps->val[SIDE_LOC][PAR_NO_MSGS])
		t = DEFAULT_MAX_TIME;
	return t + 4 * to + 10 * NS_PER_SEC;
}

/* Keep idle ranks sure that rank 0 is alive. */
static void ping_all(struct coord *c)
{
	struct cmsg m;
	char err[256];

	memset(&m, 0, sizeof(m));
	m.type = CMSG_PING;
	for (uint32_t k = 0; k < c->n; k++)
		if (c->r[k].alive && cluster_send(c->r[k].fd, &m, err,
						  sizeof(err)) < 0)
			coord_gone(c, k, "left (cannot send to it)");
}

/* Accept and read JOINs until every rank is in or the window closes. */
static void joins(struct coord *c, int lfd)
{
	uint64_t deadline = now_ns() + c->p->cluster.join_window;
	uint64_t next_ping = now_ns() + CLUSTER_PING_NS;
	uint32_t in = 0;
	bool said_nofile = false;

	while (in < c->n && now_ns() < deadline) {
		struct pollfd pf = { lfd, POLLIN, 0 };
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct cmsg m;
		char err[256];
		uint64_t now = now_ns(), wake = deadline;
		int fd;

		/* Those that joined wait for the rest: keep them sure that
		 * rank 0 is alive (they give up after CLUSTER_LOSS_NS). */
		if (now >= next_ping) {
			ping_all(c);
			next_ping = now + CLUSTER_PING_NS;
		}
		if (next_ping < wake)
			wake = next_ping;
		if (poll(&pf, 1, wake > now ? (int)((wake - now) / 1000000 + 1)
					    : 0) <= 0)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (fd < 0) {
			/* Out of descriptors: say so once, do not spin. */
			if (errno == EMFILE || errno == ENFILE) {
				if (!said_nofile)
					fprintf(stderr,
						"qperf: rank 0: cannot accept a rank's JOIN: %s\n",
						strerror(errno));
				said_nofile = true;
				poll(NULL, 0, 100);
			}
			continue;
		}
		if (cluster_recv(fd, 5 * NS_PER_SEC, &m, err, sizeof(err)) < 0 ||
		    m.type != CMSG_JOIN || m.u.join.size != c->n ||
		    m.u.join.rank >= c->n || c->r[m.u.join.rank].joined) {
			/* A stranger, a rank of another run, or a second JOIN. */
			close(fd);
			continue;
		}
		{
			struct crank *r = &c->r[m.u.join.rank];

			r->fd = fd;
			r->joined = r->alive = true;
			r->port = m.u.join.port;
			r->local = m.u.join.local_rank;
			xsnprintf(r->host, sizeof(r->host), "%s", m.u.join.host);
			if (getnameinfo((struct sockaddr *)&ss, sl, r->addr,
					sizeof(r->addr), NULL, 0,
					NI_NUMERICHOST))
				xsnprintf(r->addr, sizeof(r->addr), "?");
			/* An IPv4 peer of a dual-stack socket: plain IPv4. */
			if (!strncmp(r->addr, "::ffff:", 7) &&
			    strchr(r->addr + 7, '.'))
				memmove(r->addr, r->addr + 7,
					strlen(r->addr + 7) + 1);
			in++;
		}
	}
	for (uint32_t k = 0; k < c->n; k++)
		if (!c->r[k].joined) {
			c->r[k].alive = true; /* so that coord_gone() reports */
			coord_gone(c, k, "never joined");
		}
}

/*
 * Rank 0 keeps a connection to every rank: n descriptors beside its own
 * few.  Raise the soft limit as far as that needs (never above the hard
 * one); if the hard limit is too low, say so before anyone waits.
 * 0, or 1 printed.
 */
#define NOFILE_SPARE 64

static int nofile_for(uint32_t n)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + NOFILE_SPARE;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		fprintf(stderr,
			"qperf: rank 0: %u ranks need %llu open files at rank 0, but its limit is %llu: raise it (ulimit -n, or LimitNOFILE= under systemd)\n",
			n, (unsigned long long)need,
			(unsigned long long)rl.rlim_max);
		return 1;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		fprintf(stderr,
			"qperf: rank 0: cannot raise the open files limit to %llu for %u ranks: %s\n",
			(unsigned long long)need, n, strerror(errno));
		return 1;
	}
	return 0;
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
		if (cluster_send(c->r[cl].fd, &m, err, sizeof(err)) < 0) {
			coord_gone(c, cl, "left (cannot send to it)");
			continue;
		}
		s->job = m.u.run.job;
		s->client = cl;
		s->deadline = now_ns() + job_bound(c->p, item);
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

int coord_round(struct coord *c, const struct sched_pair *pairs,
		uint32_t np)
{
	struct slot *sl = xcalloc(np ? np : 1, sizeof(*sl));
	struct pollfd *pf = xcalloc(np ? np : 1, sizeof(*pf));
	uint64_t next_ping = now_ns() + CLUSTER_PING_NS;

	for (uint32_t i = 0; i < np; i++) {
		sl[i].a = pairs[i].a;
		sl[i].b = pairs[i].b;
		sl[i].next = 2 * c->item_lo;
		slot_next(c, &sl[i]);
	}
	for (;;) {
		uint32_t nf = 0, *map = NULL;
		uint64_t now = now_ns(), wake = next_ping;
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
		if (now_ns() >= next_ping) {
			ping_all(c);
			next_ping = now_ns() + CLUSTER_PING_NS;
		}
		for (uint32_t k = 0; r > 0 && k < nf; k++) {
			struct slot *s = &sl[map[k]];
			struct cmsg m;
			char err[256];

			if (!pf[k].revents || !s->job)
				continue;
			if (cluster_recv(pf[k].fd, CLUSTER_LOSS_NS, &m, err,
					 sizeof(err)) < 0) {
				char why[300];

				xsnprintf(why, sizeof(why), "left: %s", err);
				coord_gone(c, s->client, why);
				continue; /* the next pass fails its job */
			}
			if (m.type == CMSG_RESULT && m.u.result.job == s->job)
				slot_result(c, s, &m.u.result);
		}
		free(map);
	}
	free(sl);
	free(pf);
	return 0;
}

int cluster_coord(const struct plan *p, const struct rank_info *ri,
		  int lfd, FILE *plot)
{
	struct coord c;
	int rc;

	if (nofile_for(ri->size)) {
		if (plot)
			fclose(plot);
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.n = ri->size;
	c.seed = p->cluster.seed;
	c.text = p->json == JSON_OFF;
	c.plot = plot;
	c.json = json_open(p->json, p->argc, p->argv, NULL);
	c.r = xcalloc(c.n, sizeof(*c.r));
	for (uint32_t k = 0; k < c.n; k++)
		c.r[k].fd = -1;
	joins(&c, lfd);
	rc = coord_run(&c);
	if (!c.text)
		coord_json(&c, rc);
	{
		struct cmsg m;
		char err[256];

		memset(&m, 0, sizeof(m));
		m.type = CMSG_DONE;
		for (uint32_t k = 0; k < c.n; k++)
			if (c.r[k].alive) {
				cluster_send(c.r[k].fd, &m, err, sizeof(err));
				close(c.r[k].fd);
			}
	}
	coord_free(&c);
	free(c.r);
	return rc;
}
