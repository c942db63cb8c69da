// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text report of a --clients test (docs/clients.md): each client's
 * figure, then the aggregate (the sum of a bandwidth or message rate; the
 * mean and the largest of a latency), Jain's fairness index, the slowest
 * client against the fair share and how far apart the clients' windows
 * began.  A failed client's line says so; its error goes to stderr.
 */
#include <stdlib.h>

#include "transports/transport.h"
#include "lib/fair.h"
#include "report.h"
#include "report_tab.h"
#include "sink.h"
#include "lib/err.h"
#include "lib/alloc.h"

#define CNAME_MAX 32

/* The figure's name and quantity for test t. */
static const char *fig_name(const struct test_desc *t, enum report_qty *q)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		*q = RQ_TIME;
		return "latency";
	case MEAS_MSG_RATE:
		*q = RQ_RATE;
		return "msg_rate";
	case MEAS_BANDWIDTH_SR:
		*q = RQ_BAND;
		return "recv_bw";
	default:
		*q = RQ_BAND;
		return "bw";
	}
}

/* One figure v (s for a time, else as report_unit() takes it). */
static void put_fig(struct report_table *tab, const char *name,
		    enum report_qty q, double v)
{
	const char *unit;

	if (q == RQ_TIME)
		v *= 1e9;
	unit = report_unit(tab->o, q, &v);
	report_put_val(tab, "", name, unit, v);
}

void report_clients(FILE *f, const struct test_desc *t,
		    const struct out_opts *o, const struct out_clients *c)
{
	char (*names)[CNAME_MAX] = xcalloc(CLIENTS_MAX + 4, CNAME_MAX);
	struct report_table *tab = xcalloc(1, sizeof(*tab));
	const struct fair_sum *s = c->sum;
	struct report_entry *e;
	enum report_qty q;
	const char *fn = fig_name(t, &q);

	tab->o = o;
	for (uint32_t i = 0; i < c->n && i < CLIENTS_MAX; i++) {
		xsnprintf(names[i], CNAME_MAX, "client%u_%s", i + 1, fn);
		if (c->c[i].ok) {
			put_fig(tab, names[i], q, c->c[i].fig);
			continue;
		}
		e = report_add(tab, "", names[i], NULL);
		if (e)
			xsnprintf(e->data, sizeof(e->data), "failed");
	}
	if (s) {
		xsnprintf(names[CLIENTS_MAX], CNAME_MAX, "%s_%s",
			  s->lower_better ? "mean" : "aggregate", fn);
		put_fig(tab, names[CLIENTS_MAX], q, s->aggregate);
		if (s->lower_better) {
			xsnprintf(names[CLIENTS_MAX + 1], CNAME_MAX, "max_%s",
				  fn);
			put_fig(tab, names[CLIENTS_MAX + 1], q, s->max);
		}
		e = report_add(tab, "", "fairness", NULL);
		if (e)
			xsnprintf(e->data, sizeof(e->data), "%.3f (Jain's index)",
				  s->jain);
		e = report_add(tab, "", "slowest", NULL);
		if (e)
			xsnprintf(e->data, sizeof(e->data),
				  "client%zu at %.3f of the %s", s->slowest + 1,
				  s->ratio,
				  s->lower_better ? "mean" : "fair share");
		report_time(tab, RC_A, "", "start_spread", (double)c->spread);
	}
	report_print(f, tab);
	free(tab);
	free(names);
}
