/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the verbs transports: the per-session state and the helpers the
 * verbs*.c files share.  verbs_node.c holds the pure functions (NODE and
 * NODE extension codecs, peer checks, GID choice, MTU and rate tables),
 * unit-tested on exact bytes; verbs.c opens and closes sessions,
 * verbs_qp.c creates and connects QPs, verbs_data.c posts and polls.
 * What differs between the QP kinds is in each kind's struct verbs_kind
 * (rc.c, uc.c, ud.c, xrc.c), never in a test of the kind here.
 */
#ifndef QPERF_VERBS_INT_H
#define QPERF_VERBS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "transport.h"
#include "verbs.h"

#define VERBS_NODE_SIZE 40 /* bytes, 0.4.11's NODE */
#define VERBS_GRH 40 /* bytes before every UD receive */
#define VERBS_QKEY 0x11111111u
#define VERBS_NCQE 1024 /* 0.4.11's send WRs of the write-poll tests */
#define VERBS_INLINE 128 /* bytes of inline data asked for at QP create */
#define VERBS_EXT_MAX 512 /* bytes, our NODE extension block at most */
#define VERBS_BATCH 32 /* WRs chained per post call, WCs per poll call */

/* 0.4.11's NODE (spec §2.10), decoded. */
struct verbs_node {
	uint64_t vaddr;
	uint32_t lid, qpn, psn, srqn, rkey, alt_lid, rd_atomic;
};

/* NODE extension item types (u16, lib/tlv.h).  Never renumber. */
enum verbs_ext_item {
	VX_GID = 1, /* 16 bytes */
	VX_GID_INDEX = 2, /* u32 */
	VX_GID_TYPE = 3, /* u32, enum verbs_gid_type */
	VX_ACTIVE_MTU = 4, /* u32, bytes */
	VX_LINK_LAYER = 5, /* u32, VL_* */
	VX_MTU_SIZE = 6, /* u32, bytes: the mtu_size this side asks for */
	VX_MTU_EXPLICIT = 7, /* u32, 1 if -mt was given */
	VX_XRC_INI_QPN = 8, /* u32 */
	VX_XRC_TGT_QPN = 9, /* u32 */
	VX_XRC_SRQN = 10, /* u32 */
	VX_DEVICE = 11, /* bytes, device name, no NUL */
	VX_PORT = 12, /* u32 */
	VX_GID_FORCED = 13, /* u32, 1: this side's GID index was given */
	VX_GID_CAND = 14, /* 24 bytes, up to 4 times: u32 index, u32 type,
			   * GID; this side's best GID of each type and family */
	VX_NUMA_NODE = 15 /* u32: the node this side placed its buffers on
			   * (absent: none), for the report */
};

/* Link layers on the wire. */
#define VL_IB 1u
#define VL_ETH 2u

/* Bits of verbs_ext.have. */
#define VXH_GID 0x1u
#define VXH_XRC 0x2u
#define VXH_MTU 0x4u
#define VXH_LINK 0x8u
#define VXH_NUMA 0x10u

/* One GID table entry, for the choice. */
struct verbs_gid_cand {
	uint8_t gid[16];
	uint32_t index;
	enum verbs_gid_type type;
};

#define VG_SLOTS 4 /* v1 IPv4, v1 IPv6, v2 IPv4, v2 IPv6 */

/* The NODE extension, decoded (missing items: have bits clear, 0). */
struct verbs_ext {
	uint32_t have; /* VXH_* */
	uint8_t gid[16];
	uint32_t gid_index, gid_type;
	uint32_t active_mtu, mtu_size, mtu_explicit; /* bytes, bytes, 0/1 */
	uint32_t link_layer; /* VL_* */
	uint32_t xrc_ini_qpn, xrc_tgt_qpn, xrc_srqn;
	uint32_t port;
	char device[64];
	uint32_t gid_forced; /* 0/1 */
	uint32_t numa_node; /* with VXH_NUMA */
	int ncand; /* VX_GID_CAND items */
	struct verbs_gid_cand cand[VG_SLOTS];
};

/* What one side offers for the RoCE GID: its choice, whether that was
 * given (-1 < gid_index), and its best entry of each type and family. */
struct verbs_gid_set {
	struct verbs_gid_cand pick;
	bool forced;
	bool have[VG_SLOTS];
	struct verbs_gid_cand best[VG_SLOTS];
};

