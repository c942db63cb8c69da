/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the unit tests of option parsing (test_opts.c,
 * test_opts_param.c and test_plan.c): parse a command line into a plan,
 * expect a line to be rejected with an exact message, find an option of
 * the table, and trace the values --loop gives.
 * Each including file is one test program.
 */
#ifndef QPERF_OPTS_UTIL_H
#define QPERF_OPTS_UTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "transports/transport.h"
#include "harness.h"

#define MAXARGS 64

/*
 * Parse a space-separated command line (after "qperf").  The words are
 * kept for the life of the test child, since the plan points into them.
 */
static int parse(const char *line, struct plan *p, char *err, size_t errlen)
{
	char *copy = strdup(line);
	char **argv = calloc(MAXARGS, sizeof(*argv));
	int argc = 0;

	argv[argc++] = "qperf";
	for (char *w = strtok(copy, " "); w && argc < MAXARGS - 1;
	     w = strtok(NULL, " "))
		argv[argc++] = w;
	return opts_parse(argc, argv, p, err, errlen);
}

/* Expect line to be rejected with exactly msg. */
#define REJECT(line, msg)                                                 \
	do {                                                              \
		struct plan rp_;                                          \
		char re_[512];                                            \
		CHECK(parse(line, &rp_, re_, sizeof(re_)) == -1);         \
		CHECK_STR(re_, msg);                                      \
		plan_free(&rp_);                                          \
	} while (0)

static inline const struct opt_desc *find_opt(const char *name)
{
	for (size_t i = 0; i < opt_count; i++)
		if (!strcmp(opt_table[i].name, name) ||
		    (opt_table[i].abbr && !strcmp(opt_table[i].abbr, name)))
			return &opt_table[i];
	return NULL;
}

/* Collect the values of the loop variables at each call. */
struct trace {
	int n;
	uint64_t v[256][2];
};

static inline int record(const struct settings *s, void *arg)
{
	struct trace *t = arg;

	if (t->n < 256) {
		t->v[t->n][0] = s->par.val[SIDE_REM][PAR_MSG_SIZE];
		t->v[t->n][1] = s->par.val[SIDE_REM][PAR_TIME];
	}
	t->n++;
	return 0;
}

/* Run the loops of the first test of line. */
static inline int run_loops(const char *line, struct trace *t)
{
	struct plan p;
	char err[256];
	int rc;

	memset(t, 0, sizeof(*t));
	if (parse(line, &p, err, sizeof(err))) {
		fprintf(stderr, "    %s\n", err);
		return -1;
	}
	rc = loops_run(&p.tests[0].s, record, t, err, sizeof(err));
	plan_free(&p);
	return rc;
}

#endif
