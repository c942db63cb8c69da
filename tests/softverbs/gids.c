// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RoCE GID table cases: the table each emulated node reports (types,
 * families, node-specific addresses, the SOFTVERBS_ADDRS and
 * SOFTVERBS_GID_TYPES knobs), the IB-mode table, sgid_index and GRH checks
 * at create_ah/modify_qp, delivery between two nodes for matching and
 * mismatched GID choices (RC, UC, UD), and the address registry while
 * unix sockets come and go.
 *
 * Role A is node 1, role B node 2, both in RoCE mode.  The expectations
 * are those of a real RoCE fabric: a wrong GID choice makes RC end in
 * RETRY_EXC_ERR after the transport timeout and UC/UD lose the message.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "vhelp.h"
#include "cases.h"

#define TBL 16				/* gid_tbl_len softverbs reports */
#define LEN 1024			/* bytes per test message */
#define SLOT (LEN + 40)			/* UD receive: GRH area + payload */
#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	    IBV_ACCESS_REMOTE_READ)
#define V1 IBV_GID_TYPE_ROCE_V1
#define V2 IBV_GID_TYPE_ROCE_V2

enum { DGID_PEER = -1, DGID_OWN = -2 };	/* dgid choices besides an index */

static const char *type_name(int t)
{
	return t == IBV_GID_TYPE_IB ? "IB" : t == V1 ? "RoCE v1" :
	       t == V2 ? "RoCE v2" : "?";
}

static void gid_text(const uint8_t *raw, char *out, size_t n)
{
	if (!inet_ntop(AF_INET6, raw, out, (socklen_t)n))
		snprintf(out, n, "?");
}

static int gid_parse(const char *txt, union ibv_gid *g)
{
	memset(g, 0, sizeof(*g));
	return inet_pton(AF_INET6, txt, g->raw) == 1 ? 0 : -1;
}

static int gid_zero(const union ibv_gid *g)
{
	static const uint8_t z[16];

	return !memcmp(g->raw, z, 16);
}

/* one expected table row */
struct row {
	const char *gid;
	int type;
};

/*
 * The whole table as ibv_query_gid, ibv_query_gid_ex and
 * ibv_query_gid_table report it: rows 0..n-1 as given, the rest empty,
 * nothing beyond gid_tbl_len.
 */
static void check_table(struct sv_side *s, const struct row *want, int n,
			int tbl_len, uint32_t ifindex)
{
	struct ibv_gid_entry e, all[TBL + 1];
	union ibv_gid g;
	int i, bad_empty = 0, bad_gid = 0;
	ssize_t got;
	char txt[64];

	CHECK(s->port.gid_tbl_len == tbl_len, "gid_tbl_len %d (got %d)",
	      tbl_len, s->port.gid_tbl_len);
	for (i = 0; i < n; i++) {
		union ibv_gid w;
		int r = ibv_query_gid_ex(s->ctx, 1, (uint32_t)i, &e, 0);

		gid_parse(want[i].gid, &w);
		gid_text(e.gid.raw, txt, sizeof(txt));
		if (!CHECK(r == 0, "ibv_query_gid_ex(%d) succeeds (%d)", i, r))
			continue;
		CHECK(!memcmp(e.gid.raw, w.raw, 16) &&
		      e.gid_type == (uint32_t)want[i].type &&
		      e.gid_index == (uint32_t)i && e.port_num == 1 &&
		      e.ndev_ifindex == ifindex,
		      "GID[%d] = %s %s, ifindex %u (got %s %s, index %u, "
		      "port %u, ifindex %u)", i, want[i].gid,
		      type_name(want[i].type), ifindex, txt,
		      type_name((int)e.gid_type), e.gid_index, e.port_num,
		      e.ndev_ifindex);
		if (ibv_query_gid(s->ctx, 1, i, &g) ||
		    memcmp(g.raw, w.raw, 16))
			bad_gid++;
	}
	CHECK(!bad_gid, "ibv_query_gid agrees with ibv_query_gid_ex on the "
	      "%d entries (%d differ)", n, bad_gid);
	for (i = n; i < tbl_len; i++) {
		if (ibv_query_gid_ex(s->ctx, 1, (uint32_t)i, &e, 0) != ENODATA)
			bad_empty++;
		if (ibv_query_gid(s->ctx, 1, i, &g) || !gid_zero(&g))
			bad_empty++;
	}
	CHECK(!bad_empty, "indexes %d..%d are empty: ibv_query_gid_ex "
	      "ENODATA, ibv_query_gid a zero GID (%d wrong)", n, tbl_len - 1,
	      bad_empty);
	CHECK(ibv_query_gid_ex(s->ctx, 1, (uint32_t)tbl_len, &e, 0) == EINVAL &&
	      ibv_query_gid(s->ctx, 1, tbl_len, &g) != 0,
	      "index %d (gid_tbl_len) is refused", tbl_len);
	CHECK(ibv_query_gid_ex(s->ctx, 2, 0, &e, 0) == EINVAL,
	      "port 2 does not exist");
	got = ibv_query_gid_table(s->ctx, all, TBL + 1, 0);
	if (CHECK(got == n, "ibv_query_gid_table lists %d entries (got %zd)",
		  n, got)) {
		for (i = 0, bad_gid = 0; i < n; i++) {
			if (ibv_query_gid_ex(s->ctx, 1, (uint32_t)i, &e, 0) ||
			    memcmp(&e, &all[i], sizeof(e)))
				bad_gid++;
		}
		CHECK(!bad_gid, "its entries equal ibv_query_gid_ex's (%d "
		      "differ)", bad_gid);
	}
	if (n > 1)
		CHECK(ibv_query_gid_table(s->ctx, all, (size_t)n - 1, 0) < 0,
		      "ibv_query_gid_table with room for %d entries fails",
		      n - 1);
}

