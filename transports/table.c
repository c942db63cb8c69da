// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test table, in 0.4.11's wire-index order (spec §2.4).  Indices are
 * part of the wire protocol: never reorder.  Each entry names its loop,
 * its data operation, the work requests it keeps outstanding (0.4.11's
 * 1024 for bandwidth, 1 for latency), its default message size and the
 * parameters it uses (spec §3.1, §4.7).  The RDMA block is always listed
 * so that its names and indices are known; a build without libibverbs
 * says why those tests cannot run.  The only #ifdefs of the engine live
 * here.
 */
#include <stdbool.h>
#include <string.h>

#include "sock.h"
#include "transport.h"
#ifdef HAVE_RDMA
#include "verbs.h"
#endif

/* Parameters every test uses (spec §4.7). */
#define U_ALL (PAR_BIT(PAR_AFFINITY) | PAR_BIT(PAR_TIME) | PAR_BIT(PAR_TIMEOUT))
/* This qperf honours -n in every test. */
#define U_N PAR_BIT(PAR_NO_MSGS)
/* -cp1 makes a socket test spin on a non-blocking socket (sock_io.c). */
#define U_SOCK                                                          \
	(U_ALL | U_N | PAR_BIT(PAR_MSG_SIZE) | PAR_BIT(PAR_PORT) |      \
	 PAR_BIT(PAR_SOCK_BUF_SIZE) | PAR_BIT(PAR_POLL_MODE))
#define U_SOCK_BW (U_SOCK | PAR_BIT(PAR_ACCESS_RECV) | U_RT)
/* RDMA: the device, path and polling parameters (-ap takes effect too). */
#define U_IB                                                            \
	(U_ALL | U_N | PAR_BIT(PAR_MTU_SIZE) | PAR_BIT(PAR_ID) |        \
	 PAR_BIT(PAR_SL) | PAR_BIT(PAR_STATIC_RATE) |                   \
	 PAR_BIT(PAR_SRC_PATH_BITS) | PAR_BIT(PAR_ALT_PORT) |          \
	 PAR_BIT(PAR_GID_INDEX))
#define U_POLL PAR_BIT(PAR_POLL_MODE)
#define U_MSG PAR_BIT(PAR_MSG_SIZE)
#define U_CM PAR_BIT(PAR_USE_CM)
#define U_RDA PAR_BIT(PAR_RD_ATOMIC)
#define U_AR PAR_BIT(PAR_ACCESS_RECV)
/* Verbs knobs (0.5 peers): every RDMA test; depth, moderation, post
 * list and SRQ only where the loop keeps many requests in flight. */
#define U_VK                                                            \
	(PAR_BIT(PAR_INLINE) | PAR_BIT(PAR_TCLASS) |                    \
	 PAR_BIT(PAR_PKEY_INDEX) | PAR_BIT(PAR_NUMA_NODE))
#define U_SQ (PAR_BIT(PAR_SQ_DEPTH) | PAR_BIT(PAR_POST_LIST))
#define U_CQM PAR_BIT(PAR_CQ_MOD)
#define U_RQ (PAR_BIT(PAR_RQ_DEPTH) | PAR_BIT(PAR_USE_SRQ))
#define U_BWK (U_SQ | U_CQM | U_RQ) /* a send or write-with-imm bw test */
#define U_R (U_IB | U_POLL | U_MSG | U_VK) /* an RDMA test */
#define U_RC (U_R | U_CM) /* an RC test */
#define U_UCD (U_R | U_CM) /* UC, UD: -cm1 only between 0.5 peers */
/* --streams: bandwidth tests that run several streams at once. */
#define U_ST PAR_BIT(PAR_STREAMS)
/* --qps: RDMA bandwidth tests whose one loop posts over several QPs,
 * spread over --threads. */
#define U_TH PAR_BIT(PAR_THREADS)
#define U_QP (PAR_BIT(PAR_QPS) | PAR_BIT(PAR_CQ_PER_QP) | U_TH)
/* --conns: the socket bandwidth tests over several data connections. */
#define U_CN (PAR_BIT(PAR_CONNS) | U_TH)
/* --rate: every bandwidth test (lib/pace.h), and the ping-pong latency
 * tests, which then run open loop (core/openloop.c); OL: only with a
 * peer that runs it on RDMA and rsockets too (CAP_OLRDMA). */
