// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of --loop plans (core/opts.c), per-test parameters
 * (core/param.c) and help (core/help.c): loop values and rejections,
 * parameter defaults, unused-parameter warnings, help topics, coverage of
 * the option table and line width.  test_opts.c has the option parsing.
 */
#include "opts_util.h"

TEST(loops)
{
	static const uint64_t pow4[] = { 1, 4, 16, 64, 256, 1024, 4096,
					 16384, 65536 };
	struct trace t;

	CHECK(run_loops("h -oo msg_size:1:64K:*4 tcp_lat", &t) == 0);
	CHECK(t.n == 9);
	for (int i = 0; i < 9 && i < t.n; i++)
		CHECK(t.v[i][0] == pow4[i]);

	CHECK(run_loops("h -oo time:1:2:+1 -oo msg_size:1:2:*2 tcp_lat", &t) ==
	      0);
	CHECK(t.n == 4);
	CHECK(t.v[0][1] == NS_PER_SEC && t.v[0][0] == 1);
	CHECK(t.v[1][1] == NS_PER_SEC && t.v[1][0] == 2);
	CHECK(t.v[2][1] == 2 * NS_PER_SEC && t.v[2][0] == 1);
	CHECK(t.v[3][1] == 2 * NS_PER_SEC && t.v[3][0] == 2);

	CHECK(run_loops("h -oo ::3K:*2K tcp_lat", &t) == 0);
	CHECK(t.n == 2 && t.v[0][0] == 1 && t.v[1][0] == 2048);

	CHECK(run_loops("h --loop msg_size:1:4 tcp_lat", &t) == 0);
	CHECK(t.n == 1 && t.v[0][0] == 1);

	CHECK(run_loops("h -oo msg_size:1 tcp_lat", &t) == 0);
	CHECK(t.n == 1 && t.v[0][0] == 1);

	CHECK(run_loops("h -oo m:10:30:+10 tcp_lat", &t) == 0);
	CHECK(t.n == 3 && t.v[2][0] == 30);

	/* +Incr without Init starts at 0, which a time loop rejects (-t 0
	 * runs until interrupted)... */
	REJECT("h -oo t::3:+1 tcp_lat",
	       "-oo: t::3:+1: time 0 runs until interrupted and cannot be "
	       "looped");
	/* ...but -sb takes 0. */
	CHECK(run_loops("h -oo rsb::2:+1 tcp_lat", &t) == 0);
	CHECK(t.n == 3);

	/* No loops: fn runs once. */
	CHECK(run_loops("h tcp_lat", &t) == 0);
	CHECK(t.n == 1);
}

TEST(loop_sets_like_typed)
{
	struct plan p;
	char err[256];
	struct trace t;
	const struct par_set *ps;

	/* A loop value counts as user-set, on the variable's sides. */
	CHECK(parse("h -oo lsb:1:1:+1 tcp_bw", &p, err, sizeof(err)) == 0);
	memset(&t, 0, sizeof(t));
	CHECK(p.tests[0].s.loops[0].opt == find_opt("-lsb"));
	plan_free(&p);

	{
		struct settings s;

		memset(&s, 0, sizeof(s));
		CHECK(opts_set_value(&s, find_opt("-lsb"), 4096, err,
				     sizeof(err)) == 0);
		ps = &s.par;
		CHECK(ps->val[SIDE_LOC][PAR_SOCK_BUF_SIZE] == 4096);
		CHECK(ps->set[SIDE_LOC][PAR_SOCK_BUF_SIZE]);
		CHECK(!ps->set[SIDE_REM][PAR_SOCK_BUF_SIZE]);
		/* Times are in ns, typed as seconds. */
		CHECK(opts_set_value(&s, find_opt("-t"), 3 * NS_PER_SEC, err,
				     sizeof(err)) == 0);
		CHECK(s.par.val[SIDE_REM][PAR_TIME] == 3 * NS_PER_SEC);
		CHECK(s.par.set[SIDE_REM][PAR_TIME]);
		CHECK(opts_set_value(&s, find_opt("-e"), 6, err,
				     sizeof(err)) == 0);
		CHECK(s.out.precision == 6);
		CHECK(opts_set_value(&s, find_opt("-m"), 5000000000ULL, err,
				     sizeof(err)) == -1);
		CHECK_STR(err, "--msg_size: 5000000000: too large; must be at "
			       "most 4294967295");
		CHECK(opts_set_value(&s, find_opt("-mt"), 768, err,
				     sizeof(err)) == -1);
		CHECK(opts_set_value(&s, find_opt("-sl"), 16, err,
				     sizeof(err)) == -1);
		CHECK(opts_set_value(&s, find_opt("-i"), 1, err,
				     sizeof(err)) == -1);
		CHECK(opts_set_value(&s, find_opt("-lp"), 1, err,
				     sizeof(err)) == -1);
	}
}

