/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rank 0's coordinator state (types only, no .c): the ranks, each test's
 * figures, failures and retested suspects.  Filled by cluster_coord.c
 * (joins), coord_round.c (rounds) and cluster_report.c (the run); read by
 * coord_fig.c and cluster_json.c.
 */
#ifndef QPERF_COORD_STATE_H
#define QPERF_COORD_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cluster_msg.h"
#include "core/opts.h"
#include "lib/sched.h"
#include "outlier.h"

struct test_desc;

struct crank {
	int fd; /* connection to its worker (non-blocking), -1 once gone */
	struct cchan ch; /* its sealing (cluster_msg.h) */
	struct cin in; /* what came of its next message */
	bool joined, alive;
	uint32_t local;
	uint16_t port; /* its qperf server */
	char host[CMSG_HOST_MAX]; /* its host name */
	char addr[CMSG_HOST_MAX]; /* its address as rank 0 sees it */
	char why[320]; /* why it is gone */
	uint32_t nfind; /* its host checks' findings, from its JOIN */
	struct cmsg_find find[CMSG_FIND_MAX];
};

#define COORD_RETEST_MAX 16 /* suspects retested per test */
#define COORD_FAILS_KEPT 256 /* failed pairs kept per test, with why */

/* A pair test that failed: client against server, and why. */
struct cfail {
	uint32_t client, server;
	bool refused; /* rank 0 refused its RESULT: not tried again */
	char err[CMSG_ERR_MAX];
};

/* The status rank 0 gives a RESULT it refused (not an exit status). */
#define COORD_REFUSED 0x100u

/* What a group pattern's suspect is judged by (struct cfind's what). */
enum cfind_what {
	CFW_FIG, /* the round's figure: its aggregate, or its victim's
		  * latency (as goodness) */
	CFW_FAIR, /* its fairness (Jain's index) */
};

/* A suspect and its retest. */
struct cfind {
	struct outlier o; /* as outlier_find() or outlier_low() found it */
	enum cfind_what what; /* OUTLIER_HUB: which figure */
	int partner; /* node: the rank it was retested against; -1: none */
	double retest; /* goodness of the retest; -1: it measured nothing */
	bool confirmed; /* reported as an outlier */
	char line[1024]; /* the report's "outlier: ..." line, no newline */
};

#define COORD_VFAILS_KEPT 64 /* pairs failing --expect kept per test */

/* A pair that failed an --expect check: client against server, and why
 * ("fail: bw 2.1 GB/s < 90% of 14.4 GB/s (PCIe Gen4 x8 of rank 2 ...)"). */
struct cvfail {
	uint32_t client, server;
	char why[448];
};

/*
 * A group pattern's round (incast:K, fanout:K) of one plan item: its
 * flows and what they gave together (docs/cluster.md, "Incast and
 * fan-out").  Figures in SI units (B/s, 1/s, s).  In a latency round
 * (load) flow 0 is the victim, running the item's latency test; the
 * others are loads running its transport's bandwidth test, and the
 * aggregate, fairness and slowest are theirs.  About 0.3 KB per round
 * and item: O(N), as the idle list.
 */
struct cgflow {
	uint32_t rank; /* the member: incast's sender, fan-out's receiver */
	float fig; /* its figure (a load's: bandwidth); NAN: none */
	float late; /* s: its start after its due time; NAN: none */
	float done; /* s: from the common start to its window's end */
};

struct cgroup {
	uint32_t hub; /* incast's receiver, fan-out's sender */
	uint32_t k; /* flows, in the schedule's order */
	bool ran; /* run, at least tried (else a rank was gone) */
	bool ok; /* every flow measured */
	bool load; /* a latency round: a victim and loads */
	bool retried; /* failed in the schedule, tried again after it */
	bool final; /* its flows are in the matrices */
	struct cgflow f[SCHED_GROUP_MAX];
	double aggregate; /* the sum of the sharers' figures */
	double fairness; /* their Jain's index; 0: fewer than 1 */
	uint32_t slowest; /* index in f of the slowest sharer */
	double ratio; /* its figure over the fair share */
	double victim; /* s: a latency round's victim's latency */
	double completion; /* s, with -n: from the start to the last end */
	uint32_t last; /* index in f of the flow that ended last */
	double spread; /* s: the latest start's lateness less the first's */
	double uncert; /* s: the clock offsets' uncertainty (the largest
			* half round trip of the probes behind them) */
	char *err; /* a failed round: "rank 3 -> 0: ..." (owned) */
};

/* What one plan item (test) gave across the cluster. */
struct ctest {
	float *fig; /* n x n goodness, row = client; NAN: none */
	float *eff; /* bandwidth tests: n x n received bandwidth over the
		     * path's ceiling; NAN: none known; or NULL */
	uint32_t nchecked; /* pair results held to --expect */
	uint32_t nvfail; /* of which failed */
	uint32_t nvkept; /* of which in vfail[] */
	struct cvfail *vfail; /* COORD_VFAILS_KEPT, allocated at the first */
	float *low; /* -I: n x n lowest interval receive rate, B/s; or NULL */
	float *p50, *p99; /* latency tests: n x n percentiles, s; or NULL */
	double *med; /* n: each node's median goodness; 0: no figure */
	double fabric_med; /* median of the node medians; 0: none */
	uint32_t nfail; /* failed jobs */
	uint32_t nkept; /* of which in fail[] (COORD_FAILS_KEPT at most) */
	struct cfail *fail;
	uint32_t nretried; /* failed in their rounds, tried again */
	uint32_t nretried_ok; /* of which measured then (out of nfail) */
	int nsuspects; /* as outlier_find() counted them */
	int nfinds; /* retested, in find[] */
	struct cfind find[COORD_RETEST_MAX];
	struct cgroup *grp; /* group patterns: per round (N), else NULL */
	double grp_med; /* group patterns: the rounds' median figure (as
			 * goodness); 0: none */
	double fair_med; /* group patterns: the median fairness; 0: none */
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
	uint64_t next_ping; /* when idle ranks are pinged next (now_ns) */
	double rt_worst; /* retest: the worst goodness seen */
	uint32_t rt_count; /* retest: results that came back ok */
};

#endif
