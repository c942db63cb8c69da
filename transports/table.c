// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test table, in 0.4.11's wire-index order (spec §2.4).  Indices are
 * part of the wire protocol: never reorder.  The RDMA block is always
 * listed so that its names and indices are known; in this version those
 * tests cannot run (the message says why).
 */
#include <string.h>

#include "sock.h"
#include "transport.h"

/* Parameters every test uses (spec §4.7). */
#define U_ALL (PAR_BIT(PAR_AFFINITY) | PAR_BIT(PAR_TIME) | PAR_BIT(PAR_TIMEOUT))
/* Socket tests: this qperf honours -n in every test. */
#define U_SOCK                                                          \
	(U_ALL | PAR_BIT(PAR_MSG_SIZE) | PAR_BIT(PAR_PORT) |            \
	 PAR_BIT(PAR_SOCK_BUF_SIZE) | PAR_BIT(PAR_NO_MSGS))
#define U_SOCK_BW (U_SOCK | PAR_BIT(PAR_ACCESS_RECV))
#define U_RDMA                                                          \
	(U_ALL | PAR_BIT(PAR_MSG_SIZE) | PAR_BIT(PAR_MTU_SIZE) |        \
	 PAR_BIT(PAR_ID) | PAR_BIT(PAR_SL) | PAR_BIT(PAR_STATIC_RATE) | \
	 PAR_BIT(PAR_SRC_PATH_BITS) | PAR_BIT(PAR_POLL_MODE))

#ifdef HAVE_RDMA
#define NO_RDMA_WHY "RDMA tests are not implemented yet in this version of qperf"
#else
#define NO_RDMA_WHY "this build of qperf lacks RDMA support (built without libibverbs or with NO_RDMA=1)"
#endif

#define SOCK(n, i, k, m, sz, u, x) { n, i, k, m, sz, u, &x, NULL }
#define RDMA(n, i, m, sz) { n, i, TK_RDMA, m, sz, U_RDMA, NULL, NO_RDMA_WHY }

const struct test_desc test_table[] = {
	{ "conf", 0, TK_CONF, MEAS_NONE, 0, 0, NULL, NULL },
	{ "quit", 1, TK_QUIT, MEAS_NONE, 0, PAR_BIT(PAR_TIMEOUT), NULL, NULL },
	SOCK("rds_bw", 2, TK_BW, MEAS_BANDWIDTH, 8192, U_SOCK_BW, xport_rds),
	SOCK("rds_lat", 3, TK_LAT, MEAS_LATENCY, 1, U_SOCK, xport_rds),
	SOCK("sctp_bw", 4, TK_BW, MEAS_BANDWIDTH, 32768, U_SOCK_BW, xport_sctp),
	SOCK("sctp_lat", 5, TK_LAT, MEAS_LATENCY, 1, U_SOCK, xport_sctp),
	SOCK("sdp_bw", 6, TK_BW, MEAS_BANDWIDTH, 65536, U_SOCK_BW, xport_sdp),
	SOCK("sdp_lat", 7, TK_LAT, MEAS_LATENCY, 1, U_SOCK, xport_sdp),
	SOCK("tcp_bw", 8, TK_BW, MEAS_BANDWIDTH, 65536, U_SOCK_BW, xport_tcp),
	SOCK("tcp_lat", 9, TK_LAT, MEAS_LATENCY, 1, U_SOCK, xport_tcp),
	SOCK("udp_bw", 10, TK_BW, MEAS_BANDWIDTH_SR, 32768, U_SOCK_BW, xport_udp),
	SOCK("udp_lat", 11, TK_LAT, MEAS_LATENCY, 1, U_SOCK, xport_udp),
	RDMA("rc_bi_bw", 12, MEAS_BANDWIDTH, 65536),
	RDMA("rc_bw", 13, MEAS_BANDWIDTH, 65536),
	RDMA("rc_compare_swap_mr", 14, MEAS_MSG_RATE, 0),
	RDMA("rc_fetch_add_mr", 15, MEAS_MSG_RATE, 0),
	RDMA("rc_lat", 16, MEAS_LATENCY, 1),
	RDMA("rc_rdma_read_bw", 17, MEAS_BANDWIDTH, 65536),
	RDMA("rc_rdma_read_lat", 18, MEAS_LATENCY, 1),
	RDMA("rc_rdma_write_bw", 19, MEAS_BANDWIDTH, 65536),
	RDMA("rc_rdma_write_lat", 20, MEAS_LATENCY, 1),
	RDMA("rc_rdma_write_poll_lat", 21, MEAS_LATENCY, 1),
	RDMA("uc_bi_bw", 22, MEAS_BANDWIDTH_SR, 65536),
	RDMA("uc_bw", 23, MEAS_BANDWIDTH_SR, 65536),
	RDMA("uc_lat", 24, MEAS_LATENCY, 1),
	RDMA("uc_rdma_write_bw", 25, MEAS_BANDWIDTH_SR, 65536),
	RDMA("uc_rdma_write_lat", 26, MEAS_LATENCY, 1),
	RDMA("uc_rdma_write_poll_lat", 27, MEAS_LATENCY, 1),
	RDMA("ud_bi_bw", 28, MEAS_BANDWIDTH_SR, 2048),
	RDMA("ud_bw", 29, MEAS_BANDWIDTH_SR, 2048),
	RDMA("ud_lat", 30, MEAS_LATENCY, 1),
	RDMA("ver_rc_compare_swap", 31, MEAS_MSG_RATE, 65536),
	RDMA("ver_rc_fetch_add", 32, MEAS_MSG_RATE, 65536),
	RDMA("xrc_bi_bw", 33, MEAS_BANDWIDTH, 65536),
	RDMA("xrc_bw", 34, MEAS_BANDWIDTH, 65536),
	RDMA("xrc_lat", 35, MEAS_LATENCY, 1),
};

const size_t test_count = sizeof(test_table) / sizeof(test_table[0]);

const struct test_desc *test_find(const char *name)
{
	for (size_t i = 0; i < test_count; i++)
		if (strcmp(test_table[i].name, name) == 0)
			return &test_table[i];
	return NULL;
}

const struct test_desc *test_by_index(unsigned idx)
{
	return idx < test_count ? &test_table[idx] : NULL;
}

const char *test_transports(void)
{
	return "tcp udp sdp sctp rds";
}
