// SPDX-License-Identifier: GPL-2.0-only
/*
 * --streams: the option (-st, its range), -ca CPU lists (parsing, the
 * sides they set, rejections), and the wire items of the extended
 * dialect (request items 9 and 10, STAT item 7) on exact bytes, with the
 * malformed blocks a decoder must refuse.
 */
#include "core/ctl.h"
#include "lib/tlv.h"
#include "opts_util.h"

TEST(streams_option)
{
	struct plan p;
	char err[256];
	const struct par_set *ps;

	CHECK(parse("h -st 4 tcp_bw", &p, err, sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_STREAMS] == 4 &&
	      ps->val[SIDE_REM][PAR_STREAMS] == 4);
	CHECK(ps->set[SIDE_LOC][PAR_STREAMS] && ps->set[SIDE_REM][PAR_STREAMS]);
	plan_free(&p);
	CHECK(parse("h --streams 64 udp_bw", &p, err, sizeof(err)) == 0);
	CHECK(p.tests[0].s.par.val[SIDE_REM][PAR_STREAMS] == 64);
	plan_free(&p);
	REJECT("h -st 0 tcp_bw", "-st: 0: must be greater than 0");
	REJECT("h -st 65 tcp_bw", "-st: 65: too large; must be at most 64");
	REJECT("h --streams two tcp_bw",
	       "--streams: two: bad number; use a decimal integer");
	/* Not -P: that stays 0.4.11's obsolete spelling of -cp. */
	CHECK(find_opt("-P") && find_opt("-P")->obsolete_for &&
	      !strcmp(find_opt("-P")->obsolete_for, "-cp"));
	/* Only the bandwidth tests of the brief run streams. */
	{
		static const char *const yes[] = {
			"tcp_bw", "udp_bw", "rc_bw", "uc_bw", "ud_bw",
			"rc_bi_bw", "rc_rdma_write_bw", "rc_rdma_read_bw"
		};
		int n = 0;

		for (size_t i = 0; i < test_count; i++)
			if (test_table[i].uses & PAR_BIT(PAR_STREAMS))
				n++;
		CHECK(n == 8);
		for (size_t i = 0; i < 8; i++)
			CHECK(test_find(yes[i]) &&
			      (test_find(yes[i])->uses & PAR_BIT(PAR_STREAMS)));
	}
}