TEST(loop_rejections)
{
	REJECT("h -oo msg_size tcp_lat",
	       "-oo: msg_size: bad size; use a number with an optional unit k, "
	       "kb, K, KiB, m, M, MiB, g, G or GiB");
	REJECT("h -oo msg_size:1:4: tcp_lat",
	       "-oo: msg_size:1:4:: empty increment; increment must be "
	       "positive");
	REJECT("h --loop msg_size:1:4:+0 tcp_lat",
	       "--loop: msg_size:1:4:+0: increment must be positive");
	REJECT("h -oo msg_size:1:4:0 tcp_lat",
	       "-oo: msg_size:1:4:0: increment must be positive");
	REJECT("h -oo msg_size:1:4:* tcp_lat",
	       "-oo: msg_size:1:4:*: empty increment; increment must be "
	       "positive");
	REJECT("h -oo msg_size:1:4:*0 tcp_lat",
	       "-oo: msg_size:1:4:*0: increment must be positive");
	REJECT("h -oo msg_size:1:4:*1 tcp_lat",
	       "-oo: msg_size:1:4:*1: multiplying by 1 would loop forever");
	REJECT("h -oo rsb:0:4:*2 tcp_lat",
	       "-oo: rsb:0:4:*2: multiplying from 0 would loop forever");
	REJECT("h -oo msg_size:0.5:4:*2 tcp_lat",
	       "-oo: msg_size:0.5:4:*2: multiplying from 0 would loop forever");
	REJECT("h -oo msg_size:8:4:+1 tcp_lat",
	       "-oo: msg_size:8:4:+1: initial value greater than limit");
	REJECT("h -oo msg_size:1::+1 tcp_lat",
	       "-oo: msg_size:1::+1: must specify limit");
	REJECT("h -oo msg_size: tcp_lat", "-oo: msg_size:: empty increment; "
					  "increment must be positive");
	REJECT("h -oo msg_size:0:4:+1 tcp_lat",
	       "-oo: msg_size:0:4:+1: --msg_size: 0: must be greater than 0");
	REJECT("h -oo mt:256:4096:+256 rc_bw",
	       "-oo: mt:256:4096:+256: --mtu_size: 768: must be 256, 512, "
	       "1024, 2048 or 4096");
	REJECT("h -oo mt:256:8192:*2 rc_bw",
	       "-oo: mt:256:8192:*2: limit too large for --mtu_size; must be "
	       "at most 4096");
	REJECT("h -oo sl:1:20:+1 rc_bw",
	       "-oo: sl:1:20:+1: limit too large for --service_level; must be "
	       "at most 15");
	REJECT("h -oo msg_size:1:5G:*2 tcp_lat",
	       "-oo: 5G: too large; must be at most 4294967295");
	REJECT("h -oo foo:1:2:+1 tcp_lat", "-oo: foo: no such variable");
	REJECT("h -oo id:1:2:+1 rc_bw",
	       "-oo: id: cannot be looped; only numeric options can");
	REJECT("h -oo lp:1:2:+1 tcp_lat",
	       "-oo: lp: cannot be looped; only numeric options can");
	REJECT("h -oo ar1:1:2:+1 tcp_lat",
	       "-oo: ar1: cannot be looped; only numeric options can");
	REJECT("h -oo v:1:2:+1 tcp_lat",
	       "-oo: v: cannot be looped; only numeric options can");
	REJECT("h -oo msg_size:1:4:+x tcp_lat",
	       "-oo: +x: bad size; use a number with an optional unit k, kb, "
	       "K, KiB, m, M, MiB, g, G or GiB");
	REJECT("h -oo msg_size:1:4:2:3 tcp_lat",
	       "-oo: 2:3: bad size; use a number with an optional unit k, kb, "
	       "K, KiB, m, M, MiB, g, G or GiB");
	REJECT("h -oo m:1:2:+1 -oo m:1:2:+1 -oo m:1:2:+1 -oo m:1:2:+1 "
	       "-oo m:1:2:+1 -oo m:1:2:+1 -oo m:1:2:+1 -oo m:1:2:+1 "
	       "-oo m:1:2:+1 tcp_lat",
	       "-oo: m:1:2:+1: too many loops; at most 8");
}

