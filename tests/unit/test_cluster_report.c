// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's report data on rank 0 (cluster/coord_state.h) without a
 * cluster: a coordinator state of 4 ranks, one tcp_bw test with two
 * figures, a failed pair and a gone rank, one confirmed outlier.  Checks
 * why each missing pair is missing, the figures both ways of a test
 * measured once per pair, and the --json "cluster" member (parsed back
 * with jansson).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster_json.h"
#include "cluster/coord_fig.h"
#include "cluster/coord_verdict.h"
#include "lib/verdict.h"
#include "output/json.h"
#include "lib/err.h"
#include "transports/transport.h"
#include "harness.h"

#define NR 4

static struct plan plan;
static struct plan_item item;
static struct crank ranks[NR];
static struct ctest ct;
static float fig[NR * NR];
static double med[NR];
static struct cfail fails[1];
static uint32_t idle[3] = { UINT32_MAX, 3, UINT32_MAX };
static struct coord c;

/* Rank 2 gone; 0 -> 1 and 1 -> 0 measured; 0 -> 2 failed; 1 an outlier. */
static void setup(const char *test)
{
	memset(&plan, 0, sizeof(plan));
	memset(&c, 0, sizeof(c));
	memset(&ct, 0, sizeof(ct));
	memset(ranks, 0, sizeof(ranks));
	item.test = test_find(test);
	plan.tests = &item;
	plan.ntests = 1;
	for (int k = 0; k < NR; k++) {
		ranks[k].joined = ranks[k].alive = true;
		xsnprintf(ranks[k].host, sizeof(ranks[k].host), "h%d", k);
		xsnprintf(ranks[k].addr, sizeof(ranks[k].addr), "10.0.0.%d",
			  k + 1);
		ranks[k].port = (uint16_t)(4000 + k);
	}
	ranks[2].alive = false;
	xsnprintf(ranks[2].why, sizeof(ranks[2].why), "left: reset");
	for (int i = 0; i < NR * NR; i++)
		fig[i] = NAN;
	fig[0 * NR + 1] = 1e6;
	fig[1 * NR + 0] = 2e6;
	fails[0].client = 0;
	fails[0].server = 2;
	xsnprintf(fails[0].err, sizeof(fails[0].err), "boom");
	med[0] = med[1] = 1.5e6;
	med[2] = med[3] = 0;
	ct.fig = fig;
	ct.med = med;
	ct.fabric_med = 1.5e6;
	ct.nfail = ct.nkept = 1;
	ct.fail = fails;
	ct.nsuspects = ct.nfinds = 1;
	ct.find[0].o.kind = OUTLIER_NODE;
	ct.find[0].o.a = 1;
	ct.find[0].o.figure = 1e6;
	ct.find[0].o.median = 2e6;
	ct.find[0].o.z = INFINITY;
	ct.find[0].partner = 0;
	ct.find[0].retest = 1.1e6;
	ct.find[0].confirmed = true;
	xsnprintf(ct.find[0].line, sizeof(ct.find[0].line), "outlier: x");
	c.p = &plan;
	c.n = NR;
	c.seed = 5;
	c.rounds = 3;
	c.idle = idle;
	c.r = ranks;
	c.t = &ct;
}

TEST(why_missing)
{
	char b[600];

	setup("tcp_bw");
	coord_why_missing(&c, 0, 0, 2, b, sizeof(b));
	CHECK_STR(b, "failed: boom");
	coord_why_missing(&c, 0, 3, 2, b, sizeof(b));
	CHECK_STR(b, "rank 2 is gone: left: reset");
	coord_why_missing(&c, 0, 2, 0, b, sizeof(b)); /* one-way: not 0 -> 2 */
	CHECK_STR(b, "rank 2 is gone: left: reset");
	coord_why_missing(&c, 0, 0, 3, b, sizeof(b));
	CHECK_STR(b, "not in the schedule");
	CHECK(coord_fig(&c, 0, 0, 1) == 1e6);
	CHECK(isnan(coord_fig(&c, 0, 3, 0)));
}

TEST(once_per_pair_both_ways)
{
	char b[600];

	setup("tcp_lat");
	fig[1 * NR + 0] = NAN;
	CHECK(coord_fig(&c, 0, 1, 0) == 1e6); /* 0 -> 1 stands for both */
	ranks[2].alive = true;
	coord_why_missing(&c, 0, 2, 0, b, sizeof(b)); /* 0 -> 2 failed */
	CHECK_STR(b, "failed: boom");
}

static json_t *at(json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && (dot = strchr(path, '.'))) {
		xsnprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_is_array(o) ? json_array_get(o, strtoul(key, NULL, 10))
				     : json_object_get(o, key);
		path = dot + 1;
	}
	if (!o)
		return NULL;
	return json_is_array(o) ? json_array_get(o, strtoul(path, NULL, 10))
				: json_object_get(o, path);
}

/* c's --json document (exit status 1) as written to stdout, read back;
 * NULL if it cannot be. */
