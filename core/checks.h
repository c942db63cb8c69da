/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Verdicts in the engine (issue 18 items 3 and 4): the options --expect,
 * --baseline, --tolerance and --compare into the plan, the checks planned
 * against the tests named (a figure a test does not produce is a usage
 * error), each result checked as it arrives, and the run's exit status 3
 * when every test ran but a check failed.  lib/verdict.h parses and
 * evaluates; output/baseline.h reads baselines; core never formats.
 */
#ifndef QPERF_CHECKS_H
#define QPERF_CHECKS_H

#include <stddef.h>

#include "plan.h"

struct opt_desc;
struct outputs;
struct test_desc;
struct verdict;

/*
 * Option o (OA_EXPECT, OA_BASELINE, OA_TOLERANCE or OA_COMPARE) as typed
 * (spelling) with value v into p->checks.  0, or -1 with err naming the
 * option, the value and what is wrong (a usage error).
 */
int checks_opt(struct plan *p, const struct opt_desc *o,
	       const char *spelling, const char *v, char *err, size_t errlen);

/* A word after --compare A: the second file.  0 or -1 with err. */
int checks_word(struct plan *p, const char *w, char *err, size_t errlen);

/*
 * Once the command line is read: the checks against the tests named, the
 * modes they cannot be used with.  Returns 0 to go on deciding the mode,
 * 1 when the plan is a --compare (complete), -1 with err (usage error).
 */
int checks_plan(struct plan *p, char *err, size_t errlen);

/* main(): load the --baseline file, if any.  0, or -1 with err. */
int checks_load(struct plan *p, char *err, size_t errlen);
void checks_unload(struct plan *p);

struct checks;

/* The client's checking state for plan p, or NULL if it checks nothing. */
struct checks *checks_new(const struct plan *p);
void checks_free(struct checks *c);

/*
 * Check one result of test t run with settings s (par after
 * param_prepare()): returns its verdict (owned by c, valid until the next
 * call), or NULL when c is NULL.  A baseline with no match for the result
 * is said as a warning on out.
 */
const struct verdict *checks_result(struct checks *c, struct outputs *out,
				    const struct test_desc *t,
				    const struct settings *s,
				    const struct par_set *par,
				    const struct results *res);

/*
 * Cluster mode on rank 0: every --expect of p against pair result r of
 * test t, into v (lib/verdict.h), settled.  False (v untouched) when
 * there is nothing to check: no --expect, or t measures nothing.
 */
struct pair_res;
bool checks_pair(const struct plan *p, const struct test_desc *t,
		 const struct pair_res *r, struct verdict *v);

/*
 * After the run: VERDICT_FAILED_STATUS with msg "N of M results failed
 * their checks" if a result failed one, else 0.
 */
int checks_status(const struct checks *c, char *msg, size_t msglen);

#endif
