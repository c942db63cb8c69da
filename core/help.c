// SPDX-License-Identifier: GPL-2.0-only
/*
 * --help topics, shaped like 0.4.11's (spec §5.10): main, categories,
 * examples, opts, options, tests, author, bugs, and one per test.
 *
 * "opts" and "options" are generated from opt_table and the per-test
 * pages from test_table (the options a test uses come from its uses
 * mask), so help cannot drift from what the parser accepts.  The hidden
 * topic "optnames" lists every option spelling, one a line, for the
 * docs check (tests/unit/test_docs.sh).
 */
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "transports/transport.h"

#define WRAP 76
#define DESC_INDENT 6

enum group {
	G_MISC,
	G_SOCK,
	G_RDMA_SR,
	G_RDMA,
	G_ATOMIC,
	G_VERIFY,
	G_COUNT
};

static const char *const group_names[G_COUNT] = {
	"Miscellaneous",     "Socket Based",	   "RDMA Send/Receive",
	"RDMA",		     "InfiniBand Atomics", "Verification",
};

/* Words for each test; test_opts_param.c checks that every test has an entry. */
static const struct test_help {
	const char *name;
	enum group group;
	const char *purpose;
	const char *desc;
} test_help[] = {
	{ "conf", G_MISC, "Show configuration",
	  "Shows the node name, CPUs, operating system and qperf version of "
	  "both nodes." },
	{ "quit", G_MISC, "Cause the server to quit",
	  "Tells the server to exit once the test has synchronised." },
	{ "rds_bw", G_SOCK, "RDS streaming one way bandwidth",
	  "The client sends RDS messages to the server as fast as it can; "
	  "the server counts what arrives.  Needs the kernel's rds module; "
	  "without it the test fails with a message saying so." },
	{ "rds_lat", G_SOCK, "RDS one way latency",
	  "The client and server bounce one RDS message back and forth; "
	  "the latency is half the round trip.  Needs the kernel's rds "
	  "module." },
	{ "sctp_bw", G_SOCK, "SCTP streaming one way bandwidth",
	  "The client streams messages over an SCTP association while the "
	  "server counts what arrives.  Needs kernel SCTP support." },
	{ "sctp_lat", G_SOCK, "SCTP one way latency",
	  "A ping-pong of one message over SCTP; the latency is half the "
	  "round trip.  Needs kernel SCTP support." },
	{ "sdp_bw", G_SOCK, "SDP streaming one way bandwidth",
	  "As tcp_bw over the Sockets Direct Protocol (address family 27), "
	  "which few kernels still provide; rs_bw measures its successor, "
	  "rsockets." },
	{ "sdp_lat", G_SOCK, "SDP one way latency",
	  "As tcp_lat over the Sockets Direct Protocol; see rs_lat." },
	{ "tcp_bw", G_SOCK, "TCP streaming one way bandwidth",
	  "The client writes messages of --msg_size bytes to a TCP "
	  "connection as fast as it can for --time; the server reads them "
	  "and counts what arrives.  Between qperf 0.5 ends the sender "
	  "turns Nagle's algorithm off and the receiver wakes once per "
	  "message (SO_RCVLOWAT), which 0.4.11 does not do; -cp1 spins "
	  "instead of sleeping." },
	{ "tcp_lat", G_SOCK, "TCP one way latency",
	  "The client and server bounce a message of --msg_size bytes back "
	  "and forth over a TCP connection with Nagle's algorithm off; the "
	  "latency is half the round trip.  With --rate it runs open loop: "
	  "requests on a schedule, several in flight, each timed from its "
	  "intended send time (--arrivals)." },
	{ "tcp_conn", G_SOCK, "TCP connection setup rate",
	  "Like netperf's TCP_CRR: each transaction connects to the server, "
	  "which accepts and writes a 1-byte greeting at once; sends a "
	  "request of --msg_size bytes (default 1) and reads the answer of "
	  "as many; and closes (shuts its side, reads to the server's EOF, "
	  "closes), for --time or -n transactions.  The report gives "
	  "conn_rate, the mean transaction (txn_latency) and the p50, p90, "
	  "p99 and max of each step (connect: until the greeting, answer, "
	  "close) and of the whole transaction.  Needs a server running "
	  "qperf 0.5 or later.  See docs/conn.md." },
	{ "rc_conn", G_RDMA, "RC connection setup rate through the RDMA CM",
	  "Like rdma-core's cmtime, as a test: each transaction resolves the "
	  "server's address and route, creates an RC QP, connects (the "
	  "server accepts on its RDMA CM listener), sends one message of "
	  "--msg_size bytes (default 1) and reads the server's answer of as "
	  "many, disconnects and destroys the QP and its id, for --time or "
	  "-n transactions.  PD, CQ and memory region are made once, "
	  "outside the transactions.  The report gives conn_rate, "
	  "txn_latency and the p50, p90, p99 and max of each step "
	  "(resolve_addr, resolve_route, create_qp, connect, first_msg, "
	  "disconnect, destroy) and of the transaction.  Needs a server "
	  "running qperf 0.5 or later.  See docs/conn.md." },
	{ "rc_qp_setup", G_RDMA, "RC QP setup rate without the RDMA CM",
	  "Each transaction creates an RC QP on both ends, moves it to INIT, "
	  "exchanges NODE (QPN, PSN, LID, GID) on the control connection, "
	  "moves it to RTR and RTS, and destroys it, for --time or -n "
	  "transactions; PD, CQ and memory region are made once, outside "
	  "them.  The report gives conn_rate, txn_latency and the p50, p90, "
	  "p99 and max of each step (create, init, exchange, rtr, rts, "
	  "destroy) and of the transaction.  Needs a server running qperf "
	  "0.5 or later.  See docs/conn.md." },
	{ "udp_bw", G_SOCK, "UDP streaming one way bandwidth",
	  "The client sends datagrams as fast as it can; the server counts "
	  "those that arrive.  Both the send and the receive rate are "
	  "shown, since datagrams may be lost.  Between qperf 0.5 ends a "
	  "sender of messages up to 4 KiB hands up to 16 datagrams to the "
	  "kernel per call (sendmmsg), which 0.4.11 does not do." },
	{ "udp_lat", G_SOCK, "UDP one way latency",
	  "The client and server bounce one datagram back and forth; the "
	  "latency is half the round trip.  With --rate it runs open loop, "
	  "as tcp_lat." },
	{ "rc_bi_bw", G_RDMA_SR, "RC streaming two way bandwidth",
	  "Both nodes send to each other at once with RC Send/Receive; the "
	  "bandwidth is the sum of both directions." },
	{ "rc_bw", G_RDMA_SR, "RC streaming one way bandwidth",
	  "The client keeps RC sends posted while the server counts the "
	  "receives." },
	{ "rc_compare_swap_mr", G_ATOMIC, "RC compare and swap messaging rate",
	  "The client keeps RC atomic compare-and-swap operations in flight "
	  "against the server's memory and counts how many complete." },
	{ "rc_fetch_add_mr", G_ATOMIC, "RC fetch and add messaging rate",
	  "The client keeps RC atomic fetch-and-add operations in flight "
	  "against the server's memory and counts how many complete." },
	{ "rc_lat", G_RDMA_SR, "RC one way latency",
	  "A ping-pong of RC Send/Receive messages; the latency is half the "
	  "round trip.  With --rate it runs open loop, as tcp_lat, each "
	  "receive in a slot of its own (at most 256 in flight)." },
	{ "rc_rdma_read_bw", G_RDMA, "RC RDMA read streaming one way bandwidth",
	  "The client keeps RDMA reads of the server's memory in flight; the "
	  "server's CPU takes no part." },
	{ "rc_rdma_read_lat", G_RDMA, "RC RDMA read one way latency",
	  "The client does one RDMA read of the server's memory at a time.  "
	  "Unlike the other latency tests the figure is the full round "
	  "trip." },
	{ "rc_rdma_write_bw", G_RDMA, "RC RDMA write streaming one way bandwidth",
	  "The client keeps RDMA writes with immediate data in flight; the "
	  "server counts the completions." },
	{ "rc_rdma_write_lat", G_RDMA, "RC RDMA write one way latency",
	  "A ping-pong of RDMA writes with immediate data over RC.  With "
	  "--rate it runs open loop: each write lands in a slot of the "
	  "peer's buffer that its immediate names." },
	{ "rc_rdma_write_poll_lat", G_RDMA,
	  "RC RDMA write one way polling latency",
	  "A ping-pong of plain RDMA writes: each side spins on its own "
	  "buffer until the first and last bytes change, then writes back.  "
	  "No completion events are used, so --cq_poll does not apply." },
	{ "uc_bi_bw", G_RDMA_SR, "UC streaming two way bandwidth",
	  "As rc_bi_bw over the unreliable connected transport." },
	{ "uc_bw", G_RDMA_SR, "UC streaming one way bandwidth",
	  "As rc_bw over UC; messages may be lost, so send and receive rates "
	  "are both shown." },
	{ "uc_lat", G_RDMA_SR, "UC one way latency",
	  "As rc_lat over the unreliable connected transport." },
	{ "uc_rdma_write_bw", G_RDMA, "UC RDMA write streaming one way bandwidth",
	  "As rc_rdma_write_bw over UC." },
	{ "uc_rdma_write_lat", G_RDMA, "UC RDMA write one way latency",
	  "As rc_rdma_write_lat over UC." },
	{ "uc_rdma_write_poll_lat", G_RDMA,
	  "UC RDMA write one way polling latency",
	  "As rc_rdma_write_poll_lat over UC." },
	{ "ud_bi_bw", G_RDMA_SR, "UD streaming two way bandwidth",
	  "As rc_bi_bw over unreliable datagrams (default message 2048 "
	  "bytes)." },
	{ "ud_bw", G_RDMA_SR, "UD streaming one way bandwidth",
	  "As rc_bw over unreliable datagrams (default message 2048 "
	  "bytes)." },
	{ "ud_lat", G_RDMA_SR, "UD one way latency",
	  "As rc_lat over unreliable datagrams." },
	{ "ver_rc_compare_swap", G_VERIFY, "Verify RC compare and swap",
	  "Runs a known sequence of RC compare-and-swap operations on one "
	  "word of the server's memory and checks every returned value." },
	{ "ver_rc_fetch_add", G_VERIFY, "Verify RC fetch and add",
	  "Adds one to a word of the server's memory with RC fetch-and-add "
	  "and checks every returned value." },
	{ "xrc_bi_bw", G_RDMA_SR, "XRC streaming two way bandwidth",
	  "As rc_bi_bw over the extended reliable connected transport." },
	{ "xrc_bw", G_RDMA_SR, "XRC streaming one way bandwidth",
	  "As rc_bw over XRC." },
	{ "xrc_lat", G_RDMA_SR, "XRC one way latency",
	  "As rc_lat over XRC." },
	{ "rs_bw", G_SOCK, "rsockets streaming one way bandwidth",
	  "As tcp_bw over rsockets, librdmacm's socket API over RDMA "
	  "(SDP's successor).  Needs an RDMA device and a server running "
	  "qperf 0.5 or later." },
	{ "rs_lat", G_SOCK, "rsockets one way latency",
	  "As tcp_lat over rsockets.  Needs an RDMA device and a server "
	  "running qperf 0.5 or later." },
	{ "reg_mr", G_RDMA, "Memory registration cost",
	  "On the client alone (no server is contacted): threads register "
	  "and deregister regions of --msg_size bytes (default 1 MiB) for "
	  "--time or -n rounds each, freshly mapped and cold unless "
	  "--prefault; the report gives the registration and "
	  "deregistration latency percentiles and the rate of registration "
	  "(reg_bw).  --hugepages uses 2 MiB pages, --threads N registers "
	  "from N threads at once, --odp registers with On-Demand Paging "
	  "(explicit, implicit or prefetch) and adds the first-touch cost "
	  "of an RDMA write into cold and warm ranges.  See docs/regmr.md." },
};

