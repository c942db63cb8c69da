// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cases of xport_test for opening sessions: every validation error with
 * its one line, a peer that sends a nonsensical NODE, the RoCE GID choice
 * over softverbs' GID table, file descriptors after close, and the QP
 * attributes and WR counts read back from the QPs.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "transports/verbs_int.h"
#include "xcases.h"
#include "xharness.h"

/* ---- validation: one clear line each ---- */

/* the usual tests of these cases: rc_bw of 1024 bytes with the defaults
 * for 65536, rc_lat of 1 byte with the defaults for 1; p is set */
static struct test_desc rc_bw(struct tparams *p)
{
	tparams_default(p, 65536);
	return mkdesc("rc_bw", LOOP_STREAM_BW, OP_SEND, 1024, &transport_rc);
}

static struct test_desc rc_lat(struct tparams *p)
{
	tparams_default(p, 1);
	return mkdesc("rc_lat", LOOP_PINGPONG, OP_SEND, 1, &transport_rc);
}

void expect_err(struct xside *sd, const struct test_desc *t,
		       const struct tparams *p, const char *want, bool exact)
{
	struct tsess s;
	int rc = xs_open(sd, &s, t, p);

	CHECK(rc == -1 && (exact ? strcmp(sd->err, want) == 0 :
				   contains(sd->err, want)) &&
		      !strchr(sd->err, '\n'),
	      "%s: \"%s\"", t->name, sd->err);
	xs_close(&s);
}

void t_v_local(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);
	struct test_desc tx =
		mkdesc("xrc_bw", LOOP_STREAM_BW, OP_SEND, 1024, &transport_xrc);
	int fd0;

	p.rd_atomic = 100; /* warm-up: the library's own fds stay */
	expect_err(sd, &t, &p,
		   "device only supports 16 (< 100) RDMA reads or atomics",
		   true);
	fd0 = count_fds();
	tparams_default(&p, 65536);
	p.mtu_size = 3000;
	expect_err(sd, &t, &p, "bad MTU: 3000; must be 256/512/1K/2K/4K", true);
	tparams_default(&p, 65536);
	snprintf(p.static_rate, sizeof(p.static_rate), "bogus");
	expect_err(sd, &t, &p, "bad static rate: bogus", true);
	tparams_default(&p, 65536);
	snprintf(p.id, sizeof(p.id), "nosuch");
	expect_err(sd, &t, &p, "no RDMA device nosuch; devices: softv0", true);
	snprintf(p.id, sizeof(p.id), "softv0:2");
	expect_err(sd, &t, &p, "device softv0 has no port 2 (it has 1)", true);
	snprintf(p.id, sizeof(p.id), "softv0:0");
	expect_err(sd, &t, &p, "bad IB port: 0; must be at least 1", true);
	snprintf(p.id, sizeof(p.id), "softv0:x");
	expect_err(sd, &t, &p, "bad IB port: x; must be at least 1", true);
	tparams_default(&p, 65536);
	p.rd_atomic = 17;
	expect_err(sd, &t, &p,
		   "device only supports 16 (< 17) RDMA reads or atomics",
		   true);
	tparams_default(&p, 65536);
	chan_mode(sd, false, 0);
	expect_err(sd, &tx, &p,
		   "XRC tests need a peer running qperf 0.5 or later", true);
	CHECK(count_fds() == fd0,
	      "failed opens and their close() leak no file descriptor (%d, %d)",
	      fd0, count_fds());
}

void t_v_port_down(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	expect_err(sd, &t, &p, "port softv0:1 is DOWN, not ACTIVE", true);
}

void t_v_roce_local(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	chan_mode(sd, false, 0);
	expect_err(sd, &t, &p,
		   "softv0:1 is a RoCE port: addressing it needs a GID, which qperf 0.4.11's protocol cannot carry; use RDMA CM (-cm1) with that peer",
		   true);
	chan_mode(sd, true, CAPS_05);
	p.gid_index = 16;
	expect_err(sd, &t, &p,
		   "GID index 16 does not exist on softv0:1 (the table has 16 entries)",
		   true);
	p.gid_index = 10;
	expect_err(sd, &t, &p,
		   "GID index 10 of softv0:1 is empty or not a RoCE GID", true);
}

