// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exporter's pure parts (exporter/request.c, exporter/render.c): the
 * allow-list, a probe's query with every rejection, the child's command
 * line, and planted --json documents rendered into OpenMetrics and
 * Prometheus text (figures, quantiles, both ends, counters, a known
 * ceiling, a verdict, a failure's escaped error label).
 */
#include <stdlib.h>
#include <string.h>

#include "exporter/exporter.h"
#include "harness.h"
#include "lib/types.h"

static struct exp_allow allow;

static void allow_init(void)
{
	char err[256];

	if (exp_allow_parse("tcp_bw,tcp_lat,time,msg_size,expect", &allow, err,
			    sizeof(err)))
		abort();
}

TEST(allow_list)
{
	struct exp_allow a;
	char err[256];

	CHECK(exp_allow_parse(EXP_DEFAULT_ALLOW, &a, err, sizeof(err)) == 0);
	CHECK(a.ntests == 4 && a.nopts == 2 && !a.expect);
	CHECK(exp_allow_parse("tcp_bw,expect,loc_sock_buf_size", &a, err,
			      sizeof(err)) == 0);
	CHECK(a.ntests == 1 && a.nopts == 1 && a.expect);
	CHECK(exp_allow_parse("tcp_bw,nonsense", &a, err, sizeof(err)) < 0);
	CHECK(strstr(err, "nonsense: not a test") != NULL, "%s", err);
	/* options that set no test parameter are refused */
	CHECK(exp_allow_parse("listen_port", &a, err, sizeof(err)) < 0);
	CHECK(exp_allow_parse("json", &a, err, sizeof(err)) < 0);
	CHECK(exp_allow_parse("tcp_bw,", &a, err, sizeof(err)) < 0);
	CHECK(strstr(err, "ends with a comma") != NULL, "%s", err);
	CHECK(exp_allow_parse("tcp_bw,,tcp_lat", &a, err, sizeof(err)) < 0);
	CHECK(exp_allow_parse("", &a, err, sizeof(err)) < 0);
}

/* parse "k=v&k=v" (v may be absent: "k") against allow. */
static int parse(const char *q, struct probe_req *r, char *err, size_t len)
{
	char buf[512], *save = NULL, *p;
	const char *k[16], *v[16];
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", q);
	for (p = strtok_r(buf, "&", &save); p && n < 16;
	     p = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(p, '=');

		k[n] = p;
		v[n] = NULL;
		if (eq) {
			*eq = '\0';
			v[n] = eq + 1;
		}
		n++;
	}
	return probe_req_parse(&allow, n, k, v, r, err, len);
}

static void bad(const char *q, const char *why)
{
	struct probe_req r;
	char err[256] = "";

	CHECK(parse(q, &r, err, sizeof(err)) < 0, "accepted %s", q);
	CHECK(strstr(err, why) != NULL, "%s: got \"%s\", wanted \"%s\"", q,
	      err, why);
}

TEST(probe_query)
{
	struct probe_req r;
	char err[256];

	allow_init();
	CHECK(parse("target=node01&test=tcp_lat", &r, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK_STR(r.host, "node01");
	CHECK(r.port == EXP_DEFAULT_PORT && r.nopts == 0);
	CHECK(r.time_ns == NS_PER_SEC);
	CHECK(parse("test=tcp_bw&target=[::1]:7000&time=0.25&msg_size=64K&expect=bw>=1GB",
		    &r, err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(r.host, "::1");
	CHECK(r.port == 7000 && r.nopts == 3);
	CHECK(r.time_ns == NS_PER_SEC / 4);
	CHECK_STR(r.opt[1].flag, "--msg_size");
	CHECK_STR(r.opt[2].flag, "--expect");
	CHECK_STR(r.opt[2].value, "bw>=1GB");
	bad("test=tcp_lat", "missing target");
	bad("target=h", "missing test");
	bad("target=h&test=udp_bw", "test=udp_bw: not allowed");
	bad("target=h&test=nosuch", "test=nosuch: no such test");
	bad("target=h&test=tcp_lat&test=tcp_lat", "test: given twice");
	bad("target=h&target=g&test=tcp_lat", "target: given twice");
	bad("target=h&test=tcp_lat&time=1&time=2", "time: given twice");
	bad("target=h&test=tcp_lat&sock_buf_size=1M", "sock_buf_size: not allowed");
	bad("target=h&test=tcp_lat&msg_size", "msg_size: no value");
	bad("target=h&test=tcp_lat&msg_size=", "msg_size: no value");
	bad("target=h&test=tcp_lat&msg_size=1;ls", "msg_size=1;ls: bad value");
	bad("target=h&test=tcp_lat&msg_size=a b", "bad value");
	bad("target=h&test=tcp_lat&time=soon", "time");
	bad("target=-lp&test=tcp_lat", "target=-lp: bad target");
	bad("target=h:0&test=tcp_lat", "bad target");
	bad("target=h:65536&test=tcp_lat", "bad target");
	bad("target=h:12x&test=tcp_lat", "bad target");
	bad("target=[::1&test=tcp_lat", "bad target");
	bad("target=[h]:1&test=tcp_lat", "bad target");
	bad("target=h/x&test=tcp_lat", "bad target");
	bad("=x&target=h&test=tcp_lat", "empty argument name");
}

TEST(child_argv)
{
	struct probe_req r;
	const char *av[32];
	char port[8], err[256], line[512] = "";
	int n;

	allow_init();
	CHECK(parse("target=h:7000&test=tcp_bw&time=0.5&msg_size=1K", &r, err,
		    sizeof(err)) == 0, "%s", err);
	n = probe_argv(&r, "/proc/self/exe", port, sizeof(port), av, 32);
	CHECK(n == 15 && av[n] == NULL);
	for (int i = 0; i < n; i++) {
		strcat(line, av[i]);
		strcat(line, i + 1 < n ? " " : "");
	}
	CHECK_STR(line, "/proc/self/exe --json -lp 7000 -ws 0 -t 1 --time 0.5 "
			"--msg_size 1K -H h tcp_bw");
	CHECK(probe_argv(&r, "x", port, sizeof(port), av, 8) < 0);
}

/* Render o in the format om into a string (the caller frees). */
static char *render(const struct probe_outcome *o, bool om)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || exp_render_probe(f, om, o) < 0)
		abort();
	fclose(f);
	return buf;
}

static const char doc_text[] =
	"{\"tests\":[{\"test\":\"rc_bw\",\"status\":\"ok\",\"results\":{"
	"\"bw_Bps\":4.5e9,\"send_bw_Bps\":4.6e9,\"recv_bw_Bps\":4.5e9,"
	"\"msg_rate_per_s\":70000,\"latency_s\":null,"
	"\"latency\":{\"count\":10,\"min_s\":1e-6,\"mean_s\":2e-6,"
	"\"max_s\":9e-6,\"p50_s\":2e-6,\"p90_s\":3e-6,\"p99_s\":8e-6,"
	"\"p99_9_s\":9e-6,\"p99_99_s\":9e-6},"
	"\"loc\":{\"cpus_busy\":{\"total\":0.5},\"send\":{\"msgs\":7,"
	"\"bytes_B\":700,\"errors\":0},\"recv\":{\"msgs\":0,\"bytes_B\":0,"
	"\"errors\":0},\"lost\":0,\"process_cpu\":{\"user_s\":0.1,\"sys_s\":0.2}},"
	"\"rem\":{\"cpus_busy\":{\"total\":0.25},\"recv\":{\"msgs\":7}},"
	"\"counters\":{\"client\":{\"source\":\"rdma\",\"values\":"
	"{\"port_xmit_discards\":3,\"note\":\"x\"}}},"
	"\"ceiling\":{\"value_Bps\":5e9,\"limit\":\"pcie\",\"efficiency\":0.9}},"
	"\"verdict\":{\"pass\":false,\"checks\":[{\"expr\":\"bw>=\\\"5GB\","
	"\"pass\":false}]}}]}";

TEST(render_document)
{
	struct probe_outcome o = { .success = true, .duration = 1.5,
				   .exit_status = 3 };
	char *t, want[160];

	o.doc = json_loads(doc_text, 0, NULL);
	CHECK(o.doc != NULL);
	t = render(&o, false);
	CHECK(strstr(t, "# TYPE qperf_probe_success gauge\nqperf_probe_success 1\n") != NULL, "%s", t ? t : "(null)");
	CHECK(strstr(t, "\nqperf_probe_duration_seconds 1.5\n") != NULL);
	CHECK(strstr(t, "\nqperf_probe_exit_status 3\n") != NULL);
	CHECK(strstr(t, "\nqperf_bw_bytes_per_second 4500000000\n") != NULL);
	CHECK(strstr(t, "\nqperf_send_bw_bytes_per_second 4600000000\n") != NULL);
	CHECK(strstr(t, "\nqperf_msg_rate_per_second 70000\n") != NULL);
	/* null in the JSON: left out, never 0 */
	CHECK(strstr(t, "qperf_latency_seconds") == NULL);
	CHECK(strstr(t, "# TYPE qperf_latency_distribution_seconds summary\n"
			"qperf_latency_distribution_seconds{quantile=\"0\"} 9.9999999999999995e-07\n") != NULL, "%s", t ? t : "(null)");
	CHECK(strstr(t, "qperf_latency_distribution_seconds{quantile=\"0.99\"} 7.9999999999999996e-06\n") != NULL);
	CHECK(strstr(t, "qperf_latency_distribution_seconds{quantile=\"1\"} 9.0000000000000002e-06\n") != NULL);
	snprintf(want, sizeof(want),
		 "qperf_latency_distribution_seconds_sum %.17g\n"
		 "qperf_latency_distribution_seconds_count 10\n", 2e-6 * 10);
	CHECK(strstr(t, want) != NULL, "%s", want);
	CHECK(strstr(t, "qperf_round_trip_seconds") == NULL);
	CHECK(strstr(t, "qperf_cpus_used{end=\"client\"} 0.5\n"
			"qperf_cpus_used{end=\"server\"} 0.25\n") != NULL);
	CHECK(strstr(t, "qperf_process_cpu_seconds{end=\"client\",mode=\"system\"} 0.20000000000000001\n") != NULL);
	CHECK(strstr(t, "qperf_messages{end=\"client\",direction=\"send\"} 7\n"
			"qperf_messages{end=\"client\",direction=\"recv\"} 0\n"
			"qperf_messages{end=\"server\",direction=\"recv\"} 7\n") != NULL, "%s", t ? t : "(null)");
	CHECK(strstr(t, "qperf_path_stat{end=\"client\",source=\"rdma\",stat=\"port_xmit_discards\"} 3\n") != NULL);
	CHECK(strstr(t, "stat=\"note\"") == NULL);
	CHECK(strstr(t, "qperf_bw_ceiling_bytes_per_second{limit=\"pcie\"} 5000000000\n") != NULL);
	CHECK(strstr(t, "qperf_bw_efficiency_ratio 0.90000000000000002\n") != NULL);
	CHECK(strstr(t, "qperf_verdict_pass 0\n") != NULL);
	CHECK(strstr(t, "qperf_verdict_check_pass{expr=\"bw>=\\\"5GB\"} 0\n") != NULL, "%s", t ? t : "(null)");
	CHECK(strstr(t, "# EOF") == NULL);
	/* every family's metadata once */
	CHECK(strstr(strstr(t, "# TYPE qperf_messages ") + 1, "# TYPE qperf_messages ") == NULL);
	free(t);
	t = render(&o, true);
	CHECK(strlen(t) > 6 && !strcmp(t + strlen(t) - 6, "# EOF\n"));
	free(t);
	json_decref(o.doc);
}

TEST(render_failure)
{
	struct probe_outcome o = { .duration = 0.01, .exit_status = 1 };
	char *t;

	snprintf(o.error, sizeof(o.error), "no \"server\"\\ here\nat\x01 all");
	t = render(&o, true);
	CHECK_STR(t, "# HELP qperf_probe_success 1 if the test ran and measured; 0 with an error label if not.\n"
		     "# TYPE qperf_probe_success gauge\n"
		     "qperf_probe_success{error=\"no \\\"server\\\"\\\\ here\\nat? all\"} 0\n"
		     "# HELP qperf_probe_duration_seconds How long the probe took, the child's start to its end.\n"
		     "# TYPE qperf_probe_duration_seconds gauge\n"
		     "qperf_probe_duration_seconds 0.01\n"
		     "# HELP qperf_probe_exit_status The exit status of the test (3: a check failed).\n"
		     "# TYPE qperf_probe_exit_status gauge\n"
		     "qperf_probe_exit_status 1\n"
		     "# EOF\n");
	free(t);
}

TEST(families)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char b[8];

	exp_family(f, true, "qperf_x_total", "counter", "X.");
	exp_family(f, false, "qperf_x_total", "counter", "X.");
	exp_sample(f, "qperf_y", "a=\"b\"", 1.0 / 0.0);
	exp_sample(f, "qperf_y", NULL, 0.0 / 0.0);
	fclose(f);
	CHECK_STR(buf, "# HELP qperf_x X.\n# TYPE qperf_x counter\n"
		       "# HELP qperf_x_total X.\n# TYPE qperf_x_total counter\n"
		       "qperf_y{a=\"b\"} +Inf\nqperf_y NaN\n");
	free(buf);
	/* clipped, never split inside an escape */
	CHECK_STR(exp_label_escape("\"\"\"\"", b, sizeof(b)), "\\\"\\\"\\\"");
}

int main(void)
{
	RUN(allow_list);
	RUN(probe_query);
	RUN(child_argv);
	RUN(render_document);
	RUN(render_failure);
	RUN(families);
	return harness_done();
}