#define NHELP (sizeof(test_help) / sizeof(test_help[0]))

static const struct test_help *help_for(const char *name)
{
	for (size_t i = 0; i < NHELP; i++)
		if (strcmp(test_help[i].name, name) == 0)
			return &test_help[i];
	return NULL;
}

/* Print text word-wrapped at WRAP columns, each line indented. */
static void wrap(FILE *f, int indent, const char *text)
{
	int col = 0;

	while (*text) {
		size_t n;

		while (*text == ' ')
			text++;
		n = strcspn(text, " ");
		if (!n)
			break;
		if (col && col + 1 + (int)n > WRAP) {
			fputc('\n', f);
			col = 0;
		}
		if (!col)
			col = fprintf(f, "%*s%.*s", indent, "", (int)n, text);
		else
			col += fprintf(f, " %.*s", (int)n, text);
		text += n;
	}
	if (col)
		fputc('\n', f);
}

/* The first sentence of a help text, without its period. */
int help_summary_len(const char *h)
{
	const char *e = strstr(h, ". ");

	if (!e)
		e = h + strlen(h) - (h[0] && h[strlen(h) - 1] == '.');
	return (int)(e - h);
}

/* "--name Arg (-a)" as help shows it. */
static void opt_label(char *buf, size_t len, const struct opt_desc *o)
{
	snprintf(buf, len, "%s%s%s%s%s%s", o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "", o->abbr ? " (" : "",
		 o->abbr ? o->abbr : "", o->abbr ? ")" : "");
}

