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
 * server_main() in two steps, for cluster mode: listen on p->listen_port
 * (0: any free port) as -lh says, returning the socket or -1 with err
 * filled; then serve on it until stopped (returns the exit status).
 */
int server_listen(const struct plan *p, char *err, size_t errlen);
int server_serve(const struct plan *p, int lfd);

/*
 * Write the port lfd is bound to into path (-lpf), atomically and the
 * safe way (lib/outfile.h).  0, or -1 with err naming -lpf and path.
 * Also the exporter's (exporter/http.c).
 */
int write_port_file(const char *path, int lfd, char *err, size_t errlen);

/*
 * Run every test of the plan against p->host and print the reports.
 * Returns the exit status: 0 if every test succeeded, 1 at the first
 * failed test (the rest do not run).  Prints its own errors.
 */
int client_main(const struct plan *p);

/*
 * Run test t with settings s as a client against host:port and return
 * its figures, for cluster mode (no report is printed), stopping at
 * barrier b just before its window (NULL: none; struct client_barrier
 * below).  0, or the test's exit status with err filled.
 */
struct client_barrier;
int client_pair(const struct plan *p, const struct test_desc *t,
		const struct settings *s, const char *host, uint16_t port,
		const struct client_barrier *b, struct pair_res *out,
		char *err, size_t errlen);

/*
 * --clients: the common start of K clients.  wait is called by a client's
 * test once its data path is set up, just before its measured window
 * (core/session.h); it returns 0 to start, or -1 with err filled.
 */
struct client_barrier {
	int (*wait)(void *arg, uint64_t timeout, char *err, size_t errlen);
	void *arg;
	const char *opt; /* "--clients", "--load": for a 0.4.11 server */
};

/*
 * client_pair() against p->host and p->listen_port, stopping at b before
 * the window (core/clients.c's children).  A 0.4.11 server is refused
 * before its test starts: it serves one test at a time.
 */
int client_pair_sync(const struct plan *p, const struct test_desc *t,
		     const struct settings *s, const struct client_barrier *b,
		     struct pair_res *out, char *err, size_t errlen);

/*
 * --clients K: run the plan's tests from K client processes at once
 * against p->host and print, per test, each client's figure, the
 * aggregate, fairness and the slowest client (docs/clients.md).  Returns
 * the exit status (0, or 1 when a client failed); prints its own errors.
 */
int clients_main(const struct plan *p);

/*
 * --clients against the rest of the plan: 0, or -1 with err filled (a
 * usage error: a combination it does not run).
 */
int clients_check(const struct plan *p, char *err, size_t errlen);

/*
 * --load (core/load.c): what the client asks of the load around each
 * test of the plan.  before: ahead of test t's attempt (the idle run, the
 * load set up), 0 or -1 with err filled; wait: at t's barrier, just
 * before its window (the load started); result: after the window, before
 * the report (the load stopped, its figures into o->load), 0 or -1 with
 * err filled; after: once the attempt is over, whatever happened.
 */
struct out_result;
struct client_hook {
	int (*before)(void *arg, const struct test_desc *t,
		      const struct settings *s, char *err, size_t errlen);
	int (*wait)(void *arg, uint64_t timeout, char *err, size_t errlen);
	int (*result)(void *arg, struct out_result *o, char *err,
		      size_t errlen);
	void (*after)(void *arg);
	void *arg;
};

/* client_main() with hook h around each data test (h NULL: none). */
int client_main_hook(const struct plan *p, const struct client_hook *h);

/*
 * --load TEST: run each latency test of the plan idle (unless --no_idle)
 * and beside the load, and print the report with both (docs/load.md).
 * Returns the exit status; prints its own errors.
 */
int load_main(const struct plan *p);

/* One load: its test and the direction its data flows (enum load_dir). */
struct load_spec {
	const struct test_desc *t;
	uint32_t dir;
};

/* "out", "in" or "both". */
const char *load_dir_name(uint32_t dir);
/* The option act (OA_LOAD ...) given spelling and value v (NULL for a
 * flag) into plan->load: 0, or -1 with err filled (core/load_check.c). */
int load_opt(struct plan *plan, int act, const char *spelling,
	     const char *v, char *err, size_t errlen);
/* The loads l asks for into out: their number (1 or 2), or -1 with err
 * filled when the test has no such direction. */
int load_tests(const struct load_opts *l, struct load_spec out[2],
	       char *err, size_t errlen);
/*
 * The settings of a load beside a test of settings s: s's but for -m, -n,
 * --rate and -I (the load takes its test's own default message size), and
 * -t 0 (until interrupted), spelt `by` in messages ("--load").  For
 * --load and for cluster mode's latency rounds of incast:K and fanout:K.
 */
void load_settings_of(const struct settings *s, const char *by,
		      struct settings *out);

/* --load against the rest of the plan: 0, or -1 with err filled. */
int load_check(const struct plan *p, char *err, size_t errlen);

#endif
