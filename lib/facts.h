/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The path facts of one end of a test (issue 18): what its link, its
 * device's PCIe link and its host say, as far as this end can see them.
 * The ceiling and the host checks (lib/path.h) are computed from both
 * ends' facts; the server's travel to the client in its STAT block
 * (STATX_FACTS) when the client announced CAP_FACTS.
 *
 * The codec is pure: facts_encode() writes TLV items (lib/tlv.h) into a
 * buffer; facts_decode() takes a peer's bytes, hostile or not, and either
 * fills a whole struct of checked values or fails.
 */
#ifndef QPERF_FACTS_H
#define QPERF_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum facts_kind {
	FACTS_NONE = 0, /* nothing known */
	FACTS_RDMA = 1, /* an RDMA port */
	FACTS_SOCK = 2 /* a socket over an interface (or loopback) */
};

enum facts_link {
	FACTS_LL_IB = 1, /* InfiniBand */
	FACTS_LL_ETH = 2 /* Ethernet (RoCE) */
};

/* RoCE addressing, as the GID the test used says. */
enum facts_roce { FACTS_ROCE_V1 = 1, FACTS_ROCE_V2 = 2 };

#define FACTS_NAME 64
#define FACTS_NUMA_MAX 1023 /* nodes above are refused */

struct path_facts {
	uint32_t kind; /* enum facts_kind */
	/* RDMA: the device and port; sockets: the interface */
	char dev[FACTS_NAME];
	uint32_t port; /* 1-based; 0 for sockets */
	uint32_t link_layer; /* enum facts_link; 0 unknown */
	uint32_t speed; /* rdma-core speed code (1 SDR .. 256 XDR); 0 unknown */
	uint32_t width; /* lanes: 1, 2, 4, 8, 12; 0 unknown */
	uint32_t active_mtu, max_mtu; /* bytes; 0 unknown */
	uint32_t path_mtu; /* bytes: the MTU the test's connection used */
	uint32_t pkt_extra; /* transport header bytes per packet beyond the
			     * BTH (UD: DETH 8) */
	uint32_t roce; /* enum facts_roce; 0: not RoCE */
	bool ip6; /* RoCE v2 / sockets over IPv6 */
	bool loopback; /* sockets: over the loopback interface */
	bool virt; /* sockets: a virtual interface (no device behind it:
		    * veth, bridge, tun): its speed is nominal, no limit */
	/* The PCI function of the device (RDMA device or interface) */
	char pci[16]; /* "0000:3b:00.0"; "" unknown */
	uint32_t pcie_gen, pcie_width; /* as trained; 0 unknown */
	uint32_t pcie_max_gen, pcie_max_width; /* the device's maximum */
	int32_t dev_numa; /* -1: none or unknown */
	int32_t test_numa; /* node of the test's CPU/memory; -1 unknown */
	char governor[16]; /* cpufreq of the test's CPU; "" none */
	/* The network interface: the socket's, or the RDMA port's netdev */
	char netdev[FACTS_NAME];
	uint32_t net_speed; /* Mb/s; 0 unknown */
	uint32_t net_speed_max; /* Mb/s: the fastest mode it advertises
				 * (ethtool); 0 unknown */
	uint32_t net_mtu; /* bytes; 0 unknown */
	/* InfiniBand: what the port's PortInfo enables (lib/portinfo.h),
	 * beside the active speed and width above; 0 unknown */
	uint32_t width_enabled; /* lanes: the widest enabled */
	uint32_t speed_enabled; /* rdma-core speed code: the fastest */
};

/* Empty facts: kind FACTS_NONE, NUMA nodes -1. */
void facts_init(struct path_facts *f);

/* TLV item types of the facts value (the value of STATX_FACTS is a
 * sequence of these items, each as lib/tlv.h writes them). */
#define FACTS_ENC_MAX 512 /* bytes: every item at its largest */

/*
 * Write f as items into out (cap bytes).  Returns the bytes written, or 0
 * if cap is too small (FACTS_ENC_MAX always suffices).  Pure.
 */
size_t facts_encode(const struct path_facts *f, uint8_t *out, size_t cap);
/*
 * Decode len bytes of items into f (reset first).  Unknown items are
 * ignored; a known one with a bad length or value fails the whole.
 * Strings: printable ASCII only (others become '?').  Returns 0 or -1
 * (f then holds empty facts).  Pure.
 */
int facts_decode(const uint8_t *in, size_t len, struct path_facts *f);

#endif
