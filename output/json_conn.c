// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "conn" object of a connection-setup test's result (docs/conn.md):
 *
 *   "conn": {
 *     "transactions": 12345, "rate_per_s": 6172.5, "msg_size_B": 1,
 *     "steps": ["connect", "answer", "close"],
 *     "connect": { latency summary }, "answer": { ... }, "close": { ... },
 *     "transaction": { ... }
 *   }
 *
 * One latency object per step the transport names, in "steps"' order;
 * msg_size_B only for a test whose transaction carries a message.  A
 * storm (--qps N) adds "qps": N, "qp_rate_per_s" and "storm_steps_s"
 * (each step's mean time over the whole storm, by name); a transaction
 * is then a storm, and each step's object is over the QPs' times.
 */
#include <jansson.h>

#include "lib/types.h"
#include "json.h"

json_t *json_conn(const struct conn_res *c)
{
	json_t *o = json_object(), *names = json_array();

	json_object_set_new(o, "transactions",
			    json_integer((json_int_t)c->txns));
	json_object_set_new(o, "rate_per_s", json_real(c->rate));
	if (c->msg_size)
		json_object_set_new(o, "msg_size_B",
				    json_integer((json_int_t)c->msg_size));
	for (int i = 0; i < c->steps->n; i++)
		json_array_append_new(names, json_string(c->steps->name[i]));
	json_object_set_new(o, "steps", names);
	for (int i = 0; i < c->steps->n; i++)
		json_object_set_new(o, c->steps->name[i],
				    json_lat(&c->step[i]));
	json_object_set_new(o, "transaction", json_lat(&c->txn));
	if (c->qps > 1) {
		json_t *st = json_object();

		json_object_set_new(o, "qps", json_integer(c->qps));
		json_object_set_new(o, "qp_rate_per_s", json_real(c->qp_rate));
		for (int i = 0; i < c->steps->n; i++)
			json_object_set_new(st, c->steps->name[i],
					    json_real(c->step_storm[i]));
		json_object_set_new(o, "storm_steps_s", st);
	}
	return o;
}
