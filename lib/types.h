/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types shared by every layer of qperf: parameters, per-node statistics,
 * computed results, configuration strings and output options.
 *
 * Invariants: every time value inside the program is in nanoseconds
 * (uint64_t); conversion to 0.4.11's whole seconds and clock ticks happens
 * only in the legacy codec (core/ctl.c).  Parameter values are stored as
 * uint64_t so that parsing can reject, rather than wrap, values that do not
 * fit the 32-bit wire fields.
 */
#ifndef QPERF_TYPES_H
#define QPERF_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QPERF_VERSION "0.5.0"
#define QPERF_VER_MAJ 0
#define QPERF_VER_MIN 5
#define QPERF_VER_INC 0

#define NS_PER_SEC 1000000000ULL

/*
 * Parameters, in 0.4.11's parameter-table order.  That order is the order
 * of the "set but not used" warnings (spec §4.7).
 */
enum par_id {
	PAR_ACCESS_RECV,
	PAR_AFFINITY,
	PAR_ALT_PORT,
	PAR_FLIP,
	PAR_ID,
	PAR_MSG_SIZE,
	PAR_MTU_SIZE,
	PAR_NO_MSGS,
	PAR_POLL_MODE,
	PAR_PORT,
	PAR_RD_ATOMIC,
	PAR_SL,
	PAR_SOCK_BUF_SIZE,
	PAR_SRC_PATH_BITS,
	PAR_STATIC_RATE,
	PAR_TIME,
	PAR_TIMEOUT,
	PAR_USE_CM,
	PAR_GID_INDEX, /* RoCE GID index (0.5 peers); not set = automatic */
	/* Verbs knobs of 0.5 peers (docs/protocol.md); 0 / not set = 0.4.11's
	 * behaviour. */
	PAR_SQ_DEPTH, /* send WRs kept outstanding; 0 = the test's */
	PAR_RQ_DEPTH, /* receives kept posted; 0 = the test's */
	PAR_INLINE, /* inline threshold, bytes; not set = what the QP gives */
	PAR_CQ_MOD, /* signal every Nth send; 0 = every one */
	PAR_POST_LIST, /* WRs per post call at most; 0 = VERBS_BATCH */
	PAR_USE_SRQ, /* receive through a shared receive queue */
	PAR_TCLASS, /* RoCE GRH traffic class (DSCP << 2 | ECN) */
	PAR_PKEY_INDEX, /* IB P_Key table index */
	PAR_NUMA_NODE, /* NUMA node of buffers and thread; not set = auto */
	PAR_CQ_PER_QP, /* --cq_per_qp: a CQ per QP, not one shared */
	PAR_STREAMS, /* --streams: parallel streams of one test (0.5 peers) */
	PAR_QPS, /* --qps: QPs of one RDMA test (0.5 peers with CAP_QPS) */
	/* --threads: the test's threads on each end: reg_mr's registering
	 * threads, or those a --qps test's QPs are spread over (0.5 peers
	 * with CAP_THREADS); -n counts over them all */
	PAR_THREADS,
	/* --conns: data connections of tcp_bw or udp_bw (0.5 peers with
	 * CAP_CONNS), spread over --threads */
	PAR_CONNS,
	/* --rate (lib/pace.h): one of the two, the other 0; 0 = not paced.
	 * The sender of each direction paces; the server only for tests
	 * where it sends (0.5 peers with CAP_RATE). */
	PAR_RATE, /* bytes/s of the whole test (every stream together) */
	PAR_MSG_RATE, /* messages/s of the whole test */
	PAR_COUNT
};

/* The verbs knobs, contiguous: they travel as request items of one range
 * (REQX_VK_BASE + i, core/ctl.h) and only when set. */
#define PAR_VK_FIRST PAR_SQ_DEPTH
#define PAR_VK_LAST PAR_CQ_PER_QP
#define PAR_VK_COUNT (PAR_VK_LAST - PAR_VK_FIRST + 1)
/* Their ranges beyond which neither the parser nor a server looks at the
 * device (which then checks its own limits). */
#define PAR_VK_DEPTH_MAX (1u << 20) /* WRs */
#define PAR_VK_INLINE_MAX (1u << 20) /* bytes */
#define PAR_VK_NODE_MAX 1023 /* NUMA nodes */

