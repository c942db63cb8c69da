// SPDX-License-Identifier: GPL-2.0-only
/*
 * The path's ceiling and the host checks (lib/path.h) from planted facts,
 * and the facts codec (lib/facts.h): findings exactly where a fact is
 * degraded, none from clean facts, the lowest limit wins and is named.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "lib/ethlink.h"
#include "lib/facts.h"
#include "lib/path.h"
#include "lib/portinfo.h"
#include "lib/tlv.h"

/* A clean RDMA end: 4x NDR InfiniBand at MTU 4096, PCIe Gen5 x16 at its
 * maximum, device and test on node 0, governor performance. */
static void clean_rdma(struct path_facts *f, const char *dev)
{
	facts_init(f);
	f->kind = FACTS_RDMA;
	snprintf(f->dev, sizeof(f->dev), "%s", dev);
	f->port = 1;
	f->link_layer = FACTS_LL_IB;
	f->speed = 128;
	f->width = 4;
	f->active_mtu = f->max_mtu = f->path_mtu = 4096;
	snprintf(f->pci, sizeof(f->pci), "0000:3b:00.0");
	f->pcie_gen = f->pcie_max_gen = 5;
	f->pcie_width = f->pcie_max_width = 16;
	f->dev_numa = f->test_numa = 0;
	snprintf(f->governor, sizeof(f->governor), "performance");
}

static void both(struct path_report *r)
{
	memset(r, 0, sizeof(*r));
	r->have[0] = r->have[1] = true;
	clean_rdma(&r->f[0], "mlx5_0");
	clean_rdma(&r->f[1], "mlx5_1");
}

static const struct path_msg long_msgs = { 0 };

/* Clean ends: no finding; the port wins (49.68 GB/s, below PCIe Gen5 x16's
 * 57.61) and is named. */
TEST(clean_no_findings)
{
	struct path_report r;

	both(&r);
	path_findings(&r);
	CHECK(r.nfind == 0, "%u findings, first %s", r.nfind, r.find[0].text);
	path_ceiling(&r, &long_msgs);
	CHECK(r.nlimits == 4);
	CHECK(r.ceil.valid && fabs(r.ceil.bps - 49.6846e9) < 1e6, "%g",
	      r.ceil.bps);
	CHECK_STR(r.ceil.what, "4x NDR port of the client (mlx5_0:1) at MTU 4096");
	CHECK(r.note[0] == '\0', "%s", r.note);
}

/* The server's HCA at Gen4 x8 (of Gen5 x16): a pcie_link finding on the
 * server only, and its PCIe (14.40 GB/s) becomes the ceiling. */
TEST(pcie_degraded_server)
{
	struct path_report r;

	both(&r);
	r.f[1].pcie_gen = 4;
	r.f[1].pcie_width = 8;
	path_findings(&r);
	CHECK(r.nfind == 1);
	CHECK(r.find[0].end == PATH_SERVER);
	CHECK_STR(r.find[0].check, "pcie_link");
	CHECK_STR(r.find[0].text,
		  "mlx5_1: PCIe link at Gen4 x8, below its maximum Gen5 x16: reseat the card or check the slot and its BIOS setting (0000:3b:00.0)");
	path_ceiling(&r, &long_msgs);
	CHECK(fabs(r.ceil.bps - 14.4035e9) < 1e6, "%g", r.ceil.bps);
	CHECK_STR(r.ceil.what, "PCIe Gen4 x8 of the server (0000:3b:00.0)");
}

/* NUMA node 1 device, test on node 0; governor powersave; each on the
 * end planted, nothing else. */
TEST(numa_and_governor)
{
	struct path_report r;

	both(&r);
	r.f[0].dev_numa = 1;
	snprintf(r.f[1].governor, sizeof(r.f[1].governor), "powersave");
	path_findings(&r);
	CHECK(r.nfind == 2);
	CHECK(r.find[0].end == PATH_CLIENT);
	CHECK_STR(r.find[0].check, "numa");
	CHECK_STR(r.find[0].text,
		  "mlx5_0: on NUMA node 1, the test ran on node 0: run it on node 1 (--numa_node 1, or -ca with a CPU of that node)");
	CHECK(r.find[1].end == PATH_SERVER);
	CHECK_STR(r.find[1].check, "governor");
	/* unknown nodes and no cpufreq say nothing */
	both(&r);
	r.f[0].dev_numa = -1;
	r.f[0].test_numa = 1;
	r.f[1].governor[0] = '\0';
	path_findings(&r);
	CHECK(r.nfind == 0);
}

