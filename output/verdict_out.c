// SPDX-License-Identifier: GPL-2.0-only
/*
 * A result's verdict (--expect, --baseline) as the outputs show it: one
 * "verdict = pass" or "verdict = fail: ..." line after the result's lines
 * in the text report, and a "verdict" object in JSON.  Only results that
 * carry a verdict get either, so a run without those options keeps
 * 0.4.11's report byte for byte.
 */
#include <stdio.h>

#include "json.h"
#include "sink.h"
#include "lib/verdict.h"

void verdict_text(FILE *f, const struct verdict *v)
{
	char line[VERDICT_CHECKS_MAX * 232 + 16];

	fprintf(f, "    verdict = %s\n", verdict_line(v, line, sizeof(line)));
}

static json_t *check_json(const struct vcheck *c)
{
	json_t *o = json_object();

	json_put(o, "expr", json_string(c->expr));
	json_put(o, "figure", json_string(verdict_fig_name(c->fig)));
	json_put(o, "op", json_string(verdict_op_name(c->op)));
	json_put(o, "value", c->have_value ? json_num(c->value) : NULL);
	json_put(o, "limit", c->have_limit ? json_num(c->limit) : NULL);
	if (c->baseline)
		json_put(o, "baseline", json_num(c->base));
	json_put(o, "pass", json_boolean(c->pass));
	json_put(o, "reason", json_string(c->reason));
	return o;
}

json_t *json_verdict(const struct verdict *v)
{
	json_t *o = json_object(), *a = json_array();

	for (int i = 0; i < v->n; i++)
		json_array_append_new(a, check_json(&v->c[i]));
	json_put(o, "pass", json_boolean(v->pass));
	json_put(o, "checks", a);
	json_put(o, "note", v->note[0] ? json_string(v->note) : NULL);
	return o;
}
