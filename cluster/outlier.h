/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's outlier finding: which nodes and which links are much
 * worse than the fabric as a whole.  Pure functions of the pair figures.
 *
 * Figures are "goodness" values: bandwidth or message rate as measured,
 * latency as its reciprocal (the caller passes 1/latency), so that worse
 * is always smaller.  A pair measured in both directions gives two
 * figures; each counts for both of its nodes.
 *
 * Nodes: a node's figure is the median of the figures of its pairs; the
 * fabric's is the median of the node figures; the spread is the MAD
 * (median absolute deviation) of the node figures.  A node is a suspect
 * when its drop below the fabric median is both large against the spread
 * (modified z-score 0.6745 * drop / MAD above z_min, Iglewicz and
 * Hoaglin's 3.5 by default) and large in itself (at least min_drop of the
 * fabric median, 20% by default), so a uniform fabric, whose MAD is near
 * zero, flags nothing for tiny differences.  A drop of at least
 * strong_drop (50% by default) makes a suspect whatever the spread: on a
 * noisy fabric the MAD grows and would hide it, and the retest that
 * follows every suspect tells a fault from a disturbed run.
 *
 * Links: a pair's figure against the smaller of its two nodes' figures;
 * a link is a suspect when that ratio is low by the same two rules
 * (against the median and MAD of all pairs' ratios) and neither of its
 * nodes is itself a suspect (a slow node explains its links).
 */
#ifndef QPERF_OUTLIER_H
#define QPERF_OUTLIER_H

#include <stddef.h>
#include <stdint.h>

struct pair_fig {
	uint32_t a, b; /* ranks */
	double v; /* goodness (bigger is better); <= 0: failed, ignored */
};

struct outlier_opts {
	double z_min; /* 3.5 */
	double min_drop; /* 0.2 */
	double strong_drop; /* 0.5 */
};

/* OUTLIER_HUB: a group pattern's round, by its hub (outlier_low()). */
enum outlier_kind { OUTLIER_NODE, OUTLIER_LINK, OUTLIER_HUB };

struct outlier {
	enum outlier_kind kind;
	uint32_t a, b; /* node, hub: a (b unused); link: a < b */
	double figure; /* the node's median or the pair's figure */
	double median; /* what it is compared with */
	double z; /* modified z-score (INFINITY when MAD is 0) */
};

void outlier_defaults(struct outlier_opts *o);

/* Median of v[0..n-1] (n > 0); v is reordered.  0 for n == 0. */
double median_of(double *v, size_t n);

/*
 * Find the suspects among n nodes given np figures.  Writes up to max
 * outliers to out (nodes first, by rank, then links) and returns how many
 * were found (which may exceed max).  node_med, if not NULL, receives each
 * node's median figure (0 for a node with no figure).  -1 if memory runs
 * out.
 */
int outlier_find(const struct pair_fig *f, size_t np, uint32_t n,
		 const struct outlier_opts *o, struct outlier *out,
		 size_t max, double *node_med);

/*
 * The low outliers among v[0..n) (goodness; <= 0: no figure, left out)
 * by the nodes' rule above, against the median and MAD of the figures:
 * up to max into out (kind OUTLIER_HUB, a = the index; figure, median,
 * z), in index order, and low[i] = 1 for each (low: n flags, or NULL).
 * Returns how many were found (may exceed max), -1 if memory runs out;
 * *median gets the median (0: no figure).  outlier_find()'s nodes, and
 * group patterns' rounds by hub (aggregate, fairness, victim's latency).
 */
int outlier_low(const double *v, uint32_t n, const struct outlier_opts *o,
		struct outlier *out, size_t max, double *median,
		unsigned char *low);

#endif
