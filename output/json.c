// SPDX-License-Identifier: GPL-2.0-only
/*
 * --json and --json_stream (json.h): results as JSON objects built with
 * jansson, which does the escaping and number formatting.  The document
 * is built in memory and written once at the end (a run is a handful of
 * tests; an interval report adds an object per interval).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "transports/transport.h"
#include "conf_text.h"
#include "json.h"
#include "sink.h"
#include "lib/verdict.h"
#include "lib/err.h"
#include "lib/olsched.h"
#include "lib/alloc.h"
#include "out.h"

struct json_doc {
	enum json_mode mode;
	json_t *root; /* --json: the document */
	json_t *cur; /* the open test entry, or NULL */
};

/* A finite number, or null (jansson refuses NaN and infinities). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static void set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

void json_set(json_t *o, const char *k, json_t *v)
{
	set(o, k, v);
}

json_t *json_num(double v)
{
	return num(v);
}

void json_put(json_t *o, const char *k, json_t *v)
{
	set(o, k, v);
}

/* The wall-clock time now, UTC, ISO 8601 to the millisecond. */
static json_t *utc_now(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[40];

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 ||
	    !gmtime_r(&ts.tv_sec, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		return json_null();
	xsnprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03ldZ",
		  ts.tv_nsec / 1000000);
	return json_string(buf);
}

/* The signal behind an interrupted run's status (128 + n), or the one
 * that ended a run until interrupted (-t 0, status 0), or null. */
static json_t *signal_json(int status, bool interrupted, int caught)
{
	int sig = interrupted ? status - 128 : status == 0 ? caught : 0;

	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return json_null();
	return json_string(sig_name(sig));
}

/* One line of --json_stream: the object, compact, then a newline. */
static void emit_line(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	out_flush();
}

/* A stream line {"type": type, ...o's members}; releases o. */
static void emit_typed(const char *type, json_t *o)
{
	json_t *l = json_object();

	set(l, "type", json_string(type));
	json_object_update(l, o);
	emit_line(l);
	json_decref(l);
	json_decref(o);
}

void json_cluster(struct json_doc *J, json_t *cl)
{
	if (!J) {
		json_decref(cl);
		return;
	}
	if (J->mode == JSON_STREAM) {
		json_t *l = json_object();

		set(l, "cluster", cl);
		emit_typed("cluster", l);
		return;
	}
	set(J->root, "cluster", cl);
}

struct json_doc *json_open(enum json_mode m, int argc, char *const *argv,
			   const char *host)
{
	struct json_doc *J;
	json_t *hdr, *cl;

	if (m == JSON_OFF)
		return NULL;
	J = xcalloc(1, sizeof(*J));
	J->mode = m;
	cl = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cl, json_string(argv[i]));
	hdr = json_object();
	set(hdr, "schema_version", json_integer(JSON_SCHEMA_VERSION));
	set(hdr, "qperf_version", json_string(QPERF_VERSION));
	set(hdr, "command_line", cl);
	set(hdr, "host", json_string(host ? host : ""));
	set(hdr, "start_time_utc", utc_now());
	if (m == JSON_STREAM) {
		emit_typed("start", hdr);
		return J;
	}
	J->root = hdr;
	set(J->root, "conf", json_null());
	set(J->root, "tests", json_array());
	set(J->root, "events", json_array());
	return J;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *fabric_json(const struct fabric *f)
{
	json_t *devs = json_array();

	for (uint32_t d = 0; d < f->ndevs; d++) {
		const struct fab_dev *dv = &f->devs[d];
		json_t *o = json_object(), *ports = json_array();

		set(o, "name", json_string(dv->name));
		set(o, "numa_node", dv->numa_node < 0 ? json_null() :
							json_integer(dv->numa_node));
		for (uint32_t p = 0; p < dv->nports; p++) {
			const struct fab_port *pt = &dv->ports[p];
			json_t *po = json_object(), *gids = json_array();
			double rate = (double)pt->width * pt->speed_mbps * 1e6 / 8;

			set(po, "port", jint(pt->port));
			set(po, "state", json_string(fab_state_str(pt->state)));
			set(po, "phys_state",
			    json_string(fab_phys_state_str(pt->phys_state)));
			set(po, "width_lanes", jint(pt->width));
			set(po, "lane_rate_bps", jint((uint64_t)pt->speed_mbps *
						      1000000));
			set(po, "rate_Bps", num(rate));
			set(po, "link_layer",
			    json_string(fab_link_layer_str(pt->link_layer)));
			set(po, "active_mtu_B", jint(pt->active_mtu));
			set(po, "lid", jint(pt->lid));
			for (uint32_t g = 0; g < pt->ngids; g++) {
				json_t *go = json_object();
				char gs[64];

				fab_gid_str(pt->gids[g].gid, gs, sizeof(gs));
				set(go, "index", jint(pt->gids[g].index));
				set(go, "gid", json_string(gs));
				set(go, "type", json_string(fab_gid_type_str(
							pt->gids[g].type)));
				json_array_append_new(gids, go);
			}
			set(po, "gids", gids);
			json_array_append_new(ports, po);
		}
		set(o, "ports", ports);
		json_array_append_new(devs, o);
	}
	return devs;
}