/* loops_run stops instead of wrapping, even on a hand-built plan. */
TEST(loops_stop_on_overflow)
{
	struct settings s;
	struct trace t;
	char err[256];

	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	s.nloops = 1;
	s.loops[0].opt = find_opt("-sb");
	s.loops[0].init = 1ULL << 31;
	s.loops[0].last = UINT32_MAX;
	s.loops[0].incr = 1ULL << 31;
	s.loops[0].mult = false;
	CHECK(loops_run(&s, record, &t, err, sizeof(err)) == 0);
	CHECK(t.n == 1);

	/* A forged endless loop (increment 0) still ends. */
	s.loops[0].init = 1;
	s.loops[0].last = 10;
	s.loops[0].incr = 0;
	memset(&t, 0, sizeof(t));
	CHECK(loops_run(&s, record, &t, err, sizeof(err)) == 0);
	CHECK(t.n == 1);

	/* Time values whose ns would overflow are rejected, not wrapped. */
	s.loops[0].opt = find_opt("-t");
	s.loops[0].init = UINT64_MAX - 1;
	s.loops[0].last = UINT64_MAX;
	s.loops[0].incr = 1;
	CHECK(loops_run(&s, record, &t, err, sizeof(err)) == -1);
	CHECK_STR(err, "--time: 18446744073.709551614: too large; must be at "
		       "most 4294967295 seconds");
}

static int stop_at_two(const struct settings *s, void *arg)
{
	int *n = arg;

	(void)s;
	return ++*n == 2 ? 7 : 0;
}

TEST(loops_fn_stops)
{
	struct plan p;
	char err[256];
	int n = 0;

	CHECK(parse("h -oo msg_size:1:64K:*4 tcp_lat", &p, err, sizeof(err)) ==
	      0);
	CHECK(loops_run(&p.tests[0].s, stop_at_two, &n, err, sizeof(err)) == 7);
	CHECK(n == 2);
	plan_free(&p);
}

static const struct test_desc *T(const char *name)
{
	return test_find(name);
}

TEST(param_defaults)
{
	struct plan p;
	char err[256];
	struct par_set ps;

	CHECK(parse("h tcp_bw -n 100 tcp_lat -t 3 tcp_lat -m 7 rc_bw", &p,
		    err, sizeof(err)) == 0);
	ps = p.tests[0].s.par;
	param_prepare(T("tcp_bw"), &ps);
	for (int side = 0; side < 2; side++) {
		CHECK(ps.val[side][PAR_TIME] == 2 * NS_PER_SEC);
		CHECK(ps.val[side][PAR_TIMEOUT] == 5 * NS_PER_SEC);
		CHECK(ps.val[side][PAR_MSG_SIZE] == 65536);
		CHECK(ps.val[side][PAR_MTU_SIZE] == 0);
		CHECK(!ps.set[side][PAR_TIME] && !ps.set[side][PAR_MSG_SIZE]);
	}
	CHECK(ps.used[PAR_TIME] && ps.used[PAR_MSG_SIZE] &&
	      ps.used[PAR_ACCESS_RECV] && ps.used[PAR_AFFINITY]);
	CHECK(!ps.used[PAR_FLIP] && !ps.used[PAR_ALT_PORT]);

	/* The same settings prepared for another test get its defaults. */
	param_prepare(T("udp_lat"), &ps);
	CHECK(ps.val[SIDE_REM][PAR_MSG_SIZE] == 1);
	CHECK(!ps.used[PAR_ACCESS_RECV]);

	ps = p.tests[1].s.par;
	param_prepare(T("tcp_lat"), &ps);
	CHECK(ps.val[SIDE_LOC][PAR_TIME] == 0);
	CHECK(ps.val[SIDE_REM][PAR_TIME] == 0);
	CHECK(ps.val[SIDE_REM][PAR_NO_MSGS] == 100);
	CHECK(ps.val[SIDE_REM][PAR_MSG_SIZE] == 1);

	ps = p.tests[2].s.par;
	param_prepare(T("tcp_lat"), &ps);
	CHECK(ps.val[SIDE_LOC][PAR_TIME] == 3 * NS_PER_SEC);

	ps = p.tests[3].s.par;
	param_prepare(T("rc_bw"), &ps);
	CHECK(ps.val[SIDE_LOC][PAR_MSG_SIZE] == 7);
	CHECK(ps.set[SIDE_LOC][PAR_MSG_SIZE]);
	CHECK(ps.val[SIDE_LOC][PAR_MTU_SIZE] == 2048);
	CHECK(ps.val[SIDE_REM][PAR_MTU_SIZE] == 2048);
	CHECK(ps.used[PAR_MTU_SIZE] && ps.used[PAR_SL]);
	plan_free(&p);

	CHECK(parse("h -lto 9 -mt 4096 rc_lat", &p, err, sizeof(err)) == 0);
	ps = p.tests[0].s.par;
	param_prepare(T("rc_lat"), &ps);
	CHECK(ps.val[SIDE_LOC][PAR_TIMEOUT] == 9 * NS_PER_SEC);
	CHECK(ps.val[SIDE_REM][PAR_TIMEOUT] == 5 * NS_PER_SEC);
	CHECK(ps.val[SIDE_REM][PAR_MTU_SIZE] == 4096);
	plan_free(&p);

	/* Used marks are reset per test, unlike 0.4.11. */
	memset(&ps, 0, sizeof(ps));
	param_prepare(T("tcp_bw"), &ps);
	CHECK(ps.used[PAR_SOCK_BUF_SIZE]);
	param_prepare(T("conf"), &ps);
	CHECK(!ps.used[PAR_SOCK_BUF_SIZE] && !ps.used[PAR_TIME]);
	param_prepare(T("quit"), &ps);
	CHECK(ps.used[PAR_TIMEOUT] && !ps.used[PAR_TIME]);
}

