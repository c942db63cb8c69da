// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode on rank 0: walk the schedule, keep each pair's figure,
 * find the outliers, retest each alone before naming it, print the
 * report.  Figures are kept as "goodness" (coord_goodness) in one float
 * matrix per test: N x N x 4 bytes (400 MB at N = 10,000).
 *
 * Retests: a suspect node is retested, alone, against the node that
 * tested best (both directions of a one-way test); a suspect link is
 * retested alone.  The suspect is reported only if the retest still
 * shows the drop (at least the minimum drop against the median it was
 * compared with), so a pair slowed by contention in its round is not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "cluster_report.h"
#include "cluster_json.h"
#include "cluster_plan.h"
#include "coord_fig.h"
#include "coord_round.h"
#include "coord_verdict.h"
#include "group_run.h"
#include "heatmap.h"
#include "core/interval.h"
#include "outlier.h"
#include "lib/err.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/sched.h"
#include "lib/text.h"
#include "lib/verdict.h"

#define MATRIX_MAX 64 /* ranks beyond which the text matrix is left out */

/* A pair's figure g (> 0) of item, and what comes with it, in its cells. */
static void store(struct coord *c, uint32_t item, uint32_t client,
		  uint32_t server, const struct cmsg_result *res, double g)
{
	struct ctest *ct = &c->t[item];

	size_t k = (size_t)client * c->n + server;

	if (ct->low && res->r.ival_n)
		ct->low[k] = (float)res->r.ival_low;
	if (ct->p50 && res->r.lat.count) {
		ct->p50[k] = (float)res->r.lat.p50;
		ct->p99[k] = (float)res->r.lat.p99;
	}
	ct->fig[k] = (float)g;
	cv_record(c, item, client, server, &res->r);
}

static void record_matrix(struct coord *c, uint32_t item, uint32_t client,
			  uint32_t server, const struct cmsg_result *res)
{
	const struct test_desc *t = c->p->tests[item].test;
	struct ctest *ct = &c->t[item];
	double g = res->status ? 0 : coord_goodness(t, &res->r);
	struct cfail *f;

	coord_json_event(c, "pair", item, client, server, res, g);
	if (g > 0) {
		store(c, item, client, server, res, g);
		return;
	}
	ct->nfail++;
	if (ct->nkept == COORD_FAILS_KEPT)
		return;
	if (!ct->fail)
		ct->fail = xcalloc(COORD_FAILS_KEPT, sizeof(*ct->fail));
	f = &ct->fail[ct->nkept++];
	f->client = client;
	f->server = server;
	f->refused = res->status == COORD_REFUSED;
	text_copy(f->err, sizeof(f->err),
		  res->status ? res->err : "measured nothing");
}

static void record_retest(struct coord *c, uint32_t item, uint32_t client,
			  uint32_t server, const struct cmsg_result *res)
{
	const struct test_desc *t = c->p->tests[item].test;
	double g = res->status ? 0 : coord_goodness(t, &res->r);

	coord_json_event(c, "retest", item, client, server, res, g);
	if (g <= 0)
		return;
	if (!c->rt_count++ || g < c->rt_worst)
		c->rt_worst = g;
}

/*
 * One of many short rounds (retries, retests) of a few pairs: the ranks
 * that wait through them hear from rank 0 at least every
 * CLUSTER_PING_NS, even when each round is over before its own ping.
 */
static void short_round(struct coord *c, struct sched_pair *pairs,
			uint32_t np)
{
	if (now_ns() >= c->next_ping)
		coord_ping_all(c);
	coord_round(c, pairs, np);
}

/*
 * A pair test that failed in its round, tried again (retry_failed): a
 * figure takes the failure's place; another failure replaces its error.
 */