void t_v_mr(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);
	struct rlimit rl = { 65536, RLIM_INFINITY };

	setenv("XPORT_FAKE_MAX_MR", "4096", 1);
	expect_err(sd, &t, &p,
		   "message size 65536 bytes needs a memory region of 65536 bytes, larger than device softv0 allows (4096)",
		   true);
	unsetenv("XPORT_FAKE_MAX_MR");
	getrlimit(RLIMIT_MEMLOCK, &rl);
	rl.rlim_cur = 65536;
	setrlimit(RLIMIT_MEMLOCK, &rl);
	setenv("XPORT_FAKE_REG_ENOMEM", "1", 1);
	p.msg_size = 1 << 20;
	expect_err(sd, &t, &p,
		   "failed to register 1048576 bytes of memory: Cannot allocate memory; locked memory is limited to 65536 bytes (raise it with ulimit -l)",
		   true);
	unsetenv("XPORT_FAKE_REG_ENOMEM");
}

void t_v_no_device(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	expect_err(sd, &t, &p, "failed to find any RDMA devices", false);
}

void t_v_ud_mtu(struct xside *sd)
{
	struct test_desc t =
		mkdesc("ud_bw", LOOP_STREAM_BW, OP_SEND, 1024, &transport_ud);
	struct tparams p;

	tparams_default(&p, 4096);
	expect_err(sd, &t, &p,
		   "UD message size 4096 is larger than the path MTU 2048; use -m 2048 or less",
		   true);
}

void t_v_mtu_explicit(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	p.mtu_size = 4096;
	p.mtu_explicit = true;
	chan_mode(sd, true, CAPS_05);
	expect_err(sd, &t, &p,
		   sd->role ? "MTU 4096 is above the active MTU of a port: this side softv0:1 1024, peer softv0:1 4096; use -mt 1024 or less" :
			      "MTU 4096 is above the active MTU of a port: this side softv0:1 4096, peer softv0:1 1024; use -mt 1024 or less",
		   true);
}

void t_v_mtu_differ(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	p.mtu_size = sd->role ? 512 : 1024;
	p.mtu_explicit = true;
	chan_mode(sd, true, CAPS_05);
	expect_err(sd, &t, &p,
		   sd->role ? "path MTUs differ: this side 512, peer 1024; give both sides the same -mt" :
			      "path MTUs differ: this side 1024, peer 512; give both sides the same -mt",
		   true);
}

void t_mtu_auto(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_lat(&p);
	struct tsess s;
	const struct verbs_info *vi;

	chan_mode(sd, true, CAPS_05);
	if (!open_ok(sd, &s, &t, &p))
		return;
	vi = verbs_session_info(&s);
	CHECK(vi->path_mtu == 1024 &&
		      vi->active_mtu == (sd->role ? 1024u : 4096u) &&
		      vi->peer_active_mtu == (sd->role ? 4096u : 1024u),
	      "without -mt the path MTU is the smaller active MTU (%u)",
	      vi->path_mtu);
	xs_close(&s);
	pingpong(sd, &transport_rc, "rc_lat", 10000, true); /* 10 packets */
}

void t_v_link_differ(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	chan_mode(sd, true, CAPS_05);
	expect_err(sd, &t, &p,
		   sd->role ? "link layers differ: this side InfiniBand, peer Ethernet (RoCE)" :
			      "link layers differ: this side Ethernet (RoCE), peer InfiniBand",
		   true);
}

