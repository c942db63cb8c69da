/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The test kit's C side: one check library for every C harness (the unit
 * tests, softverbs' semantics program, the verbs transports' driver,
 * softverbs-cm's cmcheck and rscheck).  Header-only in the stb way: every
 * file of a program includes it; exactly one defines KIT_IMPLEMENTATION
 * first (so no Makefile's source list has to name it).
 *
 * Checks.  CHECK(cond) or CHECK(cond, fmt, ...) is the one check: it
 * returns cond (0 or 1), so a case can stop after a failed step.
 *  - counted mode (kit.quiet 0: semantics, xport_test): each CHECK is one
 *    check and prints "ok   NAME[ROLE]: message" or "FAIL ... (file:line)";
 *  - test mode (kit.quiet 1: the unit tests): a test (kit_run_test) is one
 *    check; a CHECK prints only when it fails, to stderr, with file:line,
 *    and fails the test.
 * SETUP(cond, fmt, ...) is silent and uncounted when cond holds, a FAIL
 * when not; CHECK_STR(a, b) compares strings; kit_note() prints "# ...".
 *
 * Running.  kit_run_test(name, fn): fn in a forked child (a crash or a
 * hang is one failure).  kit_run_roles(): a two-role case, each role a
 * forked child joined to the other by a socketpair (kit_barrier, kit_send,
 * kit_recv on it), each reporting its counts to the orchestrator, with a
 * deadline; a crash, hang or failed check in either role fails the case.
 *
 * Selection.  kit_args() takes --list (-l) and name patterns (substrings,
 * or shell globs when kit.glob is set); QPERF_CHECKS (tests/run.sh
 * SUITE:PATTERN; tests/lib.sh checks_match reads it the same way) holds
 * "|"-separated substrings, case-sensitive, all when unset or empty.  Both
 * must select a name (kit_selected).  kit_done() prints the closing
 * "N passed, N failed" (after a note when narrowing selected nothing) and
 * returns the exit status.  kit_main_roles() is all of main for a program
 * whose cases are a table of two-role cases.
 */
#ifndef QPERF_KIT_CHECK_H
#define QPERF_KIT_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* CHECK(cond) passes "" as the format: that is meant. */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

struct kit_state {
	int passed, failed;	/* checks (tests in test mode) */
	int test_failed;	/* failed CHECKs of the current test */
	int quiet;		/* test mode */
	int glob;		/* patterns are shell globs, not substrings */
	int list;		/* --list: print the selected names only */
	int ran;		/* tests or cases run */
	int npat;
	char **pat;
	const char *name;	/* the current test or case */
	const char *role;	/* its role's tag, or NULL */
};
extern struct kit_state kit;

int kit_check_at(const char *file, int line, int ok, const char *expr,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int kit_setup_at(const char *file, int line, int ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void kit_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kit_check_str(const char *file, int line, const char *expr,
		  const char *a, const char *b);

#define CHECK(cond, ...) \
	kit_check_at(__FILE__, __LINE__, !!(cond), #cond, "" __VA_ARGS__)
#define SETUP(cond, ...) kit_setup_at(__FILE__, __LINE__, !!(cond), __VA_ARGS__)
#define CHECK_STR(a, b) kit_check_str(__FILE__, __LINE__, #a, (a), (b))

/* Selection and the end. */
int kit_match(const char *pats, const char *name);
int kit_env_selected(const char *name);
int kit_selected(const char *name);
/* Options from argv[first]: --list/-l, then patterns; 0, or -1 (usage). */
int kit_args(int argc, char **argv, int first);
void kit_none_note(int ran);
int kit_done(void);

/* Running. */
void kit_run_test(const char *name, void (*fn)(void));

struct kit_roles {
	const char *name;
	int roles;			/* 1 (solo: no socketpair) or 2 */
	unsigned int timeout_ms;
	const char *tags[2];		/* the roles' tags ("a", "0", ...) */
	/*
	 * Runs in role r's forked child, fd its end of the socketpair (-1
	 * solo).  It runs the role's checks and ends with kit_role_exit()
	 * (or hands resfd to an exec'ed program, which calls it).
	 */
	void (*child)(const struct kit_roles *k, int role, int fd, int resfd);
	const void *arg;
	const char *doc;		/* its line in a --list, or NULL */
};
void kit_run_roles(const struct kit_roles *k);
/*
 * main for a program of n two-role cases t[]: kit_args from argv[1] (set
 * kit.glob first for shell patterns); --list prints the selected ones,
 * "NAME DOC" with NAME in a column of width; else kit_run_roles runs them.
 * Returns kit_done()'s status, or 2 on a usage error.
 */
int kit_main_roles(int argc, char **argv, const struct kit_roles *t, size_t n,
		   int width);
/* A role's end: its counts to the orchestrator, then exit(0) (exit(),
 * not _exit(): LeakSanitizer runs at exit). */
void kit_role_exit(int resfd) __attribute__((noreturn));
/* Its counts only (0 or -1), for a role that then ends with _exit(): a
 * process that dies with no atexit handlers or destructors run. */
int kit_role_report(int resfd);
/*
 * A role's outcome when case k is one check (whatever the roles did):
 * role 0's is the check ("ok   NAME[TAG]: DOC", or why it failed); the
 * other role's is a FAIL of its own when it failed, nothing when it did
 * not, so a case that passes counts once.
 */
void kit_role_outcome(const struct kit_roles *k, int role, int ok,
		      const char *why);

/* Out of band, on a role's fd: exact I/O with a deadline (ms); 0 or -1
 * with why set.  kit_barrier: both roles meet. */
int kit_send(int fd, const void *p, size_t len, unsigned int ms,
	     const char **why);
int kit_recv(int fd, void *p, size_t len, unsigned int ms, const char **why);
int kit_barrier(int fd, unsigned int ms, const char **why);
double kit_now_ms(void);
/* Put "K=V K=V" (NULL: nothing) into the environment (a role's, in its
 * forked child). */
void kit_env_apply(const char *spec);

#ifdef KIT_IMPLEMENTATION

#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct kit_state kit;

static void kit_vline(const char *file, int line, int ok, const char *expr,
		      const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		msg[0] = '\0';
	if (kit.quiet) {
		if (!ok)
			fprintf(stderr, "    %s:%d: CHECK failed: %s%s%s\n", file,
				line, expr, msg[0] ? ": " : "", msg);
		return;
	}
	printf("%s %s[%s]: %s", ok ? "ok  " : "FAIL", kit.name ? kit.name : "-",
	       kit.role ? kit.role : "-", msg[0] ? msg : expr);
	if (!ok)
		printf(" (%s:%d)", file, line);
	printf("\n");
	fflush(stdout);
}

int kit_check_at(const char *file, int line, int ok, const char *expr,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kit_vline(file, line, ok, expr, fmt, ap);
	va_end(ap);
	if (kit.quiet)
		kit.test_failed += !ok;
	else if (ok)
		kit.passed++;
	else
		kit.failed++;
	return ok;
}

int kit_setup_at(const char *file, int line, int ok, const char *fmt, ...)
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
	return kit_check_at(file, line, 0, "setup", "setup: %s", msg);
}

void kit_note(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	printf("#    %s[%s]: %s\n", kit.name ? kit.name : "-",
	       kit.role ? kit.role : "-", msg);
}

int kit_check_str(const char *file, int line, const char *expr,
		  const char *a, const char *b)
{
	int ok = a && b && strcmp(a, b) == 0;

	return kit_check_at(file, line, ok, expr,
			    "%s\n      got:      \"%s\"\n"
			    "      expected: \"%s\"",
			    ok ? "equal" : "CHECK_STR", a ? a : "(null)",
			    b ? b : "(null)");
}

int kit_match(const char *pats, const char *name)
{
	const char *p = pats, *bar;
	char one[256];
	size_t n;

	for (;;) {
		bar = strchr(p, '|');
		n = bar ? (size_t)(bar - p) : strlen(p);
		if (n > 0 && n < sizeof(one)) {
			memcpy(one, p, n);
			one[n] = '\0';
			if (strstr(name, one))
				return 1;
		}
		if (!bar)
			return 0;
		p = bar + 1;
	}
}

int kit_env_selected(const char *name)
{
	const char *env = getenv("QPERF_CHECKS");

	return !env || !*env || kit_match(env, name);
}

int kit_selected(const char *name)
{
	int i;

	if (!kit_env_selected(name))
		return 0;
	if (kit.npat == 0)
		return 1;
	for (i = 0; i < kit.npat; i++)
		if (kit.glob ? !fnmatch(kit.pat[i], name, 0) :
			       kit_match(kit.pat[i], name))
			return 1;
	return 0;
}

int kit_args(int argc, char **argv, int first)
{
	int i;

	for (i = first; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--list") || !strcmp(argv[i], "-l")) {
			kit.list = 1;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			fprintf(stderr, "usage: %s [--list] [PATTERN...]\n",
				argv[0]);
			return -1;
		}
	}
	kit.pat = argv + i;
	kit.npat = argc - i;
	return 0;
}

void kit_none_note(int ran)
{
	const char *env = getenv("QPERF_CHECKS");

	if (!ran && env && *env)
		printf("# no check matches the narrowing (QPERF_CHECKS='%s')\n",
		       env);
}

int kit_done(void)
{
	if (kit.list)
		return 0;
	kit_none_note(kit.ran);
	printf("%d passed, %d failed\n", kit.passed, kit.failed);
	return kit.failed ? 1 : 0;
}

void kit_run_test(const char *name, void (*fn)(void))
{
	pid_t pid;
	int status = 0;

	if (!kit_selected(name))
		return;
	if (kit.list) {
		printf("%s\n", name);
		return;
	}
	kit.ran++;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		kit.failed++;
		return;
	}
	if (pid == 0) {
		alarm(30);
		kit.name = name;
		fn();
		fflush(stdout);
		_exit(kit.test_failed ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		kit.passed++;
		printf("ok   %s\n", name);
	} else {
		kit.failed++;
		if (WIFSIGNALED(status))
			printf("FAIL %s (signal %d)\n", name, WTERMSIG(status));
		else
			printf("FAIL %s\n", name);
	}
}

double kit_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int kit_io(int fd, void *p, size_t len, int wr, unsigned int ms,
		  const char **why)
{
	size_t done = 0;
	double end = kit_now_ms() + ms;

	while (done < len) {
		struct pollfd pf = { fd, wr ? POLLOUT : POLLIN, 0 };
		double left = end - kit_now_ms();
		ssize_t n;

		if (left <= 0) {
			*why = "timed out";
			return -1;
		}
		if (poll(&pf, 1, (int)left + 1) <= 0)
			continue;
		n = wr ? send(fd, (char *)p + done, len - done, MSG_NOSIGNAL) :
			 recv(fd, (char *)p + done, len - done, 0);
		if (n == 0) {
			*why = "peer closed";
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*why = strerror(errno);
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

int kit_send(int fd, const void *p, size_t len, unsigned int ms,
	     const char **why)
{
	return kit_io(fd, (void *)p, len, 1, ms, why);
}

int kit_recv(int fd, void *p, size_t len, unsigned int ms, const char **why)
{
	return kit_io(fd, p, len, 0, ms, why);
}

int kit_barrier(int fd, unsigned int ms, const char **why)
{
	char c = 'B';

	if (kit_send(fd, &c, 1, ms, why) || kit_recv(fd, &c, 1, ms, why))
		return -1;
	return 0;
}

void kit_env_apply(const char *spec)
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

int kit_role_report(int resfd)
{
	int counts[2] = { kit.passed, kit.failed };

	fflush(stdout);
	return write(resfd, counts, sizeof(counts)) == sizeof(counts) ? 0 : -1;
}

void kit_role_exit(int resfd)
{
	exit(kit_role_report(resfd) ? 1 : 0);
}

void kit_role_outcome(const struct kit_roles *k, int role, int ok,
		      const char *why)
{
	if (role == 0 || !ok)
		kit_check_at(__FILE__, __LINE__, ok, "role", "%s",
			     ok ? (k->doc ? k->doc : "") : why);
}

void kit_run_roles(const struct kit_roles *k)
{
	int sp[2] = { -1, -1 }, res[2][2], r, done[2] = { 0, 0 };
	int status[2] = { 0, 0 }, killed[2] = { 0, 0 }, late = 0;
	pid_t pid[2] = { -1, -1 };
	double deadline = kit_now_ms() + (k->timeout_ms ? k->timeout_ms : 30000);

	kit.name = k->name;
	kit.role = NULL;
	kit.ran++;
	if (k->roles == 2 && socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0) {
		kit_check_at(__FILE__, __LINE__, 0, "socketpair",
			     "harness: socketpair: %s", strerror(errno));
		return;
	}
	for (r = 0; r < k->roles; r++) {
		if (pipe(res[r]) < 0) {
			kit_check_at(__FILE__, __LINE__, 0, "pipe",
				     "harness: pipe: %s", strerror(errno));
			return;
		}
		fflush(stdout);
		fflush(stderr);
		pid[r] = fork();
		if (pid[r] == 0) {
			if (k->roles == 2)
				close(sp[1 - r]);
			close(res[r][0]);
			if (r == 1)
				close(res[0][0]);
			kit.role = k->tags[r];
			kit.passed = kit.failed = 0;
			k->child(k, r, k->roles == 2 ? sp[r] : -1, res[r][1]);
			kit_role_exit(res[r][1]);
		}
		close(res[r][1]);
	}
	if (k->roles == 2) {
		close(sp[0]);
		close(sp[1]);
	}
	while ((!done[0] || !done[1]) && !late) {
		struct timespec nap = { 0, 5 * 1000 * 1000 };

		for (r = 0; r < 2; r++)
			if (r >= k->roles || pid[r] < 0 ||
			    (!done[r] &&
			     waitpid(pid[r], &status[r], WNOHANG) == pid[r]))
				done[r] = 1;
		if (done[0] && done[1])
			break;
		if (kit_now_ms() > deadline) {
			for (r = 0; r < k->roles; r++) {
				if (done[r])
					continue;
				kill(pid[r], SIGKILL); /* our own child */
				waitpid(pid[r], &status[r], 0);
				done[r] = 1;
				killed[r] = 1;
			}
			late = 1;
			break;
		}
		nanosleep(&nap, NULL);
	}
	for (r = 0; r < k->roles; r++) {
		int counts[2], st = status[r];
		ssize_t n = pid[r] < 0 ? 0 : read(res[r][0], counts, sizeof(counts));

		close(res[r][0]);
		kit.role = k->tags[r];
		if (pid[r] < 0) {
			kit_check_at(__FILE__, __LINE__, 0, "fork",
				     "harness: fork failed");
			continue;
		}
		if (n == (ssize_t)sizeof(counts)) {
			kit.passed += counts[0];
			kit.failed += counts[1];
		}
		if (killed[r])
			kit_check_at(__FILE__, __LINE__, 0, "hung",
			      "role %s hung (killed at the case deadline, %u ms)",
			      k->tags[r], k->timeout_ms ? k->timeout_ms : 30000);
		else if (n != (ssize_t)sizeof(counts) || !WIFEXITED(st) ||
			 WEXITSTATUS(st) != 0)
			kit_check_at(__FILE__, __LINE__, 0, "ended",
			      "role %s ended badly (%s %d%s; sanitizer report or crash?)",
			      k->tags[r], WIFSIGNALED(st) ? "signal" : "exit status",
			      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			      n != (ssize_t)sizeof(counts) ? ", no result" : "");
	}
	kit.role = NULL;
}

int kit_main_roles(int argc, char **argv, const struct kit_roles *t, size_t n,
		   int width)
{
	size_t i;

	if (kit_args(argc, argv, 1) < 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (!kit_selected(t[i].name))
			continue;
		if (kit.list)
			printf("%-*s %s\n", width, t[i].name,
			       t[i].doc ? t[i].doc : "");
		else
			kit_run_roles(&t[i]);
	}
	return kit_done();
}

#endif /* KIT_IMPLEMENTATION */
#endif
