// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loss and error counters (lib/counters.h, core/session_cnt.h,
 * output/report_cnt.c): names, deltas over a window (a counter that
 * went backwards, a value the first reading lacks), sums of streams by
 * kind, the codec on exact round trips and on hostile blocks, the
 * server's STATX_COUNTERS items appended to a STAT block and taken back,
 * the warnings of error counters, and the -vx lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/ctl.h"
#include "core/session.h"
#include "core/session_cnt.h"
#include "lib/counters.h"
#include "lib/tlv.h"
#include "lib/wire.h"
#include "output/report.h"
#include "output/sink.h"
#include "transports/transport.h"

TEST(names_and_add)
{
	struct cnt_set c;
	char big[CNT_NAME + 1];

	cnt_init(&c, "tcp");
	CHECK(cnt_add(&c, "tcp_retrans", CNT_DELTA, 0, 5));
	CHECK(!cnt_add(&c, "Tcp", CNT_DELTA, 0, 1));
	CHECK(!cnt_add(&c, "a-b", CNT_DELTA, 0, 1));
	CHECK(!cnt_add(&c, "", CNT_DELTA, 0, 1));
	CHECK(!cnt_add(&c, "x", 3, 0, 1));
	CHECK(!cnt_add(&c, "x", CNT_DELTA, 0x80, 1));
	memset(big, 'a', CNT_NAME);
	big[CNT_NAME] = '\0';
	CHECK(!cnt_add(&c, big, CNT_DELTA, 0, 1));
	big[CNT_NAME - 1] = '\0';
	CHECK(cnt_add(&c, big, CNT_DELTA, 0, 1));
	CHECK(cnt_add(&c, "tcp_retrans", CNT_DELTA, 0, 7)); /* replaces */
	CHECK(c.n == 2);
	CHECK(cnt_find(&c, "tcp_retrans")->v == 7);
	for (int i = 0; c.n < CNT_MAX; i++) {
		char n[16];

		snprintf(n, sizeof(n), "v%d", i);
		CHECK(cnt_add(&c, n, CNT_GAUGE, 0, 1));
	}
	CHECK(!cnt_add(&c, "one_more", CNT_DELTA, 0, 1));
	CHECK(cnt_add(&c, "tcp_retrans", CNT_DELTA, 0, 8)); /* full: replace ok */
}

TEST(delta_over_window)
{
	struct cnt_set a, b, d;

	cnt_init(&a, "tcp");
	cnt_init(&b, "tcp");
	cnt_add(&a, "tcp_retrans", CNT_DELTA, 0, 100);
	cnt_add(&b, "tcp_retrans", CNT_DELTA, 0, 2800);
	cnt_add(&a, "tcp_rtt_us", CNT_GAUGE_MAX, 0, 900);
	cnt_add(&b, "tcp_rtt_us", CNT_GAUGE_MAX, 0, 50);
	cnt_add(&a, "link_downed", CNT_DELTA, CNTF_PORT | CNTF_ERROR, 9);
	cnt_add(&b, "link_downed", CNT_DELTA, CNTF_PORT | CNTF_ERROR, 3);
	cnt_add(&b, "late", CNT_DELTA, 0, 5); /* not in the first reading */
	cnt_delta(&d, &a, &b);
	CHECK_STR(d.src, "tcp");
	CHECK(d.n == 3, "n %u", d.n);
	CHECK(cnt_find(&d, "tcp_retrans")->v == 2700);
	CHECK(cnt_find(&d, "tcp_rtt_us")->v == 50); /* the end's */
	CHECK(cnt_find(&d, "link_downed")->v == 0); /* reset: not negative */
	CHECK(cnt_find(&d, "link_downed")->flags == (CNTF_PORT | CNTF_ERROR));
	CHECK(!cnt_find(&d, "late"));
	CHECK_STR(cnt_scope(&d), "port");
}

