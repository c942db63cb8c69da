// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control codecs against the exact bytes of 0.4.11 (spec §2), and the
 * bounded I/O: timeouts, EOF, and the peer's urgent-data error notice.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/ctl.h"
#include "lib/hist.h"
#include "core/opts.h"
#include "core/session.h"
#include "lib/tlv.h"
#include "lib/clock.h"
#include "lib/alloc.h"
#include "harness.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* `qperf localhost -t 1 tcp_lat` as captured (spec §2.2). */
TEST(req_encode_captured_tcp_lat)
{
	struct req q;
	uint8_t got[REQ_SIZE], want[REQ_SIZE];

	memset(&q, 0, sizeof(q));
	q.ver_min = 4;
	q.ver_inc = 11;
	q.req_index = 9;
	q.msg_size = 1;
	q.time = 1;
	q.timeout = 5;
	memset(want, 0, sizeof(want));
	memcpy(want, "\x00\x00\x04\x00\x0b\x00\x09\x00", 8);
	want[24] = 1; /* msg_size */
	want[60] = 1; /* time */
	want[64] = 5; /* timeout */
	memset(got, 0xee, sizeof(got));
	req_encode(&q, got);
	CHECK(memcmp(got, want, REQ_SIZE) == 0);
}

TEST(req_field_offsets)
{
	struct req q, d;
	uint8_t b[REQ_SIZE];
	static const int off[] = { 8,  12, 16, 20, 24, 28, 32, 36,
				   40, 44, 48, 52, 56, 60, 64, 68 };
	uint32_t *f[] = { &q.access_recv, &q.affinity,	 &q.alt_port,
			  &q.flip,	  &q.msg_size,	 &q.mtu_size,
			  &q.no_msgs,	  &q.poll_mode,	 &q.port,
			  &q.rd_atomic,	  &q.sl,	 &q.sock_buf_size,
			  &q.src_path_bits, &q.time,	 &q.timeout,
			  &q.use_cm };

	memset(&q, 0, sizeof(q));
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		*f[i] = 0x01020300u + (uint32_t)i;
	strcpy(q.id, "mlx5_0:1");
	strcpy(q.static_rate, "4xQDR");
	req_encode(&q, b);
	for (size_t i = 0; i < ARRAY_SIZE(off); i++)
		CHECK(b[off[i]] == i && b[off[i] + 1] == 3 &&
		      b[off[i] + 2] == 2 && b[off[i] + 3] == 1);
	CHECK(memcmp(b + 72, "mlx5_0:1\0\0", 10) == 0);
	CHECK(b[135] == 0);
	CHECK(memcmp(b + 136, "4xQDR\0", 6) == 0);
	CHECK(b[199] == 0);
	req_decode(b, &d);
	CHECK(d.sock_buf_size == q.sock_buf_size && d.use_cm == q.use_cm);
	CHECK_STR(d.id, "mlx5_0:1");
	CHECK_STR(d.static_rate, "4xQDR");
	CHECK(d.time_ns == (uint64_t)q.time * NS_PER_SEC);
}

/* A hostile request without NULs in its strings decodes safely. */
TEST(req_decode_unterminated_strings)
{
	uint8_t b[REQ_SIZE];
	struct req q;

	memset(b, 'A', sizeof(b));
	req_decode(b, &q);
	CHECK(strlen(q.id) == 63);
	CHECK(strlen(q.static_rate) == 63);
	CHECK(q.ver_maj == 0x4141 && q.msg_size == 0x41414141u);
}

/* An early 0.5 client's fixed 24-byte block is still understood. */
TEST(ext_req_v1_block)
{
	struct req d;
	uint8_t b[EXT_REQ_SIZE];

	memset(&d, 0, sizeof(d));
	memcpy(b, "QPX1", 4);
	put32(b + 4, EXT_REQ_SIZE);
	put64(b + 8, 300000000);
	put64(b + 16, 5 * NS_PER_SEC);
	CHECK(ext_block_len(b) == EXT_REQ_SIZE);
	CHECK(ext_req_decode(b, sizeof(b), &d) == 0);
	CHECK(d.ext && d.ext_ver == 1 && d.time_ns == 300000000 &&
	      d.timeout_ns == 5 * NS_PER_SEC && d.gid_index == -1);
	put32(b + 4, 99); /* a QPX1 block is exactly 24 bytes */
	CHECK(ext_block_len(b) == 0);
	CHECK(ext_req_decode(b, sizeof(b), &d) == -1);
}

