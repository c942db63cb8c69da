/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode: `qperf --cluster PATTERN [OPTIONS] TEST...`, one process
 * per node started by a launcher (mpirun, srun, or anything that sets
 * QPERF_RANK and QPERF_SIZE).  The launcher only starts the processes and
 * gives each its rank; everything else goes over qperf's own TCP
 * connections.
 *
 * Every rank runs a qperf server (a forked child, supervised as any
 * server) and a worker that connects to rank 0's rendezvous address
 * (--rendezvous, or found through the launcher's PMIx: pmix_boot.h), says
 * JOIN and then runs, as a client, the tests rank 0 hands it.  Rank
 * 0 also runs the coordinator (cluster_coord.h): it collects the joins,
 * walks the schedule (sched.h) round by round, gathers each pair's
 * figures, finds and retests outliers (outlier.h) and prints the report.
 */
#ifndef QPERF_CLUSTER_H
#define QPERF_CLUSTER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cluster_msg.h"
#include "core/opts.h"
#include "rank_env.h"

#define CLUSTER_DEFAULT_PORT 19766 /* --rendezvous without a port */

/* Run this rank.  Returns the exit status; prints its own errors. */
int cluster_main(const struct plan *p);

/*
 * -i with a comma-separated list (one device per local rank, e.g.
 * "mlx5_0,mlx5_1"): entry local % count of list into out (room len).
 * A value without a comma is copied.  0, or -1 if the entry is empty or
 * does not fit.
 */
int cluster_pick_id(const char *list, uint32_t local, char *out,
		    size_t len);

/*
 * In a child just forked from parent: end with the parent (SIGTERM when
 * it dies), so that a killed rank leaves no server, worker or flow behind.
 */
void cluster_die_with(pid_t parent);

#endif
