// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ceiling arithmetic (lib/ceiling.h).  Sources: rdma-core's ibv_query_port
 * man page (active_speed 1 SDR 2.5, 2 DDR 5.0, 4 QDR 10.0, 8 FDR10 10.0,
 * 16 FDR 14.0, 32 EDR 25.0, 64 HDR 50.0, 128 NDR 100.0 Gb/s per lane;
 * active_speed_ex 256 XDR 200.0); the IBTA's line rates per lane (SDR..QDR
 * 8b/10b; FDR10 10.3125, FDR 14.0625, EDR 25.78125 Gb/s 64b/66b; HDR
 * 53.125, NDR 106.25, XDR 212.5 Gb/s PAM4 with RS-FEC: 50, 100, 200 data);
 * PCI Express base specifications (2.5 and 5 GT/s 8b/10b; 8, 16, 32 GT/s
 * 128b/130b; 64 GT/s in 256-byte FLITs of which 242 carry TLP bytes).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/ceiling.h"

static const struct ceil_ib_speed ib_speeds[] = {
	{ 1, "SDR", 2.5, 2.0, "8b/10b" },
	{ 2, "DDR", 5.0, 4.0, "8b/10b" },
	{ 4, "QDR", 10.0, 8.0, "8b/10b" },
	{ 8, "FDR10", 10.3125, 10.0, "64b/66b" },
	{ 16, "FDR", 14.0625, 14.0625 * 64 / 66, "64b/66b" },
	{ 32, "EDR", 25.78125, 25.0, "64b/66b" },
	{ 64, "HDR", 53.125, 50.0, "PAM4 + RS-FEC" },
	{ 128, "NDR", 106.25, 100.0, "PAM4 + RS-FEC" },
	{ 256, "XDR", 212.5, 200.0, "PAM4 + RS-FEC" },
};
#define NSPEEDS (sizeof(ib_speeds) / sizeof(ib_speeds[0]))

const struct ceil_ib_speed *ceil_ib_speed(uint32_t code)
{
	for (size_t i = 0; i < NSPEEDS; i++)
		if (ib_speeds[i].code == code)
			return &ib_speeds[i];
	return NULL;
}

const struct ceil_ib_speed *ceil_ib_speed_named(const char *name)
{
	for (size_t i = 0; i < NSPEEDS; i++)
		if (strcasecmp(ib_speeds[i].name, name) == 0)
			return &ib_speeds[i];
	return NULL;
}

/* Per packet, bytes: IB LRH 8, BTH 12, ICRC 4, VCRC 2, GRH 40; Ethernet
 * preamble + SFD 8, header 14, FCS 4, inter-frame gap 12 (38 in all), no
 * VCRC; RoCE v1: GRH 40; v2: IPv4 20 or IPv6 40, UDP 8. */
uint32_t ceil_pkt_overhead(enum ceil_link l)
{
	const uint32_t ib = 8 + 12 + 4 + 2, eth = 8 + 14 + 4 + 12;
	const uint32_t roce = eth + 12 + 4; /* BTH, ICRC */

	switch (l) {
	case CEIL_IB: return ib;
	case CEIL_IB_GRH: return ib + 40;
	case CEIL_ROCE_V1: return roce + 40;
	case CEIL_ROCE_V2_IP4: return roce + 20 + 8;
	case CEIL_ROCE_V2_IP6: return roce + 40 + 8;
	}
	return 0;
}

double ceil_payload_Bps(double data_bps, uint32_t mtu, uint32_t per_pkt,
			uint64_t msg, uint32_t per_msg)
{
	double pkts, wire;

	if (!(data_bps > 0) || !mtu)
		return 0;
	if (!msg) /* long messages: the per-message bytes vanish */
		return data_bps / 8 * mtu / (mtu + per_pkt);
	pkts = ceil((double)msg / mtu);
	wire = (double)msg + pkts * per_pkt + per_msg;
	return data_bps / 8 * (double)msg / wire;
}

double ceil_rdma_Bps(uint32_t code, uint32_t lanes, enum ceil_link l,
		     uint32_t mtu, uint64_t msg, uint32_t per_msg)
{
	const struct ceil_ib_speed *sp = ceil_ib_speed(code);

	if (!sp || !lanes)
		return 0;
	return ceil_payload_Bps(sp->data_gbps * 1e9 * lanes, mtu,
				ceil_pkt_overhead(l), msg, per_msg);
}

double ceil_pcie_lane_gbps(uint32_t gen)
{
	switch (gen) {
	case 1: return 2.5 * 8 / 10;
	case 2: return 5.0 * 8 / 10;
	case 3: return 8.0 * 128 / 130;
	case 4: return 16.0 * 128 / 130;
	case 5: return 32.0 * 128 / 130;
	case 6: return 64.0 * 242 / 256;
	default: return 0;
	}
}

double ceil_pcie_Bps(uint32_t gen, uint32_t lanes)
{
	double g = ceil_pcie_lane_gbps(gen);

	if (!g || !lanes)
		return 0;
	return g * 1e9 * lanes / 8 * CEIL_PCIE_TLP_PAYLOAD /
	       (CEIL_PCIE_TLP_PAYLOAD + CEIL_PCIE_TLP_OVERHEAD);
}

double ceil_pcie_msg_Bps(uint32_t gen, uint32_t lanes, uint64_t msg)
{
	return ceil_payload_Bps(ceil_pcie_lane_gbps(gen) * 1e9 * lanes,
				CEIL_PCIE_TLP_PAYLOAD, CEIL_PCIE_TLP_OVERHEAD,
				msg, 0);
}

uint32_t ceil_pcie_gen_of(const char *speed)
{
	static const struct { double gts; uint32_t gen; } g[] = {
		{ 2.5, 1 }, { 5.0, 2 }, { 8.0, 3 },
		{ 16.0, 4 }, { 32.0, 5 }, { 64.0, 6 },
	};
	char *end;
	double v;

	while (isspace((unsigned char)*speed))
		speed++;
	v = strtod(speed, &end);
	if (end == speed || strncmp(end, " GT/s", 5) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (fabs(v - g[i].gts) < 0.01)
			return g[i].gen;
	return 0;
}

/* Ethernet frame bytes beyond the IP packet: preamble + SFD 8, header 14,
 * FCS 4, inter-frame gap 12. */
#define ETH_WIRE 38
#define ETH_MIN_FRAME 64 /* header 14 to FCS 4 */
double ceil_eth_Bps(uint32_t speed_mbps, uint32_t mtu, bool udp,
		    uint64_t msg, bool ip6)
{
	uint32_t ip = ip6 ? 40 : 20;
	double bps = speed_mbps * 1e6, frags, wire;

	if (!speed_mbps || mtu <= ip + 32)
		return 0;
	if (!udp) /* TCP with timestamps: 20 + 12 bytes of TCP header */
		return bps / 8 * (mtu - ip - 32) / (mtu + ETH_WIRE);
	if (!msg || msg + 8 + ip <= mtu) { /* one frame per datagram */
		uint64_t m = msg ? msg : mtu - ip - 8;
		uint64_t frame = m + 8 + ip + 18; /* header 14, FCS 4 */

		if (frame < ETH_MIN_FRAME)
			frame = ETH_MIN_FRAME;
		return bps / 8 * (double)m / (double)(frame + ETH_WIRE - 18);
	}
	/* IP fragments of at most mtu - ip bytes (a multiple of 8) each */
	frags = ceil((double)(msg + 8) / ((mtu - ip) & ~7u));
	wire = (double)msg + 8 + frags * (ip + ETH_WIRE);
	return bps / 8 * (double)msg / wire;
}
