// SPDX-License-Identifier: GPL-2.0-only
/*
 * Results and reports: the arithmetic of 0.4.11's calc_results (spec §3.4,
 * §6) and the text report in 0.4.11's exact layout (spec §5).
 *
 * A report is built in two passes, as 0.4.11 does: every visible entry is
 * first formatted into a table (name, data string, unit, alternative), then
 * the table is printed with the name and data columns sized to the widest
 * entry.  Everything here is a pure function of its arguments; the only
 * state is the table on the caller's stack, and the only globals are const
 * tables.
 *
 * Differences from 0.4.11, all deliberate:
 *  - the real time of a node is a nanosecond window, not clock ticks;
 *  - cpu_time is computed in double (0.4.11 divides in float, which shows
 *    with -uu as "1590000033 ns" for 159 ticks; we print 1590000000 ns);
 *  - a counter that runs backwards (end < start) counts as 0, and the
 *    rem_s/rem_r merge saturates instead of wrapping;
 *  - string values (conf, id) have control characters replaced by '?', so
 *    that a peer cannot write escape sequences to the user's terminal.
 */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "transports/transport.h"
#include "report.h"
#include "report_tab.h"

/* ---------------------------------------------------------------------- */
/* calc_results                                                            */
/* ---------------------------------------------------------------------- */

