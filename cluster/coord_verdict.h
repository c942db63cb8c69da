/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's verdicts on rank 0 (issue 18 item 6): each pair's
 * efficiency (its received bandwidth over the path's ceiling, which the
 * pair's two ends worked out from their facts), and each pair held to
 * every --expect (core/checks.h checks_pair()), the failing pairs kept
 * with the limit their ends named, "of the server" made "of rank 5
 * (host)".  The exit status follows point 3 of the issue: a run where
 * every pair test ran but a check failed exits VERDICT_FAILED_STATUS.
 */
#ifndef QPERF_COORD_VERDICT_H
#define QPERF_COORD_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "coord_state.h"

/* A measured pair's efficiency cell and checks (from store()). */
void cv_record(struct coord *c, uint32_t item, uint32_t client,
	       uint32_t server, const struct pair_res *r);

/* "of the server" / "of the client" in a limit's text made "of rank N
 * (host)" for the pair (client, server) of c: into out.  Pure. */
void cv_name_ranks(const struct coord *c, uint32_t client, uint32_t server,
		   const char *in, char *out, size_t len);

/* The text report's verdict of item: nothing without --expect. */
void cv_print(const struct coord *c, size_t item);

/* Pairs that failed a check, over every test. */
uint32_t cv_failed(const struct coord *c);

#endif