/* One end: 0.4.11's four strings, then what a 0.5 peer adds (else null). */
static json_t *end_json(const struct conf_info *c, const struct conf_ext *x)
{
	json_t *o = json_object();
	bool ext = x && x->valid;

	set(o, "node", json_string(c->node));
	set(o, "cpu", json_string(c->cpu));
	set(o, "os", json_string(c->os));
	set(o, "qperf_version", json_string(c->qperf));
	set(o, "extended", json_boolean(ext));
	set(o, "kernel", ext ? str_or_null(x->kernel) : json_null());
	set(o, "machine", ext ? str_or_null(x->machine) : json_null());
	set(o, "cpus", ext && x->cpus ? jint(x->cpus) : json_null());
	set(o, "numa_nodes", ext && x->numa_nodes >= 0 ?
				     json_integer(x->numa_nodes) :
				     json_null());
	set(o, "rdma_devices", ext ? fabric_json(&x->fab) : json_null());
	set(o, "rdma_truncated", json_boolean(ext && x->fab.truncated));
	return o;
}

void json_conf(struct json_doc *J, const struct conf_info *loc,
	       const struct conf_ext *lx, const struct conf_info *rem,
	       const struct conf_ext *rx, bool as_test)
{
	json_t *o;

	if (!J)
		return;
	o = json_object();
	set(o, "loc", end_json(loc, lx));
	set(o, "rem", rem ? end_json(rem, rx) : json_null());
	if (as_test && J->cur) {
		set(J->cur, "conf", o);
		return;
	}
	if (J->mode == JSON_STREAM) {
		emit_typed("conf", o);
		return;
	}
	set(J->root, "conf", o);
}

/* Close the open test entry: into the document, or out as a line. */
static void test_end(struct json_doc *J, const char *status)
{
	if (!J->cur)
		return;
	if (!json_object_get(J->cur, "status"))
		set(J->cur, "status", json_string(status));
	if (J->mode == JSON_STREAM)
		emit_line(J->cur);
	else
		json_array_append(json_object_get(J->root, "tests"), J->cur);
	json_decref(J->cur);
	J->cur = NULL;
}

json_t *json_loop(const struct loop_val *lv, int nloops)
{
	json_t *loops = json_array();

	for (int i = 0; i < nloops; i++) {
		enum loop_unit u = lv[i].unit;
		uint64_t v = lv[i].value;
		json_t *lo = json_object();

		set(lo, "variable", json_string(lv[i].name));
		set(lo, "value", u == LOOP_UNIT_TIME ? num((double)v / 1e9) :
						       jint(v));
		set(lo, "unit", json_string(u == LOOP_UNIT_TIME ? "s" :
					    u == LOOP_UNIT_SIZE ? "B" :
					    u == LOOP_UNIT_BYTE_RATE ? "B/s" :
					    u == LOOP_UNIT_MSG_RATE ? "1/s" : ""));
		json_array_append_new(loops, lo);
	}
	return loops;
}

void json_test_begin(struct json_doc *J, const struct test_desc *t,
		     unsigned pos, unsigned iter, const struct loop_val *lv,
		     int nloops)
{
	if (!J)
		return;
	test_end(J, "ok");
	J->cur = json_object();
	if (J->mode == JSON_STREAM)
		set(J->cur, "type", json_string("test"));
	set(J->cur, "test", json_string(t->name));
	set(J->cur, "position", jint(pos));
	set(J->cur, "iteration", jint(iter));
	set(J->cur, "loop", json_loop(lv, nloops));
	set(J->cur, "intervals", json_array());
}

