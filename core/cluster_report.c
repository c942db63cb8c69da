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

#include "../transports/transport.h"
#include "cluster.h"
#include "cluster_coord.h"
#include "outlier.h"
#include "report.h"
#include "util.h"

#define MATRIX_MAX 64 /* ranks beyond which the text matrix is left out */
#define RETEST_MAX 16 /* suspects retested per test */

static void record_matrix(struct coord *c, uint32_t item, uint32_t client,
			  uint32_t server, const struct cmsg_result *res)
{
	const struct test_desc *t = c->p->tests[item].test;
	double g = res->status ? 0 : coord_goodness(t, &res->r);

	if (g > 0) {
		c->fig[item][(size_t)client * c->n + server] = (float)g;
		return;
	}
	if (!c->nfail[item]++)
		xsnprintf(c->first_err[item], CMSG_ERR_MAX,
			  "rank %u against rank %u: %s", client, server,
			  res->status ? res->err : "measured nothing");
}

static void record_retest(struct coord *c, uint32_t item, uint32_t client,
			  uint32_t server, const struct cmsg_result *res)
{
	const struct test_desc *t = c->p->tests[item].test;
	double g = res->status ? 0 : coord_goodness(t, &res->r);

	(void)client;
	(void)server;
	if (g <= 0)
		return;
	if (!c->rt_count++ || g < c->rt_worst)
		c->rt_worst = g;
}

/* The figure users read, in its unit, from a goodness value. */
static const char *show(const struct test_desc *t, double g, char *buf,
			size_t len)
{
	char num[64];
	const char *unit;
	double v;

	switch (t->measure) {
	case MEAS_LATENCY:
		v = g > 0 ? 1e6 / g : 0;
		unit = "us";
		break;
	case MEAS_MSG_RATE:
		v = g;
		unit = "msg/s";
		break;
	default:
		v = g / 1e6;
		unit = "MB/s";
		break;
	}
	fmt_number(num, sizeof(num), v, 3, true);
	xsnprintf(buf, len, "%s %s", num, unit);
	return buf;
}

static const char *unit_of(const struct test_desc *t)
{
	return t->measure == MEAS_LATENCY  ? "latency in us"
	       : t->measure == MEAS_MSG_RATE ? "message rate in msg/s"
					     : "received bandwidth in MB/s";
}

static void print_matrix(struct coord *c, size_t item)
{
	const struct test_desc *t = c->p->tests[item].test;
	const float *f = c->fig[item];
	char b[64];

	printf("%s: %s; row = client (sender), column = server%s\n",
	       t->name, unit_of(t),
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
			float g = f[(size_t)i * c->n + j];

			/* Measured once per pair: show it both ways. */
			if (isnan(g) && !coord_one_way(t))
				g = f[(size_t)j * c->n + i];

			if (isnan(g)) {
				printf(" %9s", "-");
				continue;
			}
			show(t, g, b, sizeof(b));
			*strchr(b, ' ') = '\0';
			printf(" %9s", b);
		}
		printf("\n");
	}
}

