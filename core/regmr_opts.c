// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory registration options (reg_mr, issue 20): --hugepages,
 * --prefault and --odp [explicit|implicit|prefetch] land in
 * struct settings' mr, per test like every option; the plan's checks say
 * which tests use them.  They are this end's only and never travel: the
 * RDMA bandwidth tests apply --hugepages and --odp to the client's
 * buffer.  Pure over the plan; the test itself is core/regmr.c and
 * transports/verbs_regmr.c.
 */
#include <stdbool.h>
#include <string.h>

#include "transports/transport.h"
#include "opt_err.h"
#include "opts_int.h"
#include "regmr.h"

static const char *const ODP_NAMES[] = REGMR_ODP_NAMES;

int regmr_odp_parse(const char *w)
{
	for (int i = REGMR_ODP_EXPLICIT; i <= REGMR_ODP_PREFETCH; i++)
		if (strcmp(w, ODP_NAMES[i]) == 0)
			return i;
	return -1;
}

const char *regmr_odp_name(uint32_t odp)
{
	return odp <= REGMR_ODP_PREFETCH ? ODP_NAMES[odp] : "?";
}

int regmr_opt(struct settings *s, const struct opt_desc *o,
	      const char *spelling, const char *v, const char *next,
	      bool *used, char *err, size_t errlen)
{
	struct mr_opts *m = &s->mr;
	int odp;

	(void)v; /* no option here takes a value */
	*used = false;
	if (!m->first)
		m->first = spelling;
	switch (o->act) {
	case OA_HUGEPAGES:
		m->hugepages = true;
		return 0;
	case OA_PREFAULT:
		m->prefault = true;
		return 0;
	default: /* OA_ODP: an optional mode; a test name is no mode */
		m->odp = REGMR_ODP_EXPLICIT;
		if (!next || next[0] == '-' || test_find(next))
			return 0;
		odp = regmr_odp_parse(next);
		if (odp < 0)
			return opts_fail(err, errlen, spelling, next,
					 "bad mode; use explicit, implicit or prefetch");
		m->odp = (uint32_t)odp;
		*used = true;
		return 0;
	}
}

void regmr_plan_check(struct plan *plan)
{
	for (size_t i = 0; i < plan->ntests; i++) {
		const struct plan_item *it = &plan->tests[i];
		const struct test_desc *t = it->test;
		const struct mr_opts *m = &it->s.mr;
		bool rdma = t->kind == TK_DATA && t->tp &&
			    (t->tp->flags & TF_RDMA);

		/* (a test this build lacks says so when it runs) */
		if (t->kind == TK_LOCAL || !m->first || !t->tp)
			continue;
		if (m->prefault)
			plan_warn(plan, "--prefault set but not used in test %s (reg_mr only)",
				  t->name);
		else if (!rdma)
			plan_warn(plan, "%s set but not used in test %s (reg_mr and the RDMA tests only)",
				  m->hugepages ? "--hugepages" : "--odp",
				  t->name);
	}
}
