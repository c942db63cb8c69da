// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rank 0's side of a group pattern's round (coord_group.h).
 *
 * A flow goes SETUP (its RUN sent) -> READY (its rank said it is set up,
 * waiting at its barrier) -> RUN (its GO sent) -> DONE (its RESULT, or
 * why it failed).  Once no flow is in SETUP, either every flow is READY
 * and all are started, or one failed and none is (GO with start 0).
 *
 * The common start: rank 0 measures the offset of each flow's rank's
 * monotonic clock against its own, PROBES times (a CLOCK probe, the
 * rank's answer with its clock; the offset is the rank's clock less the
 * middle of the round trip, from the fastest round trip, whose half bounds
 * its error), picks a start GROUP_LEAD and twice the slowest round trip
 * from now, and sends each flow that start on its rank's clock.  Each
 * flow sleeps until then (lib/clock.h sleep_until_ns()) and says how late
 * it woke; the spread of those, and the offsets' uncertainty, are what
 * the report says of how close the starts were.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "transports/transport.h"
#include "coord_group.h"
#include "coord_round.h"
#include "lib/clock.h"
#include "lib/err.h"

enum { GF_SETUP, GF_READY, GF_RUN, GF_DONE };

#define PROBES 3 /* clock probes per rank and round */
#define PROBE_WAIT NS_PER_SEC /* the longest rank 0 waits for an answer */
#define GROUP_LEAD (20 * 1000000ULL) /* ns from the GOs to the start */

/* An answer rank 0 waits for: rank's CLOCK with probe seq. */
struct probe {
	uint32_t rank, seq;
	bool got;
	uint64_t their, t1; /* its clock; rank 0's when it came */
};

/* Flow f failed before its RESULT came: why. */
static void g_fail(struct gflow *f, const char *why)
{
	memset(&f->res, 0, sizeof(f->res));
	f->res.job = f->job;
	f->res.status = 1;
	xsnprintf(f->res.err, sizeof(f->res.err), "%s", why);
	f->st = GF_DONE;
}

/* Send f its RUN. */
static void g_run(struct coord *c, uint32_t item, struct gflow *f)
{
	const struct crank *sv = &c->r[f->server];
	struct cmsg m;
	char err[256];

	for (int i = 0; i < 2; i++) {
		uint32_t k = i ? f->server : f->client;

		if (!c->r[k].alive) {
			xsnprintf(err, sizeof(err), "rank %u is gone", k);
			g_fail(f, err);
			return;
		}
	}
	memset(&m, 0, sizeof(m));
	m.type = CMSG_RUN;
	m.u.run.job = f->job = ++c->job_seq;
	m.u.run.item = item;
	m.u.run.peer = f->server;
	m.u.run.peer_local = sv->local;
	m.u.run.port = sv->port;
	m.u.run.flow = f->flow;
	xsnprintf(m.u.run.addr, sizeof(m.u.run.addr), "%s", sv->addr);
	f->st = GF_SETUP;
	f->deadline = now_ns() + coord_job_bound(c->p, item);
	if (cluster_send(c->r[f->client].fd, &c->r[f->client].ch,
			 CLUSTER_SEND_NS, &m, err, sizeof(err)) < 0)
		coord_gone(c, f->client, "left (cannot send to it)");
}

/* Message m from rank k: to its flow, or the probe waited for. */
static void g_take(struct gres *g, uint32_t k, const struct cmsg *m,
		   struct probe *pr)
{
	if (m->type == CMSG_CLOCK) {
		if (pr && pr->rank == k && m->u.clock.probe == pr->seq) {
			pr->got = true;
			pr->t1 = now_ns();
			pr->their = m->u.clock.now;
		}
		return;
	}
	for (uint32_t i = 0; i < g->k; i++) {
		struct gflow *f = &g->f[i];

		if (f->client != k || f->st == GF_DONE ||
		    (m->type == CMSG_READY ? m->u.go.job : m->u.result.job) !=
			    f->job)
			continue;
		if (m->type == CMSG_READY && f->st == GF_SETUP)
			f->st = GF_READY;
		if (m->type == CMSG_RESULT) {
			f->res = m->u.result;
			f->st = GF_DONE;
		}
	}
}

