/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Machine-readable output of a client run (--json, --json_stream),
 * written with jansson.  Schema: docs/qperf-schema.json (schema_version
 * below); docs/output.md "JSON output".
 *
 * --json: one document on stdout when the run ends: run header, both
 * ends' conf, one entry per test and --loop iteration, then exit status,
 * "interrupted" and, for a failed run, the error.  --json_stream: one
 * object per line as each arrives: {"type":"start"}, {"type":"conf"},
 * {"type":"test"} per test/iteration, any {"type":"interval"} during a
 * test, {"type":"end"} last.  Either way nothing else goes to stdout.
 *
 * Every figure is in SI base units (bytes, seconds, bytes per second,
 * messages per second), whatever -ub/-uu say; names end with the unit
 * (_B, _s, _Bps, _per_s).
 *
 * A run's document is a struct json_doc: the JSON sink (sink.h) keeps
 * one for the client, cluster mode's coordinator its own.  A NULL doc
 * (JSON off) takes every call and does nothing.  None of these functions
 * block except on writing stdout.
 */
#ifndef QPERF_JSON_H
#define QPERF_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "report.h"
#include "lib/types.h"

#define JSON_SCHEMA_VERSION 2

struct test_desc;

struct json_doc;

/*
 * Begin a run in mode m (JSON_OFF: NULL).  argv is kept for
 * "command_line"; host is the server named.  Stream mode writes the
 * "start" line now.
 */
struct json_doc *json_open(enum json_mode m, int argc, char *const *argv,
			   const char *host);

/*
 * Both ends' configuration (rem NULL: not known, e.g. the server could not
 * be reached; rx->valid false: a 0.4.11 peer).  The first call fills the
 * run's "conf" (stream: a "conf" line); with as_test set it fills the
 * current test's "conf" instead (the conf test).
 */
void json_conf(struct json_doc *d, const struct conf_info *loc,
	       const struct conf_ext *lx, const struct conf_info *rem,
	       const struct conf_ext *rx, bool as_test);

/*
 * A test (or --loop iteration) begins: name, its position among the tests
 * named (0-based), the iteration (0-based) and the loop variables' values.
 * Ends any test still open.
 */
void json_test_begin(struct json_doc *d, const struct test_desc *t,
		     unsigned pos, unsigned iter, const struct loop_val *lv,
		     int nloops);

/* The effective parameters of both ends (after param_prepare()). */
void json_test_params(struct json_doc *d, const struct par_set *p);

/* The figures of a finished test, with the transport's notes. */
void json_test_results(struct json_doc *d, const struct test_desc *t,
		       const struct results *res,
		       const struct report_note *notes, int nnotes);

/*
 * After json_test_results() of a --streams test: "streams" in its
 * results, one object per stream (res[0..n), calc_stream_results()).
 */
void json_test_streams(struct json_doc *d, const struct test_desc *t,
		       const struct results *res, uint32_t n);

/*
 * The current test failed: message (without "qperf: "), the exit status
 * the run ends with, whether SIGINT ended it (status "interrupted", else
 * "failed").  Only the first error of a test is kept.
 */
void json_test_error(struct json_doc *d, const char *message, int status,
		     bool interrupted);

/*
 * Publish one event object, e.g. an interval report:
 *   {"type": "interval", "start_s": 1.0, "end_s": 2.0, "send_bw_Bps": ..}
 * Takes ownership of ev (a JSON object with a string member "type";
 * anything else is dropped).  --json_stream writes it as one line at once;
 * --json adds it to the current test under "intervals" (type "interval")
 * or "events" (any other type), or to the run's "events" between tests.
 * Does nothing (but releases ev) when d is NULL.
 */
void json_event(struct json_doc *d, json_t *ev);

/*
 * An interval record of the current test t as an event {"type":
 * "interval", "test", "side" (loc or rem), "index", "last", "start_s",
 * "end_s", "send" and "recv" counters, "send_bw_Bps", "recv_bw_Bps"}.
 */
void json_interval(struct json_doc *d, const struct test_desc *t,
		   const struct ival_rec *r);

/* A finite number, or null (jansson refuses NaN and infinities). */
json_t *json_num(double v);
/* Set member k of object o to v (NULL: null), taking v's reference. */
void json_set(json_t *o, const char *k, json_t *v);

/*
 * The ceiling and the host checks of a finished test into its entry test
 * (output/json_path.c): results.ceiling for a bandwidth test, and the
 * test's "findings" (an array, empty when nothing was found).
 */
struct path_report;
void json_path_add(json_t *test, const struct test_desc *t,
		   const struct results *res, const struct path_report *r);

/*
 * A latency summary as the "latency" member of a test's results: count,
 * min_s, mean_s, max_s and the percentiles p50_s ... p99_99_s.
 */
json_t *json_lat(const struct lat_summary *l);

/* The "loop" array of a test: one {"variable", "value", "unit"} per loop. */
json_t *json_loop(const struct loop_val *lv, int nloops);

/* One end's "params" object (side: SIDE_LOC or SIDE_REM), as a test's. */
json_t *json_params_side(const struct par_set *p, int side);

/* A test's "measure" (m: an enum measure): "latency", "bandwidth", ... */
const char *json_measure_name(int m);

/*
 * Verdicts (output/verdict_out.c): the "verdict" object of a result
 * (pass, checks, note), new; json_test_verdict() puts it into the
 * current test.
 */
struct verdict;
json_t *json_verdict(const struct verdict *v);
void json_test_verdict(struct json_doc *d, const struct verdict *v);

/* o[k] = v (NULL: null); takes ownership of v. */
void json_put(json_t *o, const char *k, json_t *v);

/*
 * Cluster mode (rank 0): with --json cl becomes the document's "cluster"
 * member (its "tests" stay empty); with --json_stream it is written as
 * the line {"type": "cluster", "cluster": cl}.  Takes ownership of cl; does
 * nothing but release it when d is NULL.
 */
void json_cluster(struct json_doc *d, json_t *cl);

/*
 * End the run and free d: status is the exit status, message the run's
 * error (NULL if none).  Ends the open test (status "interrupted" when
 * interrupted), writes the document (--json) or the "end" line, flushes
 * stdout.
 */
void json_finish(struct json_doc *d, int status, bool interrupted,
		 const char *message);
/* The same, naming sig (the first signal caught) as the one that ended a
 * run until interrupted (-t 0) when status is 0. */
void json_finish_caught(struct json_doc *d, int status, bool interrupted,
			int sig, const char *message);

/* The "clients" object of a --clients test t (output/json_clients.c).
 * A new reference. */
struct out_clients;
json_t *json_clients(const struct test_desc *t, const struct out_clients *c);
/* --load: the "load" object of a latency test (output/json_load.c). */
struct out_load;
json_t *json_load(const struct out_load *l);
/* --qps's "qps" object of both ends, q[0] and q[1] (output/json_qps.c). */
json_t *json_qps(const struct qp_side *q);

/* A connection-setup test's "conn" object (output/json_conn.c). */
json_t *json_conn(const struct conn_res *c);

/* The "reg_mr" object of a reg_mr result (output/json_regmr.c). */
json_t *json_regmr(const struct regmr_res *r);

/* The "counters" object of a result (output/json_cnt.c): both ends'
 * loss and error counters.  A new reference. */
struct cnt_both;
json_t *json_counters(const struct cnt_both *b);

#endif
