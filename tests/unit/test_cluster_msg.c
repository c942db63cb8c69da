// SPDX-License-Identifier: GPL-2.0-only
/* Cluster messages: round trips and malformed blocks. */
#include <string.h>

#include "cluster/cluster.h"
#include "cluster/cluster_msg.h"
#include "lib/tlv.h"
#include "harness.h"

static int roundtrip(const struct cmsg *in, struct cmsg *out)
{
	uint8_t b[TLV_MAX];
	size_t n = cmsg_encode(in, b, sizeof(b));

	return n ? cmsg_decode(b, n, out) : -2;
}

TEST(join_run_done)
{
	struct cmsg m, o;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_JOIN;
	m.u.join.rank = 7;
	m.u.join.size = 9;
	m.u.join.local_rank = 2;
	m.u.join.port = 40000;
	strcpy(m.u.join.host, "node07");
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.type == CMSG_JOIN && o.u.join.rank == 7 &&
	      o.u.join.size == 9 && o.u.join.local_rank == 2 &&
	      o.u.join.port == 40000);
	CHECK_STR(o.u.join.host, "node07");
	memset(&m, 0, sizeof(m));
	m.type = CMSG_RUN;
	m.u.run.job = 12;
	m.u.run.item = 1;
	m.u.run.peer = 3;
	m.u.run.peer_local = 1;
	m.u.run.port = 19765;
	strcpy(m.u.run.addr, "fd00::3");
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.type == CMSG_RUN && o.u.run.job == 12 && o.u.run.item == 1 &&
	      o.u.run.peer == 3 && o.u.run.peer_local == 1 &&
	      o.u.run.port == 19765);
	CHECK_STR(o.u.run.addr, "fd00::3");
	m.type = CMSG_DONE;
	CHECK(roundtrip(&m, &o) == 0 && o.type == CMSG_DONE);
}

TEST(result)
{
	struct cmsg m, o;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_RESULT;
	m.u.result.job = 5;
	m.u.result.status = 1;
	strcpy(m.u.result.err, "tcp_bw: failed to connect");
	m.u.result.r.send_bw = 1.25e9;
	m.u.result.r.recv_bw = 1.24e9;
	m.u.result.r.msg_rate = 19000.5;
	m.u.result.r.latency = 12.5e-6;
	m.u.result.r.lat.count = 1000;
	m.u.result.r.lat.p99 = 30e-6;
	m.u.result.r.lat.p9999 = 99e-6;
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.u.result.job == 5 && o.u.result.status == 1);
	CHECK_STR(o.u.result.err, "tcp_bw: failed to connect");
	CHECK(o.u.result.r.send_bw == 1.25e9 && o.u.result.r.recv_bw == 1.24e9);
	CHECK(o.u.result.r.msg_rate == 19000.5);
	CHECK(o.u.result.r.latency == 12.5e-6);
	CHECK(o.u.result.r.lat.count == 1000 && o.u.result.r.lat.p99 == 30e-6 &&
	      o.u.result.r.lat.p9999 == 99e-6);
	CHECK(o.u.result.r.ival_n == 0 && o.u.result.r.ival_low == 0);
	/* -I: the lowest interval travels with its count */
	m.u.result.r.ival_low = 3.5e8;
	m.u.result.r.ival_n = 7;
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.u.result.r.ival_low == 3.5e8 && o.u.result.r.ival_n == 7);
}

/* A JOIN block by hand: rank 0 of 2, local 0, port, host (NULL: none). */
static size_t join_block(uint8_t *b, uint32_t port, const char *host,
			 uint16_t hostlen)
{
	struct tlv_w w;

	tlv_init(&w, b, TLV_MAX);
	tlv_u32(&w, 1, CMSG_JOIN);
	tlv_u32(&w, 2, 0);
	tlv_u32(&w, 3, 2);
	tlv_u32(&w, 4, 0);
	tlv_u32(&w, 5, port);
	if (host)
		tlv_bytes(&w, 6, host, hostlen);
	return tlv_finish(&w);
}

TEST(malformed)
{
	struct cmsg m, o;
	uint8_t b[TLV_MAX];
	size_t n;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_JOIN;
	strcpy(m.u.join.host, "h");
	n = cmsg_encode(&m, b, sizeof(b));
	CHECK(n > 0);
	/* Every truncation fails (header length no longer matches). */
	for (size_t k = 0; k < n; k++)
		CHECK(cmsg_decode(b, k, &o) < 0);
	/* A JOIN without its host, a port beyond 65535, a NUL in the host. */
	CHECK(cmsg_decode(b, join_block(b, 1, NULL, 0), &o) < 0);
	CHECK(cmsg_decode(b, join_block(b, 70000, "h", 1), &o) < 0);
	CHECK(cmsg_decode(b, join_block(b, 1, "h\0x", 3), &o) < 0);
	CHECK(cmsg_decode(b, join_block(b, 1, "h", 1), &o) == 0);
	/* Unknown type. */
	{
		struct tlv_w w;

		tlv_init(&w, b, sizeof(b));
		tlv_u32(&w, 1, 99);
		n = tlv_finish(&w);
		CHECK(cmsg_decode(b, n, &o) < 0);
	}
}

/* -i lists: one device per local rank. */
TEST(pick_id)
{
	char b[64];

	CHECK(cluster_pick_id("mlx5_0,mlx5_1", 0, b, sizeof(b)) == 0);
	CHECK_STR(b, "mlx5_0");
	CHECK(cluster_pick_id("mlx5_0,mlx5_1", 1, b, sizeof(b)) == 0);
	CHECK_STR(b, "mlx5_1");
	CHECK(cluster_pick_id("mlx5_0,mlx5_1:2", 3, b, sizeof(b)) == 0);
	CHECK_STR(b, "mlx5_1:2");
	CHECK(cluster_pick_id("softv0", 5, b, sizeof(b)) == 0);
	CHECK_STR(b, "softv0");
	CHECK(cluster_pick_id("", 5, b, sizeof(b)) == 0);
	CHECK_STR(b, "");
	CHECK(cluster_pick_id("a,,b", 1, b, sizeof(b)) < 0);
	CHECK(cluster_pick_id("a,b,", 2, b, sizeof(b)) < 0);
	CHECK(cluster_pick_id("abcdef,x", 0, b, 4) < 0);
}

int main(void)
{
	RUN(pick_id);
	RUN(join_run_done);
	RUN(result);
	RUN(malformed);
	return harness_done();
}