TEST(ext_req_tlv_roundtrip_and_rejects)
{
	struct req q, d;
	uint8_t b[EXT_BLOCK_MAX];
	size_t n;

	memset(&q, 0, sizeof(q));
	memset(&d, 0, sizeof(d));
	q.time_ns = 300000000;
	q.timeout_ns = 5 * NS_PER_SEC;
	q.caps = 0x7;
	q.mtu_explicit = true;
	q.gid_index = 3;
	n = ext_req_encode(&q, b, sizeof(b));
	CHECK(n > EXT_REQ_SIZE); /* an early 0.5 server reads 24 bytes */
	CHECK(memcmp(b, "QPX2", 4) == 0);
	CHECK(b[4] == n && b[5] == 0);
	CHECK(ext_block_len(b) == n);
	CHECK(ext_req_decode(b, n, &d) == 0);
	CHECK(d.ext && d.ext_ver == 2 && d.time_ns == q.time_ns &&
	      d.timeout_ns == q.timeout_ns && d.caps == 7 && d.mtu_explicit &&
	      d.gid_index == 3);
	CHECK(ext_req_decode(b, n - 1, &d) == -1); /* length mismatch */
	b[0] ^= 1;
	CHECK(ext_block_len(b) == 0);
	CHECK(ext_req_decode(b, n, &d) == -1);
	b[0] ^= 1;
	/* A known item with the wrong length is malformed. */
	{
		struct tlv_w w;
		uint8_t c[64];

		tlv_init(&w, c, sizeof(c));
		tlv_u32(&w, REQX_TIME_NS, 1);
		n = tlv_finish(&w);
		CHECK(ext_req_decode(c, n, &d) == -1);
	}
}

/* The verbs knobs: items REQX_VK_BASE + i, only those set, u32 each,
 * with exact bytes; out-of-range values make the block malformed. */
TEST(ext_req_tlv_verbs_knobs)
{
	struct req q, d;
	uint8_t b[EXT_BLOCK_MAX];
	size_t n, n0;
	int sq = PAR_SQ_DEPTH - PAR_VK_FIRST, nn = PAR_NUMA_NODE - PAR_VK_FIRST;
	int tc = PAR_TCLASS - PAR_VK_FIRST;

	memset(&q, 0, sizeof(q));
	q.gid_index = -1;
	n0 = ext_req_encode(&q, b, sizeof(b));
	q.vk[sq] = 16;
	q.vk[nn] = 0; /* set to 0: still sent */
	q.vk_set = 1u << sq | 1u << nn;
	n = ext_req_encode(&q, b, sizeof(b));
	CHECK(n == n0 + 2 * 8);
	/* The items follow the fixed ones: type 32, length 4, value 16. */
	CHECK(b[n0] == REQX_VK_BASE + sq && b[n0 + 1] == 0 && b[n0 + 2] == 4 &&
	      b[n0 + 3] == 0 && b[n0 + 4] == 16 && b[n0 + 5] == 0);
	CHECK(b[n0 + 8] == REQX_VK_BASE + nn);
	memset(&d, 0, sizeof(d));
	CHECK(ext_req_decode(b, n, &d) == 0);
	CHECK(d.vk_set == q.vk_set && d.vk[sq] == 16 && d.vk[nn] == 0);
	/* Above its range: malformed, as a wrong length is. */
	{
		struct tlv_w w;
		uint8_t c[64];

		tlv_init(&w, c, sizeof(c));
		tlv_u32(&w, (uint16_t)(REQX_VK_BASE + tc), 256);
		n = tlv_finish(&w);
		CHECK(ext_req_decode(c, n, &d) == -1);
		tlv_init(&w, c, sizeof(c));
		tlv_u32(&w, (uint16_t)(REQX_VK_BASE + tc), 255);
		n = tlv_finish(&w);
		CHECK(ext_req_decode(c, n, &d) == 0 && d.vk[tc] == 255 &&
		      d.vk_set == 1u << tc);
		tlv_init(&w, c, sizeof(c));
		tlv_u64(&w, (uint16_t)(REQX_VK_BASE + sq), 16);
		n = tlv_finish(&w);
		CHECK(ext_req_decode(c, n, &d) == -1);
	}
	CHECK(reqx_vk_max(sq) == PAR_VK_DEPTH_MAX && reqx_vk_max(-1) == 0 &&
	      reqx_vk_max(PAR_VK_COUNT) == 0);
}

