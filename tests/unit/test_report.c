// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/report.c: calc_results arithmetic (spec §3.4, §6),
 * number rendering and unit scaling (§5.4, §5.5), and the whole printed
 * table against every output captured from qperf 0.4.11 (§5.11), byte for
 * byte.  Each capture is rebuilt from STAT values that give its figures.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/report.h"
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

static char *num(double v, int prec, bool commas)
{
	static char buf[4][128];
	static int k;
	char *b = buf[k++ % 4];

	fmt_number(b, 128, v, prec, commas);
	return b;
}

#define CHECK_OUT(text, expected)                                          \
	do {                                                               \
		char *out_ = (text);                                       \
		CHECK_STR(out_, expected);                                 \
		free(out_);                                                \
	} while (0)

/* ------------------------------------------------------------------ */
/* fmt_number                                                          */
/* ------------------------------------------------------------------ */

TEST(fmt_precision)
{
	CHECK_STR(num(3.4567, 3, true), "3.46");
	CHECK_STR(num(12.0, 3, true), "12");
	CHECK_STR(num(0.0123, 3, true), "0.01");
	CHECK_STR(num(9.996, 3, true), "10");
	CHECK_STR(num(1634.4, 3, true), "1,634");
	CHECK_STR(num(0, 3, true), "0");
	CHECK_STR(num(-0.0, 3, true), "0");
	CHECK_STR(num(3.5, 3, true), "3.5");
	CHECK_STR(num(10.03150, 6, true), "10.0315");
	CHECK_STR(num(99.686, 6, true), "99.686");
	CHECK_STR(num(12.254301264, 10, true), "12.25430126");
	CHECK_STR(num(8.264, 0, true), "8");
	CHECK_STR(num(121.3, 0, true), "121");
	CHECK_STR(num(0.4, 0, true), "0");
	CHECK_STR(num(999.7, 3, true), "1,000");
}

TEST(fmt_commas)
{
	CHECK_STR(num(81604, 3, true), "81,604");
	CHECK_STR(num(1234.56, 6, true), "1,234.56");
	CHECK_STR(num(999999, 3, true), "999,999");
	CHECK_STR(num(1000000, 3, true), "1,000,000");
	CHECK_STR(num(123, 3, true), "123");
	CHECK_STR(num(-1234567, 3, true), "-1,234,567");
	CHECK_STR(num(3394371584.0, 3, false), "3394371584");
	CHECK_STR(num(1234.56, 6, false), "1234.56");
}

TEST(fmt_bounds)
{
	char small[5];
	char big[600];
	size_t n;

	n = fmt_number(small, sizeof(small), 1234567, 3, true);
	CHECK(n == 4);
	CHECK_STR(small, "1,23");
	CHECK(fmt_number(small, 0, 1, 3, true) == 0);
	n = fmt_number(big, sizeof(big), 1e300, 3, true);
	CHECK(n == strlen(big));
	CHECK(n > 300 && n < sizeof(big));
	n = fmt_number(big, sizeof(big), 1e-5, 1000, false);
	CHECK(n == strlen(big) && n < sizeof(big));
	n = fmt_number(big, sizeof(big), NAN, 3, true);
	CHECK(n == strlen(big) && n > 0);
	CHECK(fmt_number(big, sizeof(big), 1.5, -3, true) == 1);
}

/* ------------------------------------------------------------------ */
/* calc_results                                                        */
/* ------------------------------------------------------------------ */

static bool near(double a, double b)
{
	double d = a > b ? a - b : b - a;
	double m = a > 0 ? a : -a;

	return d <= 1e-12 * m;
}

TEST(calc_node_figures)
{
	struct node_stat l = mk(100, NS / 2,
				(struct cpu_d){ .user = 10, .nice = 2,
						.kernel = 30, .idle = 50,
						.iowait = 4, .irq = 1,
						.softirq = 3, .steal = 5 });
	struct node_stat r = mk(1000, 2 * NS, (struct cpu_d){ .user = 500 });
	struct results res;

	calc_results(&l, &r, &res);
	CHECK(near(res.ln.real_time, 0.5));
	CHECK(near(res.ln.cpu_time, 0.55)); /* 55 ticks, idle excluded */
	CHECK(near(res.ln.cpu_user, 12 / 50.0));
	CHECK(near(res.ln.cpu_intr, 4 / 50.0));
	CHECK(near(res.ln.cpu_kernel, 35 / 50.0));
	CHECK(near(res.ln.cpu_iowait, 4 / 50.0));
	CHECK(near(res.ln.cpu_total, 55 / 50.0));
	CHECK(near(res.rn.real_time, 2));
	CHECK(near(res.rn.cpu_time, 0.5));
	CHECK(near(res.rn.cpu_user, 0.25));
	CHECK(res.rn.cpu_kernel == 0);
}

TEST(calc_double_not_float)
{
	/* 0.4.11 gives 1.59000003 through a float; we keep 1.59. */
	struct node_stat l = mk(100, NS, (struct cpu_d){ .kernel = 159 });
	struct results res;

	calc_results(&l, &l, &res);
	CHECK(res.ln.cpu_time == 159 / 100.0);
}

TEST(calc_zero_guards)
{
	struct node_stat l = mk(0, NS, (struct cpu_d){ .user = 100 });
	struct node_stat r = mk(100, 0, (struct cpu_d){ .user = 100 });
	struct results res;

	set_us(&l.s, 1000, 10);
	set_us(&r.r, 1000, 10);
	calc_results(&l, &r, &res);
	CHECK(res.ln.real_time == 0 && res.ln.cpu_time == 0);
	CHECK(res.ln.cpu_total == 0);
	CHECK(res.rn.real_time == 0 && res.rn.cpu_total == 0);
	CHECK(res.latency == 0 && res.msg_rate == 0);
	CHECK(res.send_bw == 0 && res.recv_bw == 0);
	CHECK(res.send_cost == 0 && res.recv_cost == 0);

	/* Backwards counters count as nothing. */
	l = mk(100, NS, (struct cpu_d){ 0 });
	l.time_e[CPU_USER] = l.time_s[CPU_USER] - 5;
	l.real_e = l.real_s - 1;
	calc_results(&l, &l, &res);
	CHECK(res.ln.real_time == 0 && res.ln.cpu_user == 0);

	/* All zero: nothing divides by zero. */
	memset(&l, 0, sizeof(l));
	calc_results(&l, &l, &res);
	CHECK(res.latency == 0 && res.msg_rate == 0 && res.recv_bw == 0);
}

TEST(calc_latency_with_one_time_zero)
{
	struct node_stat l = mk(100, NS, (struct cpu_d){ 0 });
	struct node_stat r = mk(100, 0, (struct cpu_d){ 0 });
	struct results res;

	set_us(&l.r, 10, 10);
	set_us(&r.r, 10, 10);
	calc_results(&l, &r, &res);
	CHECK(near(res.latency, 1.0 / 20));
	CHECK(res.msg_rate == 0 && res.recv_bw == 0);
}

