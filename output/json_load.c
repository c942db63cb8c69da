// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "load" object of a latency test run beside a --load in --json
 * (docs/load.md, schema: definitions/load): each load's test, direction,
 * pacing and figures, and the idle run's latency (null with --no_idle).
 * The run under load is the test's own "results".  SI units.
 */
#include "json.h"
#include "sink.h"

static json_t *one_load(const struct load_fig *g)
{
	json_t *o = json_object(), *r = json_null();

	json_set(o, "test", json_string(g->test));
	json_set(o, "direction", json_string(g->dir));
	if (g->rate > 0) {
		r = json_object();
		json_set(r, g->rate_msgs ? "msgs_per_s" : "Bps",
			 json_num(g->rate));
	}
	json_set(o, "rate", r);
	json_set(o, "send_bw_Bps", json_num(g->r.send_bw));
	json_set(o, "recv_bw_Bps", json_num(g->r.recv_bw));
	json_set(o, "msg_rate_per_s", json_num(g->r.msg_rate));
	return o;
}

json_t *json_load(const struct out_load *l)
{
	json_t *o = json_object(), *a = json_array(), *idle = json_null();

	for (uint32_t i = 0; i < l->n; i++)
		json_array_append_new(a, one_load(&l->f[i]));
	json_set(o, "loads", a);
	if (l->idle) {
		idle = json_object();
		json_set(idle, "latency_s", json_num(l->idle_latency));
		json_set(idle, "latency", json_lat(l->idle));
	}
	json_set(o, "idle", idle);
	return o;
}
