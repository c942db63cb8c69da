/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The test kit's C side, header-only (each harness includes it; no
 * Makefile source list has to name it).
 *
 * Narrowing, the same in every suite (tests/run.sh SUITE:PATTERN sets
 * QPERF_CHECKS; tests/lib.sh's checks_match reads it the same way): a
 * check runs only if its name contains one of the "|"-separated
 * substrings of QPERF_CHECKS (all when it is unset or empty);
 * case-sensitive.  A harness may add its own command-line patterns;
 * both must select a check.  When narrowing selects nothing, the
 * harness says so (kit_none_note) before its "0 passed, 0 failed".
 */
#ifndef QPERF_KIT_CHECK_H
#define QPERF_KIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does name contain one of the "|"-separated substrings of pats? */
static inline int kit_match(const char *pats, const char *name)
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

/* Is check name selected by QPERF_CHECKS? */
static inline int kit_env_selected(const char *name)
{
	const char *env = getenv("QPERF_CHECKS");

	return !env || !*env || kit_match(env, name);
}

/* Under narrowing, a note when nothing was selected (ran: how many ran). */
static inline void kit_none_note(int ran)
{
	const char *env = getenv("QPERF_CHECKS");

	if (!ran && env && *env)
		printf("# no check matches the narrowing (QPERF_CHECKS='%s')\n",
		       env);
}

#endif
