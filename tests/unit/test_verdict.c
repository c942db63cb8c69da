// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verdicts (lib/verdict.h, output/baseline.h): the --expect grammar (each
 * figure, each unit, bad expressions and their messages), evaluation
 * against a limit and a ceiling, the baseline's tolerance arithmetic,
 * --tolerance, the verdict line, and which baseline entries are the same
 * test.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "lib/verdict.h"
#include "output/baseline.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

/* Parse s; 0 or -1, e filled. */
static int parse(const char *s, struct vexpr *e)
{
	char err[256];

	return verdict_parse(s, e, err, sizeof(err));
}

TEST(parse_each_figure_and_unit)
{
	static const struct {
		const char *s;
		enum vfig fig;
		enum vop op;
		double limit;
		bool pct, bits;
	} ok[] = {
		{ "bw>=40Gb", VF_BW, VOP_GE, 5e9, false, true },
		{ "bw>=5GB", VF_BW, VOP_GE, 5e9, false, false },
		{ "send_bw>1.25GB/s", VF_SEND_BW, VOP_GT, 1.25e9, false, false },
		{ "recv_bw<100Mbps", VF_RECV_BW, VOP_LT, 12.5e6, false, true },
		{ "bw>=2KiB", VF_BW, VOP_GE, 2048, false, false },
		{ "bw>=1Tb/s", VF_BW, VOP_GE, 1.25e11, false, true },
		{ "bw>=90%", VF_BW, VOP_GE, 0.9, true, false },
		{ " bw >= 40 Gb ", VF_BW, VOP_GE, 5e9, false, true },
		{ "latency<=2us", VF_LATENCY, VOP_LE, 2e-6, false, false },
		{ "latency_p50<=500ns", VF_LAT_P50, VOP_LE, 5e-7, false, false },
		{ "latency_p90<1ms", VF_LAT_P90, VOP_LT, 1e-3, false, false },
		{ "latency_p99<=5us", VF_LAT_P99, VOP_LE, 5e-6, false, false },
		{ "latency_p999<=0.5s", VF_LAT_P999, VOP_LE, 0.5, false, false },
		{ "msg_rate>=10M", VF_MSG_RATE, VOP_GE, 1e7, false, false },
		{ "msg_rate>=2.5k/s", VF_MSG_RATE, VOP_GE, 2500, false, false },
		{ "msg_rate>1000", VF_MSG_RATE, VOP_GT, 1000, false, false },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct vexpr e;

		if (!CHECK(parse(ok[i].s, &e) == 0, "%s", ok[i].s))
			continue;
		CHECK(e.fig == ok[i].fig && e.op == ok[i].op, "%s", ok[i].s);
		CHECK(near(e.limit, ok[i].limit), "%s: %g", ok[i].s, e.limit);
		CHECK(e.pct == ok[i].pct && e.bits == ok[i].bits, "%s",
		      ok[i].s);
		CHECK_STR(e.text, ok[i].s);
	}
}