static uint64_t report_delta(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

static uint64_t report_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void report_ustat_add(struct ustat *to, const struct ustat *from)
{
	to->bytes = report_sat_add(to->bytes, from->bytes);
	to->msgs = report_sat_add(to->msgs, from->msgs);
	to->errs = report_sat_add(to->errs, from->errs);
}

/* The change of one /proc/stat counter over the window, in ticks. */
static double report_cpu_delta(const struct node_stat *st, enum cpu_field f)
{
	return (double)report_delta(st->time_s[f], st->time_e[f]);
}

/*
 * Per-node figures (spec §6).  A node with an empty window or without a
 * tick rate has every figure 0, as in 0.4.11.
 */
static void report_calc_node(struct node_res *n, const struct node_stat *st)
{
	uint64_t real_ns = report_delta(st->real_s, st->real_e);
	double ticks = st->no_ticks;
	double user, nice, kernel, iowait, irq, softirq, steal, rt;

	memset(n, 0, sizeof(*n));
	if (real_ns == 0 || st->no_ticks == 0)
		return;

	user = report_cpu_delta(st, CPU_USER);
	nice = report_cpu_delta(st, CPU_NICE);
	kernel = report_cpu_delta(st, CPU_KERNEL);
	iowait = report_cpu_delta(st, CPU_IOWAIT);
	irq = report_cpu_delta(st, CPU_IRQ);
	softirq = report_cpu_delta(st, CPU_SOFTIRQ);
	steal = report_cpu_delta(st, CPU_STEAL);

	n->real_time = (double)real_ns / 1e9;
	n->cpu_time =
		(user + nice + kernel + iowait + irq + softirq + steal) / ticks;

	/* The window expressed in ticks: fractions are of one CPU. */
	rt = n->real_time * ticks;
	n->cpu_user = (user + nice) / rt;
	n->cpu_intr = (irq + softirq) / rt;
	n->cpu_kernel = (kernel + steal) / rt;
	n->cpu_iowait = iowait / rt;
	n->cpu_total = n->cpu_user + n->cpu_intr + n->cpu_kernel +
		       n->cpu_iowait;
}

/*
 * One of 0.4.11's three-way rules: one node's count over its own time (or,
 * for msg_rate, the other node's time), or the sum over the mean time.
 */
static double report_rate(uint64_t lv, uint64_t rv, double l_only_time,
			  double r_only_time, double mid)
{
	if (rv == 0)
		return (double)lv / l_only_time;
	if (lv == 0)
		return (double)rv / r_only_time;
	return ((double)lv + (double)rv) / mid;
}

void calc_results(const struct node_stat *l, const struct node_stat *r,
		  struct results *res)
{
	struct node_stat ls = *l, rs = *r; /* copies: res may alias l or r */
	const struct node_stat *L = &res->l, *R = &res->r;
	double lt, rt, mid, msgs;

	memset(res, 0, sizeof(*res));
	res->l = ls;
	res->r = rs;
	report_ustat_add(&res->l.s, &rs.rem_s);
	report_ustat_add(&res->l.r, &rs.rem_r);
	report_ustat_add(&res->r.s, &ls.rem_s);
	report_ustat_add(&res->r.r, &ls.rem_r);

	report_calc_node(&res->ln, L);
	report_calc_node(&res->rn, R);

	msgs = (double)L->r.msgs + (double)R->r.msgs;
	if (msgs > 0)
		res->latency = res->ln.real_time / msgs;

	lt = res->ln.real_time;
	rt = res->rn.real_time;
	if (lt == 0 || rt == 0)
		return;
	mid = (lt + rt) / 2;

	/* 0.4.11 quirk (spec §7.8): one-sided msg_rate uses the other time. */
	res->msg_rate = report_rate(L->r.msgs, R->r.msgs, rt, lt, mid);
	res->send_bw = report_rate(L->s.bytes, R->s.bytes, lt, rt, mid);
	res->recv_bw = report_rate(L->r.bytes, R->r.bytes, lt, rt, mid);

	/* Costs only for one-way traffic; CPU seconds per byte. */
	if (L->s.bytes && !L->r.bytes && !R->s.bytes)
		res->send_cost = res->ln.cpu_time / (double)L->s.bytes;
	else if (R->s.bytes && !R->r.bytes && !L->s.bytes)
		res->send_cost = res->rn.cpu_time / (double)R->s.bytes;
	if (R->r.bytes && !R->s.bytes && !L->r.bytes)
		res->recv_cost = res->rn.cpu_time / (double)R->r.bytes;
	else if (L->r.bytes && !L->s.bytes && !R->r.bytes)
		res->recv_cost = res->ln.cpu_time / (double)L->r.bytes;
}

/* ---------------------------------------------------------------------- */
/* Entries of the report's sections                                        */
/* ---------------------------------------------------------------------- */

static const char *const REPORT_COST[] = { "ns/GB", "us/GB", "ms/GB",
					   "sec/GB" };


/* Bandwidth in bytes/s; -ub shows bits. */
static void report_band(struct report_table *t, enum report_class c,
			const char *name, double v)
{
	const char *unit;

	if (!report_visible(t->o, c, v))
		return;
	unit = report_unit(t->o, RQ_BAND, &v);
	report_put_val(t, "", name, unit, v);
}

/* Message rate in 1/s. */
static void report_msg_rate(struct report_table *t, enum report_class c,
			    const char *name, double v)
{
	const char *unit;

	if (!report_visible(t->o, c, v))
		return;
	unit = report_unit(t->o, RQ_RATE, &v);
	report_put_val(t, "", name, unit, v);
}

/* A cost in CPU seconds per byte, shown per 10^9 bytes. */
static void report_cost(struct report_table *t, enum report_class c,
			const char *name, double sec_per_byte)
{
	double v = sec_per_byte * 1e9 * 1e9; /* ns per GB */
	const char *unit;

	if (!report_visible(t->o, c, v))
		return;
	unit = report_scale(t->o, &v, REPORT_COST, REPORT_NUNITS(REPORT_COST));
	report_put_val(t, "", name, unit, v);
}

/* A fraction of one CPU, shown as a never-scaled percentage. */
static void report_cpus(struct report_table *t, enum report_class c,
			const char *name, double fraction)
{
	double v = fraction * 100;

	if (report_visible(t->o, c, v))
		report_put_val(t, "", name, "% cpus", v);
}

/* A size in bytes. */
void report_size(struct report_table *t, enum report_class c,
		 const char *pref, const char *name, uint64_t v)
{
	double d = (double)v;
	const char *unit;

	if (!report_visible(t->o, c, d))
		return;
	if (t->o->unify_units) {
		report_put_u64(t, pref, name, "bytes", v);
		return;
	}
	if (report_size_1024(t, pref, name, v))
		return;
	if (v < 1000) {
		report_put_u64(t, pref, name, "bytes", v);
		return;
	}
	unit = report_unit(t->o, RQ_SIZE, &d);
	report_put_val(t, pref, name, unit, d);
}

/* A string of at most max bytes, not necessarily NUL-terminated. */
static void report_str(struct report_table *t, enum report_class c,
		       const char *pref, const char *name, const char *s,
		       size_t max)
{
	size_t n = strnlen(s, max);
	struct report_entry *e;

	if (!report_visible(t->o, c, n > 0 ? 1 : 0))
		return;
	e = report_add(t, pref, name, NULL);
	if (!e)
		return;
	if (n >= sizeof(e->data))
		n = sizeof(e->data) - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		e->data[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	e->data[n] = '\0';
}

/* ---------------------------------------------------------------------- */
/* report_test                                                             */
/* ---------------------------------------------------------------------- */

static void report_par_val(struct report_table *t, enum report_par_kind k,
			   const char *pref, const char *name, uint64_t v)
{
	if (k == RPK_SIZE)
		report_size(t, RC_U, pref, name, v);
	else if (k == RPK_TIME)
		report_time(t, RC_U, pref, name, (double)v); /* ns */
	else
		report_count(t, RC_U, pref, name, v);
}

/* The parameters in use (spec §5.8). */
static void report_used(struct report_table *t, const struct par_set *p)
{
	if (!p || t->o->v_used < 1)
		return;
	for (size_t i = 0; i < p->nrows; i++) {
		const struct par_row *row = &p->rows[i];
		int id = row->par;
		const char *name = row->name;
		enum report_par_kind k = row->kind;

		if (row->unlisted || !p->used[id])
			continue;
		/* Beyond 0.4.11 (streams): one stream keeps 0.4.11's list,
		 * even with -vv. */
		if (row->list_above_one && p->val[SIDE_LOC][id] < 2)
			continue;
		if (t->o->v_used < 2 && !p->set[SIDE_LOC][id] &&
		    !p->set[SIDE_REM][id])
			continue;
		if (k == RPK_STR) {
			int s = par_str_index(id);
			const char *lv = p->str[SIDE_LOC][s];
			const char *rv = p->str[SIDE_REM][s];

			if (strncmp(lv, rv, PAR_STR_MAX) == 0) {
				report_str(t, RC_U, "", name, lv, PAR_STR_MAX);
			} else {
				report_str(t, RC_U, "loc_", name, lv,
					   PAR_STR_MAX);
				report_str(t, RC_U, "rem_", name, rv,
					   PAR_STR_MAX);
			}
			continue;
		}
		if (p->val[SIDE_LOC][id] == p->val[SIDE_REM][id]) {
			report_par_val(t, k, "", name, p->val[SIDE_LOC][id]);
		} else {
			report_par_val(t, k, "loc_", name,
				       p->val[SIDE_LOC][id]);
			report_par_val(t, k, "rem_", name,
				       p->val[SIDE_REM][id]);
		}
	}
}

/* The names of one node's group in the per-node block. */
struct report_node_names {
	const char *cpus_used, *cpus_user, *cpus_intr, *cpus_kernel,
		*cpus_iowait, *real_time, *cpu_time;
};

static const struct report_node_names REPORT_NAMES_SEND = {
	"send_cpus_used", "send_cpus_user", "send_cpus_intr",
	"send_cpus_kernel", "send_cpus_iowait", "send_real_time",
	"send_cpu_time"
};
static const struct report_node_names REPORT_NAMES_RECV = {
	"recv_cpus_used", "recv_cpus_user", "recv_cpus_intr",
	"recv_cpus_kernel", "recv_cpus_iowait", "recv_real_time",
	"recv_cpu_time"
};
static const struct report_node_names REPORT_NAMES_LOC = {
	"loc_cpus_used", "loc_cpus_user", "loc_cpus_intr",
	"loc_cpus_kernel", "loc_cpus_iowait", "loc_real_time",
	"loc_cpu_time"
};
static const struct report_node_names REPORT_NAMES_REM = {
	"rem_cpus_used", "rem_cpus_user", "rem_cpus_intr",
	"rem_cpus_kernel", "rem_cpus_iowait", "rem_real_time",
	"rem_cpu_time"
};

static void report_node_cpu(struct report_table *t,
			    const struct report_node_names *nm,
			    const struct node_res *n)
{
	report_cpus(t, RC_T, nm->cpus_used, n->cpu_total);
	report_cpus(t, RC_T2, nm->cpus_user, n->cpu_user);
	report_cpus(t, RC_T2, nm->cpus_intr, n->cpu_intr);
	report_cpus(t, RC_T2, nm->cpus_kernel, n->cpu_kernel);
	report_cpus(t, RC_T2, nm->cpus_iowait, n->cpu_iowait);
	report_time(t, RC_T2, "", nm->real_time, n->real_time * 1e9);
	report_time(t, RC_T2, "", nm->cpu_time, n->cpu_time * 1e9);
}

/* One side of srmode: the sender with its s counters, or the receiver. */
static void report_sr_node(struct report_table *t, bool send,
			   const struct node_res *n, const struct node_stat *st)
{
	const struct ustat *u = send ? &st->s : &st->r;

	report_node_cpu(t, send ? &REPORT_NAMES_SEND : &REPORT_NAMES_RECV, n);
	report_count(t, RC_S2, "", send ? "send_errors" : "recv_errors",
		     u->errs);
	report_size(t, RC_S2, "", send ? "send_bytes" : "recv_bytes",
		    u->bytes);
	report_count(t, RC_S2, "", send ? "send_msgs" : "recv_msgs",
		     u->msgs);
	report_count(t, RC_S2, "", send ? "send_max_cqe" : "recv_max_cqe",
		     st->max_cqes);
}

static void report_lr_node(struct report_table *t, bool loc,
			   const struct node_res *n, const struct node_stat *st)
{
	report_node_cpu(t, loc ? &REPORT_NAMES_LOC : &REPORT_NAMES_REM, n);
	report_count(t, RC_S2, "",
		     loc ? "loc_send_errors" : "rem_send_errors", st->s.errs);
	report_count(t, RC_S2, "",
		     loc ? "loc_recv_errors" : "rem_recv_errors", st->r.errs);
	report_size(t, RC_S2, "", loc ? "loc_send_bytes" : "rem_send_bytes",
		    st->s.bytes);
	report_size(t, RC_S2, "", loc ? "loc_recv_bytes" : "rem_recv_bytes",
		    st->r.bytes);
	report_count(t, RC_S2, "", loc ? "loc_send_msgs" : "rem_send_msgs",
		     st->s.msgs);
	report_count(t, RC_S2, "", loc ? "loc_recv_msgs" : "rem_recv_msgs",
		     st->r.msgs);
	report_count(t, RC_S2, "", loc ? "loc_max_cqe" : "rem_max_cqe",
		     st->max_cqes);
}

/* The per-node block (spec §5.6). */
static void report_rest(struct report_table *t, const struct results *res)
{
	const struct node_stat *L = &res->l, *R = &res->r;

	if (!t->o->unify_nodes) {
		if (L->s.bytes && !R->s.bytes && R->r.bytes && !L->r.bytes) {
			report_sr_node(t, true, &res->ln, L);
			report_sr_node(t, false, &res->rn, R);
			return;
		}
		if (R->s.bytes && !L->s.bytes && L->r.bytes && !R->r.bytes) {
			report_sr_node(t, true, &res->rn, R);
			report_sr_node(t, false, &res->ln, L);
			return;
		}
	}
	report_lr_node(t, true, &res->ln, L);
	report_lr_node(t, false, &res->rn, R);
}

/* Names of one node's -D block: [0] is the l_ form, [1] the r_ form. */
struct report_debug_names {
	const char *no_cpus, *no_ticks, *max_cqes;
	const char *timer[CPU_COUNT];
	const char *ustat[4][3]; /* s, r, rem_s, rem_r x bytes, msgs, errs */
};

static const struct report_debug_names REPORT_DEBUG[2] = {
	{ "l_no_cpus",
	  "l_no_ticks",
	  "l_max_cqes",
	  { "l_timer_real", "l_timer_user", "l_timer_nice", "l_timer_system",
	    "l_timer_idle", "l_timer_iowait", "l_timer_irq",
	    "l_timer_softirq", "l_timer_steal" },
	  { { "l_s_no_bytes", "l_s_no_msgs", "l_s_no_errs" },
	    { "l_r_no_bytes", "l_r_no_msgs", "l_r_no_errs" },
	    { "l_rem_s_no_bytes", "l_rem_s_no_msgs", "l_rem_s_no_errs" },
	    { "l_rem_r_no_bytes", "l_rem_r_no_msgs", "l_rem_r_no_errs" } } },
	{ "r_no_cpus",
	  "r_no_ticks",
	  "r_max_cqes",
	  { "r_timer_real", "r_timer_user", "r_timer_nice", "r_timer_system",
	    "r_timer_idle", "r_timer_iowait", "r_timer_irq",
	    "r_timer_softirq", "r_timer_steal" },
	  { { "r_s_no_bytes", "r_s_no_msgs", "r_s_no_errs" },
	    { "r_r_no_bytes", "r_r_no_msgs", "r_r_no_errs" },
	    { "r_rem_s_no_bytes", "r_rem_s_no_msgs", "r_rem_s_no_errs" },
	    { "r_rem_r_no_bytes", "r_rem_r_no_msgs", "r_rem_r_no_errs" } } },
};

static void report_debug_node(struct report_table *t,
			      const struct report_debug_names *nm,
			      const struct node_stat *st)
{
	const struct ustat *u[4] = { &st->s, &st->r, &st->rem_s, &st->rem_r };

	report_count(t, RC_D, "", nm->no_cpus, st->no_cpus);
	report_count(t, RC_D, "", nm->no_ticks, st->no_ticks);
	report_count(t, RC_D, "", nm->max_cqes, st->max_cqes);
	if (st->no_ticks) {
		double ns_per_tick = 1e9 / st->no_ticks;

		report_time(t, RC_D, "", nm->timer[CPU_REAL],
			    (double)report_delta(st->real_s, st->real_e));
		for (int i = CPU_USER; i < CPU_COUNT; i++)
			report_time(t, RC_D, "", nm->timer[i],
				    report_cpu_delta(st, (enum cpu_field)i) *
					    ns_per_tick);
	}
	for (int i = 0; i < 4; i++) {
		report_size(t, RC_D, "", nm->ustat[i][0], u[i]->bytes);
		report_count(t, RC_D, "", nm->ustat[i][1], u[i]->msgs);
		report_count(t, RC_D, "", nm->ustat[i][2], u[i]->errs);
	}
}

/*
 * Tests without a measure (conf, quit) have no result table; for them this
 * prints nothing.
 */
void report_test(FILE *f, const struct test_desc *t,
		 const struct results *res, const struct par_set *p,
		 const struct out_opts *o)
{
	report_test_notes(f, t, res, p, o, NULL, 0);
}

void report_test_notes(FILE *f, const struct test_desc *t,
		       const struct results *res, const struct par_set *p,
		       const struct out_opts *o, const struct report_note *notes,
		       int nnotes)
{
	struct report_table table = { .o = o, .n = 0 };
	struct report_table *tab = &table;
	enum measure m = t ? t->measure : MEAS_NONE;

	if (!f || !res || !o || m == MEAS_NONE)
		return;

	switch (m) {
	case MEAS_LATENCY:
		report_time(tab, RC_A, "", "latency", res->latency * 1e9);
		report_msg_rate(tab, RC_S, "msg_rate", res->msg_rate);
		break;
	case MEAS_MSG_RATE:
		report_msg_rate(tab, RC_A, "msg_rate", res->msg_rate);
		break;
	case MEAS_BANDWIDTH:
		report_band(tab, RC_A, "bw", res->recv_bw);
		report_msg_rate(tab, RC_S, "msg_rate", res->msg_rate);
		break;
	case MEAS_BANDWIDTH_SR:
		report_band(tab, RC_A, "send_bw", res->send_bw);
		report_band(tab, RC_A, "recv_bw", res->recv_bw);
		report_msg_rate(tab, RC_S, "msg_rate", res->msg_rate);
		break;
	case MEAS_REGMR:
		report_regmr(tab, res);
		break;
	case MEAS_CONN:
		report_conn(tab, res);
		break;
	case MEAS_NONE:
		break;
	}
	report_used(tab, p);
	for (int i = 0; i < nnotes; i++) {
		/* -vx notes (NUMA placement) are beyond 0.4.11's -v. */
		report_str(tab, notes[i].extra ? RC_X : RC_U, "",
			   notes[i].name, notes[i].value,
			   strlen(notes[i].value) + 1);
	}
	report_cost(tab, RC_T, "send_cost", res->send_cost);
	report_cost(tab, RC_T, "recv_cost", res->recv_cost);
	report_rest(tab, res);
	report_pace(tab, res);
	if (o->debug) {
		report_debug_node(tab, &REPORT_DEBUG[0], &res->l);
		report_debug_node(tab, &REPORT_DEBUG[1], &res->r);
	}
	report_extra(tab, res);
	report_print(f, tab);
}

/* ---------------------------------------------------------------------- */
/* report_conf                                                             */
/* ---------------------------------------------------------------------- */

void report_conf(FILE *f, const struct conf_info *loc,
		 const struct conf_info *rem)
{
	report_conf_more(f, loc, rem, NULL, 0, NULL, 0);
}

void report_conf_more(FILE *f, const struct conf_info *loc,
		      const struct conf_info *rem,
		      const struct report_note *lmore, int nl,
		      const struct report_note *rmore, int nr)
{
	const struct report_note *more[2] = { lmore, rmore };
	int nmore[2] = { nl, nr };
	static const struct out_opts plain = { .precision = 3 };
	struct report_table table = { .o = &plain, .n = 0 };
	const struct conf_info *side[2] = { loc, rem };
	static const char *const names[2][4] = {
		{ "loc_node", "loc_cpu", "loc_os", "loc_qperf" },
		{ "rem_node", "rem_cpu", "rem_os", "rem_qperf" },
	};

	if (!f)
		return;
	for (int i = 0; i < 2; i++) {
		const struct conf_info *c = side[i];

		if (!c)
			continue;
		report_str(&table, RC_A, "", names[i][0], c->node,
			   sizeof(c->node));
		report_str(&table, RC_A, "", names[i][1], c->cpu,
			   sizeof(c->cpu));
		report_str(&table, RC_A, "", names[i][2], c->os,
			   sizeof(c->os));
		report_str(&table, RC_A, "", names[i][3], c->qperf,
			   sizeof(c->qperf));
		for (int k = 0; k < nmore[i]; k++)
			report_str(&table, RC_A, "", more[i][k].name,
				   more[i][k].value,
				   strlen(more[i][k].value) + 1);
	}
	report_print(f, &table);
}