static void record_retry(struct coord *c, uint32_t item, uint32_t client,
			 uint32_t server, const struct cmsg_result *res)
{
	const struct test_desc *t = c->p->tests[item].test;
	struct ctest *ct = &c->t[item];
	double g = res->status ? 0 : coord_goodness(t, &res->r);
	uint32_t k;

	for (k = 0; k < ct->nkept; k++)
		if (ct->fail[k].client == client && ct->fail[k].server == server)
			break;
	if (k == ct->nkept)
		return; /* the other way of a one-way test, measured before */
	coord_json_event(c, "retry", item, client, server, res, g);
	if (!(g > 0)) {
		text_copy(ct->fail[k].err, sizeof(ct->fail[k].err),
			  res->status ? res->err : "measured nothing");
		return;
	}
	store(c, item, client, server, res, g);
	ct->fail[k] = ct->fail[--ct->nkept];
	ct->nfail--;
	ct->nretried_ok++;
}

/*
 * Try each failed pair test of item again, at most `at_once` pairs at a
 * time (no rank twice in a retry round).  A pair test may fail for
 * reasons that pass: on one small machine 128 pairs at once leave some
 * 0.1 s latency tests without a single round trip.  What still fails is
 * reported as before; only the kept failures are tried
 * (COORD_FAILS_KEPT).  The first pass counts the pairs retried.
 */
#define RETRY_AT_ONCE 8

static void retry_failed(struct coord *c, uint32_t item, uint32_t at_once,
			 bool first)
{
	struct ctest *ct = &c->t[item];
	bool one_way = coord_one_way(c->p->tests[item].test);
	uint32_t n = ct->nkept, left = 0;
	struct sched_pair *todo = xcalloc(n ? n : 1, sizeof(*todo));
	struct sched_pair round[RETRY_AT_ONCE];
	bool *busy = xcalloc(c->n ? c->n : 1, sizeof(*busy));

	for (uint32_t k = 0; k < n; k++) {
		const struct cfail *f = &ct->fail[k];
		bool dup = false;

		/* a one-way test's slot runs both ways: (b, a) is in (a, b) */
		for (uint32_t i = 0; one_way && i < left; i++)
			dup |= todo[i].a == f->server && todo[i].b == f->client;
		/* a rank whose RESULT was refused gets no second say */
		if (f->refused || !c->r[f->client].alive ||
		    !c->r[f->server].alive)
			continue;
		ct->nretried += first;
		if (!dup)
			todo[left++] = (struct sched_pair){ f->client, f->server };
	}
	c->record = record_retry;
	c->item_lo = item;
	c->item_hi = item + 1;
	while (left) {
		uint32_t np = 0, kept = 0;

		memset(busy, 0, c->n * sizeof(*busy));
		for (uint32_t i = 0; i < left; i++) {
			struct sched_pair pr = todo[i];

			if (np < at_once && !busy[pr.a] && !busy[pr.b]) {
				busy[pr.a] = busy[pr.b] = true;
				round[np++] = pr;
			} else {
				todo[kept++] = pr;
			}
		}
		left = kept;
		short_round(c, round, np);
	}
	free(todo);
	free(busy);
}

static const char *unit_of(const struct test_desc *t)
{
	return t->measure == MEAS_LATENCY  ? "latency in us"
	       : t->measure == MEAS_MSG_RATE ? "message rate in msg/s"
					     : "received bandwidth in MB/s";
}

/* The text report's matrices of a test. */
enum tmatrix {
	TM_FIG, /* its figures */
	TM_LOW, /* -I: the lowest intervals */
	TM_P99, /* -v, latency tests: the 99th percentiles */
	TM_EFF, /* bandwidth tests with a ceiling: the efficiencies */
};

/* Cell (i, j) of matrix `which` of item as a goodness; NAN: none. */
static double tm_cell(const struct coord *c, size_t item,
		      enum tmatrix which, uint32_t i, uint32_t j)
{
	const float *m = c->t[item].p99;
	double v;

	if (which == TM_FIG)
		return coord_fig(c, item, i, j);
	if (which == TM_LOW)
		return coord_low(c, item, i, j);
	if (which == TM_EFF)
		return c->t[item].eff[(size_t)i * c->n + j];
	if (i == j)
		return NAN;
	v = m[(size_t)i * c->n + j];
	if (isnan(v)) /* measured once per pair */
		v = m[(size_t)j * c->n + i];
	return v > 0 ? 1 / v : NAN;
}