/*
 * loc_/rem_ variants, on/off forms and the finer verbosity switches are
 * indented under their option, as 0.4.11 shows them.
 */
static bool opt_is_variant(const struct opt_desc *o)
{
	if (o->act >= OA_VERBOSE_MORE && o->act <= OA_VV_USED)
		return true;
	return o->type == OT_SET1 ||
	       (o->par >= 0 && o->sides != (1u << SIDE_LOC | 1u << SIDE_REM));
}

static void print_opts(FILE *f)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];
		char label[80];
		int n;

		if (o->obsolete_for)
			continue;
		opt_label(label, sizeof(label), o);
		n = fprintf(f, "%s%s", opt_is_variant(o) ? "  " : "", label);
		fprintf(f, "%*s%.*s\n", n < 35 ? 36 - n : 2, "",
			help_summary_len(o->help), o->help);
	}
}

static void print_obsolete(FILE *f)
{
	fprintf(f, "Obsolete spellings (accepted with a warning)\n");
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];

		if (o->obsolete_for)
			fprintf(f, "    %-20s use %s\n", o->name,
				o->obsolete_for);
	}
	/* 0.4.11's meaning of --rate lives on for its rate names. */
	fprintf(f, "    %-20s use %s\n", "--rate Name", "--static_rate");
}

