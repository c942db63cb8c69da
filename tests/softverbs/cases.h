/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Shared expectations for the semantics cases (semantics.c) and the
 * fault-injection cases (faults.c).  Each expect_* records one or two
 * checks and returns whether the expectation held.
 */
#ifndef SV_CASES_H
#define SV_CASES_H

#include "vhelp.h"

int expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status want,
	      const char *what, struct ibv_wc *out);
int expect_quiet(struct ibv_cq *cq, const char *what);
int expect_state(struct ibv_qp *qp, int want, const char *what);
void expect_access_event(struct sv_side *s, struct ibv_qp *qp);
void finish(struct sv_side *s, struct ibv_qp *qp, struct sv_buf *b1,
	    struct sv_buf *b2);
int post_ud(struct ibv_qp *qp, struct ibv_ah *ah, const struct sv_addr *peer,
	    uint32_t qkey, uint64_t wr_id, struct sv_buf *b, size_t off,
	    uint32_t len);

/* The error cases (errors.c). */
void t_bad_rkey(struct sv_side *s);
void t_mr_no_remote(struct sv_side *s);
void t_qp_no_remote(struct sv_side *s);
void t_out_of_bounds(struct sv_side *s);
void t_below_start(struct sv_side *s);
void t_bad_lkey(struct sv_side *s);
void t_rnr_exceeded(struct sv_side *s);
void t_rnr_wait(struct sv_side *s);
void t_recv_too_small(struct sv_side *s);
void t_psn_mismatch(struct sv_side *s);
void t_peer_destroyed(struct sv_side *s);
void t_peer_exit(struct sv_side *s);

/* More cases (extended.c). */
void t_uc_silent(struct sv_side *s);
void t_ud_no_recv_mtu(struct sv_side *s);
void t_qp_ex(struct sv_side *s);
void t_fork_child(struct sv_side *s);
void t_fabric_apart(struct sv_side *s);
void t_numa_sysfs(struct sv_side *s);
void t_knob_limits(struct sv_side *s);
void t_odp(struct sv_side *s);

/* The fault-injection cases (faults.c), spliced into the test table. */
void t_fault_ud_drop(struct sv_side *s);
void t_fault_uc_drop(struct sv_side *s);
void t_fault_ud_dup(struct sv_side *s);
void t_fault_uc_dup(struct sv_side *s);
void t_fault_ud_reorder(struct sv_side *s);
void t_fault_uc_reorder(struct sv_side *s);
void t_fault_ud_delay(struct sv_side *s);
void t_fault_uc_delay(struct sv_side *s);
void t_fault_rc_immune(struct sv_side *s);
void t_fault_rnr(struct sv_side *s);
void t_fault_qp_fatal(struct sv_side *s);
void t_null_mode(struct sv_side *s);
void t_fault_port_down(struct sv_side *s);
void t_fault_port_down_later(struct sv_side *s);

/* The RoCE GID table cases (gids.c), spliced into the test table. */
void t_gid_table(struct sv_side *s);
void t_gid_knobs(struct sv_side *s);
void t_gid_ib(struct sv_side *s);
void t_gid_refused(struct sv_side *s);
void t_gid_rc_v2_ipv4(struct sv_side *s);
void t_gid_rc_v2_ipv6(struct sv_side *s);
void t_gid_rc_v1_ipv4(struct sv_side *s);
void t_gid_rc_v1_ll(struct sv_side *s);
void t_gid_rc_type(struct sv_side *s);
void t_gid_rc_family(struct sv_side *s);
void t_gid_rc_not_peer(struct sv_side *s);
void t_gid_uc_v2(struct sv_side *s);
void t_gid_uc_type(struct sv_side *s);
void t_gid_ud_v2_ipv4(struct sv_side *s);
void t_gid_lookup_churn(struct sv_side *s);
void t_gid_ud_v2_ipv6(struct sv_side *s);
void t_gid_ud_v1(struct sv_side *s);
void t_gid_ud_type(struct sv_side *s);
void t_gid_ud_type_dual(struct sv_side *s);
void t_gid_ud_family(struct sv_side *s);
void t_gid_ud_not_peer(struct sv_side *s);

