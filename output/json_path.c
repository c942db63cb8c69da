// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON of the ceiling and the host checks (issue 18; docs/ceiling.md):
 * results.ceiling of a bandwidth test (its value, the limit that wins,
 * every limit and each end's facts) and the test's findings.
 */
#include <string.h>

#include "transports/transport.h"
#include "lib/path.h"
#include "json.h"

static void put(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

static json_t *u32_or_null(uint32_t v)
{
	return v ? json_integer(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *facts_json(const struct path_facts *f)
{
	static const char *const kinds[] = { "none", "rdma", "socket" };
	json_t *o = json_object();

	put(o, "kind", json_string(f->kind <= FACTS_SOCK ? kinds[f->kind] :
							    "none"));
	put(o, "device", str_or_null(f->dev));
	put(o, "port", u32_or_null(f->port));
	put(o, "link_layer", f->link_layer == FACTS_LL_IB ?
				     json_string("InfiniBand") :
			     f->link_layer == FACTS_LL_ETH ?
				     json_string("Ethernet") : json_null());
	put(o, "speed_code", u32_or_null(f->speed));
	put(o, "width", u32_or_null(f->width));
	put(o, "active_mtu_B", u32_or_null(f->active_mtu));
	put(o, "max_mtu_B", u32_or_null(f->max_mtu));
	put(o, "path_mtu_B", u32_or_null(f->path_mtu));
	put(o, "roce", f->roce ? json_integer(f->roce) : json_null());
	put(o, "ipv6", json_boolean(f->ip6));
	put(o, "loopback", json_boolean(f->loopback));
	put(o, "pci", str_or_null(f->pci));
	put(o, "pcie_gen", u32_or_null(f->pcie_gen));
	put(o, "pcie_width", u32_or_null(f->pcie_width));
	put(o, "pcie_max_gen", u32_or_null(f->pcie_max_gen));
	put(o, "pcie_max_width", u32_or_null(f->pcie_max_width));
	put(o, "numa_node", f->dev_numa >= 0 ? json_integer(f->dev_numa) :
					       json_null());
	put(o, "test_numa_node", f->test_numa >= 0 ?
					 json_integer(f->test_numa) :
					 json_null());
	put(o, "governor", str_or_null(f->governor));
	put(o, "netdev", str_or_null(f->netdev));
	put(o, "netdev_speed_Mbps", u32_or_null(f->net_speed));
	put(o, "netdev_mtu_B", u32_or_null(f->net_mtu));
	return o;
}

static json_t *ceiling_json(const struct path_report *r, double bw)
{
	json_t *o = json_object(), *lim = json_array(), *in = json_object();

	put(o, "value_Bps", r->ceil.valid ? json_num(r->ceil.bps) : json_null());
	put(o, "limit", r->ceil.valid ? json_string(r->ceil.what) : json_null());
	put(o, "efficiency", r->ceil.valid ? json_num(bw / r->ceil.bps) :
					     json_null());
	put(o, "note", str_or_null(r->note));
	for (uint32_t i = 0; i < r->nlimits; i++) {
		const struct path_limit *l = &r->limits[i];
		json_t *e = json_object();

		put(e, "end", json_string(path_end_name(l->end)));
		put(e, "kind", json_string(l->kind));
		put(e, "value_Bps", json_num(l->Bps));
		put(e, "what", json_string(l->what));
		json_array_append_new(lim, e);
	}
	put(o, "limits", lim);
	put(in, "client", r->have[PATH_CLIENT] ?
				  facts_json(&r->f[PATH_CLIENT]) : json_null());
	put(in, "server", r->have[PATH_SERVER] ?
				  facts_json(&r->f[PATH_SERVER]) : json_null());
	put(o, "inputs", in);
	return o;
}

void json_path_add(json_t *test, const struct test_desc *t,
		   const struct results *res, const struct path_report *r)
{
	json_t *results = json_object_get(test, "results"), *fa = json_array();

	if (results && (t->measure == MEAS_BANDWIDTH ||
			t->measure == MEAS_BANDWIDTH_SR))
		put(results, "ceiling", ceiling_json(r, res->recv_bw));
	for (uint32_t i = 0; i < r->nfind; i++) {
		json_t *e = json_object();

		put(e, "end", json_string(path_end_name(r->find[i].end)));
		put(e, "check", json_string(r->find[i].check));
		put(e, "message", json_string(r->find[i].text));
		json_array_append_new(fa, e);
	}
	put(test, "findings", fa);
}
