// SPDX-License-Identifier: GPL-2.0-only
/*
 * The figures beyond 0.4.11 and their -vx lines: latency percentiles from
 * the round-trip histograms of both ends, the CPU of the qperf process on
 * each end, and the CPU cost per message.  With -vx these entries follow
 * every 0.4.11 entry in the same table; without it nothing here is shown,
 * so the default, -v and -vv reports keep 0.4.11's layout.
 */
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "lib/err.h"
#include "lib/hist.h"
#include "report.h"
#include "report_tab.h"

static void proc_of(struct proc_cpu *p, const struct node_stat *st)
{
	memset(p, 0, sizeof(*p));
	if (!st->proc_valid)
		return;
	p->valid = true;
	if (st->proc_user_e > st->proc_user_s)
		p->user = (double)(st->proc_user_e - st->proc_user_s) / 1e9;
	if (st->proc_sys_e > st->proc_sys_s)
		p->sys = (double)(st->proc_sys_e - st->proc_sys_s) / 1e9;
}

/* Seconds per message from seconds per byte and the mean message size. */
static double per_msg(double per_byte, uint64_t lb, uint64_t rb,
		      uint64_t lm, uint64_t rm)
{
	double m = (double)lm + (double)rm;

	return m > 0 ? per_byte * ((double)lb + (double)rb) / m : 0;
}

void calc_extra(struct results *res, const struct test_desc *t,
		const struct hist *loc, const struct hist *rem)
{
	const struct node_stat *L = &res->l, *R = &res->r;
	struct hist *m = malloc(sizeof(*m));
	const struct hist *all = loc;
	double div = t && t->loop == LOOP_ONESIDED ? 1 : 2;

	if (m) {
		hist_init(m);
		hist_merge(m, loc);
		hist_merge(m, rem);
		all = m;
	}
	hist_summary(all, div, &res->lat);
	hist_summary(all, 1, &res->rtt);
	free(m);
	proc_of(&res->lp, L);
	proc_of(&res->rp, R);
	res->send_cost_msg = per_msg(res->send_cost, L->s.bytes, R->s.bytes,
				     L->s.msgs, R->s.msgs);
	res->recv_cost_msg = per_msg(res->recv_cost, L->r.bytes, R->r.bytes,
				     L->r.msgs, R->r.msgs);
}

/* The names of one distribution's lines. */
struct extra_names {
	const char *min, *mean, *p50, *p90, *p99, *p999, *p9999, *max;
};

static const struct extra_names EXTRA_LAT = {
	"latency_min",	 "latency_mean",  "latency_p50",    "latency_p90",
	"latency_p99",	 "latency_p99.9", "latency_p99.99", "latency_max"
};
static const struct extra_names EXTRA_RTT = {
	"rtt_min", "rtt_mean",	  "rtt_p50",	 "rtt_p90",
	"rtt_p99", "rtt_p99.9", "rtt_p99.99", "rtt_max"
};

static void extra_dist(struct report_table *t, const struct extra_names *nm,
		       const struct lat_summary *s)
{
	report_time(t, RC_X, "", nm->min, s->min * 1e9);
	report_time(t, RC_X, "", nm->mean, s->mean * 1e9);
	report_time(t, RC_X, "", nm->p50, s->p50 * 1e9);
	report_time(t, RC_X, "", nm->p90, s->p90 * 1e9);
	report_time(t, RC_X, "", nm->p99, s->p99 * 1e9);
	report_time(t, RC_X, "", nm->p999, s->p999 * 1e9);
	report_time(t, RC_X, "", nm->p9999, s->p9999 * 1e9);
	report_time(t, RC_X, "", nm->max, s->max * 1e9);
}

static void extra_proc(struct report_table *t, const char *pref,
		       const struct proc_cpu *p)
{
	if (!p->valid)
		return;
	report_time(t, RC_X, pref, "proc_user", p->user * 1e9);
	report_time(t, RC_X, pref, "proc_sys", p->sys * 1e9);
}

static const char *const EXTRA_COST_MSG[] = { "ns/msg", "us/msg", "ms/msg",
					      "sec/msg" };

