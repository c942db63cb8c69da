/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line parsing: the one typed option table (names, short names,
 * type, limits, loc/rem scope, help) that drives parsing, validation,
 * --loop, --help and the man-page check.
 *
 * Unlike 0.4.11, the whole command line is parsed and validated before
 * any test runs; the result is a plan.  Each test in the plan carries a
 * snapshot of the settings as they were when its name was parsed, so
 * "qperf h tcp_lat -v udp_lat" still runs tcp_lat without -v (spec §1.1).
 */
#ifndef QPERF_OPTS_H
#define QPERF_OPTS_H

#include <stdio.h>

#include "acl.h"
#include "lib/sched.h"
#include "lib/types.h"

struct test_desc;
struct auth_secret;

enum opt_type {
	OT_INT, /* decimal integer */
	OT_SIZE, /* size with K/KiB/k/kb/M/... suffix */
	OT_TIME, /* seconds, fractions allowed, s/m/h/d suffix */
	OT_STR, /* string, < 64 chars */
	OT_SL, /* service level 0..15 */
	OT_SET1, /* no value: sets the targets to 1 */
	OT_FLAG, /* no value: a switch (verbosity, -uu, ...) */
	OT_SPECIAL /* host, loop, help, version, listen port ... */
};

/*
 * What an option does besides (or instead of) setting its parameter.
 * Options that only set a parameter (par >= 0) have OA_NONE.
 */
enum opt_act {
	OA_NONE,
	OA_HELP, /* -h [topic]: RUN_HELP */
	OA_VERSION, /* -V: RUN_VERSION */
	OA_HOST, /* -H host */
	OA_LOOP, /* -oo Var:Init:Last:Incr */
	OA_LISTEN_PORT, /* -lp: plan->listen_port */
	OA_PORT_FILE, /* -lpf: plan->port_file */
	OA_WAIT_SERVER, /* -ws: plan->wait_server */
	OA_SERVER_TIMEOUT, /* -lto: also plan->server_timeout */
	OA_DEBUG, /* -D */
	OA_LISTEN_HOST, /* -lh: plan->listen_host */
	OA_ALLOW, /* --allow: plan->allow */
	OA_NO_QUIT, /* --no_quit */
	OA_LOW_PORTS, /* --allow_low_ports */
	OA_MAX_PER_CLIENT, /* --max_per_client */
	OA_MAX_TIME, /* --max_time */
	OA_MAX_MSGS, /* --max_msgs */
	OA_MAX_MEMORY, /* --max_memory */
	OA_MAX_SETUP, /* --max_setup */
	OA_CLUSTER, /* --cluster PATTERN: RUN_CLUSTER */
	OA_RENDEZVOUS, /* --rendezvous HOST:PORT */
	OA_SEED, /* --seed N */
	OA_INTERVAL, /* -I: settings.interval */
	OA_PLOT, /* --plot: plan->plot_file */
	OA_JSON, /* -J: plan->json = JSON_DOC */
	OA_JSON_STREAM, /* --json_stream: plan->json = JSON_STREAM */
	OA_SECRET_FILE, /* --secret_file: plan->secret_file */
	OA_PRECISION, /* -e: out.precision */
	OA_UNIFY_NODES, /* -un */
	OA_UNIFY_UNITS, /* -uu */
	OA_BITS, /* -ub */
	OA_VERBOSE, /* -v: every class to at least 1 */
	OA_VERBOSE_MORE, /* -vv: every class to 2 */
	OA_V_CONF, OA_V_STAT, OA_V_TIME, OA_V_USED, /* -vc ...: exactly 1 */
	OA_VV_CONF, OA_VV_STAT, OA_VV_TIME, OA_VV_USED, /* -vvc ...: 2 */
	OA_V_EXTRA /* -vx: figures beyond 0.4.11; not implied by -v/-vv */
};

/*
 * One entry of the option table.  An obsolete spelling carries only name
 * and obsolete_for; everything else comes from the entry it names.
 */
struct opt_desc {
	const char *name; /* long form with dashes, e.g. "--msg_size" */
	const char *abbr; /* short form, e.g. "-m", or NULL */
	enum opt_type type;
	int par; /* enum par_id, or -1 */
	unsigned sides; /* bit 0: SIDE_LOC, bit 1: SIDE_REM */
	bool server_ok; /* may be given without making this a client */
	uint64_t min, max; /* accepted range (after unit scaling) */
	const char *arg; /* argument name for help, e.g. "size", or NULL */
	const char *help; /* one-line description for --help options */
	const char *obsolete_for; /* non-NULL: obsolete spelling of this option */
	enum opt_act act; /* what it does beyond setting par */
};

extern const struct opt_desc opt_table[];
extern const size_t opt_count;

