/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A tiny two-process test harness for the softverbs semantics program.
 *
 * Every test case runs as two freshly exec'ed processes, role A (the
 * requester) and role B (the responder), joined by a stream socket for
 * out-of-band control (address exchange, barriers).  Each role may get its
 * own extra environment (fault-injection knobs, emulated node id) before the
 * exec, so knobs read when the library loads are honoured.  A crash, a hang
 * or a failed check in either role is one failure of the case; the other
 * cases still run.  Every check prints one "ok"/"FAIL" line; the
 * orchestrator's last line is "N passed, N failed".  The running and the
 * checks are the test kit's (tests/kit/check.h, kit_run_roles); the roles
 * are exec'ed afresh here.
 */
#ifndef SV_HARNESS_H
#define SV_HARNESS_H

enum { ROLE_A, ROLE_B };

struct sv_side;

struct sv_test {
	const char *name;
	void (*fn)(struct sv_side *s);	/* runs in both roles */
	const char *env_a;		/* "K=V K=V" for role A, or NULL */
	const char *env_b;		/* same for role B */
	unsigned int timeout;		/* seconds for the whole case; 0: 30 */
	const char *doc;		/* one line for -l */
};

/* The test table, defined by the program (NULL name ends it). */
extern const struct sv_test sv_tests[];

/*
 * The checks are the test kit's (tests/kit/check.h): CHECK(ok [, fmt, ...])
 * records one check of the current role, prints an ok/FAIL line and
 * returns ok (0 or 1), so callers can stop a case after a failed setup
 * step; SETUP(ok, fmt, ...) is silent and not counted when it succeeds,
 * one FAIL when it does not; note() prints a diagnostic line ("# ...").
 */
#include "../kit/check.h"

#define note kit_note

/* Monotonic time in milliseconds (double). */
#define now_ms kit_now_ms

#endif
