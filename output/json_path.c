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

	json_set(o, "kind", json_string(f->kind <= FACTS_SOCK ?
						kinds[f->kind] : "none"));
	json_set(o, "device", str_or_null(f->dev));
	json_set(o, "port", u32_or_null(f->port));
	json_set(o, "link_layer",
		 f->link_layer == FACTS_LL_IB  ? json_string("InfiniBand") :
		 f->link_layer == FACTS_LL_ETH ? json_string("Ethernet") :
						 json_null());
	json_set(o, "speed_code", u32_or_null(f->speed));
	json_set(o, "width", u32_or_null(f->width));
	json_set(o, "active_mtu_B", u32_or_null(f->active_mtu));
	json_set(o, "max_mtu_B", u32_or_null(f->max_mtu));
	json_set(o, "path_mtu_B", u32_or_null(f->path_mtu));
	json_set(o, "roce", f->roce ? json_integer(f->roce) : json_null());
	json_set(o, "ipv6", json_boolean(f->ip6));
	json_set(o, "loopback", json_boolean(f->loopback));
	json_set(o, "virtual", json_boolean(f->virt));
	json_set(o, "pci", str_or_null(f->pci));
	json_set(o, "pcie_gen", u32_or_null(f->pcie_gen));
	json_set(o, "pcie_width", u32_or_null(f->pcie_width));
	json_set(o, "pcie_max_gen", u32_or_null(f->pcie_max_gen));
	json_set(o, "pcie_max_width", u32_or_null(f->pcie_max_width));
	json_set(o, "numa_node",
		 f->dev_numa >= 0 ? json_integer(f->dev_numa) : json_null());
	json_set(o, "test_numa_node",
		 f->test_numa >= 0 ? json_integer(f->test_numa) : json_null());
	json_set(o, "governor", str_or_null(f->governor));
	json_set(o, "netdev", str_or_null(f->netdev));
	json_set(o, "netdev_speed_Mbps", u32_or_null(f->net_speed));
	json_set(o, "netdev_advertised_Mbps", u32_or_null(f->net_speed_max));
	json_set(o, "netdev_mtu_B", u32_or_null(f->net_mtu));
	json_set(o, "width_enabled", u32_or_null(f->width_enabled));
	json_set(o, "speed_code_enabled", u32_or_null(f->speed_enabled));
	return o;
}

static json_t *ceiling_json(const struct path_report *r,
			    const struct results *res)
{
	double bw = res->recv_bw, mr = r->ceil.msg_rate;
	json_t *o = json_object(), *lim = json_array(), *in = json_object();

	json_set(o, "value_Bps",
		 r->ceil.valid ? json_num(r->ceil.bps) : json_null());
	json_set(o, "limit",
		 r->ceil.valid ? json_string(r->ceil.what) : json_null());
	json_set(o, "efficiency",
		 r->ceil.valid ? json_num(bw / r->ceil.bps) : json_null());
	json_set(o, "note", str_or_null(r->note));
	json_set(o, "msg_rate_per_s", mr > 0 ? json_num(mr) : json_null());
	json_set(o, "msg_rate_efficiency",
		 mr > 0 ? json_num(res->msg_rate / mr) : json_null());
	if (!(mr > 0))
		json_set(o, "msg_rate_note",
			 json_string(r->ceil.stream ?
					     "a stream: its writes are not packets" :
				     r->ceil.valid ? "long messages" :
						     "no ceiling known"));
	for (uint32_t i = 0; i < r->nlimits; i++) {
		const struct path_limit *l = &r->limits[i];
		json_t *e = json_object();

		json_set(e, "end", json_string(path_end_name(l->end)));
		json_set(e, "kind", json_string(l->kind));
		json_set(e, "value_Bps", json_num(l->Bps));
		json_set(e, "what", json_string(l->what));
		json_array_append_new(lim, e);
	}
	json_set(o, "limits", lim);
	for (int e = PATH_CLIENT; e <= PATH_SERVER; e++)
		json_set(in, path_end_name(e),
			 r->have[e] ? facts_json(&r->f[e]) : json_null());
	json_set(o, "inputs", in);
	return o;
}

void json_path_add(json_t *test, const struct test_desc *t,
		   const struct results *res, const struct path_report *r)
{
	json_t *results = json_object_get(test, "results"), *fa = json_array();

	if (results && (t->measure == MEAS_BANDWIDTH ||
			t->measure == MEAS_BANDWIDTH_SR))
		json_set(results, "ceiling", ceiling_json(r, res));
	for (uint32_t i = 0; i < r->nfind; i++) {
		json_t *e = json_object();

		json_set(e, "end", json_string(path_end_name(r->find[i].end)));
		json_set(e, "check", json_string(r->find[i].check));
		json_set(e, "message", json_string(r->find[i].text));
		json_array_append_new(fa, e);
	}
	json_set(test, "findings", fa);
}
