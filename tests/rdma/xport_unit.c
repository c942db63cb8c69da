// SPDX-License-Identifier: GPL-2.0-only
/*
 * Solo cases of xport_test: the pure functions of transports/verbs_node.c
 * on exact bytes and values (NODE, NODE extension, peer checks, GID
 * choice, MTU, rates, memory-registration errors).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "lib/tlv.h"
#include "transports/verbs_int.h"
#include "xcases.h"
#include "xharness.h"


void u_node(struct xside *sd)
{
	static const uint8_t want[40] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* vaddr */
		0x02, 0x01, 0x00, 0x00, /* lid */
		0xef, 0xcd, 0xab, 0x00, /* qpn */
		0x56, 0x34, 0x12, 0x00, /* psn */
		0x42, 0x00, 0x00, 0x00, /* srqn */
		0xef, 0xbe, 0xad, 0xde, /* rkey */
		0x04, 0x03, 0x00, 0x00, /* alt_lid */
		0x10, 0x00, 0x00, 0x00, /* rd_atomic */
		0x00, 0x00, 0x00, 0x00, /* padding */
	};
	struct verbs_node n = { 0x1122334455667788ull, 0x0102, 0xabcdef,
				0x123456, 0x42, 0xdeadbeef, 0x0304, 16 };
	struct verbs_node m;
	uint8_t out[40];

	(void)sd;
	memset(out, 0xaa, sizeof(out));
	verbs_node_encode(&n, out);
	CHECK(memcmp(out, want, 40) == 0,
	      "NODE encodes to 0.4.11's 40 little-endian bytes, padding zero");
	memset(&m, 0xff, sizeof(m));
	verbs_node_decode(want, &m);
	CHECK(m.vaddr == n.vaddr && m.lid == n.lid && m.qpn == n.qpn &&
		      m.psn == n.psn && m.srqn == n.srqn && m.rkey == n.rkey &&
		      m.alt_lid == n.alt_lid && m.rd_atomic == n.rd_atomic,
	      "NODE decodes every field");
}

void u_ext(struct xside *sd)
{
	static const uint8_t want[] = {
		0x51, 0x50, 0x58, 0x32, 34, 0, 0, 0, /* "QPX2", length 34 */
		5, 0, 4, 0, 1, 0, 0, 0, /* link layer: InfiniBand */
		12, 0, 4, 0, 1, 0, 0, 0, /* port 1 */
		11, 0, 6, 0, 's', 'o', 'f', 't', 'v', '0', /* device */
	};
	struct verbs_ext x, y;
	uint8_t buf[VERBS_EXT_MAX], bad[64];
	size_t n;

	(void)sd;
	memset(&x, 0, sizeof(x));
	x.have = VXH_LINK;
	x.link_layer = VL_IB;
	x.port = 1;
	snprintf(x.device, sizeof(x.device), "softv0");
	n = verbs_ext_encode(&x, buf, sizeof(buf));
	CHECK(n == sizeof(want) && memcmp(buf, want, n) == 0,
	      "extension with the link items encodes to exact bytes (%zu)", n);

	memset(&x, 0, sizeof(x));
	x.have = VXH_LINK | VXH_GID | VXH_MTU | VXH_XRC | VXH_NUMA;
	x.numa_node = 1;
	x.link_layer = VL_ETH;
	x.port = 2;
	snprintf(x.device, sizeof(x.device), "mlx5_0");
	for (int i = 0; i < 16; i++)
		x.gid[i] = (uint8_t)(0xf0 + i);
	x.gid_index = 3;
	x.gid_type = VG_ROCE_V2;
	x.active_mtu = 1024;
	x.mtu_size = 2048;
	x.mtu_explicit = 1;
	x.xrc_ini_qpn = 0x123;
	x.xrc_tgt_qpn = 0x456;
	x.xrc_srqn = 0x789;
	x.gid_forced = 1;
	x.ncand = 2;
	x.cand[0].index = 3;
	x.cand[0].type = VG_ROCE_V2;
	x.cand[0].gid[15] = 9;
	x.cand[1].index = 2;
	x.cand[1].type = VG_ROCE_V1;
	x.cand[1].gid[0] = 0xfe;
	n = verbs_ext_encode(&x, buf, sizeof(buf));
	CHECK(n > 0 && verbs_ext_decode(buf, n, &y) == 0 &&
		      memcmp(&x, &y, sizeof(x)) == 0,
	      "full extension round-trips (%zu bytes)", n);

	/* an unknown item of a later version in the middle is skipped */
	{
		struct tlv_w w;
		struct verbs_ext z;
		size_t m;

		tlv_init(&w, bad, sizeof(bad));
		tlv_u32(&w, VX_ACTIVE_MTU, 512);
		tlv_bytes(&w, 999, "later", 5);
		tlv_u32(&w, VX_MTU_SIZE, 256);
		tlv_u32(&w, VX_MTU_EXPLICIT, 0);
		tlv_u32(&w, VX_GID_INDEX, 1); /* GID group incomplete */
		m = tlv_finish(&w);
		CHECK(verbs_ext_decode(bad, m, &z) == 0 &&
			      z.have == VXH_MTU && z.active_mtu == 512 &&
			      z.mtu_size == 256,
		      "unknown items ignored, incomplete groups not taken");
		bad[4] = (uint8_t)(m + 1); /* header longer than the block */
		CHECK(verbs_ext_decode(bad, m, &z) == -1,
		      "length mismatch refused");
	}
	{
		struct tlv_w w;
		struct verbs_ext z;
		size_t m;

		tlv_init(&w, bad, sizeof(bad));
		tlv_bytes(&w, VX_ACTIVE_MTU, "\1\2", 2); /* u32 of 2 bytes */
		m = tlv_finish(&w);
		CHECK(verbs_ext_decode(bad, m, &z) == -1,
		      "item of the wrong length refused");
		tlv_init(&w, bad, sizeof(bad));
		tlv_u32(&w, VX_PORT, 1);
		m = tlv_finish(&w);
		bad[10] = 40; /* item claims more than the block holds */
		CHECK(verbs_ext_decode(bad, m, &z) == -1,
		      "truncated item refused");
		tlv_init(&w, bad, sizeof(bad));
		tlv_bytes(&w, VX_GID, "short", 5);
		m = tlv_finish(&w);
		CHECK(verbs_ext_decode(bad, m, &z) == -1,
		      "GID of 5 bytes refused");
	}
	CHECK(verbs_ext_encode(&x, buf, 20) == 0,
	      "encoding into too small a buffer fails");
}

