// SPDX-License-Identifier: GPL-2.0-only
/*
 * --load: which tests run as the load in which direction
 * (core/load_check.c), and the load's text block and JSON object
 * (output/report_load.c, output/json_load.c).
 */
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "core/engine.h"
#include "output/json.h"
#include "output/report.h"
#include "output/sink.h"
#include "harness.h"

/* The loads of --load NAME --load_dir DIR: their number, names in out. */
static int loads(const char *name, uint32_t dir, const char *out[2])
{
	struct load_opts l = { .test = test_find(name), .dir = dir };
	struct load_spec s[2];
	char err[512];
	int n = load_tests(&l, s, err, sizeof(err));

	for (int i = 0; i < n; i++)
		out[i] = s[i].t->name;
	return n;
}

TEST(directions)
{
	const char *o[2];

	CHECK(loads("tcp_bw", LOAD_OUT, o) == 1);
	CHECK_STR(o[0], "tcp_bw");
	CHECK(loads("tcp_bw", LOAD_IN, o) == -1);
	CHECK(loads("udp_bw", LOAD_BOTH, o) == -1);
	CHECK(loads("rc_bw", LOAD_BOTH, o) == 2);
	CHECK_STR(o[0], "rc_bw");
	CHECK_STR(o[1], "rc_rdma_read_bw");
	CHECK(loads("rc_rdma_write_bw", LOAD_IN, o) == 1);
	CHECK_STR(o[0], "rc_rdma_read_bw");
	CHECK(loads("rc_rdma_read_bw", LOAD_IN, o) == 1);
	CHECK(loads("rc_rdma_read_bw", LOAD_OUT, o) == -1);
	CHECK(loads("rc_bi_bw", LOAD_BOTH, o) == 1);
	CHECK_STR(o[0], "rc_bi_bw");
	CHECK(loads("rc_bi_bw", LOAD_OUT, o) == 1); /* both covers out */
	CHECK(loads("uc_bw", LOAD_BOTH, o) == -1); /* no read on UC */
}

/* A group pattern's latency round: its loads run the bandwidth test of
 * the latency test's transport, with -t 0 and their own message size. */
TEST(cluster_loads)
{
	static const char *const pairs[][2] = {
		{ "tcp_lat", "tcp_bw" },   { "udp_lat", "udp_bw" },
		{ "sctp_lat", "sctp_bw" }, { "rc_lat", "rc_bw" },
		{ "rc_rdma_write_lat", "rc_bw" }, { "uc_lat", "uc_bw" },
		{ "ud_lat", "ud_bw" },     { "xrc_lat", "xrc_bw" },
		{ "rs_lat", "rs_bw" },
	};
	struct settings s, l;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct test_desc *t = test_find(pairs[i][0]);

		if (!t->tp)
			continue; /* a build without RDMA */
		CHECK(test_bw_of(t) != NULL);
		CHECK_STR(test_bw_of(t)->name, pairs[i][1]);
	}
	CHECK(test_bw_of(test_find("conf")) == NULL);
	memset(&s, 0, sizeof(s));
	s.par.val[SIDE_LOC][PAR_MSG_SIZE] = 8;
	s.par.set[SIDE_LOC][PAR_MSG_SIZE] = true;
	s.par.val[SIDE_REM][PAR_NO_MSGS] = 500;
	s.par.val[SIDE_LOC][PAR_TIME] = 3 * NS_PER_SEC;
	s.par.val[SIDE_LOC][PAR_TIMEOUT] = 7 * NS_PER_SEC;
	s.interval = NS_PER_SEC;
	load_settings_of(&s, "--cluster", &l);
	CHECK(l.par.val[SIDE_LOC][PAR_MSG_SIZE] == 0 &&
	      !l.par.set[SIDE_LOC][PAR_MSG_SIZE]);
	CHECK(l.par.val[SIDE_REM][PAR_NO_MSGS] == 0 && l.interval == 0);
	CHECK(l.par.val[SIDE_LOC][PAR_TIME] == 0 &&
	      l.par.set[SIDE_REM][PAR_TIME]);
	CHECK_STR(l.par.spelling[SIDE_LOC][PAR_TIME], "--cluster");
	CHECK(l.par.val[SIDE_LOC][PAR_TIMEOUT] == 7 * NS_PER_SEC);
}

