// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster bootstrap: rank and size from launcher variables; --rendezvous;
 * the PMIx path's environment check, address format and load errors.
 */
#include <string.h>

#include "cluster/pmix_boot.h"
#include "cluster/rank_env.h"
#include "harness.h"

static const char *const *fake; /* NAME, VALUE, ..., NULL */

static const char *fake_get(const char *name)
{
	for (const char *const *p = fake; p && *p; p += 2)
		if (!strcmp(*p, name))
			return p[1];
	return NULL;
}

static int from(const char *const *env, struct rank_info *ri, char *err)
{
	fake = env;
	return rank_from_env(fake_get, ri, err, 128);
}

TEST(sources)
{
	struct rank_info ri;
	char err[128];
	static const char *const none[] = { "PATH", "/bin", NULL };
	static const char *const ompi[] = { "OMPI_COMM_WORLD_RANK", "3",
		"OMPI_COMM_WORLD_SIZE", "8", "OMPI_COMM_WORLD_LOCAL_RANK", "1",
		NULL };
	static const char *const slurm[] = { "SLURM_PROCID", "0",
		"SLURM_NTASKS", "64", NULL };
	static const char *const both[] = { "SLURM_PROCID", "0",
		"SLURM_NTASKS", "64", "QPERF_RANK", "5", "QPERF_SIZE", "6",
		NULL };
	static const char *const pmix[] = { "PMIX_RANK", "7", NULL };

	CHECK(from(none, &ri, err) == 1);
	CHECK(from(ompi, &ri, err) == 0);
	CHECK(ri.rank == 3 && ri.size == 8 && ri.local_rank == 1);
	CHECK_STR(ri.source, "OMPI");
	CHECK(from(slurm, &ri, err) == 0);
	CHECK(ri.rank == 0 && ri.size == 64 && ri.local_rank == 0);
	CHECK(from(both, &ri, err) == 0); /* QPERF_* wins */
	CHECK(ri.rank == 5 && ri.size == 6);
	CHECK_STR(ri.source, "QPERF");
	CHECK(from(pmix, &ri, err) == 0);
	CHECK(ri.rank == 7 && !ri.size_known);
}

TEST(bad_values)
{
	struct rank_info ri;
	char err[128];
	static const char *const big[] = { "QPERF_RANK", "6", "QPERF_SIZE",
		"6", NULL };
	static const char *const word[] = { "QPERF_RANK", "x", "QPERF_SIZE",
		"6", NULL };
	static const char *const nosize[] = { "SLURM_PROCID", "1", NULL };
	static const char *const one[] = { "QPERF_RANK", "0", "QPERF_SIZE",
		"1", NULL };
	static const char *const neg[] = { "QPERF_RANK", "-1", "QPERF_SIZE",
		"4", NULL };

	CHECK(from(big, &ri, err) < 0);
	CHECK_STR(err, "QPERF_RANK=6: must be below QPERF_SIZE=6");
	CHECK(from(word, &ri, err) < 0);
	CHECK_STR(err, "QPERF_RANK=x: not a number");
	CHECK(from(nosize, &ri, err) < 0);
	CHECK_STR(err, "SLURM_NTASKS=: not a number");
	CHECK(from(one, &ri, err) < 0);
	CHECK_STR(err, "QPERF_SIZE=1: must be 2 to 1000000");
	CHECK(from(neg, &ri, err) < 0);
	CHECK_STR(err, "QPERF_RANK=-1: not a number");
}

