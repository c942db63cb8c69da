/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control connection: codecs for 0.4.11's messages (pure functions on
 * bytes, spec §2) and deadline-bounded I/O that watches for the peer's
 * urgent-data error notices (spec §2.8).
 *
 * Dialects.  A legacy request carries version 0.4.x and is exactly 0.4.11's
 * 200 bytes.  An extended request carries version 0.5.x and is followed by
 * an extension block: a TLV block (lib/tlv.h, "QPX2") from this build on,
 * or the fixed 24-byte "QPX1" block of early 0.5 builds, which a server
 * still accepts.  To a TLV request the server answers with its own TLV
 * block (capabilities, version); each STAT is followed by a STAT block of
 * the request's kind.  A 0.4.11 server rejects version 0.5 with its
 * "upgrade qperf on server" error and an early 0.5 server rejects a TLV
 * block as a "bad request extension"; either way the client retries on a
 * new connection in the legacy dialect, so such a peer never sees an
 * extension it does not know.  Unknown TLV items are ignored.
 */
#ifndef QPERF_CTL_H
#define QPERF_CTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/tlv.h"
#include "lib/types.h"

#define REQ_SIZE 200
#define REQ_VER_SIZE 6
#define STAT_SIZE 256
#define CONF_SIZE 256
#define EXT_MAGIC 0x31585051u /* "QPX1": early 0.5 builds' fixed block */
#define EXT_REQ_SIZE 24
#define EXT_STAT_SIZE 24
#define EXT_BLOCK_MAX 512 /* largest request/reply block we send */
#define EXT_STAT_MAX TLV_BIG_MAX /* largest STAT block (with a histogram) */
#define CTL_NONCE 32 /* bytes of an authentication nonce (core/auth.h) */

#define SYNC_BEFORE "synchronization before test"
#define SYNC_AFTER "synchronization after test"

/* REQ, spec §2.2, plus the extension fields. */
struct req {
	uint16_t ver_maj, ver_min, ver_inc, req_index;
	uint32_t access_recv, affinity, alt_port, flip, msg_size, mtu_size;
	uint32_t no_msgs, poll_mode, port, rd_atomic, sl, sock_buf_size;
	uint32_t src_path_bits, time, timeout, use_cm;
	char id[64], static_rate[64]; /* NUL-terminated after decoding */
	/* Extension, valid when ext is set (ext_ver 1: QPX1, 2: TLV). */
	bool ext;
	int ext_ver;
	uint64_t time_ns, timeout_ns;
	uint32_t caps; /* CAP_* of the client */
	bool mtu_explicit; /* -mt given: do not clamp it to the ports */
	int32_t gid_index; /* RoCE GID index to use, -1 = choose */
	/* Verbs knobs: vk[i] is parameter PAR_VK_FIRST + i, valid when bit
	 * i of vk_set is (not set: 0.4.11's behaviour). */
	uint32_t vk[PAR_VK_COUNT];
	uint32_t vk_set;
	uint64_t interval_ns; /* -I: interval reports wanted, 0 = none */
	uint32_t streams; /* --streams; 0 or 1: one stream */
	struct cpu_list cpus; /* -ca as a list (cpus.n 0: none) */
	uint32_t preflight; /* a conf request that is a preflight for the
			     * test of index preflight - 1; 0: none */
	uint64_t rate, msg_rate; /* --rate: bytes/s or msgs/s, 0 = none */
	uint32_t arrivals; /* REQX_ARRIVALS; 0: closed loop */
	uint32_t qps; /* --qps; 0 or 1: one QP */
	uint32_t threads; /* --threads over the QPs; 0 or 1: one */
	uint32_t conns; /* --conns; 0 or 1: one data connection */
	bool has_nonce; /* the client has a shared secret (core/auth.h) */
	uint8_t nonce[CTL_NONCE]; /* its random nonce */
};

/* TLV item types of the request block (unknown types are ignored). */
enum reqx_item {
	REQX_TIME_NS = 1, /* u64 */
	REQX_TIMEOUT_NS = 2, /* u64 */
	REQX_CAPS = 3, /* u32 CAP_* */
	REQX_MTU_EXPLICIT = 4, /* u32 0/1 */
	REQX_GID_INDEX = 5, /* u32; absent: automatic */
	REQX_VERSION = 6, /* bytes: "0.5.0" */
	REQX_INTERVAL_NS = 7, /* u64; absent: no interval reports */
	REQX_NONCE = 8, /* CTL_NONCE bytes; present = the client authenticates */
	REQX_STREAMS = 9, /* u32 2..STREAMS_MAX; absent: one stream */
	REQX_CPUS = 10, /* bytes: u16 per entry of a -ca list (CPU + 1) */
	REQX_PREFLIGHT = 11, /* u32: conf as the host checks before the test
			      * of this index + 1 (core/pathrun.h) */
	REQX_RATE = 12, /* u64 bytes/s of the test; absent: not paced */
	REQX_MSG_RATE = 13, /* u64 msgs/s of the test; absent: not paced */
	REQX_ARRIVALS = 14, /* u32 1 constant, 2 Poisson: a latency test
			     * with a rate runs open loop; absent: closed */
	REQX_QPS = 15, /* u32 2..QPS_MAX QPs (CAP_QPS); absent: one */
	REQX_THREADS = 16, /* u32 2..THREADS_MAX threads the QPs are spread
			    * over (CAP_THREADS); absent: one */
	REQX_CONNS = 17, /* u32 2..CONNS_MAX data connections of tcp_bw or
			  * udp_bw (CAP_CONNS); absent: one */