enum side { SIDE_LOC, SIDE_REM };

/* --rate: at most 10^15 bytes/s (8 Pb/s) or messages/s. */
#define RATE_MAX 1000000000000000ULL

/* --streams N: at most this many streams in one test. */
#define STREAMS_MAX 64
/* --threads T: at most this many threads of one test (reg_mr's too). */
#define THREADS_MAX STREAMS_MAX
/* -ca with a CPU list: at most this many entries, each a CPU number + 1
 * below CPUS_PN_MAX (0: that stream is not pinned). */
#define CPUS_MAX STREAMS_MAX
#define CPUS_PN_MAX 1024

/* --qps N: at most this many QPs in one test, and at most QPS_LIST_MAX
 * of their counts listed one by one (STAT, JSON; the spread is over all). */
#define QPS_MAX 65536
#define QPS_LIST_MAX 4096
/* --conns N: at most this many data connections in one test; their
 * counts are listed as the QPs' are (QPS_LIST_MAX). */
#define CONNS_MAX 16384

/* A -ca CPU list: pn[i] pins stream i (i modulo n); 0.4.11's meaning. */
struct cpu_list {
	uint32_t n; /* entries; 0: no list (a single -ca value or none) */
	uint16_t pn[CPUS_MAX]; /* CPU number + 1; 0 = not pinned */
};

#define PAR_STR_MAX 64 /* wire size of id and static_rate, NUL included */

/*
 * One row of the parameter table (core/param.c param_table[], one row per
 * enum par_id, in 0.4.11's show_used order): how the parameter is
 * reported, how it travels in a request and what the transport receives.
 * The type lives here, below every room that loops over the table: the
 * engine fills requests and session parameters from it, the outputs
 * (which cannot include core/) get it through struct par_set.
 */
enum report_par_kind {
	RPK_COUNT, /* a number */
	RPK_SIZE, /* bytes: "_B" in JSON */
	RPK_TIME, /* ns: seconds ("_s") in JSON */
	RPK_STR /* a string of par_set.str (par_str_index()) */
};
enum par_wire {
	PW_LEGACY, /* a uint32_t of struct req (0.4.11's field, req_off) */
	PW_VK, /* a verbs knob: vk[par - PAR_VK_FIRST] of struct req, the
		* block's item REQX_VK_BASE + (par - PAR_VK_FIRST), sent
		* only when given and used */
	PW_OWN /* by its own code: core/client.c fill_own() and
		* core/session.c session_own() */
};
struct par_row {
	int par; /* enum par_id */
	const char *name; /* as -vu and JSON name it: "service_level" */
	enum report_par_kind kind;
	bool unlisted; /* not in 0.4.11's show_used: no -vu line, not in
			* JSON's set_by_user (JSON's params still give it) */
	bool list_above_one; /* -vu lists it only when its value is above 1 */
	enum par_wire wire;
	size_t req_off; /* PW_LEGACY: its uint32_t in struct req */
	bool fill_own; /* PW_LEGACY: fill_own() sets it by a rule */
	size_t tp_off, tp_size; /* its field of struct tparams (a uint32_t
				 * or uint64_t; tp_size 0: none or by hand) */
	size_t tp_set_off; /* PW_VK: a bool of struct tparams, true when
			    * the knob was given (0: none) */
	bool json_count; /* RPK_SIZE in text (0.4.11's -vu), a plain count in
			  * JSON: src_path_bits (and, for schema_version 1
			  * readers, its old "_B" key too) */
};

/*
 * The parameter set of one test run: a local (client) and a remote
 * (server) value for each parameter.
 */
struct par_set {
	uint64_t val[2][PAR_COUNT]; /* PAR_TIME/PAR_TIMEOUT in ns */
	char str[2][2][PAR_STR_MAX]; /* [side][0]=id, [side][1]=static_rate */
	struct cpu_list cpus[2]; /* -ca given a list (0.5 peers) */
	bool set[2][PAR_COUNT]; /* set by the user (or by --loop) */
	const char *spelling[2][PAR_COUNT]; /* option as typed, for warnings */
	bool used[PAR_COUNT]; /* marked by the running test */
	/* The parameter table, rows[0..nrows), named by param_prepare():
	 * the outputs' -vu lines and JSON params loop over it. */
	const struct par_row *rows;
	size_t nrows;
};

