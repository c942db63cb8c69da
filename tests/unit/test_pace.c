// SPDX-License-Identifier: GPL-2.0-only
/*
 * --rate: the pacer (lib/pace.c: schedule, bounded burst, spread), the
 * rate parser (core/param.c parse_rate), the option (core/opts.c: both
 * kinds, 0.4.11's --rate as --static_rate, loops over the rate) and the
 * result (output/report_pace.c calc_pace and its warning).
 */
#include "core/param.h"
#include "lib/pace.h"
#include "output/report.h"
#include "opts_util.h"

#define MS 1000000ULL

TEST(schedule)
{
	struct pace p;
	uint64_t t0 = 5 * NS_PER_SEC, sent = 0;

	/* 1000 messages/s of cost 1: one due every ms. */
	pace_init(&p, 1000, 1, t0);
	CHECK(pace_allow(&p, 1, 16, t0) == 1);
	pace_take(&p, 1, 1, t0);
	CHECK(pace_allow(&p, 1, 16, t0) == 0);
	CHECK(pace_wait(&p, t0) == MS);
	CHECK(pace_wait(&p, t0 + MS / 2) == MS / 2);
	CHECK(pace_allow(&p, 1, 16, t0 + MS) == 1);
	/* 3.5 ms late: the ones due at 1, 2, 3 and 4 ms may go */
	CHECK(pace_allow(&p, 1, 16, t0 + 4 * MS + MS / 2) == 4);
	CHECK(pace_allow(&p, 1, 2, t0 + 4 * MS + MS / 2) == 2); /* max */
	/* Over one simulated second, posting whatever is allowed every
	 * 300 us, exactly the rate goes (the first message at t0). */
	pace_init(&p, 1000, 1, t0);
	for (uint64_t t = t0; t < t0 + NS_PER_SEC; t += 300000) {
		uint32_t k = pace_allow(&p, 1, 64, t);

		pace_take(&p, 1, k, t);
		sent += k;
	}
	CHECK(sent == 1000);
	CHECK(p.late_ns == 0);
}

TEST(bounded_burst)
{
	struct pace p;
	uint64_t t0 = NS_PER_SEC;
	uint32_t k;

	/* 100 MB/s of 64 KiB messages: the burst is 10 ms = 1 MB, 16
	 * messages (more than two). */
	pace_init(&p, 100000000, 65536, t0);
	CHECK(p.burst_ns == 10 * MS);
	pace_take(&p, 65536, 1, t0);
	/* A second late: only the burst's worth may go, the rest of the
	 * schedule is forgiven and counted. */
	k = pace_allow(&p, 65536, 1000, t0 + NS_PER_SEC);
	CHECK(k == 10 * MS * 100 / 65536 / 1000 + 1); /* 16 */
	CHECK(p.late_ns > NS_PER_SEC - 20 * MS && p.late_ns < NS_PER_SEC);
	/* A slow rate's burst is two messages. */
	pace_init(&p, 1000, 1000, t0);
	CHECK(p.burst_ns == 2 * NS_PER_SEC);
	/* Not paced: everything may go. */
	pace_init(&p, 0, 1, t0);
	CHECK(pace_allow(&p, 1, 77, t0) == 77 && pace_wait(&p, t0) == 0);
}

TEST(spread)
{
	struct pace p, q;
	uint64_t t0 = NS_PER_SEC, n;
	double cv;

	pace_init(&p, 0, 1, t0);
	/* first slice (left out): 50 units; then 100, 100, 120, 80 */
	pace_note(&p, 50, t0 + 100 * MS);
	CHECK(!pace_spread(&p, &cv, &n) && n == 0);
	pace_note(&p, 100, t0 + 200 * MS);
	pace_note(&p, 100, t0 + 300 * MS);
	pace_note(&p, 120, t0 + 400 * MS);
	pace_note(&p, 80, t0 + 500 * MS);
	CHECK(pace_spread(&p, &cv, &n) && n == 4);
	/* rates 1000, 1000, 1200, 800: mean 1000, sd sqrt(80000/3) */
	CHECK(cv > 0.1632 && cv < 0.1634);
	/* a slice shorter than 100 ms stays open */
	pace_note(&p, 5, t0 + 550 * MS);
	CHECK(pace_spread(&p, &cv, &n) && n == 4);
	q = p;
	pace_merge(&p, &q);
	CHECK(pace_spread(&p, &cv, &n) && n == 8);
}

