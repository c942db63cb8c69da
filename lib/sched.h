/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's schedule: which ranks test each other in which round.
 * Pure functions of (pattern, N, seed), computed one round at a time so
 * that memory stays O(N) whatever the pattern (at N = 10,000, `all` is
 * 9,999 rounds of 5,000 pairs: 50 million pairs that are never stored).
 *
 * Patterns:
 *   all       every pair once, by the circle method: N-1 rounds of N/2
 *             pairs when N is even, N rounds of (N-1)/2 pairs and one idle
 *             rank when N is odd; the ranks are placed on the circle in a
 *             seeded random order, so the round of a pair depends on the
 *             seed but the set of pairs does not.
 *   ring      rank i with rank i+1 (mod N) in rank order, so each rank
 *             meets both neighbours: 2 rounds when N is even, 3 when N is
 *             odd (an odd cycle needs a third round for the closing link),
 *             1 when N = 2.
 *   bisect    rank i with rank i + N/2 for i < N/2, one round; when N is
 *             odd the last rank is idle.
 *   random:K  K rounds, each a seeded random perfect matching (one idle
 *             rank when N is odd); pairs may repeat across rounds.
 *
 * In every round each rank is in at most one pair.  Within a pair, a is
 * the lower rank (no meaning beyond that: both directions of a one-way
 * test are measured).
 *
 * Group patterns (sched_group(), not sched_round()):
 *   incast:K  N rounds; in round r rank r (the hub) receives from K
 *             other ranks at once;
 *   fanout:K  N rounds; in round r rank r sends to K other ranks at once.
 * The K members of a round are drawn from the other N-1 ranks by the
 * seed, in a seeded order (the first is a latency test's victim); K is 1
 * to SCHED_GROUP_MAX and below N.
 */
#ifndef QPERF_SCHED_H
#define QPERF_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sched_kind {
	SCHED_ALL,
	SCHED_RING,
	SCHED_BISECT,
	SCHED_RANDOM,
	SCHED_INCAST,
	SCHED_FANOUT
};

#define SCHED_RANDOM_MAX 1000000U /* largest K of random:K */
/* Largest K of incast:K and fanout:K: a rank's server runs at most 16
 * tests at once (CLIENTS_MAX). */
#define SCHED_GROUP_MAX 16U
#define SCHED_N_MAX 1000000U /* largest number of ranks */

struct sched_spec {
	enum sched_kind kind;
	uint32_t k; /* rounds of random:K; members of incast:K, fanout:K */
};

struct sched_pair {
	uint32_t a, b; /* ranks */
};

struct sched {
	struct sched_spec spec;
	uint32_t n; /* ranks */
	uint64_t seed;
	uint32_t rounds;
	uint32_t *perm; /* circle position -> rank (all, random) */
};

/*
 * Parse "all", "ring", "bisect", "random:K" (1 <= K <= SCHED_RANDOM_MAX),
 * "incast:K" or "fanout:K" (1 <= K <= SCHED_GROUP_MAX).  0, or -1 with err
 * naming the bad word.
 */
int sched_parse(const char *s, struct sched_spec *sp, char *err,
		size_t errlen);

/* The i-th pattern as typed, by enum sched_kind ("random:" with its
 * colon: K follows), or NULL past the last; for completion. */
const char *sched_form(size_t i);

/* The pattern's name as typed ("random:4"), into buf. */
void sched_name(const struct sched_spec *sp, char *buf, size_t len);

/* Is sp a group pattern (incast:K, fanout:K)? */
bool sched_is_group(const struct sched_spec *sp);

/*
 * Does pattern sp fit N ranks?  A group pattern's K must be below N.  0,
 * or -1 with err naming the pattern and N.  Pure.
 */
int sched_check_size(const struct sched_spec *sp, uint32_t n, char *err,
		     size_t errlen);

/*
 * Set up the schedule of N ranks (2 <= N <= SCHED_N_MAX, and
 * sched_check_size()).  0, or -1 with err filled.  sched_free() releases
 * it.
 */
int sched_init(struct sched *s, const struct sched_spec *sp, uint32_t n,
	       uint64_t seed, char *err, size_t errlen);
void sched_free(struct sched *s);

/*
 * The pairs of round r (r < s->rounds) into out (room for n/2 pairs);
 * returns how many.  If idle is not NULL (room for n ranks), the ranks in
 * no pair of this round go there, in rank order, and *nidle says how many.
 */
uint32_t sched_round(const struct sched *s, uint32_t r,
		     struct sched_pair *out, uint32_t *idle, uint32_t *nidle);

/*
 * Group patterns: round r's hub (rank r: the receiver of incast:K, the
 * sender of fanout:K) into *hub and its K members into out (room for
 * SCHED_GROUP_MAX), distinct, never the hub, in the seeded order; returns
 * K.  O(K^2), no allocation.
 */
uint32_t sched_group(const struct sched *s, uint32_t r, uint32_t *hub,
		     uint32_t *out);

/* The deterministic generator behind the shuffles (splitmix64). */
uint64_t sched_rand(uint64_t *state);

#endif
