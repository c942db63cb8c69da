// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sweep plots (output/plot.h): the axis and tick math on known ranges (log
 * and linear), tick labels, XML escaping, --plot's checks, and an SVG
 * written through the API holding what it must (the p50..p99 band only
 * when the latency has percentiles).
 */
#include <math.h>
#include <stdint.h>

#include "core/opts.h"
#include "output/plot.h"
#include "lib/alloc.h"
#include "harness.h"
#include "transports/transport.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

TEST(lin_ticks_nice_steps)
{
	struct plot_axis a;

	plot_axis_lin(&a, 0, 5.7, 6); /* raw step 0.95: step 1 */
	CHECK(!a.log);
	CHECK(a.n == 7);
	CHECK(near(a.lo, 0) && near(a.hi, 6));
	for (int i = 0; i < a.n; i++)
		CHECK(near(a.ticks[i], i));
	plot_axis_lin(&a, 0, 1234, 6); /* raw 205.7: step 500 */
	CHECK(a.n == 4);
	CHECK(near(a.ticks[1], 500) && near(a.hi, 1500));
	plot_axis_lin(&a, 0, 0.031, 6); /* raw 0.00517: step 0.01 */
	CHECK(a.n == 5);
	CHECK(near(a.ticks[3], 0.03) && near(a.hi, 0.04));
	plot_axis_lin(&a, 3, 17, 7); /* raw 2: step 2, from 2 */
	CHECK(near(a.lo, 2) && near(a.hi, 18));
	CHECK(a.n == 9);
}

TEST(lin_degenerate_ranges)
{
	struct plot_axis a;

	plot_axis_lin(&a, 0, 0, 6); /* nothing measured: 0..1 */
	CHECK(near(a.lo, 0) && a.hi >= 1 && a.n >= 2);
	plot_axis_lin(&a, 5, 5, 6); /* one point */
	CHECK(a.lo <= 5 && a.hi >= 6);
	CHECK(a.n <= PLOT_TICKS_MAX);
}

TEST(log_ticks_base2_and_thinning)
{
	struct plot_axis a;

	plot_axis_log(&a, 1, 65536, 2, 10); /* 17 powers: every 2nd */
	CHECK(a.log && near(a.base, 2));
	CHECK(a.n == 9);
	CHECK(near(a.lo, 1) && near(a.hi, 65536));
	for (int i = 0; i < a.n; i++)
		CHECK(near(a.ticks[i], pow(4, i)));
	plot_axis_log(&a, 1, 8, 2, 10); /* few: every power */
	CHECK(a.n == 4 && near(a.ticks[3], 8));
	plot_axis_log(&a, 3, 100, 2, 10); /* widened to whole powers */
	CHECK(near(a.lo, 2) && near(a.hi, 128));
}

TEST(log_ticks_base10)
{
	struct plot_axis a;

	plot_axis_log(&a, 1, 1000, 10, 10);
	CHECK(a.n == 4);
	CHECK(near(a.ticks[0], 1) && near(a.ticks[3], 1000));
	plot_axis_log(&a, 0.5, 20, 10, 10);
	CHECK(near(a.lo, 0.1) && near(a.hi, 100));
	plot_axis_log(&a, 7, 7, 10, 10); /* one point: one decade */
	CHECK(near(a.lo, 1) && near(a.hi, 10));
	plot_axis_log(&a, 0, 50, 10, 10); /* lo <= 0: hi / base */
	CHECK(a.lo > 0 && a.lo <= 5);
}

TEST(axis_positions)
{
	struct plot_axis a;

	plot_axis_log(&a, 1, 1024, 2, 11);
	CHECK(near(plot_axis_pos(&a, 1), 0));
	CHECK(near(plot_axis_pos(&a, 32), 0.5));
	CHECK(near(plot_axis_pos(&a, 1024), 1));
	CHECK(near(plot_axis_pos(&a, 0), 0)); /* no log of 0 */
	CHECK(near(plot_axis_pos(&a, 1e9), 1)); /* clamped */
	plot_axis_lin(&a, 0, 10, 5);
	CHECK(near(plot_axis_pos(&a, 2.5), 0.25));
	CHECK(near(plot_axis_pos(&a, -1), 0));
	CHECK(near(plot_axis_pos(&a, NAN), 0));
}

TEST(tick_labels)
{
	static const struct {
		double v;
		bool k1024;
		const char *want;
	} cases[] = {
		{ 1024, true, "1K" },	   { 65536, true, "64K" },
		{ 4194304, true, "4M" },   { 512, true, "512" },
		{ 1536, true, "1.536k" }, /* not a multiple of 1024 */
		{ 2500, false, "2.5k" },   { 10e6, false, "10M" },
		{ 0.25, false, "0.25" },   { 0, false, "0" },
	};
	char b[32];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		plot_tick_label(b, sizeof(b), cases[i].v, cases[i].k1024);
		CHECK_STR(b, cases[i].want);
	}
}

