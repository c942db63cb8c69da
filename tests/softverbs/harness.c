// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The two-process harness: main(), case selection, the two roles (each
 * exec'ed afresh, see harness.h) and the pass/fail bookkeeping, on the
 * test kit (tests/kit/check.h: kit_run_roles runs and reaps the roles,
 * counts their checks and enforces the deadline).
 *
 * Invariants: the orchestrator never touches libibverbs (it only forks and
 * execs), so a broken library cannot take it down; it kills only the two
 * PIDs it forked for the current case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KIT_IMPLEMENTATION
#include "harness.h"
#include "vhelp.h"

static const struct sv_test *test_find(const char *name)
{
	const struct sv_test *t;

	for (t = sv_tests; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* Role process: run one side of one case, its counts to resfd. */
static int role_main(const char *role, const char *name, int sock, int resfd)
{
	const struct sv_test *t = test_find(name);
	struct sv_side side;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!t) {
		fprintf(stderr, "semantics: unknown case '%s'\n", name);
		return 2;
	}
	kit.name = t->name;
	kit.role = role;
	memset(&side, 0, sizeof(side));
	side.role = !strcmp(role, "a") ? ROLE_A : ROLE_B;
	side.sock = sock;
	t->fn(&side);
	kit_role_exit(resfd);
}

/* In role r's forked child: its environment, then exec afresh. */
static void role_exec(const struct kit_roles *k, int role, int sock, int resfd)
{
	const struct sv_test *t = k->arg;
	char sockarg[16], resarg[16];

	kit_env_apply(role == ROLE_A ? t->env_a : t->env_b);
	snprintf(sockarg, sizeof(sockarg), "%d", sock);
	snprintf(resarg, sizeof(resarg), "%d", resfd);
	execl("/proc/self/exe", "semantics", "--role",
	      role == ROLE_A ? "a" : "b", "--case", t->name, "--sock", sockarg,
	      "--result", resarg, (char *)NULL);
	fprintf(stderr, "semantics: exec /proc/self/exe: %s\n",
		strerror(errno));
	_exit(127);
}

static void run_case(const struct sv_test *t)
{
	struct kit_roles k = {
		.name = t->name,
		.roles = 2,
		.timeout_ms = 1000 * (t->timeout ? t->timeout : 30),
		.tags = { "a", "b" },
		.child = role_exec,
		.arg = t,
	};

	printf("#### %s\n", t->name);
	kit_run_roles(&k);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: semantics [-l|--list] [PATTERN...]\n"
		"  runs the cases whose names match a shell PATTERN (all "
		"when none);\n  -l lists the cases; the last line is "
		"\"N passed, N failed\"\n");
}

int main(int argc, char **argv)
{
	const struct sv_test *t;

	if (argc == 9 && !strcmp(argv[1], "--role"))
		return role_main(argv[2], argv[4], atoi(argv[6]),
				 atoi(argv[8]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	kit.glob = 1; /* shell patterns, as the suite's */
	if (kit_args(argc, argv, 1) < 0) {
		usage();
		return 2;
	}
	for (t = sv_tests; t->name; t++) {
		if (!kit_selected(t->name))
			continue;
		if (kit.list) {
			printf("%-24s %s\n", t->name, t->doc ? t->doc : "");
			continue;
		}
		run_case(t);
	}
	if (!kit.ran && kit.npat > 0 && !kit.list)
		CHECK(0, "no case matches the given patterns");
	return kit_done();
}