#define LOOP_MAX 8

/* One --loop Var:Init:Last:Incr, validated so that it always terminates. */
struct loop {
	const struct opt_desc *opt; /* the variable's option */
	uint64_t init, last, incr; /* after unit scaling */
	bool mult; /* Incr had a leading '*' */
};

/* Everything that options can set, snapshotted per test. */
struct settings {
	struct par_set par;
	struct out_opts out;
	int nloops;
	struct loop loops[LOOP_MAX]; /* first given = outermost */
	uint64_t interval; /* ns: -I, interval reports; 0 = none */
	const char *interval_opt; /* -I as typed, for warnings */
};

struct plan_item {
	const struct test_desc *test;
	struct settings s;
	char label[96]; /* cluster --loop: "rc_bw msg_size=64KiB"; else "" */
};


enum run_mode { RUN_SERVER, RUN_CLIENT, RUN_HELP, RUN_VERSION, RUN_CLUSTER };

/* Cluster mode's options (cluster/cluster.h). */
struct cluster_opts {
	struct sched_spec pattern; /* --cluster */
	const char *rendezvous; /* --rendezvous HOST:PORT */
	uint64_t seed; /* --seed; from the clock if not given */
	bool seed_set;
	uint64_t join_window; /* ns: -ws, else CLUSTER_JOIN_NS */
	uint32_t port_base; /* -lp given: servers on base + local rank */
};

#define WARN_MAX 32

/* Server defaults (docs/server.md "Limits", docs/qperf.1, --help options). */
#define SERVER_MAX_CHILDREN 16 /* requests served at once */
#define DEFAULT_MAX_PER_CLIENT 4 /* of them from one client address */
#define CLUSTER_JOIN_NS (30 * NS_PER_SEC) /* cluster mode: default join window */
#define DEFAULT_MAX_TIME (600 * NS_PER_SEC) /* -t; count-based tests too */
#define DEFAULT_MAX_MSGS 100000000ULL /* -n */
#define DEFAULT_MAX_SETUP (10 * NS_PER_SEC) /* request to first data */

/* What a server enforces (server mode only). */
struct server_limits {
	const char *listen_host; /* -lh: NULL = every address */
	struct acl allow; /* --allow: empty = every client */
	bool no_quit; /* --no_quit: refuse quit */
	bool low_ports; /* --allow_low_ports: data ports below 1024 */
	uint32_t max_per_client; /* concurrent requests per address */
	uint64_t max_time; /* ns: longest -t; longest count-based run */
	uint64_t max_msgs; /* largest -n */
	uint64_t max_memory; /* bytes for all children; 0 = from RAM */
	uint64_t max_setup; /* ns: request to first data, and teardown */
	const char *first_opt; /* first server-only option given, or NULL */
};

struct plan {
	enum run_mode mode;
	const char *host; /* client: server host */
	uint16_t listen_port; /* default 19765; 0 allowed for a server */
	const char *port_file; /* server: write the bound port here */
	const char *plot_file; /* client: --plot, an SVG of the sweep */
	uint64_t wait_server; /* ns, default 5 s */
	uint64_t server_timeout; /* ns, server's request timeout (-lto) */
	bool debug; /* -D */
	const char *secret_file; /* --secret_file, or NULL */
	struct auth_secret *secret; /* loaded by main() (core/auth.h) */
	struct server_limits lim; /* server mode */
	struct cluster_opts cluster; /* RUN_CLUSTER */
	const char *help_topic; /* RUN_HELP: "main" if none */
	enum json_mode json; /* client output */
	int argc; /* the command line, for JSON */
	char *const *argv;
	size_t ntests;
	struct plan_item *tests; /* malloc'd; plan_free() releases */
	int nwarn;
	char warn[WARN_MAX][160]; /* warnings found while parsing */
};

/*
 * Parse argv into plan.  Returns 0 on success, or -1 with a message in err
 * (no "qperf: " prefix, no newline) naming the bad option and value; the
 * caller prints it and exits 2.  Does not print, does not block.
 */
int opts_parse(int argc, char **argv, struct plan *plan, char *err,
	       size_t errlen);

/* Release what opts_parse() allocated. */
void plan_free(struct plan *plan);

/*
 * Set opt (the variable of a --loop) to the value v in s, exactly as if
 * "opt v" had been typed.  v is in the option's own unit: bytes, a count,
 * or nanoseconds for a time (typed as seconds with up to nine decimals).
 * Returns 0 or -1 with err filled.
 */
int opts_set_value(struct settings *s, const struct opt_desc *opt,
		   uint64_t v, char *err, size_t errlen);

