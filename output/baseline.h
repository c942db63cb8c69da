/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Baselines (issue 18 item 4): an earlier run's --json document, loaded
 * once, and the lookups --baseline and --compare make in it.
 *
 * An entry is one test (or --loop iteration) of the document that
 * finished with results.  Two entries are the same test when they have
 * the same test name, the same loop values and the same parameters of
 * both ends, leaving out those that only say how long a run lasts
 * (time_s, timeout_s, no_msgs): a baseline taken with -t 10 still serves
 * a run with -t 2.  Nothing here prints or blocks, except reading the file.
 */
#ifndef QPERF_OUTPUT_BASELINE_H
#define QPERF_OUTPUT_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/types.h"
#include "lib/verdict.h"

struct baseline;
struct par_set;

/*
 * Load path, a qperf --json document.  Returns the baseline, or NULL with
 * err naming the file and what is wrong with it (opt: the option, for the
 * message).
 */
struct baseline *baseline_load(const char *opt, const char *path, char *err,
			       size_t errlen);
void baseline_free(struct baseline *b);

/* The file's name, as given. */
const char *baseline_path(const struct baseline *b);

/* The entries with results, in the file's order (borrowed). */
json_t *baseline_entries(const struct baseline *b);

/*
 * The first entry the same as this run's test (its name, loop values and
 * parameters) not yet taken; it is taken.  NULL: no match.
 */
json_t *baseline_match(struct baseline *b, const char *test,
		       const struct loop_val *lv, int nloops,
		       const struct par_set *par);

/* Entries a and b are the same test (see above). */
bool baseline_same(json_t *a, json_t *b);

/* Figure f of entry e's results, SI units; false if it has none. */
bool baseline_value(json_t *e, enum vfig f, double *v);

/*
 * The figures a baseline compares for a test whose JSON "measure" is
 * measure: bandwidth tests their bandwidths, latency tests the latency,
 * rate tests the message rate.  Returns how many went into f (0..2).
 */
int baseline_figs(const char *measure, enum vfig f[2]);

/* "tcp_bw msg_size=1000" for entry e. */
char *baseline_describe(json_t *e, char *buf, size_t len);

#endif
