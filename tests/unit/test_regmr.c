// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of reg_mr's options (core/regmr_opts.c): --odp's optional
 * mode (a test name after it is no mode), its names, --threads' range,
 * the per-test snapshot, the warnings on tests that do not use them, and
 * the test's row (on the client alone, never sent).  The helpers are
 * opts_util.h's.
 */
#include "core/regmr.h"
#include "opts_util.h"

TEST(odp_names)
{
	CHECK(regmr_odp_parse("explicit") == REGMR_ODP_EXPLICIT);
	CHECK(regmr_odp_parse("implicit") == REGMR_ODP_IMPLICIT);
	CHECK(regmr_odp_parse("prefetch") == REGMR_ODP_PREFETCH);
	CHECK(regmr_odp_parse("off") == -1 && regmr_odp_parse("") == -1 &&
	      regmr_odp_parse("Explicit") == -1);
	for (int i = REGMR_ODP_OFF; i <= REGMR_ODP_PREFETCH; i++)
		CHECK(i == REGMR_ODP_OFF ||
		      regmr_odp_parse(regmr_odp_name((uint32_t)i)) == i);
	CHECK_STR(regmr_odp_name(REGMR_ODP_OFF), "off");
	CHECK_STR(regmr_odp_name(99), "?");
}

TEST(odp_mode_optional)
{
	struct plan p;
	char err[256];

	/* alone before a test: explicit; the test stays a test */
	CHECK(parse("h --odp reg_mr", &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 1 && p.tests[0].s.mr.odp == REGMR_ODP_EXPLICIT);
	CHECK_STR(p.tests[0].test->name, "reg_mr");
	plan_free(&p);
	CHECK(parse("h --odp implicit reg_mr --odp prefetch reg_mr", &p, err,
		    sizeof(err)) == 0);
	CHECK(p.ntests == 2 && p.tests[0].s.mr.odp == REGMR_ODP_IMPLICIT &&
	      p.tests[1].s.mr.odp == REGMR_ODP_PREFETCH);
	plan_free(&p);
	/* before another option */
	CHECK(parse("h --odp -m 4K reg_mr", &p, err, sizeof(err)) == 0);
	CHECK(p.tests[0].s.mr.odp == REGMR_ODP_EXPLICIT &&
	      p.tests[0].s.par.val[SIDE_LOC][PAR_MSG_SIZE] == 4096);
	plan_free(&p);
	REJECT("h --odp bogus reg_mr",
	       "--odp: bogus: bad mode; use explicit, implicit or prefetch");
}

TEST(snapshot_and_threads)
{
	struct plan p;
	char err[256];

	CHECK(parse("h --hugepages --prefault --threads 4 reg_mr --threads 2 reg_mr",
		    &p, err, sizeof(err)) == 0);
	CHECK(p.ntests == 2 && p.nwarn == 0);
	CHECK(p.tests[0].s.mr.hugepages && p.tests[0].s.mr.prefault &&
	      p.tests[0].s.par.val[SIDE_LOC][PAR_THREADS] == 4 &&
	      p.tests[1].s.par.val[SIDE_LOC][PAR_THREADS] == 2 &&
	      p.tests[1].s.mr.hugepages);
	CHECK(p.tests[0].s.mr.odp == REGMR_ODP_OFF);
	plan_free(&p);
	REJECT("h --threads 0 reg_mr", "--threads: 0: must be greater than 0");
	REJECT("h --threads 65 reg_mr", "--threads: 65: too large; must be at most 64");
}

TEST(warnings)
{
	struct plan p;
	char err[256];

	/* the RDMA tests take --hugepages and --odp (this end's buffer) */
	CHECK(parse("h --hugepages --odp rc_bw", &p, err, sizeof(err)) == 0);
	CHECK(p.nwarn == 0);
	plan_free(&p);
	CHECK(parse("h --prefault rc_bw", &p, err, sizeof(err)) == 0);
	CHECK(p.nwarn == 1);
	CHECK_STR(p.warn[0],
		  "--prefault set but not used in test rc_bw (reg_mr only)");
	plan_free(&p);
	CHECK(parse("h --odp tcp_bw", &p, err, sizeof(err)) == 0);
	CHECK(p.nwarn == 1);
	CHECK_STR(p.warn[0],
		  "--odp set but not used in test tcp_bw (reg_mr and the RDMA tests only)");
	plan_free(&p);
}

TEST(row)
{
	const struct test_desc *t = test_find("reg_mr");

	CHECK(t && t->kind == TK_LOCAL && t->measure == MEAS_REGMR);
	CHECK(t->index > TEST_LEGACY_LAST && test_by_index(t->index) == t);
	CHECK(t->msg_size == 1u << 20);
	/* --version lists data transports only */
	CHECK(!strstr(test_transports(), "regmr"));
}

int main(void)
{
	RUN(odp_names);
	RUN(odp_mode_optional);
	RUN(snapshot_and_threads);
	RUN(warnings);
	RUN(row);
	return harness_done();
}