#define U_RT (PAR_BIT(PAR_RATE) | PAR_BIT(PAR_MSG_RATE))
#define OL TDF_OL_NEW
/* --qps with a peer announcing CAP_QPS2 only (its second landing) */
#define Q2 TDF_QPS2

#ifdef HAVE_RDMA
#define VERBS(x) (&transport_##x)
#define NO_RDMA_WHY NULL
#else
#define VERBS(x) NULL
#define NO_RDMA_WHY "this build of qperf lacks RDMA support (built without libibverbs or with NO_RDMA=1)"
#endif

#define SOCKN(n, i, m, loop, depth, sz, u, x)                           \
	{ n, i, TK_DATA, m, loop, OP_SEND, depth, sz, u, 0, &transport_##x, \
	  NULL, 0 }
#define SOCK(n, i, m, loop, sz, u, x) SOCKN(n, i, m, loop, 1, sz, u, x)
#define RDMA(n, i, m, loop, op, depth, sz, u, fl, x)                    \
	{ n, i, TK_DATA, m, loop, op, depth, sz, u, fl, VERBS(x),       \
	  NO_RDMA_WHY, 0 }
/* Socket loops over librdmacm's rsockets (built with the RDMA tests). */
#define RSOCK(n, i, m, loop, sz, u, fl)                                 \
	{ n, i, TK_DATA, m, loop, OP_SEND, 1, sz, u, fl, VERBS(rs),     \
	  NO_RDMA_WHY, 0 }

#define BW LOOP_STREAM_BW
#define BI LOOP_BI_BW
#define PP LOOP_PINGPONG
#define OS LOOP_ONESIDED
#define WP LOOP_WRITE_POLL
#define AV LOOP_ATOMIC_VER
#define N TDF_LEGACY_N

