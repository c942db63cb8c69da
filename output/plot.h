/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sweep plots (--plot FILE.svg): every finished test of a --loop run adds
 * one point (its headline figure against the innermost looped variable);
 * at the end the points are drawn as an SVG file, one panel per quantity
 * and variable (bandwidth, message rate, latency), one series per test
 * (and per value of any outer loop), log-scaled along x where the loop
 * multiplies.  Latency with a histogram (res.lat.count > 0) is drawn as
 * its p50 with a p50..p99 band, else as the mean.
 *
 * The SVG is written by hand: it is a few element types, every string
 * that reaches it is escaped by plot_xml_escape(), and no Debian library
 * would add more than a dependency (see docs/output.md, "Plots").
 * Memory: one point per test run, i.e. as much as the run's text report.
 *
 * The axis functions are pure and exported for the unit tests.
 */
#ifndef QPERF_PLOT_H
#define QPERF_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/types.h"

struct test_desc;

#define PLOT_TICKS_MAX 16

/* One axis: its range, scale and tick positions (in data units). */
struct plot_axis {
	bool log;
	double base; /* log axes: 2 or 10 */
	double lo, hi; /* the range drawn */
	int n;
	double ticks[PLOT_TICKS_MAX];
};

/*
 * A linear axis over [lo, hi] with about target ticks at 1, 2 or 5 times
 * a power of ten; the range is widened to whole ticks.  hi <= lo is
 * widened to a range of 1.
 */
void plot_axis_lin(struct plot_axis *a, double lo, double hi, int target);

/*
 * A log axis over [lo, hi] (both > 0; lo <= 0 is taken as hi / base):
 * ticks at powers of base, every k-th power when more than max would
 * fit; the range is widened to the first and last tick.
 */
void plot_axis_log(struct plot_axis *a, double lo, double hi, double base,
		   int max);

/* Where v falls on a, from 0 (lo) to 1 (hi); clamped to [0, 1]. */
double plot_axis_pos(const struct plot_axis *a, double v);

/*
 * A tick's label: with k1024, multiples of 1024 as 1K, 4M...; otherwise
 * the shortest of %g with a k/M/G suffix from 1000 on (2.5k, 10M).
 */
void plot_tick_label(char *buf, size_t len, double v, bool k1024);

/* Copy s into buf with &, <, >, " and ' escaped, controls dropped. */
void plot_xml_escape(char *buf, size_t len, const char *s);

/*
 * The SVG file helpers both --plot writers share (this sweep and cluster
 * mode's heat map): open path for writing (NULL with err filled) the
 * safe way (lib/outfile.h: a temporary file renamed onto path by
 * plot_svg_end(); a path that is a symbolic link, FIFO, device or
 * directory is refused); write the document's head (size w x h, a white
 * background, title escaped); end the document, close f and rename it
 * onto path (0, or -1 with err filled, naming path).  An f closed with a
 * bare fclose() is dropped: its temporary file is removed at exit.
 */
FILE *plot_fopen(const char *path, char *err, size_t errlen);
void plot_svg_begin(FILE *f, int w, int h, const char *title);
int plot_svg_end(FILE *f, const char *path, char *err, size_t errlen);

struct plot;

/*
 * Open path for writing before any test runs, so that an unwritable path
 * fails at once.  Returns the plot, or NULL with err filled.
 */
struct plot *plot_open(const char *path, char *err, size_t errlen);

/* Add the result of one finished test run (lv: that run's loop values). */
void plot_add(struct plot *pl, const struct test_desc *t,
	      const struct loop_val *lv, int nloops,
	      const struct results *res);

/*
 * Draw what was added, close the file and free pl.  bits: bandwidth in
 * bits/s (-ub).  Returns 0, or -1 with err filled (a write error).
 */
int plot_finish(struct plot *pl, bool bits, char *err, size_t errlen);

/*
 * Check a plan for --plot: a test that measures has a --loop (nloops).
 * Returns 0, or -1 with err filled.
 */
int plot_check(const struct test_desc *t, int nloops, char *err,
	       size_t errlen);

#endif