struct verbs_priv;
struct rdma_cm_event;

/*
 * One QP kind (RC, UC, UD, XRC): what the shared code does differently
 * for it, as values and operations.  A NULL operation does nothing.
 */
struct verbs_kind {
	enum ibv_qp_type qp_type;
	uint32_t rx_off; /* bytes before each receive's data (UD: the GRH) */
	unsigned int access; /* INIT: remote access flags; 0: a Q_Key */
	/* Issues reads and atomics: RTS gets timeout, retries and the
	 * peer's read/atomic depth (NODE check: at most 255). */
	bool reads;
	/* The QP answers reads and atomics itself: RTR gets this side's
	 * depth and the RNR timer; RDMA CM trades depths. */
	bool responds;
	bool alt_path; /* RTS: the alternate path, if both sides have one */
	bool mtu_bound; /* a message must fit the path MTU */
	/* RDMA CM connects the QP (not SIDR): port space TCP, disconnect
	 * at close, path MTU from the QP; else NODE still names the QP. */
	bool connected;
	bool ext_only; /* only with a 0.5 peer (the NODE extension) */
	/* Makes its own SRQ (NODE's srqn, checked to 24 bits): --use_srq
	 * needs no SRQ support of the device. */
	bool srq_own;
	bool cm; /* can connect through RDMA CM (-cm1) ... */
	bool cm_legacy; /* ... even with a 0.4.11 peer */

	/* Make the QP(s), after the CQ; verbs_qp_made() follows. */
	int (*create)(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen);
	/* INIT -> RTR -> RTS with the peer's NODE (and extension). */
	int (*connect)(struct tsess *s, struct verbs_priv *v, char *err,
		       size_t errlen);
	/* Add this kind's items to this side's NODE extension. */
	void (*ext_fill)(const struct verbs_priv *v, struct verbs_ext *x);
	/* Check and take the peer's extension items of this kind. */
	int (*peer_check)(struct tsess *s, struct verbs_priv *v, char *err,
			  size_t errlen);
	/* Address a send WR of QP qi to the peer (its QP peer_qpns[qi]). */
	void (*address)(const struct verbs_priv *v, struct ibv_send_wr *w,
			uint32_t qi);
	/* A completion of a stranger's datagram (not from peer_qpn, the
	 * peer's QP of the receiving one): not counted, its receive posted
	 * again. */
	bool (*stray)(const struct verbs_priv *v, const struct ibv_wc *wc,
		      uint32_t peer_qpn);
	/* RDMA CM: ESTABLISHED arrived (client); after the NODE exchange. */
	void (*cm_established)(struct verbs_priv *v,
			       const struct rdma_cm_event *ev);
	int (*cm_finish)(struct tsess *s, struct verbs_priv *v, char *err,
			 size_t errlen);
};

extern const struct verbs_kind verbs_kind_rc, verbs_kind_uc, verbs_kind_ud,
	verbs_kind_xrc;

/* One QP's figures (--qps, verbs_qps.c). */
struct verbs_qpc {
	uint64_t msgs; /* counted as the loop counts: sends and writes when
			* posted, receives and reads when complete */
	uint32_t out; /* send-queue WRs posted, not yet complete */
	uint32_t run; /* --cq_moderation: WRs posted since its last
		       * signalled one */
};

