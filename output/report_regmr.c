// SPDX-License-Identifier: GPL-2.0-only
/*
 * reg_mr in the text report: the region size and how it was made, the
 * registration and deregistration latency percentiles, the rate of
 * registration (GB/s of regions), the prefetch advice's latency and the
 * On-Demand Paging first-touch writes.  -vx adds min, mean, p99.9 and max.
 */
#include <stdio.h>

#include "transports/transport.h"
#include "lib/err.h"
#include "report.h"
#include "report_tab.h"

static const char *const REG[7] = DIST_NAMES("reg");
static const char *const DEREG[7] = DIST_NAMES("dereg");
static const char *const ADVISE[7] = DIST_NAMES("advise");

void report_regmr(struct report_table *t, const struct results *res)
{
	static const char *const odp[] = REGMR_ODP_NAMES;
	const struct regmr_res *r = res->regmr;
	struct report_entry *e;

	if (!r)
		return;
	report_count(t, RC_A, "", "regions", r->regions);
	if (r->threads > 1)
		report_count(t, RC_A, "", "threads", r->threads);
	if ((e = report_add(t, "", "pages", NULL)))
		xsnprintf(e->data, sizeof(e->data), "%s, %s",
			  r->hugepages ? "2 MiB huge" : "4 KiB",
			  r->prefault ? "prefaulted" : "cold");
	if (r->odp && (e = report_add(t, "", "odp", NULL)))
		xsnprintf(e->data, sizeof(e->data), "%s",
			  odp[r->odp <= REGMR_ODP_PREFETCH ? r->odp : 0]);
	report_dist(t, "", REG, &r->reg);
	report_dist(t, "", DEREG, &r->dereg);
	if (r->reg_bw > 0) {
		double v = r->reg_bw;
		const char *unit = report_unit(t->o, RQ_BAND, &v);

		report_put_val(t, "", "reg_bw", unit, v);
	}
	if (r->odp == REGMR_ODP_PREFETCH)
		report_dist(t, "", ADVISE, &r->advise);
	if (r->touch_valid) {
		report_time(t, RC_A, "", "first_touch_cold",
			    r->touch_cold * 1e9);
		report_time(t, RC_A, "", "first_touch_warm",
			    r->touch_warm * 1e9);
	}
}