/* MTU checks: active below maximum; the two ends differ; RoCE with an
 * interface MTU of 1500 under path MTU 4096 (needs 4096 + 60). */
TEST(mtu_checks)
{
	struct path_report r;

	both(&r);
	r.f[1].active_mtu = r.f[1].path_mtu = 2048;
	path_findings(&r);
	CHECK(r.nfind == 2);
	CHECK_STR(r.find[0].check, "mtu_active");
	CHECK(r.find[0].end == PATH_SERVER);
	CHECK_STR(r.find[1].check, "mtu_ends");
	CHECK(r.find[1].end == PATH_BOTH);
	both(&r);
	r.f[0].link_layer = FACTS_LL_ETH;
	r.f[0].roce = FACTS_ROCE_V2;
	snprintf(r.f[0].netdev, sizeof(r.f[0].netdev), "eth0");
	r.f[0].net_mtu = 1500;
	path_findings(&r);
	CHECK(r.nfind == 1);
	CHECK_STR(r.find[0].text,
		  "eth0: interface MTU 1500 too small for RoCE path MTU 4096 (needs 4156): raise it (ip link set eth0 mtu 9000)");
	r.f[0].net_mtu = 9000;
	path_findings(&r);
	CHECK(r.nfind == 0);
}

/* An interface trained below the fastest mode it advertises: one
 * link_speed finding on that end (a RoCE port's netdev as a socket's
 * interface); none at or above it, none unknown, none for a virtual one. */
TEST(link_speed)
{
	struct path_report r;

	both(&r);
	r.f[1].link_layer = FACTS_LL_ETH;
	r.f[1].roce = FACTS_ROCE_V2;
	snprintf(r.f[1].netdev, sizeof(r.f[1].netdev), "ens1f0");
	r.f[1].net_mtu = 9000;
	r.f[1].net_speed = 25000;
	r.f[1].net_speed_max = 100000;
	path_findings(&r);
	CHECK(r.nfind == 1, "%u", r.nfind);
	CHECK(r.find[0].end == PATH_SERVER);
	CHECK_STR(r.find[0].check, "link_speed");
	CHECK_STR(r.find[0].text,
		  "ens1f0: link at 25000 Mb/s, below the 100000 Mb/s its port advertises: the cable, the transceiver or the link partner holds it lower (see ethtool ens1f0)");
	r.f[1].net_speed = 100000;
	path_findings(&r);
	CHECK(r.nfind == 0);
	r.f[1].net_speed = 25000;
	r.f[1].net_speed_max = 0;
	path_findings(&r);
	CHECK(r.nfind == 0);
	facts_init(&r.f[0]);
	r.f[0].kind = FACTS_SOCK;
	snprintf(r.f[0].netdev, sizeof(r.f[0].netdev), "veth0");
	r.f[0].virt = true;
	r.f[0].net_speed = 10000;
	r.f[0].net_speed_max = 40000;
	path_findings(&r);
	CHECK(r.nfind == 0);
}

/* An InfiniBand port trained below what its PortInfo enables: one
 * port_width and one port_speed finding on that end; none at what it
 * enables, none unknown (no PortInfo), none for a faster active speed
 * than the enabled one can say (XDR above PortInfo's NDR). */
