// SPDX-License-Identifier: GPL-2.0-only
/*
 * --loop (spec §4.6): parsing Var:Init:Last:Incr against the option
 * table, proving that each loop terminates before any test runs, and
 * running the nested loops over a copy of the settings.  A --rate loop
 * keeps the kind of its Init (a bandwidth or a message rate).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "opts_int.h"
#include "param.h"
#include "lib/types.h"

/*
 * Parse one loop field for Var: a time for a time option (Init, Last and
 * an adding Incr, in ns, so 0.1 + 0.1 + 0.1 is exactly 0.3), else a size.
 */
static int loop_field(const struct opt_desc *o, const char *spelling,
		      const char *v, bool factor, uint64_t *x, char *err,
		      size_t errlen)
{
	if (o->type == OT_TIME && !factor)
		return parse_time(spelling, v, x, err, errlen);
	return parse_size(spelling, v, x, err, errlen);
}

/*
 * A --rate loop's field: Init, Last and an adding Incr are rates of one
 * kind (lp->msgs, from Init); a factor is a plain number.
 */
static int loop_rate_field(struct loop *lp, const char *spelling,
			   const char *spec, const char *v, bool first,
			   uint64_t *x, char *err, size_t errlen)
{
	bool msgs;

	if (parse_rate(spelling, v, x, &msgs, err, errlen) < 0)
		return -1;
	if (first)
		lp->msgs = msgs;
	else if (msgs != lp->msgs)
		return opts_fail(err, errlen, spelling, spec,
			    "mixes a bandwidth and a message rate");
	return 0;
}

/* Set loop lp's variable to v in s: a rate in its loop's kind. */
static int loop_set(struct settings *s, const struct loop *lp, uint64_t v,
		    char *err, size_t errlen)
{
	char buf[32];

	if (lp->opt->type != OT_RATE)
		return opts_set_value(s, lp->opt, v, err, errlen);
	snprintf(buf, sizeof(buf), "%" PRIu64 "%s", v, lp->msgs ? "/s" : "B");
	return opts_apply(s, lp->opt, lp->opt->name, buf, err, errlen);
}

/* A loop limit as the user types it, for messages. */
static uint64_t typed_max(const struct opt_desc *o)
{
	return o->type == OT_TIME ? o->max / NS_PER_SEC : o->max;
}

/*
 * Parse one --loop argument (spec §4.6) into lp, rejecting every loop
 * that would not terminate.  s is the settings so far, used to try the
 * first values.
 */
