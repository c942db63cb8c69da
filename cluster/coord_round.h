/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rank 0's rounds (coord_round.c): hand each pair of a round its jobs,
 * gather the results, ping idle ranks, mark ranks gone.
 */
#ifndef QPERF_COORD_ROUND_H
#define QPERF_COORD_ROUND_H

#include <stdint.h>

#include "coord_state.h"
#include "lib/sched.h"

/* Mark rank k gone (says why on stderr once). */
void coord_gone(struct coord *c, uint32_t k, const char *why);

/* Keep idle ranks sure that rank 0 is alive (a PING to each). */
void coord_ping_all(struct coord *c);

/*
 * Run the jobs of plan items [item_lo, item_hi) for each pair at once,
 * until every pair is done; results go to c->record.
 */
int coord_round(struct coord *c, const struct sched_pair *pairs,
		uint32_t np);

#endif