static void print_options(FILE *f)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];
		char label[80];

		if (o->obsolete_for)
			continue;
		opt_label(label, sizeof(label), o);
		fprintf(f, "%s%s\n", opt_is_variant(o) ? "  " : "", label);
		wrap(f, DESC_INDENT, o->help);
	}
	print_obsolete(f);
}

static void print_optnames(FILE *f)
{
	for (size_t i = 0; i < opt_count; i++) {
		fprintf(f, "%s\n", opt_table[i].name);
		if (opt_table[i].abbr)
			fprintf(f, "%s\n", opt_table[i].abbr);
	}
}

/* Why the RDMA tests cannot run in this build, or NULL. */
static const char *rdma_missing(void)
{
	for (size_t i = 0; i < test_count; i++)
		if (test_table[i].kind == TK_DATA && !test_table[i].tp &&
		    test_table[i].missing)
			return test_table[i].missing;
	return NULL;
}

static void print_tests(FILE *f)
{
	const char *why = rdma_missing();

	for (int g = 0; g < G_COUNT; g++) {
		fprintf(f, "%s\n", group_names[g]);
		for (size_t i = 0; i < test_count; i++) {
			const struct test_help *h = help_for(test_table[i].name);

			if (h && (int)h->group == g)
				fprintf(f, "    %-24s%s\n", h->name, h->purpose);
		}
	}
	fprintf(f, "Notes\n");
	wrap(f, 4, "SCTP, SDP and RDS tests need kernel support for their "
		   "address family; where it is missing the test fails with "
		   "a message naming what is missing.");
	if (why) {
		char buf[256];

		snprintf(buf, sizeof(buf), "The RDMA tests cannot run here: %s.",
			 why);
		wrap(f, 4, buf);
	}
}