/* Index into par_set.str[side][] for a string parameter, or -1. */
static inline int par_str_index(enum par_id p)
{
	return p == PAR_ID ? 0 : p == PAR_STATIC_RATE ? 1 : -1;
}

/* Output options (verbosity classes and formatting switches). */
struct out_opts {
	int v_conf, v_stat, v_time, v_used; /* 0, 1 or 2 */
	bool unify_units; /* -uu */
	bool unify_nodes; /* -un */
	bool bits; /* -ub */
	bool debug; /* -D */
	int precision; /* -e, significant digits, default 3 */
	int v_extra; /* -vx: figures beyond 0.4.11 (percentiles, process CPU, fabric) */
};

/* The nine CPU-time fields of STAT, in wire order. */
enum cpu_field {
	CPU_REAL,
	CPU_USER,
	CPU_NICE,
	CPU_KERNEL,
	CPU_IDLE,
	CPU_IOWAIT,
	CPU_IRQ,
	CPU_SOFTIRQ,
	CPU_STEAL,
	CPU_COUNT
};

struct ustat {
	uint64_t bytes, msgs, errs;
};

/*
 * What one node measured over its test window.  time_s/time_e hold
 * /proc/stat counters in USER_HZ ticks; index CPU_REAL is unused here
 * because the window is kept at nanosecond resolution in real_s/real_e
 * (CLOCK_MONOTONIC ns).  The legacy codec converts real_* to ticks.
 */
struct node_stat {
	uint32_t no_cpus;
	uint32_t no_ticks; /* USER_HZ */
	uint32_t max_cqes;
	uint64_t time_s[CPU_COUNT]; /* ticks; [CPU_REAL] see above */
	uint64_t time_e[CPU_COUNT];
	uint64_t real_s, real_e; /* ns, monotonic */
	struct ustat s, r, rem_s, rem_r;
	uint64_t lost; /* lossy latency: exchanges restarted after a loss */
	/*
	 * CPU of the test process itself (getrusage) at the window's start
	 * and end, ns; a peer's STAT block gives the differences (start 0).
	 * proc_valid false: not measured (a 0.4.11 peer).
	 */
	bool proc_valid;
	uint64_t proc_user_s, proc_user_e, proc_sys_s, proc_sys_e;
};

/* Derived per-node figures (spec §6). */
struct node_res {
	double real_time; /* seconds */
	double cpu_time; /* seconds */
	double cpu_user, cpu_intr, cpu_kernel, cpu_iowait, cpu_total; /* fraction of one CPU */
};

/*
 * Distribution of a latency (seconds), from a bounded histogram
 * (lib/hist.h).  count == 0: not measured (e.g. a 0.4.11 peer's side, a
 * bandwidth test).
 */
struct lat_summary {
	uint64_t count;
	double min, mean, max;
	double p50, p90, p99, p999, p9999;
};

/* CPU time of the test process itself over the measured window. */
struct proc_cpu {
	bool valid; /* false: not measured (0.4.11 peer) */
	double user, sys; /* seconds */
};

struct cnt_both; /* lib/counters.h */

/* Results of one test (spec §3.4), computed by calc_results(). */
/*
 * The ceiling of the path a bandwidth test used (issue 18): the lowest of
 * the limits both ends report (each port's payload rate after the
 * per-packet headers, each device's PCIe link, a socket's interface
 * speed).  Filled after calc_results(); valid false: no limit known
 * (loopback, a 0.4.11 peer's side, not a bandwidth test).
 */
struct ceiling {
	bool valid;
	double bps; /* payload bytes/s the path can carry at most */
	char what[128]; /* the limit that wins, as text and JSON name it:
			 * "PCIe Gen4 x8 of the server (0000:3b:00.0)" */
	/* Messages/s the same limit carries at the test's message size (its
	 * every packet's headers counted): bps / msg_size for a test whose
	 * messages are packets (RDMA, UDP); 0: none (stream set: TCP and the
	 * other stream sockets, whose writes are not packets) */
	double msg_rate;
	bool stream;
};

/*
 * Pacing (--rate) of one test: what was offered and what was achieved,
 * per direction, in the offered unit.  valid false: not paced.
 */
