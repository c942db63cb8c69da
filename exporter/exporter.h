/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus exporter (qperf --exporter [ADDR]:PORT, docs/exporter.md).
 *
 * A room above the engine, beside main(): it never runs a test in its own
 * process.  Each /probe runs one bounded test as a child process of this
 * binary (qperf HOST --json ...), reads its JSON and answers OpenMetrics
 * or Prometheus text.  The pure parts (the allow-list, a probe's query,
 * the rendering of a JSON document) are separate from the HTTP server
 * and the child processes so they can be unit-tested.
 */
#ifndef QPERF_EXPORTER_H
#define QPERF_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

struct plan;
struct opt_desc;
struct test_desc;

#define EXP_ALLOW_MAX 64 /* names in --exporter_allow */
#define EXP_OPTS_MAX 8 /* option=value pairs in one probe */
#define EXP_VALUE_MAX 64 /* bytes of one option value, with the NUL */
#define EXP_HOST_MAX 256
#define EXP_DEFAULT_PORT 19765
#define EXP_DEFAULT_MAX 4 /* probes at once */
#define EXP_MAX_MAX 64
#define EXP_DEFAULT_TIME "1" /* a probe's -t unless the query sets time */
#define EXP_DEFAULT_ALLOW "tcp_bw,tcp_lat,udp_bw,udp_lat,time,msg_size"

/* What probes may ask for: tests and options (parameter options by their
 * long name without dashes, and "expect"). */
struct exp_allow {
	int ntests, nopts;
	const struct test_desc *tests[EXP_ALLOW_MAX];
	const struct opt_desc *opts[EXP_ALLOW_MAX]; /* NULL entry: expect */
	bool expect;
};

/* One /probe request, validated. */
struct probe_req {
	char host[EXP_HOST_MAX]; /* without [] for IPv6 */
	uint16_t port;
	const struct test_desc *test;
	int nopts;
	struct {
		const char *flag; /* the table's spelling, "--msg_size" */
		char value[EXP_VALUE_MAX];
	} opt[EXP_OPTS_MAX];
	uint64_t time_ns; /* the probe's -t */
};

/*
 * Fill a from list ("tcp_bw,tcp_lat,msg_size,expect").  Returns 0, or -1
 * with err naming the bad entry (a usage error).  Does not block.
 */
int exp_allow_parse(const char *list, struct exp_allow *a, char *err,
		    size_t errlen);

/*
 * Validate a probe's query arguments (n pairs, as decoded by the HTTP
 * server; a value may be NULL for "?key") against a and fill r.  Returns
 * 0, or -1 with err naming the bad argument (the answer is 400).
 */
int probe_req_parse(const struct exp_allow *a, size_t n,
		    const char *const *keys, const char *const *vals,
		    struct probe_req *r, char *err, size_t errlen);

/*
 * The argv of the child for r (argv[0] is exe), NULL-terminated, in av
 * (room for avmax entries).  Pointers point into r.  Returns the count.
 */
int probe_argv(const struct probe_req *r, const char *exe, char *port_buf,
	       size_t port_len, const char **av, int avmax);

/* What became of one probe. */
struct probe_outcome {
	bool success; /* the test ran and measured */
	char error[200]; /* why not, when !success */
	double duration; /* seconds, the whole probe */
	int exit_status; /* the child's, or -1 when killed or not run */
	json_t *doc; /* the child's --json document, or NULL; owned */
};

/*
 * Render a probe's page to f: qperf_probe_success (with an error label
 * when it failed), qperf_probe_duration_seconds and, from o->doc's first
 * test, its figures, latency percentiles, CPU of both ends, message
 * counts, loss and error counters, ceiling and verdict.  om: OpenMetrics
 * 1.0 (counters typed by their family name, "# EOF" last) rather than the
 * Prometheus 0.0.4 text format.  Returns 0, or -1 if f failed.
 */
int exp_render_probe(FILE *f, bool om, const struct probe_outcome *o);

/*
 * Run r as a child of exe, killing its process group at deadline_ns
 * (monotonic).  Fills o (the caller frees o->doc with json_decref).
 * Returns 0, or 1 when the child said its command line was bad (exit
 * status 2: the request's fault, o->error says why).  Blocks until the
 * child ends or the deadline.
 */
int probe_run(const struct probe_req *r, const char *exe,
	      uint64_t deadline_ns, struct probe_outcome *o);

/* Write the HELP and TYPE lines of a family (a counter's OpenMetrics
 * family without its _total), and one sample of it (labels: "a=\"b\""
 * or NULL; NaN and infinities spelled as the formats want). */
void exp_family(FILE *f, bool om, const char *name, const char *type,
		const char *help);
void exp_sample(FILE *f, const char *name, const char *labels, double v);
/* Both: a family of one sample. */
void exp_one(FILE *f, bool om, const char *name, const char *type,
	     const char *help, const char *labels, double v);

/* Escape s for an OpenMetrics label value into buf (clipped).  Returns
 * buf. */
const char *exp_label_escape(const char *s, char *buf, size_t len);

/*
 * Run the exporter until SIGINT or SIGTERM: returns the exit status (0,
 * 1 if it could not start, with one line on stderr).
 */
int exporter_main(const struct plan *plan);

#endif
