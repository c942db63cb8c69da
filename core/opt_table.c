// SPDX-License-Identifier: GPL-2.0-only
/*
 * The option table (spec §4.2): the single source for parsing, validation,
 * --loop variable names, --help opts/options and the man-page check
 * (tests/unit/test_docs.sh).  The parser is in opts.c.
 *
 * Order: 0.4.11's (that of its --help options), then this qperf's server
 * options, then the obsolete spellings.
 */
#include <stdint.h>

#include "opt_table.h"
#include "lib/types.h"

#define LOC (1u << SIDE_LOC)
#define REM (1u << SIDE_REM)
#define BOTH (LOC | REM)
#define U32 ((uint64_t)UINT32_MAX)
#define TIME_MAX (U32 * NS_PER_SEC) /* 0.4.11 sends whole seconds as u32 */
#define PORT_MAX 65535
#define PRECISION_MAX 20 /* beyond this the digits are noise */
#define VK_DEPTH_MAX PAR_VK_DEPTH_MAX
#define VK_INLINE_MAX PAR_VK_INLINE_MAX
#define VK_NODE_MAX PAR_VK_NODE_MAX

/* A parameter option with a value; sides picks loc_, rem_ or both. */
#define P(n, a, t, p, sd, lo, hi, ar, h)                                   \
	{ .name = n, .abbr = a, .type = t, .par = p, .sides = sd,          \
	  .min = lo, .max = hi, .arg = ar, .help = h, .act = OA_NONE }
/* An on/off form such as -ar1: no value, sets the targets to 1. */
#define SET1(n, p, sd, h)                                                  \
	{ .name = n, .type = OT_SET1, .par = p, .sides = sd, .min = 1,     \
	  .max = 1, .help = h, .act = OA_NONE }
/* An option that acts on the plan or the output, not on a parameter. */
#define A(n, a, t, act_, srv, lo, hi, ar, h)                               \
	{ .name = n, .abbr = a, .type = t, .par = -1, .server_ok = srv,    \
	  .min = lo, .max = hi, .arg = ar, .help = h, .act = act_ }
#define OBS(old, new_) { .name = old, .par = -1, .obsolete_for = new_ }
/* A parameter with its loc_ and rem_ forms: --n (-a), --loc_n (-la),
 * --rem_n (-ra); h, lh and rh are their help texts. */
#define VK3(n, a, t, p, lo, hi, ar, h, lh, rh)                             \
	P("--" n, "-" a, t, p, BOTH, lo, hi, ar, h),                       \
		P("--loc_" n, "-l" a, t, p, LOC, lo, hi, ar, lh),          \
		P("--rem_" n, "-r" a, t, p, REM, lo, hi, ar, rh)

/*
 * 0.4.11's option order (that of its --help options), plus -lpf.  Help
 * text: the first sentence is the --help opts summary; the whole text is
 * the --help options description.
 */
