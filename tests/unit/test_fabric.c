// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the CONF extension (core/fabric.c): the codec on a known
 * fabric, its bounds (a block of at most TLV_MAX bytes, truncation said),
 * malformed and hostile blocks, and the -vx conf lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "lib/tlv.h"
#include "lib/wire.h"
#include "harness.h"

/* Two devices: an IB port and a RoCE port with two GIDs. */
static void sample(struct conf_ext *x)
{
	struct fab_port *p;

	memset(x, 0, sizeof(*x));
	x->valid = true;
	strcpy(x->kernel, "6.1.0-9-amd64");
	strcpy(x->machine, "x86_64");
	x->numa_nodes = 2;
	x->cpus = 64;
	x->fab.ndevs = 2;
	strcpy(x->fab.devs[0].name, "mlx5_0");
	x->fab.devs[0].numa_node = 1;
	x->fab.devs[0].nports = 1;
	p = &x->fab.devs[0].ports[0];
	*p = (struct fab_port){ .port = 1, .state = 4, .phys_state = 5,
				.width = 4, .speed_mbps = 25000,
				.link_layer = 1, .active_mtu = 4096, .lid = 7,
				.ngids = 1 };
	p->gids[0].index = 0;
	p->gids[0].type = FAB_GID_IB;
	memcpy(p->gids[0].gid, "\xfe\x80\0\0\0\0\0\0\0\x02\xc9\x03\0\x01\x02\x03", 16);
	strcpy(x->fab.devs[1].name, "rocep1s0");
	x->fab.devs[1].numa_node = -1;
	x->fab.devs[1].nports = 1;
	p = &x->fab.devs[1].ports[0];
	*p = (struct fab_port){ .port = 1, .state = 1, .phys_state = 3,
				.width = 1, .speed_mbps = 0, .link_layer = 2,
				.active_mtu = 1024, .lid = 0, .ngids = 2 };
	p->gids[0].index = 2;
	p->gids[0].type = FAB_GID_ROCE_V1;
	memcpy(p->gids[0].gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\0\x02\x01", 16);
	p->gids[1].index = 3;
	p->gids[1].type = FAB_GID_ROCE_V2;
	memcpy(p->gids[1].gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\0\x02\x01", 16);
}

TEST(round_trip)
{
	struct conf_ext x, y;
	uint8_t b[TLV_MAX];
	size_t n;

	sample(&x);
	n = conf_ext_encode(&x, b, sizeof(b));
	CHECK(n > TLV_HDR && n <= sizeof(b));
	CHECK(conf_ext_decode(b, n, &y) == 0);
	CHECK(y.valid);
	CHECK_STR(y.kernel, "6.1.0-9-amd64");
	CHECK_STR(y.machine, "x86_64");
	CHECK(y.numa_nodes == 2 && y.cpus == 64);
	CHECK(y.fab.ndevs == 2 && !y.fab.truncated);
	CHECK_STR(y.fab.devs[0].name, "mlx5_0");
	CHECK(y.fab.devs[0].numa_node == 1 && y.fab.devs[1].numa_node == -1);
	CHECK(memcmp(&y.fab.devs[0].ports[0], &x.fab.devs[0].ports[0],
		     sizeof(struct fab_port)) == 0);
	CHECK(memcmp(&y.fab.devs[1].ports[0], &x.fab.devs[1].ports[0],
		     sizeof(struct fab_port)) == 0);
}

/* Unknown NUMA count: the item is left out and decodes as -1. */
TEST(unknown_numa)
{
	struct conf_ext x, y;
	uint8_t b[TLV_MAX];
	size_t n;

	sample(&x);
	x.numa_nodes = -1;
	n = conf_ext_encode(&x, b, sizeof(b));
	CHECK(conf_ext_decode(b, n, &y) == 0);
	CHECK(y.numa_nodes == -1);
}

/* The largest fabric does not fit 4096 bytes: cut, and said so. */
TEST(truncation)
{
	struct conf_ext *x = calloc(2, sizeof(*x));
	uint8_t b[TLV_MAX];
	size_t n;
	uint32_t gids = 0;

	x->valid = true;
	x->fab.ndevs = FAB_DEV_MAX;
	for (int d = 0; d < FAB_DEV_MAX; d++) {
		x->fab.devs[d].nports = FAB_PORT_MAX;
		snprintf(x->fab.devs[d].name, 64, "dev%d", d);
		for (int p = 0; p < FAB_PORT_MAX; p++) {
			x->fab.devs[d].ports[p].port = (uint32_t)p + 1;
			x->fab.devs[d].ports[p].ngids = FAB_GID_MAX;
		}
	}
	n = conf_ext_encode(x, b, sizeof(b));
	CHECK(n > 0 && n <= TLV_MAX);
	CHECK(conf_ext_decode(b, n, &x[1]) == 0);
	CHECK(x[1].fab.truncated);
	CHECK(x[1].fab.ndevs >= 1 && x[1].fab.ndevs < FAB_DEV_MAX);
	for (uint32_t d = 0; d < x[1].fab.ndevs; d++)
		for (uint32_t p = 0; p < x[1].fab.devs[d].nports; p++)
			gids += x[1].fab.devs[d].ports[p].ngids;
	CHECK(gids > 100); /* most of the block is used */
	free(x);
}

static size_t block(uint8_t *b, uint16_t type, const void *v, uint16_t len)
{
	struct tlv_w w;

	tlv_init(&w, b, TLV_MAX);
	tlv_bytes(&w, CONFX_DEV, "d0", 2);
	tlv_bytes(&w, type, v, len);
	return tlv_finish(&w);
}

TEST(malformed)
{
	uint8_t b[TLV_MAX], v[40] = { 0 };
	struct conf_ext y;
	size_t n;

	n = block(b, CONFX_PORT, v, 31);
	CHECK(conf_ext_decode(b, n, &y) == -1);
	n = block(b, CONFX_GID, v, 25);
	CHECK(conf_ext_decode(b, n, &y) == -1);
	n = block(b, CONFX_NUMA_NODES, v, 2);
	CHECK(conf_ext_decode(b, n, &y) == -1);
	wire_put(v, 70000, 4);
	n = block(b, CONFX_DEV_NUMA, v, 4);
	CHECK(conf_ext_decode(b, n, &y) == -1);
	/* Unknown items are skipped; a GID without a port is ignored. */
	n = block(b, 200, v, 7);
	CHECK(conf_ext_decode(b, n, &y) == 0 && y.fab.ndevs == 1);
	n = block(b, CONFX_GID, v, CONFX_GID_LEN);
	CHECK(conf_ext_decode(b, n, &y) == 0 && y.fab.devs[0].nports == 0);
	/* A block cut short. */
	n = block(b, CONFX_PORT, v, CONFX_PORT_LEN);
	wire_put(b + 4, n + 4, 4);
	CHECK(conf_ext_decode(b, n - 4, &y) == -1);
}

/* A hostile peer's names cannot put escapes on the terminal. */
TEST(hostile_strings)
{
	uint8_t b[TLV_MAX];
	struct conf_ext y;
	size_t n = block(b, CONFX_KERNEL, "6.1\x1b[2J\n", 8);

	CHECK(conf_ext_decode(b, n, &y) == 0);
	CHECK_STR(y.kernel, "6.1?[2J?");
}

TEST(lines)
{
	struct conf_ext x, none;
	struct conf_line l[CONF_LINES_MAX];
	int n;

	sample(&x);
	n = conf_ext_lines(&x, "loc_", l, CONF_LINES_MAX);
	CHECK(n == 9);
	CHECK_STR(l[0].name, "loc_kernel");
	CHECK_STR(l[0].value, "6.1.0-9-amd64 x86_64");
	CHECK_STR(l[1].value, "2");
	CHECK_STR(l[2].name, "loc_rdma_dev");
	CHECK_STR(l[2].value, "mlx5_0 (numa_node 1)");
	CHECK_STR(l[3].name, "loc_rdma_port");
	CHECK_STR(l[3].value,
		  "mlx5_0:1 Active LinkUp, rate 100 Gb/s (4X), InfiniBand, active_mtu 4096, lid 7");
	CHECK_STR(l[4].value, "mlx5_0:1[0] fe80::2:c903:1:203 (IB)");
	CHECK_STR(l[5].value, "rocep1s0 (numa_node unknown)");
	CHECK_STR(l[6].value,
		  "rocep1s0:1 Down Disabled, rate 0 Gb/s (1X), Ethernet, active_mtu 1024, lid 0");
	CHECK_STR(l[7].value, "rocep1s0:1[2] ::ffff:192.0.2.1 (RoCE v1)");
	CHECK_STR(l[8].value, "rocep1s0:1[3] ::ffff:192.0.2.1 (RoCE v2)");
	/* Cut to 4 lines: the last says so. */
	n = conf_ext_lines(&x, "rem_", l, 4);
	CHECK(n == 4);
	CHECK_STR(l[3].name, "rem_rdma_more");
	/* A 0.4.11 peer. */
	memset(&none, 0, sizeof(none));
	n = conf_ext_lines(&none, "rem_", l, CONF_LINES_MAX);
	CHECK(n == 1);
	CHECK_STR(l[0].name, "rem_fabric");
}

int main(void)
{
	RUN(round_trip);
	RUN(unknown_numa);
	RUN(truncation);
	RUN(malformed);
	RUN(hostile_strings);
	RUN(lines);
	return harness_done();
}