TEST(calc_rates)
{
	struct node_stat l = mk(100, NS, (struct cpu_d){ .user = 50 });
	struct node_stat r = mk(100, 2 * NS, (struct cpu_d){ .user = 80 });
	struct results res;

	/* One-way, client sends: msg_rate divides by the *client's* time. */
	set_us(&l.s, 4000, 40);
	set_us(&r.r, 3000, 30);
	calc_results(&l, &r, &res);
	CHECK(near(res.msg_rate, 30 / 1.0));
	CHECK(near(res.send_bw, 4000 / 1.0));
	CHECK(near(res.recv_bw, 3000 / 2.0));
	CHECK(near(res.send_cost, 0.5 / 4000));
	CHECK(near(res.recv_cost, 0.8 / 3000)); /* cpu_time: 80 ticks */
	CHECK(near(res.latency, 1.0 / 30));

	/* One-way, server sends: msg_rate divides by the server's time. */
	memset(&l.s, 0, sizeof(l.s));
	memset(&r.r, 0, sizeof(r.r));
	set_us(&r.s, 4000, 40);
	set_us(&l.r, 3000, 30);
	calc_results(&l, &r, &res);
	CHECK(near(res.msg_rate, 30 / 2.0));
	CHECK(near(res.send_bw, 4000 / 2.0));
	CHECK(near(res.recv_bw, 3000 / 1.0));
	CHECK(near(res.send_cost, 0.8 / 4000));
	CHECK(near(res.recv_cost, 0.5 / 3000));

	/* Both ways: sums over the mean time, and no costs. */
	set_us(&l.s, 100, 1);
	set_us(&r.r, 300, 3);
	calc_results(&l, &r, &res);
	CHECK(near(res.msg_rate, 33 / 1.5));
	CHECK(near(res.send_bw, 4100 / 1.5));
	CHECK(near(res.recv_bw, 3300 / 1.5));
	CHECK(res.send_cost == 0 && res.recv_cost == 0);
}

TEST(calc_merge_rem)
{
	struct node_stat l = mk(100, NS, (struct cpu_d){ .user = 10 });
	struct node_stat r = mk(100, NS, (struct cpu_d){ .user = 10 });
	struct results res;

	/* rc_rdma_read style: the client counts what the server sent. */
	set_us(&l.r, 6000, 6);
	set_us(&l.rem_s, 6000, 6);
	r.rem_r.errs = 2;
	calc_results(&l, &r, &res);
	CHECK(res.r.s.bytes == 6000 && res.r.s.msgs == 6);
	CHECK(res.l.r.errs == 2 && res.l.r.bytes == 6000);
	CHECK(res.l.rem_s.bytes == 6000); /* the fields themselves stay */
	CHECK(near(res.send_cost, 0.1 / 6000));
	CHECK(near(res.recv_cost, 0.1 / 6000));

	/* Saturation instead of wrapping. */
	l.r.bytes = UINT64_MAX - 1;
	r.rem_r.bytes = 10;
	calc_results(&l, &r, &res);
	CHECK(res.l.r.bytes == UINT64_MAX);

	/* res may alias the inputs. */
	calc_results(&l, &r, &res);
	calc_results(&res.l, &res.r, &res);
	CHECK(res.l.r.bytes == UINT64_MAX);
}

/* Spec §5.11 worked check, -m 1400 -v udp_bw (server side). */
TEST(calc_worked_check)
{
	struct node_stat l = mk(100, NS, (struct cpu_d){ .user = 1 });
	struct node_stat r = mk(100, NS,
				(struct cpu_d){ .user = 11, .kernel = 90,
						.softirq = 40 });
	struct par_set p = mkp(test_find("udp_bw"), true);
	struct out_opts o = O_V;

	set_us(&l.s, 600000000, 428571);
	set_us(&r.r, 446027400, 318591);
	set_msg_size(&p, 1400);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw         =   600 MB/sec\n"
		  "    recv_bw         =   446 MB/sec\n"
		  "    msg_rate        =   319 K/sec\n"
		  "    msg_size        =   1.4 KB\n"
		  "    time            =     1 sec\n"
		  "    send_cost       =  16.7 ms/GB\n"
		  "    recv_cost       =  3.16 sec/GB\n"
		  "    send_cpus_used  =     1 % cpus\n"
		  "    recv_cpus_used  =   141 % cpus\n");
}

/* ------------------------------------------------------------------ */
/* Captured outputs (spec §5.11)                                       */
/* ------------------------------------------------------------------ */

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

TEST(capture_default_headlines)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), false);

	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 1 }, 3260000000,
		     49743, 3260000000, 49743);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &O_NONE),
		  "    bw  =  3.26 GB/sec\n");

	/* tcp_lat: 7.71 us */
	l = mk(100, 2 * NS, (struct cpu_d){ .user = 1 });
	r = l;
	set_us(&l.s, 129702, 129702);
	set_us(&l.r, 129702, 129702);
	set_us(&r.s, 129702, 129702);
	set_us(&r.r, 129702, 129702);
	p = mkp(test_find("tcp_lat"), false);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &O_NONE),
		  "    latency  =  7.71 us\n");

	/* udp_bw: 4.37 / 2.84 GB/sec */
	l = mk(100, NS, (struct cpu_d){ .user = 1 });
	r = l;
	set_us(&l.s, 4370000000, 133362);
	set_us(&r.r, 2840000000, 86670);
	p = mkp(test_find("udp_bw"), false);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &O_NONE),
		  "    send_bw  =  4.37 GB/sec\n"
		  "    recv_bw  =  2.84 GB/sec\n");

	/* udp_lat: 6.6 us */
	l = mk(100, NS, (struct cpu_d){ .user = 1 });
	r = l;
	set_us(&l.r, 75758, 75758);
	set_us(&r.r, 75757, 75757);
	p = mkp(test_find("udp_lat"), false);
	CHECK_OUT(render("udp_lat", &l, &r, &p, &O_NONE),
		  "    latency  =  6.6 us\n");
}

TEST(capture_tcp_bw_v)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_V;

	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 4, .softirq = 31, .kernel = 128 },
		     3460000000, 52796, 3460000000, 52796);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw              =  3.46 GB/sec\n"
		  "    msg_rate        =  52.8 K/sec\n"
		  "    time            =     1 sec\n"
		  "    send_cost       =   471 ms/GB\n"
		  "    recv_cost       =   471 ms/GB\n"
		  "    send_cpus_used  =   163 % cpus\n"
		  "    recv_cpus_used  =   163 % cpus\n");
}