/* Per-session state: s->priv. */
struct verbs_priv {
	bool no_device; /* this host has no RDMA device at all */
	const struct verbs_kind *k;
	bool opened_once; /* open() ran: close() has something to do */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	/* rc_conn (verbs_rcconn.c), which arms its CQ itself: notification
	 * requested, no event taken since */
	bool armed;
	struct ibv_cq *cq;
	struct ibv_qp *qp; /* RC/UC/UD QP, or the XRC send (INI) QP */
	struct ibv_qp *tgt; /* XRC receive (TGT) QP (tgts[0]) */
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq; /* XRC SRQ */
	struct ibv_ah *ah; /* UD */
	struct ibv_mr *mr;
	void *mem; /* page-aligned buffer (s->buf) */
	bool mapped; /* mem is verbs_map()'s (hugepages, odp), not malloc's */
	size_t memlen, reglen; /* bytes allocated, bytes registered */
	/*
	 * --qps (verbs_qps.c): nqp QPs, qps[0] the one above (qp), each
	 * peered with the peer's QP of its index (peer_qpns) and counted in
	 * qc; ncq CQs, cqs[0] the one above (cq): one, or one per QP
	 * (--cq_per_qp).  With one QP every array is the one field it
	 * names (qps == &qp, cqs == &cq, peer_qpns == &peer.qpn, ...), so
	 * that the data path is the same code for one QP and for many.
	 */
	uint32_t nqp, ncq;
	struct ibv_qp **qps;
	struct ibv_cq **cqs;
	uint32_t *peer_qpns;
	/* XRC: TGT QP i receives from the peer's send QP i (peer_qpns[i])
	 * and send QP i sends to the peer's TGT QP i (peer_tgts[i]); one
	 * QP: &tgt, &xpeer.xrc_tgt_qpn */
	struct ibv_qp **tgts;
	uint32_t *peer_tgts;
	struct verbs_qpc *qc;
	uint32_t cq_next; /* the CQ the next poll starts at */
	uint32_t qp_next; /* the QP the next send goes to (round robin) */
	uint32_t turn; /* send WRs one QP takes in its turn */
	uint32_t srq_wr; /* receives of the SRQ (--use_srq): all QPs' */
	/* Receives owed (several QPs, no SRQ): the QP of each receive
	 * that completed, in order, until post() posts it again. */
	uint32_t *rx_ring, rx_cap, rx_head, rx_len;
	uint64_t *qpn_ix; /* sorted qpn << 32 | index: an SRQ receive's QP */
	uint64_t setup_ns; /* making, exchanging and connecting the QPs */
	uint64_t proc_B; /* the process's growth while they were made */
	struct verbs_qpc qc1; /* qc of one QP */
	bool write_imm; /* the last write posted carried an immediate */
	uint8_t port, alt_port;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	enum ibv_mtu path_mtu;
	enum ibv_rate rate;
	uint32_t send_wr, recv_wr;
	/* Open loop (TF_SLOTS, verbs_slots.c): nslots receive slots then
	 * nslots send slots of slot_len bytes each in mem; 0: one message
	 * buffer.  rx_next, tx_next: the slot the next receive or send
	 * takes (round robin; receives complete in the order posted). */
	uint32_t nslots, rx_next, tx_next;
	size_t slot_len;
	unsigned short seed[3]; /* nrand48 state for the PSN */
	struct verbs_node me, peer;
	struct verbs_ext xme, xpeer;
	union ibv_gid gid; /* RoCE: this side's source GID */
	struct verbs_gid_set gids; /* RoCE: what this side offers */
	struct verbs_info info;
	/* --post_list: send WRs chained per ibv_post_send (plist entries) */
	uint32_t plist;
	struct ibv_send_wr *swr;
	struct ibv_sge *ssg;
	/* --cq_moderation: each QP signals every mod-th of its WRs (and
	 * sooner, below); a signalled WR carries in its wr_id the run it
	 * completes (itself and the unsignalled ones before it on its QP).
	 * Several QPs: the QP run_qp - 1 (0: none) holds the one run still
	 * open, and takes the next WRs until it is signalled; the last WR of
	 * a post call, and one that fills its QP's queue, are signalled. */
	uint32_t mod; /* > 1: moderation on */
	uint32_t run_qp;
	uint32_t send_share; /* each QP's share of the send WRs (send_wr:
			      * at least mod) */
	uint32_t owed; /* completions of a run not yet handed to the loop */
	enum op owed_op;
	int numa_node; /* where the buffer was placed; -1: not placed */
	uint32_t peer_qkey; /* UD: Q_Key of the peer's QP */
	/* RDMA CM (-cm1, verbs_cm.c): the connection's id owns the QP, and
	 * the device context belongs to librdmacm (never closed here). */
	bool cm;
	struct rdma_event_channel *cm_ch;
	/* server: the listener; rc_conn's client: the id that found the
	 * device at open, held to the end (its context holds PD and CQ) */
	struct rdma_cm_id *cm_listen;
	struct rdma_cm_id *cm_id; /* the connection */
	bool cm_connected; /* RC/UC: ESTABLISHED seen, not yet DISCONNECTED */
	uint8_t cm_resp, cm_init; /* server: the request's depths */
	struct ibv_ah_attr cm_ah; /* UD client: the server's address */
};

struct rdma_event_channel;
struct rdma_cm_id;

/* ---- verbs_node.c: pure functions ---- */