static void node_err(const struct verbs_node *n, const struct verbs_kind *k,
		     bool rdma, bool rd, bool lid, const char *want,
		     const char *what)
{
	char err[256] = "";
	int rc = verbs_node_check(n, k, rdma, rd, lid, err, sizeof(err));

	CHECK(rc == -1 && contains(err, want), "%s: \"%s\"", what, err);
}

void u_node_check(struct xside *sd)
{
	struct verbs_node ok = { 0x10000, 1, 0x22, 0x333, 0, 0x100, 0, 16 };
	struct verbs_node n;
	char err[256] = "";

	(void)sd;
	CHECK(verbs_node_check(&ok, &verbs_kind_rc, true, true, true, err,
			       sizeof(err)) == 0,
	      "a sane NODE passes");
	n = ok;
	n.qpn = 0x1000000;
	node_err(&n, &verbs_kind_rc, false, false, true,
		 "peer sent a bad QP number 0x1000000", "QPN beyond 24 bits");
	n = ok;
	n.qpn = 0;
	node_err(&n, &verbs_kind_ud, false, false, true, "bad QP number 0x0",
		 "QPN 0");
	n = ok;
	n.psn = 0x1000000;
	node_err(&n, &verbs_kind_uc, false, false, true,
		 "peer sent a bad PSN 0x1000000", "PSN beyond 24 bits");
	n = ok;
	n.lid = 0;
	node_err(&n, &verbs_kind_rc, false, false, true, "peer sent LID 0",
		 "LID 0 on InfiniBand");
	CHECK(verbs_node_check(&n, &verbs_kind_rc, false, false, false, err,
			       sizeof(err)) == 0,
	      "LID 0 is fine with a GRH (RoCE)");
	n = ok;
	n.rd_atomic = 300;
	node_err(&n, &verbs_kind_rc, false, false, true,
		 "depth 300 (must be 0..255)", "rd_atomic out of range");
	n = ok;
	n.rd_atomic = 0;
	node_err(&n, &verbs_kind_rc, true, true, true,
		 "peer accepts no RDMA reads or atomics", "rd_atomic 0 for reads");
	n = ok;
	n.rkey = 0;
	node_err(&n, &verbs_kind_rc, true, false, true,
		 "peer sent no memory to access (rkey 0x0", "rkey 0 for writes");
	n = ok;
	n.vaddr = 0;
	node_err(&n, &verbs_kind_uc, true, false, true, "address 0x0)",
		 "vaddr 0");
	CHECK(verbs_node_check(&n, &verbs_kind_uc, false, false, true, err,
			       sizeof(err)) == 0,
	      "vaddr 0 is fine when this side does no RDMA");
	n = ok;
	n.srqn = 0x1000000;
	node_err(&n, &verbs_kind_xrc, false, false, true, "bad XRC SRQ number",
		 "SRQN beyond 24 bits");
}

