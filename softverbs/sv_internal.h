/* SPDX-License-Identifier: MIT */
/*
 * softverbs internals: a user-space libibverbs.so.1 that moves data between
 * processes of one machine over AF_UNIX datagram sockets.
 *
 * Invariants (see docs/softverbs.md for the user view):
 *  - every QP owns one SOCK_DGRAM socket bound to the abstract name
 *    "softverbs/<fabric>/<node>/<qpn>"; a successful bind allocates the QPN;
 *  - requests (SEND, WRITE, READ request, atomics) are sent by the
 *    application thread in post_send, which waits while the peer's queue is
 *    full, never while holding ctx->mu;
 *  - everything a responder emits (ACK, NAK, READ response, atomic response)
 *    is sent non-blocking from ctx->resp_fd; what does not fit goes to the
 *    context's FIFO backlog, so packet processing never blocks;
 *  - packets of a context are processed by one thread at a time (rx_lock),
 *    either the progress thread or an application thread polling a CQ;
 *  - all QP/CQ/SRQ state of a context is protected by ctx->mu.
 */
#ifndef SV_INTERNAL_H
#define SV_INTERNAL_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#define SV_EXPORT __attribute__((visibility("default")))

#define SV_CHUNK (64 * 1024)		/* bytes of payload per datagram */
#define SV_MAX_SGE 32
#define SV_MAX_INLINE 1024		/* bytes */
#define SV_MIN_INLINE 64		/* bytes: every send queue has them */
#define SV_MAX_WR 32768
#define SV_MAX_CQE (4 * 1024 * 1024)
#define SV_MAX_RD_ATOMIC 16
#define SV_MAX_MR (1 << 20)
#define SV_MAX_QP 65536
#define SV_PKT_MAGIC 0x53563031u	/* "SV01" */
#define SV_GID_TBL_LEN 16		/* RoCE GID table capacity, entries */
#define SV_MAX_ADDRS ((SV_GID_TBL_LEN - 2) / 2)	/* SOFTVERBS_ADDRS */

/* ---- configuration (environment, read once) -------------------------- */

enum { SV_GID_V1 = 1, SV_GID_V2 = 2 };	/* RoCE versions of the port */

/* one entry of the port's GID table */
struct sv_gid {
	union ibv_gid gid;
	enum ibv_gid_type type;		/* IB, ROCE_V1 or ROCE_V2 */
};

struct sv_config {
	char dev_name[64];
	char fabric[64];
	uint32_t node;			/* emulated host: LID and GID suffix */
	bool roce;			/* Ethernet link layer: LID 0, GRH */
	enum ibv_mtu mtu;		/* active MTU */
	enum ibv_mtu max_mtu;		/* the port's maximum MTU */
	uint32_t speed;			/* active speed, rdma-core encoding */
	uint8_t width;			/* active width, rdma-core encoding */
	bool config_err;		/* a bad knob: the device is not listed */
	char sysfs[192];		/* SOFTVERBS_SYSFS: a planted tree, or "" */
	int debug;
	/* fault injection for UC and UD, probabilities in [0,1] */
	double drop, dup, reorder, delay;
	double ecn;			/* RoCE: probability of an ECN mark */
	uint32_t delay_us;		/* microseconds */
	uint64_t seed;
	uint32_t force_rnr;		/* first N SENDs per RC QP get an RNR */
	uint32_t qp_fatal_after;	/* QP fatal after N posted send WRs */
	uint32_t max_qp, max_cq;	/* per context: SOFTVERBS_MAX_QP, _CQ */
	bool port_down;			/* port DOWN from the start */
	uint32_t port_down_ms;		/* port goes down N ms after open */
	/* GID table (sv_gid.c): entries 0..ngids-1 valid, then empty */
	struct sv_gid gids[SV_GID_TBL_LEN];
	uint32_t ngids;
	uint32_t gid_tbl_len;		/* reported: 1 (IB) or SV_GID_TBL_LEN */
	unsigned int gid_types;		/* SV_GID_V1 | SV_GID_V2 (RoCE) */
	char netdev[16];		/* RoCE: the emulated interface */
	uint32_t ifindex;		/* its ifindex, 0 if there is none */
	/* SOFTVERBS_NULL: a benchmark aid (docs/softverbs.md): every send
	 * and receive work request completes when it is posted, and no
	 * data moves */
	bool null_mode;
};

