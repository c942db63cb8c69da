/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDMA verbs transports (rc, uc, ud, xrc): the descriptors, and what a
 * session learned about its addressing, for the core's -v output.
 * The code is in transports/verbs*.c; the descriptors in rc.c, uc.c,
 * ud.c and xrc.c.
 */
#ifndef QPERF_VERBS_H
#define QPERF_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

extern const struct transport transport_rc, transport_uc, transport_ud,
	transport_xrc;
/* reg_mr: registration cost on this host alone (verbs_regmr.c). */
extern const struct transport transport_regmr;
/* rc_qp_setup: an RC QP made and connected per transaction without the
 * RDMA CM (verbs_qpsetup.c). */
extern const struct transport transport_rc_qp_setup;
/* rc_conn: an RC connection per transaction through the RDMA CM
 * (verbs_rcconn.c). */
extern const struct transport transport_rc_conn;

/* GID types, as carried in the NODE extension (not libibverbs values). */
enum verbs_gid_type {
	VG_IB = 0, /* InfiniBand: no GRH, LID addressing */
	VG_ROCE_V1 = 1,
	VG_ROCE_V2 = 2
};

/*
 * Addressing of one open verbs session.  Filled by open() as far as it
 * got; the peer_* fields only once the peer's NODE (and extension) came.
 */
struct verbs_info {
	char device[64]; /* device name */
	uint32_t port; /* port number */
	bool roce; /* Ethernet link layer: GID addressing with a GRH */
	uint8_t gid[16]; /* this side's GID (InfiniBand: index 0's) */
	int gid_index; /* -1: none (InfiniBand: no GRH used) */
	enum verbs_gid_type gid_type;
	bool peer_known; /* the peer's NODE arrived */
	bool peer_ext; /* ... and its NODE extension (0.5 peer) */
	uint8_t peer_gid[16]; /* only with peer_ext */
	int peer_gid_index; /* -1: unknown or none */
	enum verbs_gid_type peer_gid_type;
	uint32_t lid, peer_lid; /* 0 on RoCE */
	uint32_t qpn, peer_qpn; /* XRC: the send (INI) QPs */
	uint32_t active_mtu, peer_active_mtu; /* bytes; peer 0 = unknown */
	uint32_t path_mtu; /* bytes, used for the connection */
	uint32_t max_inline; /* bytes */
	uint32_t rd_atomic, peer_rd_atomic; /* responder depths */
	uint32_t psn, peer_psn; /* initial PSNs (24 bits) */
	uint32_t rkey, peer_rkey;
	uint64_t vaddr, peer_vaddr; /* buffer addresses (for -D) */
};

/* The session's verbs_info, or NULL if s is not a verbs session.  The
 * pointer is valid until close(). */
const struct verbs_info *verbs_session_info(const struct tsess *s);

/* Text of a GID ("fe80::2c0:ffee:0:1", "::ffff:10.0.0.1") into out. */
void verbs_gid_str(const uint8_t gid[16], char *out, size_t len);

/* "InfiniBand", "RoCE v1", "RoCE v2". */
const char *verbs_gid_type_str(enum verbs_gid_type t);

/*
 * This host's RDMA devices and ports (transports/verbs_fabric.c): fills f
 * (no devices when none can be listed).  Blocks only on device queries.
 */
void verbs_fabric_query(struct fabric *f);

#endif