/* Encode / decode 0.4.11's 40-byte NODE; every byte written, padding 0. */
void verbs_node_encode(const struct verbs_node *n,
		       uint8_t out[VERBS_NODE_SIZE]);
void verbs_node_decode(const uint8_t in[VERBS_NODE_SIZE],
		       struct verbs_node *n);

/* Encode the extension into buf (cap bytes): returns its size, or 0. */
size_t verbs_ext_encode(const struct verbs_ext *x, uint8_t *buf, size_t cap);
/* Decode a whole block; unknown items are ignored.  Returns 0, or -1 if
 * the block is malformed (bad header, truncated item, wrong length). */
int verbs_ext_decode(const uint8_t *blk, size_t len, struct verbs_ext *x);

/*
 * Check the peer's NODE for this side: its QP kind, whether this side posts
 * operations on the peer's memory (rdma) or reads/atomics (rd), whether
 * the link is InfiniBand without GRH (lid_needed).  Returns 0, or -1 with
 * err filled.
 */
int verbs_node_check(const struct verbs_node *n, const struct verbs_kind *k,
		     bool rdma, bool rd, bool lid_needed, char *err,
		     size_t errlen);

/* MTU bytes -> enum (0 if not 256..4096, a power of two), and back. */
enum ibv_mtu verbs_mtu_enum(uint32_t bytes);
uint32_t verbs_mtu_bytes(enum ibv_mtu m);

/* Spec §4.4 rate names; returns 0 and sets *rate, or -1 if unknown. */
int verbs_rate_parse(const char *name, enum ibv_rate *rate);

/*
 * The path MTU this side uses: explicit ? mtu_size : min(mtu_size,
 * own_active, peer_active if non-zero).  An explicit MTU above either
 * active MTU fails, naming both ports (own_name/peer_name, "dev:port").
 * Returns the MTU in bytes, or 0 with err filled.
 */
uint32_t verbs_path_mtu(uint32_t mtu_size, bool expl, uint32_t own_active,
			uint32_t peer_active, const char *own_name,
			const char *peer_name, char *err, size_t errlen);

/* Address family of a GID: AF_INET for IPv4-mapped (::ffff:a.b.c.d). */
int verbs_gid_family(const uint8_t gid[16]);

/*
 * Choose the RoCE GID among n candidates for a control connection whose
 * local end is local (any family; AF_INET6 v4-mapped counts as IPv4).
 * Order: the connection's family, then RoCE v2 before v1, then the GID
 * equal to the local address, then not link-local, then the lowest
 * index.  All-zero GIDs never win.  Returns the candidate's position, or
 * -1 if none is usable.
 */
int verbs_gid_pick(const struct verbs_gid_cand *c, int n,
		   const struct sockaddr_storage *local);

/* The slot of a type and family in verbs_gid_set.best (-1 for IB). */
int verbs_gid_slot(enum verbs_gid_type t, int family);

/* This side's offer: pick (its choice), forced, and the best of the n
 * candidates in each slot by the order of verbs_gid_pick(). */
void verbs_gid_offer(const struct verbs_gid_cand *c, int n,
		     const struct sockaddr_storage *local,
		     const struct verbs_gid_cand *pick, bool forced,
		     struct verbs_gid_set *set);

/*
 * Settle the GIDs both ends use, the same way on both: the choices if
 * they are of one type and family; else a side whose index was not given
 * moves to its entry of the other side's type and family; else, neither
 * given, both move to the first type (v2, then v1) and family (the
 * client's first) that both have.  own_is_client orders the sides.
 * Returns 0 with *own_f and *peer_f set, or -1 with err naming both
 * choices.
 */
int verbs_gid_settle(const struct verbs_gid_set *own,
		     const struct verbs_gid_set *peer, bool own_is_client,
		     struct verbs_gid_cand *own_f, struct verbs_gid_cand *peer_f,
		     char *err, size_t errlen);

/* Both ends' GIDs must be of one type and family; else -1 with err. */
int verbs_gid_compat(const uint8_t *own, uint32_t own_index,
		     enum verbs_gid_type own_type, const uint8_t *peer,
		     uint32_t peer_index, enum verbs_gid_type peer_type,
		     char *err, size_t errlen);

/* "<test> failed: <status>" for an error completion, in 0.4.11's words
 * ("rc_bw failed: Retries exceeded"; "... CQ error N" past its table). */
void verbs_wc_error(const char *test, int status, char *err, size_t errlen);