TEST(capture_tcp_bw_vv)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_VV;

	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 4, .softirq = 35, .kernel = 128,
				     .idle = 33 },
		     53425ULL * 65536, 53425, 53425ULL * 65536, 53426);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw                =     3.5 GB/sec\n"
		  "    msg_rate          =    53.4 K/sec\n"
		  "    msg_size          =      64 KiB (65,536)\n"
		  "    time              =       1 sec\n"
		  "    timeout           =       5 sec\n"
		  "    send_cost         =     477 ms/GB\n"
		  "    recv_cost         =     477 ms/GB\n"
		  "    send_cpus_used    =     167 % cpus\n"
		  "    send_cpus_user    =       4 % cpus\n"
		  "    send_cpus_intr    =      35 % cpus\n"
		  "    send_cpus_kernel  =     128 % cpus\n"
		  "    send_real_time    =       1 sec\n"
		  "    send_cpu_time     =    1.67 sec\n"
		  "    send_bytes        =     3.5 GB\n"
		  "    send_msgs         =  53,425 \n"
		  "    recv_cpus_used    =     167 % cpus\n"
		  "    recv_cpus_user    =       4 % cpus\n"
		  "    recv_cpus_intr    =      35 % cpus\n"
		  "    recv_cpus_kernel  =     128 % cpus\n"
		  "    recv_real_time    =       1 sec\n"
		  "    recv_cpu_time     =    1.67 sec\n"
		  "    recv_bytes        =     3.5 GB\n"
		  "    recv_msgs         =  53,426 \n");
}

TEST(capture_tcp_bw_units)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_NONE;

	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 1 }, 3394371584, 51794,
		     3394371584, 51794);
	o.unify_units = true;
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw  =  3394371584 bytes/sec\n");

	o = O_NONE;
	o.bits = true;
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 1 }, 3400000000, 51880,
		     3400000000, 51880);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw  =  27.2 Gb/sec\n");

	o = O_NONE;
	o.precision = 5;
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 1 }, 3524100000, 53774,
		     3524100000, 53774);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw  =  3.5241 GB/sec\n");

	o = O_NONE;
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 1 }, 3500000000, 53406,
		     3500000000, 53406);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o), "    bw  =  3.5 GB/sec\n");
}

TEST(capture_tcp_bw_un_v)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_V;

	o.unify_nodes = true;
	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 4, .softirq = 30, .kernel = 128 },
		     58700ULL * 65536, 58700, 58700ULL * 65536, 58700);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw             =  3.85 GB/sec\n"
		  "    msg_rate       =  58.7 K/sec\n"
		  "    time           =     1 sec\n"
		  "    send_cost      =   421 ms/GB\n"
		  "    recv_cost      =   421 ms/GB\n"
		  "    loc_cpus_used  =   162 % cpus\n"
		  "    rem_cpus_used  =   162 % cpus\n");
}

TEST(capture_tcp_bw_vs_vt_vvs)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o;

	o = mko(1, 0, 0);
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 170 }, 3570000000,
		     54475, 3570000000, 54475);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw        =  3.57 GB/sec\n"
		  "    msg_rate  =  54.5 K/sec\n");

	o = mko(0, 1, 0);
	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 10, .softirq = 40, .kernel = 129 },
		     3825000000, 58365, 3820000000, 58289);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw              =  3.82 GB/sec\n"
		  "    send_cost       =   468 ms/GB\n"
		  "    recv_cost       =   469 ms/GB\n"
		  "    send_cpus_used  =   179 % cpus\n"
		  "    recv_cpus_used  =   179 % cpus\n");

	o = mko(2, 0, 0);
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 170 }, 48070ULL * 65536,
		     48070, 48051ULL * 65536, 48051);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw          =    3.15 GB/sec\n"
		  "    msg_rate    =    48.1 K/sec\n"
		  "    send_bytes  =    3.15 GB\n"
		  "    send_msgs   =  48,070 \n"
		  "    recv_bytes  =    3.15 GB\n"
		  "    recv_msgs   =  48,051 \n");
}

/*
 * -vv -uu tcp_bw from realistic ticks.  0.4.11 divides cpu_time in float
 * and printed 1590000033 ns, 605552855 and 605567969 ns/GB; computing in
 * double we print 1590000000 ns, 605552842 and 605567957 ns/GB.
 */
TEST(capture_tcp_bw_vv_uu_double)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_VV;

	o.unify_units = true;
	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 8, .softirq = 27, .kernel = 124 },
		     40065ULL * 65536, 40065, 40064ULL * 65536, 40064);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw                =  2625634304 bytes/sec\n"
		  "    msg_rate          =       40064 /sec\n"
		  "    msg_size          =       65536 bytes\n"
		  "    time              =  1000000000 ns\n"
		  "    timeout           =  5000000000 ns\n"
		  "    send_cost         =   605552842 ns/GB\n"
		  "    recv_cost         =   605567957 ns/GB\n"
		  "    send_cpus_used    =         159 % cpus\n"
		  "    send_cpus_user    =           8 % cpus\n"
		  "    send_cpus_intr    =          27 % cpus\n"
		  "    send_cpus_kernel  =         124 % cpus\n"
		  "    send_real_time    =  1000000000 ns\n"
		  "    send_cpu_time     =  1590000000 ns\n"
		  "    send_bytes        =  2625699840 bytes\n"
		  "    send_msgs         =       40065 \n"
		  "    recv_cpus_used    =         159 % cpus\n"
		  "    recv_cpus_user    =           8 % cpus\n"
		  "    recv_cpus_intr    =          27 % cpus\n"
		  "    recv_cpus_kernel  =         124 % cpus\n"
		  "    recv_real_time    =  1000000000 ns\n"
		  "    recv_cpu_time     =  1590000000 ns\n"
		  "    recv_bytes        =  2625634304 bytes\n"
		  "    recv_msgs         =       40064 \n");
}

/*
 * The same capture byte for byte: a tick rate of 4e9/s lets the CPU time
 * carry 0.4.11's float error (1.59000003325 s) exactly.
 */
TEST(capture_tcp_bw_vv_uu_exact)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_VV;
	struct cpu_d d = { .user = 320000000, .softirq = 1080000000,
			   .kernel = 4960000133 };

	o.unify_units = true;
	l = mk(4000000000u, NS, d);
	r = mk(4000000000u, NS, d);
	set_us(&l.s, 40065ULL * 65536, 40065);
	set_us(&r.r, 40064ULL * 65536, 40064);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw                =  2625634304 bytes/sec\n"
		  "    msg_rate          =       40064 /sec\n"
		  "    msg_size          =       65536 bytes\n"
		  "    time              =  1000000000 ns\n"
		  "    timeout           =  5000000000 ns\n"
		  "    send_cost         =   605552855 ns/GB\n"
		  "    recv_cost         =   605567969 ns/GB\n"
		  "    send_cpus_used    =         159 % cpus\n"
		  "    send_cpus_user    =           8 % cpus\n"
		  "    send_cpus_intr    =          27 % cpus\n"
		  "    send_cpus_kernel  =         124 % cpus\n"
		  "    send_real_time    =  1000000000 ns\n"
		  "    send_cpu_time     =  1590000033 ns\n"
		  "    send_bytes        =  2625699840 bytes\n"
		  "    send_msgs         =       40065 \n"
		  "    recv_cpus_used    =         159 % cpus\n"
		  "    recv_cpus_user    =           8 % cpus\n"
		  "    recv_cpus_intr    =          27 % cpus\n"
		  "    recv_cpus_kernel  =         124 % cpus\n"
		  "    recv_real_time    =  1000000000 ns\n"
		  "    recv_cpu_time     =  1590000033 ns\n"
		  "    recv_bytes        =  2625634304 bytes\n"
		  "    recv_msgs         =       40064 \n");
}

