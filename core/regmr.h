/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Memory registration (reg_mr, issue 20): the options' names, and the
 * client's run of a test that needs no server (TK_LOCAL).
 */
#ifndef QPERF_CORE_REGMR_H
#define QPERF_CORE_REGMR_H

#include <stdint.h>

#include "plan.h"

struct attempt;
struct tparams;

/* --odp's mode named w (explicit, implicit, prefetch): its enum
 * regmr_odp, or -1.  Pure. */
int regmr_odp_parse(const char *w);
/* The name of enum regmr_odp odp ("off" for REGMR_ODP_OFF).  Pure. */
const char *regmr_odp_name(uint32_t odp);

/* This end's --hugepages and --odp (and reg_mr's --prefault,
 * --threads) from s into p; the server never gets them. */
void regmr_apply(const struct settings *s, struct tparams *p);

/*
 * Run a->t (TK_LOCAL) on this end alone with a->s's values, emitting
 * its result to a->out.  Blocks for the test's time.  0, or -1 with
 * a->err filled.
 */
int regmr_run(struct attempt *a);

#endif
