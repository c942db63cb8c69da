/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What cmcheck and rscheck share: the end of a case (its roles reaped, the
 * error pipe read, the verdict printed) and main (-l lists the cases; names
 * given select them; the last line is "N passed, N failed").
 */
#ifndef CHECKRUN_H
#define CHECKRUN_H

#include <stddef.h>
#include <sys/types.h>

/*
 * check_case: one case: pipes up and down (for the roles' handshakes) and
 * an error pipe; start(k, up, down, errfd, pid) forks the roles (pid[1] < 0
 * when there is one), named who[0] and who[1] in a failure; then the
 * verdict: ok unless a role failed or wrote to the error pipe; it prints
 * "ok   NAME" or "FAIL NAME: why" and returns ok.
 */
typedef void check_start(size_t k, int up[2], int down[2], int errfd,
			 pid_t pid[2]);
int check_case(size_t k, const char *name, const char *const who[2],
	       int up[2], int down[2], check_start *start);

/* check_main: the program's main over its n cases, through the callbacks */
struct check_prog {
	size_t ncases;
	int width;			/* of the name column of -l */
	const char *(*name)(size_t k);
	const char *(*what)(size_t k);
	int (*run)(size_t k);		/* 1 if case k passed */
};
int check_main(int argc, char **argv, const struct check_prog *p);

#endif
