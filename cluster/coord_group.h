/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rank 0's side of one round of a group pattern (incast:K, fanout:K) for
 * one plan item (coord_group.c): its K flows set up, started together on
 * the ranks' own clocks, and their results.  What a round gave is made
 * into the report by group_run.c.
 */
#ifndef QPERF_COORD_GROUP_H
#define QPERF_COORD_GROUP_H

#include <stdint.h>

#include "coord_state.h"

/* The victim of a latency round starts this long after its loads, so
 * that its window sees them at speed (as --load's warm-up). */
#define GROUP_WARMUP (200 * 1000000ULL)

/* One flow of a round: client against server, and what it gave. */
struct gflow {
	uint32_t client, server;
	uint32_t flow; /* CRUN_SYNC, with CRUN_LOAD for a load */
	uint32_t job; /* 0: never sent */
	int st; /* where it is (coord_group.c) */
	uint64_t deadline; /* now_ns(): gone if not done by then */
	uint64_t due; /* ns after the common start (a victim's warm-up) */
	int64_t off; /* ns: its rank's clock less rank 0's */
	bool stopped; /* a load: STOP sent */
	struct cmsg_result res; /* its RESULT, or why it failed */
};

/* A round as it ran. */
struct gres {
	uint32_t k;
	struct gflow f[SCHED_GROUP_MAX];
	bool started; /* GO was sent with a start */
	uint64_t uncert; /* ns: the largest half round trip behind an
			  * offset */
};

/*
 * Run plan item `item` for hub and its k members (the schedule's order)
 * at once: incast's flows from each member into the hub, fan-out's from
 * the hub to each; a latency item's first flow is the victim, the others
 * loads (CRUN_LOAD).  Every flow is set up, then all start at one time
 * (each rank's clock offset measured just before), then each RESULT is
 * gathered into g; a load is stopped once the victim is done.  If a flow
 * fails before the start, none starts.  Every wait is bounded; a rank
 * that does not answer in time is gone.  Idle ranks are pinged.
 */
void coord_group(struct coord *c, uint32_t item, uint32_t hub,
		 const uint32_t *members, uint32_t k, struct gres *g);

#endif
