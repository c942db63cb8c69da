// SPDX-License-Identifier: GPL-2.0-only
/*
 * --load TEST (docs/load.md): its options, what the plan may combine it
 * with, and which tests run as the load in which direction.  Pure over
 * the plan and the test table, checked while the command line is parsed
 * (core/opts.c); the load itself runs in core/load.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "transports/transport.h"
#include "engine.h"
#include "opt_err.h"
#include "param.h"
#include "lib/err.h"

static const char *const load_dir_names[] = { "out", "in", "both" };

const char *load_dir_name(uint32_t dir)
{
	return dir < 3 ? load_dir_names[dir] : "?";
}

int load_opt(struct plan *plan, int act, const char *spelling,
	     const char *v, char *err, size_t errlen)
{
	struct load_opts *l = &plan->load;
	const struct test_desc *t;

	if (act != OA_LOAD && !l->first_opt)
		l->first_opt = spelling;
	switch (act) {
	case OA_LOAD:
		t = test_find(v);
		if (!t)
			return opts_fail(err, errlen, spelling, v,
					 "unknown test; try: qperf --help tests");
		if (t->measure != MEAS_BANDWIDTH &&
		    t->measure != MEAS_BANDWIDTH_SR)
			return opts_fail(err, errlen, spelling, v,
					 "not a bandwidth test; the load must be one (tcp_bw, udp_bw, rc_bw, rc_rdma_write_bw, ...)");
		l->test = t;
		return 0;
	case OA_LOAD_DIR:
		for (uint32_t i = 0; i < 3; i++)
			if (strcmp(v, load_dir_names[i]) == 0) {
				l->dir = i;
				return 0;
			}
		return opts_fail(err, errlen, spelling, v,
				 "bad direction; give out, in or both");
	case OA_LOAD_RATE:
		if (parse_rate(spelling, v, &l->rate, &l->rate_msgs, err,
			       errlen) < 0)
			return -1;
		l->rate_opt = spelling;
		return 0;
	default:
		l->no_idle = true;
		return 0;
	}
}

/* The direction data of test t flows in. */
static uint32_t dir_of(const struct test_desc *t)
{
	if (t->loop == LOOP_BI_BW)
		return LOAD_BOTH;
	return t->op == OP_READ ? LOAD_IN : LOAD_OUT;
}

/* The test of t's family whose data flows from the server: NULL if none. */
static const struct test_desc *reverse_of(const struct test_desc *t)
{
	char name[64];
	size_t n = strcspn(t->name, "_");

	if (n >= 16)
		return NULL;
	memcpy(name, t->name, n);
	xsnprintf(name + n, sizeof(name) - n, "_rdma_read_bw");
	return test_find(name);
}

int load_tests(const struct load_opts *l, struct load_spec out[2],
	       char *err, size_t errlen)
{
	const struct test_desc *t = l->test, *rev;
	uint32_t have = dir_of(t);

	if (have == l->dir || have == LOAD_BOTH) {
		out[0] = (struct load_spec){ t, have };
		return 1;
	}
	rev = have == LOAD_OUT ? reverse_of(t) : NULL;
	if (l->dir == LOAD_OUT || !rev)
		return seterr(err, errlen,
			      "--load_dir %s: %s moves data from the %s only%s",
			      load_dir_name(l->dir), t->name,
			      have == LOAD_IN ? "server to the client" :
						"client to the server",
			      have == LOAD_IN ? "; give --load_dir in" :
			      "; qperf's socket tests send from the client, and only RDMA read (rc_rdma_read_bw) brings data from the server: give --load_dir out, or an rc_ load");
	if (l->dir == LOAD_IN) {
		out[0] = (struct load_spec){ rev, LOAD_IN };
		return 1;
	}
	out[0] = (struct load_spec){ t, LOAD_OUT };
	out[1] = (struct load_spec){ rev, LOAD_IN };
	return 2;
}

int load_check(const struct plan *p, char *err, size_t errlen)
{
	const struct load_opts *l = &p->load;
	struct load_spec spec[2];

	if (!l->test) {
		if (l->first_opt)
			return seterr(err, errlen, "%s: needs --load TEST",
				      l->first_opt);
		return 0;
	}
	if (p->mode == RUN_CLUSTER)
		return seterr(err, errlen, "--load: not with --cluster");
	if (p->clients)
		return seterr(err, errlen, "--load: not with --clients");
	if (p->plot_file)
		return seterr(err, errlen, "--load: not with --plot");
	if (load_tests(l, spec, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < p->ntests; i++) {
		const struct plan_item *it = &p->tests[i];

		if (it->test->measure != MEAS_LATENCY)
			return seterr(err, errlen,
				      "--load: %s is not a latency test; the load runs beside latency tests (tcp_lat, rc_lat, ...)",
				      it->test->name);
		if (it->s.nloops)
			return seterr(err, errlen, "--load: not with --loop");
		if (param_forever(it->test, &it->s.par))
			return seterr(err, errlen,
				      "--load: not with -t 0 (the latency test's window bounds the load)");
	}
	return 0;
}