/* The warnings of line's first test, as param_unused writes them. */
static int unused_of(const char *line, char *buf, size_t len)
{
	struct plan p;
	char err[256];
	struct par_set ps;
	int n;

	if (parse(line, &p, err, sizeof(err))) {
		snprintf(buf, len, "parse error: %s", err);
		return -1;
	}
	ps = p.tests[0].s.par;
	param_prepare(p.tests[0].test, &ps);
	n = param_unused(p.tests[0].test, &ps, buf, len);
	plan_free(&p);
	return n;
}

/* The mtu_size a test sends (SIDE_REM) after param_prepare. */
static uint64_t mtu_of(const char *line)
{
	struct plan p;
	char err[256];
	struct par_set ps;
	uint64_t v;

	if (parse(line, &p, err, sizeof(err)))
		return UINT64_MAX;
	ps = p.tests[0].s.par;
	param_prepare(p.tests[0].test, &ps);
	v = ps.val[SIDE_REM][PAR_MTU_SIZE];
	plan_free(&p);
	return v;
}

TEST(param_cm_mtu)
{
	/* 0.4.11 sends mtu_size 2048 without the CM and 0 with it. */
	CHECK(mtu_of("h rc_bw") == 2048);
	CHECK(mtu_of("h -cm1 rc_bw") == 0);
	CHECK(mtu_of("h -cm1 xrc_bw") == 2048);
}

