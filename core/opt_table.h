/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one typed option table (core/opt_table.c): one row per spelling,
 * with its type, range, scope (loc/rem), the parameter it sets and its
 * help line.  Parsing, validation, --loop, --help and the man-page check
 * (tests/unit/test_docs.sh) all read it; nothing else lists options.
 */
#ifndef QPERF_OPT_TABLE_H
#define QPERF_OPT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum opt_type {
	OT_INT, /* decimal integer */
	OT_SIZE, /* size with K/KiB/k/kb/M/... suffix */
	OT_TIME, /* seconds, fractions allowed, s/m/h/d suffix */
	OT_RATE, /* --rate: a bandwidth (10Gb, 1.25GB) or msgs/s (2M/s) */
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
	OA_COMPLETION, /* --completion Shell: RUN_COMPLETION */
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
	OA_CLIENTS, /* --clients K: plan->clients */
	OA_LOAD, OA_LOAD_DIR, OA_LOAD_RATE, OA_NO_IDLE, /* plan->load */
	OA_RENDEZVOUS, /* --rendezvous HOST:PORT */
	OA_SEED, /* --seed N */
	OA_INTERVAL, /* -I: settings.interval */
	OA_ARRIVALS, /* --arrivals: settings.arrivals */
	OA_HUGEPAGES, /* --hugepages: settings.mr */
	OA_PREFAULT, /* --prefault: settings.mr */
	OA_ODP, /* --odp [Mode]: settings.mr */
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
	OA_V_EXTRA, /* -vx: figures beyond 0.4.11; not implied by -v/-vv */
	OA_EXPECT, /* --expect EXPR: a limit (core/checks.h) */
	OA_BASELINE, /* --baseline FILE */
	OA_TOLERANCE, /* --tolerance PERCENT */
	OA_COMPARE, /* --compare A.json B.json: RUN_COMPARE */
	OA_EXPORTER, /* --exporter [ADDR]:PORT: RUN_EXPORTER */
	OA_EXPORTER_ALLOW, /* --exporter_allow LIST */
	OA_EXPORTER_MAX /* --exporter_max N */
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

/* The largest value parameter par takes: the top of its options' ranges,
 * the bound the server checks a request's item against too (0: no
 * option sets par). */
uint64_t opt_max(int par);

#endif