TEST(capture_tcp_bw_m0_vv)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = O_VV;

	set_msg_size(&p, 0);
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 196, .kernel = 5 }, 0,
		     287000000, 0, 209000000);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw               =     0 bytes/sec\n"
		  "    msg_rate         =   209 M/sec\n"
		  "    time             =     1 sec\n"
		  "    timeout          =     5 sec\n"
		  "    loc_cpus_used    =   201 % cpus\n"
		  "    loc_cpus_user    =   196 % cpus\n"
		  "    loc_cpus_kernel  =     5 % cpus\n"
		  "    loc_real_time    =     1 sec\n"
		  "    loc_cpu_time     =  2.01 sec\n"
		  "    loc_send_msgs    =   287 million\n"
		  "    rem_cpus_used    =   201 % cpus\n"
		  "    rem_cpus_user    =   196 % cpus\n"
		  "    rem_cpus_kernel  =     5 % cpus\n"
		  "    rem_real_time    =     1 sec\n"
		  "    rem_cpu_time     =  2.01 sec\n"
		  "    rem_recv_msgs    =   209 million\n");
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

TEST(capture_tcp_lat_v)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = O_V;

	tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 6, .kernel = 70 }, 1,
		      42300, 42300, 42300, 42300);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency        =  11.8 us\n"
		  "    msg_rate       =  84.6 K/sec\n"
		  "    time           =     1 sec\n"
		  "    loc_cpus_used  =    76 % cpus\n"
		  "    rem_cpus_used  =    76 % cpus\n");
}

TEST(capture_tcp_lat_vv)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = O_VV;

	tcp_lat_nodes(&l, &r,
		      (struct cpu_d){ .user = 3, .nice = 1, .irq = 2,
				      .softirq = 21, .kernel = 50, .steal = 3 },
		      1, 44127, 44126, 44126, 44126);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency          =    11.3 us\n"
		  "    msg_rate         =    88.3 K/sec\n"
		  "    msg_size         =       1 bytes\n"
		  "    time             =       1 sec\n"
		  "    timeout          =       5 sec\n"
		  "    loc_cpus_used    =      80 % cpus\n"
		  "    loc_cpus_user    =       4 % cpus\n"
		  "    loc_cpus_intr    =      23 % cpus\n"
		  "    loc_cpus_kernel  =      53 % cpus\n"
		  "    loc_real_time    =       1 sec\n"
		  "    loc_cpu_time     =     800 ms\n"
		  "    loc_send_bytes   =    44.1 KB\n"
		  "    loc_recv_bytes   =    44.1 KB\n"
		  "    loc_send_msgs    =  44,127 \n"
		  "    loc_recv_msgs    =  44,126 \n"
		  "    rem_cpus_used    =      80 % cpus\n"
		  "    rem_cpus_user    =       4 % cpus\n"
		  "    rem_cpus_intr    =      23 % cpus\n"
		  "    rem_cpus_kernel  =      53 % cpus\n"
		  "    rem_real_time    =       1 sec\n"
		  "    rem_cpu_time     =     800 ms\n"
		  "    rem_send_bytes   =    44.1 KB\n"
		  "    rem_recv_bytes   =    44.1 KB\n"
		  "    rem_send_msgs    =  44,126 \n"
		  "    rem_recv_msgs    =  44,126 \n");
}

TEST(capture_tcp_lat_loop_vu)
{
	static const struct {
		uint64_t size, msgs;
		const char *out;
	} it[] = {
		{ 1, 85470,
		  "    latency   =  11.7 us\n"
		  "    msg_size  =     1 bytes\n"
		  "    time      =     1 sec\n" },
		{ 64, 65360,
		  "    latency   =  15.3 us\n"
		  "    msg_size  =    64 bytes\n"
		  "    time      =     1 sec\n" },
		{ 1024, 70922,
		  "    latency   =  14.1 us\n"
		  "    msg_size  =     1 KiB (1,024)\n"
		  "    time      =     1 sec\n" },
		{ 16384, 81300,
		  "    latency   =  12.3 us\n"
		  "    msg_size  =    16 KiB (16,384)\n"
		  "    time      =     1 sec\n" },
		{ 65536, 36364,
		  "    latency   =  27.5 us\n"
		  "    msg_size  =    64 KiB (65,536)\n"
		  "    time      =     1 sec\n" },
	};
	struct out_opts o = mko(0, 0, 1);

	for (size_t i = 0; i < sizeof(it) / sizeof(it[0]); i++) {
		struct node_stat l, r;
		struct par_set p = mkp(test_find("tcp_lat"), true);

		set_msg_size(&p, it[i].size);
		tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 50 }, it[i].size,
			      it[i].msgs / 2, it[i].msgs / 2,
			      it[i].msgs - it[i].msgs / 2,
			      it[i].msgs - it[i].msgs / 2);
		CHECK_OUT(render("tcp_lat", &l, &r, &p, &o), it[i].out);
	}
}

TEST(capture_tcp_lat_m1536k_vv)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = O_VV;

	set_msg_size(&p, 1536 * 1024);
	tcp_lat_nodes(&l, &r,
		      (struct cpu_d){ .user = 14, .softirq = 20, .kernel = 130,
				      .iowait = 5, .idle = 31 },
		      1536 * 1024, 976, 975, 975, 975);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency          =   513 us\n"
		  "    msg_rate         =  1.95 K/sec\n"
		  "    msg_size         =  1.57 MB\n"
		  "    time             =     1 sec\n"
		  "    timeout          =     5 sec\n"
		  "    loc_cpus_used    =   169 % cpus\n"
		  "    loc_cpus_user    =    14 % cpus\n"
		  "    loc_cpus_intr    =    20 % cpus\n"
		  "    loc_cpus_kernel  =   130 % cpus\n"
		  "    loc_cpus_iowait  =     5 % cpus\n"
		  "    loc_real_time    =     1 sec\n"
		  "    loc_cpu_time     =  1.69 sec\n"
		  "    loc_send_bytes   =  1.54 GB\n"
		  "    loc_recv_bytes   =  1.53 GB\n"
		  "    loc_send_msgs    =   976 \n"
		  "    loc_recv_msgs    =   975 \n"
		  "    rem_cpus_used    =   169 % cpus\n"
		  "    rem_cpus_user    =    14 % cpus\n"
		  "    rem_cpus_intr    =    20 % cpus\n"
		  "    rem_cpus_kernel  =   130 % cpus\n"
		  "    rem_cpus_iowait  =     5 % cpus\n"
		  "    rem_real_time    =     1 sec\n"
		  "    rem_cpu_time     =  1.69 sec\n"
		  "    rem_send_bytes   =  1.53 GB\n"
		  "    rem_recv_bytes   =  1.53 GB\n"
		  "    rem_send_msgs    =   975 \n"
		  "    rem_recv_msgs    =   975 \n");
}

