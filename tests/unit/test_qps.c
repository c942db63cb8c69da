// SPDX-License-Identifier: GPL-2.0-only
/*
 * --qps: the spread of per-QP counts (lib/qpspread.c) and the "qps"
 * object of a result (output/json_qps.c).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/qpspread.h"
#include "output/json.h"
#include "harness.h"

TEST(spread)
{
	static struct qp_side q;
	uint64_t odd[5] = { 9, 1, 5, 7, 3 }, even[4] = { 10, 1, 4, 3 };
	uint64_t one = 42, big[2] = { UINT64_MAX, UINT64_MAX - 2 };

	qps_spread(&q, odd, 5);
	CHECK(q.total == 25 && q.min == 1 && q.median == 5 && q.max == 9);
	CHECK(q.listed == 5 && q.counts[0] == 9 && q.counts[4] == 3);
	qps_spread(&q, even, 4); /* the middle two 3 and 4: 3 */
	CHECK(q.total == 18 && q.min == 1 && q.median == 3 && q.max == 10);
	qps_spread(&q, &one, 1);
	CHECK(q.min == 42 && q.median == 42 && q.max == 42 && q.listed == 1);
	qps_spread(&q, big, 2); /* no overflow in the mean of the two */
	CHECK(q.median == UINT64_MAX - 1);
	qps_spread(&q, NULL, 0);
	CHECK(q.total == 0 && q.listed == 0 && q.max == 0);
}

TEST(listed_cap)
{
	static struct qp_side q;
	uint32_t n = QPS_LIST_MAX + 100;
	uint64_t *c = calloc(n, sizeof(*c));

	for (uint32_t i = 0; i < n; i++)
		c[i] = i + 1;
	qps_spread(&q, c, n);
	CHECK(q.listed == QPS_LIST_MAX);
	CHECK(q.counts[QPS_LIST_MAX - 1] == QPS_LIST_MAX);
	CHECK(q.min == 1 && q.max == n); /* the spread is over all */
	CHECK(n % 2 == 0 && q.median == n / 2); /* (n/2 + n/2 + 1) / 2 */
	CHECK(q.total == (uint64_t)n * (n + 1) / 2);
	free(c);
}

TEST(json)
{
	static struct qp_side q[2];
	uint64_t c[3] = { 4, 5, 6 };
	json_t *o, *loc;

	q[0] = (struct qp_side){ .valid = true, .n = 3, .cq_per_qp = true,
				 .setup_ns = 1500000, .mr_B = 22,
				 .queue_B = 4096, .proc_B = 7000 };
	qps_spread(&q[0], c, 3);
	o = json_qps(q);
	CHECK(json_integer_value(json_object_get(o, "count")) == 3);
	CHECK(json_integer_value(json_object_get(o, "listed_max")) ==
	      QPS_LIST_MAX);
	CHECK(json_is_null(json_object_get(o, "rem"))); /* none sent */
	loc = json_object_get(o, "loc");
	CHECK(json_is_true(json_object_get(loc, "cq_per_qp")));
	CHECK(json_real_value(json_object_get(loc, "setup_s")) == 0.0015);
	CHECK(json_array_size(json_object_get(loc, "per_qp_msgs")) == 3);
	CHECK(json_integer_value(json_object_get(
		      json_object_get(loc, "msgs"), "median")) == 5);
	CHECK(json_integer_value(json_object_get(
		      json_object_get(loc, "mem_per_qp"), "pinned_B")) ==
	      4096 + 22);
	json_decref(o);
}

int main(void)
{
	RUN(spread);
	RUN(listed_cap);
	RUN(json);
	return harness_done();
}
