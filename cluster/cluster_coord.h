/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's coordinator on rank 0 (cluster_coord.c): joins, then the
 * run (cluster_report.h) and the end of every rank.
 */
#ifndef QPERF_CLUSTER_COORD_H
#define QPERF_CLUSTER_COORD_H

#include <stdio.h>

#include "core/opts.h"
#include "rank_env.h"

/*
 * The coordinator on rank 0, given the listening rendezvous socket and
 * --plot's file (NULL: none; closed here).
 */
int cluster_coord(const struct plan *p, const struct rank_info *ri,
		  int lfd, FILE *plot);

#endif
