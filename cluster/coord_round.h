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

/* The longest a job of plan item i may take before its client is gone:
 * its time (or the longest by count), 4 timeouts and 10 s. */
uint64_t coord_job_bound(const struct plan *p, size_t i);

/* Keep idle ranks sure that rank 0 is alive (a PING to each). */
void coord_ping_all(struct coord *c);

/*
 * Rank k's next message, read without waiting (a message in part waits
 * in its buffer while rank 0 serves the others): 1 with it in *m, a
 * RESULT whose figures cannot be (not finite, negative) turned into a
 * failed one (status COORD_REFUSED, why in its err, said on stderr); 0 if
 * none is whole yet; -1 if the rank is gone, now (a message that is not
 * genuine, or it left: coord_gone() says why) or before.
 */
int coord_read(struct coord *c, uint32_t k, struct cmsg *m);

/*
 * Run the jobs of plan items [item_lo, item_hi) for each pair at once,
 * until every pair is done; results go to c->record.
 */
int coord_round(struct coord *c, const struct sched_pair *pairs,
		uint32_t np);

#endif
