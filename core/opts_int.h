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

#endif
