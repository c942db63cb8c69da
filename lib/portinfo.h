/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An InfiniBand port's enabled link width and speed (issue 18 item 2:
 * "a port active below its enabled width or speed"), which only the
 * port's PortInfo attribute says (IBA 14.2.5.6; the kernel's sysfs has
 * the active ones only).  This file is the pure part: the directed-route
 * SubnGet(PortInfo) MAD to the local port (hop count 0) and the decoding
 * of its answer.  transports/verbs_umad.c sends it through libibumad.
 */
#ifndef QPERF_PORTINFO_H
#define QPERF_PORTINFO_H

#include <stddef.h>
#include <stdint.h>

#define PI_MAD_SIZE 256 /* bytes of an SMP */
#define PI_MGMT_CLASS_DR 0x81 /* subnet management, directed route */
#define PI_ATTR_PORTINFO 0x0015

/* What a PortInfo says of the link's widths and speeds. */
struct pi_link {
	uint32_t width_enabled; /* lanes: the widest LinkWidthEnabled; 0 */
	uint32_t width_active; /* lanes; 0 unknown */
	/* rdma-core speed codes (1 SDR .. 128 NDR, as ibv_port_attr's
	 * active_speed): the fastest enabled (LinkSpeedEnabled and, where
	 * the port has extended speeds, LinkSpeedExtEnabled); 0 unknown */
	uint32_t speed_enabled;
	uint32_t speed_active;
};

/*
 * Write the SubnGet(PortInfo) for port (1-based) of this HCA, as a
 * directed-route SMP of hop count 0 with transaction id tid, into mad
 * (PI_MAD_SIZE bytes).
 */
void pi_request(uint8_t mad[PI_MAD_SIZE], uint32_t port, uint64_t tid);

/*
 * Decode the answer to pi_request(..., tid) in mad (len bytes).  Returns
 * 0 and fills *l, or -1 if it is not a good GetResp(PortInfo) of that tid
 * (a short MAD, another class, attribute or transaction, a MAD status).
 */
int pi_decode(const uint8_t *mad, size_t len, uint64_t tid, struct pi_link *l);

/* Lanes of a PortInfo / ibv_port_attr width code (1 1x, 2 4x, 4 8x,
 * 8 12x, 16 2x), or 0. */
uint32_t pi_width_lanes(uint32_t code);

#endif