struct pace_res {
	bool valid;
	bool msgs; /* a message rate (msgs/s), else a bandwidth (bytes/s) */
	double offered; /* per direction */
	double achieved; /* per direction: the receivers' figure for a
			  * reliable transport, the senders' for a lossy one */
	double shortfall; /* 1 - achieved / offered when above the margin
			   * (PACE_MARGIN), else 0 */
	bool kernel; /* TCP's own pacing (SO_MAX_PACING_RATE) did it */
	bool spread_valid; /* the senders' slices: at least two */
	double spread; /* their coefficient of variation, 0.05 = 5 % */
	uint64_t slices; /* how many, each PACE_SLICE_NS long */
};

/*
 * Open-loop latency (--rate on a latency test, core/openloop.c) as the
 * initiator counted it.  arrivals 0 (OL_CLOSED): a closed-loop test.
 */
#define OL_ABOVE_N 3 /* round trips above 1, 10 and 100 ms */
struct ol_stat {
	uint32_t arrivals; /* enum ol_arrivals (lib/olsched.h) */
	uint64_t rate; /* requests/s offered */
	uint64_t sent; /* requests sent */
	uint64_t answered; /* requests answered (each timed) */
	uint64_t late; /* sent more than one mean interval after their
			* intended time */
	uint64_t lost; /* never answered: within the loss wait (a lossy
			* transport) or by the end of the drain */
	uint64_t out_of_order; /* answered after a later request's answer */
	uint64_t above[OL_ABOVE_N]; /* answered with a round trip above
				     * 1, 10, 100 ms */
};

/*
 * reg_mr (issue 20): the cost of registering and deregistering memory on
 * this end alone, filled by the verbs transport's local() operation
 * (transports/verbs_regmr.c).  Times in seconds, like struct lat_summary.
 */
enum regmr_odp {
	REGMR_ODP_OFF, /* ordinary pinned regions */
	REGMR_ODP_EXPLICIT, /* IBV_ACCESS_ON_DEMAND per region */
	REGMR_ODP_IMPLICIT, /* one region over the whole address space */
	REGMR_ODP_PREFETCH /* explicit, then ibv_advise_mr(PREFETCH_WRITE) */
};
#define REGMR_ODP_NAMES { "off", "explicit", "implicit", "prefetch" }
#define REGMR_THREADS_MAX 64
#define REGMR_TOUCH_MAX (256ull << 20) /* bytes of the first-touch write */
struct regmr_res {
	uint64_t size; /* bytes of each region */
	uint32_t threads; /* registering at once */
	bool hugepages, prefault;
	uint32_t odp; /* enum regmr_odp */
	uint64_t regions; /* registered and deregistered, every thread */
	double reg_bw; /* B/s: each thread's bytes over its registration
			* time, summed over the threads */
	struct lat_summary reg, dereg;
	struct lat_summary advise; /* REGMR_ODP_PREFETCH: ibv_advise_mr */
	/* ODP: an RDMA write of size bytes (at most REGMR_TOUCH_MAX) into
	 * a range never touched, then into the same range again */
	bool touch_valid;
	uint64_t touch_bytes;
	double touch_cold, touch_warm; /* s: post to completion */
};

/*
 * A connection-setup test (issue 20: tcp_conn, rc_conn, rc_qp_setup): the
 * client's transactions, each the same steps one after the other, which
 * the test's transport names (struct conn_steps, at most CONN_STEPS_MAX).
 * Times in seconds, like struct lat_summary; the steps in their order.
 */
#define CONN_STEPS_MAX 8
struct conn_steps {
	int n; /* steps of a transaction, 1..CONN_STEPS_MAX */
	/* each step's name in the report ("connect": connect_p50, ...) and
	 * its key in JSON; never "transaction" nor another conn key */
	const char *name[CONN_STEPS_MAX];
};

