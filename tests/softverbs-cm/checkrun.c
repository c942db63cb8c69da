// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* checkrun.c: see checkrun.h; the selection, the counts and the closing
 * line are the test kit's (tests/kit/check.h) */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KIT_IMPLEMENTATION
#include "../kit/check.h"
#include "checkrun.h"

/* wait for a role; 1 if it exited 0, else 0 with how it ended in crash */
static int check_reaped(pid_t pid, const char *who, char *crash, size_t len)
{
	int st;

	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st))
		return 1;
	snprintf(crash, len, "%s role: %s %d", who,
		 WIFSIGNALED(st) ? "signal" : "exit status",
		 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return 0;
}

/* the verdict; closes errfd and the case's pipes */
static int check_done(const char *name, int ok, const char *crash, int errfd,
		      int up[2], int down[2])
{
	char msg[600];
	ssize_t n;

	n = read(errfd, msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = 0;
	if (n > 0)
		ok = 0;
	close(errfd);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	if (ok)
		printf("ok   %s\n", name);
	else
		printf("FAIL %s: %s\n", name, msg[0] ? msg : crash);
	fflush(stdout);
	return ok;
}

static const char *field(const struct check_prog *p, size_t k, size_t off)
{
	const char *e = (const char *)p->cases + k * p->size + off;
	const char *v;

	memcpy(&v, e, sizeof(v));
	return v;
}

static int check_case(const struct check_prog *p, size_t k)
{
	int up[2], down[2], errp[2], ok;
	char crash[64] = "";
	pid_t pid[2] = { -1, -1 };

	if (pipe(up) || pipe(down) || pipe(errp))
		return 0;
	p->start(k, up, down, errp[1], pid);
	close(errp[1]);
	ok = check_reaped(pid[0], p->who[0], crash, sizeof(crash)) &
	     (pid[1] <= 0 ||
	      check_reaped(pid[1], p->who[1], crash, sizeof(crash)));
	return check_done(field(p, k, p->name_off), ok, crash, errp[0], up,
			  down);
}

int check_main(int argc, char **argv, const struct check_prog *p)
{
	size_t k;
	const char *name;

	signal(SIGPIPE, SIG_IGN);
	kit.glob = 1; /* names, or shell patterns */
	if (kit_args(argc, argv, 1) < 0)
		return 2;
	for (k = 0; k < p->ncases; k++) {
		name = field(p, k, p->name_off);
		if (!kit_selected(name))
			continue;
		if (kit.list) {
			printf("%-*s %s\n", p->width, name,
			       field(p, k, p->what_off));
			continue;
		}
		kit.ran++;
		if (check_case(p, k))
			kit.passed++;
		else
			kit.failed++;
	}
	return kit_done();
}