TEST(cpu_lists)
{
	struct plan p;
	char err[256];
	const struct par_set *ps;

	CHECK(parse("h -ca 1,2 -st 2 tcp_bw", &p, err, sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_AFFINITY] == 1); /* the first entry */
	CHECK(ps->cpus[SIDE_LOC].n == 2 && ps->cpus[SIDE_LOC].pn[0] == 1 &&
	      ps->cpus[SIDE_LOC].pn[1] == 2);
	CHECK(ps->cpus[SIDE_REM].n == 2);
	plan_free(&p);
	/* Ranges expand; a remote list is not checked against this host. */
	CHECK(parse("h -lca 0-2 -rca 1,900-902 tcp_bw", &p, err,
		    sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->cpus[SIDE_LOC].n == 3 && ps->cpus[SIDE_LOC].pn[0] == 0 &&
	      ps->cpus[SIDE_LOC].pn[2] == 2);
	CHECK(ps->cpus[SIDE_REM].n == 4 && ps->cpus[SIDE_REM].pn[1] == 900 &&
	      ps->cpus[SIDE_REM].pn[3] == 902);
	CHECK(ps->val[SIDE_REM][PAR_AFFINITY] == 1);
	plan_free(&p);
	/* A later single value replaces a list, as 0.4.11's -ca would. */
	CHECK(parse("h -ca 1,2 -ca 2 tcp_bw", &p, err, sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->cpus[SIDE_LOC].n == 0 && ps->cpus[SIDE_REM].n == 0 &&
	      ps->val[SIDE_LOC][PAR_AFFINITY] == 2);
	plan_free(&p);
	REJECT("h -ca 1,x tcp_bw",
	       "-ca: 1,x: bad CPU list; use entries such as 1,2 or 1-4 (N pins to CPU N-1)");
	REJECT("h -ca 1, tcp_bw",
	       "-ca: 1,: bad CPU list; use entries such as 1,2 or 1-4 (N pins to CPU N-1)");
	REJECT("h -rca 2-1 tcp_bw",
	       "-rca: 2-1: bad CPU range; the first number must not exceed the second");
	REJECT("h -rca 1,1024 tcp_bw",
	       "-rca: 1,1024: CPU list entry 1024 is too large; must be at most 1023");
	REJECT("h -rca 0-64 tcp_bw",
	       "-rca: 0-64: too many CPUs; at most 64 (one per stream)");
	REJECT("h -rca 1-2-3 tcp_bw",
	       "-rca: 1-2-3: bad CPU list; use entries such as 1,2 or 1-4 (N pins to CPU N-1)");
}

/* Request items 9 (u32 streams) and 10 (u16 per CPU list entry). */
TEST(request_items)
{
	struct req q, d;
	uint8_t b[EXT_BLOCK_MAX];
	size_t n0, n;

	memset(&q, 0, sizeof(q));
	q.gid_index = -1;
	q.streams = 1; /* one stream: nothing sent, as before */
	n0 = ext_req_encode(&q, b, sizeof(b));
	q.streams = 4;
	q.cpus.n = 3;
	q.cpus.pn[0] = 1;
	q.cpus.pn[1] = 258;
	q.cpus.pn[2] = 0;
	n = ext_req_encode(&q, b, sizeof(b));
	CHECK(n == n0 + 8 + 4 + 6);
	{
		static const uint8_t want[] = { 9, 0, 4, 0, 4, 0, 0, 0,
						10, 0, 6, 0, 1, 0, 2, 1, 0, 0 };

		CHECK(memcmp(b + n0, want, sizeof(want)) == 0);
	}
	memset(&d, 0, sizeof(d));
	CHECK(ext_req_decode(b, n, &d) == 0);
	CHECK(d.streams == 4 && d.cpus.n == 3 && d.cpus.pn[1] == 258 &&
	      d.cpus.pn[2] == 0);
	/* Absent: one stream, no list. */
	memset(&d, 0, sizeof(d));
	q.streams = 1;
	q.cpus.n = 0;
	n = ext_req_encode(&q, b, sizeof(b));
	CHECK(n == n0 && ext_req_decode(b, n, &d) == 0 && d.streams == 1 &&
	      d.cpus.n == 0);
	/* Out of range or the wrong shape: malformed. */
	{
		static const uint32_t bad_n[] = { 0, 65, 1000 };
		struct tlv_w w;
		uint8_t c[256];
		uint8_t odd[3] = { 1, 0, 2 }, big[2] = { 0, 4 }; /* 1024 */
		uint8_t many[2 * 65] = { 0 };

		for (size_t i = 0; i < 3; i++) {
			tlv_init(&w, c, sizeof(c));
			tlv_u32(&w, REQX_STREAMS, bad_n[i]);
			n = tlv_finish(&w);
			CHECK(ext_req_decode(c, n, &d) == -1);
		}
		tlv_init(&w, c, sizeof(c));
		tlv_u32(&w, REQX_STREAMS, 64);
		n = tlv_finish(&w);
		CHECK(ext_req_decode(c, n, &d) == 0 && d.streams == 64);
		tlv_init(&w, c, sizeof(c));
		tlv_bytes(&w, REQX_CPUS, odd, sizeof(odd));
		CHECK(ext_req_decode(c, tlv_finish(&w), &d) == -1);
		tlv_init(&w, c, sizeof(c));
		tlv_bytes(&w, REQX_CPUS, big, sizeof(big));
		CHECK(ext_req_decode(c, tlv_finish(&w), &d) == -1);
		tlv_init(&w, c, sizeof(c));
		tlv_bytes(&w, REQX_CPUS, many, sizeof(many));
		CHECK(ext_req_decode(c, tlv_finish(&w), &d) == -1);
		tlv_init(&w, c, sizeof(c));
		tlv_bytes(&w, REQX_CPUS, many, 0);
		CHECK(ext_req_decode(c, tlv_finish(&w), &d) == -1);
	}
}

static void fill(struct node_stat *s, uint64_t k)
{
	memset(s, 0, sizeof(*s));
	s->s.bytes = 1000 * k + 1;
	s->s.msgs = 10 * k + 2;
	s->s.errs = k;
	s->r.bytes = 2000 * k + 3;
	s->r.msgs = 20 * k + 4;
	s->r.errs = k + 5;
}

/* STAT item 7: one per stream, index then six u64 counters. */
TEST(stat_streams)
{
	struct node_stat agg, sc[3], d[4];
	uint8_t *e = malloc(EXT_STAT_MAX);
	size_t n, n0;

	memset(&agg, 0, sizeof(agg));
	agg.real_s = 5;
	agg.real_e = 1000000005;
	for (int i = 0; i < 3; i++)
		fill(&sc[i], (uint64_t)i + 1);
	n0 = ext_stat_encode(&agg, 2, NULL, e, EXT_STAT_MAX);
	n = ext_stat_encode_streams(&agg, 2, sc, 3, e, EXT_STAT_MAX);
	CHECK(n == n0 + 3 * (4 + STATX_STREAM_SIZE));
	/* The first item after the window: type 7, length 52, index 0,
	 * sent bytes 1001. */
	CHECK(e[n0] == 7 && e[n0 + 1] == 0 && e[n0 + 2] == 52 &&
	      e[n0 + 3] == 0 && e[n0 + 4] == 0 && e[n0 + 8] == 0xe9 &&
	      e[n0 + 9] == 0x03);
	memset(d, 0xff, sizeof(d));
	CHECK(ext_stat_decode_streams(e, n, d, 3) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(memcmp(&d[i].s, &sc[i].s, sizeof(d[i].s)) == 0 &&
		      memcmp(&d[i].r, &sc[i].r, sizeof(d[i].r)) == 0);
	/* The usual STAT fields still decode from the same block. */
	memset(&d[3], 0, sizeof(d[3]));
	CHECK(ext_stat_decode(e, n, &d[3], NULL) == 0 &&
	      d[3].real_e == agg.real_e);
	/* Too few or too many streams for the request: malformed. */
	CHECK(ext_stat_decode_streams(e, n, d, 4) == -1);
	CHECK(ext_stat_decode_streams(e, n, d, 2) == -1);
	CHECK(ext_stat_decode_streams(e, n0, d, 2) == -1);
	/* A duplicate index (stream 1 twice, stream 2 missing). */
	e[n0 + 2 * (4 + STATX_STREAM_SIZE) + 4] = 1;
	CHECK(ext_stat_decode_streams(e, n, d, 3) == -1);
	/* The wrong item length. */
	{
		struct tlv_w w;
		uint8_t item[STATX_STREAM_SIZE + 1] = { 0 };

		tlv_init(&w, e, EXT_STAT_MAX);
		tlv_bytes(&w, STATX_STREAM, item, sizeof(item));
		n = tlv_finish(&w);
		CHECK(ext_stat_decode_streams(e, n, d, 1) == -1);
	}
	/* 64 streams fit an ordinary block (at most 4096 bytes). */
	{
		struct node_stat *many = calloc(STREAMS_MAX, sizeof(*many));

		n = ext_stat_encode_streams(&agg, 2, many, STREAMS_MAX, e,
					    EXT_STAT_MAX);
		CHECK(n > 64 * STATX_STREAM_SIZE && n <= TLV_MAX);
		CHECK(ext_stat_decode_streams(e, n, many, STREAMS_MAX) == 0);
		free(many);
	}
	/* No streams in the early fixed block. */
	CHECK(ext_stat_encode_streams(&agg, 1, sc, 3, e, EXT_STAT_MAX) == 0);
	free(e);
}

int main(void)
{
	RUN(streams_option);
	RUN(cpu_lists);
	RUN(request_items);
	RUN(stat_streams);
	return harness_done();
}
