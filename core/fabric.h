/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What conf tells beyond 0.4.11's four strings (struct conf_ext): kernel,
 * machine, CPUs, NUMA nodes and the fabric state (RDMA devices, ports and
 * GIDs).  It travels between 0.5 peers in the CONF extension block, sent
 * by the server right after CONF when both announced CAP_CONF_EXT
 * (docs/protocol.md); a 0.4.11 peer never sees it.  Shown with -vx and
 * always in JSON.  The codec is pure; conf_ext_local() reads this host.
 */
#ifndef QPERF_FABRIC_H
#define QPERF_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "output/conf_text.h"
#include "lib/types.h"

/* TLV item types of the CONF extension block (unknown types ignored). */
enum confx_item {
	CONFX_KERNEL = 1, /* bytes: uname release */
	CONFX_MACHINE = 2, /* bytes: uname machine */
	CONFX_NUMA_NODES = 3, /* u32; absent: unknown */
	CONFX_CPUS = 4, /* u32: online CPUs */
	CONFX_DEV = 5, /* bytes: device name; starts a device */
	CONFX_DEV_NUMA = 6, /* u32: NUMA node of the last device */
	CONFX_PORT = 7, /* 8 x u32: port, state, phys_state, width,
			 * speed_mbps, link_layer, active_mtu, lid */
	CONFX_GID = 8, /* u32 index, u32 type, 16-byte GID: of the last port */
	CONFX_TRUNCATED = 9, /* u32 1: entries were left out */
	CONFX_FINDING = 10 /* bytes: a host check's name, NUL, its text; once
			    * per finding, to a client with CAP_FACTS
			    * (core/pathrun.h) */
};

#define CONFX_PORT_LEN 32
#define CONFX_GID_LEN 24

/* Fill x with this host's figures (valid = true).  Blocks only on RDMA
 * device queries. */
void conf_ext_local(struct conf_ext *x);

/*
 * Encode x into a TLV block of at most cap bytes (at least 64); entries
 * that do not fit are left out and CONFX_TRUNCATED is sent.  Returns the
 * block's size.  Pure.
 */
size_t conf_ext_encode(const struct conf_ext *x, uint8_t *out, size_t cap);

/* Decode a whole block into x (valid = true).  0, or -1 if malformed.
 * Pure. */
int conf_ext_decode(const uint8_t *in, size_t len, struct conf_ext *x);

/* Their text (ibstat names, -vx lines): output/conf_text.h. */

#endif