static void cand(struct verbs_gid_cand *c, uint32_t idx,
		 enum verbs_gid_type t, const char *text)
{
	struct in6_addr a;

	inet_pton(AF_INET6, text, &a);
	memcpy(c->gid, &a, 16);
	c->index = idx;
	c->type = t;
}

static struct sockaddr_storage addr(const char *text)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(text, ':')) {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, text, &a->sin6_addr);
	} else if (*text) {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		inet_pton(AF_INET, text, &a->sin_addr);
	}
	return ss;
}

/* A side's offer from a table of (index, type, GID text). */
static void offer(struct verbs_gid_set *set, const struct verbs_gid_cand *c,
		  int n, int pick, bool forced)
{
	struct sockaddr_storage ss = addr("10.0.0.1");

	verbs_gid_offer(c, n, &ss, &c[pick], forced, set);
}

static void u_gid_settle(void)
{
	struct verbs_gid_cand a[6], b[6], of, pf;
	struct verbs_gid_set sa, sb;
	char err[300] = "";
	int rc;

	/* a: v1 only; b: v1 and v2, as softverbs' tables */
	cand(&a[0], 0, VG_ROCE_V1, "fe80::1");
	cand(&a[1], 1, VG_ROCE_V1, "::ffff:10.0.0.1");
	cand(&a[2], 2, VG_ROCE_V1, "fd00::1");
	cand(&b[0], 0, VG_ROCE_V1, "fe80::2");
	cand(&b[1], 1, VG_ROCE_V2, "fe80::2");
	cand(&b[2], 2, VG_ROCE_V1, "::ffff:10.0.0.2");
	cand(&b[3], 3, VG_ROCE_V2, "::ffff:10.0.0.2");
	cand(&b[4], 4, VG_ROCE_V1, "fd00::2");
	cand(&b[5], 5, VG_ROCE_V2, "fd00::2");
	offer(&sa, a, 3, 1, false);
	offer(&sb, b, 6, 3, false);
	CHECK(sa.have[0] && sa.best[0].index == 1 && sa.have[1] &&
		      !sa.have[2] && !sa.have[3] && sb.have[2] &&
		      sb.best[2].index == 3 && sb.best[3].index == 5,
	      "offer: the best entry of each type and family");
	rc = verbs_gid_settle(&sa, &sb, true, &of, &pf, err, sizeof(err));
	CHECK(rc == 0 && of.index == 1 && pf.index == 2 &&
		      pf.type == VG_ROCE_V1,
	      "settle: v1-only client and v1+v2 server meet on v1 IPv4");
	rc = verbs_gid_settle(&sb, &sa, false, &of, &pf, err, sizeof(err));
	CHECK(rc == 0 && of.index == 2 && pf.index == 1,
	      "settle: the same seen from the server");
	offer(&sa, b, 6, 4, true); /* client given index 4: v1 IPv6 */
	rc = verbs_gid_settle(&sa, &sb, true, &of, &pf, err, sizeof(err));
	CHECK(rc == 0 && of.index == 4 && pf.index == 4,
	      "settle: a given index is followed by the other side");
	offer(&sb, b, 6, 3, true); /* both given, incompatible */
	rc = verbs_gid_settle(&sa, &sb, true, &of, &pf, err, sizeof(err));
	CHECK(rc == -1 && contains(err, "this side 4 fd00::2 (RoCE v1 IPv6), peer 3 ::ffff:10.0.0.2 (RoCE v2 IPv4)"),
	      "settle: two given, incompatible indexes fail: \"%s\"", err);
	offer(&sa, a, 1, 0, true); /* given v1 link-local: IPv6 */
	offer(&sb, b + 2, 2, 1, false); /* IPv4 only */
	rc = verbs_gid_settle(&sa, &sb, true, &of, &pf, err, sizeof(err));
	CHECK(rc == -1 && contains(err, "do not match"),
	      "settle: nothing to follow with fails");
	offer(&sa, b, 6, 3, false);
	offer(&sb, b, 6, 3, false);
	rc = verbs_gid_settle(&sa, &sb, true, &of, &pf, err, sizeof(err));
	CHECK(rc == 0 && of.index == 3 && pf.index == 3,
	      "settle: compatible choices stay");
}