/* A text matrix of item: its figures, its -I or its p99 matrix. */
static void print_matrix(struct coord *c, size_t item, enum tmatrix which)
{
	const struct test_desc *t = c->p->tests[item].test;
	char b[64], what[96];

	if (which == TM_LOW)
		xsnprintf(what, sizeof(what),
			  "lowest %g s interval of the received bandwidth in MB/s",
			  (double)c->p->tests[item].s.interval / 1e9);
	else if (which == TM_EFF)
		xsnprintf(what, sizeof(what),
			  "efficiency: received bandwidth in %% of the path's ceiling");
	else
		xsnprintf(what, sizeof(what), "%s%s",
			  which == TM_P99 ? "99th percentile " : "",
			  unit_of(t));
	printf("%s: %s; row = client (sender), column = server%s\n",
	       cluster_item_name(&c->p->tests[item]), what,
	       coord_one_way(t) ? "" : " (measured once per pair)");
	if (c->n > MATRIX_MAX) {
		printf("  (matrix of %u ranks left out of the text report)\n",
		       c->n);
		return;
	}
	printf("%6s", "");
	for (uint32_t j = 0; j < c->n; j++)
		printf(" %9u", j);
	printf("\n");
	for (uint32_t i = 0; i < c->n; i++) {
		printf("%6u", i);
		for (uint32_t j = 0; j < c->n; j++) {
			double g = tm_cell(c, item, which, i, j);

			if (isnan(g)) {
				printf(" %9s", "-");
				continue;
			}
			if (which == TM_EFF) {
				xsnprintf(b, sizeof(b), "%.3g%%", 100 * g);
			} else {
				coord_show(t, g, b, sizeof(b));
				*strchr(b, ' ') = '\0';
			}
			printf(" %9s", b);
		}
		printf("\n");
	}
}

/* The measured figures of one test as pairs for outlier_find(). */
static size_t gather(const struct coord *c, size_t item,
		     struct pair_fig *out)
{
	const float *f = c->t[item].fig;
	size_t k = 0;

	for (uint32_t i = 0; i < c->n; i++)
		for (uint32_t j = 0; j < c->n; j++)
			if (!isnan(f[(size_t)i * c->n + j])) {
				out[k].a = i;
				out[k].b = j;
				out[k].v = f[(size_t)i * c->n + j];
				k++;
			}
	return k;
}

/*
 * Run plan item `item` for the one pair (a, b) alone, twice; the better
 * of the two runs' worst figures (so that one disturbed run does not
 * confirm a suspect), or -1 if a run measured nothing.
 */
static double retest(struct coord *c, size_t item, uint32_t a, uint32_t b)
{
	struct sched_pair pr = { a, b };
	double best = -1;

	c->record = record_retest;
	c->item_lo = (uint32_t)item;
	c->item_hi = (uint32_t)item + 1;
	for (int run = 0; run < 2; run++) {
		c->rt_count = 0;
		c->rt_worst = 0;
		short_round(c, &pr, 1);
		if (!c->rt_count)
			return -1;
		if (c->rt_worst > best)
			best = c->rt_worst;
	}
	return best;
}

/* The alive, unsuspected node with the best median: a good partner. */
static int good_partner(const struct coord *c, const double *med,
			const struct outlier *o, int no, uint32_t not)
{
	int best = -1;

	for (uint32_t k = 0; k < c->n; k++) {
		bool sus = false;

		for (int i = 0; i < no; i++)
			sus |= o[i].kind == OUTLIER_NODE && o[i].a == k;
		if (k == not || sus || !c->r[k].alive || med[k] <= 0)
			continue;
		if (best < 0 || med[k] > med[best])
			best = (int)k;
	}
	return best;
}