TEST(rendezvous)
{
	char host[64], err[128];
	uint16_t port;

	CHECK(parse_rendezvous("node1:4000", 19765, host, sizeof(host),
			       &port, err, sizeof(err)) == 0);
	CHECK_STR(host, "node1");
	CHECK(port == 4000);
	CHECK(parse_rendezvous("[fd00::1]:5000", 19765, host, sizeof(host),
			       &port, err, sizeof(err)) == 0);
	CHECK_STR(host, "fd00::1");
	CHECK(port == 5000);
	CHECK(parse_rendezvous("[::1]", 19765, host, sizeof(host), &port,
			       err, sizeof(err)) == 0);
	CHECK_STR(host, "::1");
	CHECK(port == 19765);
	CHECK(parse_rendezvous("10.0.0.1", 7, host, sizeof(host), &port, err,
			       sizeof(err)) == 0);
	CHECK(port == 7);
	CHECK(parse_rendezvous("fd00::1:5000", 1, host, sizeof(host), &port,
			       err, sizeof(err)) < 0);
	CHECK_STR(err, "bad rendezvous address fd00::1:5000 (write an IPv6 address as [ADDR]:PORT)");
	CHECK(parse_rendezvous("h:0", 1, host, sizeof(host), &port, err,
			       sizeof(err)) < 0);
	CHECK_STR(err, "bad rendezvous port in h:0 (1 to 65535)");
	CHECK(parse_rendezvous("h:65536", 1, host, sizeof(host), &port, err,
			       sizeof(err)) < 0);
	CHECK(parse_rendezvous("h:", 1, host, sizeof(host), &port, err,
			       sizeof(err)) < 0);
	CHECK(parse_rendezvous(":80", 1, host, sizeof(host), &port, err,
			       sizeof(err)) < 0);
	CHECK(parse_rendezvous("[]:80", 1, host, sizeof(host), &port, err,
			       sizeof(err)) < 0);
	CHECK(parse_rendezvous("[::1]x", 1, host, sizeof(host), &port, err,
			       sizeof(err)) < 0);
}

TEST(pmix_env)
{
	static const char *const none[] = { "QPERF_RANK", "0", "PMIX_X",
		"1", NULL };
	static const char *const ns[] = { "PMIX_NAMESPACE", "1234", NULL };
	static const char *const uri[] = { "PMIX_SERVER_URI41",
		"1.0;tcp4://127.0.0.1:5", NULL };
	static const char *const uri2[] = { "PMIX_SERVER_URI2", "x", NULL };
	static const char *const rank[] = { "PMIX_RANK", "0", NULL };

	fake = none;
	CHECK(!pmix_env_present(fake_get));
	fake = ns;
	CHECK(pmix_env_present(fake_get));
	fake = uri;
	CHECK(pmix_env_present(fake_get));
	fake = uri2;
	CHECK(pmix_env_present(fake_get));
	fake = rank;
	CHECK(pmix_env_present(fake_get));
}

/*
 * Format host and port, compare with want, parse it back: 1 if both the
 * text and the round trip are right.
 */
static int format_back(const char *host, uint16_t port, const char *want)
{
	char rv[32], back[64], err[128];
	uint16_t p = 0;

	return rendezvous_format(host, port, rv, sizeof(rv)) == 0 &&
	       !strcmp(rv, want) &&
	       parse_rendezvous(rv, 9, back, sizeof(back), &p, err,
				sizeof(err)) == 0 &&
	       !strcmp(back, host) && p == port;
}

/* What rank 0 publishes reads back with parse_rendezvous(). */
TEST(rendezvous_format)
{
	char rv[32];

	CHECK(format_back("node7", 40123, "node7:40123"));
	CHECK(format_back("fd00::7", 1, "[fd00::7]:1"));
	CHECK(format_back("10.0.0.1", 65535, "10.0.0.1:65535"));
	CHECK(rendezvous_format("a-very-long-host-name.example", 65535, rv,
				sizeof(rv)) < 0);
	CHECK(rendezvous_format("h", 80, rv, 5) == 0); /* "h:80" + NUL */
	CHECK(rendezvous_format("h", 80, rv, 4) < 0);
}

TEST(pmix_load_errors)
{
	struct rank_info ri = { 1, 2, 0, "QPERF", 1 };
	char rv[64] = "", err[256];

	CHECK(pmix_boot("/nonexistent/libpmix.so.2", &ri, rv, sizeof(rv), 1,
			err, sizeof(err)) < 0);
	if (strcmp(pmix_boot_status(), "dlopen")) {
		CHECK_STR(err, "PMIx: this qperf was built without PMIx support (NO_PMIX=1 or no libpmix-dev)");
		return;
	}
	CHECK_STR(err, "PMIx: cannot load /nonexistent/libpmix.so.2 (cannot open shared object file: No such file or directory)");
	/* A library that is not libpmix: the missing function is named. */
	CHECK(pmix_boot("libm.so.6", &ri, rv, sizeof(rv), 1, err,
			sizeof(err)) < 0);
	CHECK_STR(err, "PMIx: libm.so.6 has no function PMIx_Init");
	CHECK(rv[0] == '\0');
}

int main(void)
{
	RUN(sources);
	RUN(bad_values);
	RUN(rendezvous);
	RUN(pmix_env);
	RUN(rendezvous_format);
	RUN(pmix_load_errors);
	return harness_done();
}