/* RoCE mode, default addresses: the kernel's layout, per node */
void t_gid_table(struct sv_side *s)
{
	static const struct row node1[] = {
		{ "fe80::c0:ff:fe00:1", V1 }, { "fe80::c0:ff:fe00:1", V2 },
		{ "::ffff:198.18.0.1", V1 },  { "::ffff:198.18.0.1", V2 },
		{ "fd73:7665:7262::1", V1 },  { "fd73:7665:7262::1", V2 },
	};
	static const struct row node2[] = {
		{ "fe80::c0:ff:fe00:2", V1 }, { "fe80::c0:ff:fe00:2", V2 },
		{ "::ffff:198.18.0.2", V1 },  { "::ffff:198.18.0.2", V2 },
		{ "fd73:7665:7262::2", V1 },  { "fd73:7665:7262::2", V2 },
	};
	union ibv_gid mine[6], theirs[6];
	int i, j, shared = 0;

	if (side_open(s, 16, 0) < 0)
		goto out;
	CHECK(s->port.link_layer == IBV_LINK_LAYER_ETHERNET &&
	      s->port.lid == 0, "RoCE port: link layer Ethernet, LID 0");
	check_table(s, s->role == ROLE_A ? node1 : node2, 6, TBL,
		    if_nametoindex("lo"));
	for (i = 0; i < 6; i++)
		ibv_query_gid(s->ctx, 1, i, &mine[i]);
	if (ctl_send(s, 'T', mine, sizeof(mine)) < 0 ||
	    ctl_recv(s, 'T', theirs, sizeof(theirs)) < 0)
		goto out;
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			shared += !memcmp(mine[i].raw, theirs[j].raw, 16);
	CHECK(!shared, "nodes 1 and 2 share no GID (%d shared)", shared);
out:
	side_close(s);
}