	/* 32 .. 32 + PAR_VK_COUNT - 1: the verbs knobs, u32 each, present
	 * only when set (docs/protocol.md) */
	REQX_VK_BASE = 32
};

/* The largest value a request may carry for verbs knob i (a larger one
 * makes the block malformed). */
uint32_t reqx_vk_max(int i);

/* TLV item types of the server's reply block and of the STAT block. */
enum repx_item {
	REPX_CAPS = 1, /* u32 */
	REPX_VERSION = 2, /* bytes */
	REPX_NONCE = 3 /* CTL_NONCE bytes; present = the server checks a secret */
};
enum statx_item {
	STATX_REAL_S = 1,
	STATX_REAL_E = 2,
	STATX_LOST = 3,
	STATX_PROC_USER = 4, /* u64 ns: the test process's user CPU */
	STATX_PROC_SYS = 5, /* u64 ns: its system CPU */
	STATX_HIST = 6, /* bytes: round-trip histogram (lib/hist.h) */
	STATX_STREAM = 7, /* bytes, once per stream: STATX_STREAM_SIZE */
	STATX_FACTS = 8, /* bytes: this end's path facts (CAP_FACTS) */
	STATX_COUNTERS = 9, /* bytes: this end's counters (CAP_COUNTERS) */
	STATX_QPS = 15, /* bytes: this end's QPs of a --qps test (CAP_QPS):
			 * STATX_QPS_HDR bytes, then u64 counts */
	STATX_CONNS = 17 /* bytes: its connections of a --conns test
			  * (CAP_CONNS), laid out as STATX_QPS */
};

/*
 * STATX_QPS: u32 QPs, u32 flags (1: a CQ per QP), u32 counts listed, u32
 * 0, then u64 setup ns, registered bytes, queue bytes and process bytes
 * per QP, total, min, median and max messages per QP; then one u64 per
 * listed QP (QPs 0..listed-1, at most QPS_LIST_MAX).  A 0.5 client asks
 * for it by REQX_QPS, which only a server with CAP_QPS is sent.
 */
#define STATX_QPS_HDR 80
/* Add q as a STATX_QPS item to the finished STAT block blk (len bytes,
 * cap of room): the new length, or len if it does not fit.  Pure. */
size_t stat_qps_append(const struct qp_side *q, uint8_t *blk, size_t len,
		       size_t cap);
/* The STATX_QPS item of a STAT block into q (q->valid false: none):
 * 0, or -1 if it is malformed.  Pure. */
int stat_qps_take(const uint8_t *blk, size_t len, struct qp_side *q);

/*
 * One stream's counters in a --streams STAT block: u32 index, then u64
 * sent bytes, msgs, errors, received bytes, msgs, errors.  The streams
 * share the window of the STAT block.
 */
#define STATX_STREAM_SIZE 52

/* The server's answer to a TLV request. */
struct hello {
	uint32_t caps;
	char version[16];
	bool auth; /* the server requires the shared secret */
	uint8_t nonce[CTL_NONCE]; /* its nonce, when auth */
};

/* Encode into exactly REQ_SIZE bytes (string tails are zero). */
void req_encode(const struct req *q, uint8_t out[REQ_SIZE]);
/* Decode REQ_SIZE bytes; forces NUL termination of the two strings. */
void req_decode(const uint8_t in[REQ_SIZE], struct req *q);
/*
 * The request's extension block.  encode writes a TLV block (returns its
 * size, 0 if cap is too small).  decode takes a whole block of either kind
 * (QPX1: exactly EXT_REQ_SIZE bytes; QPX2: TLV) and sets q->ext and
 * q->ext_ver; returns 0, or -1 if it is malformed.  Pure.
 */
size_t ext_req_encode(const struct req *q, uint8_t *out, size_t cap);
int ext_req_decode(const uint8_t *in, size_t len, struct req *q);
/*
 * Length of the block whose first TLV_HDR bytes are hdr: EXT_REQ_SIZE for
 * QPX1, the TLV length for QPX2, 0 if neither.
 */
size_t ext_block_len(const uint8_t *hdr);

size_t hello_encode(const struct hello *h, uint8_t *out, size_t cap);
int hello_decode(const uint8_t *in, size_t len, struct hello *h);

/*
 * STAT: the real-time fields go out as ticks (real_ns * no_ticks / 1e9),
 * as 0.4.11 expects; the 4 padding bytes are zero.
 */
