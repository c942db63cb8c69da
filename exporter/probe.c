// SPDX-License-Identifier: GPL-2.0-only
/*
 * One probe: this binary run as a client (qperf --json ... HOST TEST) in a
 * process group of its own, its stdout (the JSON document) and stderr
 * read to the deadline, then the whole group killed if it is still
 * there.  A probe can therefore neither hang nor crash the exporter, and
 * the exporter's threads never run a test themselves.  posix_spawn (not
 * fork) because the exporter is multi-threaded; every descriptor the
 * exporter holds is close-on-exec, so a child holds only its pipes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exporter.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/types.h"

#define OUT_MAX (4u << 20) /* bytes of JSON a probe may write */
#define ERR_MAX 4096u /* bytes of stderr kept (the last ones) */

extern char **environ;

struct sink {
	char *buf;
	size_t len, cap, max;
	bool keep_tail; /* past max keep the last bytes (stderr) */
};

/* Append n bytes; returns -1 if a head-kept sink would pass its max. */
static int sink_add(struct sink *s, const char *p, size_t n)
{
	if (s->keep_tail && n >= s->max) {
		p += n - (s->max - 1);
		n = s->max - 1;
		s->len = 0;
	}
	if (s->len + n + 1 > s->max) {
		if (!s->keep_tail)
			return -1;
		size_t drop = s->len + n + 1 - s->max;

		memmove(s->buf, s->buf + drop, s->len - drop);
		s->len -= drop;
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *b;

		while (cap < s->len + n + 1)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return -1;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return 0;
}

static int spawn_child(const char *const *av, int out_fd, int err_fd,
		       pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	int rc;

	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	if (posix_spawn_file_actions_init(&fa))
		return ENOMEM;
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		return ENOMEM;
	}
	rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
							   POSIX_SPAWN_SETSIGMASK |
							   POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = posix_spawnattr_setpgroup(&at, 0);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &def);
	if (!rc)
		rc = posix_spawn(pid, av[0], &fa, &at, (char *const *)av,
				 environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* Read both pipes until they close, the deadline passes or stdout grows
 * past OUT_MAX.  Returns 0 when both closed, -1 at the deadline, -2 when
 * the output was too large. */
static int read_pipes(int out, int err, struct sink *so, struct sink *se,
		      uint64_t deadline)
{
	struct pollfd p[2] = { { .fd = out, .events = POLLIN },
			       { .fd = err, .events = POLLIN } };
	struct sink *s[2] = { so, se };
	char buf[8192];

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		uint64_t now = now_ns();
		int ms;

		if (now >= deadline)
			return -1;
		ms = (int)((deadline - now + 999999) / 1000000);
		if (poll(p, 2, ms) < 0 && errno != EINTR)
			return -1;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				p[i].fd = -1;
				continue;
			}
			if (sink_add(s[i], buf, (size_t)n) < 0)
				return -2;
		}
	}
	return 0;
}

/* Wait for pid until the deadline; then kill its group.  Returns the
 * wait status, or -1 if it had to be killed. */
static int reap(pid_t pid, uint64_t deadline)
{
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return st;
		if (w < 0 && errno != EINTR)
			return -1;
		if (now_ns() >= deadline)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 5000000 }, NULL);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* The last non-empty line of s, without "qperf: ". */
static void last_line(char *s, char *out, size_t len)
{
	char *e = s + strlen(s), *b;

	while (e > s && (e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	b = strrchr(s, '\n');
	b = b ? b + 1 : s;
	if (!strncmp(b, "qperf: ", 7))
		b += 7;
	xsnprintf(out, len, "%s", b);
}

/* Judge the child's end and document into o. */
static void judge(struct probe_outcome *o, int st, int cut, char *errtext,
		  double limit)
{
	const json_t *t = json_array_get(json_object_get(o->doc, "tests"), 0);
	const char *msg =
		json_string_value(json_object_get(json_object_get(o->doc, "error"),
						  "message"));

	if (!msg)
		msg = json_string_value(json_object_get(
			json_object_get(t, "error"), "message"));
	o->exit_status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (cut == -2) {
		xsnprintf(o->error, sizeof(o->error),
			  "the test wrote more than %u bytes", OUT_MAX);
		return;
	}
	if (cut || st < 0) {
		xsnprintf(o->error, sizeof(o->error),
			  "timeout: the test did not end within %.3g s", limit);
		return;
	}
	if (WIFSIGNALED(st)) {
		xsnprintf(o->error, sizeof(o->error), "the test died of signal %d",
			  WTERMSIG(st));
		return;
	}
	if ((o->exit_status == 0 || o->exit_status == 3) && t &&
	    !strcmp(json_string_value(json_object_get(t, "status")) ?: "", "ok")) {
		o->success = true;
		return;
	}
	if (msg)
		xsnprintf(o->error, sizeof(o->error), "%s", msg);
	else if (*errtext)
		last_line(errtext, o->error, sizeof(o->error));
	else
		xsnprintf(o->error, sizeof(o->error),
			  "the test exited with status %d and no result",
			  o->exit_status);
}

int probe_run(const struct probe_req *r, const char *exe,
	      uint64_t deadline_ns, struct probe_outcome *o)
{
	const char *av[32];
	char port[8];
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	struct sink so = { .max = OUT_MAX }, se = { .max = ERR_MAX, .keep_tail = true };
	uint64_t t0 = now_ns();
	pid_t pid;
	int rc, st, cut;

	memset(o, 0, sizeof(*o));
	o->exit_status = -1;
	if (probe_argv(r, exe, port, sizeof(port), av, 32) < 0 ||
	    pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		xsnprintf(o->error, sizeof(o->error), "cannot start the test: %s",
			  strerror(errno));
		goto out;
	}
	rc = spawn_child(av, out[1], err[1], &pid);
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;
	if (rc) {
		xsnprintf(o->error, sizeof(o->error),
			  "cannot start the test: %s: %s", exe, strerror(rc));
		goto out;
	}
	cut = read_pipes(out[0], err[0], &so, &se, deadline_ns);
	/* one that closed its output but lingers is cut at the deadline */
	st = reap(pid, cut ? 0 : deadline_ns);
	if (so.len && !cut)
		o->doc = json_loadb(so.buf, so.len, 0, NULL);
	judge(o, st, cut, se.buf ? se.buf : (char[]){ "" },
	      (double)(deadline_ns - t0) / NS_PER_SEC);
out:
	o->duration = (double)(now_ns() - t0) / NS_PER_SEC;
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	free(so.buf);
	free(se.buf);
	return o->exit_status == 2 ? 1 : 0;
}
