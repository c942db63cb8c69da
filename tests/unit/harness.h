/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit tests' harness: tests/kit/check.h in test mode.  Each TEST runs
 * in a forked child, so a crash or a hang (alarm) is one failure, not the
 * end of the run.  The last line printed is "N passed, N failed"; the exit
 * status is 1 if anything failed.
 *
 *	TEST(parse_size_k) { uint64_t v; CHECK(parse_size(...) == 0); ... }
 *	int main(void) { RUN(parse_size_k); return harness_done(); }
 *
 * CHECK(cond [, fmt, ...]) and CHECK_STR(a, b) record a failure with
 * file:line and go on; a test fails if any check in it failed.
 *
 * Narrowing (tests/kit/check.h): a test runs only if QPERF_CHECKS selects
 * its name and, when the program is given PATTERN arguments (substrings),
 * one of those too.  --list prints the names of the selected tests and
 * runs none.  (main() takes no arguments: glibc hands argc and argv to
 * constructors.)
 */
#ifndef QPERF_HARNESS_H
#define QPERF_HARNESS_H

#define KIT_IMPLEMENTATION
#include "../kit/check.h"

#define TEST(name) static void test_##name(void)
#define RUN(name) kit_run_test(#name, test_##name)

__attribute__((constructor)) static void harness_args(int argc, char **argv)
{
	kit.quiet = 1;
	if (kit_args(argc, argv, 1) < 0)
		exit(2);
}

static inline int harness_done(void)
{
	return kit_done();
}

#endif
