/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results: the arithmetic of 0.4.11's calc_results (spec §3.4, §6) and the
 * text report in 0.4.11's exact layout (spec §5).  Pure functions of their
 * inputs, writing to a FILE*.
 */
#ifndef QPERF_REPORT_H
#define QPERF_REPORT_H

#include <stdio.h>

#include "lib/types.h"

struct test_desc;

/*
 * Merge the rem_s/rem_r counters and compute every figure.  l is the
 * client's STAT, r the server's.  Never divides by zero.
 */
void calc_results(const struct node_stat *l, const struct node_stat *r,
		  struct results *res);

struct hist;

/*
 * The figures beyond 0.4.11 (after calc_results): res->lat and res->rtt
 * from the round trips timed on this end (loc) and, for a 0.5 server, on
 * the server (rem), merged; either may be NULL or empty.  The latency is
 * half the round trip for ping-pong tests and the whole operation for
 * one-sided ones (RDMA read), as 0.4.11's mean is.  Also res->lp/rp (the
 * process CPU of each end, from res->l/r) and the CPU cost per message
 * on 0.4.11's basis (system CPU of the node, one-way traffic only).
 */
void calc_extra(struct results *res, const struct test_desc *t,
		const struct hist *loc, const struct hist *rem);

/* --rate: what falls short by more than this is warned of (5 %). */
#define PACE_MARGIN 0.05

/*
 * --rate (after calc_results): res->pace from the offered rate (bytes/s,
 * or msgs/s with msgs; 0: not paced, pace.valid false), whether the
 * kernel paced, and this end's spread (own, NULL: none).  The achieved
 * rate is per direction: the receive figure of a reliable transport, the
 * send figure of a lossy one.
 */
struct pace;
void calc_pace(struct results *res, const struct test_desc *t, bool msgs,
	       uint64_t offered, bool kernel, const struct pace *own);

/*
 * An open-loop latency test (ol->arrivals non-zero; after calc_pace()):
 * res->ol, the latency as the mean of the timed requests, the achieved
 * rate as what the client sent in its window.  ol->arrivals 0: only
 * res->ol is set (closed loop: nothing changes).
 */
struct ol_stat;
void calc_openloop(struct results *res, const struct ol_stat *ol,
		   uint32_t msg_size);

/*
 * The one warning of a paced test that fell short by more than
 * PACE_MARGIN, into buf ("tcp_bw: the rate of 10 Gb/s could not be held:
 * 3.1 Gb/s achieved, 69.0% short").  Returns 1 when there is one, else 0.
 */
int pace_shortfall_text(const struct pace_res *p, const char *test,
			char *buf, size_t len);

/*
 * Print the table of one finished test (headline, parameters, costs,
 * per-node block, -D block), without the "<name>:" header line.  The
 * parameter lines (-vu, -vvu) loop over p's table (p->rows, in 0.4.11's
 * show_used order); p NULL: none.
 */
void report_test(FILE *f, const struct test_desc *t,
		 const struct results *res, const struct par_set *p,
		 const struct out_opts *o);

/* A string a transport asks to show with -v (e.g. the GID of each end). */
struct report_note {
	const char *name; /* e.g. "loc_gid" */
	const char *value;
	bool extra; /* -vx class (until -vx exists: with -v too) */
};

/* report_test() plus notes, shown after the parameters with -v/-vu. */
void report_test_notes(FILE *f, const struct test_desc *t,
		       const struct results *res, const struct par_set *p,
		       const struct out_opts *o, const struct report_note *notes,
		       int nnotes);

/*
 * One stream of a --streams test: its figures from the test's STATs l
 * (client) and r (server), whose window and CPU it shares, with the
 * counters of the stream, ls and rs.  Pure.
 */
void calc_stream_results(const struct node_stat *l, const struct node_stat *r,
			 const struct node_stat *ls, const struct node_stat *rs,
			 struct results *res);

