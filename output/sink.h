/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one output interface.  The client (core/client.c) emits events,
 * in this order: run_start, conf (the run's own, JSON only), then per test
 * and --loop iteration test_start, any interval, then result or error
 * (--clients: clients, then error if a client failed);
 * warnings at any time; finish and end once.  Each output format is a sink
 * that implements the events it cares about (a NULL operation is skipped):
 *
 *   text      0.4.11's report on stdout (output/sink.c)
 *   diag      warnings and errors on stderr, "qperf: ..." (output/sink.c)
 *   JSON      one --json document or --json_stream lines (output/json.c)
 *   plot      the --plot SVG sweep (output/plot.c)
 *   capture   cluster mode's pair results, unprinted (output/capture.c)
 *
 * The events carry what the sinks need as plain data (lib/types.h) and
 * descriptors of the test table (transports/transport.h): a sink includes
 * nothing of the engine.  Adding a format is one sink here and an option.
 */
#ifndef QPERF_OUTPUT_SINK_H
#define QPERF_OUTPUT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/path.h"
#include "lib/types.h"
#include "report.h"

struct test_desc;

/* A run begins (the command line for the JSON header). */
struct out_run {
	int argc;
	char *const *argv;
	const char *host; /* the server named */
};

/* A test (or --loop iteration) begins. */
struct out_test {
	const struct test_desc *t;
	unsigned pos; /* among the tests named, 0-based */
	unsigned iter; /* --loop iteration, 0-based */
	const struct loop_val *loops; /* this iteration's loop values */
	int nloops;
	const struct out_opts *o; /* -v, -u..., -e */
	const struct par_set *par; /* after param_prepare(); NULL: conf */
	uint64_t interval; /* ns: -I when the test reports intervals, else 0 */
};

/* Both ends' configuration (rem NULL: not known; x NULL: not fetched). */
struct out_conf {
	const struct conf_info *loc, *rem;
	const struct conf_ext *lx, *rx;
	bool run; /* the run's own header, not a conf test's result */
};

/* --load (docs/load.md): one load's figures. */
struct load_fig {
	const char *test; /* its name */
	const char *dir; /* "out", "in" or "both" */
	double rate; /* --load_rate: B/s, or msgs/s with rate_msgs; 0 none */
	bool rate_msgs;
	struct pair_res r;
};

/* --load: the loads beside a latency test and its idle run. */
struct out_load {
	const struct load_fig *f;
	uint32_t n;
	const struct lat_summary *idle; /* the idle run's; NULL: --no_idle */
	double idle_latency; /* s: the idle run's latency line */
};

/* The figures of a finished test. */
struct out_result {
	const struct results *res;
	const struct report_note *notes; /* the transport's, for -v */
	int nnotes;
	const struct results *streams; /* --streams: each one's, or NULL */
	uint32_t nstreams;
	/* --expect/--baseline: the result's checks (lib/verdict.h), or NULL
	 * (then nothing is said: the report stays 0.4.11's) */
	const struct verdict *verdict;
	/* Both ends' path facts, the ceiling's limits and the host checks'
	 * findings (lib/path.h), or NULL. */
	const struct path_report *path;
	const struct out_load *load; /* --load, or NULL */
};

/*
 * --clients: every client's outcome of the test (c[0..n)), and when all
 * succeeded the summary of their figures (sum NULL otherwise); spread:
 * ns between the first and the last client's window start.
 */
struct fair_sum;
struct out_clients {
	const struct client_res *c;
	uint32_t n;
	const struct fair_sum *sum;
	uint64_t spread;
};
/* A failed test: the message (without "qperf: ") and its exit status. */
struct out_error {
	const char *message;
	int status;
	bool interrupted; /* SIGINT ended it */
};

/* The run ends: its exit status and error (NULL if none). */
struct out_end {
	int status;
	bool interrupted; /* a signal cut the run short */
	int signal; /* the first signal caught (0: none); with status 0, the
		     * one that ended a -t 0 test's window */
	const char *message;
};

/* What a sink asks of the client beyond the events. */
enum sink_flag {
	SINK_RUN_CONF = 1u << 0, /* both ends' conf for the run's header */
	SINK_CONF_EXT = 1u << 1, /* conf events with both ends' conf_ext */
	SINK_ON_SIGINT = 1u << 2, /* SIGINT ends the run cleanly (end is due) */
};

struct sink_ops {
	unsigned flags; /* enum sink_flag */
	void (*run_start)(void *self, const struct out_run *r);
	void (*conf)(void *self, const struct out_conf *c);
	void (*test_start)(void *self, const struct out_test *t);
	/* One interval record of the current test; 0, or -1 with err. */
	int (*interval)(void *self, const struct ival_rec *r, char *err,
			size_t errlen);
	void (*result)(void *self, const struct out_result *r);
	void (*clients)(void *self, const struct out_clients *c);
	void (*error)(void *self, const struct out_error *e);
	void (*warning)(void *self, const char *message);
	/* Close what the sink writes (files); 0, or -1 with err filled. */
	int (*finish)(void *self, char *err, size_t errlen);
	void (*end)(void *self, const struct out_end *e);
	void (*release)(void *self); /* free self; NULL: nothing to free */
};

struct sink {
	const struct sink_ops *ops;
	void *self;
};

#define OUT_SINKS_MAX 8

/* The sinks of one run; each event goes to every one, in order. */
struct outputs {
	struct sink s[OUT_SINKS_MAX];
	int n;
};

void outputs_init(struct outputs *o);
/* Add a sink (at most OUT_SINKS_MAX; more is a bug: abort()). */
void outputs_add(struct outputs *o, const struct sink_ops *ops, void *self);
/* The union of the sinks' flags. */
unsigned outputs_flags(const struct outputs *o);
/* Release every sink. */
void outputs_release(struct outputs *o);

void out_run_start(struct outputs *o, const struct out_run *r);
void out_conf(struct outputs *o, const struct out_conf *c);
void out_test_start(struct outputs *o, const struct out_test *t);
/* The first failure of a sink, with err filled; every sink gets r. */
int out_interval(struct outputs *o, const struct ival_rec *r, char *err,
		 size_t errlen);
void out_result(struct outputs *o, const struct out_result *r);
/* --clients: a test's outcome per client, before any out_test_error(). */
void out_clients(struct outputs *o, const struct out_clients *c);
void out_test_error(struct outputs *o, const struct out_error *e);
/* A printf-style warning (without "qperf: warning: "). */
void out_warning(struct outputs *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Every sink's finish; the first error is kept in err.  0 or -1. */
int out_finish(struct outputs *o, char *err, size_t errlen);
void out_end(struct outputs *o, const struct out_end *e);

/*
 * The sinks.  Each *_sink() adds itself to o.  text: the report on f
 * (stdout).  diag: stderr.  capture: cluster mode's figures of one pair
 * into out, the error, named by test, into err (errlen bytes).
 */
void text_sink(struct outputs *o, FILE *f);
void diag_sink(struct outputs *o);
struct pair_res;
void capture_sink(struct outputs *o, struct pair_res *out, char *err,
		  size_t errlen);
/* JSON (m != JSON_OFF) with the run's header from r. */
void json_sink(struct outputs *o, enum json_mode m);
/* The text report's "verdict = ..." line of a result (verdict_out.c). */
struct verdict;
void verdict_text(FILE *f, const struct verdict *v);
/* --plot: open path now (0), or -1 with err filled; bits: -ub. */
int plot_sink(struct outputs *o, const char *path, bool bits, char *err,
	      size_t errlen);

#endif
