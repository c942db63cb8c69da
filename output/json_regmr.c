// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "reg_mr" object of a reg_mr result (issue 20 item 3):
 *
 *   "reg_mr": {
 *     "size_B": 1048576, "threads": 1, "hugepages": false,
 *     "prefault": false, "odp": "off" | "explicit" | "implicit" | "prefetch",
 *     "regions": 1234,
 *     "reg": { latency summary }, "dereg": { ... }, "advise": {...} | null,
 *     "reg_Bps": 8.1e10 | null (implicit ODP registers no size),
 *     "first_touch": { "size_B": ..., "cold_s": ..., "warm_s": ... } | null
 *   }
 */
#include <jansson.h>
#include <stdint.h>

#include "lib/types.h"
#include "json.h"

json_t *json_regmr(const struct regmr_res *r)
{
	static const char *const odp[] = REGMR_ODP_NAMES;
	json_t *o = json_object(), *t;

	json_object_set_new(o, "size_B", json_integer((json_int_t)r->size));
	json_object_set_new(o, "threads", json_integer(r->threads));
	json_object_set_new(o, "hugepages", json_boolean(r->hugepages));
	json_object_set_new(o, "prefault", json_boolean(r->prefault));
	json_object_set_new(o, "odp", json_string(
		odp[r->odp <= REGMR_ODP_PREFETCH ? r->odp : 0]));
	json_object_set_new(o, "regions",
			    json_integer((json_int_t)r->regions));
	json_object_set_new(o, "reg", json_lat(&r->reg));
	json_object_set_new(o, "dereg", json_lat(&r->dereg));
	json_object_set_new(o, "advise", r->odp == REGMR_ODP_PREFETCH
						 ? json_lat(&r->advise)
						 : json_null());
	json_object_set_new(o, "reg_Bps", r->reg_bw > 0 ? json_real(r->reg_bw)
							 : json_null());
	if (!r->touch_valid) {
		json_object_set_new(o, "first_touch", json_null());
		return o;
	}
	t = json_object();
	json_object_set_new(t, "size_B",
			    json_integer((json_int_t)r->touch_bytes));
	json_object_set_new(t, "cold_s", json_real(r->touch_cold));
	json_object_set_new(t, "warm_s", json_real(r->touch_warm));
	json_object_set_new(o, "first_touch", t);
	return o;
}