static void rate_ok(const char *v, uint64_t want, bool want_msgs)
{
	char err[256];
	uint64_t x = 0;
	bool msgs = !want_msgs;

	CHECK(parse_rate("--rate", v, &x, &msgs, err, sizeof(err)) == 0);
	if (x != want || msgs != want_msgs)
		fprintf(stderr, "    %s: %llu %d\n", v, (unsigned long long)x,
			msgs);
	CHECK(x == want && msgs == want_msgs);
}

static void rate_bad(const char *v, const char *msg)
{
	char err[256];
	uint64_t x;
	bool msgs;

	CHECK(parse_rate("--rate", v, &x, &msgs, err, sizeof(err)) == -1);
	CHECK_STR(err, msg);
}

#define HINT "bad rate; use a bandwidth such as 10Gb (bits/s) or 1.25GB " \
	     "(bytes/s), or a message rate such as 2M/s"

TEST(parse)
{
	rate_ok("10Gb", 1250000000, false);
	rate_ok("1.25GB", 1250000000, false);
	rate_ok("200Mbps", 25000000, false);
	rate_ok("200Mb/s", 25000000, false);
	rate_ok("64kB", 64000, false);
	rate_ok("8b", 1, false);
	rate_ok("2M/s", 2000000, true);
	rate_ok("20k/s", 20000, true);
	rate_ok("7/s", 7, true);
	rate_bad("0", "--rate: 0: must be greater than 0 (leave --rate out "
		      "for an unpaced test)");
	rate_bad("0Gb", "--rate: 0Gb: must be greater than 0 (leave --rate "
			"out for an unpaced test)");
	rate_bad("-1", "--rate: -1: must not be negative");
	rate_bad("-5Gb", "--rate: -5Gb: must not be negative");
	rate_bad("10Xb", "--rate: 10Xb: " HINT);
	rate_bad("10", "--rate: 10: " HINT);
	rate_bad("10G", "--rate: 10G: " HINT);
	rate_bad("Gb", "--rate: Gb: " HINT);
	rate_bad("1b", "--rate: 1b: must be at least 1 byte/s (8b)");
	rate_bad("2000TB", "--rate: 2000TB: too large; must be at most 10^15 "
			   "bytes/s");
}

TEST(option)
{
	struct plan p;
	char err[256];
	const struct par_set *ps;

	CHECK(parse("h --rate 200Mb tcp_bw", &p, err, sizeof(err)) == 0);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_RATE] == 25000000 &&
	      ps->val[SIDE_REM][PAR_RATE] == 25000000);
	CHECK(ps->set[SIDE_LOC][PAR_RATE] && !ps->set[SIDE_LOC][PAR_MSG_RATE]);
	CHECK(p.nwarn == 0);
	plan_free(&p);
	/* the last --rate wins, of either kind */
	CHECK(parse("h --rate 200Mb -rt 5k/s udp_bw", &p, err, sizeof(err)) ==
	      0);
	ps = &p.tests[0].s.par;
	CHECK(ps->val[SIDE_LOC][PAR_MSG_RATE] == 5000 &&
	      ps->val[SIDE_LOC][PAR_RATE] == 0 &&
	      !ps->set[SIDE_LOC][PAR_RATE]);
	plan_free(&p);
	/* 0.4.11's meaning with a static rate name */
	CHECK(parse("h --rate 4xQDR rc_bw", &p, err, sizeof(err)) == 0);
	CHECK(p.nwarn == 1);
	CHECK_STR(p.warn[0], "obsolete option: --rate; use --static_rate "
			     "instead");
	CHECK_STR(p.tests[0].s.par.str[SIDE_LOC][1], "4xQDR");
	CHECK(!p.tests[0].s.par.set[SIDE_LOC][PAR_RATE]);
	plan_free(&p);
	REJECT("h --rate 0 tcp_bw", "--rate: 0: must be greater than 0 "
				    "(leave --rate out for an unpaced test)");
	REJECT("h --rate -1 tcp_bw", "--rate: -1: must not be negative");
	REJECT("h --rate 10Xb tcp_bw", "--rate: 10Xb: " HINT);
	REJECT("h -oo rate:10Mb:1k/s:*2 tcp_bw",
	       "-oo: rate:10Mb:1k/s:*2: mixes a bandwidth and a message "
	       "rate");
}