/* SOFTVERBS_ADDRS replaces the addresses; SOFTVERBS_GID_TYPES=2 drops v1 */
void t_gid_knobs(struct sv_side *s)
{
	static const struct row a[] = {
		{ "fe80::c0:ff:fe00:1", V1 }, { "fe80::c0:ff:fe00:1", V2 },
		{ "::ffff:10.11.12.13", V1 }, { "::ffff:10.11.12.13", V2 },
		{ "2001:db8::7", V1 },	      { "2001:db8::7", V2 },
	};
	static const struct row b[] = {
		{ "fe80::c0:ff:fe00:2", V2 },
		{ "::ffff:10.0.0.2", V2 },
		{ "2001:db8::2", V2 },
		{ "::ffff:192.0.2.99", V2 },
	};
	struct sv_conn c = { .timeout = 12 };
	struct sv_buf buf = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_ah_attr ah;
	struct ibv_ah *h;
	struct ibv_wc wc;

	if (side_open(s, 16, 0) < 0 || buf_new(s, &buf, LEN, RW) < 0)
		goto out;
	if (s->role == ROLE_A)
		check_table(s, a, 6, TBL, if_nametoindex("lo"));
	else
		check_table(s, b, 4, TBL, if_nametoindex("lo"));
	/* RC over the overridden IPv4 addresses, v2 on both sides */
	if (side_use_gid(s, s->role == ROLE_A ? 3 : 1) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		/* the default address of node 2 is not B's any more */
		memset(&ah, 0, sizeof(ah));
		ah.port_num = 1;
		ah.is_global = 1;
		ah.grh.sgid_index = 3;
		ah.grh.hop_limit = 1;
		gid_parse("::ffff:198.18.0.2", &ah.grh.dgid);
		h = ibv_create_ah(s->pd, &ah);
		CHECK(!h && errno == EINVAL, "ibv_create_ah towards node 2's "
		      "default address fails with EINVAL (nobody has it)");
		if (h)
			ibv_destroy_ah(h);
		ctl_sync(s, 'R');
		pattern_fill(buf.p, LEN, 31);
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &buf, 0, LEN, 0, 0,
				IBV_SEND_SIGNALED),
		      "post SEND to ::ffff:10.0.0.2");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "RC SEND between "
			  "SOFTVERBS_ADDRS addresses", NULL);
		ctl_sync(s, 'D');
	} else {
		CHECK(!post_recv_one(qp, 1, &buf, 0, LEN), "post receive");
		ctl_sync(s, 'R');
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "receive from "
			      "::ffff:10.11.12.13", &wc))
			CHECK(wc.byte_len == LEN &&
			      pattern_check(buf.p, LEN, 31) < 0,
			      "the %d bytes arrived (byte_len %u)", LEN,
			      wc.byte_len);
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &buf, NULL);
}

/* InfiniBand mode: one GID, type IB, no ifindex; sgid_index 1 refused */
void t_gid_ib(struct sv_side *s)
{
	static const struct row node1[] = {
		{ "fe80::2c0:ffee:0:1", IBV_GID_TYPE_IB },
	};
	struct ibv_ah_attr ah;
	struct ibv_ah *h;

	if (side_open(s, 16, 0) < 0)
		goto out;
	if (s->role == ROLE_A) {
		CHECK(s->port.link_layer == IBV_LINK_LAYER_INFINIBAND &&
		      s->port.lid == 1, "IB port: LID 1 (the node)");
		check_table(s, node1, 1, 1, 0);
		memset(&ah, 0, sizeof(ah));
		ah.port_num = 1;
		ah.dlid = 2;
		ah.is_global = 1;
		ah.grh.sgid_index = 1;
		gid_parse("fe80::2c0:ffee:0:2", &ah.grh.dgid);
		h = ibv_create_ah(s->pd, &ah);
		CHECK(!h && errno == EINVAL, "IB: ibv_create_ah with "
		      "sgid_index 1 fails with EINVAL");
		if (h)
			ibv_destroy_ah(h);
		ah.grh.sgid_index = 0;
		h = ibv_create_ah(s->pd, &ah);
		CHECK(h, "IB: ibv_create_ah with sgid_index 0 works");
		if (h)
			ibv_destroy_ah(h);
	}
	ctl_sync(s, 'D');
out:
	side_close(s);
}