/* The error for a failed ibv_reg_mr of len bytes with errno e, given the
 * RLIMIT_MEMLOCK soft limit (RLIM_INFINITY: none). */
void verbs_reg_mr_error(size_t len, int e, uint64_t memlock, char *err,
			size_t errlen);


/* ---- verbs_qp.c ---- */

/* The creation attributes of an RC, UC or UD QP (QP qi of --qps), with
 * inline data. */
void verbs_qp_init_attr(const struct tsess *s, const struct verbs_priv *v,
			uint32_t qi, struct ibv_qp_init_attr *ia);
/* --use_srq: create the shared receive queue (no-op without it). */
int verbs_srq_create(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen);
/* After the QP is made: its inline size and number into s and v. */
int verbs_qp_made(struct tsess *s, struct verbs_priv *v, char *err,
		  size_t errlen);
/* Inline bytes asked for at QP creation: --inline_size, or 0.4.11's. */
uint32_t verbs_inline_ask(const struct tsess *s);
/* The address vector to the peer's dlid on port (own or alternate). */
void verbs_make_av(const struct tsess *s, const struct verbs_priv *v,
		   uint32_t dlid, uint8_t port, struct ibv_ah_attr *av);
/* ibv_modify_qp, or -1 with "failed to modify <what>: ..." in err. */
int verbs_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		 const char *what, char *err, size_t errlen);
/* Create the QP(s) of v's kind (its create operation), then
 * verbs_qp_made(). */
int verbs_qp_create(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen);
/* The create operation of RC, UC, UD: the --use_srq SRQ and the QP (or
 * --qps of them). */
int verbs_qp_create_one(struct tsess *s, struct verbs_priv *v, char *err,
			size_t errlen);
/* RESET -> INIT: every QP of v (and an XRC receive QP), or qp alone. */
int verbs_qp_init(struct tsess *s, struct verbs_priv *v, char *err,
		  size_t errlen);
int verbs_qp_init_one(struct tsess *s, struct verbs_priv *v,
		      struct ibv_qp *qp, char *err, size_t errlen);
/* RTR of qp toward the peer's QP dest; responds: qp answers reads and
 * atomics (this side's depth, the RNR timer). */
int verbs_qp_rtr(struct tsess *s, struct verbs_priv *v, struct ibv_qp *qp,
		 uint32_t dest, bool responds, const char *what, char *err,
		 size_t errlen);
/* RTS of qp, with what its kind issues (reads) and alt_path. */
int verbs_qp_rts(struct tsess *s, struct verbs_priv *v, struct ibv_qp *qp,
		 char *err, size_t errlen);
/* The connect operation of RC and UC: RTR, then RTS, of each QP. */
int verbs_qp_connect(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen);
/* Choose this side's GID (RoCE) into v->gid and v->info. */
int verbs_addr_choose(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen);

/* ---- verbs_cm.c: connections through RDMA CM (-cm1) ---- */

/*
 * Before the PD and CQ exist: the server listens, announces the CM port
 * and takes the connection request of the control connection's host
 * (others are rejected); the client receives the port and resolves the
 * address and route.  Sets v->ctx (librdmacm's), v->port, the device
 * name and v->dattr.  Blocks up to the timeout.  0, or -1 with err.
 */
int verbs_cm_device(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen);
/* Create the QP on the id and connect (client, retrying a connection
 * refused within the timeout) or accept (server).  0, or -1 with err. */
int verbs_cm_connect(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen);
/* The event channel v->cm_ch, non-blocking.  0, or -1 with err filled
 * (v->no_device: no RDMA CM here). */
int verbs_cm_channel(struct verbs_priv *v, char *err, size_t errlen);
/* v->ctx (librdmacm's), v->port, the device name and v->dattr from a
 * bound or resolved id; one already set must be the id's.  0, or -1. */
int verbs_cm_take_device(struct verbs_priv *v, struct rdma_cm_id *id,
			 char *err, size_t errlen);
/* in with port into out (a v4-mapped address becomes plain IPv4): its
 * family, or AF_UNSPEC for an address of neither family. */
int verbs_cm_sockaddr(const struct sockaddr_storage *in, uint16_t port,
		      struct sockaddr_storage *out);
/* Disconnect and destroy the QP (before the CQ goes), then the ids and
 * channel (after everything else).  Bounded; never fail. */