extern struct sv_config sv_cfg;
void sv_config_load(void);
void sv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log through logf when on (softverbs' and its librdmacm's debug output) */
#define SV_DBG_IF(on, logf, ...)                                         \
	do {                                                             \
		if (on)                                                  \
			logf(__VA_ARGS__);                               \
	} while (0)
#define SV_DBG(...) SV_DBG_IF(sv_cfg.debug, sv_log, __VA_ARGS__)

/*
 * Helpers shared with softverbs' librdmacm (cm_*.c, rsocket*.c).  That
 * library links against libibverbs.so.1's exports only, so they are inline.
 */

/* "<who>[<pid>]: <message>" on stderr */
__attribute__((format(printf, 2, 0)))
static inline void sv_vlog(const char *who, const char *fmt, va_list ap)
{
	char buf[512];
	int n;

	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		return;
	fprintf(stderr, "%s[%d]: %s\n", who, (int)getpid(), buf);
}

/* CLOCK_MONOTONIC in ns */
static inline uint64_t sv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* An unsigned environment knob (strtoul base 0); def when unset or empty,
 * and, when strict, also when anything follows the number. */
static inline unsigned long sv_env_ulong(const char *name, unsigned long def,
					 bool strict)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 0);
	return strict && *end ? def : v;
}

/* tab[i] of a string table with n entries; unknown when i is out of it or
 * has no string (a negative enum value, cast to size_t, is out of it) */
static inline const char *sv_str_of(const char *const *tab, size_t n, size_t i,
				    const char *unknown)
{
	return i < n && tab[i] ? tab[i] : unknown;
}
#define SV_STR_OF(tab, i, unknown)                                        \
	sv_str_of(tab, sizeof(tab) / sizeof((tab)[0]), (size_t)(i), unknown)

/* An abstract AF_UNIX address (sun_path[0] == 0) named by fmt, cut to fit */
__attribute__((format(printf, 3, 4)))
static inline void sv_abstract_addr(struct sockaddr_un *a, socklen_t *len,
				    const char *fmt, ...)
{
	va_list ap;
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	va_start(ap, fmt);
	n = vsnprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(a->sun_path) - 2)
		n = (int)sizeof(a->sun_path) - 2;
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)n);
}

uint64_t sv_transport_timeout_ns(uint8_t timeout, uint8_t retry_cnt);
uint64_t sv_rnr_timer_ns(uint8_t code);
double sv_random(void);

/* ---- wire format ------------------------------------------------------ */

enum sv_op {
	SV_OP_SEND = 1,
	SV_OP_WRITE,
	SV_OP_READ_REQ,
	SV_OP_CMP_SWAP,
	SV_OP_FETCH_ADD,
	SV_OP_ACK,
	SV_OP_NAK,
	SV_OP_READ_RESP,
	SV_OP_ATOMIC_RESP,
	SV_OP_PING,
	SV_OP_NOTE,	/* a counter note (syndrome: enum sv_cnt): RNR NAK, CNP */
};

enum {
	SV_F_FIRST = 1 << 0,
	SV_F_LAST = 1 << 1,
	SV_F_IMM = 1 << 2,
	SV_F_SOLICITED = 1 << 3,
	SV_F_GRH = 1 << 4,
	SV_F_CORRUPT = 1 << 5,	/* fault: the message arrives corrupt (dropped) */
	SV_F_ECN = 1 << 6,	/* fault: the message arrives ECN-marked */
};

