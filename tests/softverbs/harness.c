// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The two-process harness: main(), case selection, fork+exec of the two
 * roles, deadlines, and the pass/fail bookkeeping (see harness.h).
 *
 * Invariants: the orchestrator never touches libibverbs (it only forks and
 * execs), so a broken library cannot take it down; it kills only the two
 * PIDs it forked for the current case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KIT_IMPLEMENTATION
#define KIT_OWN_CHECK
#include "../kit/check.h"
#include "harness.h"
#include "vhelp.h"

static const char *g_case = "-";	/* case name, for check lines */
static int g_role = -1;			/* ROLE_A, ROLE_B, -1: orchestrator */
static int g_pass, g_fail;

static const char *role_tag(void)
{
	return g_role == ROLE_A ? "a" : g_role == ROLE_B ? "b" : "-";
}

int check_at(const char *file, int line, int ok, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	if (ok) {
		g_pass++;
		printf("ok   %s[%s]: %s\n", g_case, role_tag(), msg);
	} else {
		g_fail++;
		printf("FAIL %s[%s]: %s (%s:%d)\n", g_case, role_tag(), msg,
		       file, line);
	}
	return ok;
}

int setup_at(const char *file, int line, int ok, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	if (ok)
		return 1;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	return check_at(file, line, 0, "setup: %s", msg);
}

void note(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	printf("#    %s[%s]: %s\n", g_case, role_tag(), msg);
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const struct sv_test *test_find(const char *name)
{
	const struct sv_test *t;

	for (t = sv_tests; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* Role process: run one side of one case, report "PASS FAIL" on resfd. */
static int role_main(const char *role, const char *name, int sock, int resfd)
{
	const struct sv_test *t = test_find(name);
	struct sv_side side;
	char line[64];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!t) {
		fprintf(stderr, "semantics: unknown case '%s'\n", name);
		return 2;
	}
	g_case = t->name;
	g_role = !strcmp(role, "a") ? ROLE_A : ROLE_B;
	memset(&side, 0, sizeof(side));
	side.role = g_role;
	side.sock = sock;
	t->fn(&side);
	n = snprintf(line, sizeof(line), "%d %d\n", g_pass, g_fail);
	if (n > 0 && write(resfd, line, (size_t)n) != n)
		return 1;
	return 0;
}

/* Put "K=V K=V" into the environment (in a forked child, before exec). */
static void env_apply(const char *spec)
{
	char *copy, *tok, *save = NULL, *eq;

	if (!spec)
		return;
	copy = strdup(spec);
	if (!copy)
		return;
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		setenv(tok, eq + 1, 1);
	}
	free(copy);
}

struct role_proc {
	pid_t pid;
	int res;		/* read end of the result pipe */
	int status;		/* wait status */
	int done;
};

/* Fork+exec one role; sv and res are the case's socketpair and pipes. */
static pid_t role_spawn(const struct sv_test *t, int role, int sv[2],
			int res[2][2])
{
	int sock = sv[role], other = 1 - role;
	char sockarg[16], resarg[16];
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid != 0)
		return pid;
	close(sv[other]);
	close(res[role][0]);
	close(res[other][0]);
	close(res[other][1]);
	env_apply(role == ROLE_A ? t->env_a : t->env_b);
	snprintf(sockarg, sizeof(sockarg), "%d", sock);
	snprintf(resarg, sizeof(resarg), "%d", res[role][1]);
	execl("/proc/self/exe", "semantics", "--role",
	      role == ROLE_A ? "a" : "b", "--case", t->name, "--sock", sockarg,
	      "--result", resarg, (char *)NULL);
	fprintf(stderr, "semantics: exec /proc/self/exe: %s\n",
		strerror(errno));
	_exit(127);
}

/* Read "PASS FAIL" from a finished role; -1 if it reported nothing. */
static int role_counts(int fd, int *pass, int *fail)
{
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%d %d", pass, fail) != 2)
		return -1;
	return 0;
}

static void run_case(const struct sv_test *t)
{
	struct role_proc rp[2];
	int sv[2], res[2][2], r;
	double deadline;
	int killed = 0;

	g_case = t->name;
	printf("#### %s\n", t->name);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || pipe(res[0]) < 0 ||
	    pipe(res[1]) < 0) {
		CHECK(0, "harness: socketpair/pipe: %s", strerror(errno));
		return;
	}
	for (r = 0; r < 2; r++) {
		rp[r].pid = role_spawn(t, r, sv, res);
		rp[r].res = res[r][0];
		rp[r].done = 0;
		rp[r].status = 0;
	}
	close(res[0][1]);
	close(res[1][1]);
	close(sv[0]);
	close(sv[1]);
	deadline = now_ms() + 1000.0 * (t->timeout ? t->timeout : 30);
	while (!rp[0].done || !rp[1].done) {
		struct timespec nap = { 0, 5 * 1000 * 1000 };

		for (r = 0; r < 2; r++) {
			if (rp[r].done || rp[r].pid < 0) {
				rp[r].done = 1;
				continue;
			}
			if (waitpid(rp[r].pid, &rp[r].status, WNOHANG) ==
			    rp[r].pid)
				rp[r].done = 1;
		}
		if (rp[0].done && rp[1].done)
			break;
		if (now_ms() > deadline) {
			for (r = 0; r < 2; r++) {
				if (rp[r].done)
					continue;
				kill(rp[r].pid, SIGKILL);
				waitpid(rp[r].pid, &rp[r].status, 0);
				rp[r].done = 1;
			}
			killed = 1;
			break;
		}
		nanosleep(&nap, NULL);
	}
	for (r = 0; r < 2; r++) {
		int p = 0, f = 0, st = rp[r].status;

		g_role = r;
		if (rp[r].pid < 0) {
			CHECK(0, "harness: fork failed");
		} else if (role_counts(rp[r].res, &p, &f) < 0) {
			CHECK(0, "role reported no result (%s %d)%s",
			      WIFSIGNALED(st) ? "signal" : "exit status",
			      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			      killed ? ", killed at the case deadline" : "");
		} else {
			g_pass += p;
			g_fail += f;
			if (WIFSIGNALED(st) || WEXITSTATUS(st) != 0)
				CHECK(0, "role ended badly (%s %d)",
				      WIFSIGNALED(st) ? "signal" : "status",
				      WIFSIGNALED(st) ? WTERMSIG(st) :
							WEXITSTATUS(st));
		}
		close(rp[r].res);
	}
	g_role = -1;
}

static int selected(const char *name, int argc, char **argv, int first)
{
	int i;

	if (!kit_env_selected(name))
		return 0;
	if (first >= argc)
		return 1;
	for (i = first; i < argc; i++)
		if (!fnmatch(argv[i], name, 0))
			return 1;
	return 0;
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
	int i = 1, list = 0, ran = 0;

	if (argc == 9 && !strcmp(argv[1], "--role"))
		return role_main(argv[2], argv[4], atoi(argv[6]),
				 atoi(argv[8]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "--list")) {
			list = 1;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			usage();
			return 2;
		}
	}
	for (t = sv_tests; t->name; t++) {
		if (!selected(t->name, argc, argv, i))
			continue;
		if (list) {
			printf("%-24s %s\n", t->name, t->doc ? t->doc : "");
			continue;
		}
		run_case(t);
		ran++;
	}
	if (list)
		return 0;
	if (!ran && i >= argc)
		kit_none_note(ran);
	else if (!ran)
		CHECK(0, "no case matches the given patterns");
	printf("%d passed, %d failed\n", g_pass, g_fail);
	return g_fail ? 1 : 0;
}
