/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's messages between each rank and rank 0, over qperf's own
 * TCP connections (never through the launcher).  Each message is one TLV
 * block (tlv.h) whose first item is CM_TYPE.  The codecs are pure;
 * cluster_send() and cluster_recv() move one message over a connection.
 *
 *   HELLO   0 -> rank   rank 0's nonce, sent as it accepts (not sealed)
 *   JOIN    rank -> 0   rank, size, local rank, qperf server port, host,
 *                       its host checks' findings
 *   RUN     0 -> rank   job, test (plan item), peer rank, address, port
 *   RESULT  rank -> 0   job, status (0 ok), error text, figures
 *   DONE    0 -> rank   the run is over: stop the server and exit
 *   PING    0 -> rank   rank 0 is alive (every CLUSTER_PING_NS)
 *
 * A group pattern's flows (incast:K, fanout:K: RUN with CRUN_SYNC) add:
 *   READY   rank -> 0   job: set up, waiting at its barrier
 *   CLOCK   0 -> rank   a probe; the rank answers at once with its
 *           rank -> 0   monotonic clock (rank 0 works out the offset)
 *   GO      0 -> rank   job, start: when to start, on the rank's clock
 *                       (0: do not start, another flow failed)
 *   STOP    0 -> rank   job: end a load (CRUN_LOAD) now
 *
 * Trust (docs/cluster.md, "Trust").  Every message but HELLO is sealed
 * with the job secret (core/auth.h): it carries a sequence number and,
 * last, HMAC-SHA256(secret, direction label || rank 0's nonce || the
 * rank's nonce || every byte of the block before the MAC).  The rank's
 * nonce travels in its JOIN; the sequence numbers count from 0 in each
 * direction and must come in order.  So a message is accepted only from
 * a holder of the secret, on this connection, once: a JOIN recorded from
 * another run, or a message replayed or moved to another connection,
 * fails its MAC or its sequence.
 */
#ifndef QPERF_CLUSTER_MSG_H
#define QPERF_CLUSTER_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/types.h"

struct auth_secret;

enum cmsg_type {
	CMSG_JOIN = 1,
	CMSG_RUN,
	CMSG_RESULT,
	CMSG_DONE,
	CMSG_PING,
	CMSG_HELLO,
	CMSG_READY,
	CMSG_GO,
	CMSG_STOP,
	CMSG_CLOCK
};

#define CMSG_HOST_MAX 256 /* host names and addresses, NUL included */
#define CMSG_ERR_MAX 512
#define CMSG_NONCE 32 /* bytes of each end's nonce */
/* The largest sealed message a rank sends (a RESULT with the longest
 * error text is about 1 KB, a JOIN with its findings at most 1.4 KB):
 * rank 0 buffers no more per connection. */
#define CMSG_WIRE_MAX 2048

#define CLUSTER_PING_NS (2 * NS_PER_SEC) /* rank 0 -> idle ranks */
#define CLUSTER_LOSS_NS (10 * NS_PER_SEC) /* no word from rank 0: gone */
/* Rank 0's longest wait to send to a rank (it waits for no one longer). */
#define CLUSTER_SEND_NS (NS_PER_SEC)

/* A finding of a rank's host checks (core/pathrun.h), for rank 0's
 * report: the check's name and its text, both printable. */
#define CMSG_FIND_MAX 4 /* findings a JOIN carries at most */
struct cmsg_find {
	char check[24]; /* "pcie_link" */
	char text[224]; /* "softv0: PCIe link at Gen4 x8, below ..." */
};

struct cmsg_join {
	uint32_t rank, size, local_rank;
	uint16_t port; /* this rank's qperf server */
	char host[CMSG_HOST_MAX]; /* its host name, for reports */
	uint32_t nfind; /* its host checks' findings (the first ones) */
	struct cmsg_find find[CMSG_FIND_MAX];
};

/* RUN's flow flags: 0 for a pair's job. */
#define CRUN_SYNC 1u /* a group's flow: set up, say READY, start at GO */
#define CRUN_LOAD 2u /* a latency round's load: the bandwidth test of the
		      * item's transport (test_bw_of()), until STOP */
#define CRUN_ALL (CRUN_SYNC | CRUN_LOAD)

struct cmsg_run {
	uint32_t job, item; /* plan item: which test */
	uint32_t peer; /* rank of the server side */
	uint32_t peer_local; /* its local rank (for -i lists) */
	uint16_t port;
	char addr[CMSG_HOST_MAX]; /* the peer's address as rank 0 saw it */
	uint32_t flow; /* CRUN_* */
};

/* READY, GO and STOP. */
struct cmsg_go {
	uint32_t job;
	uint64_t start; /* GO: ns on the rank's monotonic clock; 0: stop */
};

/* CLOCK: rank 0's probe, and the rank's answer. */
struct cmsg_clock {
	uint32_t probe; /* rank 0's number, echoed */
	uint64_t now; /* the answer: the rank's monotonic clock, ns */
};

/* What a pair's test measured: struct pair_res, lib/types.h. */

struct cmsg_result {
	uint32_t job;
	uint32_t status; /* 0 ok, else the exit status of the test */
	char err[CMSG_ERR_MAX];
	struct pair_res r;
	uint64_t late; /* a group's flow: ns from its GO's start to its own */
};

struct cmsg {
	enum cmsg_type type;
	union {
		struct cmsg_join join;
		struct cmsg_run run;
		struct cmsg_result result;
		struct cmsg_go go; /* READY, GO, STOP */
		struct cmsg_clock clock;
		uint8_t nonce[CMSG_NONCE]; /* HELLO */
	} u;
};

/* Encode m into buf (cap bytes); returns the size, 0 if it did not fit. */
size_t cmsg_encode(const struct cmsg *m, uint8_t *buf, size_t cap);

/*
 * Decode one block.  0, or -1 if malformed (unknown type, an item of the
 * wrong size, a missing item, a string without room for its NUL).
 */
int cmsg_decode(const uint8_t *buf, size_t len, struct cmsg *m);

/*
 * A RESULT's figures (and its window) must be finite and not negative:
 * 0, or -1 with why naming the first that is not ("recv_bw is inf").
 * Pure.
 */
int cmsg_check_figures(const struct pair_res *r, char *why, size_t len);

/* One end of a sealed connection (see above). */
struct cchan {
	const struct auth_secret *key; /* the job secret */
	bool rank0; /* this end is rank 0 */
	uint8_t n0[CMSG_NONCE], nr[CMSG_NONCE]; /* rank 0's, the rank's */
	uint64_t tx, rx; /* sequence number of the next to send, receive */
};

/*
 * Seal m for ch into buf (cap bytes), the next sequence number; a JOIN
 * also carries ch->nr.  Returns the size, 0 if it did not fit or the MAC
 * failed.
 */
size_t cmsg_seal(struct cchan *ch, const struct cmsg *m, uint8_t *buf,
		 size_t cap);

/*
 * Open a sealed block: the rank's nonce of a JOIN (the first message rank
 * 0 opens) goes to ch->nr, then the MAC, the sequence number and the
 * items are checked.  Returns 0; 1 if the message is genuine but refused
 * (a RESULT's figures: why says which; m is decoded); -1 if it is not
 * genuine or malformed (why says which, for the log).
 */
int cmsg_open(struct cchan *ch, const uint8_t *buf, size_t len,
	      struct cmsg *m, char *why, size_t whylen);

/*
 * One message to / from the other end of ch over fd, sealed; the send
 * and the receive are each bounded by timeout.  cluster_recv also takes a
 * 0, or -1 with err filled.
 */
int cluster_send(int fd, struct cchan *ch, uint64_t timeout,
		 const struct cmsg *m, char *err, size_t errlen);
int cluster_recv(int fd, struct cchan *ch, uint64_t timeout, struct cmsg *m,
		 char *err, size_t errlen);

/*
 * Rank 0, as it accepts: a fresh nonce into ch->n0, sent as HELLO.  The
 * rank: receive it (within timeout) and pick its own nonce (ch->nr).
 * 0, or -1 with err filled.
 */
int cluster_hello_send(int fd, struct cchan *ch, char *err, size_t errlen);
int cluster_hello_recv(int fd, struct cchan *ch, uint64_t timeout, char *err,
		       size_t errlen);

/*
 * Rank 0's reading of a connection without blocking: what came so far of
 * the next block (a buffer only while a block is incomplete).
 */
struct cin {
	uint8_t *buf; /* CMSG_WIRE_MAX bytes, or NULL */
	size_t have;
};

/*
 * Read what fd has, without waiting, up to the end of one block.  1 when
 * a whole block is in in->buf (in->have bytes; cin_clear() before the
 * next), 0 if more is to come, -1 if the peer closed, failed or sent no
 * block (why filled).
 */
int cin_read(struct cin *in, int fd, char *why, size_t whylen);
void cin_clear(struct cin *in); /* free the buffer */

#endif
