// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the checks the option parser makes for the hardening work
 * (docs/bugs-found.md 15 and the server's options): values checked at
 * plan time (a message larger than the test's transport carries, -ca
 * beyond the local CPUs), --loop over times, and the server's limits.
 * The helpers are opts_util.h's.
 */
#include "lib/numa.h"
#include "opts_util.h"

/* Defect 8: values that can be checked locally are usage errors. */
TEST(local_checks_are_usage_errors)
{
	struct plan p;
	char err[256], line[128];
	int n = cpu_usable_count();

	/* Larger than a UDP datagram: refused at plan time, option named. */
	REJECT("h -m 70000 udp_lat",
	       "-m: 70000: larger than a udp_lat datagram can carry (65507 bytes)");
	REJECT("h -t 1 --msg_size 65508 udp_bw",
	       "--msg_size: 65508: larger than a udp_bw datagram can carry (65507 bytes)");
	REJECT("h -oo msg_size:1K:128K:*2 udp_bw",
	       "--loop: msg_size reaches 131072, larger than a udp_bw datagram can carry (65507 bytes)");
	CHECK(parse("h -m 65507 udp_lat -m 70000 tcp_lat", &p, err,
		    sizeof(err)) == 0);
	plan_free(&p);
	CHECK(parse("h -oo msg_size:1K:32K:*2 udp_bw", &p, err, sizeof(err)) ==
	      0);
	plan_free(&p);

	/* -ca beyond this host's CPUs; -rca is the server's to check. */
	CHECK(n > 0);
	snprintf(line, sizeof(line), "h -ca %d tcp_lat", n + 1);
	CHECK(parse(line, &p, err, sizeof(err)) == -1);
	CHECK(strncmp(err, "-ca: ", 5) == 0 &&
	      strstr(err, "this host has no usable CPU") != NULL);
	snprintf(line, sizeof(line), "h -lca %d tcp_lat", n + 1);
	CHECK(parse(line, &p, err, sizeof(err)) == -1);
	snprintf(line, sizeof(line), "h -rca %d tcp_lat", n + 1);
	CHECK(parse(line, &p, err, sizeof(err)) == 0);
	CHECK(p.tests[0].s.par.val[SIDE_REM][PAR_AFFINITY] == (uint64_t)n + 1);
	plan_free(&p);
	CHECK(parse("h -ca 1 tcp_lat", &p, err, sizeof(err)) == 0 ||
	      strstr(err, "no usable CPU 0") != NULL);
	plan_free(&p);
}

/* Defect 8: a --loop over a time takes fractions, exact to the ns. */
TEST(loop_over_time_fractions)
{
	struct trace t;

	CHECK(run_loops("h --loop time:0.2:1:+0.2 tcp_lat", &t) == 0);
	CHECK(t.n == 5);
	for (int i = 0; i < 5 && i < t.n; i++)
		CHECK(t.v[i][1] == (uint64_t)(i + 1) * 200000000ULL);
	/* 0.1 + 0.1 + 0.1 reaches 0.3 (doubles would stop at 0.2). */
	CHECK(run_loops("h -oo t:0.1:0.3:+0.1 tcp_lat", &t) == 0);
	CHECK(t.n == 3 && t.v[2][1] == 300000000ULL);
	/* Units and multiplying: *2 is a factor, not two seconds. */
	CHECK(run_loops("h -oo time:0.25:1s:*2 tcp_lat", &t) == 0);
	CHECK(t.n == 3 && t.v[0][1] == 250000000ULL &&
	      t.v[2][1] == NS_PER_SEC);
	CHECK(run_loops("h -oo time:30s:2m:+30s tcp_lat", &t) == 0);
	CHECK(t.n == 4 && t.v[3][1] == 120 * NS_PER_SEC);
	/* Whole seconds work as before. */
	CHECK(run_loops("h -oo time:1:3:+1 tcp_lat", &t) == 0);
	CHECK(t.n == 3 && t.v[2][1] == 3 * NS_PER_SEC);
	REJECT("h -oo time:0.2:1:+0.0000000001 tcp_lat",
	       "-oo: time:0.2:1:+0.0000000001: increment must be positive");
	REJECT("h -oo time:1:0.5:+0.1 tcp_lat",
	       "-oo: time:1:0.5:+0.1: initial value greater than limit");
}

/* The server's options: server mode, values, rejections. */
TEST(server_options)
{
	struct plan p;
	char err[256];

	CHECK(parse("-lp 0 -lh ::1 --allow 10.0.0.0/8,192.0.2.7 -al fd00::/8 "
		    "--no_quit --allow_low_ports --max_per_client 16 "
		    "--max_time 1h --max_msgs 1000 --max_memory 8G "
		    "--max_setup 2.5",
		    &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_SERVER);
	CHECK_STR(p.lim.listen_host, "::1");
	CHECK(p.lim.allow.n == 3);
	CHECK(p.lim.no_quit && p.lim.low_ports);
	CHECK(p.lim.max_per_client == 16);
	CHECK(p.lim.max_time == 3600 * NS_PER_SEC);
	CHECK(p.lim.max_msgs == 1000);
	CHECK(p.lim.max_memory == 8ULL << 30);
	CHECK(p.lim.max_setup == 2500000000ULL);
	plan_free(&p);

	CHECK(parse("-lp 0", &p, err, sizeof(err)) == 0);
	CHECK(p.lim.max_per_client == 4 && p.lim.max_time == 600 * NS_PER_SEC &&
	      p.lim.max_msgs == 100000000 && p.lim.max_memory == 0 &&
	      p.lim.max_setup == 10 * NS_PER_SEC && !p.lim.no_quit &&
	      !p.lim.low_ports && p.lim.allow.n == 0 && !p.lim.listen_host);
	plan_free(&p);

	REJECT("--allow 10.0.0.0/33", "--allow: 10.0.0.0/33: bad network "
	       "\"10.0.0.0/33\"; use ADDR or ADDR/BITS, e.g. 10.0.0.0/8 or "
	       "fd00::/8");
	REJECT("-al 10.0.0.0/8,,", "-al: 10.0.0.0/8,,: bad network \"\"; use "
	       "ADDR or ADDR/BITS, e.g. 10.0.0.0/8 or fd00::/8");
	REJECT("--max_per_client 17", "--max_per_client: 17: too large; must "
	       "be at most 16");
	REJECT("--max_per_client 0", "--max_per_client: 0: must be greater "
	       "than 0");
	REJECT("--max_memory 100K", "--max_memory: 100K: must be at least "
	       "1048576");
	/* in the unit users type (seconds), not ns (issue 17 item 16) */
	REJECT("--max_time 0.5", "--max_time: 0.5: must be at least "
	       "1 second");
	REJECT("--max_setup 0.0001", "--max_setup: 0.0001: must be at least "
	       "1 second");

	/* --secret_file keeps a server a server and serves a client too. */
	CHECK(parse("-lp 0 --secret_file /k", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_SERVER && !strcmp(p.secret_file, "/k"));
	plan_free(&p);
	CHECK(parse("h -sf /k tcp_lat", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_CLIENT && p.nwarn == 0 &&
	      !strcmp(p.secret_file, "/k"));
	plan_free(&p);

	/* On a client they only warn. */
	CHECK(parse("h --max_time 5 tcp_lat", &p, err, sizeof(err)) == 0);
	CHECK(p.mode == RUN_CLIENT && p.nwarn == 1);
	CHECK_STR(p.warn[0], "--max_time set but not used by a client");
	plan_free(&p);
}

int main(void)
{
	RUN(local_checks_are_usage_errors);
	RUN(loop_over_time_fractions);
	RUN(server_options);
	return harness_done();
}
