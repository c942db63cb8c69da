/* SPDX-License-Identifier: GPL-2.0-only */
/* What the case files of xport_test share: helpers and case functions. */
#ifndef XCASES_H
#define XCASES_H

#include "xharness.h"

#define CAPS_05 (CAP_NODE_EXT | CAP_XRC | CAP_LOSS) /* a 0.5 peer */

extern struct tcomp comps[2048];

/* Bytes of a message numbered seed, and the check. */
void pattern(char *b, size_t n, unsigned seed);
bool is_pattern(const char *b, size_t n, unsigned seed);
/* Post n copies of op (slot 0); the transport's return value. */
int xpost(struct xside *sd, struct tsess *s, enum op op, uint32_t n);
/* Completions of op with bytes each among comps[0..n). */
int count_op(int n, enum op op, uint32_t bytes);
/* Open s (one check); on failure s is closed and false returned. */
bool open_ok(struct xside *sd, struct tsess *s, const struct test_desc *t,
	     const struct tparams *p);
/* The same after tparams_default(p, msg) (open_dflt), and chan_mode(sd, ext,
 * CAPS_05) first (open_test). */
bool open_dflt(struct xside *sd, struct tsess *s, const struct test_desc *t,
	       struct tparams *p, uint32_t msg);
bool open_test(struct xside *sd, struct tsess *s, const struct test_desc *t,
	       struct tparams *p, uint32_t msg, bool ext);
/* Data-path runs used by several cases (xport_test.c). */
void send_run(struct xside *sd, const struct transport *tp, const char *name,
	      uint32_t msg, bool ext);
void pingpong(struct xside *sd, const struct transport *tp, const char *name,
	      uint32_t msg, bool ext);
void write_imm(struct xside *sd, const struct transport *tp,
	       const char *name);
/* open() must fail with want (exact, or contained); one check. */
void expect_err(struct xside *sd, const struct test_desc *t,
		const struct tparams *p, const char *want, bool exact);

/* xport_unit.c */
void u_node(struct xside *sd);
void u_ext(struct xside *sd);
void u_node_check(struct xside *sd);
void u_gid(struct xside *sd);
void u_mtu_rate(struct xside *sd);
/* xlegacy.c */
void l_rc_lat(struct xside *sd);
void l_rc_bw(struct xside *sd);
void l_rc_read(struct xside *sd);
void l_ud_lat(struct xside *sd);
void l_fetch_add(struct xside *sd);
void l_uc_write_imm(struct xside *sd);
void l_srv_rc_bw(struct xside *sd);
void l_srv_rc_lat(struct xside *sd);
void l_srv_ud_lat(struct xside *sd);
void l_srv_uc_bw(struct xside *sd);
/* xport_setup.c */
void t_v_local(struct xside *sd);
void t_v_port_down(struct xside *sd);
void t_v_roce_local(struct xside *sd);
void t_v_mr(struct xside *sd);
void t_v_no_device(struct xside *sd);
void t_v_ud_mtu(struct xside *sd);
void t_v_mtu_explicit(struct xside *sd);
void t_v_mtu_differ(struct xside *sd);
void t_mtu_auto(struct xside *sd);
void t_v_link_differ(struct xside *sd);
void t_v_bad_node(struct xside *sd);
void t_roce(struct xside *sd);
void t_roce_v6(struct xside *sd);
void t_roce_ll(struct xside *sd);
void t_roce_v2only(struct xside *sd);
void t_roce_forced(struct xside *sd);
void t_v_roce_mismatch(struct xside *sd);
void t_roce_v1v2(struct xside *sd);
void t_roce_follow(struct xside *sd);
void t_fd_leak(struct xside *sd);
void t_qp_attrs(struct xside *sd);

#endif
