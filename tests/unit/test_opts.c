// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of option parsing (core/opts.c): units, every option of the
 * table, loc/rem scope, obsolete spellings, every rejection with its exact
 * message, snapshots, client/server choice and long values.
 * test_opts_param.c has --loop plans, per-test parameters and help.
 */
#include "opts_util.h"

/* Parse argv given as a list (for empty or odd words). */
static int parse_v(int argc, char **argv, struct plan *p, char *err,
		   size_t errlen)
{
	return opts_parse(argc, argv, p, err, errlen);
}

static uint64_t size_of(const char *v)
{
	uint64_t x = 12345;
	char err[256];

	if (parse_size("-m", v, &x, err, sizeof(err)))
		return UINT64_MAX;
	return x;
}

static uint64_t time_of(const char *v)
{
	uint64_t x = 12345;
	char err[256];

	if (parse_time("-t", v, &x, err, sizeof(err)))
		return UINT64_MAX;
	return x;
}

TEST(parse_size_units)
{
	CHECK(size_of("0") == 0);
	CHECK(size_of("1") == 1);
	CHECK(size_of("1k") == 1000);
	CHECK(size_of("1K") == 1024);
	CHECK(size_of("1kb") == 1000);
	CHECK(size_of("1kib") == 1024);
	CHECK(size_of("1KiB") == 1024);
	CHECK(size_of("1m") == 1000000);
	CHECK(size_of("1mb") == 1000000);
	CHECK(size_of("1M") == 1048576);
	CHECK(size_of("2M") == 2097152);
	CHECK(size_of("1mib") == 1048576);
	CHECK(size_of("1MiB") == 1048576);
	CHECK(size_of("1g") == 1000000000);
	CHECK(size_of("1gb") == 1000000000);
	CHECK(size_of("1G") == 1073741824);
	CHECK(size_of("1gib") == 1073741824);
	CHECK(size_of("1GiB") == 1073741824);
	CHECK(size_of("3GiB") == 3221225472ULL);
	CHECK(size_of("1.5K") == 1536);
	CHECK(size_of("1.001k") == 1001);
	CHECK(size_of("1e3") == 1000);
	CHECK(size_of("0x10") == 16);
	CHECK(size_of("+5") == 5);
	CHECK(size_of("3.99") == 3);
	CHECK(size_of(".5K") == 512);
	CHECK(size_of("4294967295") == 4294967295ULL);
	CHECK(size_of("4G") == UINT64_MAX);
	CHECK(size_of("4294967296") == UINT64_MAX);
	CHECK(size_of("1x") == UINT64_MAX);
	CHECK(size_of("1KB") == UINT64_MAX);
	CHECK(size_of("1Kib") == UINT64_MAX);
	CHECK(size_of("1kB") == UINT64_MAX);
	CHECK(size_of("-1") == UINT64_MAX);
	CHECK(size_of("") == UINT64_MAX);
	CHECK(size_of(" 1") == UINT64_MAX);
	CHECK(size_of("1 ") == UINT64_MAX);
	CHECK(size_of("inf") == UINT64_MAX);
	CHECK(size_of("nan") == UINT64_MAX);
	CHECK(size_of("1e400") == UINT64_MAX);
	CHECK(size_of("K") == UINT64_MAX);
}

