/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's collector (the capture sink, sink.h): a worker's pair
 * test is run as any client test, and its figures land in a struct
 * pair_res instead of a report, its error in a buffer.
 *
 * With -I it keeps only the lowest interval: the lowest receive rate of
 * each side's intervals.  A final interval shorter than half the period
 * is left out (unless it is the only one), since its few bytes say little.
 */
#ifndef QPERF_OUTPUT_CAPTURE_H
#define QPERF_OUTPUT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/types.h"

struct ival_low {
	uint64_t period; /* ns: -I */
	double min[2]; /* B/s: this side [0] and the peer [1]; < 0: none */
	uint64_t recv[2]; /* bytes received over the intervals */
	uint32_t n[2];
};
void ival_low_init(struct ival_low *l, uint64_t period);
int ival_low_emit(void *arg, const struct ival_rec *r, char *err,
		  size_t errlen);
/*
 * The lowest interval receive rate (B/s) of the sides that received, 0
 * with *n = 0 if none; *n is the intervals that went into it.
 */
double ival_low_result(const struct ival_low *l, uint32_t *n);

#endif