TEST(sum_by_kind)
{
	struct cnt_set acc, s;

	cnt_init(&acc, "tcp");
	cnt_init(&s, "tcp");
	cnt_add(&s, "tcp_retrans", CNT_DELTA, 0, 3);
	cnt_add(&s, "tcp_snd_cwnd", CNT_GAUGE, 0, 10);
	cnt_add(&s, "tcp_rtt_us", CNT_GAUGE_MAX, 0, 40);
	cnt_sum(&acc, &s);
	cnt_add(&s, "tcp_rtt_us", CNT_GAUGE_MAX, 0, 30);
	cnt_add(&s, "tcp_retrans", CNT_DELTA, 0, UINT64_MAX - 1);
	cnt_sum(&acc, &s);
	CHECK(cnt_find(&acc, "tcp_snd_cwnd")->v == 20);
	CHECK(cnt_find(&acc, "tcp_rtt_us")->v == 40);
	CHECK(cnt_find(&acc, "tcp_retrans")->v == UINT64_MAX); /* saturates */
	CHECK_STR(cnt_scope(&acc), "socket");
	cnt_add(&acc, "udp_csum_errors", CNT_DELTA, CNTF_HOST, 0);
	CHECK_STR(cnt_scope(&acc), "socket+host");
}

static void sample(struct cnt_set *c)
{
	cnt_init(c, "mlx5_0:1");
	cnt_add(c, "port_rcv_errors", CNT_DELTA, CNTF_PORT | CNTF_ERROR, 12);
	cnt_add(c, "port_xmit_bytes", CNT_DELTA, CNTF_PORT, 1ull << 40);
	cnt_add(c, "tcp_rtt_us", CNT_GAUGE_MAX, 0, 7);
}

TEST(codec_round_trip)
{
	struct cnt_set c, d, full;
	uint8_t buf[CNT_ENC_MAX];
	size_t n;
	int32_t idx;

	sample(&c);
	n = cnt_encode(&c, 5, buf, sizeof(buf));
	CHECK(n > TLV_HDR);
	CHECK(cnt_decode(buf, n, &d, &idx) == 0);
	CHECK(idx == 5);
	CHECK(memcmp(&c, &d, sizeof(c)) == 0);
	n = cnt_encode(&c, -1, buf, sizeof(buf));
	CHECK(cnt_decode(buf, n, &d, &idx) == 0 && idx == -1);
	CHECK(cnt_encode(&c, -1, buf, n - 1) == 0); /* too small */
	/* the largest set fits CNT_ENC_MAX */
	cnt_init(&full, "0123456789012345678901234567890123456789012345");
	for (int i = 0; full.n < CNT_MAX; i++) {
		char nm[CNT_NAME];

		snprintf(nm, sizeof(nm), "%030d", i);
		cnt_add(&full, nm, CNT_DELTA, CNTF_ALL, UINT64_MAX);
	}
	n = cnt_encode(&full, 65535, buf, sizeof(buf));
	CHECK(n > 0 && n <= CNT_ENC_MAX, "n %zu", n);
	CHECK(cnt_decode(buf, n, &d, &idx) == 0 && idx == 65535);
	CHECK(memcmp(&full, &d, sizeof(full)) == 0);
}

/* A block with one CNTX_VAL item (kind, flags, value, name of len). */
static size_t one_val(uint8_t *buf, size_t cap, uint8_t kind, uint8_t flags,
		      const char *name, size_t len)
{
	struct tlv_w w;
	uint8_t v[64];

	tlv_init(&w, buf, cap);
	v[0] = kind;
	v[1] = flags;
	wire_put(v + 2, 1, 8);
	memcpy(v + 10, name, len);
	tlv_bytes(&w, 3, v, (uint16_t)(10 + len));
	return tlv_finish(&w);
}

