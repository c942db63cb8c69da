// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "qps" object of a --qps result (docs/qps.md):
 *
 *   "qps": {
 *     "count": 64, "listed_max": 4096, "threads": 2,
 *     "loc": { "cq_per_qp": false, "setup_s": 0.012,
 *              "msgs": { "total", "min", "median",
 *              "max" }, "per_qp_msgs": [ ... ],
 *              "mem_per_qp": { "mr_B", "queues_B", "pinned_B",
 *                              "process_B" } },
 *     "rem": { ... } or null (the server sent none)
 *   }
 *
 * per_qp_msgs lists QPs 0.. in order, at most listed_max of them; the
 * spread is over all.  --conns: "conns" of the same form, without
 * cq_per_qp, with per_conn_msgs and "mem_per_conn": { "sockbuf_B" }.
 */
#include <jansson.h>

#include "lib/types.h"
#include "json.h"

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *qps_side(const struct qp_side *q)
{
	json_t *o, *m, *mem, *a;

	if (!q->valid)
		return json_null();
	o = json_object();
	m = json_object();
	mem = json_object();
	a = json_array();
	if (!q->conns)
		json_object_set_new(o, "cq_per_qp", json_boolean(q->cq_per_qp));
	json_object_set_new(o, "setup_s", json_real((double)q->setup_ns / 1e9));
	json_object_set_new(m, "total", u64(q->total));
	json_object_set_new(m, "min", u64(q->min));
	json_object_set_new(m, "median", u64(q->median));
	json_object_set_new(m, "max", u64(q->max));
	json_object_set_new(o, "msgs", m);
	for (uint32_t i = 0; i < q->listed && i < QPS_LIST_MAX; i++)
		json_array_append_new(a, u64(q->counts[i]));
	json_object_set_new(o, q->conns ? "per_conn_msgs" : "per_qp_msgs", a);
	if (q->conns) {
		json_object_set_new(mem, "sockbuf_B", u64(q->queue_B));
		json_object_set_new(o, "mem_per_conn", mem);
		return o;
	}
	json_object_set_new(mem, "mr_B", u64(q->mr_B));
	json_object_set_new(mem, "queues_B", u64(q->queue_B));
	json_object_set_new(mem, "pinned_B", u64(q->mr_B + q->queue_B));
	json_object_set_new(mem, "process_B", u64(q->proc_B));
	json_object_set_new(o, "mem_per_qp", mem);
	return o;
}

json_t *json_qps(const struct qp_side *q)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer(q[0].n));
	json_object_set_new(o, "listed_max", json_integer(QPS_LIST_MAX));
	json_object_set_new(o, "threads", json_integer(q[0].threads));
	json_object_set_new(o, "loc", qps_side(&q[0]));
	json_object_set_new(o, "rem", qps_side(&q[1]));
	return o;
}
