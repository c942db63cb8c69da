/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rank 0's figures from the coordinator state (coord_state.h): goodness,
 * the figure users read, a pair's figure and why it is missing, a gone
 * rank's line.  Pure.
 */
#ifndef QPERF_COORD_FIG_H
#define QPERF_COORD_FIG_H

#include <stddef.h>

#include "coord_state.h"

/* Is t a one-way bandwidth test (measured in both directions)? */
bool coord_one_way(const struct test_desc *t);

/* Bigger is better: 1/latency for latency tests, else the rate. */
double coord_goodness(const struct test_desc *t, const struct pair_res *r);

/* A goodness as the figure users read, in *unit ("MB/s", "us", "msg/s"). */
double coord_display(const struct test_desc *t, double g, const char **unit);

/* The figure users read, in its unit ("12.3 MB/s"), from a goodness. */
const char *coord_show(const struct test_desc *t, double g, char *buf,
		       size_t len);

/*
 * Why test item has no figure for client against server (which differ):
 * failed (with the error), a rank gone, or not in the schedule.
 */
void coord_why_missing(const struct coord *c, size_t item, uint32_t client,
		       uint32_t server, char *buf, size_t len);

/*
 * The figure of item for client against server as goodness, NAN if none.
 * A test measured once per pair gives its figure for both directions.
 */
double coord_fig(const struct coord *c, size_t item, uint32_t client,
		 uint32_t server);

/* The same from the -I matrix (B/s); NAN if none or no -I. */
double coord_low(const struct coord *c, size_t item, uint32_t client,
		 uint32_t server);

/* A gone rank's line of the report, "gone: rank ...", no newline. */
void coord_gone_line(const struct coord *c, uint32_t k, char *buf,
		     size_t len);

#endif
