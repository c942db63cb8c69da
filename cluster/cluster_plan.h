/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's --loop (cluster_plan.c): each looped test of the plan
 * becomes one plan item per iteration, with a label.
 */
#ifndef QPERF_CLUSTER_PLAN_H
#define QPERF_CLUSTER_PLAN_H

#include <stddef.h>

#include "core/opts.h"

#define CLUSTER_ITEMS_MAX 128 /* tests and --loop iterations of a run */

/*
 * Expand the plan's --loop tests into one item per iteration, each with
 * its label.  Every rank does this before it starts.
 * Returns 0, or -1 with err filled (a bad loop; more than
 * CLUSTER_ITEMS_MAX items).
 */
int cluster_expand(struct plan *p, char *err, size_t errlen);

/* "rc_bw msg_size=64KiB,sock_buf_size=1MiB": a test and s's loop values. */
void cluster_item_label(const struct test_desc *t, const struct settings *s,
			char *out, size_t len);

/* How the reports name an item: its label, else its test's name. */
const char *cluster_item_name(const struct plan_item *it);

#endif