struct conn_res {
	uint64_t txns; /* transactions completed in the window */
	/* bytes of each request and of each answer; 0: the transaction
	 * carries no message of --msg_size (rc_qp_setup) */
	uint64_t msg_size;
	double rate; /* transactions/s over the client's window */
	const struct conn_steps *steps; /* the transport's; never NULL */
	struct lat_summary step[CONN_STEPS_MAX]; /* steps->n of them */
	struct lat_summary txn; /* the whole transaction */
	/* A storm (--qps N > 1): N setups per transaction; the steps'
	 * summaries are over the N QPs' times in each step, txn over the
	 * storms.  qps is 1 without one. */
	uint32_t qps;
	double qp_rate; /* QPs set up per second: rate * qps */
	double step_storm[CONN_STEPS_MAX]; /* s: each step's mean time
					    * over the whole storm */
};

/*
 * --qps (issue 20): one end's QPs of an RDMA test, from its transport
 * (transports/verbs_qps.c) and, for the server, its STAT block.  Counts
 * are the messages that end counted on each QP as 0.4.11 counts them:
 * sends and writes when posted, receives and reads when complete.
 * Memory is per QP: the registered buffer (one for all QPs) divided
 * among them, the estimate of what the device pins for the queues, and
 * what the process grew by while the QPs and CQs were made.
 */
struct qp_side {
	bool valid; /* false: not known (the peer is not a 0.5 one) */
	uint32_t n; /* QPs */
	uint32_t threads; /* this end's threads they were spread over */
	bool conns; /* data connections of a --conns test, not QPs: queue_B
		     * is their socket buffers, mr_B 0 */
	bool cq_per_qp; /* a CQ per QP, else one shared by all */
	uint64_t setup_ns; /* creating, exchanging and connecting them all */
	uint64_t mr_B, queue_B, proc_B; /* bytes per QP (above) */
	uint64_t total, min, median, max; /* messages, over all QPs */
	uint32_t listed; /* counts[0..listed): QPs 0.. in order */
	uint64_t counts[QPS_LIST_MAX];
};

struct results {
	/*
	 * Beyond 0.4.11 (shown with -vx and in JSON only): latency as 0.4.11
	 * defines it for the test (half the round trip for ping-pong, the
	 * whole operation for RDMA read) and the round trip; both ends
	 * merged with a 0.5 peer.
	 */
	struct lat_summary lat, rtt;
	struct proc_cpu lp, rp; /* the test process on the client / server */
	double send_cost_msg, recv_cost_msg; /* CPU seconds per message */
	struct node_stat l, r; /* after the rem_s/rem_r merge */
	struct node_res ln, rn;
	double latency; /* seconds */
	double msg_rate; /* 1/s */
	double send_bw, recv_bw; /* bytes/s */
	double send_cost, recv_cost; /* CPU seconds per byte */
	/* cluster mode with -I: the lowest interval's receive rate, B/s */
	double ival_low;
	uint32_t ival_n; /* the intervals behind it; 0: none */
	struct ceiling ceil; /* bandwidth tests: what the path can carry */
	/* Loss and error counters of both ends (lib/counters.h), or NULL;
	 * valid only during the result event that carries these results. */
	const struct cnt_both *cnt;
	struct pace_res pace; /* --rate */
	struct ol_stat ol; /* --rate on a latency test: open loop */
	/* reg_mr: its figures, or NULL; valid only during the result
	 * event that carries these results. */
	const struct regmr_res *regmr;
	/* A connection-setup test: its figures, or NULL; valid as regmr
	 * is. */
	const struct conn_res *conn;
	/* --qps: both ends' QPs (loc, rem), or NULL; valid as regmr is. */
	const struct qp_side *qps;
};

/* The conf test's four strings (CONF message, spec §2.6). */
struct conf_info {
	char node[64], cpu[64], os[64], qperf[64];
};

/*
 * Fabric state of one end (conf with -vx and in JSON): each RDMA device
 * and port as ibstat / ibv_devinfo show them.  Filled by fabric_query()
 * (transports/table.c) for this end and decoded from the CONF extension
 * for a 0.5 peer.  Bounded: entries past the limits are dropped and
 * truncated is set.
 */
#define FAB_DEV_MAX 8
#define FAB_PORT_MAX 4 /* per device */
#define FAB_GID_MAX 16 /* per port: the non-empty entries */

enum fab_gid_type { FAB_GID_IB = 0, FAB_GID_ROCE_V1 = 1, FAB_GID_ROCE_V2 = 2 };

struct fab_gid {
	uint32_t index;
	uint32_t type; /* enum fab_gid_type */
	uint8_t gid[16];
};

