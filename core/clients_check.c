// SPDX-License-Identifier: GPL-2.0-only
/*
 * --clients K: what the plan may combine it with, checked while the
 * command line is parsed (core/opts.c), before any client is started.
 * Pure over the plan; the clients themselves are core/clients.c.
 */
#include <stdbool.h>
#include <stddef.h>

#include "transports/transport.h"
#include "engine.h"
#include "param.h"
#include "lib/err.h"

int clients_check(const struct plan *p, char *err, size_t errlen)
{
	static const char *const hdr = "--clients";

	if (!p->clients)
		return 0;
	if (p->mode == RUN_CLUSTER)
		return seterr(err, errlen,
			      "%s: not with --cluster (cluster mode has its own patterns)",
			      hdr);
	if (p->plot_file)
		return seterr(err, errlen, "%s: not with --plot", hdr);
	if (p->checks.nexpect || p->checks.baseline)
		return seterr(err, errlen,
			      "%s: not with %s (a check needs one figure per test)",
			      hdr, p->checks.nexpect ? "--expect" : "--baseline");
	for (size_t i = 0; i < p->ntests; i++) {
		const struct plan_item *it = &p->tests[i];
		const struct settings *s = &it->s;

		if (it->test->kind != TK_DATA)
			return seterr(err, errlen,
				      "%s: %s is not a data test; give only data tests (tcp_bw, tcp_lat, ...)",
				      hdr, it->test->name);
		/* Its figures are a rate and step percentiles, which the
		 * clients' table (one bandwidth or latency each) lacks. */
		if (it->test->measure == MEAS_CONN)
			return seterr(err, errlen,
				      "%s: not with %s (the clients' table has no connection rates yet)",
				      hdr, it->test->name);
		if (s->nloops)
			return seterr(err, errlen,
				      "%s: not with --loop", hdr);
		if (s->par.val[SIDE_LOC][PAR_STREAMS] > 1 ||
		    s->par.val[SIDE_REM][PAR_STREAMS] > 1)
			return seterr(err, errlen,
				      "%s: not with --streams (each of the K clients runs one stream)",
				      hdr);
		if (s->interval)
			return seterr(err, errlen, "%s: not with %s", hdr,
				      s->interval_opt ? s->interval_opt : "-I");
		if (param_forever(it->test, &s->par))
			return seterr(err, errlen,
				      "%s: not with -t 0 (each client's run must end by itself)",
				      hdr);
	}
	return 0;
}
