// SPDX-License-Identifier: GPL-2.0-only
/* The spread of per-QP counts; see qpspread.h. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "qpspread.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void qps_spread(struct qp_side *q, const uint64_t *counts, uint32_t n)
{
	uint64_t *c;

	q->total = q->min = q->median = q->max = 0;
	q->listed = n < QPS_LIST_MAX ? n : QPS_LIST_MAX;
	memcpy(q->counts, counts, q->listed * sizeof(*counts));
	if (!n)
		return;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, counts, n * sizeof(*c));
	for (uint32_t i = 0; i < n; i++)
		q->total += c[i];
	qsort(c, n, sizeof(*c), cmp_u64);
	q->min = c[0];
	q->max = c[n - 1];
	q->median = n % 2 ? c[n / 2] : c[n / 2 - 1] + (c[n / 2] - c[n / 2 - 1]) / 2;
	free(c);
}