/*
 * With -v (stat verbosity 1 or more) and n > 1: a table of each stream's
 * bandwidth (send and receive for a send/receive test) and message rate,
 * res[0..n) from calc_stream_results(), after the test's own table.
 */
void report_streams(FILE *f, const struct test_desc *t,
		    const struct results *res, uint32_t n,
		    const struct out_opts *o);

/*
 * --clients: each client's figure, the aggregate, fairness and the
 * slowest client of test t as a table (output/report_clients.c).
 */
struct out_clients;
void report_clients(FILE *f, const struct test_desc *t,
		    const struct out_opts *o, const struct out_clients *c);

/*
 * --load: the loads' bandwidths and the latency percentiles with and
 * without them, res the latency test's (output/report_load.c).
 */
struct out_load;
void report_load(FILE *f, const struct out_opts *o,
		 const struct results *res, const struct out_load *l);

/* Print the conf test's eight lines. */
void report_conf(FILE *f, const struct conf_info *loc,
		 const struct conf_info *rem);

/* The same with lines of each end after its four (-vx: core/fabric.h). */
void report_conf_more(FILE *f, const struct conf_info *loc,
		      const struct conf_info *rem,
		      const struct report_note *lmore, int nl,
		      const struct report_note *rmore, int nr);

/*
 * Render v with precision significant digits (integer digits never
 * dropped), commas unless !commas (spec §5.4).  Returns strlen of buf.
 */
size_t fmt_number(char *buf, size_t len, double v, int precision,
		  bool commas);

/* Quantities report_unit() scales. */
enum report_qty {
	RQ_BAND, /* bytes/s (bits/s with -ub) */
	RQ_RATE, /* 1/s */
	RQ_TIME, /* ns */
	RQ_SIZE /* bytes */
};

/*
 * Scale *v (in the quantity's base unit) the way the report does: by 1000
 * while a larger unit exists, not at all with -uu; -ub turns bandwidth into
 * bits.  Returns the unit ("MB/sec", "K/sec", "us", "GB").  Pure.
 */
const char *report_unit(const struct out_opts *o, enum report_qty q,
			double *v);

/*
 * One -I text line for r (test t, output options o) into buf, ending in
 * '\n': "    0.00-1.00 sec  loc send  1.17 GB  17,853 msgs  1.17 GB/sec
 * 17.9 K/sec".  A bidirectional side gives two lines.  Returns strlen.
 */
size_t ival_format(char *buf, size_t len, const struct test_desc *t,
		   const struct out_opts *o, const struct ival_rec *r);

/* Sample /proc/stat into t[CPU_USER..CPU_STEAL] (ticks).  0 or -1+err. */
int cpu_sample(uint64_t t[CPU_COUNT], char *err, size_t errlen);

/*
 * Parse the first line of /proc/stat ("cpu  user nice system idle iowait
 * irq softirq steal ...") into t[CPU_USER..CPU_STEAL]; t[CPU_REAL] = 0 and
 * a missing steal field reads as 0.  Pure; 0, or -1 with a message in err
 * and t zeroed.
 */
int cpu_parse_stat(const char *text, uint64_t t[CPU_COUNT], char *err,
		   size_t errlen);

/*
 * CPU time of this process (every thread) so far, user and system, in ns
 * (getrusage RUSAGE_SELF, microsecond resolution).  False if it failed.
 */
bool cpu_proc_sample(uint64_t *user, uint64_t *sys);

/* Online CPUs (at least 1), for STAT's no_cpus.  Does not block. */
uint32_t cpu_count(void);

/* Clock ticks per second of /proc/stat (USER_HZ, normally 100). */
uint32_t cpu_ticks(void);

/* Build the cpu string of CONF from /proc/cpuinfo text (spec §5.9). */
void conf_cpu_string(const char *cpuinfo, char out[64]);

/* Fill node, cpu, os and qperf of this machine. */
void conf_local(struct conf_info *c);

#endif