/* Role 1 plays a peer that sends a nonsensical NODE. */
void t_v_bad_node(struct xside *sd)
{
	static const struct {
		enum op op;
		enum loop_kind loop;
		int field;
		uint32_t val;
		const char *want;
	} v[] = {
		{ OP_SEND, LOOP_STREAM_BW, 12, 0x1000000,
		  "peer sent a bad QP number 0x1000000 (must be 1..0xffffff)" },
		{ OP_SEND, LOOP_STREAM_BW, 16, 0x1234567,
		  "peer sent a bad PSN 0x1234567 (must fit 24 bits)" },
		{ OP_SEND, LOOP_STREAM_BW, 8, 0,
		  "peer sent LID 0, which InfiniBand cannot address" },
		{ OP_SEND, LOOP_STREAM_BW, 32, 300,
		  "peer sent a bad RDMA read/atomic depth 300 (must be 0..255)" },
		{ OP_READ, LOOP_ONESIDED, 32, 0,
		  "peer accepts no RDMA reads or atomics (depth 0)" },
		{ OP_WRITE, LOOP_STREAM_BW, 24, 0,
		  "peer sent no memory to access (rkey 0x0" },
		{ OP_FADD, LOOP_ONESIDED, 0, 0,
		  "peer sent no memory to access (rkey" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct test_desc t = mkdesc("rc_test", v[i].loop, v[i].op,
					    1024, &transport_rc);
		struct tparams p;

		tparams_default(&p, 4096);
		if (sd->role == 0) {
			expect_err(sd, &t, &p, v[i].want, false);
			continue;
		}
		{
			uint8_t b[40];
			struct verbs_node n;
			bool pad0;

			if (!oob_recv(sd, b, 40))
				return;
			verbs_node_decode(b, &n);
			pad0 = !b[36] && !b[37] && !b[38] && !b[39];
			if (i == 0)
				CHECK(pad0 && n.lid == 1 && n.qpn &&
					      n.qpn <= 0xffffff &&
					      n.psn <= 0xffffff && n.rkey &&
					      n.vaddr && n.rd_atomic == 16 &&
					      !n.srqn && !n.alt_lid,
				      "the client's NODE on the wire is sane, padding zero");
			/* a valid NODE, then one field broken */
			n.lid = 2;
			if (v[i].field == 0)
				n.vaddr = 0;
			verbs_node_encode(&n, b);
			if (v[i].field)
				memcpy(b + v[i].field, &v[i].val, 4); /* LE host */
			oob_send(sd, b, 40);
		}
	}
}

/* The control connection's local end, as the core fills it. */
static void set_local(struct xside *sd, const char *text)
{
	memset(&sd->ch.local, 0, sizeof(sd->ch.local));
	if (strchr(text, ':')) {
		struct sockaddr_in6 *a = (void *)&sd->ch.local;

		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, text, &a->sin6_addr);
	} else {
		struct sockaddr_in *a = (void *)&sd->ch.local;

		a->sin_family = AF_INET;
		inet_pton(AF_INET, text, &a->sin_addr);
	}
}

/* Open rc on RoCE and check the GIDs both ends chose. */
static void roce_pick(struct xside *sd, const char *local, int want_idx,
		      const char *own_fmt, enum verbs_gid_type type)
{
	struct tparams p;
	struct test_desc t = rc_lat(&p);
	struct tsess s;
	const struct verbs_info *vi;
	char g[64], pg[64], want[64], pwant[64];

	chan_mode(sd, true, CAPS_05);
	set_local(sd, local);
	if (!open_ok(sd, &s, &t, &p))
		return;
	vi = verbs_session_info(&s);
	verbs_gid_str(vi->gid, g, sizeof(g));
	verbs_gid_str(vi->peer_gid, pg, sizeof(pg));
	snprintf(want, sizeof(want), own_fmt, sd->role + 1);
	snprintf(pwant, sizeof(pwant), own_fmt, 2 - sd->role);
	CHECK(vi->roce && vi->gid_type == type && vi->gid_index == want_idx &&
		      strcmp(g, want) == 0 && strcmp(pg, pwant) == 0 &&
		      vi->peer_gid_type == type && vi->lid == 0,
	      "RoCE, control on %s: GID %d %s (%s), peer %s", local,
	      vi->gid_index, g, verbs_gid_type_str(vi->gid_type), pg);
	xs_close(&s);
}

void t_roce(struct xside *sd)
{
	/* softverbs' table: 0/1 link-local v1/v2, 2/3 198.18.0.N v1/v2,
	 * 4/5 fd73:7665:7262::N v1/v2 */
	roce_pick(sd, sd->role ? "198.18.0.2" : "198.18.0.1", 3,
		  "::ffff:198.18.0.%d", VG_ROCE_V2);
	roce_pick(sd, "127.0.0.1", 3, "::ffff:198.18.0.%d", VG_ROCE_V2);
	send_run(sd, &transport_rc, "rc_bw", 65536, true);
	pingpong(sd, &transport_ud, "ud_lat", 16, true);
	send_run(sd, &transport_ud, "ud_bw", 2048, true);
	pingpong(sd, &transport_uc, "uc_lat", 16, true);
	pingpong(sd, &transport_xrc, "xrc_lat", 16, true);
}

