// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ceiling arithmetic (lib/ceiling.h) against worked examples computed by
 * hand.  Rates are payload GB/s (1e9 bytes/s); a check allows 1e-4 of
 * relative error (the examples are written to 5-6 digits).
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "lib/ceiling.h"

#define GB 1e9
static bool near(double got, double want)
{
	return fabs(got - want) <= fabs(want) * 1e-4;
}
#define CHECK_NEAR(got, want) \
	CHECK(near((got), (want)), "%s: got %.6g, want %.6g", #got, (got), (want))

/*
 * 4x InfiniBand at MTU 4096, long messages.  A packet: 4096 payload +
 * LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 4122 bytes, so payload is 4096/4122
 * = 0.993692 of the data rate.  Data rate of 4 lanes (Gb/s):
 *   SDR 4 x 2 = 8      -> 1 GB/s x 0.993692 = 0.993692 GB/s
 *   DDR 16             -> 1.98738      QDR 32  -> 3.97477
 *   FDR10 4 x 10 = 40  -> 4.96846
 *   FDR 4 x 14.0625 x 64/66 = 54.5455 -> 6.81818 x 0.993692 = 6.77518
 *   EDR 4 x 25 = 100   -> 12.5 x 0.993692 = 12.4212
 *   HDR 200 -> 24.8423, NDR 400 -> 49.6846, XDR 800 -> 99.3692
 */
TEST(ib_4x_each_speed)
{
	static const struct { const char *name; uint32_t code; double gbs; }
	ex[] = {
		{ "SDR", 1, 0.993692 }, { "DDR", 2, 1.98738 },
		{ "QDR", 4, 3.97477 }, { "FDR10", 8, 4.96846 },
		{ "FDR", 16, 6.77518 }, { "EDR", 32, 12.4212 },
		{ "HDR", 64, 24.8423 }, { "NDR", 128, 49.6846 },
		{ "XDR", 256, 99.3692 },
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		const struct ceil_ib_speed *sp = ceil_ib_speed(ex[i].code);

		CHECK(sp && strcmp(sp->name, ex[i].name) == 0, "code %u",
		      ex[i].code);
		CHECK(ceil_ib_speed_named(ex[i].name) == sp);
		CHECK_NEAR(ceil_rdma_Bps(ex[i].code, 4, CEIL_IB, 4096, 0, 0),
			   ex[i].gbs * GB);
	}
	CHECK(ceil_ib_speed(3) == NULL);
	CHECK(ceil_ib_speed_named("PDR") == NULL);
	CHECK(ceil_rdma_Bps(3, 4, CEIL_IB, 4096, 0, 0) == 0);
}

/* Widths scale the lanes: 1x NDR = 49.6846 / 4 = 12.4212, 2x 24.8423,
 * 8x 99.3692, 12x 149.054; 12x SDR = 3 x 0.993692 = 2.98108. */
TEST(ib_widths)
{
	CHECK_NEAR(ceil_rdma_Bps(128, 1, CEIL_IB, 4096, 0, 0), 12.4212 * GB);
	CHECK_NEAR(ceil_rdma_Bps(128, 2, CEIL_IB, 4096, 0, 0), 24.8423 * GB);
	CHECK_NEAR(ceil_rdma_Bps(128, 8, CEIL_IB, 4096, 0, 0), 99.3692 * GB);
	CHECK_NEAR(ceil_rdma_Bps(128, 12, CEIL_IB, 4096, 0, 0), 149.054 * GB);
	CHECK_NEAR(ceil_rdma_Bps(1, 12, CEIL_IB, 4096, 0, 0), 2.98108 * GB);
	CHECK(ceil_rdma_Bps(128, 0, CEIL_IB, 4096, 0, 0) == 0);
}

/*
 * Smaller MTU and messages.  4x EDR at MTU 1024: 12.5 x 1024/1050 =
 * 12.1905.  With a GRH (26 + 40 = 66 bytes): 12.5 x
 * 4096/4162 = 12.3018.  RDMA write of 64 KiB at MTU 4096: 16 packets,
 * 65536 + 16 x 26 + RETH 16 = 65968 bytes: 12.5 x 65536/65968 = 12.4181.
 */
TEST(ib_mtu_and_messages)
{
	CHECK_NEAR(ceil_rdma_Bps(32, 4, CEIL_IB, 1024, 0, 0), 12.1905 * GB);
	CHECK_NEAR(ceil_rdma_Bps(32, 4, CEIL_IB_GRH, 4096, 0, 0),
		   12.3018 * GB);
	CHECK_NEAR(ceil_rdma_Bps(32, 4, CEIL_IB, 4096, 65536, CEIL_RETH),
		   12.4181 * GB);
	CHECK(ceil_rdma_Bps(32, 4, CEIL_IB, 0, 0, 0) == 0);
}

/*
 * RoCE v2, 400 GbE (4 lanes x 100 Gb/s, NDR's code), MTU 4096: a frame
 * on the wire is 4096 + BTH 12 + ICRC 4 + UDP 8 + IPv4 20 + Ethernet 14 +
 * FCS 4 + preamble/SFD 8 + gap 12 = 4178 bytes: 50 x 4096/4178 = 49.0187
 * GB/s; IPv6 (+20): 4198 bytes, 48.7851.  RoCE v1 (GRH 40, no IP/UDP):
 * 4096 + 94 = 4190 bytes, 48.8783.  100 GbE at MTU 1024: 12.5 x 1024/1106
 * = 11.5732.
 */
TEST(roce)
{
	CHECK(ceil_pkt_overhead(CEIL_ROCE_V2_IP4) == 82);
	CHECK(ceil_pkt_overhead(CEIL_ROCE_V2_IP6) == 102);
	CHECK(ceil_pkt_overhead(CEIL_IB) == 26);
	CHECK_NEAR(ceil_rdma_Bps(128, 4, CEIL_ROCE_V2_IP4, 4096, 0, 0),
		   49.0187 * GB);
	CHECK_NEAR(ceil_rdma_Bps(128, 4, CEIL_ROCE_V2_IP6, 4096, 0, 0),
		   48.7851 * GB);
	CHECK_NEAR(ceil_rdma_Bps(128, 4, CEIL_ROCE_V1, 4096, 0, 0),
		   48.8783 * GB);
	CHECK_NEAR(ceil_rdma_Bps(32, 4, CEIL_ROCE_V2_IP4, 1024, 0, 0),
		   11.5732 * GB);
}

/*
 * PCIe, 256-byte TLPs with 24 bytes of header and framing (256/280):
 * Gen4 x8: 16 GT/s x 128/130 x 8 lanes = 126.031 Gb/s = 15.7538 GB/s,
 * x 256/280 = 14.4035 GB/s.  Gen5 x16: 57.6141.  Gen3 x16 = Gen4 x8.
 * Gen1 x1: 2 Gb/s = 0.25 GB/s x 256/280 = 0.228571.  Gen6 x16: 64 x
 * 242/256 x 16 / 8 = 121 GB/s x 256/280 = 110.629.
 */
TEST(pcie)
{
	CHECK_NEAR(ceil_pcie_Bps(4, 8), 14.4035 * GB);
	CHECK_NEAR(ceil_pcie_Bps(5, 16), 57.6141 * GB);
	CHECK_NEAR(ceil_pcie_Bps(3, 16), 14.4035 * GB);
	CHECK_NEAR(ceil_pcie_Bps(1, 1), 0.228571 * GB);
	CHECK_NEAR(ceil_pcie_Bps(6, 16), 110.629 * GB);
	CHECK(ceil_pcie_Bps(7, 16) == 0 && ceil_pcie_Bps(4, 0) == 0);
	CHECK(ceil_pcie_gen_of("16.0 GT/s PCIe") == 4);
	CHECK(ceil_pcie_gen_of("2.5 GT/s PCIe") == 1);
	CHECK(ceil_pcie_gen_of("64.0 GT/s PCIe") == 6);
	CHECK(ceil_pcie_gen_of("Unknown") == 0);
	CHECK(ceil_pcie_gen_of("12.0 GT/s PCIe") == 0);
}

/*
 * Ethernet for sockets.  TCP over IPv4 at MTU 1500 with timestamps:
 * 1448 payload bytes per 1538 on the wire (1500 + 38).  10G: 1.25 GB/s x
 * 1448/1538 = 1.17685 GB/s; 25G: 2.94213; 10G at MTU 9000: 1.25 x
 * 8948/9038 = 1.23755; 10G over IPv6: 1428/1538, 1.16060.  UDP, 10G:
 * 1024-byte datagrams, 1024 + 8 + 20 + 38 = 1090: 1.17431; 32 KiB
 * datagrams in 23 fragments of 1480: 32768 + 8 + 23 x 58 = 34110, 1.20082.
 */
TEST(ethernet)
{
	CHECK_NEAR(ceil_eth_Bps(10000, 1500, false, 0, false), 1.17685 * GB);
	CHECK_NEAR(ceil_eth_Bps(25000, 1500, false, 0, false), 2.94213 * GB);
	CHECK_NEAR(ceil_eth_Bps(10000, 9000, false, 0, false), 1.23755 * GB);
	CHECK_NEAR(ceil_eth_Bps(10000, 1500, false, 0, true), 1.16060 * GB);
	CHECK_NEAR(ceil_eth_Bps(10000, 1500, true, 1024, false),
		   1.17431 * GB);
	CHECK_NEAR(ceil_eth_Bps(10000, 1500, true, 32768, false),
		   1.20082 * GB);
	CHECK(ceil_eth_Bps(0, 1500, false, 0, false) == 0);
	CHECK(ceil_eth_Bps(10000, 40, false, 0, false) == 0);
}

/*
 * Message rates (docs/ceiling.md, "Message-rate ceiling"): the payload
 * rate at the message size over the size, so every packet's headers
 * count.  64-byte RC sends on 4x HDR InfiniBand at MTU 4096: 4 x 50 Gb/s
 * = 25 GB/s of data; one packet of 64 + 26 = 90 bytes per message:
 * 25e9 / 90 = 277.78 M messages/s (17.778 GB/s of payload).  RDMA write
 * adds a RETH: 25e9 / 106 = 235.85 M/s.  8192-byte sends at MTU 4096 are
 * two packets, 8192 + 52 = 8244 bytes: 25e9 / 8244 = 3.0325 M/s.  On
 * 100GbE RoCE v2 (4 x 25 Gb/s, IPv4): 12.5e9 / (64 + 82) = 85.616 M/s.
 */
TEST(message_rates)
{
	CHECK_NEAR(ceil_rdma_Bps(64, 4, CEIL_IB, 4096, 64, 0) / 64, 277.778e6);
	CHECK_NEAR(ceil_rdma_Bps(64, 4, CEIL_IB, 4096, 64, 0), 17.7778 * GB);
	CHECK_NEAR(ceil_rdma_Bps(64, 4, CEIL_IB, 4096, 64, CEIL_RETH) / 64,
		   235.849e6);
	CHECK_NEAR(ceil_rdma_Bps(64, 4, CEIL_IB, 4096, 8192, 0) / 8192,
		   3.03251e6);
	CHECK_NEAR(ceil_rdma_Bps(32, 4, CEIL_ROCE_V2_IP4, 4096, 64, 0) / 64,
		   85.6164e6);
}

/*
 * UDP on 10 GbE (MTU 1500): a 64-byte datagram is a frame of 64 + 8 +
 * 20 + 18 = 110 bytes, 130 on the wire: 1.25e9 / 130 = 9.6154 M/s.  A
 * 1-byte datagram's 47-byte frame is padded to Ethernet's minimum 64:
 * 84 on the wire, 1.25e9 / 84 = 14.881 M/s, the 10 GbE line rate of
 * minimum frames published everywhere (14.88 Mpps).  PCIe counts a TLP
 * per 256 bytes: a 64-byte message on Gen4 x16 (31.508 GB/s of data) is
 * one TLP of 88 bytes: 31.508 x 64 / 88 = 22.914 GB/s, 358.04 M/s.
 */
TEST(short_messages)
{
	CHECK_NEAR(ceil_eth_Bps(10000, 1500, true, 64, false) / 64, 9.61538e6);
	CHECK_NEAR(ceil_eth_Bps(10000, 1500, true, 1, false), 14.881e6);
	CHECK_NEAR(ceil_pcie_msg_Bps(4, 16, 64), 22.9148 * GB);
	CHECK_NEAR(ceil_pcie_msg_Bps(4, 16, 64) / 64, 358.043e6);
	CHECK_NEAR(ceil_pcie_msg_Bps(4, 8, 0), ceil_pcie_Bps(4, 8));
	CHECK_NEAR(ceil_pcie_msg_Bps(4, 8, 65536), ceil_pcie_Bps(4, 8));
}

int main(void)
{
	RUN(ib_4x_each_speed);
	RUN(ib_widths);
	RUN(ib_mtu_and_messages);
	RUN(roce);
	RUN(pcie);
	RUN(ethernet);
	RUN(message_rates);
	RUN(short_messages);
	return harness_done();
}