/* Every whole message rank k has sent. */
static void g_read(struct coord *c, struct gres *g, uint32_t k,
		   struct probe *pr)
{
	struct cmsg m;

	while (coord_read(c, k, &m) > 0)
		g_take(g, k, &m, pr);
}

/*
 * Rank k's clock less rank 0's, into *off, from the fastest of PROBES
 * round trips (half of it into *half).  0, or -1 if it did not answer
 * (then gone).
 */
static int g_probe(struct coord *c, struct gres *g, uint32_t k,
		   int64_t *off, uint64_t *half)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PROBES; i++) {
		struct probe pr = { k, ++c->job_seq, false, 0, 0 };
		struct pollfd pf = { .fd = c->r[k].fd, .events = POLLIN };
		struct cmsg m;
		char err[256];
		uint64_t t0 = now_ns(), rtt;

		memset(&m, 0, sizeof(m));
		m.type = CMSG_CLOCK;
		m.u.clock.probe = pr.seq;
		if (cluster_send(c->r[k].fd, &c->r[k].ch, CLUSTER_SEND_NS, &m,
				 err, sizeof(err)) < 0) {
			coord_gone(c, k, "left (cannot send to it)");
			return -1;
		}
		while (!pr.got && c->r[k].alive) {
			uint64_t now = now_ns();

			if (now >= c->next_ping)
				coord_ping_all(c);
			if (now - t0 >= PROBE_WAIT) {
				coord_gone(c, k,
					   "did not answer rank 0's clock probe within 1 s");
				return -1;
			}
			poll(&pf, 1,
			     (int)((t0 + PROBE_WAIT - now) / 1000000 + 1));
			g_read(c, g, k, &pr);
		}
		if (!c->r[k].alive)
			return -1;
		rtt = pr.t1 - t0;
		if (rtt < best) {
			best = rtt;
			*off = (int64_t)(pr.their - (t0 + rtt / 2));
			*half = rtt / 2;
		}
	}
	return 0;
}

/* Send f its GO for start (its rank's clock; 0: do not start). */
static void g_go(struct coord *c, struct gflow *f, uint64_t start)
{
	struct cmsg m;
	char err[256];

	memset(&m, 0, sizeof(m));
	m.type = CMSG_GO;
	m.u.go.job = f->job;
	m.u.go.start = start;
	f->st = GF_RUN;
	if (cluster_send(c->r[f->client].fd, &c->r[f->client].ch,
			 CLUSTER_SEND_NS, &m, err, sizeof(err)) < 0)
		coord_gone(c, f->client, "left (cannot send to it)");
}

/*
 * Every flow set up or failed: start them all together, or, if one
 * failed (or a rank's clock could not be read), none.
 */
static void g_start(struct coord *c, uint32_t item, struct gres *g)
{
	bool ok = true;
	uint64_t t, half = 0, lead = 0;

	for (uint32_t i = 0; i < g->k; i++)
		ok = ok && g->f[i].st == GF_READY;
	for (uint32_t i = 0; ok && i < g->k; i++) {
		struct gflow *f = &g->f[i];
		bool seen = false;

		for (uint32_t j = 0; j < i; j++)
			if (g->f[j].client == f->client) {
				f->off = g->f[j].off;
				seen = true;
			}
		if (seen)
			continue;
		ok = g_probe(c, g, f->client, &f->off, &half) == 0 &&
		     f->st == GF_READY;
		if (half > g->uncert)
			g->uncert = half;
	}
	for (uint32_t i = 0; ok && i < g->k; i++)
		ok = g->f[i].st == GF_READY && c->r[g->f[i].client].alive;
	lead = GROUP_LEAD + 4 * g->uncert;
	t = now_ns() + lead;
	g->started = ok;
	for (uint32_t i = 0; i < g->k; i++) {
		struct gflow *f = &g->f[i];

		if (f->st != GF_READY || !c->r[f->client].alive)
			continue;
		g_go(c, f, ok ? (uint64_t)((int64_t)(t + f->due) + f->off) : 0);
		f->deadline = now_ns() + lead + f->due +
			      (ok && (f->flow & CRUN_LOAD) ?
				       UINT64_MAX / 2 :
				       coord_job_bound(c->p, item));
	}
}