void u_gid(struct xside *sd)
{
	struct verbs_gid_cand c[8];
	struct sockaddr_storage ss;
	char err[300] = "", g[64];

	(void)sd;
	cand(&c[0], 0, VG_ROCE_V1, "fe80::1");
	cand(&c[1], 1, VG_ROCE_V2, "fe80::1");
	cand(&c[2], 2, VG_ROCE_V1, "::ffff:10.0.0.1");
	cand(&c[3], 3, VG_ROCE_V2, "::ffff:10.0.0.1");
	cand(&c[4], 4, VG_ROCE_V2, "::ffff:192.168.1.5");
	cand(&c[5], 5, VG_ROCE_V2, "2001:db8::5");
	cand(&c[6], 6, VG_ROCE_V2, "::ffff:169.254.1.1");
	cand(&c[7], 7, VG_ROCE_V2, "::");

	ss = addr("10.0.0.1");
	CHECK(verbs_gid_pick(c, 8, &ss) == 3, "IPv4: v2 GID equal to the address");
	ss = addr("192.168.1.5");
	CHECK(verbs_gid_pick(c, 8, &ss) == 4, "IPv4: the other address's GID");
	ss = addr("10.9.9.9");
	CHECK(verbs_gid_pick(c, 8, &ss) == 3,
	      "IPv4, no equal GID: lowest v2 non-link-local IPv4");
	ss = addr("::ffff:192.168.1.5");
	CHECK(verbs_gid_pick(c, 8, &ss) == 4, "v4-mapped IPv6 counts as IPv4");
	ss = addr("2001:db8::5");
	CHECK(verbs_gid_pick(c, 8, &ss) == 5, "IPv6: the equal GID");
	ss = addr("2001:db8::99");
	CHECK(verbs_gid_pick(c, 8, &ss) == 5, "IPv6: non-link-local first");
	ss = addr("2001:db8::5");
	CHECK(verbs_gid_pick(c, 5, &ss) == 1,
	      "IPv6 without global GIDs: link-local v2 as fallback");
	ss = addr("10.0.0.1");
	CHECK(verbs_gid_pick(c, 2, &ss) == 1,
	      "no GID of the family: v2 link-local of the other family");
	cand(&c[0], 0, VG_ROCE_V2, "::ffff:169.254.1.1");
	cand(&c[1], 1, VG_ROCE_V2, "::ffff:10.1.1.1");
	ss = addr("10.0.0.1");
	CHECK(verbs_gid_pick(c, 2, &ss) == 1,
	      "IPv4 link-local only after other IPv4 GIDs");
	cand(&c[0], 0, VG_ROCE_V1, "::ffff:10.0.0.1");
	cand(&c[1], 1, VG_ROCE_V2, "::ffff:10.0.0.2");
	CHECK(verbs_gid_pick(c, 2, &ss) == 1,
	      "RoCE v2 before v1, even before the equal address");
	cand(&c[0], 0, VG_IB, "fe80::1");
	cand(&c[1], 1, VG_ROCE_V2, "::");
	CHECK(verbs_gid_pick(c, 2, &ss) == -1,
	      "zero and InfiniBand GIDs are never picked");
	memset(&ss, 0, sizeof(ss));
	cand(&c[0], 0, VG_ROCE_V2, "fe80::1");
	cand(&c[1], 1, VG_ROCE_V2, "::ffff:10.0.0.1");
	CHECK(verbs_gid_pick(c, 2, &ss) == 1,
	      "unknown control family: non-link-local first");

	CHECK(verbs_gid_compat(c[0].gid, 0, VG_ROCE_V2, c[0].gid, 0,
			       VG_ROCE_V2, err, sizeof(err)) == 0,
	      "same type and family are compatible");
	cand(&c[2], 2, VG_ROCE_V1, "fe80::2");
	CHECK(verbs_gid_compat(c[0].gid, 0, VG_ROCE_V2, c[2].gid, 2,
			       VG_ROCE_V1, err, sizeof(err)) == -1 &&
		      contains(err, "this side 0 fe80::1 (RoCE v2 IPv6), peer 2 fe80::2 (RoCE v1 IPv6)"),
	      "v2 against v1 refused, naming both: \"%s\"", err);
	CHECK(verbs_gid_compat(c[0].gid, 0, VG_ROCE_V2, c[1].gid, 1,
			       VG_ROCE_V2, err, sizeof(err)) == -1 &&
		      contains(err, "peer 1 ::ffff:10.0.0.1 (RoCE v2 IPv4)") &&
		      contains(err, "one type and address family"),
	      "IPv6 against IPv4 refused: \"%s\"", err);
	verbs_gid_str(c[1].gid, g, sizeof(g));
	CHECK(strcmp(g, "::ffff:10.0.0.1") == 0, "GID text %s", g);
	u_gid_settle();
}

