// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the server supervisor's pure parts (core/supervise.c):
 * the default memory budget, and the child-side calls outside a
 * supervised child.
 */
#include <unistd.h>

#include "core/supervise.h"
#include "harness.h"

TEST(default_budget)
{
	uint64_t b = superv_default_budget();
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t mem = (uint64_t)pages * (uint64_t)psz;

	/* A quarter of RAM (or less, in a cgroup), never below 64 MiB. */
	CHECK(b >= 64ULL << 20);
	CHECK(pages > 0 && psz > 0);
	CHECK(b <= mem / 4 || b == 64ULL << 20);
}

TEST(unsupervised_child_calls)
{
	struct admit a = { .req_index = 8, .data = 1, .mem = 1ULL << 30,
			   .timeout_ns = NS_PER_SEC, .no_msgs = 10 };
	char err[64] = "";

	/* Not a server child: admitted at once, quit goes nowhere. */
	CHECK(superv_admit(&a, err, sizeof(err)) == 0);
	CHECK(err[0] == '\0');
	superv_quit();
}

int main(void)
{
	RUN(default_budget);
	RUN(unsupervised_child_calls);
	return harness_done();
}
