/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode on rank 0 (cluster_report.c): walk the schedule, find and
 * retest outliers, print the report and the heat maps.
 */
#ifndef QPERF_CLUSTER_REPORT_H
#define QPERF_CLUSTER_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "coord_state.h"

/* Walk the schedule, find outliers, print the report: exit status. */
int coord_run(struct coord *c);
void coord_free(struct coord *c);

/*
 * --plot on rank 0: a heat map per test into f (opened by plot_fopen(),
 * closed here).  0, or -1 with err filled.
 */
int coord_plot(const struct coord *c, FILE *f, char *err, size_t errlen);

#endif