int opts_parse_loop(const char *spelling, const char *spec,
		    const struct settings *s, struct loop *lp, char *err,
		    size_t errlen)
{
	char buf[256];
	char *f[4];
	const char *var, *incr;
	const struct opt_desc *o;
	struct settings tmp;
	uint64_t v;
	int n = 1;

	if (strlen(spec) >= sizeof(buf))
		return opts_fail(err, errlen, spelling, spec, "too long");
	memcpy(buf, spec, strlen(spec) + 1);
	/* Missing trailing fields repeat the last one given (0.4.11). */
	f[0] = buf;
	while (n < 4) {
		char *c = strchr(f[n - 1], ':');

		if (!c)
			break;
		*c = '\0';
		f[n++] = c + 1;
	}
	for (int i = n; i < 4; i++)
		f[i] = f[n - 1];

	var = f[0][0] ? f[0] : "msg_size";
	o = opt_resolve(opt_lookup(var, false));
	if (!o)
		return opts_fail(err, errlen, spelling, var, "no such variable");
	if (!opt_loopable(o))
		return opts_fail(err, errlen, spelling, var,
			    "cannot be looped; only numeric options can");
	memset(lp, 0, sizeof(*lp));
	lp->opt = o;

	incr = f[3];
	if (*incr == '*') {
		lp->mult = true;
		incr++;
	}
	if (*incr == '\0')
		return opts_fail(err, errlen, spelling, spec,
			    "empty increment; increment must be positive");
	if (o->type == OT_RATE && !lp->mult) {
		bool m;

		/* its kind is checked against Init's below */
		if (parse_rate(spelling, incr, &lp->incr, &m, err, errlen) < 0)
			return -1;
	} else if (loop_field(o, spelling, incr, lp->mult, &lp->incr, err,
			      errlen)) {
		return -1;
	}
	if (lp->incr == 0)
		return opts_fail(err, errlen, spelling, spec,
			    "increment must be positive");
	if (lp->mult && lp->incr == 1)
		return opts_fail(err, errlen, spelling, spec,
			    "multiplying by 1 would loop forever");

	if (o->type == OT_RATE) {
		if (f[1][0] == '\0' || f[2][0] == '\0')
			return opts_fail(err, errlen, spelling, spec,
				    "a rate loop needs Init and Last");
		if (loop_rate_field(lp, spelling, spec, f[1], true, &lp->init,
				    err, errlen) < 0 ||
		    loop_rate_field(lp, spelling, spec, f[2], false,
				    &lp->last, err, errlen) < 0)
			return -1;
		if (!lp->mult && loop_rate_field(lp, spelling, spec, incr,
						 false, &lp->incr, err,
						 errlen) < 0)
			return -1; /* the same Incr, now checked for its kind */
	} else if (f[1][0] == '\0')
		lp->init = (lp->mult ? 1 : 0) *
			   (o->type == OT_TIME ? NS_PER_SEC : 1);
	else if (loop_field(o, spelling, f[1], false, &lp->init, err, errlen))
		return -1;
	if (f[2][0] == '\0')
		return opts_fail(err, errlen, spelling, spec, "must specify limit");
	if (o->type != OT_RATE &&
	    loop_field(o, spelling, f[2], false, &lp->last, err, errlen))
		return -1;

	if (o->par == PAR_TIME && lp->init == 0)
		return opts_fail(err, errlen, spelling, spec,
			    "time 0 runs until interrupted and cannot be looped");
	if (lp->mult && lp->init == 0)
		return opts_fail(err, errlen, spelling, spec,
			    "multiplying from 0 would loop forever");
	if (lp->init > lp->last)
		return opts_fail(err, errlen, spelling, spec,
			    "initial value greater than limit");
	if (lp->last > o->max)
		return opts_fail(err, errlen, spelling, spec,
			    "limit too large for %s; must be at most %" PRIu64,
			    o->name, typed_max(o));

	/*
	 * Try the first values now, so that a bad one (msg_size 0, an MTU
	 * that is not a power of two) is a usage error before any test
	 * runs.  loops_run() checks every value again.
	 */
	tmp = *s;
	v = lp->init;
	for (int i = 0; i < 64 && v <= lp->last; i++) {
		char inner[160];

		if (loop_set(&tmp, lp, v, inner, sizeof(inner)))
			return opts_fail(err, errlen, spelling, spec, "%s", inner);
		if (lp->mult ? __builtin_mul_overflow(v, lp->incr, &v)
			     : __builtin_add_overflow(v, lp->incr, &v))
			break;
	}
	return 0;
}

static int loop_level(struct settings *w, int depth,
		      int (*fn)(const struct settings *, void *), void *arg,
		      char *err, size_t errlen)
{
	const struct loop *lp;
	uint64_t v;

	if (depth >= w->nloops)
		return fn(w, arg);
	lp = &w->loops[depth];
	v = lp->init;
	while (v <= lp->last) {
		int rc;

		if (loop_set(w, lp, v, err, errlen))
			return -1;
		rc = loop_level(w, depth + 1, fn, arg, err, errlen);
		if (rc)
			return rc;
		/* Stop rather than wrap: an overflowed value exceeds Last. */
		if (lp->mult ? __builtin_mul_overflow(v, lp->incr, &v)
			     : __builtin_add_overflow(v, lp->incr, &v))
			break;
		if (lp->incr == 0 || (lp->mult && lp->incr < 2))
			break; /* cannot happen after parse_loop; never spin */
	}
	return 0;
}

int loops_run(const struct settings *s,
	      int (*fn)(const struct settings *, void *), void *arg,
	      char *err, size_t errlen)
{
	struct settings w = *s;

	if (w.nloops < 0 || w.nloops > LOOP_MAX)
		return opts_fail(err, errlen, "--loop", NULL, "bad loop count");
	return loop_level(&w, 0, fn, arg, err, errlen);
}