/* The main option of a parameter: both sides, with a value. */
static const struct opt_desc *par_option(int par)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];

		if (o->par == par && !o->obsolete_for && !opt_is_variant(o))
			return o;
	}
	return NULL;
}

static void print_test(FILE *f, const struct test_desc *t,
		       const struct test_help *h)
{
	bool any = false, bw = t->measure == MEAS_BANDWIDTH ||
			       t->measure == MEAS_BANDWIDTH_SR;
	char other[160];

	fprintf(f, "Purpose\n    %s\nCommon Options\n", h->purpose);
	for (int p = 0; p < PAR_COUNT; p++) {
		const struct opt_desc *o = par_option(p);
		char label[80];

		if (!(t->uses & PAR_BIT(p)) || p == PAR_PORT ||
		    p == PAR_TIMEOUT || !o)
			continue;
		opt_label(label, sizeof(label), o);
		fprintf(f, "    %-28s%.*s\n", label, help_summary_len(o->help),
			o->help);
		any = true;
	}
	if (!any)
		fprintf(f, "    None\n");
	snprintf(other, sizeof(other), "--listen_port, --wait_server%s%s",
		 t->uses & PAR_BIT(PAR_PORT) ? ", --ip_port" : "",
		 t->uses & PAR_BIT(PAR_TIMEOUT) ? ", --timeout" : "");
	fprintf(f, "Other Options\n");
	wrap(f, 4, other);
	if (t->kind != TK_CONF && t->kind != TK_QUIT) {
		fprintf(f, "Display Options\n");
		wrap(f, 4, bw ? "--precision, --unify_nodes, --unify_units, "
				"--use_bits_per_sec, --verbose"
			      : "--precision, --unify_nodes, --unify_units, "
				"--verbose");
	}
	fprintf(f, "Description\n");
	wrap(f, 4, h->desc);
	if (t->missing) {
		fprintf(f, "Availability\n");
		wrap(f, 4, t->missing);
	}
}

static const char main_text[] =
	"Synopsis\n"
	"    qperf [-lp Port] [-lpf File] [-lto Time] [-D] [server options]\n"
	"    qperf SERVERNODE [OPTIONS] TESTS\n"
	"    qperf --help [Topic]\n"
	"    qperf --compare A.json B.json [--tolerance Percent]\n"
	"\n"
	"Description\n"
	"    qperf measures bandwidth and latency between two nodes, over\n"
	"    sockets (TCP, UDP, SCTP, SDP, RDS) and RDMA verbs.  Started with\n"
	"    no server name, it is a server: it serves clients until a quit\n"
	"    test arrives.  Started with a server name and one or more tests,\n"
	"    it is a client: it runs each test against that server and prints\n"
	"    the results.\n"
	"\n"
	"    It speaks the control protocol of qperf 0.4.11, so it works with\n"
	"    0.4.11 clients and servers.  Unlike 0.4.11:\n"
	"      - time is measured with a monotonic nanosecond clock, and -t\n"
	"        accepts fractions of a second (-t 0.5);\n"
	"      - the whole command line is checked before any test runs; a\n"
	"        malformed or out-of-range value is an error, never wrapped;\n"
	"      - errors and warnings go to stderr, results to stdout;\n"
	"      - a server may listen on port 0 and write the port it got to a\n"
	"        file (--listen_port_file);\n"
	"      - a server has access control and limits (--allow, -lh,\n"
	"        --no_quit, --max_*; see qperf --help options);\n"
	"      - \"set but not used\" warnings are worked out afresh for each\n"
	"        test;\n"
	"      - exit status: 0 success, 1 a test or the run failed, 2 a\n"
	"        usage error, 3 every test ran but a check (--expect,\n"
	"        --baseline) failed.\n"
	"\n"
	"    More help:\n"
	"        qperf --help examples       Examples of use\n"
	"        qperf --help opts           One line per option\n"
	"        qperf --help options        Every option in detail\n"
	"        qperf --help tests          The tests\n"
	"        qperf --help TESTNAME       One test in detail\n"
	"        qperf --help categories     Every help topic\n"
	"        qperf --completion bash     Shell completion (or zsh, fish)\n";