#define GROCE "SOFTVERBS_LINK_LAYER=eth SOFTVERBS_NODE="
#define GID_CASE(name, fn, doc) { name, fn, GROCE "1", GROCE "2", 0, doc },
#define GID_CASES							\
	GID_CASE("gid_table", t_gid_table,				\
		 "RoCE GID table of nodes 1 and 2: layout, types, queries") \
	{ "gid_knobs", t_gid_knobs, KNOB_A, KNOB_B, 0,			\
	  "SOFTVERBS_ADDRS and SOFTVERBS_GID_TYPES=2 tables; RC over them" }, \
	{ "gid_ib", t_gid_ib, "SOFTVERBS_LINK_LAYER=ib SOFTVERBS_NODE=1", \
	  "SOFTVERBS_LINK_LAYER=ib SOFTVERBS_NODE=2", 0,		\
	  "IB mode: one GID of type IB; sgid_index 1 refused" },	\
	GID_CASE("gid_refused", t_gid_refused,				\
		 "sgid_index beyond/empty, no GRH, unknown dgid: refused") \
	GID_CASE("gid_rc_v2_ipv4", t_gid_rc_v2_ipv4,			\
		 "RC between nodes over RoCE v2 IPv4 GIDs")		\
	GID_CASE("gid_rc_v2_ipv6", t_gid_rc_v2_ipv6,			\
		 "RC between nodes over RoCE v2 IPv6 GIDs")		\
	GID_CASE("gid_rc_v1_ipv4", t_gid_rc_v1_ipv4,			\
		 "RC between nodes over RoCE v1 IPv4-mapped GIDs")	\
	GID_CASE("gid_rc_v1_ll", t_gid_rc_v1_ll,			\
		 "RC between nodes over RoCE v1 link-local GIDs")	\
	GID_CASE("gid_rc_type", t_gid_rc_type,				\
		 "RC v1 -> v2 path: RETRY_EXC_ERR, nothing received")	\
	GID_CASE("gid_rc_family", t_gid_rc_family,			\
		 "RC IPv4 sgid -> IPv6 dgid: RETRY_EXC_ERR, nothing received") \
	GID_CASE("gid_rc_not_peer", t_gid_rc_not_peer,			\
		 "RC to a dgid that is not the peer's: RETRY_EXC_ERR")	\
	GID_CASE("gid_uc_v2", t_gid_uc_v2,				\
		 "UC between nodes over RoCE v2 IPv4 GIDs")		\
	GID_CASE("gid_uc_type", t_gid_uc_type,				\
		 "UC v1 -> v2 path: silently lost, QP stays RTS")	\
	GID_CASE("gid_ud_v2_ipv4", t_gid_ud_v2_ipv4,			\
		 "UD v2 IPv4 (and v2 IPv6): GRH, init_ah_from_wc, answer") \
	GID_CASE("gid_ud_v2_ipv6", t_gid_ud_v2_ipv6,			\
		 "UD v2 IPv6 (and v2 link-local): GRH, answer")		\
	GID_CASE("gid_ud_v1", t_gid_ud_v1,				\
		 "UD v1 IPv4 (and v1 link-local): GRH, answer")		\
	{ "gid_ud_type", t_gid_ud_type, GROCE "1",			\
	  GROCE "2 SOFTVERBS_GID_TYPES=2", 0,				\
	  "UD v1 -> a v2-only port: dropped; v2 arrives" },		\
	GID_CASE("gid_ud_type_dual", t_gid_ud_type_dual,		\
		 "UD v1 -> the GID of a v2 entry of a v1+v2 port: arrives") \
	GID_CASE("gid_ud_family", t_gid_ud_family,			\
		 "UD IPv4 sgid -> IPv6 dgid: dropped; matching arrives") \
	GID_CASE("gid_ud_not_peer", t_gid_ud_not_peer,			\
		 "UD to a dgid that is not the peer's: dropped")		\
	{ "gid_lookup_churn", t_gid_lookup_churn, GROCE "1", CHURN_B, 0, \
	  "4200 AHs to the peer's 7 address GIDs while sockets churn" },
#define CHURN_B GROCE "2 SOFTVERBS_ADDRS=10.9.0.1,172.16.5.9," \
		"192.168.77.3,100.64.200.10,10.200.3.4,198.51.100.77,203.0.113.250"
