// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's group patterns on rank 0 (group_run.h).
 *
 * A round of plan item i is K flows at once (coord_group.c).  Its report
 * is each flow's figure, the sharers' aggregate (their sum), Jain's
 * fairness index and the slowest sharer against the fair share
 * (lib/fair.h, as --clients), with -n the time from the common start to
 * the last flow's end, and how close the starts were.  The sharers are
 * all the flows, but in a latency round, where flow 0 (the victim) runs
 * the item's latency test and the others load it with their transport's
 * bandwidth test: there they are the loads.  Only the item's own test's
 * figures (every flow, or the victim) enter its matrix; a round that did
 * not measure every flow enters nothing and is tried once more after the
 * schedule.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "group_run.h"
#include "cluster_json.h"
#include "cluster_plan.h"
#include "coord_fig.h"
#include "coord_group.h"
#include "flow.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fair.h"

const char *group_hub_role(const struct coord *c)
{
	return c->p->cluster.pattern.kind == SCHED_INCAST ? "receiver" :
							    "sender";
}

double group_figure(const struct cgroup *g)
{
	return g->load ? g->victim : g->aggregate;
}

/* A round's figure as goodness (bigger is better), 0 if none. */
static double round_goodness(const struct cgroup *g)
{
	double v = group_figure(g);

	return !g->ok || !(v > 0) ? 0 : g->load ? 1 / v : v;
}

/* A flow's figure in SI units (s for a latency), 0 if none. */
static double si_fig(const struct test_desc *t, const struct pair_res *r)
{
	return t->measure == MEAS_LATENCY ? r->latency : coord_goodness(t, r);
}

/* A figure in SI units as the report shows it ("1.99 MB/s"). */
static const char *show(const struct test_desc *t, double v, char *b,
			size_t len)
{
	return coord_show(t, t->measure == MEAS_LATENCY ? 1 / v : v, b, len);
}

/* A time in s as "212 us", "1.23 ms" or "1.234 s". */
static const char *span(double s, char *b, size_t len)
{
	if (s < 1e-3)
		xsnprintf(b, len, "%.0f us", s * 1e6);
	else if (s < 1)
		xsnprintf(b, len, "%.2f ms", s * 1e3);
	else
		xsnprintf(b, len, "%.3f s", s);
	return b;
}

/* What round g of item gave, from the flows' results. */
static void summarize(const struct coord *c, size_t item, uint32_t hub,
		      const struct gres *g, struct cgroup *cg)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct test_desc *lt = test_bw_of(t);
	bool lat = t->measure == MEAS_LATENCY;
	bool by_n = c->p->tests[item].s.par.val[SIDE_LOC][PAR_NO_MSGS] != 0;
	double x[SCHED_GROUP_MAX], last = 0;
	uint32_t idx[SCHED_GROUP_MAX], nx = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool retried = cg->retried;
	struct fair_sum fs;

	free(cg->err);
	memset(cg, 0, sizeof(*cg));
	cg->hub = hub;
	cg->k = g->k;
	cg->ran = true;
	cg->ok = g->started;
	cg->load = lat;
	cg->retried = retried;
	for (uint32_t i = 0; i < g->k; i++) {
		const struct gflow *f = &g->f[i];
		struct cgflow *o = &cg->f[i];
		bool load = f->flow & CRUN_LOAD;
		double v = f->res.status ? 0 :
			   si_fig(load ? lt : t, &f->res.r);

		o->rank = f->client == hub ? f->server : f->client;
		o->fig = o->late = NAN;
		if (!(v > 0)) {
			char e[CMSG_ERR_MAX + 64];

			cg->ok = false;
			/* the first cause, not a flow stopped for it */
			if (cg->err && (!strstr(cg->err, FLOW_STOPPED) ||
					strstr(f->res.err, FLOW_STOPPED)))
				continue;
			xsnprintf(e, sizeof(e), "rank %u -> %u: %s", f->client,
				  f->server,
				  f->res.status ? f->res.err : "measured nothing");
			free(cg->err);
			cg->err = xstrdup(e);
			continue;
		}
		o->fig = (float)v;
		o->late = (float)(f->res.late / 1e9);
		o->done = (float)((f->due + f->res.late) / 1e9 +
				  f->res.r.window);
		if (f->res.late < lo)
			lo = f->res.late;
		if (f->res.late > hi)
			hi = f->res.late;
		if (!load && o->done > last) {
			last = o->done;
			cg->last = i;
		}
		if (!lat || i) {
			x[nx] = v;
			idx[nx++] = i;
		}
	}
	if (!cg->ok && !cg->err)
		cg->err = xstrdup("not started");
	if (!cg->ok)
		return;
	if (nx) {
		fair_summarize(x, nx, false, &fs);
		cg->aggregate = fs.aggregate;
		cg->fairness = fs.jain;
		cg->slowest = idx[fs.slowest];
		cg->ratio = fs.ratio;
	}
	cg->victim = lat ? cg->f[0].fig : 0;
	cg->spread = (double)(hi - lo) / 1e9;
	cg->uncert = (double)g->uncert / 1e9;
	cg->completion = by_n ? last : 0;
}