TEST(parse_bad_expressions_say_why)
{
	static const struct {
		const char *s, *says;
	} bad[] = {
		{ "", "expected FIGURE OP VALUE" },
		{ "bw", "no operator after \"bw\"" },
		{ ">=5GB", "no figure before >=" },
		{ "bw>=", "no value after >=" },
		{ "bw>=40", "no unit: a bandwidth needs a unit ending in B" },
		{ "bw>=40Gx", "unknown unit \"Gx\"" },
		{ "bw>=40GiGb", "unknown unit \"GiGb\"" },
		{ "latency<=2", "no unit: a latency needs a unit: ns, us, ms or s" },
		{ "latency<=2xs", "unknown unit \"xs\"" },
		{ "lat<=2us", "unknown figure \"lat\"; figures: bw send_bw" },
		{ "latency<=10%", "applies to bandwidths and msg_rate only, not to latency" },
		{ "bw>=0%", "above 0 and at most 1000" },
		{ "bw>=-5GB", "plain positive number" },
		{ "bw>=abcGB", "\"abcGB\" is not a number" },
		{ "bw>=infGB", "is not a number" },
		{ "msg_rate>=10Mi", "unknown unit \"Mi\"" },
		{ "bw=>5GB", "no operator" },
		{ "bw>=1GB and this expression goes on and on, far too long for a limit",
		  "too long" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vexpr e;
		char err[256] = "";

		CHECK(verdict_parse(bad[i].s, &e, err, sizeof(err)) == -1,
		      "accepted \"%s\"", bad[i].s);
		CHECK(strstr(err, bad[i].says) != NULL, "\"%s\": %s", bad[i].s,
		      err);
	}
}

TEST(eval_limits)
{
	struct vexpr e;
	struct vcheck c;

	parse("bw>=40Gb", &e);
	verdict_eval(&e, true, 6e9, NULL, &c);
	CHECK(c.pass && c.have_limit && near(c.limit, 5e9));
	CHECK_STR(c.reason, "bw 48 Gb/s >= 40 Gb/s");
	verdict_eval(&e, true, 4e9, NULL, &c);
	CHECK(!c.pass);
	CHECK_STR(c.reason, "bw 32 Gb/s < 40 Gb/s");
	parse("latency<=2us", &e);
	verdict_eval(&e, true, 2e-6, NULL, &c);
	CHECK(c.pass); /* the bound itself passes <= */
	verdict_eval(&e, true, 12.3e-6, NULL, &c);
	CHECK(!c.pass);
	CHECK_STR(c.reason, "latency 12.3 us > 2 us");
	parse("latency<2us", &e);
	verdict_eval(&e, true, 2e-6, NULL, &c);
	CHECK(!c.pass);
	CHECK_STR(c.reason, "latency 2 us >= 2 us");
	parse("msg_rate>10M", &e);
	verdict_eval(&e, true, 1e7, NULL, &c);
	CHECK(!c.pass);
	CHECK_STR(c.reason, "msg_rate 10 M/s <= 10 M/s");
	parse("latency_p99<=5us", &e);
	verdict_eval(&e, false, 0, NULL, &c);
	CHECK(!c.pass && !c.have_value);
	CHECK(strstr(c.reason, "latency_p99 was not measured") == c.reason,
	      "%s", c.reason);
}

TEST(eval_percent_of_the_ceiling)
{
	struct ceiling ceil = { .valid = true, .bps = 50e9 };
	struct ceiling none = { .valid = false };
	struct ceiling why = { .valid = false };
	struct vexpr e;
	struct vcheck c;

	strcpy(ceil.what, "PCIe x8");
	strcpy(why.what, "loopback has no link speed");
	parse("bw>=90%", &e);
	verdict_eval(&e, true, 31.2e9, &ceil, &c);
	CHECK(!c.pass && near(c.limit, 45e9));
	CHECK_STR(c.reason, "bw 31.2 GB/s < 90% of 50 GB/s (PCIe x8)");
	verdict_eval(&e, true, 46e9, &ceil, &c);
	CHECK(c.pass);
	verdict_eval(&e, true, 46e9, &none, &c);
	CHECK(!c.pass && !c.have_limit);
	CHECK_STR(c.reason, "bw>=90%: no ceiling known for this path");
	verdict_eval(&e, true, 46e9, NULL, &c);
	CHECK(!c.pass);
	verdict_eval(&e, true, 46e9, &why, &c);
	CHECK_STR(c.reason,
		  "bw>=90%: no ceiling known: loopback has no link speed");
	/* msg_rate against the message-rate ceiling of the same limit */
	ceil.msg_rate = 277.78e6;
	parse("msg_rate>=50%", &e);
	verdict_eval(&e, true, 100e6, &ceil, &c);
	CHECK(!c.pass && near(c.limit, 138.89e6));
	CHECK_STR(c.reason, "msg_rate 100 M/s < 50% of 278 M/s (PCIe x8)");
	verdict_eval(&e, true, 200e6, &ceil, &c);
	CHECK(c.pass);
	ceil.msg_rate = 0;
	ceil.stream = true;
	verdict_eval(&e, true, 200e6, &ceil, &c);
	CHECK(!c.pass && !c.have_limit);
	CHECK_STR(c.reason,
		  "msg_rate>=50%: no message-rate ceiling: a stream's writes are not packets");
	verdict_eval(&e, true, 200e6, &why, &c);
	CHECK_STR(c.reason,
		  "msg_rate>=50%: no ceiling known: loopback has no link speed");
}

TEST(baseline_tolerance)
{
	struct vcheck c;

	verdict_baseline(VF_BW, 9.1e9, 10.3e9, 0.05, false, &c);
	CHECK(!c.pass && c.baseline && near(c.base, 10.3e9));
	CHECK(near(c.limit, 10.3e9 * 0.95));
	CHECK_STR(c.reason,
		  "bw 9.1 GB/s is 11.7% below the baseline's 10.3 GB/s (tolerance 5%)");
	verdict_baseline(VF_BW, 10e9, 10.3e9, 0.05, false, &c);
	CHECK(c.pass); /* 2.9% below */
	verdict_baseline(VF_BW, 12e9, 10e9, 0.05, false, &c);
	CHECK(c.pass);
	CHECK_STR(c.reason,
		  "bw 12 GB/s is 20.0% above the baseline's 10 GB/s (tolerance 5%)");
	/* Latency: higher is worse. */
	verdict_baseline(VF_LATENCY, 2.6e-6, 2e-6, 0.05, false, &c);
	CHECK(!c.pass && c.op == VOP_LE);
	CHECK_STR(c.reason,
		  "latency 2.6 us is 30.0% above the baseline's 2 us (tolerance 5%)");
	verdict_baseline(VF_LATENCY, 1.5e-6, 2e-6, 0.05, false, &c);
	CHECK(c.pass);
	verdict_baseline(VF_MSG_RATE, 1e6, 0, 0.05, false, &c);
	CHECK(c.pass && !c.have_limit);
	CHECK(near(verdict_regression(VK_BAND, 10, 9), 0.1));
	CHECK(near(verdict_regression(VK_TIME, 10, 12), 0.2));
	CHECK(verdict_regression(VK_RATE, 0, 12) == 0);
}

TEST(tolerance_option)
{
	double f = -1;
	char err[128];

	CHECK(verdict_tolerance("5", &f, err, sizeof(err)) == 0 &&
	      near(f, 0.05));
	CHECK(verdict_tolerance("12.5%", &f, err, sizeof(err)) == 0 &&
	      near(f, 0.125));
	CHECK(verdict_tolerance("0", &f, err, sizeof(err)) == 0 && f == 0);
	CHECK(verdict_tolerance("-1", &f, err, sizeof(err)) == -1);
	CHECK(verdict_tolerance("5x", &f, err, sizeof(err)) == -1);
	CHECK(strstr(err, "expected a percentage") != NULL, "%s", err);
	CHECK(verdict_tolerance("2000", &f, err, sizeof(err)) == -1);
	CHECK(verdict_tolerance("", &f, err, sizeof(err)) == -1);
}

TEST(verdict_line_and_format)
{
	struct verdict v = { 0 };
	struct vexpr e;
	char line[512], b[32];

	parse("bw>=10TB", &e);
	verdict_eval(&e, true, 1.5e9, NULL, &v.c[v.n++]);
	parse("msg_rate>=1", &e);
	verdict_eval(&e, true, 2e5, NULL, &v.c[v.n++]);
	verdict_settle(&v);
	CHECK(!v.pass);
	CHECK_STR(verdict_line(&v, line, sizeof(line)),
		  "fail: bw 1.5 GB/s < 10 TB/s");
	parse("latency<=1ns", &e);
	verdict_eval(&e, true, 3e-6, NULL, &v.c[v.n++]);
	verdict_settle(&v);
	CHECK_STR(verdict_line(&v, line, sizeof(line)),
		  "fail: bw 1.5 GB/s < 10 TB/s; latency 3 us > 1 ns");
	v.n = 1;
	v.c[1].pass = true;
	v.c[0].pass = true;
	verdict_settle(&v);
	CHECK(v.pass);
	CHECK_STR(verdict_line(&v, line, sizeof(line)), "pass");
	v.n = 0;
	verdict_settle(&v);
	CHECK(v.pass); /* no check (a baseline with no match) */
	CHECK_STR(verdict_format(b, sizeof(b), VK_TIME, 1.5, false), "1.5 s");
	CHECK_STR(verdict_format(b, sizeof(b), VK_BAND, 999, false), "999 B/s");
	CHECK_STR(verdict_format(b, sizeof(b), VK_RATE, 2.5e3, false),
		  "2.5 k/s");
	CHECK_STR(verdict_fig_name(VF_LAT_P999), "latency_p999");
	CHECK(verdict_fig_name(VF_COUNT) == NULL);
}

/* A test entry of a --json document. */
static json_t *entry(const char *test, long msg, double time_s, int streams)
{
	json_t *e = json_pack("{s:s, s:[{s:s, s:I, s:s}], s:{s:{s:I, s:f, s:i},"
			      " s:{s:I, s:f, s:i}}, s:{s:s, s:f}}",
			      "test", test, "loop", "variable", "msg_size",
			      "value", (json_int_t)msg, "unit", "B", "params",
			      "loc", "msg_size_B", (json_int_t)msg, "time_s",
			      time_s, "streams", streams, "rem", "msg_size_B",
			      (json_int_t)msg, "time_s", time_s, "streams",
			      streams, "results", "measure", "bandwidth",
			      "recv_bw_Bps", 1e9);

	return e;
}

TEST(baseline_same_test)
{
	json_t *a = entry("tcp_bw", 1000, 2.0, 1);
	json_t *b = entry("tcp_bw", 1000, 0.2, 1); /* only -t differs */
	json_t *c = entry("tcp_bw", 2000, 2.0, 1);
	json_t *d = entry("tcp_bw", 1000, 2.0, 2);
	json_t *e = entry("udp_bw", 1000, 2.0, 1);
	enum vfig f[2];
	double v = 0;
	char buf[64];

	CHECK(a && b && c && d && e);
	CHECK(baseline_same(a, b));
	CHECK(!baseline_same(a, c)); /* loop value and msg_size */
	CHECK(!baseline_same(a, d)); /* streams */
	CHECK(!baseline_same(a, e)); /* test */
	/* schema_version 1 had src_path_bits_B beside src_path_bits: still
	 * the same; any other extra parameter is not */
	json_object_set_new(json_object_get(json_object_get(b, "params"), "loc"),
			    "src_path_bits_B", json_integer(0));
	CHECK(baseline_same(a, b));
	json_object_set_new(json_object_get(json_object_get(b, "params"), "loc"),
			    "sl", json_integer(0));
	CHECK(!baseline_same(a, b));
	CHECK(baseline_value(a, VF_BW, &v) && v == 1e9);
	CHECK(!baseline_value(a, VF_LATENCY, &v));
	CHECK(baseline_figs("bandwidth", f) == 1 && f[0] == VF_BW);
	CHECK(baseline_figs("bandwidth_send_recv", f) == 2 &&
	      f[0] == VF_SEND_BW && f[1] == VF_RECV_BW);
	CHECK(baseline_figs("latency", f) == 1 && f[0] == VF_LATENCY);
	CHECK(baseline_figs("none", f) == 0);
	CHECK_STR(baseline_describe(c, buf, sizeof(buf)),
		  "tcp_bw msg_size=2000");
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
	json_decref(e);
}

int main(void)
{
	RUN(parse_each_figure_and_unit);
	RUN(parse_bad_expressions_say_why);
	RUN(eval_limits);
	RUN(eval_percent_of_the_ceiling);
	RUN(baseline_tolerance);
	RUN(tolerance_option);
	RUN(verdict_line_and_format);
	RUN(baseline_same_test);
	return harness_done();
}