#define KNOB_A GROCE "1 SOFTVERBS_ADDRS=10.11.12.13,2001:db8::7"
#define KNOB_B GROCE "2 SOFTVERBS_ADDRS=10.0.0.2,2001:db8::2,192.0.2.99 " \
	       "SOFTVERBS_GID_TYPES=2"

#define FSEED " SOFTVERBS_FAULT_SEED=12345"
#define FDROP "SOFTVERBS_FAULT_DROP=0.5" FSEED
#define FDUP "SOFTVERBS_FAULT_DUP=0.5" FSEED
#define FREORDER "SOFTVERBS_FAULT_REORDER=0.5" FSEED
#define FDELAY "SOFTVERBS_FAULT_DELAY=1 SOFTVERBS_FAULT_DELAY_US=30000"
#define FALL "SOFTVERBS_FAULT_DROP=1 SOFTVERBS_FAULT_DUP=1 " \
	     "SOFTVERBS_FAULT_REORDER=1 SOFTVERBS_FAULT_DELAY=1"
#define FRNR "SOFTVERBS_FAULT_RNR=2"

/* Table rows: name, function, env of role A, env of role B, timeout, doc. */
#define FAULT_CASES							\
	{ "fault_ud_drop", t_fault_ud_drop, FDROP, FDROP, 0,		\
	  "SOFTVERBS_FAULT_DROP=0.5: UD loses some datagrams" },	\
	{ "fault_uc_drop", t_fault_uc_drop, FDROP, FDROP, 0,		\
	  "SOFTVERBS_FAULT_DROP=0.5: UC loses some messages" },		\
	{ "fault_ud_dup", t_fault_ud_dup, FDUP, FDUP, 0,		\
	  "SOFTVERBS_FAULT_DUP=0.5: UD datagrams arrive twice" },	\
	{ "fault_uc_dup", t_fault_uc_dup, FDUP, FDUP, 0,		\
	  "SOFTVERBS_FAULT_DUP=0.5: UC messages arrive twice" },	\
	{ "fault_ud_reorder", t_fault_ud_reorder, FREORDER, FREORDER, 0, \
	  "SOFTVERBS_FAULT_REORDER=0.5: UD order changes, none lost" },	\
	{ "fault_uc_reorder", t_fault_uc_reorder, FREORDER, FREORDER, 0, \
	  "SOFTVERBS_FAULT_REORDER=0.5: UC order changes, none lost" },	\
	{ "fault_ud_delay", t_fault_ud_delay, FDELAY, FDELAY, 0,	\
	  "SOFTVERBS_FAULT_DELAY=1, _US=30000: UD arrives >= 30 ms late" }, \
	{ "fault_uc_delay", t_fault_uc_delay, FDELAY, FDELAY, 0,	\
	  "SOFTVERBS_FAULT_DELAY=1, _US=30000: UC arrives >= 30 ms late" }, \
	{ "fault_rc_immune", t_fault_rc_immune, FALL, FALL, 0,		\
	  "UC/UD fault knobs at rate 1 leave RC reliable and ordered" }, \
	{ "fault_rnr", t_fault_rnr, FRNR, FRNR, 0,			\
	  "SOFTVERBS_FAULT_RNR=2: RNR despite a receive; retries win" }, \
	{ "fault_qp_fatal", t_fault_qp_fatal,				\
	  "SOFTVERBS_FAULT_QP_FATAL=3", NULL, 0,			\
	  "SOFTVERBS_FAULT_QP_FATAL=3: 4th post: QP_FATAL, ERR, flush" }, \
	{ "null_mode", t_null_mode, "SOFTVERBS_NULL=1",		\
	  "SOFTVERBS_NULL=1", 0,					\
	  "SOFTVERBS_NULL=1: WRs complete as posted, nothing moves" },	\
	{ "fault_port_down", t_fault_port_down,				\
	  "SOFTVERBS_FAULT_PORT_DOWN=now", NULL, 0,			\
	  "SOFTVERBS_FAULT_PORT_DOWN=now: port state DOWN" },		\
	{ "fault_port_down_later", t_fault_port_down_later,		\
	  "SOFTVERBS_FAULT_PORT_DOWN=300", NULL, 0,			\
	  "SOFTVERBS_FAULT_PORT_DOWN=300: PORT_ERR event, DOWN, errors" },
#endif
