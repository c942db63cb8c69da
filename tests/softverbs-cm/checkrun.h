/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What cmcheck and rscheck share: running a case's roles in processes,
 * the verdict, and main.
 */
#ifndef CHECKRUN_H
#define CHECKRUN_H

#include <stddef.h>
#include <sys/types.h>

/*
 * A case runs in processes: start(k, up, down, errfd, pid) forks case k's
 * roles (pid[1] stays -1 when there is one), given two pipes for their
 * handshakes (up, down) and the error pipe errfd, where a failing role
 * writes why.  The case passes if every role exits 0 and none wrote.
 */
typedef void check_start(size_t k, int up[2], int down[2], int errfd,
			 pid_t pid[2]);

/* A program: its table of cases, each with a name and a what (const char *) */
struct check_prog {
	const void *cases;
	size_t size, ncases;		/* of an entry; the entries */
	size_t name_off, what_off;	/* offsetof name, what in an entry */
	int width;			/* of the name column of -l */
	const char *who[2];		/* the roles, for the failure lines */
	check_start *start;
};

/*
 * check_main: the program's main, on the test kit (tests/kit/check.h):
 * -l/--list lists the cases; names (or shell patterns) given select them,
 * and so does QPERF_CHECKS; each prints "ok   NAME" or "FAIL NAME: why";
 * the last line is "N passed, N failed", the exit status 1 on any failure.
 */
int check_main(int argc, char **argv, const struct check_prog *p);

/* CHECK_MAIN: main over the table "cases" of TYPE entries */
#define CHECK_MAIN(type, width, who0, who1, startfn)			\
int main(int argc, char **argv)						\
{									\
	static const struct check_prog prog = {				\
		cases, sizeof(cases[0]), sizeof(cases) / sizeof(cases[0]), \
		offsetof(type, name), offsetof(type, what),		\
		width, { who0, who1 }, startfn				\
	};								\
	return check_main(argc, argv, &prog);				\
}

#endif