void t_roce_v6(struct xside *sd)
{
	roce_pick(sd, sd->role ? "fd73:7665:7262::2" : "fd73:7665:7262::1", 5,
		  "fd73:7665:7262::%d", VG_ROCE_V2);
	pingpong(sd, &transport_rc, "rc_lat", 16, true);
	pingpong(sd, &transport_ud, "ud_lat", 16, true);
}

/* No addresses: the link-local v2 entry as the fallback. */
void t_roce_ll(struct xside *sd)
{
	roce_pick(sd, "127.0.0.1", 1, "fe80::c0:ff:fe00:%d", VG_ROCE_V2);
	pingpong(sd, &transport_rc, "rc_lat", 16, true);
}

/* A v2-only port (as rxe) against a v1+v2 one: other indexes, one type. */
void t_roce_v2only(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_lat(&p);
	struct tsess s;
	const struct verbs_info *vi;

	chan_mode(sd, true, CAPS_05);
	set_local(sd, "127.0.0.1");
	if (!open_ok(sd, &s, &t, &p))
		return;
	vi = verbs_session_info(&s);
	CHECK(vi->gid_index == (sd->role ? 1 : 3) &&
		      vi->peer_gid_index == (sd->role ? 3 : 1),
	      "v2-only port picks its IPv4 v2 entry (%d, peer %d)",
	      vi->gid_index, vi->peer_gid_index);
	xs_close(&s);
	pingpong(sd, &transport_rc, "rc_lat", 16, true);
}

void t_roce_forced(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_lat(&p);
	struct tsess s;

	p.gid_index = 4; /* v1, IPv6 */
	chan_mode(sd, true, CAPS_05);
	set_local(sd, "127.0.0.1");
	if (!open_ok(sd, &s, &t, &p))
		return;
	CHECK(verbs_session_info(&s)->gid_index == 4 &&
		      verbs_session_info(&s)->gid_type == VG_ROCE_V1,
	      "forced GID index 4 (RoCE v1, IPv6) is used");
	/* Neither side may end before the other's RTR has resolved its
	 * GID: a process that is gone has no neighbour entry. */
	barrier(sd);
	xs_close(&s);
}

/* Incompatible choices: one line naming both GIDs, on both sides. */
void t_v_roce_mismatch(struct xside *sd)
{
	struct tparams p;
	struct test_desc t = rc_bw(&p);

	chan_mode(sd, true, CAPS_05);
	set_local(sd, "127.0.0.1");
	p.gid_index = sd->role ? 3 : 1;
	expect_err(sd, &t, &p,
		   sd->role ? "RoCE GIDs do not match: this side 3 ::ffff:198.18.0.2 (RoCE v2 IPv4), peer 1 fe80::c0:ff:fe00:1 (RoCE v2 IPv6); give both sides GID indexes of one type and address family" :
			      "RoCE GIDs do not match: this side 1 fe80::c0:ff:fe00:1 (RoCE v2 IPv6), peer 3 ::ffff:198.18.0.2 (RoCE v2 IPv4); give both sides GID indexes of one type and address family",
		   true);
}

/* Settle a GID choice and check both ends' indexes and types. */
static void roce_settled(struct xside *sd, int forced, int want0, int want1,
			 enum verbs_gid_type type, const char *what)
{
	struct tparams p;
	struct test_desc t = rc_lat(&p);
	struct tsess s;
	const struct verbs_info *vi;

	p.gid_index = forced;
	chan_mode(sd, true, CAPS_05);
	set_local(sd, "127.0.0.1");
	if (!open_ok(sd, &s, &t, &p))
		return;
	vi = verbs_session_info(&s);
	CHECK(vi->gid_index == (sd->role ? want1 : want0) &&
		      vi->peer_gid_index == (sd->role ? want0 : want1) &&
		      vi->gid_type == type && vi->peer_gid_type == type,
	      "%s: GID %d (%s), peer %d", what, vi->gid_index,
	      verbs_gid_type_str(vi->gid_type), vi->peer_gid_index);
	xs_close(&s);
}

