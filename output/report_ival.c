// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text of interval reports (-I): ival_format() in report.h, one line
 * per direction a side shows, figures as the report scales them.
 */
#include <stdio.h>

#include "transports/transport.h"
#include "report.h"
#include "lib/err.h"

/* Which of a side's counters its lines show. */
static void ival_dirs(const struct test_desc *t, bool server, bool *send,
		      bool *recv)
{
	*send = t->loop == LOOP_BI_BW ||
		(t->loop == LOOP_STREAM_BW && !server);
	*recv = t->loop == LOOP_BI_BW || t->loop == LOOP_ONESIDED ||
		(t->loop == LOOP_STREAM_BW && server);
}

static size_t ival_line(char *buf, size_t len, const struct out_opts *o,
			const struct ival_rec *r, const char *dir,
			const struct ustat *u)
{
	double secs = (double)(r->end - r->start) / 1e9;
	double v[3] = { (double)u->bytes, 0, 0 };
	enum report_qty q[3] = { RQ_SIZE, RQ_BAND, RQ_RATE };
	char num[3][64], msgs[40], when[48];
	const char *unit[3];

	if (secs > 0) {
		v[1] = (double)u->bytes / secs;
		v[2] = (double)u->msgs / secs;
	}
	for (int i = 0; i < 3; i++) {
		unit[i] = report_unit(o, q[i], &v[i]);
		fmt_number(num[i], sizeof(num[i]), v[i], o->precision,
			   !o->unify_units);
	}
	fmt_number(msgs, sizeof(msgs), (double)u->msgs, 0, !o->unify_units);
	xsnprintf(when, sizeof(when), "%.2f-%.2f", (double)r->start / 1e9,
		  (double)r->end / 1e9);
	return xsnprintf(buf, len,
			 "    %-11s sec  %s %s  %6s %-5s  %7s msgs  %6s %-9s %6s %s\n",
			 when, r->peer ? "rem" : "loc", dir, num[0], unit[0], msgs,
			 num[1], unit[1],
			 num[2], unit[2]);
}

size_t ival_format(char *buf, size_t len, const struct test_desc *t,
		   const struct out_opts *o, const struct ival_rec *r)
{
	bool send, recv;
	size_t n = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	ival_dirs(t, r->peer, &send, &recv);
	if (send)
		n += ival_line(buf + n, len - n, o, r, "send", &r->s);
	if (recv && n < len)
		n += ival_line(buf + n, len - n, o, r, "recv", &r->r);
	return n;
}