const struct test_desc test_table[] = {
	{ "conf", 0, TK_CONF, MEAS_NONE, LOOP_NONE, OP_SEND, 0, 0, 0, 0, NULL,
	  NULL, 0 },
	{ "quit", 1, TK_QUIT, MEAS_NONE, LOOP_NONE, OP_SEND, 0, 0,
	  PAR_BIT(PAR_TIMEOUT), 0, NULL, NULL, 0 },
	SOCK("rds_bw", 2, MEAS_BANDWIDTH, BW, 8192, U_SOCK_BW, rds),
	SOCK("rds_lat", 3, MEAS_LATENCY, PP, 1, U_SOCK | U_RT, rds),
	SOCK("sctp_bw", 4, MEAS_BANDWIDTH, BW, 32768, U_SOCK_BW, sctp),
	SOCK("sctp_lat", 5, MEAS_LATENCY, PP, 1, U_SOCK | U_RT, sctp),
	SOCK("sdp_bw", 6, MEAS_BANDWIDTH, BW, 65536, U_SOCK_BW, sdp),
	SOCK("sdp_lat", 7, MEAS_LATENCY, PP, 1, U_SOCK | U_RT, sdp),
	SOCK("tcp_bw", 8, MEAS_BANDWIDTH, BW, 65536, U_SOCK_BW | U_ST | U_CN, tcp),
	SOCK("tcp_lat", 9, MEAS_LATENCY, PP, 1, U_SOCK | U_RT, tcp),
	/* Depth 16: a 0.5 sender of small messages batches that many
	 * datagrams per sendmmsg() call (SF_MMSG, sock_io.c). */
	SOCKN("udp_bw", 10, MEAS_BANDWIDTH_SR, BW, 16, 32768,
	      U_SOCK_BW | U_ST | U_CN, udp),
	SOCK("udp_lat", 11, MEAS_LATENCY, PP, 1, U_SOCK | U_RT, udp),
	RDMA("rc_bi_bw", 12, MEAS_BANDWIDTH, BI, OP_SEND, 1024, 65536,
	     U_RC | U_AR | U_BWK | U_ST | U_RT | U_QP, Q2, rc),
	RDMA("rc_bw", 13, MEAS_BANDWIDTH, BW, OP_SEND, 1024, 65536,
	     U_RC | U_AR | U_BWK | U_ST | U_RT | U_QP, N, rc),
	RDMA("rc_compare_swap_mr", 14, MEAS_MSG_RATE, OS, OP_CSWAP, 1024, 0,
	     (U_RC & ~U_MSG) | U_RDA | U_SQ | U_QP, Q2, rc),
	RDMA("rc_fetch_add_mr", 15, MEAS_MSG_RATE, OS, OP_FADD, 1024, 0,
	     (U_RC & ~U_MSG) | U_RDA | U_SQ | U_QP, Q2, rc),
	RDMA("rc_lat", 16, MEAS_LATENCY, PP, OP_SEND, 1, 1, U_RC | U_RT, OL, rc),
	RDMA("rc_rdma_read_bw", 17, MEAS_BANDWIDTH, OS, OP_READ, 1024, 65536,
	     U_RC | U_RDA | U_AR | U_SQ | U_CQM | U_ST | U_RT | U_QP, 0, rc),
	RDMA("rc_rdma_read_lat", 18, MEAS_LATENCY, OS, OP_READ, 1, 1,
	     U_RC | U_RT, OL, rc),
	RDMA("rc_rdma_write_bw", 19, MEAS_BANDWIDTH, BW, OP_WRITE_IMM, 1024,
	     65536, U_RC | U_BWK | U_ST | U_RT | U_QP, 0, rc),
	RDMA("rc_rdma_write_lat", 20, MEAS_LATENCY, PP, OP_WRITE_IMM, 1, 1,
	     U_RC | U_RT, OL, rc),
	/* 0.4.11 leaves -cp unused here (but not in the UC version). */
	RDMA("rc_rdma_write_poll_lat", 21, MEAS_LATENCY, WP, OP_WRITE, 1024, 1,
	     U_RC & ~U_POLL, 0, rc),
	RDMA("uc_bi_bw", 22, MEAS_BANDWIDTH_SR, BI, OP_SEND, 1024, 65536,
	     U_UCD | U_AR | U_BWK | U_RT | U_QP, Q2, uc),
	RDMA("uc_bw", 23, MEAS_BANDWIDTH_SR, BW, OP_SEND, 1024, 65536,
	     U_UCD | U_AR | U_BWK | U_ST | U_RT | U_QP, N, uc),
	RDMA("uc_lat", 24, MEAS_LATENCY, PP, OP_SEND, 1, 1, U_UCD | U_RT, OL,
	     uc),
	RDMA("uc_rdma_write_bw", 25, MEAS_BANDWIDTH_SR, BW, OP_WRITE_IMM, 1024,
	     65536, U_UCD | U_BWK | U_RT | U_QP, 0, uc),
	RDMA("uc_rdma_write_lat", 26, MEAS_LATENCY, PP, OP_WRITE_IMM, 1, 1,
	     U_UCD | U_RT, OL, uc),
	RDMA("uc_rdma_write_poll_lat", 27, MEAS_LATENCY, WP, OP_WRITE, 1024, 1,
	     U_UCD, 0, uc),
	RDMA("ud_bi_bw", 28, MEAS_BANDWIDTH_SR, BI, OP_SEND, 1024, 2048,
	     U_UCD | U_AR | U_BWK | U_RT | U_QP, Q2, ud),
	RDMA("ud_bw", 29, MEAS_BANDWIDTH_SR, BW, OP_SEND, 1024, 2048,
	     U_UCD | U_AR | U_BWK | U_ST | U_RT | U_QP, N, ud),
	RDMA("ud_lat", 30, MEAS_LATENCY, PP, OP_SEND, 1, 1, U_UCD | U_RT, OL,
	     ud),
	RDMA("ver_rc_compare_swap", 31, MEAS_MSG_RATE, AV, OP_CSWAP, 1024,
	     65536, U_RC | U_RDA | U_SQ, 0, rc),
	RDMA("ver_rc_fetch_add", 32, MEAS_MSG_RATE, AV, OP_FADD, 1024, 65536,
	     U_RC | U_RDA | U_SQ, 0, rc),
	RDMA("xrc_bi_bw", 33, MEAS_BANDWIDTH, BI, OP_SEND, 1024, 65536,
	     U_R | U_AR | U_SQ | U_CQM | PAR_BIT(PAR_RQ_DEPTH) | U_RT | U_QP,
	     Q2, xrc),
	RDMA("xrc_bw", 34, MEAS_BANDWIDTH, BW, OP_SEND, 1024, 65536,
	     U_R | U_AR | U_SQ | U_CQM | PAR_BIT(PAR_RQ_DEPTH) | U_RT | U_QP,
	     N | Q2, xrc),
	RDMA("xrc_lat", 35, MEAS_LATENCY, PP, OP_SEND, 1, 1, U_R | U_RT, OL, xrc),
	/* Beyond 0.4.11 (TEST_LEGACY_LAST): 0.5 peers only. */
	RSOCK("rs_bw", 36, MEAS_BANDWIDTH, BW, 65536, U_SOCK_BW, 0),
	RSOCK("rs_lat", 37, MEAS_LATENCY, PP, 1, U_SOCK | U_RT, OL),
	/* On the client alone (TK_LOCAL): never sent to a server. */
	{ "reg_mr", 38, TK_LOCAL, MEAS_REGMR, LOOP_NONE, OP_SEND, 0, 1 << 20,
	  U_ALL | U_N | U_MSG | PAR_BIT(PAR_ID) | U_TH, 0, VERBS(regmr),
	  NO_RDMA_WHY, 0 },
	/* A TCP connection per transaction (0.5 peers with CAP_CONN). */
	{ "tcp_conn", 39, TK_DATA, MEAS_CONN, LOOP_CONN, OP_SEND, 1, 1,
	  U_ALL | U_N | U_MSG | PAR_BIT(PAR_PORT) | PAR_BIT(PAR_SOCK_BUF_SIZE),
	  0, &transport_tcp_conn, NULL, CAP_CONN },
	/* RDMA connection setup (0.5 peers with CAP_RCCONN, CAP_QPSETUP):
	 * through the RDMA CM, and by hand with NODE on the control
	 * connection. */
	{ "rc_conn", 40, TK_DATA, MEAS_CONN, LOOP_CONN, OP_SEND, 1, 1,
	  U_ALL | U_N | U_MSG | PAR_BIT(PAR_NUMA_NODE) | PAR_BIT(PAR_QPS), 0,
	  VERBS(rc_conn),
	  NO_RDMA_WHY, CAP_RCCONN },
	{ "rc_qp_setup", 41, TK_DATA, MEAS_CONN, LOOP_CONN, OP_SEND, 1, 0,
	  U_IB | U_RDA | PAR_BIT(PAR_TCLASS) | PAR_BIT(PAR_PKEY_INDEX) |
		  PAR_BIT(PAR_NUMA_NODE) | PAR_BIT(PAR_QPS),
	  0, VERBS(rc_qp_setup), NO_RDMA_WHY, CAP_QPSETUP },
};

