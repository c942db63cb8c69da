/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The transport interface.  A transport (tcp, udp, sdp, sctp, rds, rc, uc,
 * ud, xrc, and the in-memory one of the unit tests) is a static const
 * descriptor with operations; a test is a descriptor naming its transport,
 * its measurement loop and its data operation.  Every test lives in one
 * table (transports/table.c) in 0.4.11's wire-index order (spec §2.4).
 *
 * The engine (core/) runs each loop once for every transport through the
 * operations below; it makes no socket or verbs data-path call and never
 * branches on a transport.  Transports never print, never exit and never
 * read options: they get a struct tparams and a narrow control channel,
 * and return errors in a caller's buffer.
 *
 * Life of one side of one test (both roles, core/session.c):
 *   s = session with tp, test, params, channel
 *   tp->open(s)              data sockets / device, PD, CQ, MR, QP,
 *                            NODE exchange, QP to RTS; sets s->buf
 *   loop prep                initial receives, marker bytes
 *   "before" sync            (core, on the control connection)
 *   loop run                 tp->post() / tp->poll() until done
 *   tp->close(s)             releases everything, past failures too
 */
#ifndef QPERF_TRANSPORT_H
#define QPERF_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/facts.h"
#include "lib/types.h"

/* Which headline figures a test reports (spec §3.5). */
enum measure {
	MEAS_NONE, /* conf, quit */
	MEAS_LATENCY,
	MEAS_MSG_RATE,
	MEAS_BANDWIDTH,
	MEAS_BANDWIDTH_SR,
	MEAS_REGMR, /* reg_mr: registration latency and rate (regmr_res) */
	MEAS_CONN /* connection setup: rate and steps (conn_res) */
};

enum test_kind {
	TK_CONF,
	TK_QUIT,
	TK_DATA, /* everything that runs a measurement loop */
	TK_LOCAL /* runs on the client alone: the transport's local() */
};

/* The measurement loops of core/measure.c, each written once. */
enum loop_kind {
	LOOP_NONE, /* conf, quit */
	LOOP_STREAM_BW, /* client sends (or writes with imm), server receives */
	LOOP_BI_BW, /* both send and receive */
	LOOP_PINGPONG, /* ping-pong latency, client starts */
	LOOP_ONESIDED, /* client reads / does atomics, server idles */
	LOOP_WRITE_POLL, /* RDMA write, spin on own buffer */
	LOOP_ATOMIC_VER, /* atomics with the returned values checked */
	LOOP_CONN /* a new connection per transaction, in steps the
		   * transport names (core/measure_conn.c) */
};

/* Data operations. */
enum op {
	OP_SEND,
	OP_RECV,
	OP_WRITE, /* RDMA write, signalled */
	OP_WRITE_IMM, /* RDMA write with immediate: consumes a receive */
	OP_READ,
	OP_FADD, /* fetch and add */
	OP_CSWAP /* compare and swap */
};

/* Transport flags. */
#define TF_LOSSY 0x1u /* messages may be lost (udp, uc, ud) */
#define TF_EOF_ENDS 0x2u /* closing the data path ends the peer's loop
			  * (streams): close right after the loop, and a
			  * 0.4.11 server needs no count of its own */
#define TF_RDMA 0x4u /* verbs transport (mtu_size and friends apply) */
#define TF_XRC 0x8u /* needs the peer's XRC capability */
#define TF_CLOSE_EARLY 0x10u /* close the data path right after the loop */
#define TF_LEGACY_CM 0x20u /* 0.4.11 connects it through RDMA CM (-cm1) */
#define TF_SLOTS 0x40u /* with p.slots: each receive lands in a slot of its
			* own (rx_data()), each send goes from the next one
			* (tx_data()), up to s->slots of them in flight */