/* "ranks 2, 1, 3" of flows [from, k) of g into b. */
static const char *rank_list(const struct cgroup *g, uint32_t from, char *b,
			     size_t len)
{
	size_t n = xsnprintf(b, len, "rank%s", g->k - from > 1 ? "s" : "");

	for (uint32_t i = from; i < g->k; i++)
		n += xsnprintf(b + n, len - n, "%s %u", i > from ? "," : "",
			       g->f[i].rank);
	return b;
}

/* Round r (from 1) of item as it ended: its flows, then what they gave
 * together. again: it is tried again after the schedule. */
static void print_round(const struct coord *c, size_t item, uint32_t r,
			const struct cgroup *g, bool again)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct test_desc *lt = test_bw_of(t);
	bool incast = c->p->cluster.pattern.kind == SCHED_INCAST;
	char who[16 * SCHED_GROUP_MAX], b[64], b2[64];

	printf("round %u: %s%s %s rank %u (%s)", r,
	       cluster_item_name(&c->p->tests[item]),
	       g->retried ? " (tried again)" : "", incast ? "into" : "from",
	       g->hub, c->r[g->hub].host);
	if (g->load && g->k > 1)
		printf(": rank %u's latency beside %s %s %s", g->f[0].rank,
		       lt->name, incast ? "from" : "to",
		       rank_list(g, 1, who, sizeof(who)));
	else if (g->load)
		printf(": rank %u's latency", g->f[0].rank);
	else
		printf(" %s %s", incast ? "from" : "to",
		       rank_list(g, 0, who, sizeof(who)));
	if (!g->ok) {
		printf(": failed: %s%s\n", g->err,
		       again ? "; tried again after the schedule" : "");
		return;
	}
	printf("; starts within %s (clock offsets +-%s)\n",
	       span(g->spread, b, sizeof(b)), span(g->uncert, b2, sizeof(b2)));
	for (uint32_t i = 0; i < g->k; i++) {
		const struct cgflow *f = &g->f[i];
		bool load = g->load && i;

		printf("  rank %u -> %u: %s%s%s%s\n", incast ? f->rank : g->hub,
		       incast ? g->hub : f->rank,
		       show(load ? lt : t, f->fig, b, sizeof(b)),
		       g->load ? " (" : "",
		       !g->load ? "" : load ? lt->name : "victim",
		       g->load ? ")" : "");
	}
	if (g->load && g->k < 2) {
		if (g->completion > 0)
			printf("  done %s after the start\n",
			       span(g->completion, b, sizeof(b)));
		return;
	}
	printf("  %saggregate %s", g->load ? "load " : "",
	       show(g->load ? lt : t, g->aggregate, b, sizeof(b)));
	if (g->k - g->load > 1)
		printf(", fairness %.3f, slowest rank %u at %.3f of the fair share",
		       g->fairness, g->f[g->slowest].rank, g->ratio);
	if (g->completion > 0)
		printf("; the last, rank %u, done %s after the start",
		       g->f[g->last].rank, span(g->completion, b, sizeof(b)));
	printf("\n");
}

/* The first of round g's ranks that is gone, or UINT32_MAX. */
static uint32_t gone_of(const struct coord *c, const struct cgroup *g)
{
	for (uint32_t i = 0; i <= g->k; i++) {
		uint32_t k = i ? g->f[i - 1].rank : g->hub;

		if (!c->r[k].alive)
			return k;
	}
	return UINT32_MAX;
}

/*
 * Round r of item, final, into the matrices: each flow of the item's
 * own test (every flow, or the victim) with its result in rg (NULL:
 * each failed with why), and its --json_stream line.
 */
static void commit(struct coord *c, size_t item, uint32_t r,
		   struct cgroup *cg, const struct gres *rg, const char *why)
{
	bool incast = c->p->cluster.pattern.kind == SCHED_INCAST;