/* Each knob's largest value on the wire is its option's (the values
 * the server has always checked), and the parameter table takes every
 * knob and each plain 0.4.11 field into struct tparams. */
TEST(param_table_rows)
{
	static const uint32_t max[PAR_VK_COUNT] = {
		[PAR_SQ_DEPTH - PAR_VK_FIRST] = PAR_VK_DEPTH_MAX,
		[PAR_RQ_DEPTH - PAR_VK_FIRST] = PAR_VK_DEPTH_MAX,
		[PAR_INLINE - PAR_VK_FIRST] = PAR_VK_INLINE_MAX,
		[PAR_CQ_MOD - PAR_VK_FIRST] = PAR_VK_DEPTH_MAX,
		[PAR_POST_LIST - PAR_VK_FIRST] = PAR_VK_DEPTH_MAX,
		[PAR_USE_SRQ - PAR_VK_FIRST] = UINT32_MAX,
		[PAR_TCLASS - PAR_VK_FIRST] = 255,
		[PAR_PKEY_INDEX - PAR_VK_FIRST] = 65535,
		[PAR_NUMA_NODE - PAR_VK_FIRST] = PAR_VK_NODE_MAX,
		[PAR_CQ_PER_QP - PAR_VK_FIRST] = 1,
	};
	struct req q;
	struct tparams p;
	int vk = 0;

	for (int i = 0; i < PAR_VK_COUNT; i++)
		CHECK(reqx_vk_max(i) == max[i]);
	memset(&q, 0, sizeof(q));
	q.msg_size = 1;
	q.no_msgs = 7;
	q.sl = 3;
	q.flip = 1;
	q.vk[PAR_CQ_MOD - PAR_VK_FIRST] = 8;
	q.vk[PAR_INLINE - PAR_VK_FIRST] = 64;
	q.vk[PAR_NUMA_NODE - PAR_VK_FIRST] = 2; /* not set: not taken */
	q.vk_set = 1u << (PAR_CQ_MOD - PAR_VK_FIRST) |
		   1u << (PAR_INLINE - PAR_VK_FIRST);
	session_params(&q, &p);
	CHECK(p.msg_size == 1 && p.no_msgs == 7 && p.sl == 3);
	CHECK(p.cq_mod == 8 && p.inline_set && p.inline_size == 64);
	CHECK(!p.numa_set && p.numa_node == 0 && p.sq_depth == 0);
	for (size_t i = 0; i < param_count; i++)
		vk += param_table[i].wire == PW_VK;
	CHECK(vk == PAR_VK_COUNT);
}

/* One row per parameter; the listed ones in 0.4.11's show_used order
 * (enum par_id's), each with a name of its own. */
TEST(param_table_one_row_each)
{
	int seen[PAR_COUNT] = { 0 }, last = -1;

	CHECK(param_count == PAR_COUNT);
	for (size_t i = 0; i < param_count; i++) {
		const struct par_row *r = &param_table[i];

		CHECK(r->par >= 0 && r->par < PAR_COUNT);
		if (r->par < 0 || r->par >= PAR_COUNT)
			continue;
		seen[r->par]++;
		CHECK(r->name && r->name[0]);
		CHECK((r->wire == PW_VK) ==
		      (r->par >= PAR_VK_FIRST && r->par <= PAR_VK_LAST));
		CHECK(r->wire != PW_OWN || (!r->tp_size && !r->tp_set_off));
		CHECK((r->kind == RPK_STR) == (par_str_index(r->par) >= 0));
		if (!r->unlisted) {
			CHECK(r->par > last);
			last = r->par;
		}
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(param_table[j].name, r->name) != 0);
	}
	for (int i = 0; i < PAR_COUNT; i++)
		CHECK(seen[i] == 1);
}