/* One end's parameters, a loop over p's table (p->rows), unlisted rows
 * included: sizes in bytes (_B), times in seconds (_s); a row that is a
 * size only in 0.4.11's text (json_count) under its plain name (a count;
 * schema_version 1 also had it as "<name>_B"). */
json_t *json_params_side(const struct par_set *p, int side)
{
	json_t *o = json_object();
	char key[48];

	for (size_t i = 0; i < p->nrows; i++) {
		const struct par_row *rp = &p->rows[i];
		uint64_t v = p->val[side][rp->par];

		if (!p->used[rp->par])
			continue;
		switch (rp->kind) {
		case RPK_STR:
			set(o, rp->name, json_string(
				p->str[side][par_str_index(rp->par)]));
			break;
		case RPK_SIZE:
			if (rp->json_count) {
				set(o, rp->name, jint(v));
				break;
			}
			xsnprintf(key, sizeof(key), "%s_B", rp->name);
			set(o, key, jint(v));
			break;
		case RPK_TIME:
			xsnprintf(key, sizeof(key), "%s_s", rp->name);
			set(o, key, num((double)v / 1e9));
			break;
		default:
			set(o, rp->name, jint(v));
			break;
		}
	}
	return o;
}

void json_test_params(struct json_doc *J, const struct par_set *p)
{
	json_t *o, *user;

	if (!J || !J->cur)
		return;
	o = json_object();
	user = json_array();
	set(o, "loc", json_params_side(p, SIDE_LOC));
	set(o, "rem", json_params_side(p, SIDE_REM));
	for (size_t i = 0; i < p->nrows; i++) {
		const struct par_row *rp = &p->rows[i];

		if (!rp->unlisted &&
		    (p->set[SIDE_LOC][rp->par] || p->set[SIDE_REM][rp->par]))
			json_array_append_new(user, json_string(rp->name));
	}
	set(o, "set_by_user", user);
	set(J->cur, "params", o);
}

json_t *json_lat(const struct lat_summary *l)
{
	json_t *o = json_object();

	set(o, "count", jint(l->count));
	set(o, "min_s", num(l->min));
	set(o, "mean_s", num(l->mean));
	set(o, "max_s", num(l->max));
	set(o, "p50_s", num(l->p50));
	set(o, "p90_s", num(l->p90));
	set(o, "p99_s", num(l->p99));
	set(o, "p99_9_s", num(l->p999));
	set(o, "p99_99_s", num(l->p9999));
	return o;
}

static json_t *counts_json(const struct ustat *u)
{
	json_t *o = json_object();

	set(o, "bytes_B", jint(u->bytes));
	set(o, "msgs", jint(u->msgs));
	set(o, "errors", jint(u->errs));
	return o;
}

/* One node's figures: window, CPU from /proc/stat, counters, process. */
static json_t *node_json(const struct node_stat *st, const struct node_res *n,
			 const struct proc_cpu *pc)
{
	static const char *const stat_names[CPU_COUNT] = {
		NULL, "user_s", "nice_s", "system_s", "idle_s",
		"iowait_s", "irq_s", "softirq_s", "steal_s"
	};
	json_t *o = json_object(), *busy = json_object(), *ps = json_object();
	double hz = st->no_ticks ? st->no_ticks : 100;

	set(o, "real_time_s", num(n->real_time));
	set(o, "cpu_time_s", num(n->cpu_time));
	set(busy, "user", num(n->cpu_user));
	set(busy, "intr", num(n->cpu_intr));
	set(busy, "kernel", num(n->cpu_kernel));
	set(busy, "iowait", num(n->cpu_iowait));
	set(busy, "total", num(n->cpu_total));
	set(o, "cpus_busy", busy);
	for (int i = CPU_USER; i < CPU_COUNT; i++) {
		uint64_t d = st->time_e[i] >= st->time_s[i] ?
				     st->time_e[i] - st->time_s[i] :
				     0;

		set(ps, stat_names[i], num((double)d / hz));
	}
	set(o, "proc_stat", ps);
	set(o, "no_cpus", jint(st->no_cpus));
	set(o, "max_cqes", jint(st->max_cqes));
	set(o, "send", counts_json(&st->s));
	set(o, "recv", counts_json(&st->r));
	set(o, "lost", jint(st->lost));
	if (pc->valid) {
		json_t *p = json_object();

		set(p, "user_s", num(pc->user));
		set(p, "sys_s", num(pc->sys));
		set(o, "process_cpu", p);
	} else {
		set(o, "process_cpu", json_null());
	}
	return o;
}

