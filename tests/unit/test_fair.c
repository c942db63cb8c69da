// SPDX-License-Identifier: GPL-2.0-only
/*
 * --clients: Jain's fairness index and the summary of K clients' figures
 * (lib/fair.c), and their text and JSON (output/report_clients.c,
 * output/json_clients.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "lib/fair.h"
#include "output/json.h"
#include "output/report.h"
#include "output/sink.h"
#include "harness.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}
#define NEAR(a, b) near((a), (b))

TEST(jain)
{
	double eq[4] = { 5, 5, 5, 5 }, one[4] = { 8, 0, 0, 0 };
	double two[2] = { 1, 3 }, zero[3] = { 0, 0, 0 };

	CHECK(NEAR(fair_jain(eq, 4), 1));
	CHECK(NEAR(fair_jain(one, 4), 0.25)); /* 1/K */
	CHECK(NEAR(fair_jain(two, 2), 16.0 / 20)); /* 16 / (2 * 10) */
	CHECK(fair_jain(zero, 3) == 0);
	CHECK(fair_jain(eq, 0) == 0);
	CHECK(NEAR(fair_jain(eq, 1), 1));
}

TEST(bandwidth)
{
	double x[4] = { 100, 300, 200, 400 };
	struct fair_sum f;

	fair_summarize(x, 4, false, &f);
	CHECK(f.n == 4 && !f.lower_better);
	CHECK(NEAR(f.sum, 1000) && NEAR(f.aggregate, 1000));
	CHECK(NEAR(f.mean, 250) && NEAR(f.share, 250));
	CHECK(f.min == 100 && f.max == 400);
	CHECK(f.slowest == 0, "slowest %zu", f.slowest);
	CHECK(NEAR(f.ratio, 0.4));
	CHECK(NEAR(f.jain, 1000.0 * 1000 / (4 * 300000.0)));
	CHECK(f.jain > 0 && f.jain <= 1);
}

TEST(latency)
{
	double x[3] = { 20e-6, 60e-6, 40e-6 };
	struct fair_sum f;

	fair_summarize(x, 3, true, &f);
	CHECK(f.lower_better);
	CHECK(NEAR(f.aggregate, 40e-6) && NEAR(f.mean, 40e-6));
	CHECK(NEAR(f.max, 60e-6) && NEAR(f.sum, 120e-6));
	CHECK(f.slowest == 1);
	CHECK(NEAR(f.ratio, 1.5));
}

TEST(ties_and_one)
{
	double eq[3] = { 7, 7, 7 }, one[1] = { 42 };
	struct fair_sum f;

	fair_summarize(eq, 3, false, &f);
	CHECK(f.slowest == 0 && NEAR(f.ratio, 1) && NEAR(f.jain, 1));
	fair_summarize(one, 1, false, &f);
	CHECK(f.slowest == 0 && NEAR(f.aggregate, 42) && NEAR(f.jain, 1));
	fair_summarize(one, 0, false, &f);
	CHECK(f.n == 0 && f.jain == 0 && f.ratio == 0);
}

/* Two clients of tcp_bw, or one failed: the text table and the JSON. */
static void two_clients(struct client_res c[2], struct fair_sum *f)
{
	double x[2] = { 1e9, 3e9 };

	memset(c, 0, 2 * sizeof(*c));
	for (int i = 0; i < 2; i++) {
		c[i].ok = true;
		c[i].fig = c[i].r.recv_bw = c[i].r.send_bw = x[i];
		c[i].start = (uint64_t)i * 1000;
	}
	fair_summarize(x, 2, false, f);
}

TEST(text)
{
	const struct test_desc *t = test_find("tcp_bw");
	struct out_opts o = { .precision = 3 };
	struct client_res c[2];
	struct fair_sum f;
	struct out_clients oc = { c, 2, &f, 1000 };
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	two_clients(c, &f);
	report_clients(m, t, &o, &oc);
	fclose(m);
	CHECK(strstr(out, "client1_bw    =  1 GB/sec") != NULL, "%s", out);
	CHECK(strstr(out, "client2_bw    =  3 GB/sec") != NULL, "%s", out);
	CHECK(strstr(out, "aggregate_bw  =  4 GB/sec") != NULL, "%s", out);
	CHECK(strstr(out, "fairness      =  0.800 (Jain's index)") != NULL,
	      "%s", out);
	CHECK(strstr(out, "slowest       =  client1 at 0.500 of the fair share") != NULL,
	      "%s", out);
	free(out);
	/* a failed client: its line says so, no summary */
	c[1].ok = false;
	oc.sum = NULL;
	out = NULL;
	m = open_memstream(&out, &len);
	report_clients(m, t, &o, &oc);
	fclose(m);
	CHECK(strstr(out, "client2_bw  =  failed") != NULL, "%s", out);
	CHECK(strstr(out, "aggregate") == NULL, "%s", out);
	free(out);
}

TEST(json)
{
	const struct test_desc *t = test_find("tcp_bw");
	struct client_res c[2];
	struct fair_sum f;
	struct out_clients oc = { c, 2, &f, 1000 };
	json_t *o, *pc;

	two_clients(c, &f);
	o = json_clients(t, &oc);
	CHECK(json_integer_value(json_object_get(o, "count")) == 2);
	CHECK_STR(json_string_value(json_object_get(o, "figure")),
		  "recv_bw_Bps");
	pc = json_object_get(o, "per_client");
	CHECK(json_array_size(pc) == 2);
	CHECK(NEAR(json_real_value(json_object_get(json_array_get(pc, 1),
						   "figure")), 3e9));
	CHECK(NEAR(json_real_value(json_object_get(
			   json_object_get(o, "aggregate"), "value")), 4e9));
	CHECK(NEAR(json_real_value(json_object_get(o, "fairness")), 0.8));
	CHECK(json_integer_value(json_object_get(
		      json_object_get(o, "slowest"), "client")) == 1);
	CHECK(NEAR(json_real_value(json_object_get(o, "start_spread_s")),
		   1e-6));
	json_decref(o);
	/* a failed client: its error, and null summaries */
	c[0].ok = false;
	strcpy(c[0].err, "tcp_bw: server busy");
	oc.sum = NULL;
	o = json_clients(t, &oc);
	pc = json_array_get(json_object_get(o, "per_client"), 0);
	CHECK_STR(json_string_value(json_object_get(pc, "status")), "failed");
	CHECK_STR(json_string_value(json_object_get(pc, "error")),
		  "tcp_bw: server busy");
	CHECK(json_is_null(json_object_get(o, "fairness")));
	CHECK(json_is_null(json_object_get(o, "aggregate")));
	json_decref(o);
}

int main(void)
{
	RUN(jain);
	RUN(bandwidth);
	RUN(latency);
	RUN(ties_and_one);
	RUN(text);
	RUN(json);
	return harness_done();
}
