// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of output/report.c: the whole printed table against the
 * tcp_bw and tcp_lat outputs captured from qperf 0.4.11 (spec §5.11),
 * byte for byte.  Each capture is rebuilt from STAT values that give its
 * figures.  The other captures are in test_report_udp.c.
 */
#include "report_util.h"

/* ------------------------------------------------------------------ */
/* Captured outputs (spec §5.11)                                       */
/* ------------------------------------------------------------------ */

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

int main(void)
{
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
	return harness_done();
}