/* A v1-only port (role 0) against a v1+v2 one: both settle on v1 IPv4
 * and messages flow (softverbs delivers only between matching types). */
void t_roce_v1v2(struct xside *sd)
{
	roce_settled(sd, -1, 1, 2, VG_ROCE_V1,
		     "v1-only client, v1+v2 server");
	pingpong(sd, &transport_rc, "rc_lat", 16, true);
	pingpong(sd, &transport_ud, "ud_lat", 16, true);
}

/* One side given an index, the other follows its type and family. */
void t_roce_follow(struct xside *sd)
{
	roce_settled(sd, sd->role ? -1 : 4, 4, 4, VG_ROCE_V1,
		     "client given index 4 (v1 IPv6), server follows");
	pingpong(sd, &transport_rc, "rc_lat", 16, true);
}

/* Successful open and close, every transport: no fd left behind. */
void t_fd_leak(struct xside *sd)
{
	const struct transport *tps[] = { &transport_rc, &transport_uc,
					  &transport_ud, &transport_xrc };
	struct tparams p;
	struct tsess s;
	int fd0 = -1;

	chan_mode(sd, true, CAPS_05);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 4; i++) {
			struct test_desc t = mkdesc("x_bi_bw", LOOP_BI_BW,
						    OP_SEND, 64, tps[i]);

			tparams_default(&p, 1024);
			if (!open_ok(sd, &s, &t, &p))
				return;
			xs_close(&s);
			barrier(sd);
		}
		if (round == 0)
			fd0 = count_fds();
	}
	CHECK(count_fds() == fd0,
	      "open and close of rc, uc, ud, xrc leave no fd behind (%d, %d)",
	      fd0, count_fds());
}

