/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qperf --compare A.json B.json (issue 18 item 4): two --json outputs
 * side by side, each change beyond the noise marked.
 */
#ifndef QPERF_OUTPUT_COMPARE_H
#define QPERF_OUTPUT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Print on f the table of the tests both files hold (matched as
 * --baseline matches: output/baseline.h) and those only one holds.  tol:
 * the --tolerance, a fraction.  Returns 0; VERDICT_FAILED_STATUS (3) with
 * msg saying how many figures of B regressed beyond the noise band; or -1
 * with msg naming the file that cannot be used and why (a usage error).
 */
int compare_files(FILE *f, const char *a, const char *b, double tol,
		  char *msg, size_t msglen);

#endif
