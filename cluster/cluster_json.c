// SPDX-License-Identifier: GPL-2.0-only
/*
 * --json in cluster mode (cluster_json.h): rank 0's results become the
 * "cluster" member of the --json document of output/json.c (schema:
 * docs/qperf-schema.json, definitions "cluster*").  Figures are in SI
 * base units, as everywhere in the JSON: bandwidth in bytes/s, message
 * rate per second, latency in seconds; the coordinator's "goodness"
 * (bigger is better) is converted back here.
 *
 * Size: one number per directed pair and test, built in memory by
 * jansson (about 40 bytes each, measured for 10^6: 4 GB per test at
 * N = 10,000) and written as about 15 bytes each; the text report leaves
 * its matrix out beyond 64 ranks, the JSON never does.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "transports/transport.h"
#include "cluster_json.h"
#include "coord_fig.h"
#include "coord_verdict.h"
#include "group_run.h"
#include "output/json.h"
#include "core/measure.h"
#include "lib/err.h"
#include "lib/sched.h"
#include "lib/text.h"

/* The unit of a test's figures in the JSON, and the quantity. */
static const char *si_unit(const struct test_desc *t)
{
	return t->measure == MEAS_LATENCY    ? "s"
	       : t->measure == MEAS_MSG_RATE ? "1/s"
					     : "B/s";
}

static const char *quantity(const struct test_desc *t)
{
	return t->measure == MEAS_LATENCY    ? "latency"
	       : t->measure == MEAS_MSG_RATE ? "msg_rate"
					     : "recv_bw";
}

/* A goodness as the figure in its SI unit; null if there is none. */
static json_t *si(const struct test_desc *t, double g)
{
	if (!(g > 0))
		return json_null();
	return json_num(t->measure == MEAS_LATENCY ? 1 / g : g);
}

/* The "loop" of plan item i: its --loop values. */
static json_t *loop_json(const struct coord *c, size_t i)
{
	struct loop_val lv[LOOP_MAX];
	int n = loop_vals(&c->p->tests[i].s, lv);

	return json_loop(lv, n);
}

/* A string that may hold a peer's text, made printable (lib/text.h). */
static json_t *text(const char *s)
{
	char b[CMSG_ERR_MAX + 2 * CMSG_HOST_MAX];

	return json_string(text_copy(b, sizeof(b), s));
}

/* As text(), but null if empty. */
static json_t *str(const char *s)
{
	return s && *s ? text(s) : json_null();
}

