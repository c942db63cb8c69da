// SPDX-License-Identifier: GPL-2.0-only
/*
 * A connection-setup test in the text report (tcp_conn, rc_conn,
 * rc_qp_setup; docs/conn.md): the rate of transactions, their count and
 * mean time, then the percentiles of each step the transport names
 * (connect_p50, ...) and of the whole transaction (txn_p50, ...).  -vx
 * adds each one's min, mean and p99.9.  A storm (--qps N) says storms
 * and QPs instead: storm_rate, qp_rate, storm_time, storms, qps; each
 * step's percentiles are over the QPs' times in it, <step>_storm its
 * mean time over the whole storm (they add up to storm_time), and
 * storm_p50 ... the storms'.
 */
#include "report.h"
#include "report_tab.h"

static const char *const SFX[7] = DIST_SUFFIXES;
static const char *const TXN[7] = DIST_NAMES("txn");
static const char *const STORM[7] = DIST_NAMES("storm");

void report_conn(struct report_table *t, const struct results *res)
{
	const struct conn_res *c = res->conn;
	bool storm;
	double v;
	const char *unit;

	if (!c)
		return;
	storm = c->qps > 1;
	v = c->rate;
	unit = report_unit(t->o, RQ_RATE, &v);
	report_put_val(t, "", storm ? "storm_rate" : "conn_rate", unit, v);
	if (storm) {
		v = c->qp_rate;
		unit = report_unit(t->o, RQ_RATE, &v);
		report_put_val(t, "", "qp_rate", unit, v);
	}
	report_time(t, RC_A, "", storm ? "storm_time" : "txn_latency",
		    c->txn.mean * 1e9);
	report_count(t, RC_A, "", storm ? "storms" : "transactions", c->txns);
	if (storm)
		report_count(t, RC_A, "", "qps", c->qps);
	for (int i = 0; i < c->steps->n; i++)
		report_dist(t, c->steps->name[i], SFX, &c->step[i]);
	for (int i = 0; storm && i < c->steps->n; i++)
		report_time(t, RC_A, c->steps->name[i], "_storm",
			    c->step_storm[i] * 1e9);
	report_dist(t, "", storm ? STORM : TXN, &c->txn);
}