/* Items a later build adds are skipped, not refused. */
TEST(ext_req_tlv_unknown_items)
{
	struct tlv_w w;
	struct req d;
	uint8_t b[128];
	size_t n;

	memset(&d, 0, sizeof(d));
	tlv_init(&w, b, sizeof(b));
	tlv_bytes(&w, 999, "future", 6);
	tlv_u64(&w, REQX_TIME_NS, 7);
	tlv_bytes(&w, 1000, NULL, 0);
	n = tlv_finish(&w);
	CHECK(n == 8 + 10 + 12 + 4);
	CHECK(ext_req_decode(b, n, &d) == 0);
	CHECK(d.time_ns == 7 && d.caps == 0 && d.gid_index == -1);
	/* A truncated item is malformed. */
	b[4] = (uint8_t)(n - 2);
	CHECK(ext_req_decode(b, n - 2, &d) == -1);
}

TEST(tlv_bounds)
{
	struct tlv_w w;
	uint8_t b[20], h[8];

	tlv_init(&w, b, sizeof(b));
	tlv_u64(&w, 1, 1); /* 8 + 12 = 20: fits */
	CHECK(!w.bad);
	tlv_u32(&w, 2, 1); /* does not */
	CHECK(w.bad && tlv_finish(&w) == 0);
	memcpy(h, "QPX2", 4);
	put32(h + 4, TLV_BIG_MAX + 1);
	CHECK(tlv_header(h) == 0);
	put32(h + 4, 7);
	CHECK(tlv_header(h) == 0);
	put32(h + 4, TLV_BIG_MAX);
	CHECK(tlv_header(h) == TLV_BIG_MAX);
}

TEST(hello_roundtrip)
{
	struct hello h = { 0x5, "0.5.0", false, { 0 } }, d;
	uint8_t b[EXT_BLOCK_MAX];
	size_t n = hello_encode(&h, b, sizeof(b));

	CHECK(n > 8);
	CHECK(hello_decode(b, n, &d) == 0);
	CHECK(d.caps == 5 && strcmp(d.version, "0.5.0") == 0);
	CHECK(hello_decode(b, n + 1, &d) == -1);
}

/* The authentication nonces (core/auth.h): item 8 of the request block,
 * item 3 of the server's; present means "authenticate", any length but
 * CTL_NONCE is malformed. */
TEST(nonce_items)
{
	struct req q, d;
	struct hello h = { 0x5, "0.5.0", true, { 0 } }, hd;
	uint8_t b[EXT_BLOCK_MAX], c[64];
	struct tlv_w w;
	size_t n, plain;

	memset(&q, 0, sizeof(q));
	q.gid_index = -1;
	plain = ext_req_encode(&q, b, sizeof(b));
	memset(&d, 0, sizeof(d));
	CHECK(ext_req_decode(b, plain, &d) == 0 && !d.has_nonce);
	for (int i = 0; i < CTL_NONCE; i++)
		q.nonce[i] = (uint8_t)(i + 1);
	q.has_nonce = true;
	n = ext_req_encode(&q, b, sizeof(b));
	CHECK(n == plain + 4 + CTL_NONCE);
	CHECK(b[plain] == 8 && b[plain + 1] == 0 && b[plain + 2] == CTL_NONCE &&
	      b[plain + 3] == 0 && b[plain + 4] == 1);
	CHECK(ext_req_decode(b, n, &d) == 0 && d.has_nonce &&
	      memcmp(d.nonce, q.nonce, CTL_NONCE) == 0);
	tlv_init(&w, c, sizeof(c));
	tlv_bytes(&w, REQX_NONCE, q.nonce, CTL_NONCE - 1);
	n = tlv_finish(&w);
	CHECK(ext_req_decode(c, n, &d) == -1);

	memcpy(h.nonce, q.nonce, CTL_NONCE);
	n = hello_encode(&h, b, sizeof(b));
	CHECK(hello_decode(b, n, &hd) == 0 && hd.auth &&
	      memcmp(hd.nonce, h.nonce, CTL_NONCE) == 0 && hd.caps == 5);
	h.auth = false;
	n = hello_encode(&h, b, sizeof(b));
	CHECK(hello_decode(b, n, &hd) == 0 && !hd.auth);
	tlv_init(&w, c, sizeof(c));
	tlv_bytes(&w, REPX_NONCE, q.nonce, 16);
	n = tlv_finish(&w);
	CHECK(hello_decode(c, n, &hd) == -1);
}

