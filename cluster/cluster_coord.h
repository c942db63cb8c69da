/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rank 0's coordinator state, shared by cluster_coord.c (joins, rounds)
 * and cluster_report.c (schedule walk, figures, outliers, report).
 */
#ifndef QPERF_CLUSTER_COORD_H
#define QPERF_CLUSTER_COORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cluster_msg.h"
#include "core/opts.h"
#include "outlier.h"
#include "lib/sched.h"

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

#define COORD_RETEST_MAX 16 /* suspects retested per test */
#define COORD_FAILS_KEPT 256 /* failed pairs kept per test, with why */

/* A pair test that failed: client against server, and why. */
struct cfail {
	uint32_t client, server;
	char err[CMSG_ERR_MAX];
};

/* A suspect and its retest. */
struct cfind {
	struct outlier o; /* as outlier_find() found it */
	int partner; /* node: the rank it was retested against; -1: none */
	double retest; /* goodness of the retest; -1: it measured nothing */
	bool confirmed; /* reported as an outlier */
	char line[1024]; /* the report's "outlier: ..." line, no newline */
};

/* What one plan item (test) gave across the cluster. */
struct ctest {
	float *fig; /* n x n goodness, row = client; NAN: none */
	float *low; /* -I: n x n lowest interval receive rate, B/s; or NULL */
	double *med; /* n: each node's median goodness; 0: no figure */
	double fabric_med; /* median of the node medians; 0: none */
	uint32_t nfail; /* failed jobs */
	uint32_t nkept; /* of which in fail[] (COORD_FAILS_KEPT at most) */
	struct cfail *fail;
	int nsuspects; /* as outlier_find() counted them */
	int nfinds; /* retested, in find[] */
	struct cfind find[COORD_RETEST_MAX];
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
	uint32_t rounds; /* of the schedule */
	uint32_t round; /* the one running, from 1; 0 during retests */
	uint32_t *idle; /* per round: the rank that sat out, or UINT32_MAX */
	bool text; /* the text report on stdout (no JSON) */
	struct json_doc *json; /* --json, --json_stream: rank 0's document */
	FILE *plot; /* --plot's file, or NULL */
	struct ctest *t; /* per plan item */
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

/* A goodness as the figure users read, in *unit ("MB/s", "us", "msg/s"). */
double coord_display(const struct test_desc *t, double g, const char **unit);

/* The figure users read, in its unit ("12.3 MB/s"), from a goodness. */
const char *coord_show(const struct test_desc *t, double g, char *buf,
		       size_t len);

/*
 * Why test item has no figure for client against server (which differ):
 * failed (with the error), a rank gone, or not in the schedule.
 */
void coord_why_missing(const struct coord *c, size_t item, uint32_t client,
		       uint32_t server, char *buf, size_t len);

/*
 * The figure of item for client against server as goodness, NAN if none.
 * A test measured once per pair gives its figure for both directions.
 */
double coord_fig(const struct coord *c, size_t item, uint32_t client,
		 uint32_t server);

/* The same from the -I matrix (B/s); NAN if none or no -I. */
double coord_low(const struct coord *c, size_t item, uint32_t client,
		 uint32_t server);

/* A gone rank's line of the report, "gone: rank ...", no newline. */
void coord_gone_line(const struct coord *c, uint32_t k, char *buf,
		     size_t len);

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
 * --plot on rank 0: a heat map per test into f (opened by plot_fopen(),
 * closed here).  0, or -1 with err filled.
 */
int coord_plot(const struct coord *c, FILE *f, char *err, size_t errlen);

#endif
