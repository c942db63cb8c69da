/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ceiling of a path: how many payload bytes per second a link can
 * carry at most, from its signalling rate, its line encoding and the
 * bytes every packet adds to the payload (docs/ceiling.md).  Pure
 * arithmetic: no I/O, no allocation; every rate out is payload bytes/s.
 *
 * InfiniBand lane rates are rdma-core's ibv_port_attr.active_speed codes
 * (active_speed_ex for XDR, 256): signalling Gb/s per lane and the data
 * Gb/s left after the encoding, as the IBTA counts them.  PCIe counts one
 * TLP of CEIL_PCIE_TLP_PAYLOAD bytes and CEIL_PCIE_TLP_OVERHEAD bytes of
 * header and framing.
 */
#ifndef QPERF_CEILING_H
#define QPERF_CEILING_H

#include <stdbool.h>
#include <stdint.h>

struct ceil_ib_speed {
	uint32_t code; /* ibv_port_attr.active_speed (_ex for XDR) */
	const char *name; /* "NDR" */
	double signal_gbps; /* per lane, line rate */
	double data_gbps; /* per lane, after the encoding (and FEC) */
	const char *encoding; /* "8b/10b", "64b/66b", "PAM4 + RS-FEC" */
};

/* The speed of rdma-core code (1, 2, 4, ... 256), or NULL. */
const struct ceil_ib_speed *ceil_ib_speed(uint32_t code);
/* The speed named name ("EDR", any case), or NULL. */
const struct ceil_ib_speed *ceil_ib_speed_named(const char *name);

/* Link layer and addressing of an RDMA path: which headers a packet has. */
enum ceil_link {
	CEIL_IB, /* InfiniBand, LID routed: LRH BTH ICRC VCRC */
	CEIL_IB_GRH, /* InfiniBand with a GRH */
	CEIL_ROCE_V1, /* Ethernet + GRH */
	CEIL_ROCE_V2_IP4, /* Ethernet + IPv4 + UDP */
	CEIL_ROCE_V2_IP6 /* Ethernet + IPv6 + UDP */
};

/* Bytes on the wire per packet beyond the payload (for Ethernet the
 * preamble, SFD and inter-frame gap included). */
uint32_t ceil_pkt_overhead(enum ceil_link l);

/* Extra bytes once per message by the operation (RETH 16 for RDMA write
 * and read, DETH 8 per packet of UD is in per_pkt below). */
#define CEIL_RETH 16
#define CEIL_DETH 8

/*
 * Payload bytes/s of a link of data_bps (bits/s after encoding) carrying
 * messages of msg bytes (0: long messages, the limit) in packets of at most
 * mtu payload bytes, each with per_pkt header bytes, plus per_msg bytes
 * once per message.  0 when an input is 0 (mtu) or negative.
 */
double ceil_payload_Bps(double data_bps, uint32_t mtu, uint32_t per_pkt,
			uint64_t msg, uint32_t per_msg);

/* An RDMA port: lanes x speed code at path MTU mtu over link l, messages
 * of msg bytes (0: long), per_msg as above.  0: an unknown speed. */
double ceil_rdma_Bps(uint32_t code, uint32_t lanes, enum ceil_link l,
		     uint32_t mtu, uint64_t msg, uint32_t per_msg);

/* PCIe: data Gb/s of one lane of generation gen (1..6), 0 if unknown. */
double ceil_pcie_lane_gbps(uint32_t gen);
#define CEIL_PCIE_TLP_PAYLOAD 256 /* bytes: a common Max_Payload_Size */
#define CEIL_PCIE_TLP_OVERHEAD 24 /* bytes: 4DW header 16, sequence 2,
				   * LCRC 4, framing 2 */
/* Payload bytes/s of a PCIe link gen x lanes in one direction; 0 if
 * unknown. */
double ceil_pcie_Bps(uint32_t gen, uint32_t lanes);
/* The same for messages of msg bytes (0: long), each in TLPs of at most
 * CEIL_PCIE_TLP_PAYLOAD bytes: a 64-byte message is one TLP of 88. */
double ceil_pcie_msg_Bps(uint32_t gen, uint32_t lanes, uint64_t msg);
/* The generation of a sysfs link speed ("16.0 GT/s PCIe"), 0 if none. */
uint32_t ceil_pcie_gen_of(const char *speed);

/* Ethernet for sockets: payload bytes/s of an interface of speed_mbps and
 * MTU mtu carrying TCP (with timestamps) or UDP datagrams of msg bytes
 * (udp true; 0: as large as a frame holds), over IPv4 or IPv6.  A frame
 * is at least 64 bytes (header to FCS): a short datagram is padded. */
double ceil_eth_Bps(uint32_t speed_mbps, uint32_t mtu, bool udp,
		    uint64_t msg, bool ip6);

#endif