TEST(hostile_blocks)
{
	uint8_t buf[CNT_ENC_MAX + 256];
	struct cnt_set c, d;
	struct tlv_w w;
	size_t n;
	int32_t idx;

	n = one_val(buf, sizeof(buf), 0, 0, "ok_name", 7);
	CHECK(cnt_decode(buf, n, &d, &idx) == 0 && d.n == 1);
	n = one_val(buf, sizeof(buf), 0, 0, "Bad", 3);
	CHECK(cnt_decode(buf, n, &d, &idx) == -1 && d.n == 0);
	n = one_val(buf, sizeof(buf), 0, 0, "a\0b", 3); /* NUL inside */
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	n = one_val(buf, sizeof(buf), 0, 0, "", 0);
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	n = one_val(buf, sizeof(buf), 7, 0, "x", 1); /* kind */
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	n = one_val(buf, sizeof(buf), 0, 0x40, "x", 1); /* flags */
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	n = one_val(buf, sizeof(buf), 0, 0,
		    "abcdefghijabcdefghijabcdefghijab", 32); /* too long */
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	/* a duplicate name */
	sample(&c);
	n = cnt_encode(&c, -1, buf, sizeof(buf));
	memcpy(buf + n, buf + n - (4 + 10 + 10), 4 + 10 + 10);
	wire_put(buf + 4, n + 24, 4);
	CHECK(cnt_decode(buf, n + 24, &d, &idx) == -1);
	/* truncated, wrong length, bad magic */
	n = cnt_encode(&c, -1, buf, sizeof(buf));
	CHECK(cnt_decode(buf, n - 1, &d, &idx) == -1);
	CHECK(cnt_decode(buf, 3, &d, &idx) == -1);
	buf[0] ^= 1;
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	/* a stream index out of range, a short one */
	tlv_init(&w, buf, sizeof(buf));
	tlv_u32(&w, 2, 70000);
	n = tlv_finish(&w);
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	tlv_init(&w, buf, sizeof(buf));
	tlv_bytes(&w, 2, "ab", 2);
	n = tlv_finish(&w);
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	/* more than CNT_MAX values */
	tlv_init(&w, buf, sizeof(buf));
	for (int i = 0; i <= CNT_MAX; i++) {
		uint8_t v[20] = { 0 };

		snprintf((char *)v + 10, 10, "n%03d", i);
		tlv_bytes(&w, 3, v, 14);
	}
	n = tlv_finish(&w);
	CHECK(n > 0);
	CHECK(cnt_decode(buf, n, &d, &idx) == -1);
	/* an unknown item is skipped; a hostile source is made printable */
	tlv_init(&w, buf, sizeof(buf));
	tlv_bytes(&w, 1, "dev\x1b", 4);
	tlv_u32(&w, 99, 1);
	n = tlv_finish(&w);
	CHECK(cnt_decode(buf, n, &d, &idx) == 0);
	CHECK_STR(d.src, "dev?");
	/* a second, shorter source replaces the first whole (fuzz_counters
	 * found its tail left behind the NUL) */
	tlv_init(&w, buf, sizeof(buf));
	tlv_bytes(&w, 1, "longsource", 10);
	tlv_bytes(&w, 1, "", 0);
	n = tlv_finish(&w);
	CHECK(cnt_decode(buf, n, &d, &idx) == 0);
	cnt_init(&c, "");
	CHECK(memcmp(&c, &d, sizeof(c)) == 0);
}

/* The server's counters through a STAT block to the client. */
TEST(stat_block_round_trip)
{
	struct tside srv, cli;
	struct cnt_set c0[2], c1[2];
	struct node_stat st;
	uint8_t *blk = malloc(EXT_STAT_MAX);
	size_t n;

	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < 2; i++) {
		cnt_init(&c0[i], "tcp");
		cnt_init(&c1[i], "tcp");
		cnt_add(&c0[i], "tcp_retrans", CNT_DELTA, 0, 10);
		cnt_add(&c1[i], "tcp_retrans", CNT_DELTA, 0, 10 + 3 * (i + 1));
		cnt_add(&c1[i], "tcp_rtt_us", CNT_GAUGE_MAX, 0, 20 * (i + 1));
		cnt_add(&c0[i], "udp_rcvbuf_errors", CNT_DELTA, CNTF_HOST, 0);
		cnt_add(&c1[i], "udp_rcvbuf_errors", CNT_DELTA, CNTF_HOST, 4);
	}
	session_cnt_window(&srv, c0, c1, 2);
	CHECK(srv.cnt.valid && srv.cnt.nstreams == 2);
	CHECK(cnt_find(&srv.cnt.sum, "tcp_retrans")->v == 9);
	CHECK(cnt_find(&srv.cnt.sum, "tcp_rtt_us")->v == 40);
	/* a host counter is one reading, not one per stream */
	CHECK(cnt_find(&srv.cnt.sum, "udp_rcvbuf_errors")->v == 4);
	CHECK(cnt_find(&srv.cnt.streams[1], "tcp_retrans")->v == 6);
	n = ext_stat_encode_streams(&st, 2, (struct node_stat[2]){ { 0 } }, 2,
				    blk, EXT_STAT_MAX);
	CHECK(n > 0);
	n = session_cnt_append(&srv, blk, n, EXT_STAT_MAX);
	CHECK(tlv_header(blk) == n);
	cli.nstreams = 2;
	CHECK(session_cnt_take(&cli, blk, n) == 0);
	CHECK(cli.peer_cnt.valid);
	CHECK(memcmp(&cli.peer_cnt.sum, &srv.cnt.sum, sizeof(srv.cnt.sum)) ==
	      0);
	CHECK(memcmp(&cli.peer_cnt.streams[1], &srv.cnt.streams[1],
		     sizeof(struct cnt_set)) == 0);
	/* the older decoders still take the block */
	CHECK(ext_stat_decode(blk, n, &st, NULL) == 0);
	/* a stream index the test does not have is malformed */
	session_release(&cli);
	memset(&cli, 0, sizeof(cli));
	cli.nstreams = 1;
	CHECK(session_cnt_take(&cli, blk, n) == -1);
	/* a block too small for the items: left as it was */
	n = ext_stat_encode(&st, 2, NULL, blk, EXT_STAT_MAX);
	CHECK(session_cnt_append(&srv, blk, n, n + 10) == n);
	CHECK(tlv_header(blk) == n);
	session_release(&srv);
	session_release(&cli);
	free(blk);
}