/* RoCE: sgid_index, GRH and dgid are checked by create_ah and modify_qp */
void t_gid_refused(struct sv_side *s)
{
	static const struct {
		int global, sgid;
		const char *dgid;	/* NULL: the peer's */
		int err;
		const char *what;
	} bad[] = {
		{ 1, TBL, NULL, EINVAL, "sgid_index 16 (= gid_tbl_len)" },
		{ 1, 255, NULL, EINVAL, "sgid_index 255" },
		{ 1, 7, NULL, ENODATA, "sgid_index 7 (an empty entry)" },
		{ 0, 0, NULL, EINVAL, "no GRH (is_global 0)" },
		{ 1, 3, "::ffff:203.0.113.9", EINVAL, "a dgid nobody has" },
	};
	struct sv_conn c = { 0 };
	struct sv_addr me, peer;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_attr qa;
	struct ibv_ah *h;
	size_t i;
	int r, err;

	if (side_open(s, 16, 0) < 0 || side_use_gid(s, 3) < 0)
		goto out;
	qp = qp_new(s, &c);
	if (!qp)
		goto out;
	addr_of(s, qp, &c, &me);
	if (ctl_send(s, 'A', &me, sizeof(me)) < 0 ||
	    ctl_recv(s, 'A', &peer, sizeof(peer)) < 0)
		goto out;
	if (s->role == ROLE_A) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(&qa, 0, sizeof(qa));
			qa.ah_attr.port_num = 1;
			qa.ah_attr.is_global = (uint8_t)bad[i].global;
			qa.ah_attr.grh.sgid_index = (uint8_t)bad[i].sgid;
			qa.ah_attr.grh.hop_limit = 1;
			memcpy(qa.ah_attr.grh.dgid.raw, peer.gid, 16);
			if (bad[i].dgid)
				gid_parse(bad[i].dgid, &qa.ah_attr.grh.dgid);
			errno = 0;
			h = ibv_create_ah(s->pd, &qa.ah_attr);
			err = errno;
			CHECK(!h && err == bad[i].err, "ibv_create_ah with "
			      "%s fails with %s (errno %d)", bad[i].what,
			      bad[i].err == EINVAL ? "EINVAL" : "ENODATA", err);
			if (h)
				ibv_destroy_ah(h);
			qa.qp_state = IBV_QPS_RTR;
			qa.path_mtu = IBV_MTU_1024;
			qa.dest_qp_num = peer.qpn;
			qa.rq_psn = peer.psn;
			qa.max_dest_rd_atomic = 1;
			qa.min_rnr_timer = 1;
			r = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV |
					  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER);
			CHECK(r == bad[i].err, "modify_qp to RTR with %s fails "
			      "with %s (got %d)", bad[i].what,
			      bad[i].err == EINVAL ? "EINVAL" : "ENODATA", r);
		}
		expect_state(qp, IBV_QPS_INIT, "after the refused RTRs");
		CHECK(qp_connect(s, qp, &c, &peer) == 0, "the same RTR with "
		      "sgid_index 3 and the peer's GID works");
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, NULL, NULL);
}

/* ---- delivery ------------------------------------------------------------ */

/*
 * Exchange addresses and GID tables.  *peer is B's (A's) address with its
 * own GID; dgid receives the GID A sends to: B's GID at index dsel,
 * DGID_PEER the one B uses itself, DGID_OWN A's own.  For B, dgid is A's.
 */
static int gid_exchange(struct sv_side *s, struct ibv_qp *qp,
			const struct sv_conn *c, int dsel,
			struct sv_addr *peer, uint8_t dgid[16])
{
	union ibv_gid tbl[TBL];
	struct sv_addr me;
	int i;

	memset(tbl, 0, sizeof(tbl));
	for (i = 0; i < TBL; i++)
		ibv_query_gid(s->ctx, 1, i, &tbl[i]);
	addr_of(s, qp, c, &me);
	if (ctl_send(s, 'A', &me, sizeof(me)) < 0 ||
	    ctl_recv(s, 'A', peer, sizeof(*peer)) < 0 ||
	    ctl_send(s, 'T', tbl, sizeof(tbl)) < 0 ||
	    ctl_recv(s, 'T', tbl, sizeof(tbl)) < 0)
		return -1;
	memcpy(dgid, peer->gid, 16);
	if (s->role == ROLE_A && dsel >= 0)
		memcpy(dgid, tbl[dsel].raw, 16);
	if (s->role == ROLE_A && dsel == DGID_OWN)
		memcpy(dgid, s->gid.raw, 16);
	return 0;
}

