// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_conn in the text report (docs/conn.md): the rate of transactions,
 * their count and mean time, then the percentiles of each step (connect,
 * answer, close) and of the whole transaction.  -vx adds each one's min,
 * mean and p99.9.
 */
#include "transports/transport.h"
#include "report.h"
#include "report_tab.h"

static const char *const STEP[CONN_STEPS][7] = {
	DIST_NAMES("connect"), DIST_NAMES("answer"), DIST_NAMES("close")
};
static const char *const TXN[7] = DIST_NAMES("txn");

void report_conn(struct report_table *t, const struct results *res)
{
	const struct conn_res *c = res->conn;
	double v;
	const char *unit;

	if (!c)
		return;
	v = c->rate;
	unit = report_unit(t->o, RQ_RATE, &v);
	report_put_val(t, "", "conn_rate", unit, v);
	report_time(t, RC_A, "", "txn_latency", c->txn.mean * 1e9);
	report_count(t, RC_A, "", "transactions", c->txns);
	for (int i = 0; i < CONN_STEPS; i++)
		report_dist(t, STEP[i], &c->step[i]);
	report_dist(t, TXN, &c->txn);
}
