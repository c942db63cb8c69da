// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ceiling and host checks from both ends' facts (lib/path.h).  Every limit
 * is payload bytes/s in one direction (twice that for a test that sends
 * both ways at once); what a limit is called is what the user would
 * change.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/ceiling.h"
#include "lib/err.h"
#include "lib/path.h"

const char *path_end_name(int end)
{
	return end == PATH_CLIENT ? "client" :
	       end == PATH_SERVER ? "server" : "path";
}

static void add_limit(struct path_report *r, int end, const char *kind,
		      double Bps, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add_limit(struct path_report *r, int end, const char *kind,
		      double Bps, const char *fmt, ...)
{
	struct path_limit *l;
	va_list ap;

	if (!(Bps > 0) || r->nlimits == PATH_LIMITS_MAX)
		return;
	l = &r->limits[r->nlimits++];
	l->end = end;
	l->kind = kind;
	l->Bps = Bps;
	va_start(ap, fmt);
	vsnprintf(l->what, sizeof(l->what), fmt, ap);
	va_end(ap);
}

static enum ceil_link rdma_link(const struct path_facts *f)
{
	if (f->link_layer != FACTS_LL_ETH)
		return CEIL_IB;
	if (f->roce == FACTS_ROCE_V1)
		return CEIL_ROCE_V1;
	return f->ip6 ? CEIL_ROCE_V2_IP6 : CEIL_ROCE_V2_IP4;
}

static uint32_t mtu_of(const struct path_facts *f)
{
	return f->path_mtu ? f->path_mtu : f->active_mtu;
}

static void rdma_limits(struct path_report *r, int e,
			const struct path_msg *m, double x)
{
	const struct path_facts *f = &r->f[e];
	const struct ceil_ib_speed *sp = ceil_ib_speed(f->speed);
	enum ceil_link l = rdma_link(f);
	uint32_t mtu = mtu_of(f);

	if (sp && f->width)
		add_limit(r, e, "port",
			  x * ceil_payload_Bps(sp->data_gbps * 1e9 * f->width,
					       mtu,
					       ceil_pkt_overhead(l) + m->per_pkt +
						       f->pkt_extra,
					       m->size, m->per_msg),
			  "%ux %s%s port of the %s (%s:%u) at MTU %u",
			  f->width, sp->name,
			  l == CEIL_IB ? "" : l == CEIL_ROCE_V1 ? " RoCE v1" :
								  " RoCE v2",
			  path_end_name(e), f->dev, f->port, mtu);
}

static void sock_limits(struct path_report *r, int e,
			const struct path_msg *m, double x)
{
	const struct path_facts *f = &r->f[e];

	if (f->loopback || f->virt || !f->net_speed)
		return;
	add_limit(r, e, "interface",
		  x * ceil_eth_Bps(f->net_speed, f->net_mtu ? f->net_mtu : 1500,
				   m->udp, m->size, f->ip6),
		  "%u Mb/s interface of the %s (%s) at MTU %u", f->net_speed,
		  path_end_name(e), f->netdev,
		  f->net_mtu ? f->net_mtu : 1500);
}

static void note_missing(struct path_report *r)
{
	bool loop = (r->have[0] && r->f[0].loopback) ||
		    (r->have[1] && r->f[1].loopback);
	int v = r->have[0] && r->f[0].virt ? 0 :
		r->have[1] && r->f[1].virt ? 1 : -1;

	if (!r->nlimits) {
		if (!loop && v >= 0) {
			xsnprintf(r->note, sizeof(r->note),
				  "virtual interface %s of the %s: its speed is nominal, not a limit",
				  r->f[v].netdev, path_end_name(v));
			return;
		}
		xsnprintf(r->note, sizeof(r->note), "%s",
			  loop ? "loopback" :
			  !r->have[0] && !r->have[1] ? "no facts of either end" :
			  "no link speed known");
		return;
	}
	for (int e = PATH_CLIENT; e <= PATH_SERVER; e++)
		if (!r->have[e])
			xsnprintf(r->note, sizeof(r->note),
				  "the %s's side is unknown (it sent no facts: qperf 0.4.11 or an earlier 0.5)",
				  path_end_name(e));
}

void path_ceiling(struct path_report *r, const struct path_msg *m)
{
	double x = m->bidir ? 2 : 1;

	r->nlimits = 0;
	r->note[0] = '\0';
	memset(&r->ceil, 0, sizeof(r->ceil));
	for (int e = PATH_CLIENT; e <= PATH_SERVER; e++) {
		const struct path_facts *f = &r->f[e];

		if (!r->have[e])
			continue;
		if (f->kind == FACTS_RDMA)
			rdma_limits(r, e, m, x);
		else if (f->kind == FACTS_SOCK)
			sock_limits(r, e, m, x);
		if (f->kind != FACTS_NONE && !f->loopback)
			add_limit(r, e, "pcie",
				  x * ceil_pcie_msg_Bps(f->pcie_gen,
							f->pcie_width,
							f->kind == FACTS_RDMA ||
									m->udp ?
								m->size :
								0),
				  "PCIe Gen%u x%u of the %s (%s)", f->pcie_gen,
				  f->pcie_width, path_end_name(e), f->pci);
	}
	for (uint32_t i = 0; i < r->nlimits; i++) {
		const struct path_limit *l = &r->limits[i];

		if (!r->ceil.valid || l->Bps < r->ceil.bps) {
			r->ceil.valid = true;
			r->ceil.bps = l->Bps;
			memcpy(r->ceil.what, l->what, sizeof(r->ceil.what));
		}
	}
	r->ceil.stream = m->stream;
	if (r->ceil.valid && !m->stream && m->size)
		r->ceil.msg_rate = r->ceil.bps / (double)m->size;
	note_missing(r);
}

/* The checks a finding may name (JSON's enum, docs/ceiling.md): the one
 * list, which add_find() and a client reading a server's findings both
 * go by. */
static const char *const check_names[] = {
	"pcie_link", "numa", "governor", "link_speed", "port_width",
	"port_speed", "mtu_active", "mtu_ends", "roce_netdev_mtu"
};

const char *path_check_name(const char *s)
{
	for (size_t i = 0; i < sizeof(check_names) / sizeof(check_names[0]);
	     i++)
		if (strcmp(s, check_names[i]) == 0)
			return check_names[i];
	return NULL;
}

static void add_find(struct path_report *r, int end, const char *check,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add_find(struct path_report *r, int end, const char *check,
		     const char *fmt, ...)
{
	struct path_finding *f;
	va_list ap;

	if (r->nfind == PATH_FINDINGS_MAX)
		return;
	f = &r->find[r->nfind++];
	f->end = end;
	f->check = path_check_name(check); /* NULL: a check not in the list */
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
}

/* RoCE v2 bytes an interface's MTU must hold beyond the payload: IP,
 * UDP 8, BTH 12, RETH 16, ICRC 4. */
static uint32_t roce_ip_extra(const struct path_facts *f)
{
	return (f->ip6 ? 40 : 20) + 8 + 12 + 16 + 4;
}

/* Speeds in order of their data rate (FDR10's code 8 sits below FDR's
 * 16 and above QDR's 4 in both). */
static double speed_rank(uint32_t code)
{
	return ceil_ib_speed(code)->data_gbps;
}

static void end_findings(struct path_report *r, int e)
{
	const struct path_facts *f = &r->f[e];
	const char *name = f->kind == FACTS_RDMA ? f->dev :
			   f->netdev[0] ? f->netdev : f->pci;

	if ((f->pcie_gen && f->pcie_max_gen && f->pcie_gen < f->pcie_max_gen) ||
	    (f->pcie_width && f->pcie_max_width &&
	     f->pcie_width < f->pcie_max_width))
		add_find(r, e, "pcie_link",
			 "%s: PCIe link at Gen%u x%u, below its maximum Gen%u x%u: reseat the card or check the slot and its BIOS setting (%s)",
			 name, f->pcie_gen, f->pcie_width, f->pcie_max_gen,
			 f->pcie_max_width, f->pci);
	if (f->dev_numa >= 0 && f->test_numa >= 0 &&
	    f->dev_numa != f->test_numa)
		add_find(r, e, "numa",
			 "%s: on NUMA node %d, the test ran on node %d: run it on node %d (--numa_node %d, or -ca with a CPU of that node)",
			 name, f->dev_numa, f->test_numa, f->dev_numa,
			 f->dev_numa);
	if (f->governor[0] && strcmp(f->governor, "performance") != 0)
		add_find(r, e, "governor",
			 "cpufreq: CPU frequency governor is %s, not performance: set it (cpupower frequency-set -g performance)",
			 f->governor);
	if (f->netdev[0] && !f->loopback && !f->virt && f->net_speed &&
	    f->net_speed_max > f->net_speed)
		add_find(r, e, "link_speed",
			 "%s: link at %u Mb/s, below the %u Mb/s its port advertises: the cable, the transceiver or the link partner holds it lower (see ethtool %s)",
			 f->netdev, f->net_speed, f->net_speed_max, f->netdev);
	if (f->kind == FACTS_RDMA && f->width && f->width_enabled &&
	    f->width < f->width_enabled)
		add_find(r, e, "port_width",
			 "%s:%u: link active at %ux, below the %ux its port enables: a lane is down; reseat or replace the cable, check the switch port (ibportstate, ibstat)",
			 f->dev, f->port, f->width, f->width_enabled);
	if (f->kind == FACTS_RDMA && f->speed && f->speed_enabled &&
	    ceil_ib_speed(f->speed) && ceil_ib_speed(f->speed_enabled) &&
	    speed_rank(f->speed) < speed_rank(f->speed_enabled))
		add_find(r, e, "port_speed",
			 "%s:%u: link active at %s, below the %s its port enables: the cable or the switch port holds it lower; check both (ibportstate, ibstat)",
			 f->dev, f->port, ceil_ib_speed(f->speed)->name,
			 ceil_ib_speed(f->speed_enabled)->name);
	if (f->kind == FACTS_RDMA && f->active_mtu && f->max_mtu &&
	    f->active_mtu < f->max_mtu)
		add_find(r, e, "mtu_active",
			 "%s:%u: active MTU %u, below the port's maximum %u: raise the fabric's MTU (the subnet manager's partition MTU; for RoCE the interface's)",
			 f->dev, f->port, f->active_mtu, f->max_mtu);
	if (f->kind == FACTS_RDMA && f->link_layer == FACTS_LL_ETH &&
	    f->net_mtu && mtu_of(f) &&
	    f->net_mtu < mtu_of(f) + roce_ip_extra(f))
		add_find(r, e, "roce_netdev_mtu",
			 "%s: interface MTU %u too small for RoCE path MTU %u (needs %u): raise it (ip link set %s mtu 9000)",
			 f->netdev, f->net_mtu, mtu_of(f),
			 mtu_of(f) + roce_ip_extra(f), f->netdev);
}

void path_findings(struct path_report *r)
{
	const struct path_facts *c = &r->f[0], *s = &r->f[1];

	r->nfind = 0;
	for (int e = PATH_CLIENT; e <= PATH_SERVER; e++)
		if (r->have[e])
			end_findings(r, e);
	if (!r->have[0] || !r->have[1] || c->kind != s->kind)
		return;
	if (c->kind == FACTS_RDMA && c->active_mtu && s->active_mtu &&
	    c->active_mtu != s->active_mtu)
		add_find(r, PATH_BOTH, "mtu_ends",
			 "active MTU %u on the client (%s:%u), %u on the server (%s:%u): the path runs at the smaller; give both ports the same MTU",
			 c->active_mtu, c->dev, c->port, s->active_mtu, s->dev,
			 s->port);
	if (c->kind == FACTS_SOCK && !c->loopback && !s->loopback &&
	    c->net_mtu && s->net_mtu && c->net_mtu != s->net_mtu)
		add_find(r, PATH_BOTH, "mtu_ends",
			 "interface MTU %u on the client (%s), %u on the server (%s): give both interfaces the same MTU",
			 c->net_mtu, c->netdev, s->net_mtu, s->netdev);
}
