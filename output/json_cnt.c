// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "counters" object of a JSON result (issue 18 item 5): the loss and
 * error counters of both ends over the measured window, always present
 * for a data test, whatever -v says.
 *
 *   "counters": {
 *     "scope": "socket" | "socket+host" | "port",
 *     "client": { "source": "tcp", "scope": "socket",
 *                 "values": { "tcp_retrans": 0, ... } },
 *     "server": { ... }             or  "server_missing": "<why>",
 *     "streams": [ { "stream": 1, "client": {...}, "server": {...} } ]
 *   }
 *
 * "port": the values count all traffic of the port, not only this test's;
 * "socket+host": some (named in host_wide) count every socket of the host.
 */
#include <jansson.h>
#include <stdint.h>

#include "lib/counters.h"
#include "json.h"

static json_t *set_json(const struct cnt_set *c)
{
	json_t *o = json_object(), *v = json_object(), *host = json_array();

	json_object_set_new(o, "source", json_string(c->src));
	json_object_set_new(o, "scope", json_string(cnt_scope(c)));
	for (uint32_t i = 0; i < c->n && i < CNT_MAX; i++) {
		uint64_t x = c->v[i].v > (uint64_t)INT64_MAX
				     ? (uint64_t)INT64_MAX
				     : c->v[i].v;

		json_object_set_new(v, c->v[i].name,
				    json_integer((json_int_t)x));
		if (c->v[i].flags & CNTF_HOST)
			json_array_append_new(host, json_string(c->v[i].name));
	}
	json_object_set_new(o, "values", v);
	if (json_array_size(host))
		json_object_set_new(o, "host_wide", host);
	else
		json_decref(host);
	return o;
}

static void end_json(json_t *o, const char *key, const char *missing_key,
		     const struct cnt_end *e, const char *missing)
{
	if (e->valid)
		json_object_set_new(o, key, set_json(&e->sum));
	else
		json_object_set_new(o, missing_key,
				    json_string(missing ? missing
							: "none could be read on this end"));
}

json_t *json_counters(const struct cnt_both *b)
{
	json_t *o = json_object(), *a;
	uint32_t n = b->loc.nstreams > b->rem.nstreams ? b->loc.nstreams
						       : b->rem.nstreams;

	json_object_set_new(o, "scope",
			    json_string(b->loc.valid ? cnt_scope(&b->loc.sum)
					: b->rem.valid ? cnt_scope(&b->rem.sum)
						       : "none"));
	end_json(o, "client", "client_missing", &b->loc, NULL);
	end_json(o, "server", "server_missing", &b->rem, b->rem_missing);
	if (n < 2)
		return o;
	a = json_array();
	for (uint32_t i = 0; i < n; i++) {
		json_t *s = json_object();

		json_object_set_new(s, "stream", json_integer(i + 1));
		if (b->loc.streams && i < b->loc.nstreams)
			json_object_set_new(s, "client",
					    set_json(&b->loc.streams[i]));
		if (b->rem.streams && i < b->rem.nstreams && b->rem.valid)
			json_object_set_new(s, "server",
					    set_json(&b->rem.streams[i]));
		json_array_append_new(a, s);
	}
	json_object_set_new(o, "streams", a);
	return o;
}