/* A latency round's victim is done: stop its loads. */
static void g_stop(struct coord *c, uint32_t item, struct gres *g)
{
	for (uint32_t i = 1; i < g->k; i++) {
		struct gflow *f = &g->f[i];
		struct cmsg m;
		char err[256];

		if (f->st != GF_RUN || f->stopped || !(f->flow & CRUN_LOAD))
			continue;
		f->stopped = true;
		f->deadline = now_ns() + coord_job_bound(c->p, item);
		memset(&m, 0, sizeof(m));
		m.type = CMSG_STOP;
		m.u.go.job = f->job;
		if (cluster_send(c->r[f->client].fd, &c->r[f->client].ch,
				 CLUSTER_SEND_NS, &m, err, sizeof(err)) < 0)
			coord_gone(c, f->client, "left (cannot send to it)");
	}
}

/* Flows whose rank is gone, or past their deadline, fail.  Returns
 * whether any flow is not done, *setup whether any is in SETUP. */
static bool g_check(struct coord *c, struct gres *g, bool *setup)
{
	uint64_t now = now_ns();
	bool left = false;
	char why[64];

	*setup = false;
	for (uint32_t i = 0; i < g->k; i++) {
		struct gflow *f = &g->f[i];

		if (f->st == GF_DONE)
			continue;
		if (c->r[f->client].alive && now >= f->deadline)
			coord_gone(c, f->client,
				   "did not finish its test in time");
		if (!c->r[f->client].alive) {
			xsnprintf(why, sizeof(why), "rank %u is gone",
				  f->client);
			g_fail(f, why);
			continue;
		}
		left = true;
		*setup |= f->st == GF_SETUP;
	}
	return left;
}

void coord_group(struct coord *c, uint32_t item, uint32_t hub,
		 const uint32_t *members, uint32_t k, struct gres *g)
{
	const struct test_desc *t = c->p->tests[item].test;
	bool incast = c->p->cluster.pattern.kind == SCHED_INCAST;
	bool lat = t->measure == MEAS_LATENCY;
	bool decided = false, setup;

	memset(g, 0, sizeof(*g));
	g->k = k;
	for (uint32_t i = 0; i < k; i++) {
		struct gflow *f = &g->f[i];

		f->client = incast ? members[i] : hub;
		f->server = incast ? hub : members[i];
		f->flow = CRUN_SYNC | (lat && i ? CRUN_LOAD : 0);
		f->due = lat && !i && k > 1 ? GROUP_WARMUP : 0;
		g_run(c, item, f);
	}
	while (g_check(c, g, &setup)) {
		struct pollfd pf[SCHED_GROUP_MAX];
		uint32_t who[SCHED_GROUP_MAX], np = 0;
		uint64_t now, wake = c->next_ping;

		if (!setup && !decided) {
			decided = true;
			g_start(c, item, g);
			continue;
		}
		if (lat && g->f[0].st == GF_DONE)
			g_stop(c, item, g);
		for (uint32_t i = 0; i < k; i++) {
			const struct gflow *f = &g->f[i];
			bool seen = false;

			if (f->st == GF_DONE)
				continue;
			if (f->deadline < wake)
				wake = f->deadline;
			for (uint32_t j = 0; j < np; j++)
				seen |= who[j] == f->client;
			if (seen)
				continue;
			pf[np] = (struct pollfd){ .fd = c->r[f->client].fd,
						  .events = POLLIN };
			who[np++] = f->client;
		}
		now = now_ns();
		poll(pf, np,
		     wake > now ? (int)((wake - now) / 1000000 + 1) : 0);
		if (now_ns() >= c->next_ping)
			coord_ping_all(c);
		for (uint32_t j = 0; j < np; j++)
			if (pf[j].revents)
				g_read(c, g, who[j], NULL);
	}
}