void stat_encode(const struct node_stat *s, uint8_t out[STAT_SIZE]);
/* Decode; converts the tick real times to ns in real_s/real_e. */
void stat_decode(const uint8_t in[STAT_SIZE], struct node_stat *s);
/*
 * The STAT block: the exact ns window (replacing the tick-resolution one)
 * and, in a TLV block, what 0.4.11's STAT has no field for: lost
 * exchanges, the process CPU (when s->proc_valid) and, when h is not NULL
 * (the client announced CAP_HIST), the histogram of this side's round
 * trips (left out if its encoding would exceed one item, which takes
 * thousands of buckets with huge counts).  ver is the request's ext_ver
 * (1: the fixed 24 bytes).  encode returns the size (0: cap too small;
 * EXT_STAT_MAX always suffices).  decode fills the window, lost and the
 * process CPU of s and, when h is not NULL, h (left empty without a
 * histogram item); returns 0, or -1 if the block or the histogram is
 * malformed.  Pure.
 */
struct hist;
size_t ext_stat_encode(const struct node_stat *s, int ver,
		       const struct hist *h, uint8_t *out, size_t cap);
int ext_stat_decode(const uint8_t *in, size_t len, struct node_stat *s,
		    struct hist *h);
/*
 * The same with the per-stream counters of a --streams test: encode adds
 * one STATX_STREAM item (the s and r counters) for each of the n entries
 * of sc (n <= STREAMS_MAX: 64 x 56 bytes, within TLV_MAX); decode fills
 * sc[0..n) and fails unless the block holds exactly n items with indices
 * 0..n-1 (only s and r are set).  Pure.
 */
size_t ext_stat_encode_streams(const struct node_stat *s, int ver,
			       const struct node_stat *sc, uint32_t n,
			       uint8_t *out, size_t cap);
int ext_stat_decode_streams(const uint8_t *in, size_t len,
			    struct node_stat *sc, uint32_t n);

/* CONF: four zero-padded char[64]; decoding stops at the first NUL. */
void conf_encode(const struct conf_info *c, uint8_t out[CONF_SIZE]);
void conf_decode(const uint8_t in[CONF_SIZE], struct conf_info *c);

/* A control connection. */
struct ctl {
	int fd;
	bool server; /* errors from the peer are "client: ..." */
	uint64_t timeout; /* ns, per message */
	bool debug;
	bool peer_failed; /* the peer reported an error (text in err) */
	/* The signal's number once one ends the run
	 * (measure_interrupt_flag()), or NULL: a wait then ends with
	 * "interrupted by SIGINT" (or the signal's name). */
	const volatile sig_atomic_t *intr;
};

/*
 * Send or receive exactly len bytes within c->timeout.  item names the
 * message in errors ("failed to receive port: timed out").  Return 0, or
 * -1 with err filled; if the peer sent an error notice, err holds
 * "server: <text>" (or "client: ...") and c->peer_failed is set.
 */
int ctl_send(struct ctl *c, const void *buf, size_t len, const char *item,
	     char *err, size_t errlen);
int ctl_recv(struct ctl *c, void *buf, size_t len, const char *item,
	     char *err, size_t errlen);

/* Receive a sync string and compare it (the text names the item). */
int ctl_expect(struct ctl *c, const char *text, char *err, size_t errlen);

/* Exchange a sync string: send it, then receive and compare it. */
int ctl_sync(struct ctl *c, const char *text, char *err, size_t errlen);

/*
 * Tell the peer about a fatal error the 0.4.11 way: urgent byte '?', the
 * text (at most 240 bytes, so a 0.4.11 peer's 256-byte buffer holds it
 * after its "server: " prefix), then shutdown for writing and a bounded
 * drain.  Never blocks longer than about a second.
 */
void ctl_send_error(struct ctl *c, const char *text);

/*
 * The start of such a notice on a raw socket: filler and the urgent byte,
 * then one non-blocking try at the n bytes of text.  Returns the text bytes
 * sent (the caller may send the rest), or -1 if the urgent byte was not.
 */
ssize_t ctl_urgent_notice(int fd, const char *text, size_t n);
/* No Nagle delay on a control connection (see ctl.c). */
void ctl_nodelay(int fd);

/*
 * Send one extension block / receive one (header checked, at most cap
 * bytes; *len set).  Return 0 or -1 with err filled.
 */
int ctl_send_block(struct ctl *c, const uint8_t *blk, size_t len,
		   const char *item, char *err, size_t errlen);
int ctl_recv_block(struct ctl *c, uint8_t *blk, size_t cap, size_t *len,
		   const char *item, char *err, size_t errlen);

/* Prefix of the error a 0.4.11 server gives to a 0.5 request. */
#define LEGACY_UPGRADE_ERR "server: upgrade qperf on server from 0.4."
/* What an early 0.5 server says to a TLV request block. */
#define EARLY_EXT_ERR "server: bad request extension"

#endif