/* NAK syndromes */
enum sv_syndrome {
	SV_NAK_NONE = 0,
	SV_NAK_PSN,		/* PSN sequence error */
	SV_NAK_ACCESS,		/* remote access error */
	SV_NAK_INV_REQ,		/* invalid request (length, opcode) */
	SV_NAK_OP,		/* remote operational error */
	SV_NAK_RNR_EXC,		/* RNR retries exceeded */
	SV_NAK_RETRY_EXC,	/* transport retries exceeded */
	SV_NAK_DEAD,		/* no response will ever come: time out */
	SV_NAK_LOST,		/* the fabric dropped the request: time out */
};

struct sv_pkt {
	uint32_t magic;
	uint8_t op;
	uint8_t flags;
	uint8_t qp_type;	/* enum ibv_qp_type of the sender */
	uint8_t syndrome;	/* NAK */
	uint32_t src_node;
	uint32_t src_qpn;
	uint32_t dst_qpn;
	uint32_t psn;		/* first PSN of the message */
	uint32_t npkts;		/* PSNs the message consumes */
	uint32_t msn;		/* requester's message number */
	uint32_t len;		/* bytes, whole message */
	uint32_t off;		/* bytes, offset of this chunk */
	uint32_t chunk;		/* bytes of payload that follow */
	uint32_t imm;		/* network order, as posted */
	uint32_t rkey;
	uint32_t qkey;
	uint32_t srqn;		/* XRC: remote SRQ number */
	uint64_t raddr;
	uint64_t atom_a;	/* compare / add; also atomic result */
	uint64_t atom_b;	/* swap */
	uint8_t timeout;	/* requester's QP attributes, for deadlines */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t sl;
	uint8_t hop_limit;
	uint8_t tclass;
	uint16_t pkey_index;
	uint32_t flow_label;
	uint16_t slid;
	uint8_t gid_type;	/* enum ibv_gid_type of the sender's sgid */
	uint8_t pad;
	uint8_t sgid[16];	/* SV_F_GRH: the sender's sgid_index entry */
	uint8_t dgid[16];	/* SV_F_GRH: the address vector's dgid */
};

#define SV_PKT_MAX (sizeof(struct sv_pkt) + SV_CHUNK)

/* ---- objects ------------------------------------------------------------ */

struct sv_list {
	struct sv_list *next, *prev;
};

struct sv_device {
	struct ibv_device dev;
	/* room for a verbs_device-shaped tail that provider code may read */
	void *verbs_tail[32];
};

struct sv_context;

struct sv_pd {
	struct ibv_pd pd;
};

struct sv_mr {
	struct ibv_mr mr;
	uint64_t iova;
	uint32_t index;
	unsigned int access;
};

struct sv_ah {
	struct ibv_ah ah;
	struct ibv_ah_attr attr;
	uint32_t node;		/* destination emulated host */
};

struct sv_xrcd {
	struct ibv_xrcd xrcd;
};

struct sv_comp_channel {
	struct ibv_comp_channel ch;
	int wfd;		/* write end of the pipe; ch.fd is the read end */
};

struct sv_cqe {
	struct ibv_wc wc;
	uint64_t ts;		/* completion time, ns */
};

struct sv_cq {
	struct ibv_cq_ex cq;	/* ibv_cq is a prefix of ibv_cq_ex */
	void *stub_tail[16];
	struct sv_context *ctx;
	struct sv_cqe *ring;
	uint32_t cap, head, count;
	bool armed, solicited_only;
	struct sv_cqe cur;	/* the entry the ex poll API is reading */
	uint64_t wc_flags_ex;
};

/* a posted receive */
struct sv_rwqe {
	uint64_t wr_id;
	uint32_t nsge;
	struct ibv_sge sge[SV_MAX_SGE];
};

struct sv_rq {
	struct sv_rwqe *ring;
	uint32_t cap, head, count;
	uint32_t max_sge;
};