TEST(param_unused_warnings)
{
	char buf[1024];

	CHECK(unused_of("h -f 1 -ap 2 -sl 3 tcp_lat", buf, sizeof(buf)) == 3);
	CHECK_STR(buf, "-ap set but not used in test tcp_lat\n"
		       "-f set but not used in test tcp_lat\n"
		       "-sl set but not used in test tcp_lat");

	CHECK(unused_of("h -t 1 -m 5 -sb 1K -ar1 tcp_bw", buf, sizeof(buf)) ==
	      0);
	CHECK_STR(buf, "");

	CHECK(unused_of("h -ar1 -f1 tcp_lat", buf, sizeof(buf)) == 2);
	CHECK_STR(buf, "-ar1 set but not used in test tcp_lat\n"
		       "-f1 set but not used in test tcp_lat");

	/* Two options on one parameter: one line each, loc first. */
	CHECK(unused_of("h -rsl 2 -lsl 1 tcp_lat", buf, sizeof(buf)) == 2);
	CHECK_STR(buf, "-lsl set but not used in test tcp_lat\n"
		       "-rsl set but not used in test tcp_lat");

	CHECK(unused_of("h --service_level 2 --flip 1 conf", buf,
			sizeof(buf)) == 2);
	CHECK_STR(buf, "--flip set but not used in test conf\n"
		       "--service_level set but not used in test conf");

	CHECK(unused_of("h -m 7 rc_compare_swap_mr", buf, sizeof(buf)) == 0 ||
	      strstr(buf, "-m set but not used") != NULL);

	/* -cp1 makes socket tests spin (transports/sock_io.c): it is used. */
	CHECK(unused_of("h -mt 1024 -i x:1 -cp1 tcp_bw", buf, sizeof(buf)) ==
	      2);
	CHECK_STR(buf, "-i set but not used in test tcp_bw\n"
		       "-mt set but not used in test tcp_bw");
	CHECK(unused_of("h -cp1 udp_lat", buf, sizeof(buf)) == 0);

	/* With -cm1 the CM chooses device and path, as in 0.4.11. */
	CHECK(unused_of("h -cm1 -mt 1024 -i x:1 -sl 2 rc_bw", buf,
			sizeof(buf)) == 3);
	CHECK_STR(buf, "-i set but not used in test rc_bw\n"
		       "-mt set but not used in test rc_bw\n"
		       "-sl set but not used in test rc_bw");
	CHECK(unused_of("h -mt 1024 -i x:1 rc_bw", buf, sizeof(buf)) == 0);
	CHECK(unused_of("h -cm1 ud_lat", buf, sizeof(buf)) == 0);
	CHECK(unused_of("h -cm1 xrc_lat", buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "-cm1 set but not used in test xrc_lat");

	/* Truncation is clean and the count is still complete. */
	CHECK(unused_of("h -f 1 -ap 2 -sl 3 tcp_lat", buf, 20) == 3);
	CHECK(strlen(buf) == 19);
	CHECK(unused_of("h -f 1 tcp_lat", NULL, 0) == 1);
}

TEST(help_topics)
{
	char err[256];
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	static const char *const topics[] = {
		"main", "categories", "examples", "opts", "options",
		"tests", "author", "bugs", "optnames", NULL
	};

	for (int i = 0; topics[i]; i++) {
		f = open_memstream(&out, &len);
		CHECK(help_print(f, topics[i], err, sizeof(err)) == 0);
		fclose(f);
		CHECK(len > 20);
		free(out);
	}
	f = open_memstream(&out, &len);
	CHECK(help_print(f, NULL, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(strstr(out, "Synopsis") != NULL);
	free(out);

	for (size_t i = 0; i < test_count; i++) {
		f = open_memstream(&out, &len);
		CHECK(help_print(f, test_table[i].name, err, sizeof(err)) == 0);
		fclose(f);
		CHECK(strncmp(out, "Purpose\n", 8) == 0);
		CHECK(strstr(out, "Description\n") != NULL);
		/* RDMA tests say whether this build can run them. */
		CHECK(!strstr(out, "Availability\n") == !test_table[i].missing);
		free(out);
	}
	f = open_memstream(&out, &len);
	CHECK(help_print(f, "tcp_bw", err, sizeof(err)) == 0);
	fclose(f);
	CHECK(strstr(out, "--msg_size Size (-m)") != NULL);
	CHECK(strstr(out, "--sock_buf_size Size (-sb)") != NULL);
	CHECK(strstr(out, "--id") == NULL);
	free(out);

	f = open_memstream(&out, &len);
	CHECK(help_print(f, "nosuch", err, sizeof(err)) == -1);
	fclose(f);
	CHECK(len == 0);
	free(out);
	CHECK_STR(err, "cannot find help category nosuch; try: qperf --help "
		       "categories");
}

/* Every name in the table is in --help options, opts and optnames. */
TEST(help_covers_table)
{
	static const char *const topics[] = { "options", "optnames" };
	char err[256];

	for (int k = 0; k < 2; k++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		CHECK(help_print(f, topics[k], err, sizeof(err)) == 0);
		fclose(f);
		for (size_t i = 0; i < opt_count; i++) {
			const struct opt_desc *o = &opt_table[i];
			char pat[64];

			snprintf(pat, sizeof(pat), "%s%s", o->name,
				 k ? "\n" : "");
			if (!strstr(out, pat)) {
				fprintf(stderr, "    %s: missing %s\n",
					topics[k], o->name);
				CHECK(0);
			}
			if (o->abbr) {
				snprintf(pat, sizeof(pat),
					 k ? "\n%s\n" : "(%s)", o->abbr);
				CHECK(strstr(out, pat) != NULL);
			}
		}
		free(out);
	}
}

/* Help lines fit in 80 columns. */
TEST(help_width)
{
	static const char *const topics[] = { "main", "opts", "options",
					      "tests", "examples",
					      "categories", "tcp_bw",
					      "rc_bw" };
	char err[256];

	for (size_t k = 0; k < sizeof(topics) / sizeof(topics[0]); k++) {
		char *out = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		CHECK(help_print(f, topics[k], err, sizeof(err)) == 0);
		fclose(f);
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (strlen(line) > 79) {
				fprintf(stderr, "    %s: long line: %s\n",
					topics[k], line);
				CHECK(0);
			}
		free(out);
	}
}

int main(void)
{
	RUN(loops);
	RUN(loop_sets_like_typed);
	RUN(loop_rejections);
	RUN(loops_stop_on_overflow);
	RUN(loops_fn_stops);
	RUN(param_defaults);
	RUN(param_unused_warnings);
	RUN(param_cm_mtu);
	RUN(help_topics);
	RUN(help_covers_table);
	RUN(help_width);
	return harness_done();
}