static void sample(struct load_fig f[2], struct lat_summary *idle,
		   struct results *res)
{
	memset(f, 0, 2 * sizeof(*f));
	f[0] = (struct load_fig){ .test = "rc_bw", .dir = "out" };
	f[0].r.recv_bw = f[0].r.send_bw = 2e9;
	f[1] = (struct load_fig){ .test = "rc_rdma_read_bw", .dir = "in",
				  .rate = 1.25e9 };
	f[1].r.recv_bw = 1e9;
	memset(idle, 0, sizeof(*idle));
	idle->count = 10;
	idle->p50 = 10e-6;
	idle->p99 = 30e-6;
	memset(res, 0, sizeof(*res));
	res->lat.count = 10;
	res->lat.p50 = 20e-6;
	res->lat.p99 = 400e-6;
}

TEST(text)
{
	struct load_fig f[2];
	struct lat_summary idle;
	struct results res;
	struct out_load l = { f, 2, &idle, 12e-6 };
	struct out_opts o = { .precision = 3 };
	char *out = NULL;
	size_t len = 0;
	FILE *m;

	sample(f, &idle, &res);
	m = open_memstream(&out, &len);
	report_load(m, &o, &res, &l);
	fclose(m);
	CHECK(strstr(out, "    load_out            =  rc_bw\n") != NULL, "%s", out);
	CHECK(strstr(out, "    load_out_bw         =    2 GB/sec\n") != NULL, "%s", out);
	CHECK(strstr(out, "    load_in             =  rc_rdma_read_bw (paced)\n") != NULL,
	      "%s", out);
	CHECK(strstr(out, "    idle_latency        =   12 us\n") != NULL, "%s", out);
	CHECK(strstr(out, "    idle_latency_p99    =   30 us\n") != NULL, "%s", out);
	CHECK(strstr(out, "    loaded_latency_p99  =  400 us\n") != NULL, "%s", out);
	free(out);
	/* --no_idle: no idle lines */
	l.idle = NULL;
	out = NULL;
	m = open_memstream(&out, &len);
	report_load(m, &o, &res, &l);
	fclose(m);
	CHECK(strstr(out, "idle") == NULL, "%s", out);
	CHECK(strstr(out, "loaded_latency_p50") != NULL, "%s", out);
	free(out);
}

TEST(json)
{
	struct load_fig f[2];
	struct lat_summary idle;
	struct results res;
	struct out_load l = { f, 2, &idle, 12e-6 };
	json_t *o, *a;

	sample(f, &idle, &res);
	o = json_load(&l);
	a = json_object_get(o, "loads");
	CHECK(json_array_size(a) == 2);
	CHECK_STR(json_string_value(json_object_get(json_array_get(a, 1),
						    "direction")), "in");
	CHECK(json_is_null(json_object_get(json_array_get(a, 0), "rate")));
	CHECK(json_real_value(json_object_get(
		      json_object_get(json_array_get(a, 1), "rate"), "Bps")) ==
	      1.25e9);
	CHECK(json_real_value(json_object_get(
		      json_object_get(json_object_get(o, "idle"), "latency"),
		      "p99_s")) == 30e-6);
	json_decref(o);
	l.idle = NULL;
	o = json_load(&l);
	CHECK(json_is_null(json_object_get(o, "idle")));
	json_decref(o);
}

int main(void)
{
	RUN(directions);
	RUN(text);
	RUN(json);
	RUN(cluster_loads);
	return harness_done();
}