/*
 * A connected QP (RC or UC) from A (sgid index sa) to B (sgid index sb),
 * A's dgid chosen by dsel.  ok: a SEND arrives intact; otherwise RC ends in
 * RETRY_EXC_ERR after the transport timeout, UC completes at A, and B
 * receives nothing either way.
 */
static void gid_conn(struct sv_side *s, enum ibv_qp_type type, int sa,
		     int sb, int dsel, int ok)
{
	struct sv_conn c = { .type = type, .timeout = 12, .retry_set = 1,
			     .retry_cnt = 2 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;
	uint8_t dgid[16];
	char txt[64];

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, LEN, RW) < 0 ||
	    side_use_gid(s, s->role == ROLE_A ? sa : sb) < 0)
		goto out;
	qp = qp_new(s, &c);
	if (!qp || gid_exchange(s, qp, &c, dsel, &peer, dgid) < 0)
		goto out;
	memcpy(peer.gid, dgid, 16);
	gid_text(peer.gid, txt, sizeof(txt));
	if (!CHECK(qp_connect(s, qp, &c, &peer) == 0, "connect from GID "
		   "index %d to %s", s->gid_index, txt) ||
	    ctl_sync(s, 'C') < 0)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 1, &b, 0, LEN), "post receive");
		ctl_sync(s, 'R');
		ctl_sync(s, 'D');
		if (!ok) {
			expect_quiet(s->cq, "B after the mismatched SEND");
		} else if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "B receives",
				     &wc)) {
			CHECK(wc.byte_len == LEN &&
			      pattern_check(b.p, LEN, 7) < 0,
			      "the %d bytes arrived (byte_len %u)", LEN,
			      wc.byte_len);
		}
	} else {
		double t0;

		ctl_sync(s, 'R');
		pattern_fill(b.p, LEN, 7);
		t0 = now_ms();
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, LEN, 0, 0,
				IBV_SEND_SIGNALED), "post SEND");
		if (ok || type == IBV_QPT_UC) {
			expect_wc(s->cq, 1, IBV_WC_SUCCESS, "A's SEND", NULL);
			expect_state(qp, IBV_QPS_RTS, "A");
		} else if (expect_wc(s->cq, 1, IBV_WC_RETRY_EXC_ERR,
				     "A's SEND along a mismatched path",
				     NULL)) {
			double dt = now_ms() - t0;

			CHECK(dt >= ack_timeout_ms(c.timeout),
			      "retries exceeded after the transport timeout "
			      "(%.1f ms >= %.1f ms)", dt,
			      ack_timeout_ms(c.timeout));
			expect_state(qp, IBV_QPS_ERR, "A");
		}
		/* B's port may still see a late packet: give it the time */
		if (!ok)
			expect_quiet(s->cq, "A after the SEND");
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/* the 40-byte GRH area as the sender's GID type makes it */
static void check_grh(const uint8_t *g, int type, const uint8_t *sgid,
		      const uint8_t *dgid)
{
	int v4 = !memcmp(sgid, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);

	if (type == V2 && v4) {
		CHECK((g[20] >> 4) == 4 && g[29] == 17 &&
		      !memcmp(g + 32, sgid + 12, 4) &&
		      !memcmp(g + 36, dgid + 12, 4),
		      "GRH area: RoCE v2 IPv4 header in bytes 20..39 (UDP, "
		      "source and destination address)");
		return;
	}
	CHECK((g[0] >> 4) == 6 && g[6] == (type == V2 ? 17 : 0x1b) &&
	      !memcmp(g + 8, sgid, 16) && !memcmp(g + 24, dgid, 16),
	      "GRH area: IPv6-format header, next header %s, sgid, dgid",
	      type == V2 ? "UDP (RoCE v2)" : "0x1b (RoCE v1)");
}

/*
 * UD from A to B.  A first sends along the "bad" choice (sgid index
 * bad_sa, dgid by bad_dsel), then along the good one (A's index sa, B's
 * own GID at its index sb).  B must receive only the second datagram (or
 * both when bad_ok), check its GRH, derive an AH with
 * ibv_create_ah_from_wc and answer; A gets the answer.
 */
