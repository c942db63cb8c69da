/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the command line asks for, as plain data: the settings snapshotted
 * per test (parameters, output options, --loop variables), the plan of a
 * run and the server's limits.  Types only; opts.c fills them, the
 * engine and cluster mode read them.
 */
#ifndef QPERF_PLAN_H
#define QPERF_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "acl.h"
#include "lib/sched.h"
#include "lib/types.h"
#include "lib/verdict.h"

struct test_desc;
struct auth_secret;
struct opt_desc;
struct baseline;

#define LOOP_MAX 8

/* One --loop Var:Init:Last:Incr, validated so that it always terminates. */
struct loop {
	const struct opt_desc *opt; /* the variable's option */
	uint64_t init, last, incr; /* after unit scaling */
	bool mult; /* Incr had a leading '*' */
	bool msgs; /* --rate: a message rate (msgs/s), else bytes/s */
};

/* Everything that options can set, snapshotted per test. */
struct settings {
	struct par_set par;
	struct out_opts out;
	int nloops;
	struct loop loops[LOOP_MAX]; /* first given = outermost */
	uint64_t interval; /* ns: -I, interval reports; 0 = none */
	const char *interval_opt; /* -I as typed, for warnings */
	/* --arrivals (enum ol_arrivals, lib/olsched.h): 0 not given (an
	 * open-loop test then runs OL_CONSTANT); as typed, for errors */
	uint32_t arrivals;
	const char *arrivals_opt;
	/* Memory registration (reg_mr; --hugepages and --odp also on the
	 * RDMA bandwidth tests, this end's buffer): this end only, never
	 * sent (core/regmr.c) */
	struct mr_opts {
		bool hugepages; /* --hugepages */
		bool prefault; /* --prefault */
		uint32_t odp; /* --odp: enum regmr_odp */
		const char *first; /* the first of them given, as typed */
	} mr;
};

struct plan_item {
	const struct test_desc *test;
	struct settings s;
	char label[96]; /* cluster --loop: "rc_bw msg_size=64KiB"; else "" */
};


enum run_mode {
	RUN_SERVER,
	RUN_CLIENT,
	RUN_HELP,
	RUN_VERSION,
	RUN_CLUSTER,
	RUN_COMPARE, /* --compare A.json B.json */
	RUN_COMPLETION, /* --completion SHELL */
	RUN_EXPORTER /* --exporter [ADDR]:PORT (exporter/exporter.h) */
};

/* The Prometheus exporter's options (docs/exporter.md). */
struct exporter_opts {
	const char *listen; /* --exporter [ADDR]:PORT, or NULL */
	const char *allow; /* --exporter_allow LIST, or NULL: the default */
	uint32_t max; /* --exporter_max: probes at once; 0: the default */
	const char *first_opt; /* the first --exporter_* option given */
};

/* Verdicts (core/checks.h): --expect, --baseline, --tolerance, --compare. */
#define EXPECT_MAX 16
#define TOLERANCE_DEFAULT 0.05 /* 5% */
struct check_opts {
	int nexpect;
	struct vexpr expect[EXPECT_MAX]; /* in the order given */
	const char *baseline; /* --baseline FILE, or NULL */
	struct baseline *base; /* loaded by main() (checks_load()) */
	double tolerance; /* a fraction: 0.05 for 5% */
	const char *tolerance_opt; /* as typed, if given */
	const char *compare[2]; /* --compare A B */
};

/* Cluster mode's options (cluster/cluster.h). */
struct cluster_opts {
	struct sched_spec pattern; /* --cluster */
	const char *rendezvous; /* --rendezvous HOST:PORT */
	uint64_t seed; /* --seed; from the clock if not given */
	bool seed_set;
	uint64_t join_window; /* ns: -ws, else CLUSTER_JOIN_NS */
	uint32_t port_base; /* -lp given: servers on base + local rank */
};

/* --load (core/load.c, docs/load.md): a bandwidth test beside each
 * latency test, and the idle run before it. */
enum load_dir {
	LOAD_OUT, /* client to server: the test as named (the default) */
	LOAD_IN, /* server to client */
	LOAD_BOTH /* both: two loads, or one bidirectional test */
};
struct load_opts {
	const struct test_desc *test; /* --load TEST, or NULL */
	uint32_t dir; /* enum load_dir */
	bool no_idle; /* --no_idle: no idle run first */
	uint64_t rate; /* --load_rate: B/s, or msgs/s if rate_msgs; 0 none */
	bool rate_msgs;
	const char *rate_opt; /* --load_rate as typed */
	const char *first_opt; /* the first --load_* or --no_idle given */
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
	uint32_t clients; /* client: --clients K (0: not given) */
	uint64_t wait_server; /* ns, default 5 s */
	uint64_t server_timeout; /* ns, server's request timeout (-lto) */
	bool debug; /* -D */
	const char *secret_file; /* --secret_file, or NULL */
	struct auth_secret *secret; /* loaded by main() (core/auth.h) */
	struct server_limits lim; /* server mode */
	struct cluster_opts cluster; /* RUN_CLUSTER */
	struct check_opts checks; /* verdicts; RUN_COMPARE */
	struct exporter_opts exporter; /* RUN_EXPORTER */
	struct load_opts load; /* client: --load */
	const char *help_topic; /* RUN_HELP: "main" if none; RUN_COMPLETION:
				 * the shell, "" if none */
	enum json_mode json; /* client output */
	int argc; /* the command line, for JSON */
	char *const *argv;
	size_t ntests;
	struct plan_item *tests; /* malloc'd; plan_free() releases */
	int nwarn;
	char warn[WARN_MAX][160]; /* warnings found while parsing */
};

#endif