const struct opt_desc opt_table[] = {
	P("--access_recv", "-ar", OT_INT, PAR_ACCESS_RECV, BOTH, 0, U32, "OnOff",
	  "Touch received data if OnOff is non-zero. "
	  "The receiver of a bandwidth test then reads every buffer it "
	  "receives, as an application would.  Default 0."),
	SET1("-ar1", PAR_ACCESS_RECV, BOTH, "Read every received buffer."),
	P("--alt_port", "-ap", OT_INT, PAR_ALT_PORT, BOTH, 0, 255, "Port",
	  "Set the IB alternate path port. "
	  "It enables automatic path migration in the RDMA tests.  "
	  "As in 0.4.11 no test marks it used, so it always draws a "
	  "\"set but not used\" warning."),
	P("--loc_alt_port", "-lap", OT_INT, PAR_ALT_PORT, LOC, 0, 255, "Port",
	  "Set the local alternate path port."),
	P("--rem_alt_port", "-rap", OT_INT, PAR_ALT_PORT, REM, 0, 255, "Port",
	  "Set the remote alternate path port."),
	P("--cpu_affinity", "-ca", OT_INT, PAR_AFFINITY, BOTH, 0, U32, "PN",
	  "Pin the test to one CPU. "
	  "0 (the default) allows any CPU; N pins to CPU number N-1, as in "
	  "0.4.11.  With --streams, PN may be a list such as 1,2 or 1-4: "
	  "stream i runs on entry i (taken in turn when there are fewer "
	  "entries; 0 leaves that stream unpinned); a list needs qperf 0.5 "
	  "on both ends."),
	P("--loc_cpu_affinity", "-lca", OT_INT, PAR_AFFINITY, LOC, 0, U32, "PN",
	  "Pin the local side to one CPU."),
	P("--rem_cpu_affinity", "-rca", OT_INT, PAR_AFFINITY, REM, 0, U32, "PN",
	  "Pin the remote side to one CPU."),
	A("--debug", "-D", OT_FLAG, OA_DEBUG, true, 0, 0, NULL,
	  "Print debug information. "
	  "Debug messages go to stderr, results gain the raw l_* and r_* "
	  "counters, and a server prints the errors its clients report.  "
	  "May be given to a server."),
	P("--flip", "-f", OT_INT, PAR_FLIP, BOTH, 0, U32, "OnOff",
	  "Swap sender and receiver if non-zero. "
	  "Sent to the server as in 0.4.11, but no test implements it, so it "
	  "always draws a \"set but not used\" warning."),
	SET1("-f1", PAR_FLIP, BOTH, "Swap sender and receiver."),
	A("--help", "-h", OT_SPECIAL, OA_HELP, true, 0, 0, "Topic",
	  "Print help on Topic. "
	  "Without a Topic the overview is printed; qperf --help categories "
	  "lists the topics.  Topic is the next argument unless it starts "
	  "with a dash."),
	A("--host", "-H", OT_SPECIAL, OA_HOST, false, 0, 0, "Host",
	  "Name the server node. "
	  "The first argument that is not an option names the host too; "
	  "after -H every such argument is a test."),
	P("--id", "-i", OT_STR, PAR_ID, BOTH, 0, 0, "Device:Port",
	  "Use this RDMA device and port. "
	  "Only the RDMA tests use it."),
	P("--loc_id", "-li", OT_STR, PAR_ID, LOC, 0, 0, "Device:Port",
	  "Use this local RDMA device and port."),
	P("--rem_id", "-ri", OT_STR, PAR_ID, REM, 0, 0, "Device:Port",
	  "Use this remote RDMA device and port."),
	P("--gid_index", "-gi", OT_INT, PAR_GID_INDEX, BOTH, 0, 65535, "Index",
	  "Use this GID index on RoCE ports. "
	  "Without it each end chooses its GID itself: RoCE v2 before v1, "
	  "an address of the control connection's family, link-local last. "
	  "Needs qperf 0.5 on both ends."),
	P("--loc_gid_index", "-lgi", OT_INT, PAR_GID_INDEX, LOC, 0, 65535,
	  "Index", "Use this local GID index on RoCE ports."),
	P("--rem_gid_index", "-rgi", OT_INT, PAR_GID_INDEX, REM, 0, 65535,
	  "Index", "Use this remote GID index on RoCE ports."),
	/*
	 * Verbs knobs of this qperf (0.5 peers only; a 0.4.11 server is
	 * refused with one line).  Defaults are 0.4.11's.  Short names avoid
	 * perftest's -t, -r and -I, which 0.4.11 already uses.
	 */
	VK3("sq_depth", "sqd", OT_INT, PAR_SQ_DEPTH, 1, VK_DEPTH_MAX, "WRs",
	    "Set the RDMA send queue depth. "
	    "The number of sends, writes, reads or atomics a bandwidth or "
	    "rate test keeps outstanding; default 1024, as in 0.4.11.  At "
	    "most the device's max_qp_wr.  Needs qperf 0.5 on both ends.",
	    "Set the local send queue depth.",
	    "Set the remote send queue depth."),
	VK3("rq_depth", "rqd", OT_INT, PAR_RQ_DEPTH, 1, VK_DEPTH_MAX, "WRs",
	    "Set the RDMA receive queue depth. "
	    "The number of receives a bandwidth test keeps posted; default "
	    "1024, as in 0.4.11.  At most the device's max_qp_wr (max_srq_wr "
	    "with --use_srq).  Needs qperf 0.5 on both ends.",
	    "Set the local receive queue depth.",
	    "Set the remote receive queue depth."),
	VK3("inline_size", "il", OT_SIZE, PAR_INLINE, 0, VK_INLINE_MAX, "Size",
	    "Set the RDMA inline threshold. "
	    "Sends and writes of at most Size bytes go inline; the QP is "
	    "created for Size bytes of inline data, which the device must "
	    "allow.  0 never inlines.  Default: what the QP gives for 128 "
	    "bytes, as in 0.4.11.  Needs qperf 0.5 on both ends.",
	    "Set the local inline threshold.",
	    "Set the remote inline threshold."),
	VK3("cq_moderation", "cqm", OT_INT, PAR_CQ_MOD, 1, VK_DEPTH_MAX, "N",
	    "Signal only every Nth send. "
	    "In the RDMA bandwidth tests only every Nth send, write or read "
	    "asks for a completion; N must not exceed the send queue depth.  "
	    "With --qps each QP signals every Nth of its own.  "
	    "Default 1 (every one), as in 0.4.11.  Needs qperf 0.5 on both "
	    "ends.",
	    "Signal every Nth local send.", "Signal every Nth remote send."),
	VK3("post_list", "pl", OT_INT, PAR_POST_LIST, 1, VK_DEPTH_MAX, "N",
	    "Chain up to N work requests per post. "
	    "RDMA work requests are chained, up to N per ibv_post_send; N "
	    "must not exceed the send queue depth.  Default 32.  Needs qperf "
	    "0.5 on both ends.",
	    "Set the local post list.", "Set the remote post list."),
	VK3("use_srq", "srq", OT_INT, PAR_USE_SRQ, 0, U32, "OnOff",
	    "Use a shared receive queue if non-zero. "
	    "RC, UC and UD tests that receive post their receives to an SRQ "
	    "(ibv_create_srq) of the receive queue depth.  Needs qperf 0.5 on "
	    "both ends.",
	    "Use an SRQ locally if OnOff is non-zero.",
	    "Use an SRQ remotely if OnOff is non-zero."),
	SET1("-srq1", PAR_USE_SRQ, BOTH, "Use shared receive queues."),
	VK3("traffic_class", "tc", OT_INT, PAR_TCLASS, 0, 255, "Class",
	    "Set the RoCE traffic class. "
	    "The GRH traffic class byte, DSCP << 2 plus ECN (106 is DSCP 26, "
	    "a common lossless class); RoCE ports only.  Default 0.  Needs "
	    "qperf 0.5 on both ends.",
	    "Set the local traffic class.", "Set the remote traffic class."),
	VK3("pkey_index", "pk", OT_INT, PAR_PKEY_INDEX, 0, 65535, "Index",
	    "Use this P_Key table index. "
	    "It must exist in the port's P_Key table.  Default 0, as in "
	    "0.4.11.  Needs qperf 0.5 on both ends.",
	    "Use this local P_Key index.", "Use this remote P_Key index."),
	VK3("numa_node", "nn", OT_INT, PAR_NUMA_NODE, 0, VK_NODE_MAX, "Node",
	    "Place RDMA buffers on this NUMA node. "
	    "The thread runs there too unless -ca is given.  Without it each "
	    "end uses the node of its RDMA device (from sysfs), or with -ca "
	    "the node of that CPU.  Needs qperf 0.5 on both ends and "
	    "libnuma.",
	    "Use this local NUMA node.", "Use this remote NUMA node."),
	SET1("--cq_per_qp", PAR_CQ_PER_QP, BOTH,
	     "Give each QP a CQ of its own. "
	     "With --qps, each end makes a completion queue per QP (all on "
	     "one completion channel) and polls them in turn; without it "
	     "all QPs of an end share one CQ.  Needs qperf 0.5 on both "
	     "ends."),
	SET1("--loc_cq_per_qp", PAR_CQ_PER_QP, LOC,
	     "Give each local QP a CQ of its own."),
	SET1("--rem_cq_per_qp", PAR_CQ_PER_QP, REM,
	     "Give each remote QP a CQ of its own."),
	P("--qps", NULL, OT_INT, PAR_QPS, BOTH, 1, QPS_MAX, "N",
	  "Run an RDMA throughput test over N QPs. "
	  "Each end holds N QPs, QP i peered with the other end's QP i, and "
	  "the one loop posts to them in turn (round robin), keeping the "
	  "test's depth outstanding over them all; completions are counted "
	  "per QP.  For rc_bw, uc_bw, ud_bw, xrc_bw (N send and N XRC "
	  "target QPs each end, one XRC SRQ), the bidirectional tests "
	  "rc_bi_bw, uc_bi_bw, ud_bi_bw and xrc_bi_bw, rc_rdma_write_bw, "
	  "uc_rdma_write_bw, rc_rdma_read_bw, rc_compare_swap_mr and "
	  "rc_fetch_add_mr.  With --cq_moderation K each QP signals every "
	  "K-th of its own sends.  The report is the aggregate; -vx and --json add the spread over the QPs (min, "
	  "median, max of the messages of each), the time to set them all "
	  "up and the memory per QP of each end (--json: each QP's count, "
	  "the first 4096).  The device's max_qp (max_cq with --cq_per_qp), "
	  "RLIMIT_MEMLOCK and, over softverbs, RLIMIT_NOFILE are checked "
	  "before the test.  With --streams T, T threads on each end each "
	  "hold a share of the QPs.  On rc_qp_setup (at most 4096) and "
	  "rc_conn (at most 1024), a storm: each transaction sets up N QPs "
	  "at once on each end, each step over all N before the next; the "
	  "steps' percentiles are over the QPs, and the report adds each "
	  "step's time over the storm, storms/s and QPs/s.  Default 1, at "
	  "most 65536.  Needs qperf 0.5 on both ends (CAP_QPS2 for XRC, the "
	  "bidirectional tests, the atomics and --cq_moderation)."),
	P("--conns", NULL, OT_INT, PAR_CONNS, BOTH, 1, CONNS_MAX, "N",
	  "Run tcp_bw or udp_bw over N connections. "
	  "Each end holds N connections (udp_bw: N sockets, each its own "
	  "flow), spread over --threads; each thread sends on whichever of "
	  "its connections is writable, in turn, and the receiver reads "
	  "whichever is readable.  The report is the aggregate; -vx and "
	  "--json add the spread over the connections (min, median, max of "
	  "the messages of each), the time to set them all up and the "
	  "socket buffers per connection (--json: each connection's count, "
	  "the first 4096).  RLIMIT_NOFILE is checked (and the soft limit "
	  "raised) before any connection is made.  -n is the total over "
	  "all.  Default 1, at most 16384.  Needs qperf 0.5 with --conns "
	  "on both ends."),
	/* Not -P: 0.4.11 keeps that as an obsolete spelling of -cp. */
	P("--streams", "-st", OT_INT, PAR_STREAMS, BOTH, 1, STREAMS_MAX, "N",
	  "Run N streams of a bandwidth test at once. "
	  "Each stream has its own data connection or QP and its own thread "
	  "on both ends, in one test: the streams start together and the "
	  "report gives their sum over the same window (-v and --json also "
	  "each stream).  For tcp_bw, udp_bw, rc_bw, uc_bw, ud_bw, rc_bi_bw, "
	  "rc_rdma_write_bw and rc_rdma_read_bw; -n counts per stream.  "
	  "With -ca 1,2 (a CPU list) stream i runs on the list's entry i.  "
	  "Default 1.  At most 64.  Needs qperf 0.5 on both ends."),
	/* The sender of each direction paces (lib/pace.h); the server too
	 * where it sends (bidirectional tests: 0.5 peers with CAP_RATE). */
	P("--rate", "-rt", OT_RATE, PAR_RATE, BOTH, 1, RATE_MAX, "Rate",
	  "Pace a test at Rate. "
	  "A bandwidth test is paced; a socket latency test runs open "
	  "loop.  Rate is a bandwidth, in bits (10Gb, 200Mb) or bytes (1.25GB) per "
	  "second with decimal prefixes k, M, G, T, or a message rate "
	  "(20k/s, 2M/s).  It is the rate of the whole test: --streams N "
	  "paces each stream at Rate/N, and each direction of a "
	  "bidirectional test at Rate.  TCP paces in the kernel "
	  "(SO_MAX_PACING_RATE) for a bandwidth; every other test, and a "
	  "message rate, paces in qperf's posting loop with a token bucket "
	  "whose burst is 10 ms of the rate (2 messages at least).  The "
	  "report adds offered_rate and achieved_rate (-vx: the spread of "
	  "the achieved rate over 100 ms slices), and a warning when the "
	  "achieved rate falls more than 10% short.  Tests where the "
	  "server sends (rc_bi_bw, uc_bi_bw, ud_bi_bw, xrc_bi_bw) need "
	  "qperf 0.5 on both ends; the others pace on the client alone.  On "
	  "a ping-pong latency test, and on rc_rdma_read_lat, Rate is the "
	  "rate of requests of an open-loop run (see --arrivals).  With a "
	  "static rate "
	  "name and no unit (4xQDR, 10, max) --rate is still 0.4.11's "
	  "obsolete spelling of --static_rate."),
	A("--arrivals", NULL, OT_SPECIAL, OA_ARRIVALS, false, 0, 0, "Kind",
	  "Open-loop latency: how requests arrive. "
	  "With --rate on a ping-pong latency test (tcp_lat, udp_lat, "
	  "sctp_lat, sdp_lat, rds_lat, rs_lat, rc_lat, uc_lat, ud_lat, "
	  "xrc_lat, rc_rdma_write_lat, uc_rdma_write_lat) the client sends "
	  "requests on a schedule at the rate, several in flight (RDMA: at "
	  "most 256), and times each from its intended send "
	  "time, so a stall counts for every request it delayed.  Kind is "
	  "constant (one every 1/Rate, the default) or poisson (exponential "
	  "gaps of mean 1/Rate).  The report adds offered_rate, arrivals, "
	  "late_sends, lost and out_of_order; see docs/openloop.md.  Needs "
	  "qperf 0.5 on both ends."),
	/* Memory registration (core/regmr.c): this end only, never sent. */
	A("--hugepages", NULL, OT_FLAG, OA_HUGEPAGES, false, 0, 0, NULL,
	  "Register memory of 2 MiB huge pages. "
	  "For reg_mr, and for this end's buffer of the RDMA tests "
	  "(MAP_HUGETLB).  The pages must be reserved first (sysctl "
	  "vm.nr_hugepages=N, as root): without enough free, the test fails "
	  "with one line saying how many it needs."),
	A("--prefault", NULL, OT_FLAG, OA_PREFAULT, false, 0, 0, NULL,
	  "reg_mr: register pages already touched. "
	  "Every page of a region is written before it is registered.  "
	  "Without it each region is freshly mapped and cold, and its "
	  "registration pays for faulting the pages in; with it the "
	  "registration only pins pages already there."),
	A("--odp", NULL, OT_FLAG, OA_ODP, false, 0, 0, NULL,
	  "Register with On-Demand Paging. "
	  "Alone or followed by explicit: IBV_ACCESS_ON_DEMAND on each "
	  "region; --odp implicit: one implicit region over the whole "
	  "address space (ibv_reg_mr(pd, NULL, SIZE_MAX)); --odp prefetch: "
	  "explicit, then ibv_advise_mr(PREFETCH_WRITE) over the region.  "
	  "For reg_mr, which then also reports the first-touch cost (an "
	  "RDMA write into a cold range and into the same range warm, over "
	  "a loopback connection), and for this end's buffer of the RDMA "
	  "tests.  A device without On-Demand Paging fails the test with "
	  "one line."),
	P("--threads", NULL, OT_INT, PAR_THREADS, BOTH, 1, THREADS_MAX, "T",
	  "Run a test in T threads on each end. "
	  "On reg_mr: T threads register at once, each its own regions; "
	  "the report gives the percentiles of them all and their summed "
	  "rate (default 1).  On a --qps or --conns test: the threads the "
	  "QPs or connections are spread over, each holding its share (N/T, "
	  "the first N mod T one more) and serving them in turn; default "
	  "one per CPU of the test's NUMA node (that of the -ca CPU, else "
	  "of --numa_node, else node 0), never more than N or -n.  -n is the total over "
	  "all threads, split as evenly (n/T, the first n mod T one more), "
	  "and the report is one test's aggregate (-v adds each thread's "
	  "figures).  The client decides T and sends it; the server needs "
	  "qperf 0.5 with --threads.  Not with --streams.  At most "
	  "64."),
	A("--json", "-J", OT_FLAG, OA_JSON, false, 0, 0, NULL,
	  "Print the results as one JSON document. "
	  "Nothing else goes to stdout: both ends' configuration, each test "
	  "and --loop iteration with its parameters and figures in SI units "
	  "(bytes, seconds, bytes/s, msgs/s), the error of a failed test; "
	  "errors also go to stderr.  Schema: docs/qperf-schema.json.  "
	  "With --cluster, rank 0 writes the matrices, medians, retests, "
	  "outliers and gone ranks under \"cluster\".  "
	  "Excludes --json_stream."),
	A("--json_stream", NULL, OT_FLAG, OA_JSON_STREAM, false, 0, 0, NULL,
	  "Print JSON lines as results arrive. "
	  "One JSON object per line as each result arrives: "
	  "lines of type start, conf, test (one per test and --loop "
	  "iteration), interval and end, in the units of --json.  "
	  "With --cluster, rank 0 writes a pair line per pair result as it "
	  "comes in (and a group line per round of incast:K and fanout:K), "
	  "then one cluster line.  Excludes --json."),
	A("--listen_port", "-lp", OT_INT, OA_LISTEN_PORT, true, 0, PORT_MAX,
	  "Port",
	  "Set the control port. "
	  "The server listens on it and the client connects to it; default "
	  "19765.  A server may use 0 to let the kernel choose; see "
	  "--listen_port_file."),
	A("--listen_port_file", "-lpf", OT_SPECIAL, OA_PORT_FILE, true, 0, 0,
	  "File",
	  "Server: write the bound port to File. "
	  "The server writes the port it actually listens on, in decimal, "
	  "once it is ready.  "
	  "New in this qperf: with -lp 0 it lets scripts start servers "
	  "without choosing a free port."),
	/* This qperf's server options: access and limits. */
	A("--listen_host", "-lh", OT_SPECIAL, OA_LISTEN_HOST, true, 0, 0,
	  "Addr",
	  "Server: listen on Addr only. "
	  "An IPv4 or IPv6 address (or a name that resolves to one); by "
	  "default the server listens on every address, IPv4 and IPv6."),
	A("--allow", "-al", OT_SPECIAL, OA_ALLOW, true, 0, 0, "Nets",
	  "Server: serve only clients in Nets. "
	  "A comma-separated list of networks, ADDR/BITS or ADDR, IPv4 or "
	  "IPv6 (10.0.0.0/8,fd00::/8,192.0.2.7); may be given more than "
	  "once.  Other clients, quit included, are refused with one line.  "
	  "Default: every client."),
	A("--allow_low_ports", "-alp", OT_FLAG, OA_LOW_PORTS, true, 0, 0,
	  NULL,
	  "Server: allow data ports below 1024. "
	  "Without it a client cannot ask for a data port (-ip) from 1 to "
	  "1023, so it cannot make a root server bind 22 or 80.  "
	  "Default: refused."),
	A("--max_memory", NULL, OT_SIZE, OA_MAX_MEMORY, true, 1 << 20,
	  1ULL << 50, "Size",
	  "Server: memory budget of all running tests. "
	  "A request whose buffers would take the running tests past Size "
	  "is refused and the client told why.  Units as for --msg_size; "
	  "default a quarter of the machine's memory (or of its cgroup's "
	  "limit)."),
	A("--max_msgs", NULL, OT_INT, OA_MAX_MSGS, true, 1, U32, "Count",
	  "Server: refuse a -n larger than Count. "
	  "Default 100000000."),
	A("--max_per_client", NULL, OT_INT, OA_MAX_PER_CLIENT, true, 1, 16,
	  "N",
	  "Server: at most N requests per client. "
	  "The number served at once for one client address (for IPv6, "
	  "one /64).  "
	  "Of the 16 requests the server serves at once, one client "
	  "address may hold N; default 4.  More are told the server is "
	  "busy and when to retry."),
	A("--max_setup", NULL, OT_TIME, OA_MAX_SETUP, true, NS_PER_SEC,
	  3600 * NS_PER_SEC, "Time",
	  "Server: time allowed until data flows. "
	  "A request must start moving data within Time.  "
	  "From the connection to the first message of the test, whatever "
	  "timeout the client asked for, and again after the test's time "
	  "for the results; conf and quit must finish within it.  "
	  "Default 10 s."),
	A("--max_time", NULL, OT_TIME, OA_MAX_TIME, true, NS_PER_SEC,
	  TIME_MAX, "Time",
	  "Server: refuse a -t longer than Time. "
	  "A test run by count (-n without -t) must also end within Time; "
	  "if it has not, the server stops it and tells the client.  "
	  "Default 10 m."),
	A("--no_quit", "-nq", OT_FLAG, OA_NO_QUIT, true, 0, 0, NULL,
	  "Server: refuse the quit test. "
	  "No client can stop the server; stop it with a signal (SIGTERM, "
	  "as systemd does)."),
	A("--interval", "-I", OT_TIME, OA_INTERVAL, false, 0, TIME_MAX, "Time",
	  "Report each interval of a bandwidth test. "
	  "While a bandwidth test runs, print every Time (at least 0.1 s) "
	  "the bytes, messages, bandwidth and message rate of that interval: "
	  "this side's and, with a qperf 0.5 server, the server's.  An "
	  "interval longer than the test gives one line for the whole test.  "
	  "The final report is unchanged.  With --cluster, rank 0 shows each "
	  "pair's lowest interval as a second matrix.  New in this qperf."),
	A("--secret_file", "-sf", OT_SPECIAL, OA_SECRET_FILE, true, 0, 0,
	  "File",
	  "Authenticate with the shared secret in File. "
	  "Server and client read the same secret (1 to 4096 bytes; one "
	  "trailing newline is ignored) from a file that group and others "
	  "cannot access (mode 600).  A server given it serves only qperf "
	  "0.5 clients that prove they know the secret (HMAC-SHA256 over a "
	  "fresh nonce of each side), and proves it in turn; other clients, "
	  "qperf 0.4.11 and quit included, are refused with one line.  A "
	  "client given it refuses a server that does not check the secret.  "
	  "Without the option, the file named by QPERF_SECRET_FILE is used, "
	  "if set.  It authenticates the control connection; it does not "
	  "encrypt anything."),
	A("--loop", "-oo", OT_SPECIAL, OA_LOOP, false, 0, 0,
	  "Var:Init:Last:Incr",
	  "Run the tests over a range of values. "
	  "Each test named after this option runs once per value of Var.  "
	  "Var starts at Init and grows by Incr (a leading * multiplies) "
	  "while it does not exceed Last.  Var defaults to msg_size, Init to "
	  "1 when multiplying and 0 when adding; missing trailing fields "
	  "repeat the last one given.  Several loops nest, the first given "
	  "outermost.  Loops that would never end are rejected.  -vu shows "
	  "the value of each run."),
	P("--msg_size", "-m", OT_SIZE, PAR_MSG_SIZE, BOTH, 1, U32, "Size",
	  "Set the message size. "
	  "The default depends on the test.  Units: k or kb (1000), K, kib "
	  "or KiB (1024), m or mb, M, mib or MiB, g or gb, G, gib or GiB; "
	  "fractions such as 1.5K are allowed.  At most 4294967295."),
	P("--mtu_size", "-mt", OT_SIZE, PAR_MTU_SIZE, BOTH, 256, 4096, "Size",
	  "Set the IB path MTU (RDMA tests). "
	  "One of 256, 512, 1024, 2048 (the default) or 4096."),
	P("--no_msgs", "-n", OT_INT, PAR_NO_MSGS, BOTH, 1, U32, "Count",
	  "Send Count messages. "
	  "When -n is given without -t the test has no time limit."),
	P("--cq_poll", "-cp", OT_INT, PAR_POLL_MODE, BOTH, 0, U32, "OnOff",
	  "Set polling on or off. "
	  "If OnOff is non-zero the RDMA tests poll their completion queues "
	  "instead of waiting for events, and the socket tests spin on "
	  "non-blocking sockets (yielding the CPU at each try, with "
	  "SO_BUSY_POLL where the kernel allows it) instead of sleeping in "
	  "the kernel; the timer and the timeout still end a test.  A server "
	  "serving a qperf 0.4.11 client ignores it in socket tests, as "
	  "0.4.11 does."),
	P("--loc_cq_poll", "-lcp", OT_INT, PAR_POLL_MODE, LOC, 0, U32, "OnOff",
	  "Turn local polling on or off."),
	P("--rem_cq_poll", "-rcp", OT_INT, PAR_POLL_MODE, REM, 0, U32, "OnOff",
	  "Turn remote polling on or off."),
	SET1("-cp1", PAR_POLL_MODE, BOTH, "Turn polling on."),
	SET1("-lcp1", PAR_POLL_MODE, LOC, "Turn local polling on."),
	SET1("-rcp1", PAR_POLL_MODE, REM, "Turn remote polling on."),
	P("--ip_port", "-ip", OT_INT, PAR_PORT, BOTH, 0, PORT_MAX, "Port",
	  "Set the socket tests' data port. "
	  "This is the server's data port, not the control port of "
	  "--listen_port; 0 (the default) lets the kernel choose."),
	A("--plot", NULL, OT_SPECIAL, OA_PLOT, false, 0, 0, "File",
	  "Draw the --loop results into File (SVG). "
	  "Each test's figure (bandwidth, message rate or latency) against "
	  "the innermost looped variable, one series per test, log-scaled "
	  "where the loop multiplies.  Every test needs a --loop.  The file "
	  "is opened before any test runs.  With --cluster, rank 0 draws a "
	  "heat map per test instead (senders by receivers, outliers in "
	  "red).  New in this qperf."),
	A("--precision", "-e", OT_INT, OA_PRECISION, false, 0, PRECISION_MAX,
	  "Digits",
	  "Set the significant digits shown. "
	  "Default 3, at most 20."),
	P("--rd_atomic", "-nr", OT_INT, PAR_RD_ATOMIC, BOTH, 0, U32, "Max",
	  "Set the RDMA read/atomic depth. "
	  "This is the number of RDMA reads or atomics in flight; "
	  "0 (the default) uses the device maximum."),
	P("--loc_rd_atomic", "-lnr", OT_INT, PAR_RD_ATOMIC, LOC, 0, U32, "Max",
	  "Set the local RDMA read/atomic depth."),
	P("--rem_rd_atomic", "-rnr", OT_INT, PAR_RD_ATOMIC, REM, 0, U32, "Max",
	  "Set the remote RDMA read/atomic depth."),
	P("--service_level", "-sl", OT_SL, PAR_SL, BOTH, 0, 15, "SL",
	  "Set the IB service level. "
	  "From 0 to 15; RDMA tests only."),
	P("--loc_service_level", "-lsl", OT_SL, PAR_SL, LOC, 0, 15, "SL",
	  "Set the local service level."),
	P("--rem_service_level", "-rsl", OT_SL, PAR_SL, REM, 0, 15, "SL",
	  "Set the remote service level."),
	P("--sock_buf_size", "-sb", OT_SIZE, PAR_SOCK_BUF_SIZE, BOTH, 0, U32,
	  "Size",
	  "Set the socket buffer sizes. "
	  "It sets SO_SNDBUF and SO_RCVBUF in the socket tests.  "
	  "Units as for --msg_size; 0 keeps the system default."),
	P("--loc_sock_buf_size", "-lsb", OT_SIZE, PAR_SOCK_BUF_SIZE, LOC, 0, U32,
	  "Size", "Set the local socket buffer size."),
	P("--rem_sock_buf_size", "-rsb", OT_SIZE, PAR_SOCK_BUF_SIZE, REM, 0, U32,
	  "Size", "Set the remote socket buffer size."),
	P("--src_path_bits", "-sp", OT_SIZE, PAR_SRC_PATH_BITS, BOTH, 0, 127,
	  "N",
	  "Set the IB source path bits. "
	  "With a non-zero LMC the connection uses the LID whose low bits "
	  "are N; 0 to 127."),
	P("--loc_src_path_bits", "-lsp", OT_SIZE, PAR_SRC_PATH_BITS, LOC, 0, 127,
	  "N", "Set the local source path bits."),
	P("--rem_src_path_bits", "-rsp", OT_SIZE, PAR_SRC_PATH_BITS, REM, 0, 127,
	  "N", "Set the remote source path bits."),
	P("--static_rate", "-sr", OT_STR, PAR_STATIC_RATE, BOTH, 0, 0, "Rate",
	  "Force an IB static rate. "
	  "Rate is max, 2.5, 5, 10, 20, 30, 40, 60, 80, 120 (Gb/s), 1xSDR, "
	  "1xDDR, 1xQDR, 4xSDR, 4xDDR, 4xQDR, 8xSDR, 8xDDR or 8xQDR."),
	P("--loc_static_rate", "-lsr", OT_STR, PAR_STATIC_RATE, LOC, 0, 0,
	  "Rate", "Force the local static rate."),
	P("--rem_static_rate", "-rsr", OT_STR, PAR_STATIC_RATE, REM, 0, 0,
	  "Rate", "Force the remote static rate."),
	P("--time", "-t", OT_TIME, PAR_TIME, BOTH, 0, TIME_MAX, "Time",
	  "Run each test for Time. "
	  "Seconds, fractions allowed (0.5), or with a unit s, m, h or d.  "
	  "Default 2 s, or no limit when -n is given.  0 runs one test "
	  "until SIGINT or SIGTERM ends it, then reports the whole run "
	  "(exit 0); it needs a qperf 0.5 server, whose --max_time "
	  "still bounds it."),
	P("--timeout", "-to", OT_TIME, PAR_TIMEOUT, BOTH, 1, TIME_MAX, "Time",
	  "Set the control timeout. "
	  "Each control message must arrive within it.  "
	  "Units as for --time; default 5 s."),
	{ .name = "--loc_timeout", .abbr = "-lto", .type = OT_TIME,
	  .par = PAR_TIMEOUT, .sides = LOC, .server_ok = true, .min = 1,
	  .max = TIME_MAX, .arg = "Time", .act = OA_SERVER_TIMEOUT,
	  .help = "Set the local timeout. "
		  "Given to a server, it bounds the wait for each client's "
		  "request; the client's own timeout applies after that." },
	P("--rem_timeout", "-rto", OT_TIME, PAR_TIMEOUT, REM, 1, TIME_MAX,
	  "Time", "Set the remote timeout."),
	A("--unify_nodes", "-un", OT_FLAG, OA_UNIFY_NODES, false, 0, 0, NULL,
	  "Show nodes as local and remote. "
	  "Without it the per-node figures are labelled by role, send and "
	  "recv."),
	A("--unify_units", "-uu", OT_FLAG, OA_UNIFY_UNITS, false, 0, 0, NULL,
	  "Show all results in the same units. "
	  "Helpful for scripts."),
	A("--use_bits_per_sec", "-ub", OT_FLAG, OA_BITS, false, 0, 0, NULL,
	  "Show bandwidth in bits per second. "
	  "The default is bytes per second."),
	P("--use_cm", "-cm", OT_INT, PAR_USE_CM, BOTH, 0, U32, "OnOff",
	  "Use the RDMA CM if OnOff is non-zero. "
	  "The RDMA connection manager connects the QP (and on RoCE "
	  "resolves the GID) from the server's IP address; it is needed "
	  "for iWARP.  RC tests with any peer; UC and UD tests (and IPv6) "
	  "with a server running qperf 0.5 or later.  The device, MTU, "
	  "service level, rate, path bits and GID index options then do "
	  "not apply."),
	SET1("-cm1", PAR_USE_CM, BOTH, "Use the RDMA connection manager."),
	A("--verbose", "-v", OT_FLAG, OA_VERBOSE, false, 0, 0, NULL,
	  "Show more detail. "
	  "Raises each of -vc, -vs, -vt and -vu to at least level 1."),
	A("--verbose_conf", "-vc", OT_FLAG, OA_V_CONF, false, 0, 0, NULL,
	  "Show configuration (level 1)."),
	A("--verbose_stat", "-vs", OT_FLAG, OA_V_STAT, false, 0, 0, NULL,
	  "Show statistics (level 1). "
	  "Adds msg_rate."),
	A("--verbose_time", "-vt", OT_FLAG, OA_V_TIME, false, 0, 0, NULL,
	  "Show CPU usage (level 1). "
	  "Adds the CPU cost per byte and the CPUs used."),
	A("--verbose_used", "-vu", OT_FLAG, OA_V_USED, false, 0, 0, NULL,
	  "Show parameters set (level 1). "
	  "Lists the parameters you set that the test used."),
	A("--verbose_more", "-vv", OT_FLAG, OA_VERBOSE_MORE, false, 0, 0, NULL,
	  "Show even more detail. "
	  "Sets each of -vvc, -vvs, -vvt and -vvu."),
	A("--verbose_more_conf", "-vvc", OT_FLAG, OA_VV_CONF, false, 0, 0, NULL,
	  "Show more configuration (level 2)."),
	A("--verbose_more_stat", "-vvs", OT_FLAG, OA_VV_STAT, false, 0, 0, NULL,
	  "Show more statistics (level 2). "
	  "Adds byte, message and error counts."),
	A("--verbose_more_time", "-vvt", OT_FLAG, OA_VV_TIME, false, 0, 0, NULL,
	  "Show more CPU usage (level 2). "
	  "Adds the CPU time breakdown."),
	A("--verbose_more_used", "-vvu", OT_FLAG, OA_VV_USED, false, 0, 0, NULL,
	  "Show parameters used (level 2). "
	  "Lists every parameter the test used, defaults included."),
	A("--verbose_extra", "-vx", OT_FLAG, OA_V_EXTRA, false, 0, 0, NULL,
	  "Show figures beyond qperf 0.4.11. "
	  "Adds, after the usual lines: latency percentiles (min, mean, "
	  "p50, p90, p99, p99.9, p99.99, max) and the same for the round "
	  "trip, from every round trip timed on both ends; the CPU time of "
	  "the qperf process on each end (user, system); the CPU cost per "
	  "message; NUMA placement; for bandwidth tests the ceiling of "
	  "the path, naming its limit (bw_ceiling), and the share of it "
	  "reached (bw_efficiency); the loss and error counters of both "
	  "ends over the test (TCP_INFO retransmits, UDP drops, RDMA port "
	  "counters; the server's only from qperf 0.5).  conf adds each end's kernel, NUMA "
	  "nodes and RDMA devices and ports (state, physical state, rate, "
	  "link layer, active MTU, LID, GIDs with their type, each device's "
	  "NUMA node; the peer's only from qperf 0.5).  Not implied by -v "
	  "or -vv."),
	A("--version", "-V", OT_FLAG, OA_VERSION, true, 0, 0, NULL,
	  "Print the version and exit. "
	  "It also lists the compiled-in transports."),
	A("--wait_server", "-ws", OT_TIME, OA_WAIT_SERVER, false, 0, TIME_MAX,
	  "Time",
	  "Set the time to wait for the server. "
	  "A client keeps trying to connect for Time.  "
	  "Default 5 s; 0 tries once.  In cluster mode it is the time rank "
	  "0 waits for every rank to join (default 30 s)."),
	A("--clients", NULL, OT_INT, OA_CLIENTS, false, 1, CLIENTS_MAX, "K",
	  "Run K clients at once (an incast). "
	  "K client processes run each test against one server at once; "
	  "each stops once its test is set up, and all K are released "
	  "together into their measured windows; the "
	  "report gives each client's figure, the aggregate (the sum of a "
	  "bandwidth or message rate; the mean and largest latency), Jain's "
	  "fairness index and the slowest client against the fair share.  "
	  "K is 1 to 16; the server serves at most --max_per_client (4 by "
	  "default) from one address, so a larger K needs a server started "
	  "with a larger --max_per_client.  Data tests only; not with "
	  "--loop, --streams, --cluster, -I, --plot, --expect, --baseline "
	  "or -t 0.  Needs qperf 0.5 on the server.  See docs/clients.md."),
	A("--load", NULL, OT_SPECIAL, OA_LOAD, false, 0, 0, "Test",
	  "Run a bandwidth load beside latency tests. "
	  "Test (tcp_bw, udp_bw, rc_bw, rc_rdma_write_bw, ...) runs on its "
	  "own connection or QP against the same server, started before "
	  "the latency test's window and stopped after it; an idle run of "
	  "the latency test comes first (unless --no_idle), and the report "
	  "adds the load's bandwidth and the latency percentiles with and "
	  "without it.  Latency tests only; Test may be of another family.  "
	  "Not with --loop, --clients, --cluster, --plot or -t 0.  Needs "
	  "qperf 0.5 on the server.  See docs/load.md."),
	A("--load_dir", NULL, OT_SPECIAL, OA_LOAD_DIR, false, 0, 0, "Dir",
	  "Set the direction of the --load. "
	  "out (the default): from the client to the server, the test as "
	  "named; in: from the server to the client; both: two loads, one "
	  "each way (a bidirectional test such as rc_bi_bw is one load in "
	  "both).  Data flows from the server only in RDMA read tests: in "
	  "and both take the family's rc_rdma_read_bw, and are refused for "
	  "a test without one (the socket tests send from the client)."),
	A("--load_rate", NULL, OT_SPECIAL, OA_LOAD_RATE, false, 0, 0, "Rate",
	  "Pace the --load at Rate. "
	  "As --rate on a bandwidth test (10Gb, 1.25GB, 20k/s), for each "
	  "load; without it the load runs as fast as it can.  --rate on the "
	  "latency test keeps its own meaning (an open-loop run)."),
	A("--no_idle", NULL, OT_FLAG, OA_NO_IDLE, false, 0, 0, NULL,
	  "Skip the idle run of --load. "
	  "Only the run under load is made; the report has no idle_ lines."),
	A("--cluster", "-cl", OT_SPECIAL, OA_CLUSTER, false, 0, 0, "Pattern",
	  "Test between the ranks of a cluster. "
	  "Started as one process per node by mpirun, srun or anything that "
	  "sets QPERF_RANK and QPERF_SIZE; takes the place of the host; "
	  "rank 0 is found through --rendezvous or the launcher's PMIx.  "
	  "Pattern: all (every pair, N-1 rounds), ring (each rank with its "
	  "neighbours), bisect (rank i with i+N/2), random:K (K random "
	  "rounds), incast:K (N rounds: K ranks send to one at once) or "
	  "fanout:K (N rounds: one sends to K at once; K is 1 to 16 and "
	  "below N).  Rank 0 prints a matrix per test (and --loop "
	  "iteration), for incast and fanout each round's flows, aggregate "
	  "and fairness, and one outlier: line per slow node, link or round "
	  "confirmed by a retest (--json: as JSON; --plot File.svg: a heat "
	  "map)."),
	A("--rendezvous", "-rv", OT_SPECIAL, OA_RENDEZVOUS, false, 0, 0,
	  "Addr",
	  "Cluster mode: rank 0's Host:Port. "
	  "Rank 0 listens there for the other ranks.  "
	  "Host is rank 0's host name or address ([ADDR]:PORT for IPv6); "
	  "the port defaults to 19766.  Without it, under a launcher with "
	  "PMIx (mpirun; srun with its pmix MPI plugin), rank 0 listens on "
	  "a port the kernel chooses and publishes its host name and that "
	  "port through PMIx (libpmix loaded at run time; QPERF_PMIX_LIB "
	  "names another)."),
	A("--seed", "-sd", OT_INT, OA_SEED, false, 0, U32, "N",
	  "Cluster mode: seed of the rank shuffle. "
	  "The same seed gives the same rounds; rank 0 prints the seed it "
	  "used (by default one from the clock)."),
	A("--completion", NULL, OT_SPECIAL, OA_COMPLETION, true, 0, 0,
	  "Shell",
	  "Print the completion script for Shell. "
	  "Shell is bash, zsh or fish.  The script is generated from the "
	  "option and test tables, so it completes exactly what this qperf "
	  "accepts: options, tests, help topics, on/off values, --cluster "
	  "patterns, --loop variables, file names and, for -i, the local "
	  "RDMA devices.  make install installs all three; to try one: "
	  "source <(qperf --completion bash)."),

	/* The Prometheus exporter (exporter/, docs/exporter.md). */
	A("--exporter", NULL, OT_SPECIAL, OA_EXPORTER, true, 0, 0, "Addr",
	  "Run a Prometheus exporter on Addr. "
	  "Addr is [HOST]:PORT (HOST 127.0.0.1 when empty, [ADDR] for IPv6; "
	  "PORT 0 lets the kernel choose: see --listen_port_file).  It "
	  "serves /metrics (its own health) and "
	  "/probe?target=HOST[:PORT]&test=TEST[&option=value...], which runs "
	  "one test against the qperf server at target as a child process "
	  "and answers its figures in OpenMetrics text, with "
	  "qperf_probe_success.  A probe is killed at the scrape timeout "
	  "Prometheus sends less 0.5 s (10 s without one); its -t is 1 s "
	  "unless time=... is given.  Started as root it runs as the user "
	  "nobody.  Runs no test itself."),
	A("--exporter_allow", NULL, OT_SPECIAL, OA_EXPORTER_ALLOW, true, 0, 0,
	  "List",
	  "Set the tests and options probes may use. "
	  "List is tests and options by long name without dashes (options "
	  "that set a test parameter, and expect), separated by commas; a "
	  "probe asking for anything else is answered 400 and logged.  "
	  "Default: tcp_bw,tcp_lat,udp_bw,udp_lat,time,msg_size."),
	A("--exporter_max", NULL, OT_INT, OA_EXPORTER_MAX, true, 1, 64, "N",
	  "Run at most N probes at once. "
	  "A probe beyond them is answered 503 at once, never queued.  "
	  "Default 4, at most 64."),

	/* Verdicts (core/checks.h, docs/qperf-guide.7 "Verdicts"). */
	A("--expect", NULL, OT_SPECIAL, OA_EXPECT, false, 0, 0, "Expr",
	  "Check each result against a limit. "
	  "Expr is a figure, an operator and a value: bw>=40Gb, "
	  "send_bw>5GB/s, latency<=2us, latency_p99<=5us, msg_rate>=10M, or "
	  "for a bandwidth a percentage of the path's ceiling, bw>=90%.  "
	  "Figures: bw (the received bandwidth), send_bw, recv_bw, latency, "
	  "latency_p50, latency_p90, latency_p99, latency_p999, msg_rate; "
	  "operators >=, <=, >, <.  Bandwidths need B (bytes) or b (bits) "
	  "with k, M, G, T (or Ki, Mi, Gi, Ti) and an optional /s; times ns, "
	  "us, ms or s.  May be given several times; applies to every test "
	  "(each --loop iteration, the sum of --streams), and a figure a "
	  "test named does not produce is a usage error.  Each result gets "
	  "a verdict line (pass or fail and why) and a JSON verdict; if "
	  "every test ran but a check failed, qperf exits with status 3."),
	A("--baseline", NULL, OT_SPECIAL, OA_BASELINE, false, 0, 0, "File",
	  "Compare each result with an earlier run. "
	  "File is the --json output of that run.  Each result is matched "
	  "by test, loop values and parameters (not -t, -to or -n); a "
	  "bandwidth or message rate more than --tolerance below the "
	  "baseline's, or a latency more than --tolerance above it, fails "
	  "like an --expect limit.  A result with no match is said on "
	  "stderr, not failed."),
	A("--tolerance", NULL, OT_SPECIAL, OA_TOLERANCE, false, 0, 0,
	  "Percent",
	  "Set the regression a baseline allows. "
	  "The most a figure may be worse than the --baseline figure or, with "
	  "--compare, A's: a percentage, 5 or 5%; default 5."),
	A("--compare", NULL, OT_SPECIAL, OA_COMPARE, false, 0, 0, "A.json",
	  "Compare two --json outputs. "
	  "qperf --compare A.json B.json prints a side-by-side table of the tests both hold (test, loop "
	  "values, figure, A, B, B/A) and marks with * each change beyond "
	  "the noise band: the larger of --tolerance and the spread each "
	  "file shows (latency: (p90-p50)/p50; bandwidth: the -I intervals' "
	  "half range over their mean).  Exits with status 3 when B "
	  "regresses beyond that band.  Runs no test."),

	/* Obsolete spellings (spec §4.5): accepted with a warning. */
	OBS("--affinity", "--cpu_affinity"), OBS("-a", "-ca"),
	OBS("--loc_affinity", "--loc_cpu_affinity"), OBS("-la", "-lca"),
	OBS("--rem_affinity", "--rem_cpu_affinity"), OBS("-ra", "-rca"),
	OBS("-r", "-sr"),
	OBS("--loc_rate", "--loc_static_rate"), OBS("-lr", "-lsr"),
	OBS("--rem_rate", "--rem_static_rate"), OBS("-rr", "-rsr"),
	OBS("--port", "--ip_port"), OBS("-p", "-ip"),
	OBS("--poll", "--cq_poll"), OBS("-P", "-cp"),
	OBS("--loc_poll", "--loc_cq_poll"), OBS("-lP", "-lcp"),
	OBS("--rem_poll", "--rem_cq_poll"), OBS("-rP", "-rcp"),
	OBS("-R", "-nr"), OBS("-lR", "-lnr"), OBS("-rR", "-rnr"),
	OBS("-T", "-to"), OBS("-lT", "-lto"), OBS("-rT", "-rto"),
	OBS("-S", "-sb"), OBS("-lS", "-lsb"), OBS("-rS", "-rsb"),
	OBS("--wait", "--wait_server"), OBS("-W", "-ws"),
	OBS("-vC", "-vvc"), OBS("-vS", "-vvs"), OBS("-vT", "-vvt"),
	OBS("-vU", "-vvu"),
	OBS("-aro", "-ar1"), OBS("-cmo", "-cm1"), OBS("-fo", "-f1"),
	OBS("-cpo", "-cp1"), OBS("-lcpo", "-lcp1"), OBS("-rcpo", "-rcp1"),
	OBS("-Ar", "-ar"), OBS("-M", "-mt"), OBS("-u", "-uu"),
};

const size_t opt_count = sizeof(opt_table) / sizeof(opt_table[0]);

uint64_t opt_max(int par)
{
	uint64_t max = 0;

	for (size_t i = 0; i < opt_count; i++)
		if (opt_table[i].par == par && opt_table[i].max > max)
			max = opt_table[i].max;
	return max;
}