TEST(xml_escape)
{
	char b[64];

	plot_xml_escape(b, sizeof(b), "a<b>&\"c'\x01z");
	CHECK_STR(b, "a&lt;b&gt;&amp;&quot;c&#39;z");
	plot_xml_escape(b, 8, "&&&&"); /* never a cut entity */
	CHECK_STR(b, "&amp;");
	plot_xml_escape(b, sizeof(b), "tcp_bw msg_size=1");
	CHECK_STR(b, "tcp_bw msg_size=1");
}

static const struct opt_desc *opt_named(const char *name)
{
	for (size_t i = 0; i < opt_count; i++)
		if (!strcmp(opt_table[i].name, name))
			return &opt_table[i];
	return NULL;
}

TEST(check_needs_loop)
{
	char err[256];

	CHECK(plot_check(test_find("tcp_bw"), 0, err, sizeof(err)) < 0);
	CHECK(strstr(err, "tcp_bw has no --loop") != NULL);
	CHECK(plot_check(test_find("conf"), 0, err, sizeof(err)) == 0);
	CHECK(plot_check(test_find("tcp_bw"), 1, err, sizeof(err)) == 0);
}

TEST(open_unwritable)
{
	char err[256];

	CHECK(plot_open("/nonexistent-dir/x.svg", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "--plot: /nonexistent-dir/x.svg: cannot write") !=
	      NULL);
}

/* Write a latency sweep through the API and read the file back. */
static size_t sweep(const char *path, bool pct, char *svg, size_t cap)
{
	struct plot *pl;
	struct settings s;
	struct loop_val lv[LOOP_MAX];
	struct results r;
	char err[256];
	FILE *f;
	size_t n;

	memset(&s, 0, sizeof(s));
	s.nloops = 1;
	s.loops[0].opt = opt_named("--msg_size");
	s.loops[0].init = 1;
	s.loops[0].last = 1024;
	s.loops[0].incr = 2;
	s.loops[0].mult = true;
	pl = plot_open(path, err, sizeof(err));
	if (!pl)
		return 0;
	for (uint64_t m = 1; m <= 1024; m *= 2) {
		memset(&r, 0, sizeof(r));
		s.par.val[SIDE_LOC][PAR_MSG_SIZE] = m;
		r.latency = 1e-6 * (double)(m + 10);
		r.lat.count = pct ? 1000 : 0;
		r.lat.p50 = r.latency * 0.9;
		r.lat.p99 = r.latency * 2;
		plot_add(pl, test_find("tcp_lat"), lv, loop_vals(&s, lv), &r);
		r.recv_bw = 1e6 * (double)m;
		plot_add(pl, test_find("tcp_bw"), lv, loop_vals(&s, lv), &r);
	}
	if (plot_finish(pl, false, err, sizeof(err)) < 0)
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(svg, 1, cap - 1, f);
	svg[n] = '\0';
	fclose(f);
	return n;
}

TEST(svg_content)
{
	static char svg[1 << 16];
	char path[] = "/tmp/qperf-plot-XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	CHECK(sweep(path, true, svg, sizeof(svg)) > 0);
	CHECK(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
	CHECK(strstr(svg, "latency (ms) against msg_size") != NULL);
	CHECK(strstr(svg, "bandwidth (GB/sec) against msg_size") != NULL);
	CHECK(strstr(svg, "msg_size (bytes, log scale)") != NULL);
	CHECK(strstr(svg, ">1K</text>") != NULL);
	CHECK(strstr(svg, "<polygon") != NULL); /* the p50..p99 band */
	CHECK(strstr(svg, "tcp_lat (p50, band to p99)") != NULL);
	CHECK(strstr(svg, "</svg>\n") != NULL);
	CHECK(sweep(path, false, svg, sizeof(svg)) > 0);
	CHECK(strstr(svg, "<polygon") == NULL); /* mean only */
	CHECK(strstr(svg, ">tcp_lat</text>") != NULL);
	unlink(path);
}

int main(void)
{
	RUN(lin_ticks_nice_steps);
	RUN(lin_degenerate_ranges);
	RUN(log_ticks_base2_and_thinning);
	RUN(log_ticks_base10);
	RUN(axis_positions);
	RUN(tick_labels);
	RUN(xml_escape);
	RUN(check_needs_loop);
	RUN(open_unwritable);
	RUN(svg_content);
	return harness_done();
}