/* The captured server STAT of a tcp_lat run (spec §2.5). */
TEST(stat_decode_captured)
{
	uint8_t b[STAT_SIZE];
	struct node_stat s;
	static const uint64_t ts[9] = { 1717992255, 4121, 0,   4903, 58702,
					366,	    0,	  1468, 95 };
	static const uint64_t te[9] = { 1717992355, 4125, 0,   4947, 58798,
					366,	    0,	  1500, 95 };

	memset(b, 0, sizeof(b));
	put32(b, 2);
	put32(b + 4, 100);
	for (int i = 0; i < 9; i++) {
		put64(b + 12 + 8 * i, ts[i]);
		put64(b + 84 + 8 * i, te[i]);
	}
	put64(b + 156, 40504);
	put64(b + 164, 40504);
	put64(b + 180, 40504);
	put64(b + 188, 40504);
	stat_decode(b, &s);
	CHECK(s.no_cpus == 2 && s.no_ticks == 100 && s.max_cqes == 0);
	CHECK(s.real_e - s.real_s == NS_PER_SEC); /* 100 ticks */
	CHECK(s.time_s[CPU_USER] == 4121 && s.time_e[CPU_USER] == 4125);
	CHECK(s.time_e[CPU_SOFTIRQ] == 1500 && s.time_s[CPU_STEAL] == 95);
	CHECK(s.s.bytes == 40504 && s.s.msgs == 40504 && s.s.errs == 0);
	CHECK(s.r.bytes == 40504 && s.r.msgs == 40504);
	CHECK(s.rem_s.bytes == 0 && s.rem_r.msgs == 0);
}

TEST(stat_encode_layout)
{
	struct node_stat s;
	uint8_t b[STAT_SIZE];

	memset(&s, 0, sizeof(s));
	s.no_cpus = 2;
	s.no_ticks = 100;
	s.real_s = 5 * NS_PER_SEC + 5000000; /* 500.5 ticks → 500 */
	s.real_e = 6 * NS_PER_SEC + 5000000; /* 600 */
	s.time_s[CPU_USER] = 7;
	s.time_e[CPU_STEAL] = 9;
	s.s.bytes = 0x1122334455667788ULL;
	s.rem_r.errs = 3;
	memset(b, 0xee, sizeof(b));
	stat_encode(&s, b);
	CHECK(b[0] == 2 && b[4] == 100);
	CHECK(b[12] == 0xf4 && b[13] == 0x01); /* real start 500 */
	CHECK(b[20] == 7); /* user start */
	CHECK(b[84] == 0x58 && b[85] == 0x02); /* real end 600 */
	CHECK(b[148] == 9); /* steal end */
	CHECK(b[156] == 0x88 && b[163] == 0x11);
	CHECK(b[244] == 3); /* rem_r.errs */
	for (int i = 252; i < 256; i++)
		CHECK(b[i] == 0); /* no uninitialised padding */
}

TEST(stat_roundtrip_ext)
{
	struct node_stat s, d;
	uint8_t b[STAT_SIZE], e[EXT_BLOCK_MAX];
	size_t n;

	memset(&s, 0, sizeof(s));
	s.no_ticks = 100;
	s.real_s = 123456789;
	s.real_e = 123456789 + 300000001;
	stat_encode(&s, b);
	stat_decode(b, &d);
	/* Ticks lose precision ... */
	CHECK(d.real_e - d.real_s == 300000000);
	n = ext_stat_encode(&s, 1, NULL, e, sizeof(e));
	CHECK(n == EXT_STAT_SIZE);
	CHECK(ext_stat_decode(e, n, &d, NULL) == 0);
	/* ... the extension restores it. */
	CHECK(d.real_e - d.real_s == 300000001);
	put64(e + 16, 1); /* end before start */
	CHECK(ext_stat_decode(e, n, &d, NULL) == -1);
	/* The TLV form carries the window and the losses. */
	s.lost = 3;
	n = ext_stat_encode(&s, 2, NULL, e, sizeof(e));
	CHECK(n > 0 && memcmp(e, "QPX2", 4) == 0);
	memset(&d, 0, sizeof(d));
	CHECK(ext_stat_decode(e, n, &d, NULL) == 0);
	CHECK(d.real_e - d.real_s == 300000001 && d.lost == 3);
	s.lost = 0;
	n = ext_stat_encode(&s, 2, NULL, e, sizeof(e));
	CHECK(ext_stat_decode(e, n, &d, NULL) == 0 && d.lost == 0);
	/* Both ends of the window are required. */
	{
		struct tlv_w w;

		tlv_init(&w, e, sizeof(e));
		tlv_u64(&w, STATX_REAL_S, 1);
		n = tlv_finish(&w);
		CHECK(ext_stat_decode(e, n, &d, NULL) == -1);
	}
}

