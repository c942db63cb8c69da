/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the unit tests of output/report.c (test_report.c,
 * test_report_tcp.c, test_report_udp.c): node statistics built
 * from tick rates, windows and counters, output options, parameter sets,
 * and render(), which runs calc_results and report_test into a string.
 * Each including file is one test program.
 */
#ifndef QPERF_REPORT_UTIL_H
#define QPERF_REPORT_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"
#include "output/report.h"
#include "harness.h"
#include "transports/transport.h"

#define NS 1000000000ULL

/* CPU tick deltas of one node over the window. */
struct cpu_d {
	uint64_t user, nice, kernel, idle, iowait, irq, softirq, steal;
};

/* A node with the given tick rate, window (ns) and CPU deltas. */
static struct node_stat mk(uint32_t ticks, uint64_t real_ns, struct cpu_d d)
{
	struct node_stat st;
	const uint64_t base = 123456;

	memset(&st, 0, sizeof(st));
	st.no_cpus = 2;
	st.no_ticks = ticks;
	st.real_s = 7 * NS + 12345;
	st.real_e = st.real_s + real_ns;
	for (int i = 0; i < CPU_COUNT; i++)
		st.time_s[i] = st.time_e[i] = base + (uint64_t)i * 1000;
	st.time_e[CPU_USER] += d.user;
	st.time_e[CPU_NICE] += d.nice;
	st.time_e[CPU_KERNEL] += d.kernel;
	st.time_e[CPU_IDLE] += d.idle;
	st.time_e[CPU_IOWAIT] += d.iowait;
	st.time_e[CPU_IRQ] += d.irq;
	st.time_e[CPU_SOFTIRQ] += d.softirq;
	st.time_e[CPU_STEAL] += d.steal;
	return st;
}

static void set_us(struct ustat *u, uint64_t bytes, uint64_t msgs)
{
	u->bytes = bytes;
	u->msgs = msgs;
}

/* Verbosity: stat, time, used levels; precision 3. */
static struct out_opts mko(int vs, int vt, int vu)
{
	struct out_opts o;

	memset(&o, 0, sizeof(o));
	o.v_stat = vs;
	o.v_time = vt;
	o.v_used = vu;
	o.precision = 3;
	return o;
}

static const struct out_opts O_NONE = { .precision = 3 };
#define O_V mko(1, 1, 1)
#define O_VV mko(2, 2, 2)

/*
 * The parameters of a socket test as the engine fills them: defaults for
 * msg_size (the test's), time 2 s, timeout 5 s; "-t 1" when t1 is set.
 */
static struct par_set mkp(const struct test_desc *t, bool t1)
{
	struct par_set p;

	memset(&p, 0, sizeof(p));
	p.rows = param_table;
	p.nrows = param_count;
	for (int i = 0; i < PAR_COUNT; i++)
		p.used[i] = (t->uses >> i) & 1;
	for (int s = 0; s < 2; s++) {
		p.val[s][PAR_MSG_SIZE] = t->msg_size;
		p.val[s][PAR_TIME] = t1 ? NS : 2 * NS;
		p.val[s][PAR_TIMEOUT] = 5 * NS;
		p.set[s][PAR_TIME] = t1;
	}
	return p;
}

static void set_msg_size(struct par_set *p, uint64_t v)
{
	for (int s = 0; s < 2; s++) {
		p->val[s][PAR_MSG_SIZE] = v;
		p->set[s][PAR_MSG_SIZE] = true;
	}
}

/* Run calc_results and report_test; returns the printed text (free it). */
static char *render(const char *test, const struct node_stat *l,
		    const struct node_stat *r, const struct par_set *p,
		    const struct out_opts *o)
{
	struct results res;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	calc_results(l, r, &res);
	report_test(f, test_find(test), &res, p, o);
	fclose(f);
	return buf;
}

#define CHECK_OUT(text, expected)                                          \
	do {                                                               \
		char *out_ = (text);                                       \
		CHECK_STR(out_, expected);                                 \
		free(out_);                                                \
	} while (0)

/* tcp_bw, client sends: both nodes with the same system-wide CPU. */
static void tcp_bw_nodes(struct node_stat *l, struct node_stat *r,
			 struct cpu_d d, uint64_t sbytes, uint64_t smsgs,
			 uint64_t rbytes, uint64_t rmsgs)
{
	*l = mk(100, NS, d);
	*r = mk(100, NS, d);
	set_us(&l->s, sbytes, smsgs);
	set_us(&r->r, rbytes, rmsgs);
}

/* tcp_lat: every node sends and receives (loc/rem naming). */
static void tcp_lat_nodes(struct node_stat *l, struct node_stat *r,
			  struct cpu_d d, uint64_t size, uint64_t ls,
			  uint64_t lr, uint64_t rs, uint64_t rr)
{
	*l = mk(100, NS, d);
	*r = mk(100, NS, d);
	set_us(&l->s, ls * size, ls);
	set_us(&l->r, lr * size, lr);
	set_us(&r->s, rs * size, rs);
	set_us(&r->r, rr * size, rr);
}

#endif