void verbs_cm_close_qp(struct verbs_priv *v);
void verbs_cm_release(struct verbs_priv *v);

/* ---- verbs_qps.c: several QPs in one session (--qps) ---- */

/* The one-QP arrays (verbs_priv above): after v is zeroed. */
void verbs_qps_init(struct verbs_priv *v);
/* From s->p.qps and cq_per_qp, and the session's send and receive WRs
 * (v->send_wr, v->recv_wr: totals on entry): how many QPs and CQs, each
 * QP's share of the WRs (v->send_wr, v->recv_wr after), the SRQ's. */
void verbs_qps_plan(struct tsess *s, struct verbs_priv *v);
/* The device's and the process's limits against the plan (max_qp, max_cq,
 * RLIMIT_MEMLOCK, softverbs' RLIMIT_NOFILE): 0, or -1 with err naming
 * the limit and how many QPs would fit. */
int verbs_qps_check(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen);
/* Completions each of the session's CQs holds. */
uint64_t verbs_cq_size(const struct tsess *s, const struct verbs_priv *v);
/* Allocate the arrays of several QPs (none for one).  0, or -1. */
int verbs_qps_alloc(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen);
/* After the QPs are made: their QPN index (several QPs), the receives
 * owed to each before the first (the loop's first post). */
void verbs_qps_made(struct tsess *s, struct verbs_priv *v);
/* Free the arrays (after the QPs and CQs are destroyed); back to one. */
void verbs_qps_free(struct verbs_priv *v);
/* After NODE (and its extension): both ends' QPNs, in blocks of
 * VERBS_QPN_CHUNK, each end sending one then reading the peer's.  Only
 * with several QPs.  0, or -1 with err filled. */
int verbs_qpn_exchange(struct tsess *s, struct verbs_priv *v, char *err,
		       size_t errlen);
/* The QP the next send-queue WR goes to (round robin past full ones;
 * -1: every one is full), and how many more it takes now. */
int verbs_qp_pick(struct verbs_priv *v, uint32_t *room);
/* The QP of the next receive to post (the one owed longest). */
uint32_t verbs_qp_recv_next(struct verbs_priv *v);
/* The QP of completion wc (its wr_id, or its QPN for an SRQ receive). */
uint32_t verbs_qp_of(const struct verbs_priv *v, const struct ibv_wc *wc);
/* k send-queue WRs of op went to QP qi. */
void verbs_qp_posted(struct verbs_priv *v, uint32_t qi, uint32_t k,
		     enum op op);
/* A completion of op on QP qi (a stray datagram: stray). */
void verbs_qp_done(struct verbs_priv *v, uint32_t qi, enum op op,
		   bool stray);
/* Resident bytes of this process now (0 if /proc cannot say). */
uint64_t verbs_proc_bytes(void);
/* The transport's qp_stats operation (transport.h). */
void verbs_qp_stats(const struct tsess *s, struct qp_side *q,
		    uint64_t *counts);

#define VERBS_QPN_CHUNK 1000 /* QPNs in one block of the exchange */
/* The item of a QPN block: u32 index of the first, then u32 QPNs. */
#define VQ_QPNS 1

/* ---- verbs_data.c: the operations of the descriptors ---- */

int verbs_post(struct tsess *s, const struct twr *wr, uint32_t n, char *err,
	       size_t errlen);
int verbs_poll(struct tsess *s, struct tcomp *c, int max, uint64_t wait,
	       char *err, size_t errlen);

/* ---- verbs_mem.c: mappings, huge pages, On-Demand Paging ---- */

#define VERBS_HUGE_PAGE (2u << 20) /* bytes: the huge pages --hugepages uses */
/* Free 2 MiB huge pages the kernel has now (0 if it has none). */
long verbs_huge_free(void);
/* len rounded up to whole pages (huge: 2 MiB); 0 counts as 1 byte. */
size_t verbs_map_len(size_t len, bool huge);
/* 0 if pages huge pages are free; else -1 and err says what to reserve. */
int verbs_huge_check(uint64_t pages, char *err, size_t errlen);
/* An anonymous mapping of len bytes (rounded up), untouched; NULL with
 * err filled (huge pages lacking: verbs_huge_check()'s line). */
