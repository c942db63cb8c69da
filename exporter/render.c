// SPDX-License-Identifier: GPL-2.0-only
/*
 * A probe's page: the child's --json document (docs/qperf-schema.json)
 * into OpenMetrics 1.0 or Prometheus 0.0.4 text.  The two formats differ
 * here only in how a counter's family is typed (OpenMetrics names the
 * family without _total) and in OpenMetrics' closing "# EOF".  A figure
 * the document lacks or holds as null is left out, never written as 0.
 * Every family is written whole, once, in a fixed order.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exporter.h"

const char *exp_label_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	for (; *s && o + 3 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '"') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			/* plain ASCII only: the text must stay valid UTF-8 */
			buf[o++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
		}
	}
	buf[o] = '\0';
	return buf;
}

void exp_family(FILE *f, bool om, const char *name, const char *type,
		const char *help)
{
	size_t n = strlen(name);
	int base = (int)n;

	/* OpenMetrics types a counter by its family name, without _total */
	if (om && !strcmp(type, "counter") && n > 6 &&
	    !strcmp(name + n - 6, "_total"))
		base = (int)n - 6;
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", base, name, help, base,
		name, type);
}

void exp_sample(FILE *f, const char *name, const char *labels, double v)
{
	fprintf(f, "%s%s%s%s ", name, labels && *labels ? "{" : "",
		labels ? labels : "", labels && *labels ? "}" : "");
	if (isnan(v))
		fputs("NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf\n" : "-Inf\n", f);
	else
		fprintf(f, "%.17g\n", v);
}

void exp_one(FILE *f, bool om, const char *name, const char *type,
	     const char *help, const char *labels, double v)
{
	exp_family(f, om, name, type, help);
	exp_sample(f, name, labels, v);
}

/* The number at path (keys separated by '.') under o, or false. */
static bool num_at(const json_t *o, const char *path, double *v)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return false;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path += n + (path[n] == '.');
	}
	if (!json_is_number(o))
		return false;
	*v = json_number_value(o);
	return true;
}

/* The single figures of results, each a gauge. */
static const struct figure {
	const char *key, *name, *help;
} figures[] = {
	{ "bw_Bps", "qperf_bw_bytes_per_second",
	  "Bandwidth received (bandwidth tests)." },
	{ "send_bw_Bps", "qperf_send_bw_bytes_per_second",
	  "Bandwidth sent." },
	{ "recv_bw_Bps", "qperf_recv_bw_bytes_per_second",
	  "Bandwidth received." },
	{ "msg_rate_per_s", "qperf_msg_rate_per_second", "Messages a second." },
	{ "latency_s", "qperf_latency_seconds",
	  "One-way latency: half the mean round trip (latency tests)." },
	{ "send_cost_s_per_B", "qperf_send_cost_seconds_per_byte",
	  "Sender CPU time per byte." },
	{ "recv_cost_s_per_B", "qperf_recv_cost_seconds_per_byte",
	  "Receiver CPU time per byte." },
	{ "send_cost_s_per_msg", "qperf_send_cost_seconds_per_message",
	  "Sender CPU time per message." },
	{ "recv_cost_s_per_msg", "qperf_recv_cost_seconds_per_message",
	  "Receiver CPU time per message." },
};

/* The quantiles of a latency object and the keys that hold them. */
static const struct {
	const char *q, *key;
} quantiles[] = {
	{ "0", "min_s" },	   { "0.5", "p50_s" },	   { "0.9", "p90_s" },
	{ "0.99", "p99_s" },	   { "0.999", "p99_9_s" }, { "0.9999", "p99_99_s" },
	{ "1", "max_s" },
};