/* Process CPU and the histogram of a 0.5 server (CAP_HIST). */
TEST(stat_ext_hist)
{
	static uint8_t e[EXT_STAT_MAX];
	static struct hist h, d;
	/* 1000 ns window; 2000 ns user and 30 ns system CPU in it. */
	struct node_stat r, s = { .real_e = 1000, .proc_valid = true,
				  .proc_user_s = 5, .proc_user_e = 2005,
				  .proc_sys_s = 1, .proc_sys_e = 31 };
	size_t n, small;

	hist_init(&h);
	for (uint64_t v = 1000; v < 50000; v += 7)
		hist_add(&h, v);
	n = ext_stat_encode(&s, 2, &h, e, sizeof(e));
	CHECK(n > 0);
	memset(&r, 0, sizeof(r));
	CHECK(ext_stat_decode(e, n, &r, &d) == 0);
	CHECK(r.proc_valid && r.proc_user_e - r.proc_user_s == 2000 &&
	      r.proc_sys_e - r.proc_sys_s == 30);
	CHECK(d.count == h.count && d.min == h.min && d.max == h.max &&
	      memcmp(d.b, h.b, sizeof(d.b)) == 0);
	/* A client that asked for no histogram ignores it. */
	CHECK(ext_stat_decode(e, n, &r, NULL) == 0 && r.proc_valid);
	/* Without the histogram (an older client): small, no item. */
	small = ext_stat_encode(&s, 2, NULL, e, sizeof(e));
	CHECK(small > 0 && small < 128 && small < n);
	CHECK(ext_stat_decode(e, small, &r, &d) == 0 && d.count == 0);
	/* Without process CPU (proc_valid false): not valid at the peer. */
	s.proc_valid = false;
	n = ext_stat_encode(&s, 2, NULL, e, sizeof(e));
	CHECK(ext_stat_decode(e, n, &r, NULL) == 0 && !r.proc_valid);
	/* A damaged histogram makes the whole block bad. */
	s.proc_valid = true;
	n = ext_stat_encode(&s, 2, &h, e, sizeof(e));
	e[n - 1] ^= 0x40; /* the last bucket's count */
	CHECK(ext_stat_decode(e, n, &r, &d) == -1 && d.count == 0);
	/* Only one of the two CPU items: bad. */
	{
		struct tlv_w w;

		tlv_init(&w, e, sizeof(e));
		tlv_u64(&w, STATX_REAL_S, 1);
		tlv_u64(&w, STATX_REAL_E, 2);
		tlv_u64(&w, STATX_PROC_USER, 2);
		n = tlv_finish(&w);
		CHECK(ext_stat_decode(e, n, &r, NULL) == -1);
	}
}

/* A 0.5 request with nothing beyond its defaults. */
static void ext_req_plain(struct req *q)
{
	memset(q, 0, sizeof(*q));
	q->ext = true;
	q->ext_ver = 2;
	q->gid_index = -1;
}