const char *json_measure_name(int m)
{
	switch (m) {
	case MEAS_LATENCY:
		return "latency";
	case MEAS_MSG_RATE:
		return "msg_rate";
	case MEAS_BANDWIDTH:
		return "bandwidth";
	case MEAS_BANDWIDTH_SR:
		return "bandwidth_send_recv";
	case MEAS_REGMR:
		return "registration";
	case MEAS_CONN:
		return "connection";
	default:
		return "none";
	}
}

/* --rate: offered and achieved, per direction, in the offered unit. */
static json_t *pace_json(const struct pace_res *p, bool open_loop)
{
	json_t *o = json_object();
	const char *u = p->msgs ? "msgs_per_s" : "Bps";
	char k[32];

	set(o, "unit", json_string(p->msgs ? "1/s" : "B/s"));
	xsnprintf(k, sizeof(k), "offered_%s", u);
	set(o, k, num(p->offered));
	xsnprintf(k, sizeof(k), "achieved_%s", u);
	set(o, k, num(p->achieved));
	set(o, "shortfall", num(p->shortfall));
	set(o, "pacing", json_string(p->kernel	   ? "kernel"
				     : open_loop ? "open_loop"
						 : "token_bucket"));
	set(o, "spread", p->spread_valid ? num(p->spread) : json_null());
	set(o, "slices", jint(p->slices));
	return o;
}

/* An open-loop latency test's schedule and counts (--rate on a latency
 * test; docs/openloop.md). */
static json_t *openloop_json(const struct ol_stat *ol)
{
	static const char *const above[OL_ABOVE_N] = {
		"rtt_above_1ms", "rtt_above_10ms", "rtt_above_100ms"
	};
	json_t *o = json_object();

	set(o, "arrivals", json_string(ol_arrivals_name(ol->arrivals)));
	set(o, "offered_per_s", jint(ol->rate));
	set(o, "requests", jint(ol->sent));
	set(o, "answered", jint(ol->answered));
	set(o, "late_sends", jint(ol->late));
	set(o, "lost", jint(ol->lost));
	set(o, "out_of_order", jint(ol->out_of_order));
	for (int i = 0; i < OL_ABOVE_N; i++)
		set(o, above[i], jint(ol->above[i]));
	return o;
}

void json_test_results(struct json_doc *J, const struct test_desc *t,
		       const struct results *res,
		       const struct report_note *notes, int nnotes)
{
	json_t *o, *nt;
	enum measure m = t->measure;

	if (!J || !J->cur)
		return;
	o = json_object();
	nt = json_object();
	set(o, "measure", json_string(json_measure_name(m)));
	if (m == MEAS_LATENCY)
		set(o, "latency_s", num(res->latency));
	if (m == MEAS_BANDWIDTH)
		set(o, "bw_Bps", num(res->recv_bw));
	if (m == MEAS_BANDWIDTH || m == MEAS_BANDWIDTH_SR) {
		set(o, "send_bw_Bps", num(res->send_bw));
		set(o, "recv_bw_Bps", num(res->recv_bw));
	}
	set(o, "msg_rate_per_s", num(res->msg_rate));
	/* 0: not computed for this test (the text report hides it too). */
	set(o, "send_cost_s_per_B", res->send_cost > 0 ? num(res->send_cost) :
							 json_null());
	set(o, "recv_cost_s_per_B", res->recv_cost > 0 ? num(res->recv_cost) :
							 json_null());
	set(o, "send_cost_s_per_msg", res->send_cost_msg > 0 ?
					      num(res->send_cost_msg) :
					      json_null());
	set(o, "recv_cost_s_per_msg", res->recv_cost_msg > 0 ?
					      num(res->recv_cost_msg) :
					      json_null());
	set(o, "latency", res->lat.count ? json_lat(&res->lat) : json_null());
	set(o, "round_trip", res->rtt.count ? json_lat(&res->rtt) :
					      json_null());
	set(o, "loc", node_json(&res->l, &res->ln, &res->lp));
	set(o, "rem", node_json(&res->r, &res->rn, &res->rp));
	if (res->pace.valid)
		set(o, "pace", pace_json(&res->pace, res->ol.arrivals != 0));
	if (res->ol.arrivals)
		set(o, "open_loop", openloop_json(&res->ol));
	if (res->regmr)
		set(o, "reg_mr", json_regmr(res->regmr));
	if (res->conn)
		set(o, "conn", json_conn(res->conn));
	if (res->qps)
		set(o, res->qps[0].conns ? "conns" : "qps", json_qps(res->qps));
	for (int i = 0; i < nnotes; i++)
		set(nt, notes[i].name, json_string(notes[i].value));
	set(J->cur, "notes", nt);
	set(J->cur, "results", o);
}

