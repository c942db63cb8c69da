/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --qps: the spread of the messages each QP of one end counted (struct
 * qp_side, lib/types.h): their total, min, median (of an even count the
 * mean of the middle two, rounded down) and max, and the first
 * QPS_LIST_MAX of them as listed.  Pure arithmetic.
 */
#ifndef QPERF_LIB_QPSPREAD_H
#define QPERF_LIB_QPSPREAD_H

#include <stdint.h>

#include "types.h"

/*
 * From counts[0..n) (each QP's, QP 0 first; n >= 1) into q's total,
 * min, median, max, listed and counts; q's other fields are left alone.
 * Sorts a copy (xmalloc: never fails).
 */
void qps_spread(struct qp_side *q, const uint64_t *counts, uint32_t n);

#endif