static const char examples_text[] =
	"Start a server on the node myserver by running qperf with no\n"
	"arguments; the examples below run on another node.\n"
	"    * TCP bandwidth and latency:\n"
	"        qperf myserver tcp_bw tcp_lat\n"
	"    * UDP bandwidth for half a second, in bits per second:\n"
	"        qperf myserver -t 0.5 -ub udp_bw\n"
	"    * UDP latency, then stop the server:\n"
	"        qperf myserver udp_lat quit\n"
	"    * TCP latency percentiles and each end's process CPU:\n"
	"        qperf myserver -vx tcp_lat\n"
	"    * TCP latency for message sizes 1 to 64 KiB, doubling:\n"
	"        qperf myserver -oo msg_size:1:64K:*2 -vu tcp_lat\n"
	"    * TCP retransmits and the other loss counters of both ends:\n"
	"        qperf myserver -vx tcp_bw\n"
	"    * TCP bandwidth each second of a 10 s test, both ends' figures:\n"
	"        qperf myserver -t 10 -I 1 tcp_bw\n"
	"    * A bandwidth and latency sweep drawn into an SVG file:\n"
	"        qperf myserver --plot sweep.svg -oo msg_size:1:64K:*2 tcp_bw tcp_lat\n"
	"    * Four TCP streams at once, each pinned, with each stream's figures:\n"
	"        qperf myserver -st 4 -ca 1-2 -v tcp_bw\n"
	"    * Different socket buffers on each side, with the details:\n"
	"        qperf myserver -lsb 64K -rsb 128K -v tcp_bw\n"
	"    * A server on a port chosen by the kernel, for scripts:\n"
	"        qperf -lp 0 -lpf /tmp/qperf.port &\n"
	"        qperf -lp $(cat /tmp/qperf.port) localhost conf\n"
	"    * RDMA UD latency and bandwidth (RDMA builds):\n"
	"        qperf myserver ud_lat ud_bw\n"
	"    * RC bandwidth over 1024 QPs, with their spread and setup time:\n"
	"        qperf myserver --qps 1024 -vx rc_bw\n"
	"    * A storm: 256 RC QPs set up at once per transaction, QPs/s:\n"
	"        qperf myserver --qps 256 rc_qp_setup\n"
	"    * TCP bandwidth over 1024 connections on 2 threads, with their spread:\n"
	"        qperf myserver --conns 1024 --threads 2 -vx tcp_bw\n"
	"    * A sweep as one JSON document, or as JSON lines as they come:\n"
	"        qperf myserver --json -oo msg_size:1K:64K:*4 tcp_bw\n"
	"        qperf myserver --json_stream tcp_bw tcp_lat\n"
	"    * Verdicts: exit status 3 when TCP falls short of 9 Gb/s or 20 us:\n"
	"        qperf myserver --expect bw>=9Gb tcp_bw\n"
	"        qperf myserver --expect latency<=20us --expect latency_p99<=50us \\\n"
	"            tcp_lat\n"
	"    * Against last week's run, and two runs side by side:\n"
	"        qperf myserver --json tcp_bw tcp_lat >new.json\n"
	"        qperf myserver --baseline old.json --tolerance 10 tcp_bw tcp_lat\n"
	"        qperf --compare old.json new.json\n"
	"    * Both ends' RDMA devices and ports (and GIDs, NUMA nodes):\n"
	"        qperf myserver -vx conf\n"
	"    * A cluster's pairs as JSON and as an SVG heat map (rank 0):\n"
	"        mpirun -n 16 qperf --cluster all --rendezvous node01 \\\n"
	"            --json --plot fabric.svg tcp_bw >fabric.json\n"
	"    * Incast: 4 ranks into each rank at once, each round's aggregate and\n"
	"      fairness; and each one's latency while 3 others send into it:\n"
	"        mpirun -n 16 qperf --cluster incast:4 --rendezvous node01 \\\n"
	"            tcp_bw tcp_lat\n";