void u_mtu_rate(struct xside *sd)
{
	static const char *const names[] = { "",      "max",   "1xSDR", "1xDDR",
					     "1xQDR", "4xSDR", "4xDDR", "4xQDR",
					     "8xSDR", "8xDDR", "8xQDR", "2.5",
					     "5",     "10",    "20",    "30",
					     "40",    "60",    "80",    "120" };
	static const enum ibv_rate vals[] = {
		IBV_RATE_MAX,	   IBV_RATE_MAX,      IBV_RATE_2_5_GBPS,
		IBV_RATE_5_GBPS,   IBV_RATE_10_GBPS,  IBV_RATE_10_GBPS,
		IBV_RATE_20_GBPS,  IBV_RATE_40_GBPS,  IBV_RATE_20_GBPS,
		IBV_RATE_40_GBPS,  IBV_RATE_80_GBPS,  IBV_RATE_2_5_GBPS,
		IBV_RATE_5_GBPS,   IBV_RATE_10_GBPS,  IBV_RATE_20_GBPS,
		IBV_RATE_30_GBPS,  IBV_RATE_40_GBPS,  IBV_RATE_60_GBPS,
		IBV_RATE_80_GBPS,  IBV_RATE_120_GBPS,
	};
	enum ibv_rate r;
	int good = 0;
	char err[256] = "";
	uint32_t m;

	(void)sd;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		good += verbs_rate_parse(names[i], &r) == 0 && r == vals[i];
	CHECK(good == 20, "all 20 rate names of spec 4.4 map right (%d)", good);
	CHECK(verbs_rate_parse("MAX", &r) == -1 &&
		      verbs_rate_parse("2.50", &r) == -1 &&
		      verbs_rate_parse("4xEDR", &r) == -1,
	      "rate names are exact and case-sensitive");
	CHECK(verbs_mtu_enum(256) == IBV_MTU_256 &&
		      verbs_mtu_enum(4096) == IBV_MTU_4096 &&
		      verbs_mtu_enum(3000) == 0 && verbs_mtu_enum(128) == 0 &&
		      verbs_mtu_enum(8192) == 0 && verbs_mtu_enum(0) == 0,
	      "MTU 256..4096 powers of two only");
	CHECK(verbs_mtu_bytes(IBV_MTU_1024) == 1024, "MTU enum to bytes");
	CHECK(verbs_path_mtu(2048, false, 4096, 0, "a:1", "b:1", err,
			     sizeof(err)) == 2048 &&
		      verbs_path_mtu(2048, false, 1024, 4096, "a:1", "b:1",
				     err, sizeof(err)) == 1024 &&
		      verbs_path_mtu(4096, false, 4096, 512, "a:1", "b:1", err,
				     sizeof(err)) == 512,
	      "path MTU without -mt: min(mtu_size, both active MTUs)");
	m = verbs_path_mtu(4096, true, 4096, 1024, "a:1", "b:2", err,
			   sizeof(err));
	CHECK(m == 0 && contains(err, "this side a:1 4096, peer b:2 1024") &&
		      contains(err, "use -mt 1024 or less"),
	      "explicit MTU above the peer's active MTU: \"%s\"", err);
	CHECK(verbs_path_mtu(1024, true, 4096, 1024, "a:1", "b:2", err,
			     sizeof(err)) == 1024,
	      "explicit MTU within both ports is used");
	verbs_reg_mr_error(65536, ENOMEM, 32768, err, sizeof(err));
	CHECK(contains(err, "failed to register 65536 bytes of memory") &&
		      contains(err, "limited to 32768 bytes") &&
		      contains(err, "ulimit -l"),
	      "ENOMEM under a memlock limit names ulimit -l: \"%s\"", err);
	verbs_reg_mr_error(65536, EPERM, 0, err, sizeof(err));
	CHECK(contains(err, "ulimit -l"), "EPERM too");
	verbs_reg_mr_error(65536, EINVAL, 32768, err, sizeof(err));
	CHECK(!contains(err, "ulimit") && contains(err, "Invalid argument"),
	      "other errors do not blame the limit");
}