TEST(capture_tcp_lat_m3k_vvu)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = mko(0, 0, 2);

	set_msg_size(&p, 3072);
	tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 50 }, 3072, 37879,
		      37879, 37879, 37879);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency   =  13.2 us\n"
		  "    msg_size  =     3 KiB (3,072)\n"
		  "    time      =     1 sec\n"
		  "    timeout   =     5 sec\n");
}

TEST(capture_tcp_lat_uu_e)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = O_V;

	o.unify_units = true;
	tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 134 }, 1, 53445, 53445,
		      53445, 53445);
	r.time_e[CPU_USER]--; /* 133 % on the server */
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency        =        9355 ns\n"
		  "    msg_rate       =      106890 /sec\n"
		  "    time           =  1000000000 ns\n"
		  "    loc_cpus_used  =         134 % cpus\n"
		  "    rem_cpus_used  =         133 % cpus\n");

	o = O_V;
	o.precision = 0;
	tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 84 }, 1, 60500, 60500,
		      60500, 60500);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency        =    8 us\n"
		  "    msg_rate       =  121 K/sec\n"
		  "    time           =    1 sec\n"
		  "    loc_cpus_used  =   84 % cpus\n"
		  "    rem_cpus_used  =   84 % cpus\n");

	o.precision = 6;
	tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 88 }, 1, 49843, 49843,
		      49843, 49843);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency        =  10.0315 us\n"
		  "    msg_rate       =   99.686 K/sec\n"
		  "    time           =        1 sec\n"
		  "    loc_cpus_used  =       88 % cpus\n"
		  "    rem_cpus_used  =       88 % cpus\n");
}

TEST(capture_udp_lat_v)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("udp_lat"), true);
	struct out_opts o = O_V;

	tcp_lat_nodes(&l, &r, (struct cpu_d){ .user = 89, .kernel = 100 }, 1,
		      66578, 66578, 66578, 66578);
	CHECK_OUT(render("udp_lat", &l, &r, &p, &o),
		  "    latency        =  7.51 us\n"
		  "    msg_rate       =   133 K/sec\n"
		  "    time           =     1 sec\n"
		  "    loc_cpus_used  =   189 % cpus\n"
		  "    rem_cpus_used  =   189 % cpus\n");
}

TEST(capture_udp_bw_v)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("udp_bw"), true);
	struct out_opts o = O_V;

	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 20, .kernel = 150 },
		     127563ULL * 32768, 127563, 101000ULL * 32768, 101000);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw         =  4.18 GB/sec\n"
		  "    recv_bw         =  3.31 GB/sec\n"
		  "    msg_rate        =   101 K/sec\n"
		  "    time            =     1 sec\n"
		  "    send_cost       =   407 ms/GB\n"
		  "    recv_cost       =   514 ms/GB\n"
		  "    send_cpus_used  =   170 % cpus\n"
		  "    recv_cpus_used  =   170 % cpus\n");
}

TEST(capture_udp_bw_vv)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("udp_bw"), true);
	struct out_opts o = O_VV;

	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 12, .softirq = 14, .kernel = 159 },
		     101660ULL * 32768, 101660, 46673ULL * 32768, 46673);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw           =     3.33 GB/sec\n"
		  "    recv_bw           =     1.53 GB/sec\n"
		  "    msg_rate          =     46.7 K/sec\n"
		  "    msg_size          =       32 KiB (32,768)\n"
		  "    time              =        1 sec\n"
		  "    timeout           =        5 sec\n"
		  "    send_cost         =      555 ms/GB\n"
		  "    recv_cost         =     1.21 sec/GB\n"
		  "    send_cpus_used    =      185 % cpus\n"
		  "    send_cpus_user    =       12 % cpus\n"
		  "    send_cpus_intr    =       14 % cpus\n"
		  "    send_cpus_kernel  =      159 % cpus\n"
		  "    send_real_time    =        1 sec\n"
		  "    send_cpu_time     =     1.85 sec\n"
		  "    send_bytes        =     3.33 GB\n"
		  "    send_msgs         =  101,660 \n"
		  "    recv_cpus_used    =      185 % cpus\n"
		  "    recv_cpus_user    =       12 % cpus\n"
		  "    recv_cpus_intr    =       14 % cpus\n"
		  "    recv_cpus_kernel  =      159 % cpus\n"
		  "    recv_real_time    =        1 sec\n"
		  "    recv_cpu_time     =     1.85 sec\n"
		  "    recv_bytes        =     1.53 GB\n"
		  "    recv_msgs         =   46,673 \n");
}

TEST(capture_udp_bw_un_vv)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("udp_bw"), true);
	struct out_opts o = O_VV;

	o.unify_nodes = true;
	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 108, .softirq = 15, .kernel = 78 },
		     289485ULL * 32768, 289485, 100534ULL * 32768, 100534);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw          =     9.49 GB/sec\n"
		  "    recv_bw          =     3.29 GB/sec\n"
		  "    msg_rate         =      101 K/sec\n"
		  "    msg_size         =       32 KiB (32,768)\n"
		  "    time             =        1 sec\n"
		  "    timeout          =        5 sec\n"
		  "    send_cost        =      212 ms/GB\n"
		  "    recv_cost        =      610 ms/GB\n"
		  "    loc_cpus_used    =      201 % cpus\n"
		  "    loc_cpus_user    =      108 % cpus\n"
		  "    loc_cpus_intr    =       15 % cpus\n"
		  "    loc_cpus_kernel  =       78 % cpus\n"
		  "    loc_real_time    =        1 sec\n"
		  "    loc_cpu_time     =     2.01 sec\n"
		  "    loc_send_bytes   =     9.49 GB\n"
		  "    loc_send_msgs    =  289,485 \n"
		  "    rem_cpus_used    =      201 % cpus\n"
		  "    rem_cpus_user    =      108 % cpus\n"
		  "    rem_cpus_intr    =       15 % cpus\n"
		  "    rem_cpus_kernel  =       78 % cpus\n"
		  "    rem_real_time    =        1 sec\n"
		  "    rem_cpu_time     =     2.01 sec\n"
		  "    rem_recv_bytes   =     3.29 GB\n"
		  "    rem_recv_msgs    =  100,534 \n");
}