	cg->final = true;
	c->round = r + 1;
	for (uint32_t i = 0; i < cg->k && !(cg->load && i); i++) {
		uint32_t m = cg->f[i].rank;
		struct cmsg_result res;

		memset(&res, 0, sizeof(res));
		if (rg)
			res = rg->f[i].res;
		/* a flow measured in a failed round stands for nothing */
		if (!cg->ok && (!rg || (!res.status && cg->f[i].fig > 0))) {
			res.status = 1;
			xsnprintf(res.err, sizeof(res.err), "%s%s",
				  rg ? "not counted: its round failed: " : "",
				  rg ? cg->err : why);
		}
		c->record(c, (uint32_t)item, incast ? m : cg->hub,
			  incast ? cg->hub : m, &res);
	}
	coord_json_group(c, item, r + 1, cg);
	c->round = 0;
}

/*
 * Run round r of item (hub, its k members) into c->t[item].grp[r] and
 * report it.  first: in the schedule, where a failed round whose ranks
 * are all there is kept to be tried again after it; else final.
 */
static void run_round(struct coord *c, size_t item, uint32_t r,
		      uint32_t hub, const uint32_t *members, uint32_t k,
		      struct gres *g, bool first)
{
	struct ctest *ct = &c->t[item];
	struct cgroup *cg = &ct->grp[r];
	uint32_t own = 0;
	bool final;

	coord_group(c, (uint32_t)item, hub, members, k, g);
	cg->retried = !first;
	summarize(c, item, hub, g, cg);
	final = cg->ok || !first || gone_of(c, cg) != UINT32_MAX;
	for (uint32_t i = 0; i < k; i++)
		own += !(g->f[i].flow & CRUN_LOAD);
	if (!first) {
		ct->nretried += own;
		ct->nretried_ok += cg->ok ? own : 0;
	}
	if (c->text) {
		print_round(c, item, r + 1, cg, !final);
		fflush(stdout);
	}
	if (final)
		commit(c, item, r, cg, g, NULL);
}

void group_walk(struct coord *c, const struct sched *s)
{
	struct gres *g = xcalloc(1, sizeof(*g));
	uint32_t members[SCHED_GROUP_MAX], hub, k;
	char why[CMSG_ERR_MAX + 128];

	for (size_t i = 0; i < c->p->ntests; i++)
		c->t[i].grp = xcalloc(s->rounds ? s->rounds : 1,
				      sizeof(*c->t[i].grp));
	for (uint32_t r = 0; r < s->rounds; r++) {
		k = sched_group(s, r, &hub, members);
		for (size_t i = 0; i < c->p->ntests; i++)
			run_round(c, i, r, hub, members, k, g, true);
	}
	/* The failed rounds again, if their ranks are still there. */
	for (size_t i = 0; i < c->p->ntests; i++)
		for (uint32_t r = 0; r < s->rounds; r++) {
			struct cgroup *cg = &c->t[i].grp[r];
			uint32_t lost = gone_of(c, cg);

			if (cg->final)
				continue;
			k = sched_group(s, r, &hub, members);
			if (lost == UINT32_MAX) {
				run_round(c, i, r, hub, members, k, g, false);
				continue;
			}
			xsnprintf(why, sizeof(why),
				  "its round failed: %s; not tried again: rank %u is gone",
				  cg->err, lost);
			if (c->text)
				printf("round %u: %s: %s\n", r + 1,
				       cluster_item_name(&c->p->tests[i]), why);
			commit(c, i, r, cg, NULL, why);
		}
	free(g);
}

void group_print_hubs(const struct coord *c, size_t item)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct test_desc *lt = test_bw_of(t);
	const struct ctest *ct = &c->t[item];
	bool lat = t->measure == MEAS_LATENCY;
	const char *unit;
	char b[64], b2[64];

	coord_display(lat ? lt : t, 1, &unit);
	if (lat && c->p->cluster.pattern.k < 2)
		printf("%s: by %s: the latency in us\n",
		       cluster_item_name(&c->p->tests[item]),
		       group_hub_role(c));
	else if (lat)
		printf("%s: by %s: the victim's latency in us beside the others' %s: their aggregate in %s and fairness\n",
		       cluster_item_name(&c->p->tests[item]), group_hub_role(c),
		       lt->name, unit);
	else
		printf("%s: by %s: the aggregate in %s, Jain's fairness index and the slowest flow against the fair share\n",
		       cluster_item_name(&c->p->tests[item]), group_hub_role(c),
		       unit);
	printf("  %8s %10s %10s  %s\n", group_hub_role(c),
	       lat ? "latency" : "aggregate", lat ? "load" : "fairness",
	       lat ? "fairness" : "slowest");
	for (uint32_t r = 0; r < c->n; r++) {
		const struct cgroup *g = &ct->grp[r];

		printf("  %8u", g->hub);
		if (!g->ok) {
			printf(" %10s %10s  %s\n", "-", "-",
			       g->ran ? "failed" : "not run");
			continue;
		}
		/* figures alone, as the matrix shows them */
		if (lat) {
			show(t, g->victim, b2, sizeof(b2));
			*strchr(b2, ' ') = '\0';
		}
		if (lat && g->k < 2) {
			printf(" %10s\n", b2);
			continue;
		}
		show(lat ? lt : t, g->aggregate, b, sizeof(b));
		*strchr(b, ' ') = '\0';
		if (lat) {
			printf(" %10s %10s  %.3f\n", b2, b, g->fairness);
		} else if (g->k > 1) {
			printf(" %10s %10.3f  rank %u at %.3f\n", b, g->fairness,
			       g->f[g->slowest].rank, g->ratio);
		} else {
			printf(" %10s %10s  -\n", b, "-");
		}
	}
}