/* The report's line for a retested suspect f of item (test t). */
static void find_line(const struct coord *c, size_t item,
		      const struct test_desc *t, struct cfind *f)
{
	const char *name = cluster_item_name(&c->p->tests[item]);
	const struct outlier *o = &f->o;
	char f1[64], f2[64], f3[64];
	const char *sign = t->measure == MEAS_LATENCY ? "+" : "-";
	double drop = t->measure == MEAS_LATENCY ? o->median / o->figure - 1
						 : 1 - o->figure / o->median;

	coord_show(t, o->figure, f1, sizeof(f1));
	coord_show(t, o->median, f2, sizeof(f2));
	coord_show(t, f->retest, f3, sizeof(f3));
	if (o->kind == OUTLIER_NODE)
		xsnprintf(f->line, sizeof(f->line),
			  "outlier: node %s (rank %u): %s %s against a median of %s (%s%.0f%%); retest against rank %d: %s",
			  c->r[o->a].host, o->a, name, f1, f2, sign,
			  100 * drop, f->partner, f3);
	else
		xsnprintf(f->line, sizeof(f->line),
			  "outlier: link %s (rank %u) - %s (rank %u): %s %s against %s of its nodes (%s%.0f%%); retest alone: %s",
			  c->r[o->a].host, o->a, c->r[o->b].host, o->b,
			  name, f1, f2, sign, 100 * drop, f3);
}

/* Find and retest one test's outliers; returns how many stand. */
static int outliers(struct coord *c, size_t item)
{
	const struct test_desc *t = c->p->tests[item].test;
	struct ctest *ct = &c->t[item];
	size_t cap = (size_t)c->n * c->n;
	struct pair_fig *pf = xcalloc(cap ? cap : 1, sizeof(*pf));
	struct outlier o[COORD_RETEST_MAX];
	enum cfind_what what[COORD_RETEST_MAX] = { CFW_FIG };
	struct outlier_opts oo;
	size_t np = gather(c, item, pf), nm = 0;
	double *m = xcalloc(c->n ? c->n : 1, sizeof(*m));
	int found = 0;

	ct->med = xcalloc(c->n ? c->n : 1, sizeof(*ct->med));
	outlier_defaults(&oo);
	ct->nsuspects = outlier_find(pf, np, c->n, &oo, o, COORD_RETEST_MAX,
				     ct->med);
	for (uint32_t k = 0; k < c->n; k++)
		if (ct->med[k] > 0)
			m[nm++] = ct->med[k];
	ct->fabric_med = median_of(m, nm);
	/* Group patterns: their rounds are judged, by hub. */
	if (ct->grp)
		ct->nsuspects = group_suspects(c, item, &oo, o, what,
					       COORD_RETEST_MAX);
	ct->nfinds = ct->nsuspects < 0		       ? 0
		     : ct->nsuspects > COORD_RETEST_MAX ? COORD_RETEST_MAX
							: ct->nsuspects;
	if (c->text && ct->nsuspects > COORD_RETEST_MAX)
		printf("%s: %d suspects; the %d first are retested\n",
		       cluster_item_name(&c->p->tests[item]), ct->nsuspects,
		       COORD_RETEST_MAX);
	for (int i = 0; i < ct->nfinds; i++) {
		struct cfind *f = &ct->find[i];

		f->o = o[i];
		f->what = what[i];
		f->partner = -1;
		if (o[i].kind == OUTLIER_NODE) {
			f->partner = good_partner(c, ct->med, o, ct->nfinds,
						  o[i].a);
			f->retest = f->partner < 0 ? -1 :
				    retest(c, item, o[i].a,
					   (uint32_t)f->partner);
		} else if (o[i].kind == OUTLIER_LINK) {
			f->retest = retest(c, item, o[i].a, o[i].b);
		} else {
			f->retest = group_retest(c, item, o[i].a, what[i]);
		}
		/* gone, or fine when alone: not an outlier */
		f->confirmed = f->retest >= 0 &&
			       f->retest <= (1 - oo.min_drop) * o[i].median;
		if (!f->confirmed)
			continue;
		found++;
		if (o[i].kind == OUTLIER_HUB)
			group_find_line(c, item, f);
		else
			find_line(c, item, t, f);
		if (c->text)
			printf("%s\n", f->line);
	}
	free(pf);
	free(m);
	return found;
}

/* A matrix of cells floats, each NAN (no figure yet). */
/* Does m (cells floats) hold a figure? */
static bool has_figure(const float *m, size_t cells)
{
	for (size_t k = 0; k < cells; k++)
		if (!isnan(m[k]))
			return true;
	return false;
}

static float *nan_matrix(size_t cells)
{
	float *m = xcalloc(cells ? cells : 1, sizeof(*m));

	for (size_t k = 0; k < cells; k++)
		m[k] = NAN;
	return m;
}