TEST(capture_udp_bw_ub)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("udp_bw"), true);
	struct out_opts o = O_V;

	o.bits = true;
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 65, .kernel = 100 },
		     3445000000, 105133, 2869000000, 87800);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw         =  27.6 Gb/sec\n"
		  "    recv_bw         =    23 Gb/sec\n"
		  "    msg_rate        =  87.8 K/sec\n"
		  "    time            =     1 sec\n"
		  "    send_cost       =   479 ms/GB\n"
		  "    recv_cost       =   575 ms/GB\n"
		  "    send_cpus_used  =   165 % cpus\n"
		  "    recv_cpus_used  =   165 % cpus\n");

	/* -ub -uu: the server's 1.98 s carries 0.4.11's float error. */
	o.unify_units = true;
	l = mk(100, NS, (struct cpu_d){ .user = 100, .kernel = 100 });
	r = mk(1000000000u, NS, (struct cpu_d){ .kernel = 1980000019 });
	set_us(&l.s, 237495ULL * 32768, 237495);
	set_us(&r.r, 86122ULL * 32768, 86122);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw         =  62257889280 bits/sec\n"
		  "    recv_bw         =  22576365568 bits/sec\n"
		  "    msg_rate        =        86122 /sec\n"
		  "    time            =   1000000000 ns\n"
		  "    send_cost       =    256995542 ns/GB\n"
		  "    recv_cost       =    701618695 ns/GB\n"
		  "    send_cpus_used  =          200 % cpus\n"
		  "    recv_cpus_used  =          198 % cpus\n");
}

TEST(capture_debug)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = O_NONE;
	struct cpu_d d = { .user = 3, .kernel = 50, .idle = 93, .softirq = 32 };

	o.debug = true;
	l = mk(100, NS, d);
	r = mk(100, NS, d);
	set_us(&l.s, 53033, 53033);
	set_us(&l.r, 53032, 53032);
	set_us(&r.s, 53032, 53032);
	set_us(&r.r, 53032, 53032);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency          =    9.43 us\n"
		  "    l_no_cpus        =       2 \n"
		  "    l_no_ticks       =     100 \n"
		  "    l_timer_real     =       1 sec\n"
		  "    l_timer_user     =      30 ms\n"
		  "    l_timer_system   =     500 ms\n"
		  "    l_timer_idle     =     930 ms\n"
		  "    l_timer_softirq  =     320 ms\n"
		  "    l_s_no_bytes     =      53 KB\n"
		  "    l_s_no_msgs      =  53,033 \n"
		  "    l_r_no_bytes     =      53 KB\n"
		  "    l_r_no_msgs      =  53,032 \n"
		  "    r_no_cpus        =       2 \n"
		  "    r_no_ticks       =     100 \n"
		  "    r_timer_real     =       1 sec\n"
		  "    r_timer_user     =      30 ms\n"
		  "    r_timer_system   =     500 ms\n"
		  "    r_timer_idle     =     930 ms\n"
		  "    r_timer_softirq  =     320 ms\n"
		  "    r_s_no_bytes     =      53 KB\n"
		  "    r_s_no_msgs      =  53,032 \n"
		  "    r_r_no_bytes     =      53 KB\n"
		  "    r_r_no_msgs      =  53,032 \n");
}

/* Captured here from Debian's qperf 0.4.11: -t 1 -vv -D udp_bw. */
TEST(live_udp_bw_vv_debug)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("udp_bw"), true);
	struct out_opts o = O_VV;

	o.debug = true;
	tcp_bw_nodes(&l, &r,
		     (struct cpu_d){ .user = 62, .kernel = 112, .softirq = 25,
				     .steal = 1 },
		     39861ULL * 32768, 39861, 19803ULL * 32768, 19803);
	CHECK_OUT(render("udp_bw", &l, &r, &p, &o),
		  "    send_bw           =    1.31 GB/sec\n"
		  "    recv_bw           =     649 MB/sec\n"
		  "    msg_rate          =    19.8 K/sec\n"
		  "    msg_size          =      32 KiB (32,768)\n"
		  "    time              =       1 sec\n"
		  "    timeout           =       5 sec\n"
		  "    send_cost         =    1.53 sec/GB\n"
		  "    recv_cost         =    3.08 sec/GB\n"
		  "    send_cpus_used    =     200 % cpus\n"
		  "    send_cpus_user    =      62 % cpus\n"
		  "    send_cpus_intr    =      25 % cpus\n"
		  "    send_cpus_kernel  =     113 % cpus\n"
		  "    send_real_time    =       1 sec\n"
		  "    send_cpu_time     =       2 sec\n"
		  "    send_bytes        =    1.31 GB\n"
		  "    send_msgs         =  39,861 \n"
		  "    recv_cpus_used    =     200 % cpus\n"
		  "    recv_cpus_user    =      62 % cpus\n"
		  "    recv_cpus_intr    =      25 % cpus\n"
		  "    recv_cpus_kernel  =     113 % cpus\n"
		  "    recv_real_time    =       1 sec\n"
		  "    recv_cpu_time     =       2 sec\n"
		  "    recv_bytes        =     649 MB\n"
		  "    recv_msgs         =  19,803 \n"
		  "    l_no_cpus         =       2 \n"
		  "    l_no_ticks        =     100 \n"
		  "    l_timer_real      =       1 sec\n"
		  "    l_timer_user      =     620 ms\n"
		  "    l_timer_system    =    1.12 sec\n"
		  "    l_timer_softirq   =     250 ms\n"
		  "    l_timer_steal     =      10 ms\n"
		  "    l_s_no_bytes      =    1.31 GB\n"
		  "    l_s_no_msgs       =  39,861 \n"
		  "    r_no_cpus         =       2 \n"
		  "    r_no_ticks        =     100 \n"
		  "    r_timer_real      =       1 sec\n"
		  "    r_timer_user      =     620 ms\n"
		  "    r_timer_system    =    1.12 sec\n"
		  "    r_timer_softirq   =     250 ms\n"
		  "    r_timer_steal     =      10 ms\n"
		  "    r_r_no_bytes      =     649 MB\n"
		  "    r_r_no_msgs       =  19,803 \n");
}

/*
 * Captured here from Debian's qperf 0.4.11:
 * -t 1 -vu -m 1536K -to 7 -ca 1 -sb 64K -rsb 128K tcp_bw.
 */
