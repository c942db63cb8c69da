// SPDX-License-Identifier: GPL-2.0-only
/*
 * A connection-setup test in the text report (tcp_conn, rc_conn,
 * rc_qp_setup; docs/conn.md): the rate of transactions, their count and
 * mean time, then the percentiles of each step the transport names
 * (connect_p50, ...) and of the whole transaction (txn_p50, ...).  -vx
 * adds each one's min, mean and p99.9.
 */
#include "report.h"
#include "report_tab.h"

static const char *const SFX[7] = DIST_SUFFIXES;
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
	for (int i = 0; i < c->steps->n; i++)
		report_dist(t, c->steps->name[i], SFX, &c->step[i]);
	report_dist(t, "", TXN, &c->txn);
}