/* --qps: REQX_QPS only above one QP; STATX_QPS round trip and bounds. */
TEST(qps_items)
{
	static struct qp_side a, b;
	uint8_t blk[TLV_BIG_MAX];
	struct req q, d;
	struct node_stat st;
	size_t n, m;

	ext_req_plain(&q);
	q.qps = 1;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(n > 0);
	CHECK(ext_req_decode(blk, n, &d) == 0 && d.qps == 1);
	m = n;
	q.qps = 4096;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(n == m + 8); /* one u32 item more */
	CHECK(ext_req_decode(blk, n, &d) == 0 && d.qps == 4096);
	q.qps = QPS_MAX + 1;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(ext_req_decode(blk, n, &d) < 0);

	memset(&st, 0, sizeof(st));
	n = ext_stat_encode(&st, 2, NULL, blk, sizeof(blk));
	CHECK(n > 0);
	CHECK(stat_qps_take(blk, n, &b) == 0 && !b.valid);
	a = (struct qp_side){ .valid = true, .n = 5000, .cq_per_qp = true,
			      .setup_ns = 123456789, .mr_B = 14,
			      .queue_B = 4160, .proc_B = 9000,
			      .total = 5000 * 3 + 1, .min = 3, .median = 3,
			      .max = 4, .listed = QPS_LIST_MAX };
	for (uint32_t i = 0; i < a.listed; i++)
		a.counts[i] = i ? 3 : 4;
	m = stat_qps_append(&a, blk, n, sizeof(blk));
	CHECK(m == n + 4 + STATX_QPS_HDR + 8 * QPS_LIST_MAX);
	CHECK(stat_qps_take(blk, m, &b) == 0 && b.valid);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	/* no room: the block as it was */
	CHECK(ext_stat_encode(&st, 2, NULL, blk, sizeof(blk)) == n);
	CHECK(stat_qps_append(&a, blk, n, n + 100) == n);
	CHECK(stat_qps_take(blk, n, &b) == 0 && !b.valid);
	/* a spread out of order is malformed */
	a.min = 5;
	m = stat_qps_append(&a, blk, n, sizeof(blk));
	CHECK(m > n);
	CHECK(stat_qps_take(blk, m, &b) < 0);
}

/* --threads and --conns: REQX_THREADS (16) and REQX_CONNS (17) only
 * above one, bounded; STATX_CONNS round trip, marked as connections. */
TEST(threads_conns_items)
{
	static struct qp_side a, b;
	uint8_t blk[TLV_BIG_MAX];
	struct req q, d;
	struct node_stat st;
	size_t n, m;

	ext_req_plain(&q);
	q.threads = q.conns = 1;
	m = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(ext_req_decode(blk, m, &d) == 0 && d.threads == 1 &&
	      d.conns == 1);
	q.threads = 3;
	q.conns = 1024;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(n == m + 16); /* two u32 items more */
	CHECK(ext_req_decode(blk, n, &d) == 0 && d.threads == 3 &&
	      d.conns == 1024);
	q.threads = THREADS_MAX + 1;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(ext_req_decode(blk, n, &d) < 0);
	q.threads = 2;
	q.conns = CONNS_MAX + 1;
	n = ext_req_encode(&q, blk, sizeof(blk));
	CHECK(ext_req_decode(blk, n, &d) < 0);

	memset(&st, 0, sizeof(st));
	n = ext_stat_encode(&st, 2, NULL, blk, sizeof(blk));
	a = (struct qp_side){ .valid = true, .n = 3, .conns = true,
			      .setup_ns = 5000, .queue_B = 425984,
			      .total = 7, .min = 2, .median = 2, .max = 3,
			      .listed = 3, .counts = { 2, 2, 3 } };
	m = stat_qps_append(&a, blk, n, sizeof(blk));
	CHECK(m == n + 4 + STATX_QPS_HDR + 8 * 3);
	CHECK(blk[n] == STATX_CONNS || blk[n + 1] == STATX_CONNS);
	CHECK(stat_qps_take(blk, m, &b) == 0 && b.valid && b.conns);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
}

TEST(conf_codec)
{
	struct conf_info c, d;
	uint8_t b[CONF_SIZE];

	memset(&c, 0, sizeof(c));
	strcpy(c.node, "vm");
	strcpy(c.cpu, "2 Cores: Intel Xeon Processor 2.1GHz");
	strcpy(c.os, "Linux 6.18.44-fc-v657");
	strcpy(c.qperf, "0.4.11");
	memset(b, 0xee, sizeof(b));
	conf_encode(&c, b);
	CHECK(memcmp(b, "vm\0\0", 4) == 0);
	CHECK(b[63] == 0 && b[64] == '2' && b[192] == '0');
	for (int i = 0; i < CONF_SIZE; i++)
		CHECK(b[i] != 0xee);
	conf_decode(b, &d);
	CHECK_STR(d.cpu, c.cpu);
	CHECK_STR(d.qperf, "0.4.11");
	/* Garbage after the NUL (as 0.4.11 sends) and control characters. */
	memcpy(b + 192, "0.4.11\0\xff\xfe", 9);
	b[1] = '\n';
	b[64] = (char)0x9b; /* 8-bit CSI */
	conf_decode(b, &d);
	CHECK_STR(d.qperf, "0.4.11");
	CHECK_STR(d.node, "v?");
	CHECK(d.cpu[0] == '?');
}

