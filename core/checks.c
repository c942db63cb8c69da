// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verdicts in the engine (core/checks.h): --expect, --baseline,
 * --tolerance and --compare from the command line into the plan, the
 * checks planned against the tests named, each result checked as it
 * arrives and the failures counted for the exit status.
 *
 * Rules (docs/qperf-guide.7 "Verdicts"): the limits apply to every test
 * named that measures something (conf and quit carry no verdict); a
 * limit on a figure that one of those tests does not produce is a usage
 * error naming both, so "all" with a latency limit is refused as well.
 * bw is the received bandwidth (recv_bw of a send/recv test such as
 * udp_bw).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "opt_err.h"
#include "opt_table.h"
#include "param.h"
#include "transports/transport.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/verdict.h"
#include "output/baseline.h"
#include "output/json.h"
#include "output/sink.h"

struct checks {
	const struct check_opts *o;
	unsigned results, failed; /* results with a verdict; those failed */
	struct verdict v;
};

int checks_opt(struct plan *p, const struct opt_desc *o,
	       const char *spelling, const char *v, char *err, size_t errlen)
{
	struct check_opts *c = &p->checks;
	char inner[256];

	switch (o->act) {
	case OA_EXPECT:
		if (c->nexpect >= EXPECT_MAX)
			return opts_fail(err, errlen, spelling, v,
					 "too many limits; at most %d",
					 EXPECT_MAX);
		if (verdict_parse(v, &c->expect[c->nexpect], inner,
				  sizeof(inner)) < 0)
			return opts_fail(err, errlen, spelling, v, "%s", inner);
		c->nexpect++;
		return 0;
	case OA_TOLERANCE:
		if (verdict_tolerance(v, &c->tolerance, inner,
				      sizeof(inner)) < 0)
			return opts_fail(err, errlen, spelling, v, "%s", inner);
		c->tolerance_opt = spelling;
		return 0;
	case OA_BASELINE:
	case OA_COMPARE:
		if (!*v)
			return opts_fail(err, errlen, spelling, NULL,
					 "empty file name");
		if (o->act == OA_BASELINE) {
			c->baseline = v;
			return 0;
		}
		c->compare[0] = v;
		p->mode = RUN_COMPARE;
		return 0;
	default:
		return opts_fail(err, errlen, spelling, v, "not a check option");
	}
}

int checks_word(struct plan *p, const char *w, char *err, size_t errlen)
{
	if (p->checks.compare[1])
		return opts_fail(err, errlen, "--compare", w,
				 "takes two files, A.json B.json; this is a third");
	p->checks.compare[1] = w;
	return 0;
}

/* The figure f is one that test t reports. */
static bool produces(const struct test_desc *t, enum vfig f)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		return verdict_fig_kind(f) == VK_TIME || f == VF_MSG_RATE;
	case MEAS_MSG_RATE:
		return f == VF_MSG_RATE;
	case MEAS_BANDWIDTH:
	case MEAS_BANDWIDTH_SR:
		return verdict_fig_kind(f) != VK_TIME;
	default:
		return false;
	}
}

/* "bw, send_bw, recv_bw, msg_rate": what t reports. */
static char *produced(const struct test_desc *t, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int f = 0; f < VF_COUNT; f++)
		if (produces(t, (enum vfig)f))
			at += xsnprintf(buf + at, len - at, "%s%s",
					at ? ", " : "",
					verdict_fig_name((enum vfig)f));
	return buf;
}

static int compare_check(struct plan *p, char *err, size_t errlen)
{
	const struct check_opts *c = &p->checks;

	if (!c->compare[1])
		return opts_fail(err, errlen, "--compare", c->compare[0],
				 "needs a second file: qperf --compare A.json B.json");
	if (p->ntests || p->host)
		return opts_fail(err, errlen, "--compare", NULL,
				 "runs no test; give it only two files (and --tolerance)");
	if (c->nexpect || c->baseline)
		return opts_fail(err, errlen,
				 c->nexpect ? "--expect" : "--baseline", NULL,
				 "does not apply to --compare (which compares two files)");
	return 1;
}

int checks_plan(struct plan *p, char *err, size_t errlen)
{
	const struct check_opts *c = &p->checks;
	char what[160];
	enum vfig figs[2];

	if (p->mode == RUN_COMPARE)
		return compare_check(p, err, errlen);
	if (!c->nexpect && !c->baseline) {
		if (c->tolerance_opt && p->nwarn < WARN_MAX)
			xsnprintf(p->warn[p->nwarn++], sizeof(p->warn[0]),
				  "%s set but not used without --baseline or --compare",
				  c->tolerance_opt);
		return 0;
	}
	if (p->mode == RUN_CLUSTER && c->baseline)
		return opts_fail(err, errlen, "--baseline", NULL,
				 "not yet in cluster mode (--expect is)");
	for (size_t i = 0; i < p->ntests; i++) {
		const struct test_desc *t = p->tests[i].test;

		if (t->kind != TK_DATA)
			continue;
		/* A verdict with nothing checked would be a pass faked. */
		if (c->baseline &&
		    !baseline_figs(json_measure_name(t->measure), figs))
			return opts_fail(err, errlen, "--baseline", c->baseline,
					 "test %s has no figure a baseline can check",
					 t->name);
		for (int k = 0; k < c->nexpect; k++)
			if (!produces(t, c->expect[k].fig))
				return opts_fail(err, errlen, "--expect",
						 c->expect[k].text,
						 "test %s does not produce %s (it reports %s)",
						 t->name,
						 verdict_fig_name(c->expect[k].fig),
						 *produced(t, what, sizeof(what))
							 ? what
							 : "no figure a check can take");
	}
	return 0;
}

