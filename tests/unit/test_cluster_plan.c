// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's --loop (cluster/cluster_plan.c): a parsed cluster plan is
 * expanded into one item per test and iteration, in a normal run's
 * order, each with its loop's values and its label; too many items are
 * one usage error; tests without --loop stay as they are.
 */
#include "cluster/cluster_plan.h"
#include "lib/err.h"
#include "opts_util.h"

/* Parse and expand line: 0, -1 (expansion refused), -2 (parse refused). */
static int expand(const char *line, struct plan *p, char *err, size_t len)
{
	if (parse(line, p, err, len) < 0)
		return -2;
	return cluster_expand(p, err, len);
}

/* Two tests after one --loop: all of tcp_bw's sizes, then tcp_lat's. */
TEST(loop_items_in_order)
{
	static const char *const want[] = {
		"tcp_bw msg_size=1KiB", "tcp_bw msg_size=4KiB",
		"tcp_bw msg_size=16KiB", "tcp_lat msg_size=1KiB",
		"tcp_lat msg_size=4KiB", "tcp_lat msg_size=16KiB",
	};
	struct plan p;
	char err[256];

	CHECK(expand("--cluster all --loop msg_size:1K:16K:*4 tcp_bw tcp_lat",
		     &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 6);
	for (size_t i = 0; i < 6 && i < p.ntests; i++) {
		CHECK_STR(cluster_item_name(&p.tests[i]), want[i]);
		CHECK(p.tests[i].s.par.val[SIDE_REM][PAR_MSG_SIZE] ==
		      1024ULL << (2 * (i % 3)));
		CHECK(p.tests[i].s.nloops == 1);
		CHECK(loop_value(&p.tests[i].s, 0) == 1024ULL << (2 * (i % 3)));
	}
	plan_free(&p);
}

/* Labels: sizes in KiB/MiB/GiB when whole, else bytes; times; counts. */
TEST(labels)
{
	struct plan p;
	char err[256];

	CHECK(expand("--cluster ring --loop msg_size:1000:2M:*2048 tcp_bw",
		     &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 2);
	if (p.ntests == 2) {
		CHECK_STR(p.tests[0].label, "tcp_bw msg_size=1000");
		CHECK_STR(p.tests[1].label, "tcp_bw msg_size=2000KiB");
	}
	plan_free(&p);
	CHECK(expand("--cluster all -oo time:0.5:1:+0.5 -oo msg_size:1G:1G:+1 "
		     "udp_lat tcp_bw", &p, err, sizeof(err)) == -2);
	CHECK(strstr(err, "udp_lat") != NULL);	/* the parser's check */
	CHECK(expand("--cluster all -oo time:0.5:1:+0.5 -oo msg_size:1G:1G:+1 "
		     "tcp_bw", &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 2);
	if (p.ntests == 2) {
		CHECK_STR(p.tests[0].label, "tcp_bw time=0.5s,msg_size=1GiB");
		CHECK_STR(p.tests[1].label, "tcp_bw time=1s,msg_size=1GiB");
	}
	plan_free(&p);
	CHECK(expand("--cluster all tcp_lat --loop precision:2:3:+1 tcp_bw",
		     &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 3);
	if (p.ntests == 3) {
		CHECK_STR(cluster_item_name(&p.tests[0]), "tcp_lat");
		CHECK_STR(p.tests[0].label, "");
		CHECK_STR(p.tests[1].label, "tcp_bw precision=2");
		CHECK_STR(p.tests[2].label, "tcp_bw precision=3");
	}
	plan_free(&p);
}

/* At most CLUSTER_ITEMS_MAX items, whether from one loop or several. */
TEST(item_limit)
{
	struct plan p;
	char err[256];
	char line[200];

	snprintf(line, sizeof(line), "--cluster all -oo msg_size:1:%d:+1 tcp_bw",
		 CLUSTER_ITEMS_MAX);
	CHECK(expand(line, &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == CLUSTER_ITEMS_MAX);
	plan_free(&p);
	snprintf(line, sizeof(line),
		 "--cluster all -oo msg_size:1:%d:+1 tcp_bw tcp_lat",
		 CLUSTER_ITEMS_MAX / 2 + 1);
	CHECK(expand(line, &p, err, sizeof(err)) == -1);
	CHECK_STR(err, "--loop: more than 128 tests and loop iterations in "
		       "cluster mode");
	plan_free(&p);
	CHECK(expand("--cluster all -oo msg_size:1:1G:+1 tcp_bw", &p, err,
		     sizeof(err)) == -1);
	CHECK_STR(err, "--loop: more than 128 tests and loop iterations in "
		       "cluster mode");
	plan_free(&p);
}

int main(void)
{
	RUN(loop_items_in_order);
	RUN(labels);
	RUN(item_limit);
	return harness_done();
}
