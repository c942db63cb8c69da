// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture sink (sink.h, capture.h): cluster mode's pair results.
 */
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "capture.h"
#include "sink.h"
#include "lib/alloc.h"
#include "lib/err.h"

struct capture {
	struct pair_res *out;
	char *err;
	size_t errlen;
	const struct test_desc *t;
	uint64_t interval; /* ns: -I of the test, 0: none */
	struct ival_low low;
};

static void capture_test_start(void *self, const struct out_test *t)
{
	struct capture *c = self;

	c->t = t->t;
	c->interval = t->interval;
	if (t->interval)
		ival_low_init(&c->low, t->interval);
}

static int capture_interval(void *self, const struct ival_rec *r, char *err,
			    size_t errlen)
{
	struct capture *c = self;

	return ival_low_emit(&c->low, r, err, errlen);
}

static void capture_result(void *self, const struct out_result *r)
{
	struct capture *c = self;
	struct pair_res *o = c->out;

	o->send_bw = r->res->send_bw;
	o->recv_bw = r->res->recv_bw;
	o->msg_rate = r->res->msg_rate;
	o->latency = r->res->latency;
	o->lat = r->res->lat;
	o->ival_low = 0;
	o->ival_n = 0;
	o->ceil = r->res->ceil;
	o->window = r->res->ln.real_time > r->res->rn.real_time ?
			    r->res->ln.real_time :
			    r->res->rn.real_time;
	if (c->interval)
		o->ival_low = ival_low_result(&c->low, &o->ival_n);
}

/* The error, named by its test ("tcp_bw: ...") unless it is already. */
static void capture_error(void *self, const struct out_error *e)
{
	struct capture *c = self;
	size_t n = strlen(c->t->name);
	bool named = strncmp(e->message, c->t->name, n) == 0 &&
		     e->message[n] == ':';

	xsnprintf(c->err, c->errlen, "%s%s%s", named ? "" : c->t->name,
		  named ? "" : ": ", e->message);
}

static const struct sink_ops capture_ops = {
	.test_start = capture_test_start,
	.interval = capture_interval,
	.result = capture_result,
	.error = capture_error,
	.release = free,
};

void capture_sink(struct outputs *o, struct pair_res *out, char *err,
		  size_t errlen)
{
	struct capture *c = xcalloc(1, sizeof(*c));

	c->out = out;
	c->err = err;
	c->errlen = errlen;
	outputs_add(o, &capture_ops, c);
}

void ival_low_init(struct ival_low *l, uint64_t period)
{
	memset(l, 0, sizeof(*l));
	l->period = period;
	l->min[0] = l->min[1] = -1;
}

int ival_low_emit(void *arg, const struct ival_rec *r, char *err,
		  size_t errlen)
{
	struct ival_low *l = arg;
	int side = r->peer ? 1 : 0;
	uint64_t len = r->end > r->start ? r->end - r->start : 0;
	double rate;

	(void)err;
	(void)errlen;
	if (!len || (r->last && l->n[side] && 2 * len < l->period))
		return 0;
	rate = (double)r->r.bytes * 1e9 / (double)len;
	if (l->min[side] < 0 || rate < l->min[side])
		l->min[side] = rate;
	l->recv[side] += r->r.bytes;
	l->n[side]++;
	return 0;
}

double ival_low_result(const struct ival_low *l, uint32_t *n)
{
	double low = 0;

	*n = 0;
	for (int side = 0; side < 2; side++) {
		if (!l->recv[side] || l->min[side] < 0)
			continue; /* a sender's side, or no interval */
		if (!*n || l->min[side] < low)
			low = l->min[side];
		*n += l->n[side];
	}
	return low;
}
