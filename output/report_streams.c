// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-stream figures of a --streams test: each stream's counters over
 * the test's common window, computed by the same rules as the whole test
 * (so the streams add up to the sum, which 0.4.11's fields show), and
 * their -v lines.  These lines follow the test's table as a table of
 * their own, so a test of one stream keeps 0.4.11's layout exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "report.h"
#include "report_tab.h"
#include "lib/err.h"
#include "lib/alloc.h"

#define STREAM_NAME_MAX 32

/* st with the counters of one stream (its window and CPU stay st's). */
static void with_counters(struct node_stat *out, const struct node_stat *st,
			  const struct node_stat *cnt)
{
	*out = *st;
	out->s = cnt->s;
	out->r = cnt->r;
	out->rem_s = cnt->rem_s;
	out->rem_r = cnt->rem_r;
}

void calc_stream_results(const struct node_stat *l, const struct node_stat *r,
			 const struct node_stat *ls, const struct node_stat *rs,
			 struct results *res)
{
	struct node_stat a, b;

	with_counters(&a, l, ls);
	with_counters(&b, r, rs);
	calc_results(&a, &b, res);
}

/* One figure of stream i, named "stream<i+1>_<what>". */
static void stream_val(struct report_table *t, char *name, uint32_t i,
		       const char *what, enum report_qty q, double v)
{
	const char *unit;

	xsnprintf(name, STREAM_NAME_MAX, "stream%u_%s", i + 1, what);
	unit = report_unit(t->o, q, &v);
	report_put_val(t, "", name, unit, v);
}

void report_streams(FILE *f, const struct test_desc *t,
		    const struct results *res, uint32_t n,
		    const struct out_opts *o)
{
	char names[STREAMS_MAX][3][STREAM_NAME_MAX];
	struct report_table *tab;
	bool sr = t->measure == MEAS_BANDWIDTH_SR;

	if (!f || n < 2 || o->v_stat < 1)
		return;
	tab = xcalloc(1, sizeof(*tab));
	tab->o = o;
	for (uint32_t i = 0; i < n && i < STREAMS_MAX; i++) {
		stream_val(tab, names[i][0], i, sr ? "send_bw" : "bw", RQ_BAND,
			   sr ? res[i].send_bw : res[i].recv_bw);
		if (sr)
			stream_val(tab, names[i][1], i, "recv_bw", RQ_BAND,
				   res[i].recv_bw);
		stream_val(tab, names[i][2], i, "msg_rate", RQ_RATE,
			   res[i].msg_rate);
	}
	report_print(f, tab);
	free(tab);
}