/* The rates a --loop over --rate sets, and their kind. */
struct rates {
	int n;
	uint64_t v[16];
	bool msgs[16];
};

static int rec_rate(const struct settings *s, void *arg)
{
	struct rates *r = arg;
	const struct par_set *ps = &s->par;

	if (r->n < 16) {
		r->msgs[r->n] = ps->set[SIDE_LOC][PAR_MSG_RATE];
		r->v[r->n] = r->msgs[r->n] ? ps->val[SIDE_LOC][PAR_MSG_RATE]
					   : ps->val[SIDE_LOC][PAR_RATE];
	}
	r->n++;
	return 0;
}

static int loop_rates(const char *line, struct rates *r)
{
	struct plan p;
	char err[256];
	int rc;

	memset(r, 0, sizeof(*r));
	if (parse(line, &p, err, sizeof(err)))
		return -1;
	rc = loops_run(&p.tests[0].s, rec_rate, r, err, sizeof(err));
	plan_free(&p);
	return rc;
}

TEST(loop)
{
	struct rates r;

	CHECK(loop_rates("h --loop rate:100Mb:800Mb:*2 tcp_bw", &r) == 0);
	CHECK(r.n == 4 && !r.msgs[0] && !r.msgs[3]);
	CHECK(r.v[0] == 12500000 && r.v[3] == 100000000);
	CHECK(loop_rates("h --loop rate:10k/s:30k/s:10k/s udp_bw", &r) == 0);
	CHECK(r.n == 3 && r.msgs[0] && r.msgs[2] && r.v[2] == 30000);
}

TEST(result)
{
	const struct test_desc *tcp = test_find("tcp_bw");
	const struct test_desc *udp = test_find("udp_bw");
	const struct test_desc *bi = test_find("rc_bi_bw");
	struct results res;
	char w[200];

	memset(&res, 0, sizeof(res));
	res.recv_bw = 24e6;
	res.send_bw = 30e6;
	res.ln.real_time = res.rn.real_time = 2;
	res.l.s.msgs = 1000;
	calc_pace(&res, tcp, false, 25000000, true, NULL);
	CHECK(res.pace.valid && res.pace.kernel);
	CHECK(res.pace.achieved == 24e6 && res.pace.shortfall == 0);
	CHECK(!pace_shortfall_text(&res.pace, "tcp_bw", w, sizeof(w)));
	/* 4% short is held (PACE_MARGIN 5%); 8% short is not */
	calc_pace(&res, tcp, false, 26086957, true, NULL);
	CHECK(res.pace.shortfall > 0.079 && res.pace.shortfall < 0.081);
	CHECK(pace_shortfall_text(&res.pace, "tcp_bw", w, sizeof(w)));
	/* lossy: the send figure; 30 MB/s offered, 30 achieved */
	calc_pace(&res, udp, false, 30000000, false, NULL);
	CHECK(res.pace.achieved == 30e6 && res.pace.shortfall == 0);
	/* messages sent: 1000 in 2 s = 500/s against 1000/s offered */
	calc_pace(&res, udp, true, 1000, false, NULL);
	CHECK(res.pace.achieved == 500);
	CHECK(res.pace.shortfall == 0.5);
	CHECK(pace_shortfall_text(&res.pace, "udp_bw", w, sizeof(w)));
	CHECK_STR(w, "udp_bw: the rate of 1 kmsgs/s could not be held: "
		     "500 msgs/s achieved, 50.0% short");
	/* bidirectional: per direction */
	calc_pace(&res, bi, false, 12000000, false, NULL);
	CHECK(res.pace.achieved == 12e6 && res.pace.shortfall == 0);
	calc_pace(&res, tcp, false, 0, false, NULL);
	CHECK(!res.pace.valid);
}

int main(void)
{
	RUN(schedule);
	RUN(bounded_burst);
	RUN(spread);
	RUN(parse);
	RUN(option);
	RUN(loop);
	RUN(result);
	return harness_done();
}