void json_test_verdict(struct json_doc *J, const struct verdict *v)
{
	if (J && J->cur && v)
		set(J->cur, "verdict", json_verdict(v));
}

/* One end of one stream: its counters. */
static json_t *stream_end_json(const struct node_stat *st)
{
	json_t *o = json_object();

	set(o, "send", counts_json(&st->s));
	set(o, "recv", counts_json(&st->r));
	return o;
}

void json_test_streams(struct json_doc *J, const struct test_desc *t,
		       const struct results *res, uint32_t n)
{
	json_t *a, *r;

	if (!J || !J->cur || n < 2)
		return;
	r = json_object_get(J->cur, "results");
	if (!r)
		return;
	a = json_array();
	for (uint32_t i = 0; i < n; i++) {
		json_t *o = json_object();

		set(o, "stream", jint(i + 1));
		if (t->measure == MEAS_BANDWIDTH)
			set(o, "bw_Bps", num(res[i].recv_bw));
		set(o, "send_bw_Bps", num(res[i].send_bw));
		set(o, "recv_bw_Bps", num(res[i].recv_bw));
		set(o, "msg_rate_per_s", num(res[i].msg_rate));
		set(o, "loc", stream_end_json(&res[i].l));
		set(o, "rem", stream_end_json(&res[i].r));
		json_array_append_new(a, o);
	}
	set(r, "streams", a);
}

static json_t *error_json(const char *message, int status)
{
	json_t *e = json_object();

	set(e, "message", json_string(message));
	set(e, "exit_status", json_integer(status));
	return e;
}

void json_test_error(struct json_doc *J, const char *message, int status,
		     bool interrupted)
{
	if (!J || !J->cur || json_object_get(J->cur, "error"))
		return;
	set(J->cur, "error", error_json(message, status));
	set(J->cur, "status",
	    json_string(interrupted ? "interrupted" : "failed"));
}

void json_event(struct json_doc *J, json_t *ev)
{
	json_t *type = ev ? json_object_get(ev, "type") : NULL;
	json_t *arr;

	if (!J || !json_is_string(type)) {
		json_decref(ev);
		return;
	}
	if (J->mode == JSON_STREAM) {
		emit_line(ev);
		json_decref(ev);
		return;
	}
	if (J->cur && strcmp(json_string_value(type), "interval") == 0)
		arr = json_object_get(J->cur, "intervals");
	else if (J->cur)
		arr = json_object_get(J->cur, "events");
	else
		arr = json_object_get(J->root, "events");
	if (!arr) {
		arr = json_array();
		set(J->cur, "events", arr);
	}
	json_array_append_new(arr, ev);
}

void json_finish(struct json_doc *J, int status, bool interrupted,
		 const char *message)
{
	json_finish_caught(J, status, interrupted, 0, message);
}

void json_finish_caught(struct json_doc *J, int status, bool interrupted,
			int sig, const char *message)
{
	json_t *o;

	if (!J)
		return;
	/* A failed check ends a run whose every test ran. */
	test_end(J, interrupted ? "interrupted" :
		    status && status != VERDICT_FAILED_STATUS ? "failed" :
								"ok");
	if (J->mode == JSON_STREAM) {
		o = json_object();
		set(o, "type", json_string("end"));
	} else {
		o = J->root;
	}
	set(o, "exit_status", json_integer(status));
	set(o, "interrupted", json_boolean(interrupted));
	set(o, "signal", signal_json(status, interrupted, sig));
	set(o, "end_time_utc", utc_now());
	set(o, "error", message ? error_json(message, status) : json_null());
	if (J->mode == JSON_STREAM) {
		emit_line(o);
	} else {
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII |
					   JSON_REAL_PRECISION(15));
		fputc('\n', stdout);
		out_flush();
	}
	json_decref(o);
	free(J);
}

