/* SPDX-License-Identifier: GPL-2.0-only */
/* Entry points of the two roles, called by main() in qperf.c. */
#ifndef QPERF_ENGINE_H
#define QPERF_ENGINE_H

#include "opts.h"

/*
 * Run the server until a quit test arrives (unless --no_quit) or SIGTERM,
 * SIGINT or SIGQUIT.  Each request is served by a forked child whose
 * every wait is bounded and which the parent supervises (supervise.h),
 * so no client can hang the server.  Returns the exit status (0 after a
 * stop, 1 if it cannot listen); prints its own errors.
 */
int server_main(const struct plan *p);

/*
 * Run every test of the plan against p->host and print the reports.
 * Returns the exit status: 0 if every test succeeded, 1 at the first
 * failed test (the rest do not run).  Prints its own errors.
 */
int client_main(const struct plan *p);

#endif
