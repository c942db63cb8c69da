// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "conn" object of a tcp_conn result (docs/conn.md):
 *
 *   "conn": {
 *     "transactions": 12345, "rate_per_s": 6172.5, "msg_size_B": 1,
 *     "connect": { latency summary }, "answer": { ... }, "close": { ... },
 *     "transaction": { ... }
 *   }
 */
#include <jansson.h>

#include "lib/types.h"
#include "json.h"

json_t *json_conn(const struct conn_res *c)
{
	static const char *const step[CONN_STEPS] = CONN_STEP_NAMES;
	json_t *o = json_object();

	json_object_set_new(o, "transactions",
			    json_integer((json_int_t)c->txns));
	json_object_set_new(o, "rate_per_s", json_real(c->rate));
	json_object_set_new(o, "msg_size_B",
			    json_integer((json_int_t)c->msg_size));
	for (int i = 0; i < CONN_STEPS; i++)
		json_object_set_new(o, step[i], json_lat(&c->step[i]));
	json_object_set_new(o, "transaction", json_lat(&c->txn));
	return o;
}
