// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of output/report.c: calc_results arithmetic (spec §3.4, §6),
 * number rendering and unit scaling (§5.4, §5.5), the parameter list and
 * conf.  The whole printed table against every output captured from
 * qperf 0.4.11 (§5.11) is in test_report_tcp.c and test_report_udp.c.
 */
#include "report_util.h"

static char *num(double v, int prec, bool commas)
{
	static char buf[4][128];
	static int k;
	char *b = buf[k++ % 4];

	fmt_number(b, 128, v, prec, commas);
	return b;
}

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
	p.rows = param_table;
	p.nrows = param_count;
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
	RUN(scale_counts_sizes_times);
	RUN(scale_time_before_rounding);
	RUN(params_vu_levels);
	RUN(params_strings_and_unused);
	RUN(capture_conf);
	RUN(conf_unterminated_and_empty);
	return harness_done();
}