/* The QP attributes of spec 2.11, read back from the QPs. */
void t_qp_attrs(struct xside *sd)
{
	struct test_desc t =
		mkdesc("rc_bi_bw", LOOP_BI_BW, OP_SEND, 64, &transport_rc);
	struct test_desc tu =
		mkdesc("uc_bi_bw", LOOP_BI_BW, OP_SEND, 64, &transport_uc);
	struct test_desc td =
		mkdesc("ud_bi_bw", LOOP_BI_BW, OP_SEND, 64, &transport_ud);
	struct tparams p;
	struct tsess s;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct verbs_priv *v;
	uint32_t own = sd->role ? 8 : 4, peer = sd->role ? 4 : 8;

	tparams_default(&p, 1024);
	p.rd_atomic = own;
	p.sl = 3;
	p.alt_port = 1;
	snprintf(p.static_rate, sizeof(p.static_rate), "4xQDR");
	if (!open_ok(sd, &s, &t, &p))
		return;
	v = s.priv;
	memset(&a, 0, sizeof(a));
	ibv_query_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN |
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MAX_QP_RD_ATOMIC |
			 IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_AV |
			 IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_CAP,
		     &ia);
	{
		const struct verbs_info *vi = verbs_session_info(&s);

		CHECK(vi->psn == v->me.psn && vi->peer_psn == v->peer.psn &&
			      vi->rkey == v->mr->rkey &&
			      vi->peer_rkey == v->peer.rkey &&
			      vi->vaddr == (uintptr_t)s.buf &&
			      vi->peer_vaddr == v->peer.vaddr &&
			      vi->qpn == v->qp->qp_num &&
			      vi->peer_qpn == v->peer.qpn,
		      "verbs_info: PSNs, rkeys, addresses and QPNs of both sides");
	}
	CHECK(a.qp_state == IBV_QPS_RTS && a.path_mtu == IBV_MTU_2048 &&
		      a.dest_qp_num == v->peer.qpn &&
		      a.rq_psn == v->peer.psn && a.sq_psn == v->me.psn &&
		      a.sq_psn <= 0xffffff,
	      "RC: RTS, path MTU 2048, peer's QPN and PSN, own PSN");
	CHECK(a.max_dest_rd_atomic == own && a.max_rd_atomic == peer &&
		      v->peer.rd_atomic == peer,
	      "RC: responder depth own -nr (%u), initiator depth the peer's (%u)",
	      a.max_dest_rd_atomic, a.max_rd_atomic);
	CHECK(a.min_rnr_timer == 12 && a.timeout == 14 && a.retry_cnt == 7 &&
		      a.rnr_retry == 7,
	      "RC: min_rnr_timer 12, timeout 14, retry 7, rnr_retry 7");
	CHECK(a.qp_access_flags == (IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_ATOMIC),
	      "RC: remote read, write and atomic access");
	CHECK(a.ah_attr.dlid == (sd->role ? 1 : 2) && a.ah_attr.sl == 3 &&
		      a.ah_attr.static_rate == IBV_RATE_40_GBPS &&
		      a.ah_attr.port_num == 1 && !a.ah_attr.is_global,
	      "RC: AV to the peer's LID, SL 3, 4xQDR, no GRH on InfiniBand");
	CHECK(v->me.alt_lid == v->me.lid && v->peer.alt_lid == v->peer.lid &&
		      a.alt_ah_attr.dlid == v->peer.alt_lid &&
		      a.alt_port_num == 1 && a.path_mig_state == IBV_MIG_REARM,
	      "RC: alternate path with -ap 1, migration re-armed");
	CHECK(ia.cap.max_send_wr == 64 && ia.cap.max_recv_wr == 64 &&
		      ia.cap.max_send_sge == 1 && ia.cap.max_recv_sge == 1 &&
		      v->cq->cqe >= 128,
	      "RC: 64/64 WRs, one SGE each, one CQ of %d entries", v->cq->cqe);
	xs_close(&s);

	if (!open_dflt(sd, &s, &tu, &p, 1024))
		return;
	v = s.priv;
	ibv_query_qp(v->qp, &a, IBV_QP_ACCESS_FLAGS | IBV_QP_STATE, &ia);
	CHECK(a.qp_state == IBV_QPS_RTS &&
		      a.qp_access_flags == IBV_ACCESS_REMOTE_WRITE,
	      "UC: RTS, remote write access only");
	xs_close(&s);

	if (!open_ok(sd, &s, &td, &p))
		return;
	v = s.priv;
	ibv_query_qp(v->qp, &a, IBV_QP_QKEY | IBV_QP_STATE | IBV_QP_SQ_PSN,
		     &ia);
	CHECK(a.qp_state == IBV_QPS_RTS && a.qkey == VERBS_QKEY &&
		      a.sq_psn == v->me.psn && v->reglen == 1024 + VERBS_GRH,
	      "UD: RTS, Q_Key 0x11111111, own PSN, buffer of msg_size + 40");
	xs_close(&s);

	/* WR counts per role, spec 3.1 "WR s/r (C;S)" */
	{
		static const struct {
			const char *name;
			enum loop_kind loop;
			enum op op;
			uint32_t depth, cs, cr, ss, sr;
		} w[] = {
			{ "rc_bw", LOOP_STREAM_BW, OP_SEND, 1024, 1024, 0, 0, 1024 },
			{ "rc_bi_bw", LOOP_BI_BW, OP_SEND, 1024, 1024, 1024, 1024,
			  1024 },
			{ "rc_lat", LOOP_PINGPONG, OP_SEND, 1, 1, 1, 1, 1 },
			{ "rc_rdma_write_poll_lat", LOOP_WRITE_POLL, OP_WRITE, 1,
			  1024, 0, 1024, 0 },
			{ "rc_rdma_read_bw", LOOP_ONESIDED, OP_READ, 1024, 1024,
			  0, 0, 1 },
			{ "rc_rdma_read_lat", LOOP_ONESIDED, OP_READ, 1, 1, 0, 0,
			  1 },
			{ "ver_rc_fetch_add", LOOP_ATOMIC_VER, OP_FADD, 1024,
			  1024, 0, 0, 1 },
		};
		int good = 0;

		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			struct test_desc tw = mkdesc(w[i].name, w[i].loop,
						     w[i].op, w[i].depth,
						     &transport_rc);

			if (!open_ok(sd, &s, &tw, &p))
				return;
			v = s.priv;
			good += v->send_wr == (sd->role ? w[i].ss : w[i].cs) &&
				v->recv_wr == (sd->role ? w[i].sr : w[i].cr);
			xs_close(&s);
		}
		CHECK(good == 7, "WR counts of 7 tests for this role (%d)",
		      good);
	}
}
