/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --streams N: the measured phase of N streams of one test, each in its
 * own thread, running the loop of core/measure.c on its own session (data
 * connection or QP) with the loop written once.  Everything else of the
 * test (opening the sessions one after the other on the control
 * connection, the syncs, STAT) is core/session.c's, in the main thread.
 *
 * Timer: the main thread owns the window and the timer (SIGALRM, no
 * SA_RESTART).  The kernel delivers SIGALRM to one thread only, so once
 * the time is up the main thread sends it to every stream still running
 * (pthread_kill) until each has returned: no stream waits in a blocking
 * call past the end.  A stream that fails ends the others the same way.
 */
#ifndef QPERF_STREAMS_H
#define QPERF_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/types.h"

struct lrun;

/*
 * Run the loops lr[0..n) (each prepared by loop_prep(), after the
 * "before" sync) in n threads that start together.  Stream i is pinned to
 * CPU cpus->pn[i % cpus->n] - 1 when the list has a non-zero entry for
 * it, else it runs on the NUMA node its transport placed its buffers on,
 * if any.  agg gets the common window (from just before the streams start
 * to after the last one ended; its CPU figures are those of the whole
 * process and system over it) and the sum of every stream's counters;
 * each lr[i]->st keeps its own counters.  time is the test time in ns (0:
 * count test).  Blocks until every stream has ended.  Returns 0, or -1
 * with err filled (the first stream's error, "stream 2: ...").
 */
int streams_run(struct lrun *const *lr, uint32_t n,
		const struct cpu_list *cpus, uint64_t time,
		struct node_stat *agg, char *err, size_t errlen);

#endif