void *verbs_map(size_t len, bool huge, char *err, size_t errlen);
void verbs_unmap(void *mem, size_t len, bool huge);
/* Write one byte of every page: fault the range in. */
void verbs_touch(void *mem, size_t len, bool huge);
/* 0 if device ctx (named dev) has the On-Demand Paging that odp (enum
 * regmr_odp) needs, RC writes included; else -1 with err filled. */
int verbs_odp_check(struct ibv_context *ctx, const char *dev, uint32_t odp,
		    char *err, size_t errlen);
/* Register mem with access as odp asks: pinned, IBV_ACCESS_ON_DEMAND, or
 * the implicit region (NULL, SIZE_MAX); NULL with errno set. */
struct ibv_mr *verbs_reg(struct ibv_pd *pd, void *mem, size_t len,
			 unsigned access, uint32_t odp);
/* ibv_advise_mr(PREFETCH_WRITE, FLUSH) over mem: 0 or an errno value. */
int verbs_prefetch(struct ibv_pd *pd, const struct ibv_mr *mr, void *mem,
		   size_t len);

/* ---- verbs_knob.c: the knobs of 0.5 peers, NUMA placement ---- */

/* This side's knobs against its device and port (after device and port
 * are open): queue depths, SRQ, moderation, post list, traffic class,
 * P_Key index, NUMA node.  0, or -1 with err naming value and limit. */
int verbs_knobs_check(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen);
/* Allocate the post list and the moderation ring (after the QP sizes are
 * known).  0, or -1 with err filled. */
int verbs_knobs_alloc(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen);
void verbs_knobs_free(struct verbs_priv *v);
/* bits 8..31 of a signalled send WR's wr_id: the run it completes */
#define VERBS_WR_RUN_SHIFT 8
#define VERBS_WR_RUN_MAX 0xffffffu
/* The moderation of the session's test (0: none; never atomics). */
uint32_t verbs_mod_of(const struct tsess *s);
/* Does send WR w, next on QP qi, ask for a completion (then its run goes
 * into its wr_id)?  last: the last WR of this post call, or the one that
 * fills qi's queue (always signalled, so that every WR posted completes). */
bool verbs_mod_signal(struct verbs_priv *v, uint32_t qi,
		      struct ibv_send_wr *w, bool last);
/* The WRs the signalled send completion wc stands for (1 without
 * moderation); its QP's figures take the rest of its run. */
uint32_t verbs_mod_retire(struct verbs_priv *v, const struct ibv_wc *wc);
/*
 * Choose this side's NUMA node (--numa_node, else the node of the -ca
 * CPU, else the device's from sysfs) and bind len bytes at mem to it,
 * before they are touched.  Sets v->numa_node (-1: nothing placed) and a
 * note.  0, or -1 with err filled.
 */
int verbs_numa_place(struct tsess *s, struct verbs_priv *v, void *mem,
		     size_t len, char *err, size_t errlen);
/* The -v note "loc_numa_node" (this side, with why) or "rem_numa_node"
 * (the peer's, from its NODE extension; why NULL). */
void verbs_numa_note(struct tsess *s, bool peer, int node, const char *why);

/* ---- verbs.c ---- */

/* Opens a session's device through the RDMA CM: sets v->cm, v->ctx
 * (librdmacm's), v->port, the device name and v->dattr.  0, or -1 with
 * err filled (v->no_device: this host has none). */
typedef int verbs_dev_fn(struct tsess *s, struct verbs_priv *v, char *err,
			 size_t errlen);

/* The device of s->p.id (-i) opened into v->ctx (v->dattr queried);
 * -1 with err filled (v->no_device: this host has none). */
int verbs_device(struct tsess *s, struct verbs_priv *v, char *err,
		 size_t errlen);
int verbs_open(struct tsess *s, const struct verbs_kind *k, char *err,
	       size_t errlen);
/*
 * The connection-setup tests' open (rc_qp_setup, rc_conn): all of
 * verbs_open() but the QP, which each transaction makes, connects and
 * destroys: device (-i's, or cm_dev's) and port, CQ, PD, the registered
 * buffer, this side's address (the CM chooses its own).  0, or -1 with
 * err filled; close() releases what was made.
 */
int verbs_open_shared(struct tsess *s, const struct verbs_kind *k,
		      verbs_dev_fn *cm_dev, char *err, size_t errlen);
/*
 * NODE on the control connection, in halves: send this side's (v->me,
 * and with a 0.5 peer the NODE extension), receive the peer's into
 * v->peer, v->xpeer and v->info.  end_ok: a NODE naming QP 0 is the
 * peer's end (returns 1, no extension read).  0, or -1 with err filled.
 */