static void gid_ud(struct sv_side *s, int sa, int sb, int bad_sa,
		   int bad_dsel, int bad_ok)
{
	struct sv_conn c = { .type = IBV_QPT_UD };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_ah *ah = NULL, *bad = NULL;
	struct ibv_wc wc;
	uint8_t dgid[16];

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4 * SLOT, RW) < 0 ||
	    side_use_gid(s, s->role == ROLE_A ? sa : sb) < 0)
		goto out;
	qp = qp_new(s, &c);
	if (!qp || gid_exchange(s, qp, &c, bad_dsel, &peer, dgid) < 0)
		goto out;
	if (s->role == ROLE_A) {
		struct sv_addr to_bad = peer;
		struct sv_side t = *s;

		memcpy(to_bad.gid, dgid, 16);
		t.gid_index = bad_sa;
		ah = ah_to(s, &peer);
		bad = ah_to(&t, &to_bad);
		if (!ah || !bad)
			goto out;
		CHECK(!post_recv_one(qp, 9, &b, 2 * SLOT, SLOT),
		      "A posts a receive for the answer");
		ctl_sync(s, 'R');
		pattern_fill(b.p, LEN, 1);
		CHECK(!post_ud(qp, bad, &peer, SV_QKEY, 1, &b, 0, LEN),
		      "post the first datagram (sgid index %d)", bad_sa);
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "A's first datagram "
			  "completes locally", NULL);
		pattern_fill(b.p + SLOT, LEN, 2);
		CHECK(!post_ud(qp, ah, &peer, SV_QKEY, 2, &b, SLOT, LEN),
		      "post the second datagram (sgid index %d)", sa);
		expect_wc(s->cq, 2, IBV_WC_SUCCESS, "A's second datagram",
			  NULL);
		/* B answers only now: else its answer could complete
		 * before the send above and be skipped while A waits for
		 * wr_id 2 (seen on a loaded machine). */
		ctl_sync(s, 'A');
		if (expect_wc(s->cq, 9, IBV_WC_SUCCESS, "A receives B's "
			      "answer", &wc))
			CHECK(wc.byte_len == 64 + 40 &&
			      pattern_check(b.p + 2 * SLOT + 40, 64, 3) < 0,
			      "the answer's bytes arrived");
		ctl_sync(s, 'D');
	} else {
		struct ibv_gid_entry e;
		struct ibv_ah_attr back;
		const uint8_t *g = b.p;
		int want = bad_ok ? 2 : 1, r;

		CHECK(!post_recv_one(qp, 1, &b, 0, SLOT) &&
		      !post_recv_one(qp, 2, &b, SLOT, SLOT), "B posts 2 "
		      "receives");
		ctl_sync(s, 'R');
		if (!expect_wc(s->cq, 1, IBV_WC_SUCCESS, "B receives a "
			       "datagram", &wc))
			goto out;
		if (bad_ok) {
			CHECK(wc.byte_len == LEN + 40 &&
			      pattern_check(b.p + 40, LEN, 1) < 0,
			      "the first datagram (sgid index %d) arrived",
			      bad_sa);
			g = b.p + SLOT;
			if (!expect_wc(s->cq, 2, IBV_WC_SUCCESS, "B receives "
				       "the second datagram", &wc))
				goto out;
		}
		CHECK(wc.byte_len == LEN + 40 && (wc.wc_flags & IBV_WC_GRH) &&
		      pattern_check(g + 40, LEN, 2) < 0,
		      "it is A's datagram along the matching GIDs (%s)",
		      want == 2 ? "the other one arrived too" :
				  "the mismatched one was dropped");
		if (!SETUP(!ibv_query_gid_ex(s->ctx, 1, (uint32_t)sb, &e, 0),
			   "ibv_query_gid_ex(%d)", sb))
			goto out;
		check_grh(g, (int)e.gid_type, peer.gid, s->gid.raw);
		memset(&back, 0xff, sizeof(back));
		r = ibv_init_ah_from_wc(s->ctx, 1, &wc, (struct ibv_grh *)g,
					&back);
		CHECK(!r && back.is_global && back.grh.sgid_index == sb &&
		      !memcmp(back.grh.dgid.raw, peer.gid, 16),
		      "ibv_init_ah_from_wc: sgid_index %d, dgid = A's GID "
		      "(got index %u)", sb, back.grh.sgid_index);
		ah = ibv_create_ah_from_wc(s->pd, &wc, (struct ibv_grh *)g, 1);
		ctl_sync(s, 'A'); /* A has its send completions */
		if (SETUP(ah, "ibv_create_ah_from_wc")) {
			pattern_fill(b.p + 3 * SLOT, 64, 3);
			CHECK(!post_ud(qp, ah, &peer, SV_QKEY, 7, &b, 3 * SLOT,
				       64), "B answers");
			expect_wc(s->cq, 7, IBV_WC_SUCCESS, "B's answer", NULL);
		}
		expect_quiet(s->cq, "B gets nothing else");
		ctl_sync(s, 'D');
	}
