/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny unit-test harness.  Each TEST runs in a forked child, so a crash
 * or a hang (alarm) is one failure, not the end of the run.  The last line
 * printed is "N passed, N failed"; the exit status is 1 if anything failed.
 *
 *	TEST(parse_size_k) { uint64_t v; CHECK(parse_size(...) == 0); ... }
 *	int main(void) { RUN(parse_size_k); return harness_done(); }
 *
 * CHECK(cond) and CHECK_STR(a, b) record a failure with file:line and go
 * on; a test fails if any check in it failed.
 *
 * Narrowing (tests/kit/check.h, the same in every suite): a test runs
 * only if QPERF_CHECKS selects its name and, when the program is given
 * PATTERN arguments (substrings), one of those too.  --list
 * prints the names of the selected tests and runs none.  (main() takes
 * no arguments: glibc hands argc and argv to constructors.)
 */
#ifndef QPERF_HARNESS_H
#define QPERF_HARNESS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kit/check.h"

static int harness_passed, harness_failed, harness_checks_failed;
static int harness_list, harness_argc;
static char **harness_argv;

static inline int harness_selected(const char *name)
{
	int i;

	if (!kit_env_selected(name))
		return 0;
	if (harness_argc == 0)
		return 1;
	for (i = 0; i < harness_argc; i++)
		if (kit_match(harness_argv[i], name))
			return 1;
	return 0;
}

__attribute__((constructor)) static void harness_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list") || !strcmp(argv[i], "-l")) {
			harness_list = 1;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: %s [--list] [PATTERN...]\n",
				argv[0]);
			exit(2);
		} else {
			harness_argv = argv + i;
			harness_argc = argc - i;
			break;
		}
	}
}

#define TEST(name) static void test_##name(void)

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "    %s:%d: CHECK failed: %s\n",       \
				__FILE__, __LINE__, #cond);                \
			harness_checks_failed++;                           \
		}                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *ha_ = (a), *hb_ = (b);                         \
		if (!ha_ || !hb_ || strcmp(ha_, hb_) != 0) {               \
			fprintf(stderr,                                    \
				"    %s:%d: CHECK_STR failed: %s\n"        \
				"      got:      \"%s\"\n"                 \
				"      expected: \"%s\"\n",                \
				__FILE__, __LINE__, #a, ha_ ? ha_ : "(null)", \
				hb_ ? hb_ : "(null)");                     \
			harness_checks_failed++;                           \
		}                                                          \
	} while (0)

static inline void harness_run(const char *name, void (*fn)(void))
{
	pid_t pid;
	int status = 0;

	if (!harness_selected(name))
		return;
	if (harness_list) {
		printf("%s\n", name);
		return;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		harness_failed++;
		return;
	}
	if (pid == 0) {
		alarm(30);
		fn();
		fflush(stdout);
		_exit(harness_checks_failed ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		harness_passed++;
		printf("ok   %s\n", name);
	} else {
		harness_failed++;
		if (WIFSIGNALED(status))
			printf("FAIL %s (signal %d)\n", name, WTERMSIG(status));
		else
			printf("FAIL %s\n", name);
	}
}

#define RUN(name) harness_run(#name, test_##name)

static inline int harness_done(void)
{
	if (harness_list)
		exit(0);
	kit_none_note(harness_passed + harness_failed);
	printf("%d passed, %d failed\n", harness_passed, harness_failed);
	return harness_failed ? 1 : 0;
}

#endif