static const char author_text[] =
	"qperf was written by Johann George.  This successor is maintained\n"
	"by the qperf project.\n";

static const char bugs_text[] =
	"The RDMA tests need a build with RDMA support.  -f (--flip) is\n"
	"accepted for compatibility but no test implements it, and\n"
	"-ap (--alt_port) is never marked used, as in 0.4.11.\n";

static void print_categories(FILE *f)
{
	fprintf(f,
		"To get help on a particular category, you may type:\n"
		"    qperf --help CATEGORY\n"
		"where CATEGORY might be one of the following:\n"
		"    author              Who wrote qperf\n"
		"    bugs                Known limitations\n"
		"    categories          This current list being displayed\n"
		"    examples            Some examples\n"
		"    options             A long list of options\n"
		"    opts                A short description of the options\n"
		"    tests               A list of tests\n"
		"CATEGORY may also be one of the following tests\n");
	for (size_t i = 0; i < test_count; i++)
		fprintf(f, "    %s\n", test_table[i].name);
}

static void print_main(FILE *f)
{
	fputs(main_text, f);
}

static void print_examples(FILE *f)
{
	fputs(examples_text, f);
}

static void print_author(FILE *f)
{
	fputs(author_text, f);
}

static void print_bugs(FILE *f)
{
	fputs(bugs_text, f);
}

/* The topics besides the tests; completion offers all but the hidden. */
static const struct topic {
	const char *name;
	void (*print)(FILE *f);
	bool hidden;
} topics[] = {
	{ "main", print_main, false },
	{ "author", print_author, false },
	{ "bugs", print_bugs, false },
	{ "categories", print_categories, false },
	{ "examples", print_examples, false },
	{ "options", print_options, false },
	{ "opts", print_opts, false },
	{ "tests", print_tests, false },
	{ "optnames", print_optnames, true },
};

#define NTOPICS (sizeof(topics) / sizeof(topics[0]))

const char *help_topic(size_t i)
{
	for (size_t k = 0; k < NTOPICS; k++)
		if (!topics[k].hidden && i-- == 0)
			return topics[k].name;
	for (size_t k = 0; k < test_count; k++)
		if (help_for(test_table[k].name) && i-- == 0)
			return test_table[k].name;
	return NULL;
}

int help_print(FILE *f, const char *topic, char *err, size_t errlen)
{
	const struct test_desc *t;
	const struct test_help *h;

	if (!topic)
		topic = "main";
	for (size_t k = 0; k < NTOPICS; k++) {
		if (!strcmp(topic, topics[k].name)) {
			topics[k].print(f);
			return 0;
		}
	}
	if ((t = test_find(topic)) && (h = help_for(topic))) {
		print_test(f, t, h);
		return 0;
	}
	if (err && errlen)
		snprintf(err, errlen,
			 "cannot find help category %.60s%s; try: "
			 "qperf --help categories",
			 topic, strlen(topic) > 60 ? "..." : "");
	return -1;
}
