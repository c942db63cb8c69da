/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the client room: one test attempt's state, shared by
 * core/client.c (the run) and core/client_req.c (the requests it sends
 * and the checks of the plan before any test).
 */
#ifndef QPERF_CORE_CLIENT_INT_H
#define QPERF_CORE_CLIENT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "ctl.h"
#include "param.h"
#include "plan.h"
#include "output/sink.h"

#define ERR_MAX 512

/* One test attempt's state. */
struct attempt {
	const struct test_desc *t;
	const struct settings *s;
	struct par_set par; /* after param_prepare() */
	struct ctl c;
	struct req q; /* what the server gets */
	struct req lq; /* the same for this side (loc_ values) */
	struct hello h; /* a 0.5 server's answer */
	struct outputs *out; /* from struct client */
	bool run_conf; /* the run's own conf (for JSON), not a conf test */
	const struct test_desc *pre_for; /* a preflight for this test */
	char err[ERR_MAX];
};

/* The request for one side's values (SIDE_REM: what the server gets). */
void fill_side(struct attempt *a, int side, bool legacy, struct req *q);
/* Both: a->q for the server, a->lq for this end. */
void fill_request(struct attempt *a, bool legacy);
/*
 * What this test asks of the server beyond what core/client.c checks
 * (--conns: CAP_CONNS; --threads: CAP_THREADS): after the server's
 * hello, or before a 0.4.11 server (legacy) is sent anything.  0, or -1 with
 * a->err filled with one line naming the option and the server.
 */
int client_caps_check(struct attempt *a, bool legacy, const char *host);
/*
 * Before any test: each test's local values against the local device:
 * 0, or the exit status (2 for a bad value, 1 if a test cannot run here)
 * with the error in msg.
 */
int precheck_plan(const struct plan *p, char *msg, size_t msglen);

#endif