TEST(port_enabled)
{
	struct path_report r;

	both(&r);
	r.f[0].width = 1;
	r.f[0].width_enabled = 4;
	r.f[0].speed = 4; /* QDR */
	r.f[0].speed_enabled = 32; /* EDR */
	path_findings(&r);
	CHECK(r.nfind == 2, "%u", r.nfind);
	CHECK(r.find[0].end == PATH_CLIENT && r.find[1].end == PATH_CLIENT);
	CHECK_STR(r.find[0].check, "port_width");
	CHECK_STR(r.find[0].text,
		  "mlx5_0:1: link active at 1x, below the 4x its port enables: a lane is down; reseat or replace the cable, check the switch port (ibportstate, ibstat)");
	CHECK_STR(r.find[1].check, "port_speed");
	CHECK_STR(r.find[1].text,
		  "mlx5_0:1: link active at QDR, below the EDR its port enables: the cable or the switch port holds it lower; check both (ibportstate, ibstat)");
	r.f[0].width = 4;
	r.f[0].speed = 32;
	path_findings(&r);
	CHECK(r.nfind == 0, "%u", r.nfind);
	r.f[0].width = 1;
	r.f[0].speed = 4;
	r.f[0].width_enabled = r.f[0].speed_enabled = 0;
	path_findings(&r);
	CHECK(r.nfind == 0, "%u", r.nfind);
	r.f[0].speed = 256; /* XDR */
	r.f[0].speed_enabled = 128;
	path_findings(&r);
	CHECK(r.nfind == 0, "%u", r.nfind);
	r.f[0].speed = 8; /* FDR10 ranks between QDR and FDR */
	r.f[0].speed_enabled = 16;
	path_findings(&r);
	CHECK(r.nfind == 1 && !strcmp(r.find[0].check, "port_speed"));
}

/* The SubnGet(PortInfo) SMP: directed route, hop count 0, the port in
 * the modifier; a GetResp of the same transaction decodes into the
 * widest enabled width and the fastest enabled speed (extended speeds
 * only where the capability mask says so); anything else is refused. */
TEST(portinfo_mad)
{
	uint8_t m[PI_MAD_SIZE], q[PI_MAD_SIZE];
	uint8_t *pi = m + 64;
	uint64_t tid = 0x0102030405060708ull;
	struct pi_link l;

	pi_request(q, 2, tid);
	CHECK(q[0] == 1 && q[1] == 0x81 && q[2] == 1 && q[3] == 0x01);
	CHECK(q[7] == 0, "hop count 0");
	CHECK(q[8] == 1 && q[15] == 8, "the transaction id, big-endian");
	CHECK(q[16] == 0 && q[17] == 0x15, "attribute PortInfo");
	CHECK(q[20] == 0 && q[23] == 2, "the port in the modifier");
	CHECK(q[32] == 0xff && q[35] == 0xff, "permissive DrSLID, DrDLID");
	memcpy(m, q, sizeof(m));
	m[3] = 0x81; /* GetResp */
	m[4] = 0x80; /* the D bit of a returning SMP */
	pi[22] = 0x40; /* CapabilityMask bit 14: extended speeds */
	pi[29] = 0x03; /* 1x | 4x enabled */
	pi[31] = 0x01; /* 1x active */
	pi[35] = 0x47; /* QDR active; SDR, DDR, QDR enabled */
	pi[62] = 0x23; /* EDR active (ext 2); FDR, EDR supported */
	pi[63] = 0x03; /* FDR, EDR enabled */
	CHECK(pi_decode(m, sizeof(m), tid, &l) == 0);
	CHECK(l.width_enabled == 4 && l.width_active == 1, "%u %u",
	      l.width_enabled, l.width_active);
	CHECK(l.speed_enabled == 32 && l.speed_active == 32, "%u %u",
	      l.speed_enabled, l.speed_active);
	pi[22] = 0; /* no extended speeds: those fields mean nothing */
	CHECK(pi_decode(m, sizeof(m), tid, &l) == 0);
	CHECK(l.speed_enabled == 4 && l.speed_active == 4, "%u %u",
	      l.speed_enabled, l.speed_active);
	pi[29] = 0x1b; /* 1x 4x 12x 2x */
	CHECK(pi_decode(m, sizeof(m), tid, &l) == 0 && l.width_enabled == 12);
	CHECK(pi_decode(m, sizeof(m), tid + 1, &l) < 0, "another transaction");
	CHECK(pi_decode(m, 100, tid, &l) < 0, "a short MAD");
	m[5] = 0x0c; /* attribute not supported */
	CHECK(pi_decode(m, sizeof(m), tid, &l) < 0, "a MAD status");
	m[5] = 0;
	m[3] = 0x01;
	CHECK(pi_decode(m, sizeof(m), tid, &l) < 0, "a Get, not an answer");
	CHECK(pi_width_lanes(16) == 2 && pi_width_lanes(3) == 0);
}

