/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A rank's jobs as a client (flow.c): a pair's job at once in the
 * worker, and the flows of a group pattern (incast:K, fanout:K) each in a
 * child process, so that one rank can run several at once (fan-out's
 * sender runs K) and all start at rank 0's word.
 *
 * A flow (RUN with CRUN_SYNC) runs in a forked child: it sets up its test
 * against its peer's server, then stops at the client's barrier just
 * before the "before" synchronisation that starts the measured window
 * (core/session.c), and the worker says READY to rank 0.  Rank 0 answers
 * each with a GO carrying a start time on this rank's monotonic clock;
 * the child sleeps until then and starts.  A load (CRUN_LOAD) runs the
 * bandwidth test of its item's transport with -t 0 until rank 0's STOP,
 * which the worker turns into a SIGINT to its child.  The worker answers
 * rank 0's CLOCK probes at once, with its clock.
 */
#ifndef QPERF_FLOW_H
#define QPERF_FLOW_H

#include <stddef.h>

#include "cluster_msg.h"
#include "core/engine.h"
#include "core/opts.h"
#include "rank_env.h"

/* A flow's error when another flow of its round failed before the start
 * (and so none started). */
#define FLOW_STOPPED "another flow of its round failed"

/*
 * Run RUN's job as a client against its peer's server, stopping at b
 * before its window (NULL: none), into res (its figures, or its error
 * and exit status).  Returns res->status.  Blocks for the test.
 */
uint32_t flow_job(const struct plan *p, const struct rank_info *ri,
		  const struct cmsg_run *run, const struct client_barrier *b,
		  struct cmsg_result *res);

/*
 * The worker, given RUN first with CRUN_SYNC: run it and every other flow
 * rank 0 sends meanwhile, each in a child, relaying READY, GO, STOP and
 * the RESULTs, answering CLOCK, until none is left.  fd and ch: the
 * connection to rank 0.  Returns 0 when the flows are done, 1 if rank 0
 * said DONE, -1 if rank 0 was lost (err filled).  Every wait is bounded
 * by rank 0's silence (CLUSTER_LOSS_NS); the children end with it.
 */
int flow_group(const struct plan *p, const struct rank_info *ri, int fd,
	       struct cchan *ch, const struct cmsg_run *first, char *err,
	       size_t errlen);

/* Answer rank 0's CLOCK probe m with this rank's clock.  0, or -1 with
 * err filled. */
int flow_clock(int fd, struct cchan *ch, const struct cmsg *m, char *err,
	       size_t errlen);

#endif