struct sv_srq {
	struct ibv_srq srq;
	struct sv_rq rq;
	uint32_t limit;
	uint32_t srqn;
	struct sv_cq *cq;	/* XRC SRQ completions */
	struct sv_xrcd *xrcd;
	struct sv_list link;	/* ctx->srqs */
};

/* a send WQE awaiting its response (RC, XRC) */
struct sv_swqe {
	uint64_t wr_id;
	uint32_t msn;
	enum ibv_wc_opcode opcode;
	uint32_t len;		/* bytes */
	bool signaled, done, needs_resp;
	enum ibv_wc_status status;
	uint32_t nsge;
	struct ibv_sge sge[SV_MAX_SGE];	/* READ / atomic destination */
};

/* a datagram held by the responder (RNR or QP not yet RTR) */
struct sv_held {
	struct sv_held *next;
	size_t len;
	struct sv_pkt pkt;	/* followed by payload */
};

/* a request delayed by fault injection (UC, UD) */
struct sv_delayed {
	struct sv_delayed *next;
	uint64_t due;		/* ns */
	uint32_t dnode;		/* destination emulated host */
	size_t len;
	struct sv_pkt pkt;
};

struct sv_qp {
	struct ibv_qp_ex qpx;	/* ibv_qp is a prefix of ibv_qp_ex */
	void *stub_tail[16];	/* ops added to ibv_qp_ex by newer headers */
	void *ex;		/* ibv_wr_* state (sv_ex.c) */
	struct sv_context *ctx;
	struct sv_list link;	/* ctx->qps */
	struct sv_qp *hnext;	/* ctx->qp_hash chain */
	int fd;			/* the QP's datagram socket */
	uint32_t qpn;
	struct ibv_qp_cap cap;
	bool sq_sig_all;
	struct ibv_qp_attr attr;	/* as last modified */
	uint32_t dest_node;
	struct sv_cq *scq, *rcq;
	struct sv_srq *srq;
	struct sv_xrcd *xrcd;
	struct sv_rq rq;

	/* requester */
	pthread_mutex_t send_mu;	/* orders posters; held while blocking */
	pthread_cond_t send_cv;		/* rd_atomic slots, SQ space */
	struct sv_swqe *sq;
	uint32_t sq_cap, sq_head, sq_count;
	uint32_t next_msn;		/* next message number to post */
	uint32_t sq_psn;
	uint32_t rd_inflight;		/* READ/atomic awaiting response */
	uint64_t last_activity;		/* ns, last response or post */
	uint64_t dead_at;		/* ns, RETRY_EXC deadline, 0 = none */
	uint32_t posted;		/* send WRs, for the QP-fatal knob */
	uint8_t *pktbuf;		/* header + chunk, under send_mu */
	struct sv_delayed *delayed;	/* fault injection, under ctx->mu */

	/* responder */
	uint32_t rq_psn;		/* expected PSN */
	uint32_t last_msn;		/* last message completed, for ACKs */
	uint32_t last_src_node, last_src_qpn;
	bool ack_pending;
	bool comm_est_sent;
	/* the message being received */
	bool in_msg, in_discard, in_has_wqe;
	struct sv_rwqe in_wqe;
	struct sv_srq *in_srq;		/* whose WQE (for the CQ choice) */
	uint64_t in_addr;		/* WRITE: local VA of raddr */
	uint32_t in_msn;
	/* held datagrams */
	struct sv_held *held, *held_tail;
	uint64_t hold_retry_at;		/* ns: next RNR retry */
	uint64_t hold_deadline;		/* ns: pre-RTR give-up time */
	int rnr_left;			/* RNR retries left, -1 = infinite */
	bool rnr_active, rnr_forced;
	uint32_t forced_rnr_left;
	bool destroyed;
	struct sv_mcast *mcast;		/* groups attached to (sv_mcast.c) */
};

struct sv_backlog {
	struct sv_backlog *next;
	struct sockaddr_un addr;
	socklen_t alen;
	size_t len;
	struct sv_pkt pkt;	/* followed by payload */
};

