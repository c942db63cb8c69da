/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's group patterns on rank 0 (incast:K, fanout:K;
 * group_run.c): walk the rounds, each plan item of a round as K flows at
 * once (coord_group.h), report each round as it ends, keep what it gave
 * (struct cgroup, coord_state.h), try a failed round again after the
 * schedule, and find the hubs whose aggregate, fairness or victim's
 * latency is far below the others', each retested alone before it is
 * named (docs/cluster.md, "Incast and fan-out").
 */
#ifndef QPERF_GROUP_RUN_H
#define QPERF_GROUP_RUN_H

#include <stddef.h>

#include "coord_state.h"

/* Walk schedule s (a group pattern): every round, then the failed ones
 * again.  The flows' figures go to c->record (the matrices). */
void group_walk(struct coord *c, const struct sched *s);

/* The text report's table of item by hub (text only). */
void group_print_hubs(const struct coord *c, size_t item);

/*
 * Item's suspects by hub: the rounds whose figure (aggregate, or a
 * latency round's victim's latency), then those whose fairness, is far
 * below the others' (outlier_low() by opts oo; a latency round's
 * fairness is not judged).  Up to max into o (kind OUTLIER_HUB, a = the
 * hub) with what each is judged by; the medians into the test's grp_med
 * and fair_med.  Returns how many were found (may exceed max), or -1.
 */
int group_suspects(struct coord *c, size_t item,
		   const struct outlier_opts *oo, struct outlier *o,
		   enum cfind_what *what, size_t max);

/*
 * Run hub's round of item alone, twice (its members as in the
 * schedule); the better of the two judged figures (as goodness, or the
 * fairness), or -1 if a run did not measure every flow.
 */
double group_retest(struct coord *c, size_t item, uint32_t hub,
		    enum cfind_what what);

/* The report's "outlier: receiver ..." line of hub suspect f of item,
 * into f->line. */
void group_find_line(const struct coord *c, size_t item, struct cfind *f);

/* "receiver" (incast) or "sender" (fan-out): what a round's hub is. */
const char *group_hub_role(const struct coord *c);

/* The rounds' figure of g in SI units: its aggregate, or a latency
 * round's victim's latency (s); 0: none. */
double group_figure(const struct cgroup *g);

/* Free every round's error text. */
void group_free(struct ctest *ct, uint32_t rounds);

#endif