/* A latency histogram (results.latency or .round_trip) as a summary. */
static void summary(FILE *f, bool om, const json_t *h, const char *name,
		    const char *help)
{
	double count, mean, v;
	char s[96], lab[32];

	if (!num_at(h, "count", &count) || !num_at(h, "mean_s", &mean))
		return;
	exp_family(f, om, name, "summary", help);
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++) {
		if (!num_at(h, quantiles[i].key, &v))
			continue;
		snprintf(lab, sizeof(lab), "quantile=\"%s\"", quantiles[i].q);
		exp_sample(f, name, lab, v);
	}
	snprintf(s, sizeof(s), "%s_sum", name);
	exp_sample(f, s, NULL, mean * count);
	snprintf(s, sizeof(s), "%s_count", name);
	exp_sample(f, s, NULL, count);
}

/* Figures of each end (results.loc: the client, .rem: the server). */
static const struct end_figure {
	const char *path, *name, *extra, *help;
} end_figures[] = {
	{ "cpus_busy.total", "qperf_cpus_used", NULL,
	  "CPUs busy on each end over the test (1 = one CPU)." },
	{ "process_cpu.user_s", "qperf_process_cpu_seconds", "mode=\"user\"",
	  "CPU time of the qperf process on each end." },
	{ "process_cpu.sys_s", "qperf_process_cpu_seconds", "mode=\"system\"",
	  NULL },
	{ "send.msgs", "qperf_messages", "direction=\"send\"",
	  "Messages each end sent and received in the test." },
	{ "recv.msgs", "qperf_messages", "direction=\"recv\"", NULL },
	{ "send.bytes_B", "qperf_bytes", "direction=\"send\"",
	  "Bytes each end sent and received in the test." },
	{ "recv.bytes_B", "qperf_bytes", "direction=\"recv\"", NULL },
	{ "send.errors", "qperf_message_errors", "direction=\"send\"",
	  "Messages that failed on each end." },
	{ "recv.errors", "qperf_message_errors", "direction=\"recv\"", NULL },
	{ "lost", "qperf_lost_messages", NULL,
	  "Messages lost (datagram tests)." },
};

static void ends(FILE *f, bool om, const json_t *res)
{
	static const char *const key[2] = { "loc", "rem" };
	static const char *const end[2] = { "client", "server" };
	const size_t n = sizeof(end_figures) / sizeof(end_figures[0]);

	for (size_t i = 0; i < n; i++) {
		const struct end_figure *e = &end_figures[i];
		bool head = false;

		/* the rows after one with help belong to its family */
		if (!e->help)
			continue;
		for (size_t k = i; k < n && (k == i || !end_figures[k].help);
		     k++) {
			for (int s = 0; s < 2; s++) {
				char lab[96];
				double v;

				if (!num_at(json_object_get(res, key[s]),
					    end_figures[k].path, &v))
					continue;
				if (!head)
					exp_family(f, om, e->name, "gauge",
						   e->help);
				head = true;
				snprintf(lab, sizeof(lab), "end=\"%s\"%s%s",
					 end[s], end_figures[k].extra ? "," : "",
					 end_figures[k].extra ?
						 end_figures[k].extra : "");
				exp_sample(f, e->name, lab, v);
			}
		}
	}
}

/* results.counters: each end's loss and error counters, by name. */
static void counters(FILE *f, bool om, const json_t *c)
{
	static const char *const end[2] = { "client", "server" };
	bool head = false;

	for (int s = 0; s < 2; s++) {
		const json_t *e = json_object_get(c, end[s]);
		const json_t *vals = json_object_get(e, "values");
		const char *src = json_string_value(json_object_get(e, "source"));
		const char *k;
		json_t *v;
		char bs[64], bk[64], lab[200];

		json_object_foreach((json_t *)vals, k, v) {
			if (!json_is_number(v))
				continue;
			if (!head)
				exp_family(f, om, "qperf_path_stat", "gauge",
					   "Loss and error counters of each end over the test (TCP_INFO, UDP drops, RDMA port counters).");
			head = true;
			snprintf(lab, sizeof(lab),
				 "end=\"%s\",source=\"%s\",stat=\"%s\"",
				 end[s], exp_label_escape(src ? src : "", bs, sizeof(bs)),
				 exp_label_escape(k, bk, sizeof(bk)));
			exp_sample(f, "qperf_path_stat", lab,
				   json_number_value(v));
		}
	}
}