/* A cost in CPU seconds per message, shown when there is one. */
static void extra_cost(struct report_table *t, const char *name, double sec)
{
	double v = sec * 1e9;
	const char *unit;

	if (!(v > 0))
		return;
	unit = report_scale(t->o, &v, EXTRA_COST_MSG,
			    sizeof(EXTRA_COST_MSG) / sizeof(EXTRA_COST_MSG[0]));
	report_put_val(t, "", name, unit, v);
}

/*
 * One ceiling line and its efficiency: "bw_ceiling = 49.7 GB/sec (4x
 * NDR port of ...)" (the limit named when what is), "bw_efficiency =
 * 92.3%" of the figure got; v of quantity q.  The names are kept, not
 * copied: literals.
 */
static void ceiling_pair(struct report_table *t, const char *cname,
			 const char *ename, enum report_qty q, double v,
			 const char *what, double got)
{
	char num[REPORT_DATA_MAX];
	struct report_entry *e;
	const char *unit;
	double lim = v;

	unit = report_unit(t->o, q, &v);
	report_put_val(t, "", cname, unit, v);
	if (!t->n || strcmp(t->e[t->n - 1].name, cname) != 0)
		return;
	e = &t->e[t->n - 1];
	snprintf(num, sizeof(num), "%s", e->data);
	e->unit = NULL;
	if (what)
		xsnprintf(e->data, sizeof(e->data), "%s %s (%s)", num, unit,
			  what);
	else
		xsnprintf(e->data, sizeof(e->data), "%s %s", num, unit);
	report_put_val(t, "", ename, "%", got / lim * 100);
	if (strcmp(t->e[t->n - 1].name, ename) != 0)
		return;
	e = &t->e[t->n - 1];
	e->unit = NULL;
	snprintf(e->data + strlen(e->data),
		 sizeof(e->data) - strlen(e->data), "%%");
}

/* "NAME = none (why)". */
static void ceiling_none(struct report_table *t, const char *name,
			 const char *why)
{
	struct report_entry *e = report_add(t, "", name, NULL);

	if (e)
		xsnprintf(e->data, sizeof(e->data), "none (%s)", why);
}

/*
 * The ceiling of a bandwidth test's path and the share of it the test
 * reached (issue 18): "bw_ceiling = 49.7 GB/sec (4x NDR port of ...)",
 * "bw_efficiency = 92.3%"; with no ceiling known "bw_ceiling = none
 * (loopback)".  Then the message rate the same limit carries, where
 * messages are packets (RDMA, UDP): "msg_rate_ceiling = 277 M/sec",
 * "msg_rate_efficiency = 3.1%"; a stream (TCP) has none, and says so.
 * Other tests have neither (ceil.what is empty).
 */
static void extra_ceiling(struct report_table *t, const struct results *res)
{
	const struct ceiling *c = &res->ceil;

	if (!c->valid) {
		if (c->what[0]) {
			ceiling_none(t, "bw_ceiling", c->what);
			ceiling_none(t, "msg_rate_ceiling",
				     c->stream ? "a stream: its writes are not packets" :
						 c->what);
		}
		return;
	}
	ceiling_pair(t, "bw_ceiling", "bw_efficiency", RQ_BAND, c->bps, c->what, res->recv_bw);
	if (c->stream)
		ceiling_none(t, "msg_rate_ceiling",
			     "a stream: its writes are not packets");
	else if (c->msg_rate > 0)
		ceiling_pair(t, "msg_rate_ceiling", "msg_rate_efficiency",
			     RQ_RATE, c->msg_rate, NULL, res->msg_rate);
}

void report_extra(struct report_table *t, const struct results *res)
{
	if (t->o->v_extra < 1)
		return;
	if (res->lat.count) {
		report_count(t, RC_X, "", "latency_samples", res->lat.count);
		extra_dist(t, &EXTRA_LAT, &res->lat);
		extra_dist(t, &EXTRA_RTT, &res->rtt);
	}
	extra_proc(t, "loc_", &res->lp);
	extra_proc(t, "rem_", &res->rp);
	extra_cost(t, "send_cost_msg", res->send_cost_msg);
	extra_cost(t, "recv_cost_msg", res->recv_cost_msg);
	extra_ceiling(t, res);
	report_qps(t, res);
	report_cnt(t, res->cnt); /* last: they can be many */
}