void json_interval(struct json_doc *J, const struct test_desc *t,
		   const struct ival_rec *r)
{
	double secs = r->end > r->start ? (double)(r->end - r->start) / 1e9 : 0;
	json_t *o;

	if (!J)
		return;
	o = json_object();
	set(o, "type", json_string("interval"));
	set(o, "test", json_string(t->name));
	set(o, "side", json_string(r->peer ? "rem" : "loc"));
	set(o, "index", jint(r->index));
	set(o, "last", json_boolean(r->last));
	set(o, "start_s", num((double)r->start / 1e9));
	set(o, "end_s", num((double)r->end / 1e9));
	set(o, "send", counts_json(&r->s));
	set(o, "recv", counts_json(&r->r));
	set(o, "send_bw_Bps", num(secs > 0 ? (double)r->s.bytes / secs : 0));
	set(o, "recv_bw_Bps", num(secs > 0 ? (double)r->r.bytes / secs : 0));
	json_event(J, o);
}

/* ---------------------------------------------------------------------- */
/* The JSON sink (sink.h)                                                  */
/* ---------------------------------------------------------------------- */

struct json_sink {
	enum json_mode mode;
	struct json_doc *doc;
	const struct test_desc *t; /* the current test */
};

static void js_run_start(void *self, const struct out_run *r)
{
	struct json_sink *j = self;

	j->doc = json_open(j->mode, r->argc, r->argv, r->host);
}

static void js_conf(void *self, const struct out_conf *c)
{
	struct json_sink *j = self;

	json_conf(j->doc, c->loc, c->lx, c->rem, c->rx, !c->run);
}

static void js_test_start(void *self, const struct out_test *t)
{
	struct json_sink *j = self;

	j->t = t->t;
	json_test_begin(j->doc, t->t, t->pos, t->iter, t->loops, t->nloops);
	if (t->par)
		json_test_params(j->doc, t->par);
}

static int js_interval(void *self, const struct ival_rec *r, char *err,
		       size_t errlen)
{
	struct json_sink *j = self;

	(void)err;
	(void)errlen;
	json_interval(j->doc, j->t, r);
	return 0;
}

static void js_result(void *self, const struct out_result *r)
{
	struct json_sink *j = self;

	json_test_results(j->doc, j->t, r->res, r->notes, r->nnotes);
	if (r->res->cnt && j->doc && j->doc->cur &&
	    json_object_get(j->doc->cur, "results"))
		set(json_object_get(j->doc->cur, "results"), "counters",
		    json_counters(r->res->cnt));
	if (r->streams)
		json_test_streams(j->doc, j->t, r->streams, r->nstreams);
	if (r->path && j->doc && j->doc->cur)
		json_path_add(j->doc->cur, j->t, r->res, r->path);
	if (r->load && j->doc && j->doc->cur)
		set(j->doc->cur, "load", json_load(r->load));
	json_test_verdict(j->doc, r->verdict);
}

static void js_clients(void *self, const struct out_clients *c)
{
	struct json_sink *j = self;

	if (j->doc && j->doc->cur)
		set(j->doc->cur, "clients", json_clients(j->t, c));
}

static void js_error(void *self, const struct out_error *e)
{
	struct json_sink *j = self;

	json_test_error(j->doc, e->message, e->status, e->interrupted);
}

/* A warning (a host check's finding, a counter that rose, ...) as an
 * event of the test it came in, else of the run: stderr has it too. */
static void js_warning(void *self, const char *message)
{
	struct json_sink *j = self;
	json_t *e = json_object();

	set(e, "type", json_string("warning"));
	set(e, "message", json_string(message));
	json_event(j->doc, e);
}

static void js_end(void *self, const struct out_end *e)
{
	struct json_sink *j = self;

	json_finish_caught(j->doc, e->status, e->interrupted, e->signal,
			   e->message);
	j->doc = NULL;
}

static const struct sink_ops json_ops = {
	.flags = SINK_RUN_CONF | SINK_CONF_EXT | SINK_ON_SIGINT,
	.run_start = js_run_start,
	.conf = js_conf,
	.test_start = js_test_start,
	.interval = js_interval,
	.result = js_result,
	.clients = js_clients,
	.error = js_error,
	.warning = js_warning,
	.end = js_end,
	.release = free,
};

void json_sink(struct outputs *o, enum json_mode m)
{
	struct json_sink *j = xcalloc(1, sizeof(*j));

	j->mode = m;
	outputs_add(o, &json_ops, j);
}