struct sv_context {
	struct verbs_context vctx;	/* ibv_context is its last member */
	struct sv_device *sdev;
	pid_t owner;			/* fork: children may not use it */
	pthread_mutex_t mu;		/* all object state */
	pthread_mutex_t rx_lock;	/* one packet processor at a time */
	int epfd, wake_fd;
	int resp_fd;			/* responder traffic, non-blocking */
	int async_wfd;			/* write end of the async event pipe */
	pthread_t thread;
	bool thread_started;
	volatile bool stopping;
	struct sv_list qps, srqs;
	uint32_t nqps, ncqs;
	/* qpn -> QP: qp_hash_size chains (a power of two, doubled as QPs
	 * are made: a lookup per packet must not walk thousands) */
	struct sv_qp **qp_hash;
	uint32_t qp_hash_size;
	uint32_t next_srqn;
	struct sv_mr **mrs;		/* rkey/lkey index -> MR */
	uint32_t nmrs;
	uint32_t mr_gen;
	struct sv_backlog *bl_head, *bl_tail;
	uint8_t *rxbuf;			/* under rx_lock */
	uint64_t inline_poll_ns;	/* last inline progress by the app */
	bool thread_napping;		/* progress thread leaves sockets alone */
	uint64_t thread_wake_at;	/* ns: when the sleeping thread wakes */
	/* timers (sv_run_timers): the earliest deadline the last walk over
	 * the QPs found, and whether one was armed since (then the next
	 * run walks them again; before the deadline it need not) */
	uint64_t timer_next;
	bool timers_dirty;
	/* QPs holding requests (held non-empty), under mu: a receive posted
	 * to an SRQ looks for them only when there are any */
	uint32_t held_qps;
	bool port_is_down;
	uint64_t port_down_at;		/* ns, 0 = never */
	struct sv_context *next_ctx;	/* global registry (fork) */
};

static inline struct sv_context *sv_ctx(struct ibv_context *c)
{
	return (struct sv_context *)((char *)c -
				     offsetof(struct sv_context, vctx.context));
}
static inline struct sv_qp *sv_qp(struct ibv_qp *q)
{
	return (struct sv_qp *)q;
}
static inline struct sv_cq *sv_cq(struct ibv_cq *c)
{
	return (struct sv_cq *)c;
}
static inline struct sv_srq *sv_srq(struct ibv_srq *s)
{
	return (struct sv_srq *)s;
}

/* lists */
void sv_list_init(struct sv_list *l);
void sv_list_add(struct sv_list *head, struct sv_list *n);
void sv_list_del(struct sv_list *n);
#define sv_container(ptr, type, member)                                  \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* ---- sv_dev.c ------------------------------------------------------------ */
/* true when the calling process may use ctx (not inherited through fork) */
bool sv_ctx_usable(struct sv_context *ctx);
extern pid_t sv_pid;		/* this process, refreshed in fork children */
/* MR lookups, under ctx->mu; NULL when the key is unknown */
struct sv_mr *sv_mr_lookup(struct sv_context *ctx, uint32_t key);
/* sv_odp.c: On-Demand Paging, and faulting pages in as a pin would */
void sv_odp_caps(struct ibv_odp_caps *c);
int sv_populate(uintptr_t addr, size_t len, bool write); /* 0 or EFAULT */
int sv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		 uint32_t flags, struct ibv_sge *sg, uint32_t n);
/* checks an SGE list against lkeys/PD/bounds; returns an IBV_WC status */
enum ibv_wc_status sv_check_sges(struct sv_context *ctx, struct ibv_pd *pd,
				 const struct ibv_sge *sge, uint32_t n,
				 bool need_write);
int sv_fill_port_attr(struct sv_context *ctx, struct ibv_port_attr *a);

