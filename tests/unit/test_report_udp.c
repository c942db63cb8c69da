// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of output/report.c: the whole printed table against the
 * udp_lat and udp_bw outputs captured from qperf 0.4.11 (spec §5.11), the
 * debug block (-D) and the outputs captured live, byte for byte.  Each
 * capture is rebuilt from STAT values that give its figures.  The tcp_bw
 * and tcp_lat captures are in test_report_tcp.c.
 */
#include "report_util.h"

/* ------------------------------------------------------------------ */
/* Captured outputs (spec §5.11), continued                          */
/* ------------------------------------------------------------------ */

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

int main(void)
{
	RUN(capture_udp_lat_v);
	RUN(capture_udp_bw_v);
	RUN(capture_udp_bw_vv);
	RUN(capture_udp_bw_un_vv);
	RUN(capture_udp_bw_ub);
	RUN(capture_debug);
	RUN(live_udp_bw_vv_debug);
	RUN(live_tcp_bw_vu_params);
	RUN(debug_all_fields);
	return harness_done();
}