static json_t *document(char *pattern)
{
	char *argv[] = { "qperf", "--cluster", pattern, "tcp_bw" };
	char path[] = "/tmp/qperf-test-cluster.XXXXXX";
	int fd = mkstemp(path);
	json_error_t je;
	json_t *d;

	if (fd < 0)
		return NULL;
	close(fd);
	fflush(stdout);
	if (!freopen(path, "w", stdout)) {
		unlink(path);
		return NULL;
	}
	plan.json = JSON_DOC;
	c.json = json_open(JSON_DOC, 4, argv, NULL);
	coord_json(&c, 1);
	fflush(stdout);
	d = json_load_file(path, 0, &je);
	unlink(path);
	return d;
}

TEST(json_document)
{
	json_t *d, *cl;

	setup("tcp_bw");
	d = document("all");
	CHECK(d != NULL);
	cl = json_object_get(d, "cluster");
	CHECK(json_integer_value(at(cl, "size")) == NR);
	CHECK_STR(json_string_value(at(cl, "pattern")), "all");
	CHECK(json_integer_value(at(cl, "seed")) == 5);
	CHECK_STR(json_string_value(at(cl, "ranks.3.address")), "10.0.0.4");
	CHECK(json_is_false(at(cl, "ranks.2.alive")));
	CHECK(json_array_size(at(cl, "sits_out")) == 1);
	CHECK(json_integer_value(at(cl, "sits_out.0.round")) == 2);
	CHECK(json_integer_value(at(cl, "sits_out.0.rank")) == 3);
	CHECK(json_real_value(at(cl, "tests.0.matrix.0.1")) == 1e6);
	CHECK(json_is_null(at(cl, "tests.0.matrix.0.0")));
	CHECK(json_is_null(at(cl, "tests.0.matrix.0.2")));
	CHECK(json_integer_value(at(cl, "tests.0.directed_figures")) == 2);
	/* listed: 0 -> 2 failed and the 5 other cells of rank 2 (gone);
	 * counted only: the 4 cells between 0, 1 and 3 left unscheduled */
	CHECK(json_array_size(at(cl, "tests.0.missing")) == 6);
	CHECK(json_integer_value(at(cl, "tests.0.not_scheduled")) == 4);
	CHECK(json_integer_value(at(cl, "tests.0.missing.0.server")) == 2);
	CHECK_STR(json_string_value(at(cl, "tests.0.missing.0.reason")),
		  "failed: boom");
	CHECK(json_is_null(at(cl, "tests.0.node_medians.2")));
	CHECK(json_is_true(at(cl, "tests.0.retests.0.confirmed")));
	CHECK(json_is_null(at(cl, "tests.0.retests.0.z"))); /* infinite */
	CHECK_STR(json_string_value(at(cl, "outliers.0.line")), "outlier: x");
	CHECK(json_real_value(at(cl, "outliers.0.relative_change")) == -0.5);
	CHECK(json_integer_value(at(cl, "outliers.0.ranks.0")) == 1);
	CHECK(json_integer_value(at(cl, "gone.0.rank")) == 2);
	CHECK_STR(json_string_value(at(cl, "gone.0.line")),
		  "gone: rank 2 (h2): left: reset");
	CHECK(json_integer_value(at(d, "exit_status")) == 1);
	CHECK_STR(json_string_value(at(d, "error.message")),
		  "cluster: 1 outlier, 1 failed pair test, 1 rank gone");
	CHECK(json_array_size(json_object_get(d, "tests")) == 0);
	json_decref(d);
}

/* --expect on rank 0: each measured pair's efficiency and verdict; the
 * failing pairs kept with their limit named by rank. */
TEST(pair_verdicts)
{
	struct pair_res r;
	float eff[NR * NR];
	char err[128], out[256];

	setup("tcp_bw");
	for (int i = 0; i < NR * NR; i++)
		eff[i] = NAN;
	ct.eff = eff;
	plan.checks.nexpect = 1;
	CHECK(verdict_parse("bw>=90%", &plan.checks.expect[0], err,
			    sizeof(err)) == 0);
	xsnprintf(plan.checks.expect[0].text,
		  sizeof(plan.checks.expect[0].text), "bw>=90%%");
	memset(&r, 0, sizeof(r));
	r.recv_bw = 1e9;
	r.ceil.valid = true;
	r.ceil.bps = 1e10;
	xsnprintf(r.ceil.what, sizeof(r.ceil.what),
		  "PCIe Gen4 x8 of the server (0000:17:00.0)");
	cv_record(&c, 0, 0, 3, &r); /* 10%: fails */
	r.recv_bw = 9.5e9;
	cv_record(&c, 0, 3, 0, &r); /* 95%: passes */
	r.ceil.valid = false;
	cv_record(&c, 0, 1, 3, &r); /* no ceiling: fails, saying so */
	CHECK(fabsf(eff[0 * NR + 3] - 0.1f) < 1e-6 &&
	      fabsf(eff[3 * NR + 0] - 0.95f) < 1e-6 && isnan(eff[1 * NR + 3]));
	CHECK(ct.nchecked == 3 && ct.nvfail == 2 && ct.nvkept == 2);
	CHECK_STR(ct.vfail[0].why,
		  "fail: bw 1 GB/s < 90% of 10 GB/s (PCIe Gen4 x8 of rank 3 (h3) (0000:17:00.0))");
	CHECK(ct.vfail[1].client == 1 && strstr(ct.vfail[1].why, "no ceiling"));
	CHECK(cv_failed(&c) == 2);
	cv_name_ranks(&c, 2, 0, "x of the client, y of the server", out,
		      sizeof(out));
	CHECK_STR(out, "x of rank 2 (h2), y of rank 0 (h0)");
	free(ct.vfail);
}