/* ---- sv_port.c ----------------------------------------------------------- */
/* speed, width, MTUs from the environment (called by sv_config_load) */
void sv_port_config(void);
/* the link fields of a port attribute */
void sv_port_fill(struct ibv_port_attr *a);
/* copy a into the caller's attr of len bytes, with active_speed_ex when
 * the caller's struct (rdma-core v48+) has it */
void sv_port_copy(void *attr, size_t len, const struct ibv_port_attr *a);

/* ---- sv_counters.c ------------------------------------------------------- */
/* port counters in a planted tree (SOFTVERBS_SYSFS) */
enum sv_cnt {
	SV_C_XMIT_DATA,		/* bytes; the file says 4-byte words */
	SV_C_RCV_DATA,
	SV_C_XMIT_PKTS,
	SV_C_RCV_PKTS,
	SV_C_UCAST_XMIT,
	SV_C_UCAST_RCV,
	SV_C_XMIT_WAIT,		/* microseconds of back-pressure */
	SV_C_SYMBOL_ERR,
	SV_C_LINK_RECOVERY,
	SV_C_LINK_DOWNED,
	SV_C_RCV_ERRORS,
	SV_C_XMIT_DISCARDS,
	SV_C_OUT_OF_SEQ,	/* hw_counters from here */
	SV_C_PKT_SEQ_ERR,
	SV_C_ACK_TIMEOUT,
	SV_C_RNR_NAK,
	SV_C_CNP_SENT,
	SV_C_CNP_HANDLED,
	SV_C_ECN_MARKED,
	SV_C_OUT_OF_BUFFER,
	SV_C_N
};
void sv_cnt_init(void);
void sv_cnt_add(enum sv_cnt c, uint64_t n);
/* render the files now (QP or context closed) */
void sv_cnt_flush(void);
uint32_t sv_cnt_pkts(uint32_t chunk, uint32_t mtu);
/* one datagram of a message sent (xmit) or received, at this MTU */
void sv_cnt_wire(bool xmit, const struct sv_pkt *p, uint32_t mtu);
struct sv_qp;
/* the MTU a QP's packets are cut at (path MTU; UD: the port's) */
uint32_t sv_qp_mtu(const struct sv_qp *qp);
struct sv_context;
/* a received datagram: count it; true when it is consumed here (a note,
 * a corrupt message); ctx->mu held */
bool sv_cnt_rx(struct sv_context *ctx, struct sv_qp *qp,
	       const struct sv_pkt *p);
/* send a counter note (SV_OP_NOTE) about pkt back to its sender */
void sv_cnt_note(struct sv_qp *qp, const struct sv_pkt *pkt, enum sv_cnt c);

/* ---- sv_gid.c ------------------------------------------------------------ */
/* build the GID table from the configuration (called by sv_config_load) */
void sv_gid_config(void);
/* RoCE: register this process's address GIDs so that peers find the node */
void sv_gid_publish(void);
/* the IB-mode GID of a node; the node an IB-mode GID encodes (0: none) */
void sv_gid_of_node(uint32_t node, union ibv_gid *gid);
uint32_t sv_node_of_gid(const union ibv_gid *gid);
/* the emulated MAC of a node */
void sv_mac_of_node(uint32_t node, uint8_t mac[6]);
/* a valid table entry, NULL when index is empty or beyond the table */
const struct sv_gid *sv_gid_entry(uint32_t index);
/* index of the entry (gid, type), -1 if none */
int sv_gid_find(const union ibv_gid *gid, enum ibv_gid_type type);
/* an IPv4-mapped GID (::ffff:a.b.c.d) */
bool sv_gid_is_v4(const uint8_t raw[16]);
/*
 * check an address vector and find the node it leads to: 0, EINVAL
 * (sgid_index beyond the table, no GRH in RoCE mode, no node has the
 * dgid) or ENODATA (sgid_index names an empty entry).  May read
 * /proc/net/unix: call it without ctx->mu.
 */
/* The node an address vector reaches (SV_NODE_MCAST: a multicast group);
 * 0 or an errno. */
