/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line parsing: the one typed option table (names, short names,
 * type, limits, loc/rem scope, help) that drives parsing, validation,
 * --loop, --help and the man-page check.
 *
 * Unlike 0.4.11, the whole command line is parsed and validated before
 * any test runs; the result is a plan.  Each test in the plan carries a
 * snapshot of the settings as they were when its name was parsed, so
 * "qperf h tcp_lat -v udp_lat" still runs tcp_lat without -v (spec §1.1).
 */
#ifndef QPERF_OPTS_H
#define QPERF_OPTS_H

#include <stdio.h>

#include "opt_table.h"
#include "param.h"
#include "plan.h"

/*
 * Parse argv into plan.  Returns 0 on success, or -1 with a message in err
 * (no "qperf: " prefix, no newline) naming the bad option and value; the
 * caller prints it and exits 2.  Does not print, does not block.
 */
int opts_parse(int argc, char **argv, struct plan *plan, char *err,
	       size_t errlen);

/* Release what opts_parse() allocated. */
void plan_free(struct plan *plan);

/*
 * Set opt (the variable of a --loop) to the value v in s, exactly as if
 * "opt v" had been typed.  v is in the option's own unit: bytes, a count,
 * or nanoseconds for a time (typed as seconds with up to nine decimals).
 * Returns 0 or -1 with err filled.
 */
int opts_set_value(struct settings *s, const struct opt_desc *opt,
		   uint64_t v, char *err, size_t errlen);

/*
 * Expand the loops of s: calls fn once per iteration with the settings of
 * that iteration (first loop outermost).  Stops and returns fn's value at
 * the first non-zero return.  Loops always terminate: loop_plan rejects
 * zero increments, "*1" and multiplying from 0, and stops on overflow.
 */
int loops_run(const struct settings *s,
	      int (*fn)(const struct settings *, void *), void *arg,
	      char *err, size_t errlen);

/*
 * Print help for topic ("main", "tests", "opts", "options", "examples",
 * a test name ...).  Returns 0, or -1 with err filled for an unknown topic.
 */
int help_print(FILE *f, const char *topic, char *err, size_t errlen);

/* The i-th help topic completion offers (the fixed ones, then one per
 * test), or NULL past the last. */
const char *help_topic(size_t i);

/* Length of the first sentence of help text h, without its period. */
int help_summary_len(const char *h);

/* Whether option o takes a value (the next word), and whether --loop
 * can vary it; the parser's own answers, for completion. */
bool opt_takes_value(const struct opt_desc *o);
bool opt_loopable(const struct opt_desc *o);

/*
 * Print the completion script for shell ("bash", "zsh" or "fish"; the
 * hidden "devices" prints the local RDMA device names, one a line) to f
 * (core/completion.c).  Returns 0, or -1 with err naming a bad shell.
 */
int completion_print(FILE *f, const char *shell, char *err, size_t errlen);

#endif
