/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Heat maps of pair figures (cluster mode's --plot FILE.svg): one SVG
 * with one panel per map, stacked.  In a panel the senders (clients) are
 * the rows and the receivers (servers) the columns, each labelled
 * "host:rank" (made printable: lib/text.h); a cell's colour is its figure
 * on a colour scale relative to the best figure (viridis: yellow is the
 * best figure, dark purple half of it, or twice it for latency, or the
 * worst figure if that is further: a uniform fabric is uniformly good, a
 * bad pair stands out) drawn as a legend with its unit and range;
 * the diagonal is blank, a missing figure is hatched, and outlier nodes
 * (an outline around their row and column, their labels in red) and links
 * (an outline around both cells) are marked in red, listed in the legend
 * (as are the ranks gone, in grey).
 *
 * Each cell is an element <rect class="cell"> ("cell self" on the
 * diagonal, "cell missing" without a figure) with a <title> tooltip; the
 * marks are <rect class="outlier-node"> and <rect class="outlier-link">.
 * Maps of more than HEAT_MAX ranks are drawn as a note (the file would
 * pass 10 MB per map).  Built on plot.h's axis and SVG helpers.
 */
#ifndef QPERF_HEATMAP_H
#define QPERF_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HEAT_MAX 256 /* ranks: larger maps are left out */
#define HEAT_MARK "#e31a1c" /* the outlier marks' colour */

struct heat_map {
	const char *title; /* the panel's title, e.g. the test's name */
	const char *unit; /* of v: "MB/s", "us", "msg/s" */
	bool low_good; /* smaller is better (latency) */
	uint32_t n; /* ranks */
	const double *v; /* n x n, row = sender; NAN: no figure */
	const char *const *label; /* n: "host:rank" */
	const bool *bad_node; /* n: outlier nodes; NULL: none */
	const bool *bad_cell; /* n x n: outlier links; NULL: none */
	const bool *gone; /* n: ranks gone (listed in the key); NULL: none */
	/* Why cell (row, col) has no figure, for its tooltip; may be NULL. */
	void (*why)(const void *arg, uint32_t row, uint32_t col, char *buf,
		    size_t len);
	const void *arg;
};

/*
 * The colour of t in [0, 1] (0 worst, 1 best; clamped) on the scale, as
 * "#rrggbb" into buf (at least 8 bytes).
 */
void heat_color(double t, char *buf, size_t len);

/*
 * Draw maps m[0..nm-1] into f and close it (path names it in errors).
 * Returns 0, or -1 with err filled (a write error).  Blocks on writing.
 */
int heat_write(FILE *f, const char *path, const struct heat_map *m,
	       size_t nm, char *err, size_t errlen);

#endif