TEST(live_tcp_bw_vu_params)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_bw"), true);
	struct out_opts o = mko(0, 0, 1);

	set_msg_size(&p, 1536 * 1024);
	for (int s = 0; s < 2; s++) {
		p.val[s][PAR_TIMEOUT] = 7 * NS;
		p.set[s][PAR_TIMEOUT] = true;
		p.val[s][PAR_AFFINITY] = 1;
		p.set[s][PAR_AFFINITY] = true;
		p.set[s][PAR_SOCK_BUF_SIZE] = true;
	}
	p.val[0][PAR_SOCK_BUF_SIZE] = 65536;
	p.val[1][PAR_SOCK_BUF_SIZE] = 131072;
	tcp_bw_nodes(&l, &r, (struct cpu_d){ .user = 100 }, 675000000, 429,
		     675000000, 429);
	CHECK_OUT(render("tcp_bw", &l, &r, &p, &o),
		  "    bw                 =   675 MB/sec\n"
		  "    affinity           =     1 \n"
		  "    msg_size           =  1.57 MB\n"
		  "    loc_sock_buf_size  =    64 KiB (65,536)\n"
		  "    rem_sock_buf_size  =   128 KiB (131,072)\n"
		  "    time               =     1 sec\n"
		  "    timeout            =     7 sec\n");
}

/* The debug block shows the merged counters and every field. */
TEST(debug_all_fields)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = O_NONE;
	struct cpu_d d = { 1, 2, 3, 4, 5, 6, 7, 8 };

	o.debug = true;
	l = mk(100, NS / 2, d);
	r = mk(0, NS, d);
	l.max_cqes = 3;
	set_us(&l.s, 10, 1);
	l.s.errs = 1;
	set_us(&l.rem_s, 2048, 2);
	set_us(&l.rem_r, 3, 3);
	l.rem_r.errs = 4;
	set_us(&r.r, 5, 5);
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency           =  62.5 ms\n"
		  "    l_no_cpus         =     2 \n"
		  "    l_no_ticks        =   100 \n"
		  "    l_max_cqes        =     3 \n"
		  "    l_timer_real      =   500 ms\n"
		  "    l_timer_user      =    10 ms\n"
		  "    l_timer_nice      =    20 ms\n"
		  "    l_timer_system    =    30 ms\n"
		  "    l_timer_idle      =    40 ms\n"
		  "    l_timer_iowait    =    50 ms\n"
		  "    l_timer_irq       =    60 ms\n"
		  "    l_timer_softirq   =    70 ms\n"
		  "    l_timer_steal     =    80 ms\n"
		  "    l_s_no_bytes      =    10 bytes\n"
		  "    l_s_no_msgs       =     1 \n"
		  "    l_s_no_errs       =     1 \n"
		  "    l_rem_s_no_bytes  =     2 KiB (2,048)\n"
		  "    l_rem_s_no_msgs   =     2 \n"
		  "    l_rem_r_no_bytes  =     3 bytes\n"
		  "    l_rem_r_no_msgs   =     3 \n"
		  "    l_rem_r_no_errs   =     4 \n"
		  "    r_no_cpus         =     2 \n"
		  "    r_s_no_bytes      =     2 KiB (2,048)\n"
		  "    r_s_no_msgs       =     2 \n"
		  "    r_r_no_bytes      =     8 bytes\n"
		  "    r_r_no_msgs       =     8 \n"
		  "    r_r_no_errs       =     4 \n");
}

/* ------------------------------------------------------------------ */
/* Scaling and the parameter list                                      */
/* ------------------------------------------------------------------ */

TEST(scale_counts_sizes_times)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = mko(2, 0, 0);

	/* 999,999 stays a plain count; 1,540,000 becomes 1.54 million. */
	tcp_lat_nodes(&l, &r, (struct cpu_d){ 0 }, 1, 999999, 1540000, 1000,
		      0);
	l.s.bytes = 1000;
	l.r.bytes = 999;
	r.s.bytes = 1ULL << 40;
	r.r.bytes = 5ULL << 50;
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency         =      649 ns\n"
		  "    msg_rate        =     1.54 M/sec\n"
		  "    loc_send_bytes  =        1 KB\n"
		  "    loc_recv_bytes  =      999 bytes\n"
		  "    loc_send_msgs   =  999,999 \n"
		  "    loc_recv_msgs   =     1.54 million\n"
		  "    rem_send_bytes  =        1 TiB (1,099,511,627,776)\n"
		  "    rem_recv_bytes  =    5,120 TiB (5,629,499,534,213,120)\n"
		  "    rem_send_msgs   =    1,000 \n");
}

TEST(scale_time_before_rounding)
{
	struct results res;
	struct out_opts o = O_NONE;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&res, 0, sizeof(res));
	res.latency = 999.7e-9;
	f = open_memstream(&buf, &len);
	report_test(f, test_find("tcp_lat"), &res, NULL, &o);
	res.latency = 3600;
	report_test(f, test_find("tcp_lat"), &res, NULL, &o);
	res.latency = 0;
	report_test(f, test_find("tcp_lat"), &res, NULL, &o);
	/* msg_rate test: T/sec is the largest unit */
	res.msg_rate = 12345e12;
	report_test(f, test_find("rc_compare_swap_mr"), &res, NULL, &o);
	res.recv_bw = 2e15;
	report_test(f, test_find("tcp_bw"), &res, NULL, &o);
	o.bits = true;
	report_test(f, test_find("tcp_bw"), &res, NULL, &o);
	/* conf and quit have no result table */
	report_test(f, test_find("quit"), &res, NULL, &o);
	report_test(f, NULL, &res, NULL, &o);
	fclose(f);
	CHECK_STR(buf, "    latency  =  1,000 ns\n"
		       "    latency  =  3,600 sec\n"
		       "    latency  =  0 ns\n"
		       "    msg_rate  =  12,345 T/sec\n"
		       "    bw  =  2,000 TB/sec\n"
		       "    bw  =  16,000 Tb/sec\n");
	free(buf);
}

