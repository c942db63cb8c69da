// SPDX-License-Identifier: GPL-2.0-only
/*
 * --qps in the text report, with -vx (docs/qps.md): how many QPs, and on
 * each end how many CQs, the time to set its QPs up, the spread of the
 * messages its QPs counted (min, median, max per QP; a side that counted
 * nothing, as the server of RDMA read, has none) and the memory per QP:
 * what a device pins (the buffer's share and the queues' estimate) and
 * what the process grew by while its QPs were made.  --conns the same
 * for the data connections (conn_ lines; memory: their socket buffers).
 * The aggregate figures are the report's own, above.
 */
#include "report.h"
#include "report_tab.h"

static void qps_side(struct report_table *t, const char *pref,
		     const struct qp_side *q)
{
	static const char *const msgs[2][3] = {
		{ "qp_msgs_min", "qp_msgs_median", "qp_msgs_max" },
		{ "conn_msgs_min", "conn_msgs_median", "conn_msgs_max" }
	};
	uint64_t v[3] = { q->min, q->median, q->max };

	if (!q->valid)
		return;
	if (!q->conns)
		report_count(t, RC_X, pref, "qp_cqs",
			     q->cq_per_qp ? q->n : 1);
	report_time(t, RC_X, pref, q->conns ? "conn_setup" : "qp_setup",
		    (double)q->setup_ns);
	for (int i = 0; q->total && i < 3; i++)
		report_count(t, RC_X, pref, msgs[q->conns][i], v[i]);
	if (q->conns) { /* what the kernel grants their socket buffers */
		report_size(t, RC_X, pref, "conn_mem_sockbuf", q->queue_B);
		return;
	}
	report_size(t, RC_X, pref, "qp_mem_pinned", q->mr_B + q->queue_B);
	report_size(t, RC_X, pref, "qp_mem_process", q->proc_B);
}

void report_qps(struct report_table *t, const struct results *res)
{
	const struct qp_side *q = res->qps;

	if (!q) /* report_extra() shows this with -vx only */
		return;
	if (!report_visible(t->o, RC_U, 1)) /* else -vu's line says it */
		report_count(t, RC_X, "", q[0].conns ? "conns" : "qps",
			     q[0].n);
	report_count(t, RC_X, "", "threads", q[0].threads);
	qps_side(t, "loc_", &q[0]);
	qps_side(t, "rem_", &q[1]);
}