int sv_av_resolve(const struct ibv_ah_attr *ah, uint32_t *node);
/* put the GIDs of an address vector into a packet (if it is global) */
void sv_gid_stamp(struct sv_pkt *p, const struct ibv_ah_attr *ah);
/* RoCE delivery rule: may the receiver's port accept this packet? */
bool sv_gid_accept(const struct sv_pkt *p);
/*
 * RoCE path check of a connected QP with address vector ah: the packet
 * must come along that path (same GID type, its sgid our dgid, its dgid
 * our sgid); always true without a GRH path or for meta packets
 */
bool sv_gid_path_ok(const struct ibv_ah_attr *ah, const struct sv_pkt *p);
/* a "no response will come" signal (emulated timeout), not a packet */
bool sv_pkt_is_meta(const struct sv_pkt *p);
/* the 40-byte GRH area of a UD receive, as the packet's GID type makes it */
void sv_gid_grh(const struct sv_pkt *p, uint8_t area[40]);

/* ---- sv_cq.c -------------------------------------------------------------- */
/* queue a completion (ctx->mu held); signals an armed channel */
void sv_cq_push(struct sv_cq *cq, const struct ibv_wc *wc, bool solicited);
/* queue an async event (never blocks) */
void sv_async_event(struct sv_context *ctx, enum ibv_event_type type,
		    void *obj);
int sv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int sv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *sv_create_cq_ex(struct ibv_context *c,
				  struct ibv_cq_init_attr_ex *attr);

/* ---- sv_qp.c -------------------------------------------------------------- */
struct ibv_qp *sv_create_qp_ex(struct ibv_context *c,
			       struct ibv_qp_init_attr_ex *attr);
struct ibv_srq *sv_create_srq_ex(struct ibv_context *c,
				 struct ibv_srq_init_attr_ex *attr);
struct ibv_xrcd *sv_open_xrcd(struct ibv_context *c,
			      struct ibv_xrcd_init_attr *attr);
int sv_close_xrcd(struct ibv_xrcd *x);
int sv_get_srq_num(struct ibv_srq *srq, uint32_t *num);
struct ibv_qp *sv_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a);
int sv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad);
int sv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad);
/* move the QP to ERR, flush its queues (ctx->mu held) */
void sv_qp_to_error(struct sv_qp *qp);
struct sv_qp *sv_qp_find(struct sv_context *ctx, uint32_t qpn);
struct sv_srq *sv_srq_find(struct sv_context *ctx, uint32_t srqn);
/* pop a receive WQE; false when the queue is empty (ctx->mu held) */
bool sv_rq_pop(struct sv_rq *rq, struct sv_rwqe *out);

/* ---- sv_engine.c ---------------------------------------------------------- */
int sv_engine_start(struct sv_context *ctx);
void sv_engine_stop(struct sv_context *ctx);
/* bind a new QP socket, allocating its QPN; returns the fd or -1 */
int sv_qp_socket(struct sv_context *ctx, uint32_t *qpn);
void sv_addr_of(struct sockaddr_un *a, socklen_t *len, uint32_t node,
		uint32_t qpn);
/* drain ready sockets; blocking=false only tries the lock */
void sv_progress(struct sv_context *ctx, bool blocking);
void sv_wake(struct sv_context *ctx);
/* a timer of ctx now expires at when (ns): make the progress thread see it */
void sv_timer_armed(struct sv_context *ctx, uint64_t when);
/* a QP's timer changed in a way sv_timer_armed() did not say: walk the
 * QPs at the next run of the timers */
void sv_timers_changed(struct sv_context *ctx);
/* the application is about to block: the progress thread takes over */
void sv_app_sleeps(struct sv_context *ctx);
/* send a response without blocking, queueing it if needed (ctx->mu held) */
/* ... from QP qp, whose address vector goes into the packet */
void sv_respond(struct sv_context *ctx, const struct sv_qp *qp,
		uint32_t node, uint32_t qpn, struct sv_pkt *pkt,
		const void *data, size_t len);