/*
 * Walk a pair pattern's schedule s: each round's pairs at once, then the
 * pair tests that failed again, a few at a time.
 */
static void walk_pairs(struct coord *c, const struct sched *s)
{
	const struct plan *p = c->p;
	struct sched_pair *pairs;
	uint32_t *idle;

	pairs = xcalloc(c->n / 2 + 1, sizeof(*pairs));
	idle = xcalloc(c->n, sizeof(*idle));
	if (c->text && p->cluster.pattern.kind == SCHED_ALL && c->n % 2)
		printf("cluster: %u ranks is odd: each rank sits out one round\n",
		       c->n);
	for (uint32_t r = 0; r < s->rounds; r++) {
		uint32_t ni, np = sched_round(s, r, pairs, idle, &ni);

		c->round = r + 1;
		c->idle[r] = ni == 1 ? idle[0] : UINT32_MAX;

		if (c->text && (p->cluster.pattern.kind == SCHED_BISECT ||
				p->cluster.pattern.kind == SCHED_RANDOM) &&
		    ni == 1) {
			printf("round %u: rank %u (%s) sits out\n", r + 1,
			       idle[0], c->r[idle[0]].host);
			fflush(stdout);
		}

		c->item_lo = 0;
		c->item_hi = (uint32_t)p->ntests;
		c->record = record_matrix;
		coord_round(c, pairs, np);
	}
	c->round = 0;
	free(pairs);
	free(idle);
	for (size_t i = 0; i < p->ntests; i++) {
		const struct ctest *ct = &c->t[i];

		if (!ct->nkept)
			continue;
		/* a few at a time, then what still fails alone */
		retry_failed(c, (uint32_t)i, RETRY_AT_ONCE, true);
		if (ct->nkept)
			retry_failed(c, (uint32_t)i, 1, false);
		if (c->text && ct->nretried)
			printf("%s: %u pair test%s failed in %s round%s and %s tried again, at most %d at a time: %u measured\n",
			       cluster_item_name(&p->tests[i]), ct->nretried,
			       ct->nretried == 1 ? "" : "s",
			       ct->nretried == 1 ? "its" : "their",
			       ct->nretried == 1 ? "" : "s",
			       ct->nretried == 1 ? "was" : "were",
			       RETRY_AT_ONCE, ct->nretried_ok);
	}
}