const size_t test_count = sizeof(test_table) / sizeof(test_table[0]);

const struct test_desc *test_find(const char *name)
{
	for (size_t i = 0; i < test_count; i++)
		if (strcmp(test_table[i].name, name) == 0)
			return &test_table[i];
	return NULL;
}

const struct test_desc *test_bw_of(const struct test_desc *t)
{
	for (size_t i = 0; t->tp && i < test_count; i++) {
		const struct test_desc *b = &test_table[i];

		if (b->tp == t->tp && b->loop == LOOP_STREAM_BW &&
		    (b->measure == MEAS_BANDWIDTH ||
		     b->measure == MEAS_BANDWIDTH_SR))
			return b;
	}
	return NULL;
}

const struct test_desc *test_by_index(unsigned idx)
{
	return idx < test_count ? &test_table[idx] : NULL;
}

const char *test_transports(void)
{
	static char list[128];
	size_t len = 0;

	if (list[0])
		return list;
	for (size_t i = 0; i < test_count; i++) {
		const struct transport *tp = test_table[i].tp;
		bool seen = false;
		size_t n;

		/* tcp_conn's transport is tcp too, by another loop */
		for (size_t j = 0; j < i && tp; j++)
			seen = seen || test_table[j].tp == tp ||
			       (test_table[j].tp &&
				!strcmp(test_table[j].tp->name, tp->name));
		if (!tp || !tp->open || seen)
			continue;
		n = strlen(tp->name);
		if (len + n + 2 > sizeof(list))
			break;
		if (len)
			list[len++] = ' ';
		memcpy(list + len, tp->name, n + 1);
		len += n;
	}
	return list;
}

void fabric_query(struct fabric *f)
{
#ifdef HAVE_RDMA
	verbs_fabric_query(f);
#else
	memset(f, 0, sizeof(*f));
#endif
}

const char *test_rdma_status(void)
{
	const struct test_desc *t = test_find("rc_bw");

	return t && t->tp ? "built" : "not built";
}
