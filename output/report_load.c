// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text lines of a latency test run beside a --load (docs/load.md),
 * after the test's own lines (which keep 0.4.11's layout): each load's
 * test and bandwidth (what arrived), then the latency percentiles of
 * the idle run and of the run under load, side by side by name.
 */
#include <stdlib.h>

#include "report.h"
#include "report_tab.h"
#include "sink.h"
#include "lib/alloc.h"
#include "lib/err.h"

/* Names by direction (out, in, both): the table keeps pointers. */
static const char *const NAME_TEST[] = { "load_out", "load_in", "load_both" };
static const char *const NAME_BW[] = { "load_out_bw", "load_in_bw",
				       "load_both_bw" };

static int dir_index(const char *dir)
{
	return dir[0] == 'o' ? 0 : dir[0] == 'i' ? 1 : 2;
}

void report_load(FILE *f, const struct out_opts *o,
		 const struct results *res, const struct out_load *l)
{
	struct report_table *tab = xcalloc(1, sizeof(*tab));

	tab->o = o;
	for (uint32_t i = 0; i < l->n; i++) {
		const struct load_fig *g = &l->f[i];
		int d = dir_index(g->dir);
		struct report_entry *e = report_add(tab, "", NAME_TEST[d], NULL);
		double v = g->r.recv_bw;
		const char *unit;

		if (e)
			xsnprintf(e->data, sizeof(e->data), "%s%s", g->test,
				  g->rate > 0 ? " (paced)" : "");
		unit = report_unit(o, RQ_BAND, &v);
		report_put_val(tab, "", NAME_BW[d], unit, v);
	}
	if (l->idle) {
		report_time(tab, RC_A, "", "idle_latency", l->idle_latency * 1e9);
		report_time(tab, RC_A, "", "idle_latency_p50", l->idle->p50 * 1e9);
		report_time(tab, RC_A, "", "idle_latency_p99", l->idle->p99 * 1e9);
	}
	report_time(tab, RC_A, "", "loaded_latency_p50", res->lat.p50 * 1e9);
	report_time(tab, RC_A, "", "loaded_latency_p99", res->lat.p99 * 1e9);
	report_print(f, tab);
	free(tab);
}