out:
	if (bad)
		ibv_destroy_ah(bad);
	if (ah)
		ibv_destroy_ah(ah);
	finish(s, qp, &b, NULL);
}

/* connected: A's sgid index, B's, A's dgid, delivered? */
void t_gid_rc_v2_ipv4(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 3, 3, DGID_PEER, 1);
}

void t_gid_rc_v2_ipv6(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 5, 5, DGID_PEER, 1);
}

void t_gid_rc_v1_ipv4(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 2, 2, DGID_PEER, 1);
}

void t_gid_rc_v1_ll(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 0, 0, DGID_PEER, 1);
}

void t_gid_rc_type(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 2, 3, DGID_PEER, 0);	/* v1 -> v2 */
}

void t_gid_rc_family(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 3, 5, DGID_PEER, 0);	/* IPv4 -> IPv6 */
}

void t_gid_rc_not_peer(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_RC, 3, 3, DGID_OWN, 0);
}

void t_gid_uc_v2(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_UC, 3, 3, DGID_PEER, 1);
}

void t_gid_uc_type(struct sv_side *s)
{
	gid_conn(s, IBV_QPT_UC, 2, 3, DGID_PEER, 0);
}

/* UD: A's good index, B's, then the bad sgid index, its dgid, delivered? */
void t_gid_ud_v2_ipv4(struct sv_side *s)
{
	gid_ud(s, 3, 3, 5, 5, 1);	/* and v2 IPv6 */
}

void t_gid_ud_v1(struct sv_side *s)
{
	gid_ud(s, 2, 2, 0, 0, 1);	/* v1 IPv4, and v1 link-local */
}

void t_gid_ud_v2_ipv6(struct sv_side *s)
{
	gid_ud(s, 5, 5, 1, 1, 1);	/* and v2 link-local */
}

void t_gid_ud_type(struct sv_side *s)
{
	/* B's port has RoCE v2 only: index 1 is its IPv4 GID */
	gid_ud(s, 3, 1, 2, DGID_PEER, 0);
}

void t_gid_ud_type_dual(struct sv_side *s)
{
	/* B's port has both types: v1 to the GID of its v2 entry arrives */
	gid_ud(s, 3, 3, 2, 3, 1);
}

void t_gid_ud_family(struct sv_side *s)
{
	gid_ud(s, 5, 5, 3, 5, 0);
}

void t_gid_ud_not_peer(struct sv_side *s)
{
	gid_ud(s, 3, 3, 3, DGID_OWN, 0);
}

/* ---- the GID registry under load ------------------------------------------ */

#define CHURN_KEEP 200			/* sockets each churner holds */
#define CHURN_BATCH 800			/* and makes and closes at a time */
#define CHURNERS 2
#define CHURN_AHS 4200			/* address handles A creates */

static int unix_named(pid_t pid, int i);