/* A connected loopback TCP pair: a[0] client, a[1] server side. */
static int tcp_pair(int fds[2])
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(l, 1) < 0 || getsockname(l, (struct sockaddr *)&sin, &len))
		return -1;
	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fds[0], (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return -1;
	fds[1] = accept(l, NULL, NULL);
	close(l);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	return fds[1] < 0 ? -1 : 0;
}

TEST(ctl_recv_timeout_and_eof)
{
	int fds[2];
	struct ctl c;
	char err[256], buf[4];
	uint64_t t0;

	CHECK(tcp_pair(fds) == 0);
	memset(&c, 0, sizeof(c));
	c.fd = fds[0];
	c.timeout = 200000000; /* 0.2 s */
	t0 = now_ns();
	CHECK(ctl_recv(&c, buf, 4, "port", err, sizeof(err)) == -1);
	CHECK_STR(err, "failed to receive port: timed out");
	CHECK(now_ns() - t0 >= 190000000 && now_ns() - t0 < 2000000000ULL);
	CHECK(write(fds[1], "ab", 2) == 2);
	close(fds[1]);
	CHECK(ctl_recv(&c, buf, 4, "port", err, sizeof(err)) == -1);
	CHECK_STR(err, "failed to receive port: server not responding");
	CHECK(!c.peer_failed);
}

/* A peer's error notice is read whole, even if it arrives in pieces. */
TEST(ctl_recv_peer_error)
{
	int fds[2];
	struct ctl c, s;
	char err[512], buf[256];
	char text[230];

	CHECK(tcp_pair(fds) == 0);
	memset(&c, 0, sizeof(c));
	c.fd = fds[0];
	c.timeout = 2 * NS_PER_SEC;
	memset(&s, 0, sizeof(s));
	s.fd = fds[1];
	s.server = true;
	memset(text, 'x', sizeof(text));
	memcpy(text, "unable to make SCTP socket ", 27);
	text[sizeof(text) - 1] = '\0';
	/* Stale in-band bytes before the notice must be skipped. */
	CHECK(write(fds[1], "stale", 5) == 5);
	/* The notice's sends may run at real-time priority: only for them. */
	CHECK(sched_getscheduler(0) == SCHED_OTHER);
	ctl_send_error(&s, text);
	CHECK(sched_getscheduler(0) == SCHED_OTHER);
	CHECK(ctl_recv(&c, buf, 256, "results", err, sizeof(err)) == -1);
	CHECK(c.peer_failed);
	CHECK(strncmp(err, "server: unable to make SCTP socket xxx", 38) == 0);
	CHECK(strlen(err) == strlen("server: ") + strlen(text));
}

TEST(ctl_sync_mismatch)
{
	int fds[2];
	struct ctl c;
	char err[256];

	CHECK(tcp_pair(fds) == 0);
	memset(&c, 0, sizeof(c));
	c.fd = fds[0];
	c.timeout = NS_PER_SEC;
	CHECK(write(fds[1], "synchronization before tesX", 27) == 27);
	CHECK(ctl_sync(&c, SYNC_BEFORE, err, sizeof(err)) == -1);
	CHECK_STR(err, "synchronize synchronization before test failure: "
		       "data does not match");
}

int main(void)
{
	RUN(req_encode_captured_tcp_lat);
	RUN(req_field_offsets);
	RUN(req_decode_unterminated_strings);
	RUN(ext_req_v1_block);
	RUN(ext_req_tlv_roundtrip_and_rejects);
	RUN(ext_req_tlv_verbs_knobs);
	RUN(param_table_rows);
	RUN(param_table_one_row_each);
	RUN(ext_req_tlv_unknown_items);
	RUN(tlv_bounds);
	RUN(hello_roundtrip);
	RUN(nonce_items);
	RUN(stat_decode_captured);
	RUN(stat_encode_layout);
	RUN(stat_roundtrip_ext);
	RUN(stat_ext_hist);
	RUN(qps_items);
	RUN(threads_conns_items);
	RUN(conf_codec);
	RUN(ctl_recv_timeout_and_eof);
	RUN(ctl_recv_peer_error);
	RUN(ctl_sync_mismatch);
	return harness_done();
}