struct fab_port {
	uint32_t port; /* 1-based */
	uint32_t state; /* enum ibv_port_state: 1 down .. 4 active, 5 defer */
	uint32_t phys_state; /* 1 sleep, 2 polling, 3 disabled, ... 5 link up */
	uint32_t width; /* lanes: 1, 2, 4, 8 or 12; 0 unknown */
	uint32_t speed_mbps; /* signalling rate of one lane, Mb/s; 0 unknown */
	uint32_t link_layer; /* 1 InfiniBand, 2 Ethernet */
	uint32_t active_mtu; /* bytes */
	uint32_t lid; /* 0 on Ethernet */
	/* This host's own ports only (not in the CONF extension): the
	 * rdma-core speed code, and what PortInfo enables (lib/portinfo.h;
	 * 0 unknown), for the host checks */
	uint32_t speed, width_enabled, speed_enabled;
	uint32_t ngids;
	struct fab_gid gids[FAB_GID_MAX];
};

struct fab_dev {
	char name[64];
	int32_t numa_node; /* -1: unknown or none */
	uint32_t nports;
	struct fab_port ports[FAB_PORT_MAX];
};

struct fabric {
	uint32_t ndevs;
	struct fab_dev devs[FAB_DEV_MAX];
	bool truncated; /* more devices, ports or GIDs than the limits */
};

/*
 * What conf knows of one end beyond 0.4.11's four strings.  valid is
 * false for a 0.4.11 peer (its CONF has nothing more).
 */
struct conf_ext {
	bool valid;
	char kernel[64]; /* uname release */
	char machine[32]; /* uname machine */
	int32_t numa_nodes; /* -1: unknown */
	uint32_t cpus; /* online */
	struct fabric fab;
};

/* --json (one document), --json_stream (one object per line): output/json.h */
enum json_mode { JSON_OFF, JSON_DOC, JSON_STREAM };

/* The figures of one interval of one side (-I: core/interval.h). */
struct ival_rec {
	uint32_t index; /* 0, 1, ... in this side's sequence */
	bool peer; /* the server's figures (client: from the control conn.) */
	bool last; /* the final interval of the test */
	uint64_t start, end; /* ns from the start of that side's window */
	struct ustat s, r; /* sent and received within the interval */
};

/*
 * One --loop variable as the outputs see it in one iteration (a test's
 * "loop" in JSON, a plot's x axis and series).
 */
enum loop_unit {
	LOOP_UNIT_COUNT,
	LOOP_UNIT_SIZE,
	LOOP_UNIT_TIME,
	LOOP_UNIT_BYTE_RATE, /* --rate: bytes/s */
	LOOP_UNIT_MSG_RATE /* --rate: msgs/s */
};
struct loop_val {
	const void *key; /* the same variable has the same key */
	const char *name; /* "msg_size": the option without its dashes */
	enum loop_unit unit; /* LOOP_UNIT_TIME: value in ns */
	uint64_t value; /* this iteration's */
	uint64_t incr; /* the step: times incr (mult), else plus incr */
	bool mult;
};

/* Cluster mode: what a pair's test measured (SI units). */
struct pair_res {
	double send_bw, recv_bw; /* bytes/s */
	double msg_rate; /* 1/s */
	double latency; /* s */
	struct lat_summary lat;
	double ival_low; /* -I: the lowest interval's receive rate, B/s */
	uint32_t ival_n; /* the intervals behind it; 0: none */
	struct ceiling ceil; /* bandwidth tests: the path's ceiling, from
			      * both ends' facts (valid false: none known) */
	double window; /* s: the longer of the two ends' measured windows */
};

/*
 * --clients (core/clients.c): one client's outcome of one test.  The
 * figures are its pair_res (SI units); start is when its window began,
 * in ns after the earliest client's.
 */
#define CLIENTS_MAX 16 /* --clients: the most a qperf server runs at once */
#define CLIENT_ERR_MAX 400
struct client_res {
	bool ok;
	struct pair_res r;
	double fig; /* the test's figure: bandwidth (recv_bw) in B/s, a
		     * message rate in 1/s or a latency in s */
	uint64_t start; /* ns after the first client's window began */
	char err[CLIENT_ERR_MAX]; /* when !ok */
};

#endif