/* A sink that keeps the warnings. */
static char warned[2048];
static void keep_warning(void *self, const char *m)
{
	(void)self;
	strncat(warned, m, sizeof(warned) - strlen(warned) - 2);
	strcat(warned, "\n");
}
static const struct sink_ops keep_ops = { .warning = keep_warning };

TEST(warnings_and_missing_server)
{
	static const struct test_desc t = { .name = "uc_bw" };
	struct outputs o;
	struct tside sd;
	struct cnt_both b;

	memset(&sd, 0, sizeof(sd));
	sd.t = &t;
	sd.ext = true;
	sd.ext_ver = 2;
	sd.peer_caps = CAP_COUNTERS;
	sample(&sd.peer_cnt.sum);
	sd.peer_cnt.valid = true;
	sd.cnt.valid = true;
	cnt_init(&sd.cnt.sum, "mlx5_0:1");
	cnt_add(&sd.cnt.sum, "port_rcv_errors", CNT_DELTA,
		CNTF_PORT | CNTF_ERROR, 0);
	outputs_init(&o);
	outputs_add(&o, &keep_ops, NULL);
	warned[0] = '\0';
	session_cnt_result(&sd, &b, &o);
	CHECK(!b.rem_missing);
	CHECK_STR(warned,
		  "uc_bw: server: mlx5_0:1 port_rcv_errors rose by 12 during the test (a port counter: all traffic of the port, not only this test's)\n");
	sd.peer_caps = 0;
	warned[0] = '\0';
	session_cnt_result(&sd, &b, &o);
	CHECK_STR(b.rem_missing, "the server does not send them");
	outputs_release(&o);
}

TEST(vx_lines)
{
	static const struct test_desc t = { .name = "tcp_bw",
					    .measure = MEAS_BANDWIDTH };
	struct out_opts o = { .precision = 3 };
	struct results res;
	struct cnt_both b;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	memset(&res, 0, sizeof(res));
	memset(&b, 0, sizeof(b));
	b.loc.valid = true;
	cnt_init(&b.loc.sum, "tcp");
	cnt_add(&b.loc.sum, "tcp_retrans", CNT_DELTA, 0, 2734);
	b.rem_missing = "the server does not send them";
	res.cnt = &b;
	f = open_memstream(&text, &len);
	report_test(f, &t, &res, NULL, &o);
	fclose(f);
	CHECK(!strstr(text, "tcp_retrans"), "%s", text); /* not without -vx */
	free(text);
	o.v_extra = 1;
	f = open_memstream(&text, &len);
	report_test(f, &t, &res, NULL, &o);
	fclose(f);
	CHECK(strstr(text, "\n    loc_counters     =  tcp (socket: this test's)\n"
			   "    loc_tcp_retrans  =  2,734 \n"
			   "    rem_counters     =  none: the server does not send them\n"),
	      "%s", text);
	free(text);
}

int main(void)
{
	RUN(names_and_add);
	RUN(delta_over_window);
	RUN(sum_by_kind);
	RUN(codec_round_trip);
	RUN(hostile_blocks);
	RUN(stat_block_round_trip);
	RUN(warnings_and_missing_server);
	RUN(vx_lines);
	return harness_done();
}
