/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test descriptors: one static const entry per test in transports/table.c,
 * in 0.4.11's wire-index order (spec §2.4).  The engine finds tests only
 * through this table; it never names a transport.
 */
#ifndef QPERF_TRANSPORT_H
#define QPERF_TRANSPORT_H

#include "../core/types.h"

/* Which headline figures a test reports (spec §3.5). */
enum measure {
	MEAS_NONE, /* conf, quit */
	MEAS_LATENCY,
	MEAS_MSG_RATE,
	MEAS_BANDWIDTH,
	MEAS_BANDWIDTH_SR
};

enum test_kind {
	TK_CONF,
	TK_QUIT,
	TK_BW, /* one-way bandwidth */
	TK_LAT, /* ping-pong latency */
	TK_RDMA /* RDMA verbs tests (not implemented by this build) */
};

struct xport; /* socket transport operations, transports/sock.h */

#define PAR_BIT(p) (1u << (p))

struct test_desc {
	const char *name;
	uint16_t index; /* 0.4.11 req_index */
	enum test_kind kind;
	enum measure measure;
	uint32_t msg_size; /* default message size, bytes (0 = none) */
	uint32_t uses; /* PAR_BIT() of each parameter the test uses */
	const struct xport *xp; /* NULL for conf, quit and RDMA tests */
	const char *missing; /* why the test cannot run in this build, or NULL */
};

extern const struct test_desc test_table[];
extern const size_t test_count;

/* Returns the test called name, or NULL.  Does not block. */
const struct test_desc *test_find(const char *name);

/* Returns the test with wire index idx, or NULL if out of range. */
const struct test_desc *test_by_index(unsigned idx);

/* Space-separated list of the transports compiled in, for --version. */
const char *test_transports(void);

#endif