void group_find_line(const struct coord *c, size_t item, struct cfind *f)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct outlier *o = &f->o;
	bool lat = t->measure == MEAS_LATENCY, fair = f->what == CFW_FAIR;
	char f1[64], f2[64], f3[64], what[64];
	double drop = lat && !fair ? o->median / o->figure - 1 :
				     1 - o->figure / o->median;

	if (fair) {
		xsnprintf(f1, sizeof(f1), "%.3f", o->figure);
		xsnprintf(f2, sizeof(f2), "%.3f", o->median);
		xsnprintf(f3, sizeof(f3), "%.3f", f->retest);
	} else {
		coord_show(t, o->figure, f1, sizeof(f1));
		coord_show(t, o->median, f2, sizeof(f2));
		coord_show(t, f->retest, f3, sizeof(f3));
	}
	xsnprintf(what, sizeof(what), "%s", fair ? "fairness" :
					  lat ? "latency" : "aggregate");
	xsnprintf(f->line, sizeof(f->line),
		  "outlier: %s %s (rank %u): %s %s %s against a median of %s (%s%.0f%%); retest alone: %s",
		  group_hub_role(c), c->r[o->a].host, o->a,
		  cluster_item_name(&c->p->tests[item]), what, f1, f2,
		  lat && !fair ? "+" : "-", 100 * drop, f3);
}

/* The judged figure of g: its fairness, or its figure as goodness. */
static double judged(const struct cgroup *g, enum cfind_what what)
{
	if (what == CFW_FAIR) /* a latency round judges its victim only */
		return g->ok && !g->load && g->k > 1 ? g->fairness : 0;
	return round_goodness(g);
}

double group_retest(struct coord *c, size_t item, uint32_t hub,
		    enum cfind_what what)
{
	const struct cgroup *s = &c->t[item].grp[hub];
	struct gres *g = xcalloc(1, sizeof(*g));
	struct cgroup *cg = xcalloc(1, sizeof(*cg));
	uint32_t members[SCHED_GROUP_MAX];
	double best = -1;

	for (uint32_t i = 0; i < s->k; i++)
		members[i] = s->f[i].rank;
	for (int run = 0; run < 2; run++) {
		coord_group(c, (uint32_t)item, hub, members, s->k, g);
		summarize(c, item, hub, g, cg);
		coord_json_group(c, item, 0, cg);
		if (!cg->ok) {
			best = -1;
			break;
		}
		if (judged(cg, what) > best)
			best = judged(cg, what);
	}
	free(cg->err);
	free(cg);
	free(g);
	return best;
}

int group_suspects(struct coord *c, size_t item,
		   const struct outlier_opts *oo, struct outlier *o,
		   enum cfind_what *what, size_t max)
{
	struct ctest *ct = &c->t[item];
	double *v = xcalloc(c->n, sizeof(*v));
	size_t kept = 0;
	int all = 0;

	for (enum cfind_what w = CFW_FIG; w <= CFW_FAIR; w++) {
		int n;

		for (uint32_t r = 0; r < c->n; r++)
			v[r] = judged(&ct->grp[r], w);
		n = outlier_low(v, c->n, oo, o + kept, max - kept,
				w == CFW_FAIR ? &ct->fair_med : &ct->grp_med,
				NULL);
		if (n < 0) {
			all = -1;
			break;
		}
		for (int i = 0; i < n && kept < max; i++)
			what[kept++] = w;
		all += n;
	}
	free(v);
	return all;
}

void group_free(struct ctest *ct, uint32_t rounds)
{
	for (uint32_t r = 0; ct->grp && r < rounds; r++)
		free(ct->grp[r].err);
	free(ct->grp);
	ct->grp = NULL;
}
