/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --json and --json_stream in cluster mode on rank 0 (cluster_json.c).
 */
#ifndef QPERF_CLUSTER_JSON_H
#define QPERF_CLUSTER_JSON_H

#include <stdint.h>

#include "cluster_msg.h"
#include "coord_state.h"

/*
 * --json on rank 0: the whole run as the "cluster" member of the document
 * (cluster_json.c), after coord_run() (c->t may be NULL if it failed
 * early); status is the run's exit status.  Writes stdout and ends
 * c->json.
 */
void coord_json(struct coord *c, int status);

/*
 * --json_stream on rank 0, as the run goes: a line per pair result
 * (type "pair" in the schedule's rounds, "retest" for a suspect's
 * retest): {"type", "test", "loop", "round" (null for a retest),
 * "client", "server", "figure" (SI, null if none), "unit", "error" (if
 * no figure)}, g being the result's goodness; and a line {"type":
 * "gone", "rank", "host", "reason"} when a rank is lost.  Nothing without
 * --json_stream.
 */
void coord_json_event(const struct coord *c, const char *type, uint32_t item,
		      uint32_t client, uint32_t server,
		      const struct cmsg_result *res, double g);
void coord_json_gone(const struct coord *c, uint32_t k);

/*
 * --json_stream: a line {"type": "group", "test", "loop", and round g
 * of plan item as under "groups" in the cluster line} when a round of a
 * group pattern ends (round from 1; 0, null in the line: a retest).
 */
void coord_json_group(const struct coord *c, size_t item, uint32_t round,
		      const struct cgroup *g);

#endif
