// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's --loop: every rank expands each looped test of the plan
 * into one plan item per iteration, in the order a normal run takes them
 * (first loop outermost), so that the items' indices mean the same on
 * every rank (rank 0 names them in RUN).  Each item is then scheduled,
 * reported and retested like a test of its own, with a label naming the
 * loop's values ("rc_bw msg_size=64KiB").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_plan.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "transports/transport.h"

struct expand {
	struct plan_item *v;
	size_t n, cap;
	const struct test_desc *t;
};

/* A loop value as the label shows it: 64KiB, 1MiB, 1000, 0.5s. */
static void value_text(const struct opt_desc *o, uint64_t v, char *out,
		       size_t len)
{
	static const char *const unit[] = { "GiB", "MiB", "KiB" };

	if (o->type == OT_TIME) {
		xsnprintf(out, len, "%gs", (double)v / 1e9);
		return;
	}
	for (int i = 0; o->type == OT_SIZE && v && i < 3; i++) {
		uint64_t scale = 1ULL << (10 * (3 - i));

		if (v % scale == 0) {
			xsnprintf(out, len, "%" PRIu64 "%s", v / scale, unit[i]);
			return;
		}
	}
	xsnprintf(out, len, "%" PRIu64, v);
}

void cluster_item_label(const struct test_desc *t, const struct settings *s,
			char *out, size_t len)
{
	size_t k = xsnprintf(out, len, "%s", t->name);

	for (int i = 0; i < s->nloops; i++) {
		char v[32];

		value_text(s->loops[i].opt, loop_value(s, i), v, sizeof(v));
		k += xsnprintf(out + k, len - k, "%s%s=%s", i ? "," : " ",
			       s->loops[i].opt->name + 2, v);
	}
}

const char *cluster_item_name(const struct plan_item *it)
{
	return it->label[0] ? it->label : it->test->name;
}

/* Add an item; -1 when the run would pass CLUSTER_ITEMS_MAX. */
static int append(struct expand *e, const struct test_desc *t,
		  const struct settings *s)
{
	struct plan_item *it;

	if (e->n >= CLUSTER_ITEMS_MAX)
		return -1;
	e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof(*e->v));
	it = &e->v[e->n++];
	memset(it, 0, sizeof(*it));
	it->test = t;
	it->s = *s;
	if (s->nloops)
		cluster_item_label(t, s, it->label, sizeof(it->label));
	return 0;
}

static int one_iteration(const struct settings *s, void *arg)
{
	struct expand *e = arg;

	return append(e, e->t, s) < 0 ? 1 : 0;
}

int cluster_expand(struct plan *p, char *err, size_t errlen)
{
	struct expand e = { 0 };

	for (size_t i = 0; i < p->ntests; i++) {
		const struct plan_item *it = &p->tests[i];
		int rc;

		if (!it->s.nloops) {
			if (append(&e, it->test, &it->s) < 0)
				goto many;
			continue;
		}
		e.t = it->test;
		rc = loops_run(&it->s, one_iteration, &e, err, errlen);
		if (rc > 0)
			goto many;
		if (rc < 0) {
			free(e.v);
			return -1;
		}
	}
	free(p->tests);
	p->tests = e.v;
	p->ntests = e.n;
	return 0;
many:
	free(e.v);
	return opts_fail(err, errlen, "--loop", NULL,
			 "more than %d tests and loop iterations in cluster mode",
			 CLUSTER_ITEMS_MAX);
}