int coord_run(struct coord *c)
{
	const struct plan *p = c->p;
	struct sched s;
	char err[256], name[32], line[CMSG_HOST_MAX + 400];
	int found = 0, rc = 0;

	/* The host names came in the ranks' JOINs: printable from here on,
	 * in every report, line, document and map (lib/text.h). */
	for (uint32_t k = 0; k < c->n; k++) {
		text_clean(c->r[k].host);
		for (uint32_t i = 0; i < c->r[k].nfind; i++) {
			text_clean(c->r[k].find[i].check);
			text_clean(c->r[k].find[i].text);
		}
	}
	if (sched_init(&s, &p->cluster.pattern, c->n, c->seed, err,
		       sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		return 2;
	}
	c->rounds = s.rounds;
	sched_name(&p->cluster.pattern, name, sizeof(name));
	if (c->text) {
		printf("cluster: %u ranks, pattern %s, seed %llu, %u round%s\n",
		       c->n, name, (unsigned long long)c->seed, s.rounds,
		       s.rounds == 1 ? "" : "s");
		for (uint32_t k = 0; k < c->n; k++)
			if (c->r[k].joined)
				printf("  rank %u: %s (%s port %u)\n", k,
				       c->r[k].host, c->r[k].addr,
				       c->r[k].port);
		/* Each rank's host checks, named by rank with or without
		 * --expect (docs/cluster.md). */
		for (uint32_t k = 0; k < c->n; k++)
			for (uint32_t i = 0; i < c->r[k].nfind; i++)
				if (c->r[k].find[i].check[0])
					printf("rank %u (%s): warning: %s\n", k,
					       c->r[k].host,
					       c->r[k].find[i].text);
		fflush(stdout);
	}
	c->t = xcalloc(p->ntests, sizeof(*c->t));
	for (size_t i = 0; i < p->ntests; i++) {
		size_t cells = (size_t)c->n * c->n;

		c->t[i].fig = nan_matrix(cells);
		if (p->tests[i].test->measure == MEAS_BANDWIDTH ||
		    p->tests[i].test->measure == MEAS_BANDWIDTH_SR)
			c->t[i].eff = nan_matrix(cells);
		if (p->tests[i].test->measure == MEAS_LATENCY) {
			c->t[i].p50 = nan_matrix(cells);
			c->t[i].p99 = nan_matrix(cells);
		}
		if (!p->tests[i].s.interval ||
		    !ival_applies(p->tests[i].test, false))
			continue;
		c->t[i].low = nan_matrix(cells);
	}
	c->idle = xcalloc(s.rounds ? s.rounds : 1, sizeof(*c->idle));
	for (uint32_t r = 0; r < s.rounds; r++)
		c->idle[r] = UINT32_MAX; /* none sits out */
	c->record = record_matrix;
	if (sched_is_group(&s.spec))
		group_walk(c, &s);
	else
		walk_pairs(c, &s);
	sched_free(&s);
	for (size_t i = 0; i < p->ntests; i++) {
		const struct ctest *ct = &c->t[i];

		if (ct->nfail)
			rc = 1;
		if (!c->text)
			continue;
		print_matrix(c, i, TM_FIG);
		if (ct->low)
			print_matrix(c, i, TM_LOW);
		if (ct->p99 && p->tests[i].s.out.v_stat)
			print_matrix(c, i, TM_P99);
		if (ct->eff && has_figure(ct->eff, (size_t)c->n * c->n))
			print_matrix(c, i, TM_EFF);
		if (ct->grp)
			group_print_hubs(c, i);
		cv_print(c, i);
		if (ct->nfail)
			printf("%s: %u pair test%s failed; the first: rank %u against rank %u: %s\n",
			       cluster_item_name(&p->tests[i]), ct->nfail,
			       ct->nfail == 1 ? "" : "s", ct->fail[0].client,
			       ct->fail[0].server, ct->fail[0].err);
	}
	for (size_t i = 0; i < p->ntests; i++)
		found += outliers(c, i);
	for (uint32_t k = 0; k < c->n; k++)
		if (!c->r[k].alive) {
			rc = 1;
			if (c->text) {
				coord_gone_line(c, k, line, sizeof(line));
				printf("%s\n", line);
			}
		}
	if (c->text)
		printf("cluster: %d outlier%s\n", found, found == 1 ? "" : "s");
	rc = rc ? rc : found ? 1 : 0;
	if (cv_failed(c)) { /* 3 unless something else failed */
		rc = rc ? rc : VERDICT_FAILED_STATUS;
		fprintf(stderr, "qperf: %u pair result%s failed their checks\n",
			cv_failed(c), cv_failed(c) == 1 ? "" : "s");
	}
	if (c->plot) {
		FILE *f = c->plot;

		c->plot = NULL;
		if (coord_plot(c, f, err, sizeof(err)) < 0) {
			fprintf(stderr, "qperf: %s\n", err);
			rc = 1;
		}
	}
	return rc;
}

/* A missing cell's reason for the heat map's tooltip. */
struct why_arg {
	const struct coord *c;
	size_t item;
};

static void heat_why(const void *arg, uint32_t row, uint32_t col,
		     char *buf, size_t len)
{
	const struct why_arg *w = arg;

	coord_why_missing(w->c, w->item, row, col, buf, len);
}

int coord_plot(const struct coord *c, FILE *f, char *err, size_t errlen)
{
	size_t nt = c->p->ntests, cells = (size_t)c->n * c->n, nm = nt;
	bool small = c->n <= HEAT_MAX;
	struct heat_map *m = xcalloc(2 * nt + 1, sizeof(*m));
	struct why_arg *wa = xcalloc(nt ? nt : 1, sizeof(*wa));
	char (*title)[160] = xcalloc(2 * nt + 1, sizeof(*title));
	char **label = xcalloc(c->n ? c->n : 1, sizeof(*label));
	bool *gone = xcalloc(c->n ? c->n : 1, sizeof(*gone));
	int rc;

	for (uint32_t k = 0; k < c->n; k++) {
		size_t len = strlen(c->r[k].host) + 16;

		gone[k] = !c->r[k].alive;

		label[k] = xcalloc(len, 1);
		xsnprintf(label[k], len, "%s:%u",
			  c->r[k].host[0] ? c->r[k].host : "?", k);
	}
	for (size_t i = 0; small && i < nt; i++) {
		const struct test_desc *t = c->p->tests[i].test;
		const struct ctest *ct = &c->t[i];
		double *v = xcalloc(cells ? cells : 1, sizeof(*v));
		bool *bn = xcalloc(c->n ? c->n : 1, sizeof(*bn));
		bool *bc = xcalloc(cells ? cells : 1, sizeof(*bc));

		for (uint32_t a = 0; a < c->n; a++)
			for (uint32_t b = 0; b < c->n; b++) {
				double g = coord_fig(c, i, a, b);
				const char *u;

				v[(size_t)a * c->n + b] =
					a != b && g > 0 ? coord_display(t, g, &u)
							: NAN;
			}
		for (int k = 0; k < ct->nfinds; k++) {
			const struct outlier *o = &ct->find[k].o;

			if (!ct->find[k].confirmed)
				continue;
			if (o->kind != OUTLIER_LINK) { /* a node, a hub */
				bn[o->a] = true;
				continue;
			}
			bc[(size_t)o->a * c->n + o->b] = true;
			bc[(size_t)o->b * c->n + o->a] = true;
		}
		m[i].low_good = t->measure == MEAS_LATENCY;
		m[i].v = v;
		m[i].bad_node = bn;
		m[i].bad_cell = bc;
		wa[i].c = c;
		wa[i].item = i;
		m[i].why = heat_why;
		m[i].arg = &wa[i];
	}
	for (size_t i = 0; i < nt; i++) {
		const struct test_desc *t = c->p->tests[i].test;

		xsnprintf(title[i], sizeof(title[i]), "%s: %s%s",
			  cluster_item_name(&c->p->tests[i]),
			  unit_of(t),
			  coord_one_way(t) ? "" :
					     " (measured once per pair)");
		m[i].title = title[i];
		m[i].n = c->n;
		m[i].label = (const char *const *)label;
		m[i].gone = gone;
		coord_display(t, 1, &m[i].unit);
	}
	/* A panel of the efficiencies of each bandwidth test with a ceiling */
	for (size_t i = 0; small && i < nt; i++) {
		const float *e = c->t[i].eff;
		double *v;

		if (!e || !has_figure(e, cells))
			continue;
		v = xcalloc(cells, sizeof(*v));
		for (size_t k = 0; k < cells; k++)
			v[k] = isnan(e[k]) ? NAN : 100.0 * e[k];
		xsnprintf(title[nm], sizeof(title[nm]),
			  "%s: efficiency in %% of the path's ceiling",
			  cluster_item_name(&c->p->tests[i]));
		m[nm] = (struct heat_map){ .title = title[nm], .unit = "%",
					   .n = c->n, .v = v,
					   .label = (const char *const *)label,
					   .gone = gone };
		nm++;
	}
	rc = heat_write(f, c->p->plot_file, m, nm, err, errlen);
	for (size_t i = 0; i < nm; i++) {
		free((void *)m[i].v);
		free((void *)m[i].bad_node);
		free((void *)m[i].bad_cell);
	}
	for (uint32_t k = 0; k < c->n; k++)
		free(label[k]);
	free(label);
	free(gone);
	free(title);
	free(wa);
	free(m);
	return rc;
}

void coord_free(struct coord *c)
{
	for (size_t i = 0; c->t && i < c->p->ntests; i++) {
		group_free(&c->t[i], c->rounds);
		free(c->t[i].fig);
		free(c->t[i].eff);
		free(c->t[i].vfail);
		free(c->t[i].low);
		free(c->t[i].p50);
		free(c->t[i].p99);
		free(c->t[i].med);
		free(c->t[i].fail);
	}
	free(c->t);
	c->t = NULL;
	free(c->idle);
	c->idle = NULL;
	if (c->plot)
		fclose(c->plot);
	c->plot = NULL;
}