int checks_load(struct plan *p, char *err, size_t errlen)
{
	if (!p->checks.baseline || p->mode != RUN_CLIENT)
		return 0;
	p->checks.base = baseline_load("--baseline", p->checks.baseline, err,
				       errlen);
	return p->checks.base ? 0 : -1;
}

void checks_unload(struct plan *p)
{
	baseline_free(p->checks.base);
	p->checks.base = NULL;
}

struct checks *checks_new(const struct plan *p)
{
	struct checks *c;

	if (!p->checks.nexpect && !p->checks.base)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->o = &p->checks;
	return c;
}

void checks_free(struct checks *c)
{
	free(c);
}

/* Figure f of a result of t; false if it was not measured. */
static bool fig_value(const struct test_desc *t, const struct results *res,
		      enum vfig f, double *v)
{
	const struct lat_summary *l = &res->lat;

	switch (f) {
	case VF_BW:
	case VF_RECV_BW:
		*v = res->recv_bw;
		return true;
	case VF_SEND_BW:
		*v = res->send_bw;
		return true;
	case VF_LATENCY:
		*v = res->latency;
		return true;
	case VF_MSG_RATE:
		*v = res->msg_rate;
		return true;
	default:
		break;
	}
	if (t->measure != MEAS_LATENCY || !l->count)
		return false;
	*v = f == VF_LAT_P50 ? l->p50 : f == VF_LAT_P90 ? l->p90 :
	     f == VF_LAT_P99 ? l->p99 : l->p999;
	return true;
}

/* The baseline's checks of one result, or a warning when none matches. */
static void check_baseline(struct checks *c, struct outputs *out,
			   const struct test_desc *t,
			   const struct settings *s,
			   const struct par_set *par,
			   const struct results *res)
{
	struct loop_val lv[LOOP_MAX];
	struct verdict *v = &c->v;
	enum vfig f[2];
	int nl = loop_vals(s, lv);
	json_t *e = baseline_match(c->o->base, t->name, lv, nl, par);
	int nf = baseline_figs(json_measure_name(t->measure), f);

	if (!e) {
		char what[128], *p;
		json_t *me = json_object();

		json_put(me, "test", json_string(t->name));
		json_put(me, "loop", json_loop(lv, nl));
		p = baseline_describe(me, what, sizeof(what));
		json_decref(me);
		xsnprintf(v->note, sizeof(v->note),
			  "baseline: no match for %s in %.100s", p,
			  baseline_path(c->o->base));
		out_warning(out, "%s", v->note);
		return;
	}
	for (int i = 0; i < nf && v->n < VERDICT_CHECKS_MAX; i++) {
		double now = 0, base = 0;

		if (!baseline_value(e, f[i], &base) ||
		    !fig_value(t, res, f[i], &now))
			continue;
		verdict_baseline(f[i], now, base, c->o->tolerance,
				 s->out.bits, &v->c[v->n++]);
	}
}

/* Every --expect of o against a result of t, into v (cleared first). */
static void check_expects(const struct check_opts *o,
			  const struct test_desc *t, const struct results *res,
			  struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	for (int k = 0; k < o->nexpect; k++) {
		const struct vexpr *e = &o->expect[k];
		double x = 0;
		bool have = fig_value(t, res, e->fig, &x);

		verdict_eval(e, have, x, &res->ceil, &v->c[v->n++]);
	}
}

bool checks_pair(const struct plan *p, const struct test_desc *t,
		 const struct pair_res *r, struct verdict *v)
{
	struct results res;

	if (!p->checks.nexpect || t->kind != TK_DATA)
		return false;
	memset(&res, 0, sizeof(res));
	res.send_bw = r->send_bw;
	res.recv_bw = r->recv_bw;
	res.msg_rate = r->msg_rate;
	res.latency = r->latency;
	res.lat = r->lat;
	res.ceil = r->ceil;
	check_expects(&p->checks, t, &res, v);
	verdict_settle(v);
	return true;
}

const struct verdict *checks_result(struct checks *c, struct outputs *out,
				    const struct test_desc *t,
				    const struct settings *s,
				    const struct par_set *par,
				    const struct results *res)
{
	struct verdict *v;

	if (!c || t->kind != TK_DATA)
		return NULL;
	v = &c->v;
	check_expects(c->o, t, res, v);
	if (c->o->base)
		check_baseline(c, out, t, s, par, res);
	verdict_settle(v);
	c->results++;
	if (!v->pass)
		c->failed++;
	return v;
}

int checks_status(const struct checks *c, char *msg, size_t msglen)
{
	if (!c || !c->failed)
		return 0;
	xsnprintf(msg, msglen, "%u of %u results failed their checks",
		  c->failed, c->results);
	return VERDICT_FAILED_STATUS;
}