TEST(parse_size_messages)
{
	char err[256];
	uint64_t x;

	CHECK(parse_size("-m", "5G", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-m: 5G: too large; must be at most 4294967295");
	CHECK(parse_size("-m", "-1", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-m: -1: must not be negative");
	CHECK(parse_size("-m", "1x", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-m: 1x: bad size; use a number with an optional unit "
		       "k, kb, K, KiB, m, M, MiB, g, G or GiB");
}

TEST(parse_time_units)
{
	const uint64_t s = NS_PER_SEC;

	CHECK(time_of("1") == s);
	CHECK(time_of("1.5") == s + s / 2);
	CHECK(time_of("0.5") == 500000000);
	CHECK(time_of("0.5m") == 30 * s);
	CHECK(time_of("2s") == 2 * s);
	CHECK(time_of("2S") == 2 * s);
	CHECK(time_of("1M") == 60 * s);
	CHECK(time_of("2h") == 7200 * s);
	CHECK(time_of("2H") == 7200 * s);
	CHECK(time_of("0.01d") == 864 * s);
	CHECK(time_of("1D") == 86400 * s);
	CHECK(time_of("0.000000001") == 1);
	CHECK(time_of("4294967295") == 4294967295ULL * s);
	CHECK(time_of("4294967296") == UINT64_MAX);
	CHECK(time_of("1x") == UINT64_MAX);
	CHECK(time_of("1ms") == UINT64_MAX);
	CHECK(time_of("-1") == UINT64_MAX);
	CHECK(time_of("") == UINT64_MAX);
	CHECK(time_of("s") == UINT64_MAX);
}

TEST(parse_time_messages)
{
	char err[256];
	uint64_t x;

	CHECK(parse_time("-t", "1x", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-t: 1x: bad time; use seconds with an optional unit "
		       "s, m, h or d");
	CHECK(parse_time("-t", "-1", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-t: -1: must not be negative");
	CHECK(parse_time("-t", "5000000000", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-t: 5000000000: too large; must be at most 4294967295 "
		       "seconds");
}

TEST(parse_int_values)
{
	char err[256];
	uint64_t x = 0;

	CHECK(parse_int("-n", "0", &x, err, sizeof(err)) == 0 && x == 0);
	CHECK(parse_int("-n", "42", &x, err, sizeof(err)) == 0 && x == 42);
	CHECK(parse_int("-n", "+7", &x, err, sizeof(err)) == 0 && x == 7);
	CHECK(parse_int("-n", "4294967295", &x, err, sizeof(err)) == 0 &&
	      x == 4294967295ULL);
	CHECK(parse_int("-n", "4294967296", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-n: 4294967296: too large; must be at most 4294967295");
	CHECK(parse_int("-n", "99999999999999999999999", &x, err,
			sizeof(err)) == -1);
	CHECK(parse_int("-n", "-1", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-n: -1: must not be negative");
	CHECK(parse_int("-ca", "any", &x, err, sizeof(err)) == -1);
	CHECK_STR(err, "-ca: any: bad number; use a decimal integer");
	CHECK(parse_int("-n", "1.5", &x, err, sizeof(err)) == -1);
	CHECK(parse_int("-n", "", &x, err, sizeof(err)) == -1);
	CHECK(parse_int("-n", "12a", &x, err, sizeof(err)) == -1);
	CHECK(parse_int("-n", " 1", &x, err, sizeof(err)) == -1);
}

/* A valid value for an option, for the generated loop. */
static const char *sample_value(const struct opt_desc *o)
{
	switch (o->type) {
	case OT_SIZE:
		if (o->act == OA_MAX_MEMORY)
			return "64M";
		return o->par == PAR_MTU_SIZE ? "1024" : "64";
	case OT_TIME:
		return "1.5";
	case OT_RATE:
		return "200Mb";
	case OT_STR:
		return o->par == PAR_STATIC_RATE ? "4xQDR" : "mlx5_0:1";
	case OT_SL:
		return "3";
	case OT_SPECIAL:
		if (o->act == OA_LOOP)
			return "msg_size:1:4:*2";
		if (o->act == OA_PORT_FILE)
			return "/tmp/port";
		if (o->act == OA_ALLOW)
			return "10.0.0.0/8,fd00::/8";
		if (o->act == OA_LISTEN_HOST)
			return "127.0.0.1";
		if (o->act == OA_CLUSTER)
			return "ring";
		if (o->act == OA_RENDEZVOUS)
			return "node1:4000";
		if (o->act == OA_EXPECT)
			return "latency<=1s";
		if (o->act == OA_TOLERANCE)
			return "10%";
		if (o->act == OA_BASELINE || o->act == OA_COMPARE)
			return "a.json";
		if (o->act == OA_ARRIVALS)
			return "constant";
		if (o->act == OA_COMPLETION)
			return "bash";
		if (o->act == OA_EXPORTER)
			return ":0";
		if (o->act == OA_EXPORTER_ALLOW)
			return "tcp_bw,time";
		if (o->act == OA_LOAD)
			return "tcp_bw";
		if (o->act == OA_LOAD_DIR)
			return "out";
		if (o->act == OA_LOAD_RATE)
			return "1Gb";
		return "otherhost";
	default:
		/* 0 (any CPU) is the one -ca value every host accepts. */
		return o->par == PAR_AFFINITY ? "0" : "5";
	}
}

/* Every option, in both spellings, parses and lands where it should. */
TEST(every_option_parses)
{
	int checked = 0;

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];
		const struct opt_desc *r = o;

		if (o->obsolete_for)
			r = find_opt(o->obsolete_for);
		CHECK(r != NULL);
		if (!r)
			continue;
		for (int form = 0; form < 2; form++) {
			const char *spell = form ? o->abbr : o->name;
			char *argv[8];
			int argc = 0;
			struct plan p;
			char err[256];
			int rc;

			if (!spell)
				continue;
			bool exporter = r->act == OA_EXPORTER ||
					r->act == OA_EXPORTER_ALLOW ||
					r->act == OA_EXPORTER_MAX;

			argv[argc++] = "qperf";
			/* --cluster takes the host's place; --compare runs
			 * no test: its second file follows; the exporter
			 * runs none. */
			if (r->act != OA_CLUSTER && r->act != OA_COMPARE &&
			    !exporter)
				argv[argc++] = "h";
			if (exporter && r->act != OA_EXPORTER) {
				argv[argc++] = "--exporter";
				argv[argc++] = ":0";
			}
			argv[argc++] = (char *)spell;
			if (r->type != OT_SET1 && r->type != OT_FLAG &&
			    r->act != OA_HELP && r->act != OA_VERSION)
				argv[argc++] = (char *)sample_value(r);
			if (r->act == OA_PLOT) { /* a plot needs a --loop */
				argv[argc++] = "-oo";
				argv[argc++] = "msg_size:1:2:*2";
			}
			/* --load's companions need it */
			if (r->act == OA_LOAD_DIR || r->act == OA_LOAD_RATE ||
			    r->act == OA_NO_IDLE) {
				argv[argc++] = "--load";
				argv[argc++] = "tcp_bw";
			}
			/* --qps is refused on a test that runs one QP,
			 * --conns on one that runs one connection */
			if (!exporter)
				argv[argc++] = r->act == OA_COMPARE ? "b.json" :
					       r->par == PAR_QPS    ? "rc_bw" :
					       r->par == PAR_CONNS  ? "tcp_bw" :
								      "tcp_lat";
			argv[argc] = NULL;
			rc = parse_v(argc, argv, &p, err, sizeof(err));
			if (rc) {
				fprintf(stderr, "    %s: %s\n", spell, err);
				CHECK(rc == 0);
				continue;
			}
			checked++;
			if (exporter) {
				CHECK(p.mode == RUN_EXPORTER);
				CHECK_STR(p.exporter.listen, ":0");
				plan_free(&p);
				continue;
			}
			if (r->act == OA_HELP) {
				CHECK(p.mode == RUN_HELP);
				CHECK_STR(p.help_topic, "tcp_lat");
			} else if (r->act == OA_VERSION) {
				CHECK(p.mode == RUN_VERSION);
			} else if (r->act == OA_COMPARE) {
				CHECK(p.mode == RUN_COMPARE && p.ntests == 0);
				CHECK_STR(p.checks.compare[0], "a.json");
				CHECK_STR(p.checks.compare[1], "b.json");
			} else if (r->act == OA_COMPLETION) {
				CHECK(p.mode == RUN_COMPLETION);
				CHECK_STR(p.help_topic, "bash");
			} else if (r->act == OA_CLUSTER) {
				CHECK(p.mode == RUN_CLUSTER);
				CHECK(p.cluster.pattern.kind == SCHED_RING);
				CHECK(p.ntests == 1);
			} else {
				CHECK(p.mode == RUN_CLIENT);
				CHECK(p.ntests == 1);
			}
			if (r->par >= 0 && p.ntests == 1) {
				const struct par_set *ps = &p.tests[0].s.par;

				for (int side = 0; side < 2; side++)
					CHECK(ps->set[side][r->par] ==
					      !!(r->sides & (1u << side)));
			}
			if (r->act == OA_EXPECT)
				CHECK(p.checks.nexpect == 1 &&
				      p.checks.expect[0].fig == VF_LATENCY);
			if (r->act == OA_BASELINE)
				CHECK_STR(p.checks.baseline, "a.json");
			/* Server options on a client: "set but not used";
			 * --tolerance without --baseline, --arrivals
			 * without --rate, the reg_mr options on tcp_lat:
			 * not used. */
			CHECK(p.nwarn == (o->obsolete_for ? 1 : 0) +
						 (r->act == OA_TOLERANCE ||
						  r->act == OA_ARRIVALS ||
						  (r->act >= OA_HUGEPAGES &&
						   r->act <= OA_ODP) ||
						  r->act == OA_PORT_FILE ||
						  r->act == OA_RENDEZVOUS ||
						  r->act == OA_SEED ||
						  (r->act >= OA_LISTEN_HOST &&
						   r->act <= OA_MAX_SETUP)));
			plan_free(&p);
		}
	}
	CHECK(checked > 150);
}

/* The table is sane: unique names, obsolete targets exist. */
TEST(table_consistent)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];

		CHECK(o->name && o->name[0] == '-');
		if (o->obsolete_for) {
			const struct opt_desc *n = find_opt(o->obsolete_for);

			CHECK(n && !n->obsolete_for);
			continue;
		}
		CHECK(o->help && o->help[0]);
		for (size_t j = i + 1; j < opt_count; j++) {
			const struct opt_desc *q = &opt_table[j];

			CHECK(strcmp(o->name, q->name) != 0);
			CHECK(!o->abbr || strcmp(o->abbr, q->name) != 0);
			CHECK(!o->abbr || !q->abbr ||
			      strcmp(o->abbr, q->abbr) != 0);
		}
	}
}

/*
 * A parameter's range is its options' (opt_max()): every spelling that
 * takes a value has the same type and range, and the parameter table
 * reports it in the kind of that type.  On/off forms (-ar1) are 1..1.
 */
TEST(par_one_range)
{
	for (size_t r = 0; r < param_count; r++) {
		const struct par_row *row = &param_table[r];
		const struct opt_desc *first = NULL;
		/* --rate sets PAR_MSG_RATE too (a rate in msgs/s) */
		int par = row->par == PAR_MSG_RATE ? PAR_RATE : row->par;

		for (size_t i = 0; i < opt_count; i++) {
			const struct opt_desc *o = &opt_table[i];

			if (o->par != par || o->obsolete_for ||
			    o->type == OT_SET1)
				continue;
			if (!first)
				first = o;
			CHECK(o->type == first->type && o->min == first->min &&
			      o->max == first->max);
		}
		/* an on/off knob given by flags alone (--cq_per_qp) */
		for (size_t i = 0; !first && i < opt_count; i++)
			if (opt_table[i].par == par &&
			    opt_table[i].type == OT_SET1)
				first = &opt_table[i];
		CHECK(first != NULL);
		if (!first)
			continue;
		CHECK(opt_max(par) == first->max);
		CHECK(row->kind == (first->type == OT_SIZE   ? RPK_SIZE
				    : first->type == OT_TIME ? RPK_TIME
				    : first->type == OT_STR  ? RPK_STR
							     : RPK_COUNT));
	}
}

TEST(loc_rem_targets)
{
	struct plan p;
	char err[256];
	const struct par_set *ps;

	CHECK(parse("h -lsb 1K tcp_bw -rsb 2k tcp_bw -sb 3K tcp_bw "
		    "--loc_sock_buf_size 5 --rem_sock_buf_size 6 tcp_bw",
		    &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 4);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_SOCK_BUF_SIZE] == 1024);
	CHECK(ps->set[SIDE_LOC][PAR_SOCK_BUF_SIZE]);
	CHECK(!ps->set[SIDE_REM][PAR_SOCK_BUF_SIZE]);
	CHECK(ps->val[SIDE_REM][PAR_SOCK_BUF_SIZE] == 0);
	CHECK_STR(ps->spelling[SIDE_LOC][PAR_SOCK_BUF_SIZE], "-lsb");
	ps = &p.tests[1].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_SOCK_BUF_SIZE] == 1024);
	CHECK(ps->val[SIDE_REM][PAR_SOCK_BUF_SIZE] == 2000);
	CHECK_STR(ps->spelling[SIDE_REM][PAR_SOCK_BUF_SIZE], "-rsb");
	ps = &p.tests[2].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_SOCK_BUF_SIZE] == 3072);
	CHECK(ps->val[SIDE_REM][PAR_SOCK_BUF_SIZE] == 3072);
	CHECK_STR(ps->spelling[SIDE_LOC][PAR_SOCK_BUF_SIZE], "-sb");
	CHECK_STR(ps->spelling[SIDE_REM][PAR_SOCK_BUF_SIZE], "-sb");
	ps = &p.tests[3].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_SOCK_BUF_SIZE] == 5);
	CHECK(ps->val[SIDE_REM][PAR_SOCK_BUF_SIZE] == 6);
	plan_free(&p);

	CHECK(parse("h -li mlx5_0:1 -rsr 4xDDR -lto 7 -rto 0.5 rc_bw", &p, err,
		    sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK_STR(ps->str[SIDE_LOC][0], "mlx5_0:1");
	CHECK_STR(ps->str[SIDE_REM][0], "");
	CHECK_STR(ps->str[SIDE_REM][1], "4xDDR");
	CHECK(!ps->set[SIDE_LOC][PAR_STATIC_RATE]);
	CHECK(ps->val[SIDE_LOC][PAR_TIMEOUT] == 7 * NS_PER_SEC);
	CHECK(ps->val[SIDE_REM][PAR_TIMEOUT] == NS_PER_SEC / 2);
	CHECK(p.server_timeout == 7 * NS_PER_SEC);
	plan_free(&p);
}

TEST(set1_forms)
{
	struct plan p;
	char err[256];
	const struct par_set *ps;

	CHECK(parse("h -ar1 -f1 -cm1 -lcp1 tcp_bw -rcp1 tcp_bw -cp 0 -cp1 "
		    "tcp_bw",
		    &p, err, sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_ACCESS_RECV] == 1);
	CHECK(ps->val[SIDE_REM][PAR_ACCESS_RECV] == 1);
	CHECK(ps->val[SIDE_REM][PAR_FLIP] == 1);
	CHECK(ps->val[SIDE_REM][PAR_USE_CM] == 1);
	CHECK(ps->val[SIDE_LOC][PAR_POLL_MODE] == 1);
	CHECK(!ps->set[SIDE_REM][PAR_POLL_MODE]);
	CHECK_STR(ps->spelling[SIDE_LOC][PAR_ACCESS_RECV], "-ar1");
	ps = &p.tests[1].s.par;
	CHECK(ps->val[SIDE_REM][PAR_POLL_MODE] == 1);
	ps = &p.tests[2].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_POLL_MODE] == 1);
	CHECK(ps->val[SIDE_REM][PAR_POLL_MODE] == 1);
	CHECK_STR(ps->spelling[SIDE_REM][PAR_POLL_MODE], "-cp1");
	plan_free(&p);
}

TEST(obsolete_spellings)
{
	struct plan p;
	char err[256];

	CHECK(parse("h -a 2 --rate max -S 4K -lT 3 -u -vU -aro tcp_bw", &p,
		    err, sizeof(err)) == 0);
	CHECK(p.nwarn == 7);
	CHECK_STR(p.warn[0], "obsolete option: -a; use -ca instead");
	CHECK_STR(p.warn[1], "obsolete option: --rate; use --static_rate "
			     "instead");
	CHECK_STR(p.warn[2], "obsolete option: -S; use -sb instead");
	CHECK_STR(p.warn[3], "obsolete option: -lT; use -lto instead");
	CHECK_STR(p.warn[4], "obsolete option: -u; use -uu instead");
	CHECK_STR(p.warn[5], "obsolete option: -vU; use -vvu instead");
	CHECK_STR(p.warn[6], "obsolete option: -aro; use -ar1 instead");
	CHECK(p.tests[0].s.par.val[SIDE_REM][PAR_AFFINITY] == 2);
	CHECK_STR(p.tests[0].s.par.spelling[SIDE_REM][PAR_AFFINITY], "-a");
	CHECK(p.tests[0].s.par.val[SIDE_LOC][PAR_SOCK_BUF_SIZE] == 4096);
	CHECK(p.tests[0].s.par.val[SIDE_LOC][PAR_TIMEOUT] == 3 * NS_PER_SEC);
	CHECK(!p.tests[0].s.par.set[SIDE_REM][PAR_TIMEOUT]);
	CHECK(p.tests[0].s.out.unify_units);
	CHECK(p.tests[0].s.out.v_used == 2);
	CHECK(p.tests[0].s.par.val[SIDE_REM][PAR_ACCESS_RECV] == 1);
	plan_free(&p);

	/* -lT stays server-capable like -lto. */
	CHECK(parse("-lT 9", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_SERVER);
	CHECK(p.server_timeout == 9 * NS_PER_SEC);
	CHECK(p.nwarn == 1);
	plan_free(&p);
}

TEST(verbosity)
{
	struct plan p;
	char err[256];
	const struct out_opts *o;

	CHECK(parse("h -v tcp_lat -vv tcp_lat -vv -vs tcp_lat -vvt tcp_lat "
		    "-vc -vu -vt tcp_lat",
		    &p, err, sizeof(err)) == 0);
	o = &p.tests[0].s.out;
	CHECK(o->v_conf == 1 && o->v_stat == 1 && o->v_time == 1 &&
	      o->v_used == 1);
	o = &p.tests[1].s.out;
	CHECK(o->v_conf == 2 && o->v_stat == 2 && o->v_time == 2 &&
	      o->v_used == 2);
	o = &p.tests[2].s.out;
	CHECK(o->v_stat == 1 && o->v_time == 2);
	o = &p.tests[3].s.out;
	CHECK(o->v_time == 2);
	o = &p.tests[4].s.out;
	CHECK(o->v_conf == 1 && o->v_used == 1 && o->v_time == 1 &&
	      o->v_stat == 1);
	plan_free(&p);

	/* -v only raises: it does not lower a class that is at 2. */
	CHECK(parse("h -vvs -v tcp_lat", &p, err, sizeof(err)) == 0);
	o = &p.tests[0].s.out;
	CHECK(o->v_stat == 2 && o->v_conf == 1);
	plan_free(&p);

	CHECK(parse("h -vs tcp_lat", &p, err, sizeof(err)) == 0);
	o = &p.tests[0].s.out;
	CHECK(o->v_stat == 1 && o->v_conf == 0 && o->v_time == 0 &&
	      o->v_used == 0);
	plan_free(&p);
}

TEST(output_switches)
{
	struct plan p;
	char err[256];
	const struct out_opts *o;

	CHECK(parse("h tcp_lat -uu -ub -un -e 5 -D tcp_lat", &p, err,
		    sizeof(err)) == 0);
	o = &p.tests[0].s.out;
	CHECK(!o->unify_units && !o->bits && !o->unify_nodes && !o->debug);
	CHECK(o->precision == 3);
	o = &p.tests[1].s.out;
	CHECK(o->unify_units && o->bits && o->unify_nodes && o->debug);
	CHECK(o->precision == 5);
	CHECK(p.debug);
	plan_free(&p);
}

TEST(snapshots)
{
	struct plan p;
	char err[256];

	CHECK(parse("h tcp_lat -v udp_lat -uu", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_CLIENT);
	CHECK_STR(p.host, "h");
	CHECK(p.ntests == 2);
	CHECK_STR(p.tests[0].test->name, "tcp_lat");
	CHECK_STR(p.tests[1].test->name, "udp_lat");
	CHECK(p.tests[0].s.out.v_stat == 0);
	CHECK(p.tests[1].s.out.v_stat == 1);
	CHECK(!p.tests[1].s.out.unify_units);
	plan_free(&p);

	CHECK(parse("h -m 10 tcp_lat -m 20 tcp_lat -oo time:1:2:+1 tcp_lat",
		    &p, err, sizeof(err)) == 0);
	CHECK(p.tests[0].s.par.val[SIDE_REM][PAR_MSG_SIZE] == 10);
	CHECK(p.tests[1].s.par.val[SIDE_REM][PAR_MSG_SIZE] == 20);
	CHECK(p.tests[1].s.nloops == 0);
	CHECK(p.tests[2].s.nloops == 1);
	plan_free(&p);
}

TEST(mode_decision)
{
	struct plan p;
	char err[256];

	CHECK(parse("", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_SERVER);
	CHECK(p.listen_port == 19765);
	CHECK(p.wait_server == 5 * NS_PER_SEC);
	CHECK(p.server_timeout == 5 * NS_PER_SEC);
	CHECK(p.ntests == 0 && !p.host && !p.port_file && !p.debug);
	plan_free(&p);

	CHECK(parse("-D -lp 0 -lpf /tmp/pf -lto 2", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_SERVER);
	CHECK(p.listen_port == 0);
	CHECK_STR(p.port_file, "/tmp/pf");
	CHECK(p.debug);
	CHECK(p.server_timeout == 2 * NS_PER_SEC);
	plan_free(&p);

	CHECK(parse("--debug --listen_port 7000 --listen_port_file f "
		    "--loc_timeout 1",
		    &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_SERVER && p.listen_port == 7000);
	plan_free(&p);

	CHECK(parse("-lp 7000 h -ws 0.25 conf", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_CLIENT && p.listen_port == 7000);
	CHECK(p.wait_server == NS_PER_SEC / 4);
	plan_free(&p);

	CHECK(parse("-H h conf quit", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_CLIENT && p.ntests == 2);
	CHECK_STR(p.host, "h");
	plan_free(&p);

	/* After -H every word is a test, so "conf" is not the host. */
	CHECK(parse("conf -H h tcp_lat", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.host, "h");
	CHECK(p.ntests == 1);
	plan_free(&p);

	CHECK(parse("-ws 0 h conf", &p, err, sizeof(err)) == 0);
	CHECK(p.wait_server == 0);
	plan_free(&p);

	CHECK(parse("h -lpf /x conf", &p, err, sizeof(err)) == 0);
	CHECK(p.nwarn == 1);
	CHECK_STR(p.warn[0], "--listen_port_file set but not used by a client");
	plan_free(&p);

	REJECT("-t 5", "you used a client-only option but did not specify "
		       "the server name.\nDo you want to be a client or "
		       "server?");
	REJECT("-lp 1 -v", "you used a client-only option but did not specify "
			   "the server name.\nDo you want to be a client or "
			   "server?");
	REJECT("h", "must specify a test type; try: qperf --help");
	REJECT("h -t 1", "must specify a test type; try: qperf --help");
	REJECT("tcp_lat", "must specify host name first; try: qperf --help");
	REJECT("-lp 0 h conf", "-lp: 0: a client needs a port between 1 and "
			       "65535");
}

TEST(help_and_version)
{
	struct plan p;
	char err[256];

	CHECK(parse("-h", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_HELP);
	CHECK_STR(p.help_topic, "main");
	plan_free(&p);
	CHECK(parse("--help tests", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_HELP);
	CHECK_STR(p.help_topic, "tests");
	plan_free(&p);
	CHECK(parse("-h -v", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.help_topic, "main");
	plan_free(&p);
	/* Like 0.4.11, -h acts when it is reached: later words are ignored. */
	CHECK(parse("h -m 1 -h opts -x", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_HELP);
	CHECK_STR(p.help_topic, "opts");
	plan_free(&p);
	CHECK(parse("-V", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_VERSION);
	plan_free(&p);
	CHECK(parse("--version h", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_VERSION);
	plan_free(&p);
	/* An error before -h still counts. */
	REJECT("-x -h", "-x: bad option; try: qperf --help options");
}

TEST(rejections)
{
	REJECT("h -x tcp_lat", "-x: bad option; try: qperf --help options");
	REJECT("h --msg_size=5 tcp_lat",
	       "--msg_size=5: bad option; try: qperf --help options");
	REJECT("h - tcp_lat", "-: bad option; try: qperf --help options");
	REJECT("h foo", "foo: bad test; try: qperf --help tests");
	REJECT("h tcp_lat foo", "foo: bad test; try: qperf --help tests");
	REJECT("h tcp_lat -t", "missing argument to -t");
	REJECT("h tcp_lat -oo", "missing argument to -oo");
	REJECT("-lp", "missing argument to -lp");
	REJECT("h -m 5G tcp_bw", "-m: 5G: too large; must be at most "
				 "4294967295");
	REJECT("h -sb 4294967296 tcp_bw", "-sb: 4294967296: too large; must be "
					  "at most 4294967295");
	REJECT("h -rsb 8G tcp_bw", "-rsb: 8G: too large; must be at most "
				   "4294967295");
	REJECT("h -m abc tcp_bw", "-m: abc: bad size; use a number with an "
				  "optional unit k, kb, K, KiB, m, M, MiB, g, "
				  "G or GiB");
	REJECT("h -m 1KB tcp_bw", "-m: 1KB: bad size; use a number with an "
				  "optional unit k, kb, K, KiB, m, M, MiB, g, "
				  "G or GiB");
	REJECT("h -m -1 tcp_bw", "-m: -1: must not be negative");
	REJECT("h -m 0 tcp_bw", "-m: 0: must be greater than 0");
	REJECT("h -m 0.5 tcp_bw", "-m: 0.5: must be greater than 0");
	REJECT("h -n 0 tcp_bw", "-n: 0: must be greater than 0");
	REJECT("h -n 1x tcp_bw", "-n: 1x: bad number; use a decimal integer");
	REJECT("h -n -5 tcp_bw", "-n: -5: must not be negative");
	REJECT("h -n 4294967296 tcp_bw", "-n: 4294967296: too large; must be "
					 "at most 4294967295");
	/* -t 0 (run until interrupted): one test, no --loop, no --cluster,
	 * no -I into a --json document. */
	REJECT("h -t 0 tcp_bw tcp_lat", "-t: 0: runs one test until "
		"interrupted; name one test, without --loop");
	REJECT("h -t 0 conf tcp_bw", "-t: 0: runs one test until "
		"interrupted; name one test, without --loop");
	REJECT("h -t 0s -oo msg_size:1:4:*2 tcp_bw", "-t: 0: runs one test "
		"until interrupted; name one test, without --loop");
	REJECT("h -t 0 --json -I 1 tcp_bw", "-t: 0: with -I and --json "
		"would keep every interval in one document; use --json_stream");
	REJECT("--cluster ring -t 0 tcp_bw", "-t: 0: cannot run until "
		"interrupted in cluster mode; give a time");
	REJECT("h -t 1x tcp_bw", "-t: 1x: bad time; use seconds with an "
				 "optional unit s, m, h or d");
	REJECT("h -t -1 tcp_bw", "-t: -1: must not be negative");
	REJECT("h -t 4294967296 tcp_bw", "-t: 4294967296: too large; must be "
					 "at most 4294967295 seconds");
	REJECT("h -t 49711d tcp_bw", "-t: 49711d: too large; must be at most "
				     "4294967295 seconds");
	REJECT("h -to 0 tcp_bw", "-to: 0: must be greater than 0");
	REJECT("-lto 0", "-lto: 0: must be greater than 0");
	REJECT("h -rto 0 tcp_bw", "-rto: 0: must be greater than 0");
	REJECT("h -ws -1 tcp_bw", "-ws: -1: must not be negative");
	REJECT("h -lp 70000 tcp_bw", "-lp: 70000: port must be at most 65535");
	REJECT("-lp 65536", "-lp: 65536: port must be at most 65535");
	REJECT("h -ip 70000 tcp_bw", "-ip: 70000: port must be at most 65535");
	REJECT("h -lp x tcp_bw", "-lp: x: bad number; use a decimal integer");
	REJECT("h -ap 256 rc_bw", "-ap: 256: port must be at most 255");
	REJECT("h -sl 16 rc_bw", "-sl: 16: service level must be between 0 "
				 "and 15");
	REJECT("h -rsl 99 rc_bw", "-rsl: 99: service level must be between 0 "
				  "and 15");
	REJECT("h -mt 300 rc_bw", "-mt: 300: must be 256, 512, 1024, 2048 or "
				  "4096");
	REJECT("h -mt 128 rc_bw", "-mt: 128: must be 256, 512, 1024, 2048 or "
				  "4096");
	REJECT("h -mt 8K rc_bw", "-mt: 8K: must be 256, 512, 1024, 2048 or "
				 "4096");
	REJECT("h -sr 3x rc_bw", "-sr: 3x: bad static rate; try: qperf --help "
				 "options");
	REJECT("h -sr MAX rc_bw", "-sr: MAX: bad static rate; try: qperf "
				  "--help options");
	REJECT("h -e 21 tcp_lat", "-e: 21: too large; must be at most 20");
	REJECT("h -sp 128 rc_bw", "-sp: 128: too large; must be at most 127");
	REJECT("h -ca any tcp_lat", "-ca: any: bad number; use a decimal "
				    "integer");
	REJECT("h -i "
	       "0123456789012345678901234567890123456789012345678901234567890123"
	       " rc_bw",
	       "-i: 012345678901234567890123456789012345678901234567890123456789..."
	       ": too long; must be at most 63 characters");
	{
		char *argv[] = { "qperf", "-lpf", "", NULL };
		struct plan p;
		char err[256];

		CHECK(parse_v(3, argv, &p, err, sizeof(err)) == -1);
		CHECK_STR(err, "-lpf: empty file name");
	}
}

TEST(accepted_edges)
{
	struct plan p;
	char err[256];
	const struct par_set *ps;

	CHECK(parse("h -i 012345678901234567890123456789012345678901234567890"
		    "123456789012 -sr 2.5 -mt 4096 -sl 15 -sp 127 -e 20 -ip "
		    "65535 -lp 65535 -t 0.5 -n 1 -ap 255 rc_bw",
		    &p, err, sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(strlen(ps->str[SIDE_LOC][0]) == 63);
	CHECK_STR(ps->str[SIDE_REM][1], "2.5");
	CHECK(ps->val[SIDE_REM][PAR_MTU_SIZE] == 4096);
	CHECK(ps->val[SIDE_REM][PAR_TIME] == NS_PER_SEC / 2);
	CHECK(p.tests[0].s.out.precision == 20);
	CHECK(p.listen_port == 65535);
	plan_free(&p);

	{
		char *argv[] = { "qperf", "h", "-sr", "max", "-rsr", "",
				 "-m", "4294967295", "rc_bw", NULL };

		CHECK(parse_v(9, argv, &p, err, sizeof(err)) == 0);
		ps = &p.tests[0].s.par;
		CHECK(ps->val[SIDE_LOC][PAR_MSG_SIZE] == 4294967295ULL);
		CHECK_STR(ps->str[SIDE_LOC][1], "max");
		CHECK_STR(ps->str[SIDE_REM][1], "");
		plan_free(&p);
	}
	/* -t 0: both ends' time 0, a test run until interrupted; with -n
	 * a test by count; -I with --json_stream is fine. */
	CHECK(parse("h -t 0 -I 1 --json_stream rc_bw", &p, err,
		    sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_TIME] == 0 &&
	      ps->val[SIDE_REM][PAR_TIME] == 0);
	CHECK(param_forever(p.tests[0].test, ps));
	CHECK(param_plan_forever(&p));
	plan_free(&p);
	CHECK(parse("h -t 0 -n 5 tcp_bw tcp_lat", &p, err, sizeof(err)) == 0);
	CHECK(!param_forever(p.tests[0].test, &p.tests[0].s.par));
	CHECK(!param_plan_forever(&p));
	plan_free(&p);
	CHECK(parse("h -t 0 conf", &p, err, sizeof(err)) == 0);
	CHECK(!param_plan_forever(&p)); /* conf measures nothing */
	plan_free(&p);
	/* -e 0: whole numbers only (0.4.11 accepts it too). */
	CHECK(parse("h -e 0 tcp_lat", &p, err, sizeof(err)) == 0);
	CHECK(p.tests[0].s.out.precision == 0);
	plan_free(&p);
}

/* Long hostile values are clipped, never overflow the message. */
TEST(long_values_clipped)
{
	char big[5000], *argv[5];
	struct plan p;
	char err[128];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[0] = '-';
	argv[0] = "qperf";
	argv[1] = big;
	CHECK(parse_v(2, argv, &p, err, sizeof(err)) == -1);
	CHECK(strlen(err) < sizeof(err));
	CHECK(strstr(err, "...: bad option") != NULL);

	big[0] = 'x';
	argv[1] = "h";
	argv[2] = big;
	CHECK(parse_v(3, argv, &p, err, sizeof(err)) == -1);
	CHECK(strstr(err, "...: bad test") != NULL);

	argv[2] = "-m";
	argv[3] = big;
	argv[4] = "tcp_bw";
	CHECK(parse_v(5, argv, &p, err, sizeof(err)) == -1);
	CHECK(strncmp(err, "-m: xxxx", 8) == 0);

	argv[2] = "-oo";
	CHECK(parse_v(5, argv, &p, err, sizeof(err)) == -1);
	CHECK(strncmp(err, "-oo: ", 5) == 0);

	/* A tiny buffer is still terminated. */
	argv[2] = "-m";
	CHECK(parse_v(5, argv, &p, err, 8) == -1);
	CHECK(strlen(err) == 7);
	CHECK(parse_v(5, argv, &p, NULL, 0) == -1);
}

int main(void)
{
	RUN(parse_size_units);
	RUN(parse_size_messages);
	RUN(parse_time_units);
	RUN(parse_time_messages);
	RUN(parse_int_values);
	RUN(every_option_parses);
	RUN(table_consistent);
	RUN(par_one_range);
	RUN(loc_rem_targets);
	RUN(set1_forms);
	RUN(obsolete_spellings);
	RUN(verbosity);
	RUN(output_switches);
	RUN(snapshots);
	RUN(mode_decision);
	RUN(help_and_version);
	RUN(rejections);
	RUN(accepted_edges);
	RUN(long_values_clipped);
	return harness_done();
}