static void ceiling(FILE *f, bool om, const json_t *c)
{
	const char *limit = json_string_value(json_object_get(c, "limit"));
	char lab[96], b[64];
	double v;

	if (num_at(c, "value_Bps", &v)) {
		exp_family(f, om, "qperf_bw_ceiling_bytes_per_second", "gauge",
			   "The ceiling of the path: the lowest of its limits.");
		snprintf(lab, sizeof(lab), "limit=\"%s\"",
			 exp_label_escape(limit ? limit : "", b, sizeof(b)));
		exp_sample(f, "qperf_bw_ceiling_bytes_per_second", lab, v);
	}
	if (num_at(c, "efficiency", &v)) {
		exp_one(f, om, "qperf_bw_efficiency_ratio", "gauge",
			"Bandwidth over the ceiling of the path.", NULL, v);
	}
}

static void verdict(FILE *f, bool om, const json_t *vd)
{
	const json_t *checks = json_object_get(vd, "checks"), *c;
	size_t i;

	if (!json_is_boolean(json_object_get(vd, "pass")))
		return;
	exp_one(f, om, "qperf_verdict_pass", "gauge",
		"1 if every check (expect=...) passed.", NULL,
		json_is_true(json_object_get(vd, "pass")));
	if (!json_array_size(checks))
		return;
	exp_family(f, om, "qperf_verdict_check_pass", "gauge",
		   "1 if this check passed.");
	json_array_foreach(checks, i, c) {
		const char *e = json_string_value(json_object_get(c, "expr"));
		char b[100], lab[128];

		snprintf(lab, sizeof(lab), "expr=\"%s\"",
			 exp_label_escape(e ? e : "", b, sizeof(b)));
		exp_sample(f, "qperf_verdict_check_pass", lab,
			   json_is_true(json_object_get(c, "pass")));
	}
}

int exp_render_probe(FILE *f, bool om, const struct probe_outcome *o)
{
	const json_t *t = json_array_get(json_object_get(o->doc, "tests"), 0);
	const json_t *res = json_object_get(t, "results");
	char b[256], lab[300];

	exp_family(f, om, "qperf_probe_success", "gauge",
		   "1 if the test ran and measured; 0 with an error label if not.");
	if (o->success) {
		exp_sample(f, "qperf_probe_success", NULL, 1);
	} else {
		snprintf(lab, sizeof(lab), "error=\"%s\"",
			 exp_label_escape(o->error, b, sizeof(b)));
		exp_sample(f, "qperf_probe_success", lab, 0);
	}
	exp_one(f, om, "qperf_probe_duration_seconds", "gauge",
		"How long the probe took, the child's start to its end.", NULL,
		o->duration);
	if (o->exit_status >= 0)
		exp_one(f, om, "qperf_probe_exit_status", "gauge",
			"The exit status of the test (3: a check failed).",
			NULL, o->exit_status);
	if (json_is_object(res) && o->success) {
		for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
			double v;

			if (!num_at(res, figures[i].key, &v))
				continue;
			exp_one(f, om, figures[i].name, "gauge",
				figures[i].help, NULL, v);
		}
		summary(f, om, json_object_get(res, "latency"),
			"qperf_latency_distribution_seconds",
			"One-way latency of every round trip timed (half of each), as quantiles.");
		summary(f, om, json_object_get(res, "round_trip"),
			"qperf_round_trip_seconds",
			"Round trip times, as quantiles.");
		ends(f, om, res);
		counters(f, om, json_object_get(res, "counters"));
		ceiling(f, om, json_object_get(res, "ceiling"));
		verdict(f, om, json_object_get(t, "verdict"));
	}
	if (om)
		fputs("# EOF\n", f);
	return ferror(f) ? -1 : 0;
}