TEST(params_vu_levels)
{
	const struct test_desc *t = test_find("rc_bw");
	struct node_stat l, r;
	struct par_set p;
	struct out_opts o = mko(0, 0, 1);

	tcp_bw_nodes(&l, &r, (struct cpu_d){ 0 }, 1000, 1, 1000, 1);
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < PAR_COUNT; i++)
		p.used[i] = true;
	for (int s = 0; s < 2; s++) {
		p.val[s][PAR_ACCESS_RECV] = 1;
		p.val[s][PAR_MSG_SIZE] = 65536;
		p.val[s][PAR_MTU_SIZE] = 2048;
		p.val[s][PAR_TIME] = 2 * NS;
		p.val[s][PAR_STATIC_RATE] = 7;
		snprintf(p.str[s][1], PAR_STR_MAX, "10");
	}
	/* Set by the user: affinity (both), sock_buf_size, timeout, id. */
	p.val[0][PAR_AFFINITY] = p.val[1][PAR_AFFINITY] = 1;
	p.set[0][PAR_AFFINITY] = p.set[1][PAR_AFFINITY] = true;
	p.val[0][PAR_SOCK_BUF_SIZE] = 65536;
	p.val[1][PAR_SOCK_BUF_SIZE] = 131072;
	p.set[0][PAR_SOCK_BUF_SIZE] = p.set[1][PAR_SOCK_BUF_SIZE] = true;
	p.val[0][PAR_TIMEOUT] = 5 * NS;
	p.val[1][PAR_TIMEOUT] = 7 * NS;
	p.set[1][PAR_TIMEOUT] = true;
	snprintf(p.str[0][0], PAR_STR_MAX, "mlx5_0:1");
	snprintf(p.str[1][0], PAR_STR_MAX, "mlx5_0:1");
	p.set[0][PAR_ID] = true;
	p.set[0][PAR_STATIC_RATE] = true;
	p.val[0][PAR_SRC_PATH_BITS] = p.val[1][PAR_SRC_PATH_BITS] = 3;
	p.set[0][PAR_SRC_PATH_BITS] = true;
	p.set[0][PAR_FLIP] = true; /* set but 0: hidden */

	CHECK_OUT(render(t->name, &l, &r, &p, &o),
		  "    bw                 =    1 KB/sec\n"
		  "    affinity           =    1 \n"
		  "    id                 =  mlx5_0:1\n"
		  "    loc_sock_buf_size  =   64 KiB (65,536)\n"
		  "    rem_sock_buf_size  =  128 KiB (131,072)\n"
		  "    src_path_bits      =    3 bytes\n"
		  "    loc_timeout        =    5 sec\n"
		  "    rem_timeout        =    7 sec\n");

	/* Level 2: every in-use parameter with a value, in table order. */
	o.v_used = 2;
	p.used[PAR_ID] = false;
	snprintf(p.str[1][0], PAR_STR_MAX, "other");
	CHECK_OUT(render(t->name, &l, &r, &p, &o),
		  "    bw                 =    1 KB/sec\n"
		  "    access_recv        =    1 \n"
		  "    affinity           =    1 \n"
		  "    msg_size           =   64 KiB (65,536)\n"
		  "    mtu_size           =    2 KiB (2,048)\n"
		  "    loc_sock_buf_size  =   64 KiB (65,536)\n"
		  "    rem_sock_buf_size  =  128 KiB (131,072)\n"
		  "    src_path_bits      =    3 bytes\n"
		  "    time               =    2 sec\n"
		  "    loc_timeout        =    5 sec\n"
		  "    rem_timeout        =    7 sec\n");
}

TEST(params_strings_and_unused)
{
	struct node_stat l, r;
	struct par_set p = mkp(test_find("tcp_lat"), true);
	struct out_opts o = mko(0, 0, 2);

	tcp_lat_nodes(&l, &r, (struct cpu_d){ 0 }, 1, 5, 5, 5, 5);
	/* Not in use: never listed, even when set. */
	p.val[0][PAR_SL] = p.val[1][PAR_SL] = 3;
	p.set[0][PAR_SL] = true;
	p.used[PAR_ID] = true;
	snprintf(p.str[0][0], PAR_STR_MAX, "a\033[2Jb");
	snprintf(p.str[1][0], PAR_STR_MAX, "rem");
	p.val[0][PAR_TIME] = NS / 2;
	p.val[1][PAR_TIME] = 90 * NS;
	CHECK_OUT(render("tcp_lat", &l, &r, &p, &o),
		  "    latency   =  100 ms\n"
		  "    loc_id    =  a?[2Jb\n"
		  "    rem_id    =  rem\n"
		  "    msg_size  =    1 bytes\n"
		  "    loc_time  =  500 ms\n"
		  "    rem_time  =   90 sec\n"
		  "    timeout   =    5 sec\n");
}

/* ------------------------------------------------------------------ */
/* conf                                                                */
/* ------------------------------------------------------------------ */

TEST(capture_conf)
{
	struct conf_info c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&c, 0, sizeof(c));
	strcpy(c.node, "vm");
	strcpy(c.cpu, "2 Cores: Intel Xeon Processor 2.1GHz");
	strcpy(c.os, "Linux 6.18.44-fc-v657");
	strcpy(c.qperf, "0.4.11");
	f = open_memstream(&buf, &len);
	report_conf(f, &c, &c);
	fclose(f);
	CHECK_STR(buf, "    loc_node   =  vm\n"
		       "    loc_cpu    =  2 Cores: Intel Xeon Processor 2.1GHz\n"
		       "    loc_os     =  Linux 6.18.44-fc-v657\n"
		       "    loc_qperf  =  0.4.11\n"
		       "    rem_node   =  vm\n"
		       "    rem_cpu    =  2 Cores: Intel Xeon Processor 2.1GHz\n"
		       "    rem_os     =  Linux 6.18.44-fc-v657\n"
		       "    rem_qperf  =  0.4.11\n");
	free(buf);
}

TEST(conf_unterminated_and_empty)
{
	struct conf_info c, e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&c, 'x', sizeof(c)); /* no NUL anywhere: 64 chars each */
	memset(&e, 0, sizeof(e));
	f = open_memstream(&buf, &len);
	report_conf(f, &c, &e);
	fclose(f);
	CHECK(buf && strlen(buf) == 4 * (4 + 9 + 5 + 64 + 1) +
					    4 * (4 + 9 + 5 + 1));
	CHECK(buf && strstr(buf, "    rem_os     =  \n") != NULL);
	free(buf);
}

int main(void)
{
	RUN(fmt_precision);
	RUN(fmt_commas);
	RUN(fmt_bounds);
	RUN(calc_node_figures);
	RUN(calc_double_not_float);
	RUN(calc_zero_guards);
	RUN(calc_latency_with_one_time_zero);
	RUN(calc_rates);
	RUN(calc_merge_rem);
	RUN(calc_worked_check);
	RUN(capture_default_headlines);
	RUN(capture_tcp_bw_v);
	RUN(capture_tcp_bw_vv);
	RUN(capture_tcp_bw_units);
	RUN(capture_tcp_bw_un_v);
	RUN(capture_tcp_bw_vs_vt_vvs);
	RUN(capture_tcp_bw_vv_uu_double);
	RUN(capture_tcp_bw_vv_uu_exact);
	RUN(capture_tcp_bw_m0_vv);
	RUN(capture_tcp_lat_v);
	RUN(capture_tcp_lat_vv);
	RUN(capture_tcp_lat_loop_vu);
	RUN(capture_tcp_lat_m1536k_vv);
	RUN(capture_tcp_lat_m3k_vvu);
	RUN(capture_tcp_lat_uu_e);
	RUN(capture_udp_lat_v);
	RUN(capture_udp_bw_v);
	RUN(capture_udp_bw_vv);
	RUN(capture_udp_bw_un_vv);
	RUN(capture_udp_bw_ub);
	RUN(capture_debug);
	RUN(live_udp_bw_vv_debug);
	RUN(live_tcp_bw_vu_params);
	RUN(debug_all_fields);
	RUN(scale_counts_sizes_times);
	RUN(scale_time_before_rounding);
	RUN(params_vu_levels);
	RUN(params_strings_and_unused);
	RUN(capture_conf);
	RUN(conf_unterminated_and_empty);
	return harness_done();
}