void sv_flush_backlog(struct sv_context *ctx, int wait_ms);
struct iovec;
/*
 * send a datagram to (node, qpn) from fd, blocking while the peer's queue
 * is full; 0 or -errno.  ctx (may be NULL) learns when the app waits.
 */
int sv_sendv_blocking(struct sv_context *ctx, int fd, uint32_t node,
		      uint32_t qpn, struct iovec *iov, int iovcnt);

/* ---- sv_resp.c ------------------------------------------------------------ */
/* handle one received datagram (ctx->mu held) */
void sv_handle_packet(struct sv_context *ctx, struct sv_qp *qp,
		      struct sv_pkt *pkt, size_t len);
/* retry held datagrams of qp (after post_recv, RTR, timers) */
void sv_retry_held(struct sv_qp *qp);
void sv_drop_held(struct sv_qp *qp, enum sv_syndrome nak);
/* send the coalesced ACK of qp if one is pending */
void sv_emit_ack(struct sv_qp *qp);
/* timers of all QPs; returns ns until the next one, or UINT64_MAX */
uint64_t sv_run_timers(struct sv_context *ctx);

/* ---- sv_send.c ------------------------------------------------------------ */
int sv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad);
/* requester side of a response packet (ctx->mu held) */
void sv_handle_response(struct sv_qp *qp, struct sv_pkt *pkt, size_t len);
/* complete finished SQ entries in order (ctx->mu held) */
void sv_sq_retire(struct sv_qp *qp);
/* fail the oldest outstanding send WQE with status, QP to ERR */
void sv_sq_fail(struct sv_qp *qp, enum ibv_wc_status st);
/* a response to qp was lost: RETRY_EXC_ERR after the transport timeout */
void sv_sq_lost(struct sv_qp *qp);
void sv_send_flush_delayed(struct sv_qp *qp, bool all);

/* ---- sv_ex.c -------------------------------------------------------------- */
void sv_qp_ex_init(struct sv_qp *qp);
void sv_cq_ex_init(struct sv_cq *cq);
void sv_qp_ex_free(struct sv_qp *qp);

/* ---- sv_misc.c ------------------------------------------------------------ */
/* ordered copy: increasing addresses, last byte last with a release fence */
void sv_copy_ordered(void *dst, const void *src, size_t len);
/* scatter len bytes at offset off of a message into an SGE list */
void sv_scatter(const struct ibv_sge *sge, uint32_t n, uint32_t off,
		const void *src, size_t len);
void sv_gather(const struct ibv_sge *sge, uint32_t n, uint32_t off,
	       void *dst, size_t len);
uint64_t sv_sge_total(const struct ibv_sge *sge, uint32_t n);
void sv_registry_add(struct sv_context *ctx);
void sv_registry_del(struct sv_context *ctx);

/* entry points of the private provider ABI that softverbs implements */
/* type: rdma-core's enum ibv_gid_type_sysfs (0 = IB/RoCE v1, 1 = RoCE v2) */
int ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index,
		       int *type);
void verbs_register_driver_34(const void *ops);
/* exported by libibverbs but declared only in rdma-core's private headers */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* sv_mcast.c */
#define SV_NODE_MCAST 0xffffffffu	/* sv_ah.node of a multicast group */
#define SV_MCAST_QPN 0xffffffu		/* the remote QPN of sends to a group */
#define SV_MCAST_MAX 256		/* members one send reaches at most */
struct sv_member {
	uint32_t node, qpn;
};
bool sv_gid_is_mcast(const union ibv_gid *g);
bool sv_lid_is_mcast(uint16_t lid);
/* Close every membership of qp (it is being destroyed); ctx->mu held. */
void sv_mcast_detach_all(struct sv_qp *qp);
/* The members of the group ah names, at most max of them; their number. */
int sv_mcast_members(const struct ibv_ah_attr *ah, struct sv_member *out,
		     int max);

#endif
