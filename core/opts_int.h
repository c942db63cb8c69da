/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What core/opts.c and core/opts_loop.c (--loop) share; nothing else
 * includes this.
 */
#ifndef QPERF_OPTS_INT_H
#define QPERF_OPTS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "opt_table.h"
#include "plan.h"

/* The option spelled name (with its dashes when dashes, else without),
 * obsolete spellings as such; NULL if none. */
const struct opt_desc *opt_lookup(const char *name, bool dashes);

/* The entry an obsolete spelling stands for (o itself if current). */
const struct opt_desc *opt_resolve(const struct opt_desc *o);

/* Apply value v of option o (as typed: spelling) to s: parsed, range
 * checked, set.  0, or -1 with err filled. */
int opts_apply(struct settings *s, const struct opt_desc *o,
	       const char *spelling, const char *v, char *err, size_t errlen);

/*
 * Parse one --loop argument spec into lp, rejecting every loop that would
 * not terminate; s is the settings so far, used to try the first values.
 * 0, or -1 with err filled.
 */
int opts_parse_loop(const char *spelling, const char *spec,
		    const struct settings *s, struct loop *lp, char *err,
		    size_t errlen);

/* Value v of option o parsed by its type and range checked into *x: 0,
 * or -1 with err filled. */
int parse_value(const struct opt_desc *o, const char *spelling,
		const char *v, uint64_t *x, char *err, size_t errlen);

/* A warning found while parsing, said before any test (plan->warn). */
__attribute__((format(printf, 2, 3))) void plan_warn(struct plan *plan,
						     const char *fmt, ...);

/*
 * Memory registration (core/regmr_opts.c): --hugepages, --prefault,
 * --odp [Mode], --threads N into s->mr (next: the word after --odp, or
 * NULL; *used says it was its mode): 0, or -1 with err filled (a usage
 * error).  regmr_plan_check() warns of them where a test does not use
 * them (msg_size 0 is its option's error already).
 */
int regmr_opt(struct settings *s, const struct opt_desc *o,
	      const char *spelling, const char *v, const char *next,
	      bool *used, char *err, size_t errlen);
void regmr_plan_check(struct plan *plan);

#endif