/*
 * incast:2's rounds in --json: round 1 into rank 0 from ranks 1 and 3,
 * round 2 failed; a receiver confirmed an outlier by its fairness.
 */
TEST(group_json)
{
	static struct cgroup grp[NR];
	json_t *d, *cl;

	setup("tcp_bw");
	plan.cluster.pattern = (struct sched_spec){ SCHED_INCAST, 2 };
	memset(grp, 0, sizeof(grp));
	for (uint32_t r = 0; r < NR; r++)
		grp[r].hub = r;
	grp[0] = (struct cgroup){ .hub = 0, .k = 2, .ran = true, .ok = true,
				  .f = { { 1, 1e6f, 1e-4f, 2.0f },
					 { 3, 3e6f, 3e-4f, 2.1f } },
				  .aggregate = 4e6, .fairness = 0.8,
				  .slowest = 0, .ratio = 0.5, .spread = 2e-4,
				  .uncert = 1e-5 };
	grp[1] = (struct cgroup){ .hub = 1, .k = 2, .ran = true,
				  .retried = true,
				  .f = { { 2, NAN, NAN, 0 }, { 0, NAN, NAN, 0 } },
				  .err = "rank 2 -> 1: boom" };
	ct.grp = grp;
	ct.grp_med = 4e6;
	ct.fair_med = 0.9;
	c.rounds = NR;
	c.idle = NULL;
	ct.find[0].o = (struct outlier){ OUTLIER_HUB, 0, 0, 0.5, 0.9, 4 };
	ct.find[0].what = CFW_FAIR;
	ct.find[0].partner = -1;
	ct.find[0].retest = 0.55;
	d = document("incast:2");
	ct.grp = NULL;
	CHECK(d != NULL);
	cl = json_object_get(d, "cluster");
	CHECK_STR(json_string_value(at(cl, "pattern")), "incast:2");
	CHECK(json_array_size(at(cl, "tests.0.groups")) == NR);
	CHECK(json_integer_value(at(cl, "tests.0.groups.0.round")) == 1);
	CHECK_STR(json_string_value(at(cl, "tests.0.groups.0.status")), "ok");
	CHECK(json_integer_value(at(cl, "tests.0.groups.0.flows.1.client")) ==
	      3);
	CHECK(json_integer_value(at(cl, "tests.0.groups.0.flows.1.server")) ==
	      0);
	CHECK_STR(json_string_value(at(cl, "tests.0.groups.0.flows.0.role")),
		  "flow");
	CHECK(json_real_value(at(cl, "tests.0.groups.0.flows.1.figure")) ==
	      3e6);
	CHECK(json_real_value(at(cl, "tests.0.groups.0.aggregate")) == 4e6);
	CHECK(json_real_value(at(cl, "tests.0.groups.0.fairness")) == 0.8);
	CHECK(json_integer_value(at(cl, "tests.0.groups.0.slowest.client")) ==
	      1);
	CHECK(json_real_value(at(cl, "tests.0.groups.0.slowest.fair_share")) ==
	      2e6);
	CHECK(json_is_null(at(cl, "tests.0.groups.0.completion_s")));
	CHECK(json_real_value(at(cl, "tests.0.groups.0.start_spread_s")) ==
	      2e-4);
	CHECK_STR(json_string_value(at(cl, "tests.0.groups.1.status")),
		  "failed");
	CHECK_STR(json_string_value(at(cl, "tests.0.groups.1.error")),
		  "rank 2 -> 1: boom");
	CHECK(json_is_true(at(cl, "tests.0.groups.1.retried")));
	CHECK(json_is_null(at(cl, "tests.0.groups.1.aggregate")));
	CHECK(json_is_null(at(cl, "tests.0.groups.1.flows.0.figure")));
	CHECK_STR(json_string_value(at(cl, "tests.0.groups.2.status")),
		  "not run");
	CHECK(json_real_value(at(cl, "tests.0.fairness_median")) == 0.9);
	CHECK_STR(json_string_value(at(cl, "outliers.0.kind")), "receiver");
	CHECK_STR(json_string_value(at(cl, "outliers.0.quantity")),
		  "fairness");
	CHECK(json_real_value(at(cl, "outliers.0.figure")) == 0.5);
	CHECK(json_real_value(at(cl, "outliers.0.retest")) == 0.55);
	CHECK_STR(json_string_value(at(cl, "outliers.0.unit")), "");
	CHECK(json_array_size(at(cl, "sits_out")) == 0);
	json_decref(d);
}

int main(void)
{
	RUN(why_missing);
	RUN(once_per_pair_both_ways);
	RUN(json_document);
	RUN(pair_verdicts);
	RUN(group_json);
	return harness_done();
}
