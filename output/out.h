/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The client's results on stdout: flush and remember the first write
 * error (a full disk, a closed pipe), so the run can end with exit 1 and
 * one line instead of losing results silently.
 */
#ifndef QPERF_OUTPUT_OUT_H
#define QPERF_OUTPUT_OUT_H

/*
 * Flush stdout and remember the first write error on it.  Returns 0, or
 * -1 once any write to stdout has failed; out_error() is then its errno.
 */
int out_flush(void);
int out_error(void);

#endif