static int v4_mapped(const uint8_t *raw)
{
	static const uint8_t pre[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(raw, pre, sizeof(pre));
}

/*
 * A child that makes /proc/net/unix long and keeps it changing, as the
 * processes of a busy node do, until its parent ends it (or 60 s pass).
 */
static pid_t churn_start(void)
{
	pid_t pid = fork();
	int keep[CHURN_KEEP], i, k;
	struct rlimit rl;
	time_t end;

	if (pid)
		return pid;
	end = time(NULL) + 60;
	if (!getrlimit(RLIMIT_NOFILE, &rl) &&
	    rl.rlim_cur < CHURN_KEEP + CHURN_BATCH + 64) {
		rl.rlim_cur = CHURN_KEEP + CHURN_BATCH + 64;
		setrlimit(RLIMIT_NOFILE, &rl);	/* else fewer sockets */
	}
	for (i = 0; i < CHURN_KEEP; i++)
		keep[i] = unix_named(getpid(), i);
	while (time(NULL) < end) {
		int fd[CHURN_BATCH];

		for (k = 0; k < CHURN_BATCH; k++)
			fd[k] = unix_named(getpid(), CHURN_KEEP + k);
		for (k = 0; k < CHURN_BATCH; k++)
			if (fd[k] >= 0)
				close(fd[k]);
	}
	(void)keep;
	_exit(0);
}

/*
 * A bound abstract AF_UNIX datagram socket named as the QP sockets of a
 * third node of the fabric, "softverbs/<fabric>/3/<pid * 4096 + i>": the
 * kernel hashes similar names to nearby places of its table.
 */
static int unix_named(pid_t pid, int i)
{
	const char *fab = getenv("SOFTVERBS_FABRIC");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int n;

	if (fd < 0)
		return -1;
	n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
		     "softverbs/%s/3/%lu", fab ? fab : "", (unsigned long)pid *
		     4096 + (unsigned long)i);
	if (bind(fd, (struct sockaddr *)&a,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * B has seven IPv4 addresses (churn_b in cases.h), so seven registry names
 * at seven places in /proc/net/unix.  A resolves B's RoCE v2 GIDs of
 * them, in turn, for CHURN_AHS address handles while children of A churn
 * unix sockets: every one is created.  (One scan of /proc/net/unix can
 * miss a name when sockets come and go during the read.)
 */
void t_gid_lookup_churn(struct sv_side *s)
{
	union ibv_gid tbl[TBL];
	pid_t churn[CHURNERS];
	int i, ready = 1, failed = 0, err = 0, nv2 = 0, v2[TBL];

	memset(tbl, 0, sizeof(tbl));
	if (side_open(s, 64, 0) < 0 || side_use_gid(s, 3) < 0)
		goto out;
	if (s->role == ROLE_B) {
		for (i = 0; i < TBL; i++)
			ibv_query_gid(s->ctx, 1, i, &tbl[i]);
		ctl_send(s, 'T', tbl, sizeof(tbl));
		ctl_sync(s, 'D');
		goto out;
	}
	if (ctl_recv(s, 'T', tbl, sizeof(tbl)) < 0)
		goto out;
	for (i = 3; i < TBL; i += 2)	/* the v2 entry of each address */
		if (v4_mapped(tbl[i].raw))
			v2[nv2++] = i;
	if (!SETUP(nv2 == 7, "B has 7 IPv4 RoCE v2 GIDs (%d)", nv2))
		goto done;
	for (i = 0; i < CHURNERS; i++) {
		churn[i] = churn_start();
		ready &= SETUP(churn[i] > 0, "fork churner %d", i);
	}
	if (ready)
		usleep(300 * 1000);	/* their sockets are bound */
	for (i = 0; ready && i < CHURN_AHS; i++) {
		struct ibv_ah_attr ah = {
			.is_global = 1, .port_num = s->port_num,
			.grh = { .hop_limit = 1,
				 .sgid_index = (uint8_t)s->gid_index },
		};
		struct ibv_ah *h;

		ah.grh.dgid = tbl[v2[i % nv2]];
		h = ibv_create_ah(s->pd, &ah);
		if (!h) {
			failed++;
			err = errno;
			continue;
		}
		ibv_destroy_ah(h);
	}
	for (i = 0; i < CHURNERS; i++)
		if (churn[i] > 0) {
			kill(churn[i], SIGKILL);
			waitpid(churn[i], NULL, 0);
		}
	if (ready)
		CHECK(failed == 0, "%d address handles to B's 7 IPv4 GIDs "
		      "while unix sockets churn: %d failed (%s)", CHURN_AHS,
		      failed, failed ? strerror(err) : "none");
done:
	ctl_sync(s, 'D');
out:
	finish(s, NULL, NULL, NULL);
}
