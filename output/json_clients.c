// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "clients" object of a --clients test in --json (docs/clients.md,
 * schema: definitions/clients): each client's figures, the aggregate,
 * Jain's fairness index and the slowest client against the fair share.
 * Figures in SI units, as the rest of the document.
 */
#include "transports/transport.h"
#include "lib/fair.h"
#include "json.h"
#include "sink.h"

/* The member that names the test's figure. */
static const char *fig_key(const struct test_desc *t)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		return "latency_s";
	case MEAS_MSG_RATE:
		return "msg_rate_per_s";
	default:
		return "recv_bw_Bps";
	}
}

static json_t *one_client(const struct client_res *c, uint32_t i)
{
	json_t *o = json_object();

	json_set(o, "client", json_integer(i + 1));
	json_set(o, "status", json_string(c->ok ? "ok" : "failed"));
	if (!c->ok) {
		json_set(o, "error", json_string(c->err));
		return o;
	}
	json_set(o, "figure", json_num(c->fig));
	json_set(o, "start_s", json_num((double)c->start / 1e9));
	json_set(o, "send_bw_Bps", json_num(c->r.send_bw));
	json_set(o, "recv_bw_Bps", json_num(c->r.recv_bw));
	json_set(o, "msg_rate_per_s", json_num(c->r.msg_rate));
	json_set(o, "latency_s", json_num(c->r.latency));
	return o;
}

json_t *json_clients(const struct test_desc *t, const struct out_clients *c)
{
	json_t *o = json_object(), *a = json_array(), *ag, *sl;
	const struct fair_sum *s = c->sum;

	json_set(o, "count", json_integer(c->n));
	json_set(o, "figure", json_string(fig_key(t)));
	for (uint32_t i = 0; i < c->n; i++)
		json_array_append_new(a, one_client(&c->c[i], i));
	json_set(o, "per_client", a);
	if (!s) { /* a client failed: no summary */
		json_set(o, "aggregate", NULL);
		json_set(o, "fairness", NULL);
		json_set(o, "slowest", NULL);
		json_set(o, "start_spread_s", NULL);
		return o;
	}
	const struct {
		const char *key;
		double v;
	} ag_rows[] = { { "value", s->aggregate }, { "sum", s->sum },
			{ "mean", s->mean },	   { "min", s->min },
			{ "max", s->max } };

	ag = json_object();
	json_set(ag, "kind", json_string(s->lower_better ? "mean" : "sum"));
	for (size_t i = 0; i < sizeof(ag_rows) / sizeof(ag_rows[0]); i++)
		json_set(ag, ag_rows[i].key, json_num(ag_rows[i].v));
	json_set(o, "aggregate", ag);
	json_set(o, "fairness", json_num(s->jain));
	sl = json_object();
	json_set(sl, "client", json_integer((json_int_t)s->slowest + 1));
	json_set(sl, "figure", json_num(c->c[s->slowest].fig));
	json_set(sl, "fair_share", json_num(s->share));
	json_set(sl, "ratio", json_num(s->ratio));
	json_set(o, "slowest", sl);
	json_set(o, "start_spread_s", json_num((double)c->spread / 1e9));
	return o;
}
