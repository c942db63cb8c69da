/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Verdicts (issue 18 items 3 and 4): the --expect grammar, checking one
 * figure against a limit or a baseline, and the words a verdict says.
 * Pure: no I/O, no state; every figure is in SI base units (bytes/s,
 * seconds, messages/s), as JSON gives them.
 *
 *   EXPR   = FIGURE OP VALUE
 *   FIGURE = bw | send_bw | recv_bw | latency | latency_p50 | latency_p90
 *          | latency_p99 | latency_p999 | msg_rate
 *   OP     = >= | <= | > | <
 *   VALUE  = a bandwidth with a unit ending in B (bytes) or b (bits), an
 *            SI (k M G T) or binary (Ki Mi Gi Ti) prefix and an optional
 *            /s or ps: 40Gb, 5GB, 1.25GB/s, 100Mbps;
 *            a time with ns, us, ms or s: 2us, 0.5ms;
 *            a message rate, a count with an optional k, M or G and /s:
 *            10M, 2.5k/s;
 *            or, for a bandwidth, a percentage of the path's ceiling: 90%.
 */
#ifndef QPERF_LIB_VERDICT_H
#define QPERF_LIB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

enum vfig {
	VF_BW, /* the received bandwidth: bw, or recv_bw of a send/recv test */
	VF_SEND_BW,
	VF_RECV_BW,
	VF_LATENCY,
	VF_LAT_P50,
	VF_LAT_P90,
	VF_LAT_P99,
	VF_LAT_P999,
	VF_MSG_RATE,
	VF_COUNT
};

/* What a figure measures: its unit and which way is better. */
enum vkind {
	VK_BAND, /* bytes/s, higher is better */
	VK_TIME, /* seconds, lower is better */
	VK_RATE /* messages/s, higher is better */
};

enum vop { VOP_GE, VOP_LE, VOP_GT, VOP_LT };

/* The exit status of a run whose every test ran but a check failed. */
#define VERDICT_FAILED_STATUS 3

#define VERDICT_EXPR_MAX 64 /* an EXPR's text, NUL included */

/* One parsed --expect. */
struct vexpr {
	char text[VERDICT_EXPR_MAX]; /* as typed */
	enum vfig fig;
	enum vop op;
	double limit; /* SI units; with pct, the fraction (0.9 for 90%) */
	bool pct; /* a percentage of the ceiling */
	bool bits; /* the value was in bits: show bandwidths in bits */
};

/* One check of one result: a limit or the baseline. */
struct vcheck {
	char expr[VERDICT_EXPR_MAX]; /* "bw>=90%", or "baseline" */
	enum vfig fig;
	enum vop op;
	bool have_value; /* the figure was measured */
	double value; /* SI units */
	bool have_limit; /* false: a % with no ceiling, a missing figure */
	double limit; /* SI units: the bound value was held to */
	bool baseline; /* a baseline check: base holds its figure */
	double base; /* SI units */
	bool pass;
	char reason[224]; /* "bw 31.2 GB/s < 90% of 50 GB/s (PCIe x8)" */
};

#define VERDICT_CHECKS_MAX 20

/* The verdict of one result: every check given, in order. */
struct verdict {
	bool pass; /* every check passed */
	int n;
	struct vcheck c[VERDICT_CHECKS_MAX];
	char note[192]; /* "" or a remark: "baseline: no match for ..." */
};

/*
 * Parse s into e.  Returns 0, or -1 with err naming what is wrong (the
 * caller adds the option and the expression).  Does not block.
 */
int verdict_parse(const char *s, struct vexpr *e, char *err, size_t errlen);

/* "bw", "latency_p99", ...; NULL for an unknown figure. */
const char *verdict_fig_name(enum vfig f);
enum vkind verdict_fig_kind(enum vfig f);
const char *verdict_op_name(enum vop op);

/*
 * Check e against a result: value (SI units) when have is true, the
 * path's ceiling ceil (may be NULL) for a percentage.  Fills c; a figure
 * that was not measured, or a percentage with no ceiling known, fails
 * with a reason that says so.
 */
void verdict_eval(const struct vexpr *e, bool have, double value,
		  const struct ceiling *ceil, struct vcheck *c);

/*
 * Check value against the baseline's figure base with a tolerance tol (a
 * fraction: 0.05 for 5%): bandwidths and message rates may be at most tol
 * below base, latencies at most tol above.  bits: show bandwidths in bits.
 * A base of 0 or less cannot be compared: the check passes, saying so.
 */
void verdict_baseline(enum vfig f, double value, double base, double tol,
		      bool bits, struct vcheck *c);

/*
 * The relative change from a to b, signed so that a positive value is a
 * regression for a figure of kind k: (a - b) / a for bandwidths and rates,
 * (b - a) / a for latencies.  0 when a is 0 or less.
 */
double verdict_regression(enum vkind k, double a, double b);

/*
 * Format v (SI units) of kind k with 3 significant digits and a unit:
 * "31.2 GB/s" (bits: "250 Gb/s"), "2.05 us", "10.3 M/s".  Returns buf.
 */
char *verdict_format(char *buf, size_t len, enum vkind k, double v, bool bits);

/*
 * Parse a --tolerance: a percentage, "5" or "5%", from 0 to 1000.
 * Returns 0 with *frac the fraction (0.05), or -1 with err filled.
 */
int verdict_tolerance(const char *s, double *frac, char *err, size_t errlen);

/* Finish v after its checks: pass is true when every check passed. */
void verdict_settle(struct verdict *v);

/*
 * The text after "verdict = ": "pass", or "fail: " and the reasons of the
 * failed checks joined by "; ".  Returns buf.
 */
char *verdict_line(const struct verdict *v, char *buf, size_t len);

#endif
