/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rank 0's coordinator state, shared by cluster_coord.c (joins, rounds)
 * and cluster_report.c (schedule walk, figures, outliers, report).
 */
#ifndef QPERF_CLUSTER_COORD_H
#define QPERF_CLUSTER_COORD_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster_msg.h"
#include "opts.h"
#include "sched.h"

struct test_desc;

struct crank {
	int fd; /* connection to its worker, -1 once gone */
	bool joined, alive;
	uint32_t local;
	uint16_t port; /* its qperf server */
	char host[CMSG_HOST_MAX]; /* its host name */
	char addr[CMSG_HOST_MAX]; /* its address as rank 0 sees it */
	char why[320]; /* why it is gone */
};

struct coord;

/* Where a job's result goes: the matrix, or a retest's list. */
typedef void (*coord_record)(struct coord *c, uint32_t item,
			     uint32_t client, uint32_t server,
			     const struct cmsg_result *res);

struct coord {
	const struct plan *p;
	uint32_t n;
	uint64_t seed;
	struct crank *r;
	uint32_t job_seq;
	uint32_t cur_item;
	uint32_t item_lo, item_hi; /* the plan items a round runs */
	coord_record record;
	float **fig; /* per plan item: n x n goodness, row = client; NAN: none */
	uint32_t *nfail; /* per plan item: failed jobs */
	char (*first_err)[CMSG_ERR_MAX]; /* per plan item */
	double rt_worst; /* retest: the worst goodness seen */
	uint32_t rt_count; /* retest: results that came back ok */
};

/* Is t a one-way bandwidth test (measured in both directions)? */
bool coord_one_way(const struct test_desc *t);

/* Bigger is better: 1/latency for latency tests, else the rate. */
double coord_goodness(const struct test_desc *t, const struct pair_res *r);

/* Mark rank k gone (says why on stderr once). */
void coord_gone(struct coord *c, uint32_t k, const char *why);

/*
 * Run the jobs of plan items [item_lo, item_hi) for each pair at once,
 * until every pair is done; results go to c->record.
 */
int coord_round(struct coord *c, const struct sched_pair *pairs,
		uint32_t np);

/* Walk the schedule, find outliers, print the report: exit status. */
int coord_run(struct coord *c);
void coord_free(struct coord *c);

#endif