/* Link mode names as the kernel gives them: the speed leads the name;
 * the fastest set bit wins; names without a speed count for nothing. */
TEST(ethlink_names)
{
	static const char names[5][32] = {
		"10baseT/Half", "100000baseCR4/Full", "25000baseSR/Full",
		"Autoneg", "800000baseDR8/Full",
	};
	uint32_t mask = (1u << 0) | (1u << 2) | (1u << 3);

	CHECK(ethlink_name_speed("25000baseSR/Full") == 25000);
	CHECK(ethlink_name_speed("400000baseCR4/Full") == 400000);
	CHECK(ethlink_name_speed("Autoneg") == 0);
	CHECK(ethlink_name_speed("base") == 0);
	CHECK(ethlink_name_speed("10000") == 0);
	CHECK(ethlink_name_speed("99999999999999baseX") == 0);
	CHECK(ethlink_fastest(&mask, 5, names[0], 32) == 25000);
	mask |= 1u << 4;
	CHECK(ethlink_fastest(&mask, 5, names[0], 32) == 800000);
	CHECK(ethlink_fastest(&mask, 4, names[0], 32) == 25000);
	mask = 1u << 3;
	CHECK(ethlink_fastest(&mask, 5, names[0], 32) == 0);
	/* loopback has no link settings */
	CHECK(ethlink_advertised_max("lo") == 0);
}

/* RoCE v2 over IPv6 at 400 GbE: 48.79 GB/s, named as RoCE. */
TEST(roce_ceiling)
{
	struct path_report r;

	both(&r);
	for (int e = 0; e < 2; e++) {
		r.f[e].link_layer = FACTS_LL_ETH;
		r.f[e].roce = FACTS_ROCE_V2;
		r.f[e].ip6 = true;
	}
	path_ceiling(&r, &long_msgs);
	CHECK(fabs(r.ceil.bps - 48.7851e9) < 1e6, "%g", r.ceil.bps);
	CHECK_STR(r.ceil.what,
		  "4x NDR RoCE v2 port of the client (mlx5_0:1) at MTU 4096");
}

/* Sockets: loopback has no ceiling and says so; a 10G interface has one;
 * a server that sent no facts is said in the note; bidir doubles. */
TEST(sockets)
{
	struct path_report r;
	struct path_msg bi = { .bidir = true };

	memset(&r, 0, sizeof(r));
	r.have[0] = r.have[1] = true;
	facts_init(&r.f[0]);
	r.f[0].kind = FACTS_SOCK;
	r.f[0].loopback = true;
	r.f[1] = r.f[0];
	path_ceiling(&r, &long_msgs);
	CHECK(!r.ceil.valid);
	CHECK_STR(r.note, "loopback");
	r.f[0].loopback = false;
	snprintf(r.f[0].netdev, sizeof(r.f[0].netdev), "eth0");
	r.f[0].net_speed = 10000;
	r.f[0].net_mtu = 1500;
	r.have[1] = false;
	path_ceiling(&r, &long_msgs);
	CHECK(r.ceil.valid && fabs(r.ceil.bps - 1.17685e9) < 1e5, "%g",
	      r.ceil.bps);
	CHECK_STR(r.ceil.what,
		  "10000 Mb/s interface of the client (eth0) at MTU 1500");
	CHECK(strstr(r.note, "server's side is unknown") != NULL, "%s",
	      r.note);
	path_ceiling(&r, &bi);
	CHECK(fabs(r.ceil.bps - 2 * 1.17685e9) < 1e5);
	/* a virtual interface (veth: no device behind it) is no limit */
	r.f[0].virt = true;
	snprintf(r.f[0].netdev, sizeof(r.f[0].netdev), "veth0");
	path_ceiling(&r, &long_msgs);
	CHECK(!r.ceil.valid);
	CHECK_STR(r.note, "virtual interface veth0 of the client: its speed "
			  "is nominal, not a limit");
}

