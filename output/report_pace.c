// SPDX-License-Identifier: GPL-2.0-only
/*
 * --rate in the results: the offered and the achieved rate of a paced
 * test (per direction), the shortfall beyond the margin, and with -vx the
 * spread of the rate the senders achieved over 100 ms slices.  The lines
 * follow 0.4.11's and appear only for a paced test.  An open-loop latency
 * test (--rate on a latency test) adds its arrivals and its counts of
 * late, lost and out-of-order requests.
 */
#include <stdio.h>
#include <string.h>

#include "transports/transport.h"
#include "lib/err.h"
#include "lib/olsched.h"
#include "lib/pace.h"
#include "report.h"
#include "report_tab.h"

void calc_pace(struct results *res, const struct test_desc *t, bool msgs,
	       uint64_t offered, bool kernel, const struct pace *own)
{
	struct pace_res *p = &res->pace;
	bool lossy = t->tp && (t->tp->flags & TF_LOSSY);
	double dirs = t->loop == LOOP_BI_BW ? 2 : 1;
	double sent_msgs = 0;

	memset(p, 0, sizeof(*p));
	if (!offered)
		return;
	p->valid = true;
	p->msgs = msgs;
	p->kernel = kernel;
	p->offered = (double)offered;
	/* A reliable transport: what arrived; a lossy one: what was sent
	 * (the pacing), the loss being the receive figures' business. */
	if (res->ln.real_time > 0)
		sent_msgs += (double)res->l.s.msgs / res->ln.real_time;
	if (res->rn.real_time > 0)
		sent_msgs += (double)res->r.s.msgs / res->rn.real_time;
	if (msgs)
		p->achieved = lossy ? sent_msgs : res->msg_rate;
	else
		p->achieved = lossy ? res->send_bw : res->recv_bw;
	p->achieved /= dirs;
	if (p->achieved < p->offered * (1 - PACE_MARGIN))
		p->shortfall = 1 - p->achieved / p->offered;
	if (own)
		p->spread_valid = pace_spread(own, &p->spread, &p->slices);
}

void calc_openloop(struct results *res, const struct ol_stat *ol,
		   uint32_t msg_size)
{
	struct pace_res *p = &res->pace;
	double t = res->ln.real_time;

	res->ol = *ol;
	if (!ol->arrivals)
		return;
	/* 0.4.11's latency (the window over the messages) means nothing
	 * with several requests in flight: the mean of the timed ones. */
	res->latency = res->lat.count ? res->lat.mean : 0;
	if (!p->valid || t <= 0)
		return;
	/* Achieved: the requests the client sent in its window (its
	 * schedule; an RDMA read's too, which counts as the server's send). */
	p->achieved = (double)ol->sent * (p->msgs ? 1 : msg_size) / t;
	p->shortfall = p->achieved < p->offered * (1 - PACE_MARGIN)
			       ? 1 - p->achieved / p->offered
			       : 0;
}

/* A rate as the warning says it: 200 Mb/s, 20 k msgs/s. */
static void rate_text(char *buf, size_t len, bool msgs, double v)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P" };
	int i = 0;

	if (!msgs)
		v *= 8;
	while (v >= 1000 && i < 5) {
		v /= 1000;
		i++;
	}
	xsnprintf(buf, len, "%.4g %s%s", v, pre[i], msgs ? "msgs/s" : "b/s");
}

int pace_shortfall_text(const struct pace_res *p, const char *test,
			char *buf, size_t len)
{
	char o[32], a[32];

	if (!p->valid || p->shortfall <= 0)
		return 0;
	rate_text(o, sizeof(o), p->msgs, p->offered);
	rate_text(a, sizeof(a), p->msgs, p->achieved);
	xsnprintf(buf, len,
		  "%s: the rate of %s could not be held: %s achieved, %.1f%% short%s",
		  test, o, a, p->shortfall * 100,
		  p->kernel ? " (paced by the kernel)" : "");
	return 1;
}

static void pace_line(struct report_table *t, const char *name, bool msgs,
		      double v)
{
	const char *unit = report_unit(t->o, msgs ? RQ_RATE : RQ_BAND, &v);

	report_put_val(t, "", name, unit, v);
}

void report_pace(struct report_table *t, const struct results *res)
{
	const struct pace_res *p = &res->pace;
	struct report_entry *e;

	if (!p->valid)
		return;
	pace_line(t, "offered_rate", p->msgs, p->offered);
	pace_line(t, "achieved_rate", p->msgs, p->achieved);
	if (t->o->v_used >= 1 && (e = report_add(t, "", "pacing", NULL)))
		xsnprintf(e->data, sizeof(e->data), "%s",
			  p->kernel		? "kernel (SO_MAX_PACING_RATE)"
			  : res->ol.arrivals	? "open-loop schedule"
						: "token bucket");
	if (res->ol.arrivals) {
		const struct ol_stat *ol = &res->ol;

		if ((e = report_add(t, "", "arrivals", NULL)))
			xsnprintf(e->data, sizeof(e->data), "%s",
				  ol_arrivals_name(ol->arrivals));
		report_count(t, RC_A, "", "requests", ol->sent);
		report_count(t, RC_A, "", "late_sends", ol->late);
		report_count(t, RC_A, "", "lost", ol->lost);
		report_count(t, RC_A, "", "out_of_order", ol->out_of_order);
		return; /* no token bucket: the schedule is the figure */
	}
	if (t->o->v_extra < 1 || !p->spread_valid)
		return;
	report_put_val(t, "", "rate_spread", "%", p->spread * 100);
	report_count(t, RC_X, "", "rate_slices", p->slices);
}
