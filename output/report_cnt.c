// SPDX-License-Identifier: GPL-2.0-only
/*
 * The -vx lines of the loss and error counters of both ends (issue 18
 * item 5): after every other line, "loc_counters = tcp (socket)" naming
 * what was read and what it counts, then one line per value
 * ("loc_tcp_retrans = 0", "rem_port_rcv_errors = 3"), the sum of every
 * stream with --streams.  A server that does not send its counters:
 * "rem_counters = none: the server does not send them".  Without -vx
 * nothing here is shown.
 */
#include <stdio.h>
#include <string.h>

#include "lib/counters.h"
#include "report.h"
#include "report_tab.h"

static const char *scope_text(const struct cnt_set *c)
{
	const char *s = cnt_scope(c);

	if (strcmp(s, "port") == 0)
		return "port: all traffic of the port, not only this test's";
	if (strcmp(s, "socket+host") == 0)
		return "socket; udp_rcvbuf_errors and udp_csum_errors: the whole host";
	return "socket: this test's";
}

static void put_str(struct report_table *t, const char *pref,
		    const char *name, const char *fmt, const char *a,
		    const char *b)
{
	struct report_entry *e = report_add(t, pref, name, NULL);

	if (e)
		snprintf(e->data, sizeof(e->data), fmt, a, b);
}

static void cnt_end_lines(struct report_table *t, const char *pref,
			  const struct cnt_end *e, const char *missing)
{
	if (!e->valid) {
		if (missing)
			put_str(t, pref, "counters", "none: %s%s", missing, "");
		return;
	}
	put_str(t, pref, "counters", "%s (%s)", e->sum.src,
		scope_text(&e->sum));
	for (uint32_t i = 0; i < e->sum.n && i < CNT_MAX; i++) {
		const char *name = e->sum.v[i].name;
		size_t n = strlen(name);
		double v = (double)e->sum.v[i].v;

		bool rate = n > 5 && strcmp(name + n - 5, "_rate") == 0;
		bool bytes = n > 6 && strcmp(name + n - 6, "_bytes") == 0;

		if (rate || bytes) {
			/* bytes per second (tcp_delivery_rate) as bw is,
			 * bytes (port_xmit_bytes) as a size */
			const char *unit = report_unit(t->o, rate ? RQ_BAND : RQ_SIZE, &v);

			report_put_val(t, pref, name, unit, v);
		} else {
			report_count(t, RC_X, pref, name, e->sum.v[i].v);
		}
	}
}

void report_cnt(struct report_table *t, const struct cnt_both *b)
{
	if (!b || t->o->v_extra < 1)
		return;
	cnt_end_lines(t, "loc_", &b->loc, NULL);
	cnt_end_lines(t, "rem_", &b->rem, b->rem_missing);
}