int verbs_node_send(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen);
int verbs_node_recv(struct tsess *s, struct verbs_priv *v, bool end_ok,
		    char *err, size_t errlen);
/* The peer's NODE (and extension) against this side's: link layer, QP
 * kind, RoCE GIDs settled, path MTU.  0, or -1 with err filled. */
int verbs_peer_check(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen);
/* Check this side's parameters against its device only; see transport.h.
 * verbs_check_cm: for a test whose device the RDMA CM picks (rc_conn). */
int verbs_check(struct tsess *s, const struct verbs_kind *k, char *err,
		size_t errlen);
int verbs_check_cm(struct tsess *s, const struct verbs_kind *k, char *err,
		   size_t errlen);
/* A kind whose messages must fit the path MTU (mtu_bound): is the
 * message size within m bytes?  0, or -1 with err filled. */
int verbs_mtu_fits(const struct tsess *s, const struct verbs_priv *v,
		   uint32_t m, char *err, size_t errlen);

/*
 * Define transport_<x>: the verbs code above for QP kind verbs_kind_<x>,
 * with label, TF_* flags and largest message (0: none of its own).
 */
/* The counters operation: the port's sysfs counters (verbs_counters.c). */
struct cnt_set;
void verbs_counters(struct tsess *s, struct cnt_set *c);

#define VERBS_TRANSPORT(x, lbl, fl, max)                                    \
	static int x##_open(struct tsess *s, char *err, size_t errlen)      \
	{                                                                   \
		return verbs_open(s, &verbs_kind_##x, err, errlen);         \
	}                                                                   \
	static int x##_check(struct tsess *s, char *err, size_t errlen)     \
	{                                                                   \
		return verbs_check(s, &verbs_kind_##x, err, errlen);        \
	}                                                                   \
	const struct transport transport_##x = {                            \
		.name = #x, .label = lbl, .flags = fl, .max_msg = max,      \
		.priv_size = sizeof(struct verbs_priv), .check = x##_check, \
		.open = x##_open, .close = verbs_close, .post = verbs_post, \
		.counters = verbs_counters, .qp_stats = verbs_qp_stats,     \
		.poll = verbs_poll, .facts = verbs_facts,                   \
		.rx_data = verbs_rx_data, .tx_data = verbs_tx_data,         \
	}
void verbs_close(struct tsess *s);

/*
 * Open loop (transports/verbs_slots.c).  verbs_slots_plan: from
 * s->p.slots, the buffer's slots (both ends alike: a write with
 * immediate names the peer's slot) and s->slots, what this device's
 * queues allow; after the device is open, before the queues and the
 * buffer are made.  verbs_slots_bytes: the buffer's bytes (0: no slots).
 * verbs_rx_data, verbs_tx_data: the transport's rx_data and tx_data.
 * verbs_slot_recv: the wr_id of the next receive (its slot in the upper
 * bits), verbs_slot_addr: where that receive's bytes go.
 * verbs_slot_send: the next send slot (index, and its start in *addr).
 * verbs_slot_of: the receive slot of a receive completion.
 */
void verbs_slots_plan(struct tsess *s, struct verbs_priv *v);
size_t verbs_slots_bytes(const struct verbs_priv *v);
char *verbs_rx_data(struct tsess *s, const struct tcomp *c);
char *verbs_tx_data(struct tsess *s);
uint64_t verbs_slot_recv(struct verbs_priv *v, uint64_t wr_id);
char *verbs_slot_addr(const struct verbs_priv *v, uint64_t wr_id);
uint32_t verbs_slot_send(struct verbs_priv *v, char **addr);
uint32_t verbs_slot_of(const struct verbs_priv *v, const struct ibv_wc *wc);

/* The link of an open session (transports/verbs_fabric.c). */
void verbs_facts(const struct tsess *s, struct path_facts *f);
/*
 * The enabled link width (lanes) and speed (rdma-core code) of InfiniBand
 * port port of device dev from its PortInfo, asked through libibumad
 * (transports/verbs_umad.c); both 0 where libibumad.so.3 is missing or
 * the port cannot be asked (no umad device, no permission).
 */
void verbs_umad_enabled(const char *dev, uint32_t port, uint32_t *width,
			uint32_t *speed);

#endif