static json_t *ranks_json(const struct coord *c)
{
	json_t *a = json_array();

	for (uint32_t k = 0; k < c->n; k++) {
		const struct crank *r = &c->r[k];
		json_t *o = json_object(), *find = json_array();

		json_put(o, "rank", json_integer(k));
		json_put(o, "host", str(r->host));
		json_put(o, "address", r->joined ? str(r->addr) : json_null());
		json_put(o, "port", r->joined ? json_integer(r->port) :
						json_null());
		json_put(o, "local_rank", r->joined ? json_integer(r->local) :
						      json_null());
		json_put(o, "joined", json_boolean(r->joined));
		json_put(o, "alive", json_boolean(r->alive));
		json_put(o, "findings", find);
		for (uint32_t i = 0; i < r->nfind; i++) {
			json_t *e;

			if (!r->find[i].check[0])
				continue;
			e = json_object();
			json_put(e, "check", text(r->find[i].check));
			json_put(e, "message", text(r->find[i].text));
			json_array_append_new(find, e);
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* The rounds in which a rank sat out (odd N), and which. */
static json_t *sits_out_json(const struct coord *c)
{
	json_t *a = json_array();

	for (uint32_t r = 0; c->idle && r < c->rounds; r++) {
		json_t *o;

		if (c->idle[r] == UINT32_MAX)
			continue;
		o = json_object();
		json_put(o, "round", json_integer(r + 1));
		json_put(o, "rank", json_integer(c->idle[r]));
		json_array_append_new(a, o);
	}
	return a;
}

/* A suspect and its retest (with the test's name and line if confirmed). */
static json_t *find_json(const struct coord *c, size_t item,
			 const struct cfind *f, bool outlier)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct outlier *o = &f->o;
	json_t *j = json_object(), *ranks = json_array(), *hosts = json_array();
	bool node = o->kind != OUTLIER_LINK;
	bool fair = o->kind == OUTLIER_HUB && f->what == CFW_FAIR;
	bool lat = t->measure == MEAS_LATENCY && !fair;
	double change = lat ? o->median / o->figure - 1
			    : o->figure / o->median - 1;

	for (int i = 0; i < (node ? 1 : 2); i++) {
		uint32_t k = i ? o->b : o->a;

		json_array_append_new(ranks, json_integer(k));
		json_array_append_new(hosts, text(c->r[k].host));
	}
	if (outlier) {
		json_put(j, "test", json_string(t->name));
		json_put(j, "loop", loop_json(c, item));
	}
	json_put(j, "kind", json_string(o->kind == OUTLIER_HUB ?
						group_hub_role(c) :
					node ? "node" : "link"));
	json_put(j, "ranks", ranks);
	json_put(j, "hosts", hosts);
	json_put(j, "figure", fair ? json_num(o->figure) : si(t, o->figure));
	json_put(j, "median", fair ? json_num(o->median) : si(t, o->median));
	json_put(j, "unit", json_string(fair ? "" : si_unit(t)));
	json_put(j, "relative_change", json_num(change));
	json_put(j, "z", json_num(o->z));
	json_put(j, "partner", f->partner >= 0 ? json_integer(f->partner) :
						 json_null());
	json_put(j, "retest", !fair		? si(t, f->retest) :
			      f->retest >= 0 ? json_num(f->retest) :
						 json_null());
	if (o->kind == OUTLIER_HUB)
		json_put(j, "quantity",
			 json_string(fair ? "fairness" :
				     lat  ? "latency" :
					    "aggregate"));
	if (outlier)
		json_put(j, "line", text(f->line));
	else
		json_put(j, "confirmed", json_boolean(f->confirmed));
	return j;
}

/*
 * A size x size matrix m as JSON, null where it holds no figure.  mirror:
 * a latency test's percentile (s), one measurement per pair, in both
 * cells; else each cell its own (efficiencies: fractions of the ceiling).
 */
static json_t *float_matrix(const struct coord *c, const float *m,
			    bool mirror)
{
	json_t *rows = json_array();

	for (uint32_t i = 0; i < c->n; i++) {
		json_t *row = json_array();

		for (uint32_t j = 0; j < c->n; j++) {
			double v = m[(size_t)i * c->n + j];

			if (mirror && isnan(v))
				v = m[(size_t)j * c->n + i];
			json_array_append_new(row, i == j || isnan(v) ?
							   json_null() :
							   json_num(v));
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

/* A test's pairs held to --expect: how many, which failed and why. */
static json_t *verdict_json(const struct coord *c, const struct ctest *ct)
{
	json_t *o = json_object(), *f = json_array(), *ex = json_array();

	for (int k = 0; k < c->p->checks.nexpect; k++)
		json_array_append_new(ex,
				      json_string(c->p->checks.expect[k].text));
	for (uint32_t i = 0; i < ct->nvkept; i++) {
		json_t *e = json_object();

		json_put(e, "client", json_integer(ct->vfail[i].client));
		json_put(e, "server", json_integer(ct->vfail[i].server));
		json_put(e, "reason", text(ct->vfail[i].why));
		json_array_append_new(f, e);
	}
	json_put(o, "pass", json_boolean(!ct->nvfail));
	json_put(o, "expect", ex);
	json_put(o, "checked", json_integer(ct->nchecked));
	json_put(o, "failed", json_integer(ct->nvfail));
	json_put(o, "failing", f);
	return o;
}

/* A number in SI units, or null if there is none. */
static json_t *num_or_null(double v)
{
	return isfinite(v) && v > 0 ? json_num(v) : json_null();
}

/* Round g of item (round from 1; 0: a retest of it) as JSON. */
static json_t *group_json(const struct coord *c, size_t item,
			  uint32_t round, const struct cgroup *g)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct test_desc *lt = g->load ? test_bw_of(t) : t;
	bool incast = c->p->cluster.pattern.kind == SCHED_INCAST;
	bool shared = g->ok && g->k > (g->load ? 1u : 0u);
	json_t *o = json_object(), *fl = json_array(), *sl;

	for (uint32_t i = 0; i < g->k; i++) {
		const struct cgflow *f = &g->f[i];
		const struct test_desc *ft = g->load && i ? lt : t;
		json_t *e = json_object();

		json_put(e, "client", json_integer(incast ? f->rank : g->hub));
		json_put(e, "server", json_integer(incast ? g->hub : f->rank));
		json_put(e, "role", json_string(!g->load ? "flow" :
						i	  ? "load" :
							    "victim"));
		json_put(e, "test", json_string(ft->name));
		json_put(e, "figure", num_or_null(f->fig));
		json_put(e, "unit", json_string(si_unit(ft)));
		json_put(e, "start_late_s", isnan(f->late) ? json_null() :
							     json_num(f->late));
		json_put(e, "done_s", isnan(f->late) ? json_null() :
						       json_num(f->done));
		json_array_append_new(fl, e);
	}
	json_put(o, "round", round ? json_integer(round) : json_null());
	json_put(o, "hub", json_integer(g->hub));
	json_put(o, "status", json_string(g->ok	  ? "ok" :
					  g->ran ? "failed" :
						   "not run"));
	if (!g->ok)
		json_put(o, "error", text(g->err ? g->err : "not run"));
	json_put(o, "retried", json_boolean(g->retried));
	json_put(o, "flows", fl);
	json_put(o, "aggregate", shared ? num_or_null(g->aggregate) :
					  json_null());
	json_put(o, "aggregate_unit", json_string(si_unit(lt)));
	json_put(o, "fairness", shared ? json_num(g->fairness) : json_null());
	sl = json_null();
	if (shared) {
		const struct cgflow *f = &g->f[g->slowest];

		sl = json_object();
		json_put(sl, "client", json_integer(incast ? f->rank : g->hub));
		json_put(sl, "server", json_integer(incast ? g->hub : f->rank));
		json_put(sl, "figure", json_num(f->fig));
		json_put(sl, "fair_share",
			 json_num(g->aggregate / (g->k - (g->load ? 1 : 0))));
		json_put(sl, "ratio", json_num(g->ratio));
	}
	json_put(o, "slowest", sl);
	json_put(o, "victim_latency_s",
		 g->ok && g->load ? num_or_null(g->victim) : json_null());
	json_put(o, "completion_s", g->ok ? num_or_null(g->completion) :
					    json_null());
	json_put(o, "start_spread_s", g->ok ? json_num(g->spread) :
					      json_null());
	json_put(o, "clock_uncertainty_s", g->ok ? json_num(g->uncert) :
						   json_null());
	return o;
}

/* One test: the matrix, what is missing and why, medians, retests. */
static json_t *test_json(const struct coord *c, size_t item)
{
	const struct test_desc *t = c->p->tests[item].test;
	const struct ctest *ct = &c->t[item];
	json_t *o = json_object(), *rows = json_array(), *miss = json_array();
	json_t *med = json_array(), *rt = json_array();
	size_t count = 0, unsched = 0;

	for (uint32_t i = 0; i < c->n; i++) {
		json_t *row = json_array();

		for (uint32_t j = 0; j < c->n; j++) {
			double g = i == j ? NAN : coord_fig(c, item, i, j);
			char why[CMSG_ERR_MAX + 64];
			json_t *m;

			json_array_append_new(row, si(t, g));
			if (i == j)
				continue;
			if (g > 0) {
				count++;
				continue;
			}
			coord_why_missing(c, item, i, j, why, sizeof(why));
			/* Counted, not listed: a sparse pattern at N = 10,000
			 * would list 10^8 of them (80 GB in memory). */
			if (!strcmp(why, "not in the schedule")) {
				unsched++;
				continue;
			}
			m = json_object();
			json_put(m, "client", json_integer(i));
			json_put(m, "server", json_integer(j));
			json_put(m, "reason", text(why));
			json_array_append_new(miss, m);
		}
		json_array_append_new(rows, row);
		json_array_append_new(med, si(t, ct->med ? ct->med[i] : 0));
	}
	for (int i = 0; i < ct->nfinds; i++)
		json_array_append_new(rt, find_json(c, item, &ct->find[i],
						    false));
	json_put(o, "test", json_string(t->name));
	json_put(o, "loop", loop_json(c, item));
	json_put(o, "quantity", json_string(quantity(t)));
	json_put(o, "unit", json_string(si_unit(t)));
	json_put(o, "each_way", json_boolean(coord_one_way(t)));
	json_put(o, "matrix", rows);
	if (ct->low) {
		json_t *low = json_array();

		for (uint32_t i = 0; i < c->n; i++) {
			json_t *row = json_array();

			for (uint32_t j = 0; j < c->n; j++)
				json_array_append_new(
					row, json_num(coord_low(c, item, i, j)));
			json_array_append_new(low, row);
		}
		json_put(o, "interval_low_matrix", low);
	}
	if (ct->p50) {
		json_put(o, "p50_matrix", float_matrix(c, ct->p50, true));
		json_put(o, "p99_matrix", float_matrix(c, ct->p99, true));
	}
	if (ct->eff)
		json_put(o, "efficiency_matrix", float_matrix(c, ct->eff, false));
	if (c->p->checks.nexpect)
		json_put(o, "verdict", verdict_json(c, ct));
	json_put(o, "directed_figures", json_integer((json_int_t)count));
	json_put(o, "missing", miss);
	json_put(o, "not_scheduled", json_integer((json_int_t)unsched));
	json_put(o, "failed_pairs", json_integer(ct->nfail));
	json_put(o, "retried_pairs", json_integer(ct->nretried));
	json_put(o, "retried_measured", json_integer(ct->nretried_ok));
	json_put(o, "node_medians", med);
	json_put(o, "median", si(t, ct->fabric_med));
	json_put(o, "suspects", json_integer(ct->nsuspects > 0 ?
						     ct->nsuspects : 0));
	json_put(o, "retests", rt);
	if (ct->grp) {
		json_t *g = json_array();

		for (uint32_t r = 0; r < c->rounds; r++)
			json_array_append_new(g, group_json(c, item, r + 1,
							    &ct->grp[r]));
		json_put(o, "groups", g);
		json_put(o, "group_median", si(t, ct->grp_med));
		json_put(o, "fairness_median", ct->fair_med > 0 ?
						       json_num(ct->fair_med) :
						       json_null());
	}
	return o;
}

void coord_json(struct coord *c, int status)
{
	json_t *cl = json_object(), *tests = json_array(), *out = json_array();
	json_t *gone = json_array();
	char name[32], line[CMSG_HOST_MAX + 400], msg[160];
	int found = 0, ngone = 0;
	uint32_t failed = 0;

	sched_name(&c->p->cluster.pattern, name, sizeof(name));
	for (size_t i = 0; c->t && i < c->p->ntests; i++) {
		const struct ctest *ct = &c->t[i];

		json_array_append_new(tests, test_json(c, i));
		failed += ct->nfail;
		for (int k = 0; k < ct->nfinds; k++)
			if (ct->find[k].confirmed) {
				found++;
				json_array_append_new(
					out, find_json(c, i, &ct->find[k], true));
			}
	}
	for (uint32_t k = 0; c->t && k < c->n; k++) {
		json_t *g;

		if (c->r[k].alive)
			continue;
		ngone++;
		g = json_object();
		coord_gone_line(c, k, line, sizeof(line));
		json_put(g, "rank", json_integer(k));
		json_put(g, "host", str(c->r[k].host));
		json_put(g, "reason", text(c->r[k].why));
		json_put(g, "line", text(line));
		json_array_append_new(gone, g);
	}
	json_put(cl, "pattern", json_string(name));
	json_put(cl, "seed", json_integer((json_int_t)c->seed));
	json_put(cl, "size", json_integer(c->n));
	json_put(cl, "rounds", json_integer(c->rounds));
	json_put(cl, "ranks", ranks_json(c));
	json_put(cl, "sits_out", sits_out_json(c));
	json_put(cl, "tests", tests);
	json_put(cl, "outliers", out);
	json_put(cl, "gone", gone);
	json_cluster(c->json, cl);
	xsnprintf(msg, sizeof(msg),
		  "cluster: %d outlier%s, %u failed pair test%s, %d rank%s gone",
		  found, found == 1 ? "" : "s", failed, failed == 1 ? "" : "s",
		  ngone, ngone == 1 ? "" : "s");
	json_finish(c->json, status, measure_interrupted(),
		    status == 0 ? NULL : !c->t ? "cluster: the run did not start"
					       : msg);
	c->json = NULL;
}

void coord_json_event(const struct coord *c, const char *type, uint32_t item,
		      uint32_t client, uint32_t server,
		      const struct cmsg_result *res, double g)
{
	const struct test_desc *t = c->p->tests[item].test;
	json_t *e;

	if (c->p->json != JSON_STREAM)
		return;
	e = json_object();
	json_put(e, "type", json_string(type));
	json_put(e, "test", json_string(t->name));
	json_put(e, "loop", loop_json(c, item));
	json_put(e, "round", c->round ? json_integer(c->round) : json_null());
	json_put(e, "client", json_integer(client));
	json_put(e, "server", json_integer(server));
	/* as the matrix keeps it (a float), so both say the same */
	json_put(e, "figure", si(t, (double)(float)g));
	json_put(e, "unit", json_string(si_unit(t)));
	if (c->t && c->t[item].low && !strcmp(type, "pair"))
		json_put(e, "interval_low",
			 g > 0 && res->r.ival_n ?
				 json_num((double)(float)res->r.ival_low) :
				 json_null());
	if (g > 0 && t->measure == MEAS_LATENCY && res->r.lat.count)
		json_put(e, "latency", json_lat(&res->r.lat));
	if (g > 0 && res->r.ceil.valid) {
		json_t *ce = json_object();
		char lim[sizeof(res->r.ceil.what) + 2 * CMSG_HOST_MAX];

		cv_name_ranks(c, client, server, res->r.ceil.what, lim,
			      sizeof(lim));
		json_put(ce, "value_Bps", json_num(res->r.ceil.bps));
		json_put(ce, "limit", text(lim));
		json_put(ce, "efficiency",
			 json_num(res->r.recv_bw / res->r.ceil.bps));
		json_put(e, "ceiling", ce);
	}
	if (!(g > 0))
		json_put(e, "error", text(res->status ? res->err :
						      "measured nothing"));
	json_event(c->json, e);
}

void coord_json_gone(const struct coord *c, uint32_t k)
{
	json_t *e;

	if (c->p->json != JSON_STREAM)
		return;
	e = json_object();
	json_put(e, "type", json_string("gone"));
	json_put(e, "rank", json_integer(k));
	json_put(e, "host", str(c->r[k].host));
	json_put(e, "reason", text(c->r[k].why));
	json_event(c->json, e);
}

void coord_json_group(const struct coord *c, size_t item, uint32_t round,
		      const struct cgroup *g)
{
	json_t *e, *gj;

	if (c->p->json != JSON_STREAM)
		return;
	e = json_object();
	json_put(e, "type", json_string("group"));
	json_put(e, "test", json_string(c->p->tests[item].test->name));
	json_put(e, "loop", loop_json(c, item));
	gj = group_json(c, item, round, g);
	json_object_update(e, gj);
	json_decref(gj);
	json_event(c->json, e);
}