/* The measured figures of one test as pairs for outlier_find(). */
static size_t gather(const struct coord *c, size_t item,
		     struct pair_fig *out)
{
	const float *f = c->fig[item];
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
		coord_round(c, &pr, 1);
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

/* Find, retest and print one test's outliers; returns how many stand. */
static int outliers(struct coord *c, size_t item)
{
	const struct test_desc *t = c->p->tests[item].test;
	size_t cap = (size_t)c->n * c->n;
	struct pair_fig *pf = xcalloc(cap ? cap : 1, sizeof(*pf));
	double *med = xcalloc(c->n, sizeof(*med));
	struct outlier o[RETEST_MAX];
	struct outlier_opts oo;
	size_t np = gather(c, item, pf);
	int no, found = 0;

	outlier_defaults(&oo);
	no = outlier_find(pf, np, c->n, &oo, o, RETEST_MAX, med);
	if (no > RETEST_MAX) {
		printf("%s: %d suspects; the %d first are retested\n", t->name,
		       no, RETEST_MAX);
		no = RETEST_MAX;
	}
	for (int i = 0; i < no; i++) {
		char f1[64], f2[64], f3[64];
		double drop = 1 - o[i].figure / o[i].median, g;
		int partner = -1;

		if (o[i].kind == OUTLIER_NODE) {
			partner = good_partner(c, med, o, no, o[i].a);
			if (partner < 0)
				continue;
			g = retest(c, item, o[i].a, (uint32_t)partner);
		} else {
			g = retest(c, item, o[i].a, o[i].b);
		}
		if (g < 0 || g > (1 - oo.min_drop) * o[i].median)
			continue; /* gone, or fine when alone */
		found++;
		show(t, o[i].figure, f1, sizeof(f1));
		show(t, o[i].median, f2, sizeof(f2));
		show(t, g, f3, sizeof(f3));
		if (t->measure == MEAS_LATENCY)
			drop = o[i].median / o[i].figure - 1;
		if (o[i].kind == OUTLIER_NODE)
			printf("outlier: node %s (rank %u): %s %s against a median of %s (%s%.0f%%); retest against rank %d: %s\n",
			       c->r[o[i].a].host, o[i].a, t->name, f1, f2,
			       t->measure == MEAS_LATENCY ? "+" : "-",
			       100 * drop, partner, f3);
		else
			printf("outlier: link %s (rank %u) - %s (rank %u): %s %s against %s of its nodes (%s%.0f%%); retest alone: %s\n",
			       c->r[o[i].a].host, o[i].a, c->r[o[i].b].host,
			       o[i].b, t->name, f1, f2,
			       t->measure == MEAS_LATENCY ? "+" : "-",
			       100 * drop, f3);
	}
	free(pf);
	free(med);
	return found;
}

int coord_run(struct coord *c)
{
	const struct plan *p = c->p;
	struct sched s;
	struct sched_pair *pairs;
	uint32_t *idle;
	char err[256], name[32];
	int found = 0, rc = 0;

	if (sched_init(&s, &p->cluster.pattern, c->n, c->seed, err,
		       sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		return 2;
	}
	sched_name(&p->cluster.pattern, name, sizeof(name));
	printf("cluster: %u ranks, pattern %s, seed %llu, %u round%s\n",
	       c->n, name, (unsigned long long)c->seed, s.rounds,
	       s.rounds == 1 ? "" : "s");
	for (uint32_t k = 0; k < c->n; k++)
		if (c->r[k].joined)
			printf("  rank %u: %s (%s port %u)\n", k, c->r[k].host,
			       c->r[k].addr, c->r[k].port);
	fflush(stdout);
	c->fig = xcalloc(p->ntests, sizeof(*c->fig));
	c->nfail = xcalloc(p->ntests, sizeof(*c->nfail));
	c->first_err = xcalloc(p->ntests, sizeof(*c->first_err));
	for (size_t i = 0; i < p->ntests; i++) {
		size_t cells = (size_t)c->n * c->n;

		c->fig[i] = xcalloc(cells, sizeof(float));
		for (size_t k = 0; k < cells; k++)
			c->fig[i][k] = NAN;
	}
	pairs = xcalloc(c->n / 2 + 1, sizeof(*pairs));
	idle = xcalloc(c->n, sizeof(*idle));
	if (p->cluster.pattern.kind == SCHED_ALL && c->n % 2)
		printf("cluster: %u ranks is odd: each rank sits out one round\n",
		       c->n);
	c->record = record_matrix;
	for (uint32_t r = 0; r < s.rounds; r++) {
		uint32_t ni, np = sched_round(&s, r, pairs, idle, &ni);

		if ((p->cluster.pattern.kind == SCHED_BISECT ||
		     p->cluster.pattern.kind == SCHED_RANDOM) && ni == 1) {
			printf("round %u: rank %u (%s) sits out\n", r + 1,
			       idle[0], c->r[idle[0]].host);
			fflush(stdout);
		}

		c->item_lo = 0;
		c->item_hi = (uint32_t)p->ntests;
		c->record = record_matrix;
		coord_round(c, pairs, np);
	}
	free(pairs);
	free(idle);
	sched_free(&s);
	for (size_t i = 0; i < p->ntests; i++) {
		print_matrix(c, i);
		if (c->nfail[i]) {
			printf("%s: %u pair test%s failed; the first: %s\n",
			       p->tests[i].test->name, c->nfail[i],
			       c->nfail[i] == 1 ? "" : "s", c->first_err[i]);
			rc = 1;
		}
	}
	for (size_t i = 0; i < p->ntests; i++)
		found += outliers(c, i);
	for (uint32_t k = 0; k < c->n; k++)
		if (!c->r[k].alive) {
			printf("gone: rank %u (%s): %s\n", k,
			       c->r[k].host[0] ? c->r[k].host : "?",
			       c->r[k].why);
			rc = 1;
		}
	printf("cluster: %d outlier%s\n", found, found == 1 ? "" : "s");
	return rc ? rc : found ? 1 : 0;
}

void coord_free(struct coord *c)
{
	for (size_t i = 0; c->fig && i < c->p->ntests; i++)
		free(c->fig[i]);
	free(c->fig);
	free(c->nfail);
	free(c->first_err);
	c->fig = NULL;
}