/* The codec: a round trip keeps every field; a bad value or a truncated
 * block fails and leaves empty facts; unknown items are ignored. */
/* The message-rate ceiling is the winning limit's at the message size:
 * 64-byte sends between clean 4x NDR ends (MTU 4096): 50e9 / 90 =
 * 555.56 M/s (the port; PCIe Gen5 x16's 64-byte TLPs allow 716 M/s);
 * a stream (TCP) and long messages have none. */
TEST(msg_rate_ceiling)
{
	struct path_report r;
	struct path_msg m = { .size = 64 };

	both(&r);
	path_ceiling(&r, &m);
	CHECK(fabs(r.ceil.msg_rate - 555.556e6) < 1e3, "%g", r.ceil.msg_rate);
	CHECK_STR(r.ceil.what, "4x NDR port of the client (mlx5_0:1) at MTU 4096");
	CHECK(fabs(r.ceil.msg_rate * 64 - r.ceil.bps) < 1);
	r.f[1].pcie_gen = 3;
	r.f[1].pcie_width = 4; /* 3.938 GB/s x 64/88: 44.75 M/s */
	path_ceiling(&r, &m);
	CHECK_STR(r.ceil.what, "PCIe Gen3 x4 of the server (0000:3b:00.0)");
	CHECK(fabs(r.ceil.msg_rate - 44.7552e6) < 1e3, "%g", r.ceil.msg_rate);
	path_ceiling(&r, &long_msgs);
	CHECK(r.ceil.valid && r.ceil.msg_rate == 0 && !r.ceil.stream);
	m.stream = true;
	path_ceiling(&r, &m);
	CHECK(r.ceil.valid && r.ceil.msg_rate == 0 && r.ceil.stream);
}

TEST(codec)
{
	struct path_facts f, g;
	uint8_t buf[FACTS_ENC_MAX + 16];
	size_t n;

	clean_rdma(&f, "mlx5_0");
	f.dev_numa = 1;
	f.ip6 = true;
	f.virt = true; /* every flag travels */
	snprintf(f.netdev, sizeof(f.netdev), "ib0");
	f.net_speed = 400000;
	f.net_speed_max = 800000;
	f.width_enabled = 12;
	f.speed_enabled = 64;
	n = facts_encode(&f, buf, sizeof(buf));
	CHECK(n > TLV_HDR && n <= FACTS_ENC_MAX);
	CHECK(facts_decode(buf, n, &g) == 0);
	CHECK(memcmp(&f, &g, sizeof(f)) == 0);
	CHECK(facts_decode(buf, n - 1, &g) < 0 && g.kind == FACTS_NONE);
	CHECK(facts_encode(&f, buf, 20) == 0);
	{ /* a NUMA node of 5000 (+1 on the wire) is refused */
		struct tlv_w w;

		tlv_init(&w, buf, sizeof(buf));
		tlv_u32(&w, 1, FACTS_RDMA);
		tlv_u32(&w, 18, 5001);
		n = tlv_finish(&w);
		CHECK(facts_decode(buf, n, &g) < 0 && g.dev_numa == -1);
		tlv_init(&w, buf, sizeof(buf));
		tlv_u32(&w, 1, FACTS_RDMA);
		tlv_u32(&w, 999, 7); /* a later build's item */
		tlv_bytes(&w, 2, "mlx\x01", 4);
		n = tlv_finish(&w);
		CHECK(facts_decode(buf, n, &g) == 0 && g.kind == FACTS_RDMA);
		CHECK_STR(g.dev, "mlx?");
	}
}

int main(void)
{
	RUN(clean_no_findings);
	RUN(pcie_degraded_server);
	RUN(numa_and_governor);
	RUN(mtu_checks);
	RUN(link_speed);
	RUN(port_enabled);
	RUN(portinfo_mad);
	RUN(ethlink_names);
	RUN(roce_ceiling);
	RUN(sockets);
	RUN(msg_rate_ceiling);
	RUN(codec);
	return harness_done();
}