#define TF_CTL_STEPS 0x80u /* LOOP_CONN: the steps talk on the control
			    * connection, so the server's loop learns the
			    * end from conn() (the client's conn_done()),
			    * not from a thread watching that connection */

/* Open-loop slots of a TF_SLOTS transport: at most TSLOTS_MAX requests in
 * flight, each with a receive and a send slot of its message (and the
 * transport's header) rounded up to TSLOT_ALIGN, TSLOTS_MEM bytes of
 * slots at most: fewer slots where the messages are large. */
#define TSLOTS_MAX 256u
#define TSLOTS_MEM (16u << 20)
#define TSLOT_ALIGN 64u

/* The slots that fit for len-byte slots (at least one) and their bytes. */
static inline uint64_t tslot_len(uint64_t len)
{
	return len ? (len + TSLOT_ALIGN - 1) / TSLOT_ALIGN * TSLOT_ALIGN
		   : TSLOT_ALIGN;
}

static inline uint32_t tslots_fit(uint64_t slot_len, uint32_t want)
{
	uint64_t n = want < TSLOTS_MAX ? want : TSLOTS_MAX;

	if (n * 2 * slot_len > TSLOTS_MEM)
		n = TSLOTS_MEM / 2 / slot_len;
	return n ? (uint32_t)n : 1;
}

/* Test flags. */
#define TDF_LEGACY_N 0x1u /* 0.4.11 honours -n in this test (RDMA SEND bw) */
#define TDF_OL_NEW 0x2u /* runs open loop (--rate) only against a peer
			 * announcing CAP_OLRDMA (RDMA latency, rs_lat) */
#define TDF_QPS2 0x4u /* runs --qps only against a peer announcing
		       * CAP_QPS2 (XRC, bidirectional, atomics) */

/* This side's parameters for one test (client: loc_ values; server: the
 * request).  Times in ns. */
struct tparams {
	uint32_t msg_size; /* bytes */
	uint32_t mtu_size; /* bytes; RDMA path MTU asked for */
	bool mtu_explicit; /* -mt given (else: min(mtu_size, active MTUs)) */
	uint32_t poll_mode; /* 0: wait for CQ events; else busy-poll */
	uint32_t port; /* socket data port on the server (0 = any) */
	uint32_t rd_atomic; /* 0: the device's maximum */
	uint32_t sl; /* IB service level */
	uint32_t sock_buf_size; /* bytes, 0 = leave */
	uint32_t src_path_bits;
	uint32_t alt_port; /* 0 = none */
	uint32_t use_cm;
	uint32_t access_recv;
	int gid_index; /* -1: choose automatically */
	uint32_t affinity; /* -ca: 0 none, N = CPU N-1 */
	/* Verbs knobs (0 or -1: 0.4.11's behaviour; see enum par_id). */
	uint32_t sq_depth, rq_depth; /* WRs; 0 = the test's depth */
	bool inline_set; /* --inline_size given (else: what the QP gives) */
	uint32_t inline_size; /* bytes, with inline_set */
	uint32_t cq_mod; /* signal every Nth send; 0 or 1 = every one */
	uint32_t post_list; /* WRs per post call at most; 0 = VERBS_BATCH */
	uint32_t use_srq; /* non-zero: receive through an SRQ */
	uint32_t tclass; /* RoCE traffic class */
	uint32_t pkey_index;
	bool numa_set; /* --numa_node given (else: the device's node) */
	uint32_t numa_node; /* with numa_set */
	uint32_t cq_per_qp; /* non-zero: with several QPs, a CQ for each */
	/* --qps: QPs this session holds and posts to in turn, each peered
	 * with the peer's QP of the same index (0 or 1: one, as 0.4.11) */
	uint32_t qps;
	/* --streams (core/streams.c): streams of this test, and the -ca
	 * list that pins stream i to CPU list.pn[i % n] - 1. */
	uint32_t streams; /* 0 or 1: one stream, as in 0.4.11 */
	struct cpu_list cpus;
	/* --threads: reg_mr's registering threads (0 = 1); on a --qps test
	 * the threads its QPs are spread over, run as streams (streams =
	 * threads) but with -n the total over them all (total_n) */
	uint32_t threads;
	bool total_n;
	uint32_t qps_test; /* --threads: the QPs of all threads (0: qps) */
	/* --conns: the data connections this session holds, and with
	 * --threads those of the whole test and of the threads before */
	uint32_t conns, conns_test, conns_before;
	/* --rate of the whole test (0: not paced), one of the two; each
	 * stream paces at its share (tsess_rate()). */
	uint64_t rate; /* bytes/s */
	uint64_t msg_rate; /* messages/s */
	/* --rate on a latency test: open loop, its arrivals (enum
	 * ol_arrivals, lib/olsched.h); 0: closed loop */
	uint32_t arrivals;
	/* Open loop: requests the loop would keep in flight (its window,
	 * core/openloop.c); 0: one, a closed loop.  Set by the core before
	 * open(), never on the wire: a transport that gives each receive a
	 * slot of its buffer (TF_SLOTS) sizes its buffer and queues for it. */
	uint32_t slots;
	uint64_t time; /* ns, 0 = no time limit */
	uint64_t timeout; /* ns, per control message and idle limit */
	uint64_t no_msgs; /* 0 = no count limit */
	char id[PAR_STR_MAX]; /* "device[:port]" or "" */
	/* Memory registration (reg_mr; the RDMA bandwidth tests apply
	 * hugepages and odp to this end's buffer): set by the client from
	 * its own options, never sent to the server */
	bool hugepages; /* 2 MiB pages (MAP_HUGETLB) */
	bool prefault; /* reg_mr: touch every page before registering */
	uint32_t odp; /* enum regmr_odp (lib/types.h) */
	char static_rate[PAR_STR_MAX]; /* rate name or "" */
};

/* Capability bits a 0.5 peer announces in the request extension. */
#define CAP_NODE_EXT 0x1u /* NODE is followed by a NODE extension block */
#define CAP_XRC 0x2u /* implements the xrc_* tests */
#define CAP_LOSS 0x4u /* lossy latency tests recover from lost messages */
#define CAP_DATA_SECRET 0x8u /* stream data connections start with a secret */
#define CAP_HIST 0x10u /* client: send me the round-trip histogram in STAT */
#define CAP_VKNOBS 0x100u /* honours the verbs knob items (REQX_VK_BASE..) */
#define CAP_INTERVAL 0x20u /* sends interval reports (core/interval.h) */
#define CAP_CONF_EXT 0x40u /* CONF is followed by a CONF extension block */
#define CAP_STREAMS 0x200u /* runs --streams (REQX_STREAMS, STATX_STREAM) */
#define CAP_FACTS 0x400u /* STAT carries this end's path facts (STATX_FACTS) */
#define CAP_COUNTERS 0x800u /* STAT carries this end's counters (STATX_COUNTERS) */
#define CAP_FOREVER 0x1000u /* runs -t 0 until the client says "test done" */
#define CAP_RATE 0x2000u /* paces its sends at REQX_RATE / REQX_MSG_RATE */
#define CAP_OPENLOOP 0x4000u /* runs open-loop latency (REQX_ARRIVALS) */
#define CAP_OLRDMA 0x8000u /* ... on the RDMA latency tests and rs_lat too */
#define CAP_CONN 0x10000u /* runs tcp_conn (wire index 39, LOOP_CONN) */
#define CAP_RCCONN 0x20000u /* runs rc_conn (wire index 40, RDMA CM) */
#define CAP_QPSETUP 0x40000u /* runs rc_qp_setup (wire index 41) */
#define CAP_QPS 0x80000u /* runs --qps (REQX_QPS, the QPN blocks, STATX_QPS) */
#define CAP_STORM 0x100000u /* runs --qps on rc_conn and rc_qp_setup: a
			     * storm of N setups per transaction */
/* ... also on the tests flagged TDF_QPS2 and with --cq_moderation */
#define CAP_QPS2 0x800000u
#define CAP_THREADS 0x200000u /* runs --threads over --qps (REQX_THREADS) */
#define CAP_CONNS 0x400000u /* runs --conns (REQX_CONNS, STATX_CONNS) */

/*
 * The control connection as a transport sees it.  send/recv move exactly
 * len bytes within the timeout (item names the message in errors:
 * "failed to receive node information: timed out"); they return 0 or -1
 * with err filled (a peer's error notice reads "server: <text>").  Only
 * when ext is set may a transport send or expect extension blocks
 * (lib/tlv.h); a legacy (0.4.11) peer sees exactly 0.4.11's messages.
 */
struct chan {
	int (*send)(struct chan *ch, const void *buf, size_t len,
		    const char *item, char *err, size_t errlen);
	int (*recv)(struct chan *ch, void *buf, size_t len, const char *item,
		    char *err, size_t errlen);
	/* One TLV block (lib/tlv.h): recv_ext checks the header, reads the
	 * rest and sets *len; a block larger than cap is an error. */
	int (*send_ext)(struct chan *ch, const uint8_t *blk, size_t len,
			const char *item, char *err, size_t errlen);
	int (*recv_ext)(struct chan *ch, uint8_t *blk, size_t cap,
			size_t *len, const char *item, char *err,
			size_t errlen);
	bool ext; /* the peer speaks qperf 0.5's dialect */
	uint32_t peer_caps; /* CAP_* of the peer (0 for a legacy peer) */
	int watch_fd; /* pollable; POLLPRI or POLLRDHUP: the peer gave up */
	struct sockaddr_storage local, peer; /* control connection's ends */
	uint64_t timeout; /* ns, per message */
	bool debug;
	void *ctx; /* core's */
};

struct test_desc;
struct transport;
struct cnt_set; /* lib/counters.h */

/* What a transport asks the report to show with -v, e.g. on RoCE:
 * "loc_gid" = "::ffff:10.0.0.1 (index 3, RoCE v2)". */
#define TNOTE_MAX 8
struct tnote {
	char name[24];
	char value[80];
	bool extra; /* of the -vx class (placement, limits beyond 0.4.11) */
};

/* One side of one running test. */
struct tsess {
	const struct transport *tp;
	const struct test_desc *t;
	bool server;
	struct tparams p;
	struct chan *ch;
	char *buf; /* the message buffer; set by open, owned by the transport */
	size_t buflen; /* bytes */
	size_t rx_off; /* where messages start in buf (UD: 40, after the GRH) */
	uint32_t max_inline; /* bytes; sends up to this size go inline */
	uint32_t max_cqes; /* largest number of completions of one poll */
	int last_errno; /* of the last failed send or receive (sockets) */
	bool ended; /* the peer ended the data phase (EOF, reset) */
	struct tnote notes[TNOTE_MAX]; /* set by open(), shown with -v */
	int nnotes;
	/* Set by open(): the node the transport placed its buffers on.  The
	 * core then runs this side's thread there too, unless -ca pins it. */
	bool numa_placed;
	int numa_node;
	/* The core's "time is up" flag (set by its SIGALRM handler), or
	 * NULL.  Lets a busy-polling poll() notice the timer, and a sleeping
	 * one avoid the race of an alarm just before it sleeps. */
	const volatile sig_atomic_t *stop;
	/* Set by a loop that must not block in a send (open loop: waiting
	 * for room to send while the answers that would make room go
	 * unread stalls both ends): post() of a send that cannot start now
	 * returns TP_AGAIN.  A transport whose sends never wait ignores it. */
	bool nowait;
	/* The server watchdog's progress counter for this child
	 * (core/progress.h), or NULL: a transport that moves part of a
	 * message bumps it through tsess_progress(). */
	uint64_t *progress;
	/* Set by open(): the kernel paces this session's sends at its
	 * tsess_rate() (TCP's SO_MAX_PACING_RATE): the loop then does not. */
	bool kernel_paced;
	/* Set by open() of a TF_SLOTS transport from p.slots: receives (and
	 * sends) it can keep in flight, each in its own slot; 0: one. */
	uint32_t slots;
	/* Set by open(): the receives the loop posts before its window, when
	 * not tsess_depth(s, true) (several QPs: each QP's share). */
	uint32_t rx_posted;
	void *priv; /* tp->priv_size bytes, zeroed, owned by core */
};

/* One work request.  slot is the wr_id and, for atomics, selects the
 * 8-byte local slot that receives the old value. */
struct twr {
	enum op op;
	uint32_t slot;
	uint64_t compare; /* OP_CSWAP: compare value; OP_FADD: addend */
	uint64_t swap; /* OP_CSWAP: swap value */
};

enum tc_status {
	TC_OK,
	TC_ERR /* this operation failed; counted, the test goes on */
};

struct tcomp {
	enum op op;
	enum tc_status status;
	uint32_t slot;
	uint32_t bytes; /* payload bytes moved */
};

/* post() return values other than a count. */
#define TP_FATAL (-1) /* err filled; the test fails */
#define TP_SOFT (-2) /* one operation failed (a datagram): count an error */
#define TP_IDLE (-3) /* nothing could be sent for the idle limit */
#define TP_NOT_HERE (-4) /* check(): this host cannot run the transport */
#define TP_AGAIN (-5) /* post() with s->nowait: the send would have to wait
		       * (nothing sent, nothing counted); try again later */

struct transport {
	const char *name; /* "tcp", "rc", ... for --version */
	const char *label; /* "TCP", "RC", ... for messages */
	unsigned flags; /* TF_* */
	uint32_t max_msg; /* largest message in bytes, 0 = no own limit */
	size_t priv_size; /* bytes of per-session state in s->priv */

	/*
	 * Optional.  Check this side's parameters (s->p, s->t) against what
	 * the transport can see locally (its device and port), without any
	 * peer: s->ch is a stand-in that claims a 0.5 peer.  Uses s->priv.
	 * Returns 0; -1 with err filled for a bad value (the client refuses
	 * the command line, exit 2, before any test runs); or TP_NOT_HERE
	 * with err filled when the transport cannot run on this host at all
	 * (no RDMA device: exit 1).
	 */
	int (*check)(struct tsess *s, char *err, size_t errlen);

	/*
	 * Set up the data path for s (both roles): sockets make, announce
	 * and connect the data socket; verbs open the device, create PD,
	 * CQ, MR and QP, exchange NODE and move the QP to RTS.  Allocates
	 * s->buf (s->p.msg_size bytes at least).  Blocks at most about the
	 * timeout per exchange.  Returns 0, or -1 with err filled.  After a
	 * failure close() is still called and must release what was made.
	 */
	int (*open)(struct tsess *s, char *err, size_t errlen);

	/* Release everything (idempotent; goes on past failures). */
	void (*close)(struct tsess *s);

	/*
	 * Post n copies of wr (n >= 1).  Sockets perform the operation at
	 * once (a send blocks until done, the timer fires or the idle limit
	 * passes) and queue its completion; a receive adds a credit that
	 * poll() turns into a blocking receive.  Returns the number posted
	 * (0: the test is over: timer, peer closed), TP_SOFT, TP_IDLE,
	 * TP_AGAIN (s->nowait), or TP_FATAL with err filled.
	 */
	int (*post)(struct tsess *s, const struct twr *wr, uint32_t n,
		    char *err, size_t errlen);

	/*
	 * Collect up to max completions, waiting at most wait ns for the
	 * first (0: do not wait; UINT64_MAX: up to the idle limit
	 * s->p.timeout).  The timer's SIGALRM (no SA_RESTART) ends a wait
	 * early.  A transport may round a finite wait to a coarser step.
	 * Busy-polls or sleeps per s->p.poll_mode.  Returns the number
	 * collected (0: nothing within wait, or the timer fired, or
	 * s->ended was set), or TP_FATAL with err filled ("<test> failed:
	 * <status>" for an error completion).  Updates s->max_cqes.
	 */
	int (*poll)(struct tsess *s, struct tcomp *c, int max, uint64_t wait,
		    char *err, size_t errlen);

	/*
	 * Optional (NULL: none).  This side's loss and error counters as
	 * they are now (lib/counters.h) into c, already cnt_init()ed: the
	 * core reads them at the start and the end of the measured window
	 * and keeps the difference.  Blocks only on getsockopt() or a few
	 * small /proc and sysfs reads; never fails (what cannot be read is
	 * left out).
	 */
	void (*counters)(struct tsess *s, struct cnt_set *c);

	/*
	 * Optional.  With several QPs (--qps): this session's figures of
	 * them into q (zeroed by the caller): n, cq_per_qp, the time it took
	 * to set them all up and memory per QP; and each QP's count of
	 * messages into counts[0..n) (room for p.qps).  The core works out
	 * the spread (lib/qpspread.h).  After the loop, before close().
	 * Never blocks.
	 */
	void (*qp_stats)(const struct tsess *s, struct qp_side *q,
			 uint64_t *counts);

	/*
	 * Optional.  What this side knows of the link the session uses,
	 * into f (facts_init()ed by the caller): verbs the device, port,
	 * link layer, speed, width and MTUs; sockets the interface of the
	 * data connection's local address (none on loopback).  The core
	 * adds what sysfs says (core/pathrun.c).  After a successful open(),
	 * before close().  Never blocks on the peer.
	 */
	void (*facts)(const struct tsess *s, struct path_facts *f);

	/*
	 * Optional (NULL: s->buf + s->rx_off, the one message buffer, which
	 * a poll() returning one receive at a time leaves for the loop to
	 * read).  rx_data: the payload of receive completion c, valid until
	 * that receive is posted again.  tx_data: where the payload of the
	 * next send goes, to be written before post().  Never block.
	 */
	char *(*rx_data)(struct tsess *s, const struct tcomp *c);
	char *(*tx_data)(struct tsess *s);

	/*
	 * Optional.  A test with no peer (TK_LOCAL: reg_mr): run it on this
	 * side alone with s->p, for s->p.time (or s->p.no_msgs rounds),
	 * into r.  open() and close() are not called.  Blocks for the
	 * test's time.  Returns 0; -1 with err filled (the test failed);
	 * or TP_NOT_HERE with err filled (this host cannot run it).
	 */
	int (*local)(struct tsess *s, struct regmr_res *r, char *err,
		     size_t errlen);

	/*
	 * A connection-setup test (LOOP_CONN): the steps of one transaction
	 * (names and number), and one step of one transaction, for either
	 * role.  open() made what lasts the whole test (the server's
	 * listener, the client's address of it, a verbs PD, CQ and MR); a
	 * transaction runs conn() for step 0, 1, ... conn_steps->n - 1.
	 * Every wait ends after s->p.timeout; a step may end early at the
	 * timer (s->stop).  Returns 1 (done); 0 (the test is over: the
	 * timer fired, or the peer said so); TP_SOFT (server only: this
	 * transaction's client went away or stalled; what it made is
	 * released and the next one is served); or TP_FATAL with err
	 * filled (the client's failures; the server's when no transaction
	 * came for the timeout or the client hung up).  A step that failed
	 * leaves the rest of its transaction to close().
	 */
	const struct conn_steps *conn_steps;
	int (*conn)(struct tsess *s, int step, char *err, size_t errlen);
	/*
	 * Optional (client): the loop ended (its time, -n, an interrupt; a
	 * transaction a step ended early is left as that step left it),
	 * before close().  TF_CTL_STEPS: tell the server so on the control
	 * connection.  0, or -1 with err filled.
	 */
	int (*conn_done)(struct tsess *s, char *err, size_t errlen);
	/*
	 * Optional: a storm (--qps N, 2..storm_max; s->p.qps): each
	 * transaction sets up N connections at once, the loop calling
	 * conn_storm() for step 0, 1, ... in turn, each running its step
	 * over all N before it returns (what waits, for all N at once).
	 * Fills slot_ns[0..N-1] with each one's time in the step, from its
	 * start to its completion (client; the server's slot_ns is scratch).
	 * Returns as conn().
	 */
	int (*conn_storm)(struct tsess *s, int step, uint64_t *slot_ns,
			  char *err, size_t errlen);
	uint32_t storm_max; /* the largest N of a storm */
};

/* The payload of receive completion c (transport's rx_data()). */
static inline char *tsess_rx_data(struct tsess *s, const struct tcomp *c)
{
	return s->tp->rx_data ? s->tp->rx_data(s, c) : s->buf + s->rx_off;
}

/* Where the next send's payload goes (transport's tx_data()). */
static inline char *tsess_tx_data(struct tsess *s)
{
	return s->tp->tx_data ? s->tp->tx_data(s) : s->buf + s->rx_off;
}

#define PAR_BIT(p) (1ull << (p))

struct test_desc {
	const char *name;
	uint16_t index; /* 0.4.11 req_index */
	enum test_kind kind;
	enum measure measure;
	enum loop_kind loop;
	enum op op; /* the data operation of the loop */
	uint32_t depth; /* work requests kept outstanding (0.4.11: 1024/1) */
	uint32_t msg_size; /* default message size, bytes (0 = none) */
	uint64_t uses; /* PAR_BIT() of each parameter the test uses */
	unsigned flags; /* TDF_* */
	const struct transport *tp; /* NULL for conf and quit */
	const char *missing; /* why the test cannot run in this build */
	/* The CAP_* a server must announce to run it (0: any server); a
	 * server announces those of the tests it has a transport for. */
	uint32_t cap;
};

/*
 * Work requests a loop keeps outstanding on s: sends (recv false) or
 * receives, the test's depth (0.4.11's 1024 or 1) unless --sq_depth or
 * --rq_depth gave one.  Used by the loops and the verbs queue sizes.
 */
/* Has the core's timer ended the test? */
static inline bool tsess_stopped(const struct tsess *s)
{
	return s->stop && *s->stop;
}

/* Data moved: tell the server's watchdog (a plain store, no system call). */
static inline void tsess_progress(const struct tsess *s)
{
	uint64_t *c = s->progress;

	if (c)
		__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
}

static inline uint32_t tsess_depth(const struct tsess *s, bool recv)
{
	uint32_t d = recv ? s->p.rq_depth : s->p.sq_depth;

	return d ? d : s->t->depth;
}
/* This stream's share of the test's --rate in bytes/s (0: not paced or
 * paced by messages). */
static inline uint64_t tsess_rate(const struct tsess *s)
{
	uint64_t n = s->p.streams > 1 ? s->p.streams : 1;

	return s->p.rate ? (s->p.rate + n - 1) / n : 0;
}

/* The highest wire index 0.4.11 knows (xrc_lat); later tests need a 0.5
 * peer. */
#define TEST_LEGACY_LAST 35

extern const struct test_desc test_table[];
extern const size_t test_count;

/* Returns the test called name, or NULL.  Does not block. */
const struct test_desc *test_find(const char *name);

/*
 * The one-way bandwidth test of t's transport (the first of the table:
 * tcp_bw for tcp_lat, udp_bw for udp_lat, rc_bw for rc_lat and
 * rc_rdma_write_lat, ud_bw for ud_lat, ...), or NULL if it has none.
 */
const struct test_desc *test_bw_of(const struct test_desc *t);

/* Returns the test with wire index idx, or NULL if out of range. */
const struct test_desc *test_by_index(unsigned idx);

/* Space-separated names of the transports compiled in (from the table). */
const char *test_transports(void);

/*
 * This host's fabric state for conf (struct fabric, lib/types.h): the
 * RDMA devices and ports, or none in a build without RDMA.  The verbs
 * code lives in transports/verbs_fabric.c.  Blocks only on device
 * queries; never fails (what cannot be read is left out).
 */
void fabric_query(struct fabric *f);

/* "built" when the RDMA tests can run, else "not built". */
const char *test_rdma_status(void);

#endif