/*
 * Expand the loops of s: calls fn once per iteration with the settings of
 * that iteration (first loop outermost).  Stops and returns fn's value at
 * the first non-zero return.  Loops always terminate: loop_plan rejects
 * zero increments, "*1" and multiplying from 0, and stops on overflow.
 */
int loops_run(const struct settings *s,
	      int (*fn)(const struct settings *, void *), void *arg,
	      char *err, size_t errlen);

/*
 * The value the variable of s's loop i has in s (an iteration's settings):
 * bytes, a count, or nanoseconds for a time.
 */
uint64_t loop_value(const struct settings *s, int i);

/* s's loops as the outputs see them into out[0..s->nloops); the count. */
int loop_vals(const struct settings *s, struct loop_val out[LOOP_MAX]);

/*
 * Fill err with "<opt>: <v>: <what>" (or "<opt>: <what>" when v is NULL),
 * opt and v clipped to 60 characters.  Returns -1.  For opts.c and
 * param.c.
 */
int opts_fail(char *err, size_t errlen, const char *opt, const char *v,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Parsers, exported for unit tests.  Return 0, or -1 with err filled. */
int parse_size(const char *opt, const char *v, uint64_t *out, char *err,
	       size_t errlen);
int parse_time(const char *opt, const char *v, uint64_t *ns, char *err,
	       size_t errlen);
int parse_int(const char *opt, const char *v, uint64_t *out, char *err,
	      size_t errlen);
/* parse_size() with a larger limit (at most UINT64_MAX / 2). */
int parse_size_max(const char *opt, const char *v, uint64_t max,
		   uint64_t *out, char *err, size_t errlen);

/*
 * Checks of a test's settings that need the test (spec §4.7 runs them
 * per test): a message larger than the test's transport can carry (a UDP
 * datagram: 65,507 bytes), for the value set and for every value a
 * --loop over msg_size reaches.  Returns 0 or -1 with err filled
 * ("-m: 70000: ...").
 */
int param_check_test(const struct test_desc *t, const struct settings *s,
		     char *err, size_t errlen);

/* The largest message test t can carry, or 0 for no limit. */
uint64_t param_msg_max(const struct test_desc *t);
/*
 * The same rule for a message size about to be used (the client's own
 * side before it connects, either side's session before it opens): 0, or
 * -1 with err "message size N is larger than LABEL can carry (MAX)".
 */
int param_msg_check(const struct test_desc *t, uint64_t size, char *err,
		    size_t errlen);

/*
 * The parameters the request carries and the transport receives, one row
 * each: how it travels (a u32 field of 0.4.11's 200-byte request, or a
 * verbs knob item REQX_VK_BASE + (par - PAR_VK_FIRST) of the 0.5 request
 * block, sent only when given and used) and the struct tparams field it
 * fills.  The client's fill_side(), the request block's codec and the
 * session's session_params() are loops over it.  What is not a plain copy
 * stays by hand beside those loops: time and timeout (whole seconds in
 * 0.4.11's fields, ns in the block), use_cm (0 for an RDMA test that
 * cannot use the CM), id and static_rate (strings), gid_index, streams
 * and the -ca list (their own items, 0.5 peers only).
 */
enum par_wire {
	PW_LEGACY, /* a uint32_t of struct req (0.4.11's field) */
	PW_VK /* a verbs knob: vk[par - PAR_VK_FIRST] of struct req */
};

struct par_row {
	int par; /* enum par_id */
	enum par_wire wire;
	size_t req_off; /* PW_LEGACY: its uint32_t in struct req */
	bool fill_own; /* fill_side() sets it by a rule of its own */
	size_t tp_off, tp_size; /* its field of struct tparams (a uint32_t
				 * or uint64_t; tp_size 0: none) */
	size_t tp_set_off; /* PW_VK: a bool of struct tparams, true when
			    * the knob was given (0: none) */
};
extern const struct par_row param_table[];
extern const size_t param_count;

/* The largest value parameter par takes: its option's range, the bound
 * the server checks a request's item against too (0: no option). */
uint64_t param_max(int par);

/*
 * Per-test preparation (spec §4.7): mark the parameters the test uses,
 * fill test defaults (time 2 s unless -n, timeout 5 s, msg_size) without
 * marking them user-set.
 */
void param_prepare(const struct test_desc *t, struct par_set *p);

/*
 * Write into buf one "<opt> set but not used in test <name>" line per
 * user-set, unused parameter, in parameter-table order, separated by
 * '\n'.  Returns the number of warnings.
 */
int param_unused(const struct test_desc *t, const struct par_set *p,
		 char *buf, size_t buflen);

/*
 * Print help for topic ("main", "tests", "opts", "options", "examples",
 * a test name ...).  Returns 0, or -1 with err filled for an unknown topic.
 */
int help_print(FILE *f, const char *topic, char *err, size_t errlen);

#endif
