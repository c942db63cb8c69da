/* SPDX-License-Identifier: MIT */
/*
 * softverbs' rsockets: internal interfaces.
 *
 * An rsocket is an RC QP set up through rdma_cm, carrying a byte stream
 * with credit-based flow control (softverbs' own protocol; rsockets only
 * talk to rsockets):
 *
 *  - each side posts RS_SLOTS + RS_CTRL receive buffers of slot_size bytes
 *    and tells the peer slot_size and RS_SLOTS in the CM private data;
 *  - DATA is a SEND_WITH_IMM of at most the peer's slot_size; it takes one
 *    credit (the peer starts with RS_SLOTS); the immediate carries the type
 *    and credits being returned;
 *  - a receive buffer the application has read to the end is posted again
 *    and its credit returned, piggybacked on DATA or, once half the slots
 *    are owed, as a zero-length CREDIT message (these use the RS_CTRL
 *    spare receives: at most two can be unprocessed, plus FIN and RST);
 *  - FIN (rshutdown(SHUT_WR), rclose) ends the stream: the reader sees end
 *    of file after the data; RST (close with SO_LINGER 0) resets it;
 *  - IOMAP (riomap) sends the peer a buffer's address and rkey; riowrite
 *    is an RDMA WRITE into it, ordered before later DATA on the same QP.
 *
 * Datagram rsockets (SOCK_DGRAM) are UD QPs: see rsocket_dgram.c.
 *
 * The descriptor an rsocket returns is its event channel's fd, so it never
 * collides with other descriptors.  One thread per rsocket at a time, as
 * for a socket that is not shared; the table itself is locked.
 */
#ifndef SOFTVERBS_RS_INTERNAL_H
#define SOFTVERBS_RS_INTERNAL_H

#include <poll.h>
#include <rdma/rsocket.h>
#include <stdbool.h>
#include <stdint.h>

#include "cm_internal.h"

enum {
	RS_SLOTS = 16,			/* data credits per direction */
	RS_CTRL = 8,			/* spare receives for control */
	RS_SLOT_DEF = 32768,		/* bytes per slot by default */
	RS_SLOT_MIN = 4096,
	RS_SLOT_MAX = 1 << 20,
	RS_MAGIC = 0x52535631,		/* "RSV1" in the CM private data */
	RS_MAX_IOMAPS = 16,
};

enum rs_msg {
	RS_DATA = 1,
	RS_CREDIT,
	RS_FIN,
	RS_RST,
	RS_IOMAP,
};

#define RS_IMM(type, credits) (((uint32_t)(type) << 24) | ((credits) & 0xffffff))
#define RS_IMM_TYPE(imm) ((imm) >> 24)
#define RS_IMM_CREDITS(imm) ((imm) & 0xffffff)

enum rs_state {
	RS_INIT,
	RS_BOUND,
	RS_LISTENING,
	RS_RESOLVING,		/* rconnect: address, route */
	RS_CONNECTING,		/* REQ sent */
	RS_CONNECTED,
	RS_FAILED,		/* connect failed; err says why */
};

/* the CM private data of both sides */
struct rs_hello {
	uint32_t magic;
	uint32_t slot_size;		/* bytes */
	uint16_t slots;
	uint16_t pad;
} __attribute__((packed));

/* an IOMAP message: where the peer may riowrite */
struct rs_iomap_msg {
	uint64_t offset;		/* the riomap offset */
	uint64_t addr;
	uint64_t len;			/* bytes */
	uint32_t rkey;
} __attribute__((packed));

struct rs_iomap {
	uint64_t offset;
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
	struct ibv_mr *mr;		/* local mappings only */
	void *buf;
};

struct rsock {
	int fd;				/* == ch->fd */
	enum rs_state state;
	int domain;
	int nonblock;			/* O_NONBLOCK */
	int err;			/* SO_ERROR */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *rmr, *smr;
	uint8_t *rbuf, *sbuf;
	uint32_t slot_size;		/* our receive slots, bytes */
	uint32_t peer_slot;		/* the peer's, bytes: our sends */
	uint32_t cq_events;		/* got, not yet acked */
	/* receive: slots holding data, in order */
	uint32_t ready[RS_SLOTS + RS_CTRL];
	uint32_t ready_len[RS_SLOTS + RS_CTRL];
	uint32_t rhead, rcount, roff;
	uint32_t owed;			/* credits to return to the peer */
	/* send */
	uint32_t credits;		/* DATA we may send */
	uint32_t shead, sinflight;	/* send slots, in order */
	uint32_t sslot;			/* bytes per send slot */
	uint32_t cinflight;		/* control sends in flight */
	bool fin_rcvd, fin_sent, rst_rcvd, disconnected, wr_shut, rd_shut;
	/* listener: connection requests not yet raccept()ed */
	struct rdma_cm_event *reqs[64];
	int nreqs;
	/* options */
	int sndbuf, rcvbuf;		/* bytes, 0: default */
	int nodelay, keepalive, oobinline, reuse, v6only;
	struct linger linger;
	int sqsize, rqsize, inline_size, iomapsize;
	struct rs_iomap lmap[RS_MAX_IOMAPS];
	int nlmap;
	struct rs_iomap rmap[RS_MAX_IOMAPS];
	int nrmap;
	/* datagram rsockets (rsocket_dgram.c) */
	bool dgram;			/* SOCK_DGRAM */
	struct rs_ds *ds;		/* its UD QP and buffers, once bound */
};

/* rsocket.c */
struct rsock *rs_get(int fd);
/* The rsocket an API call names: NULL with errno EBADF when fd is none. */
struct rsock *rs_of(int fd);
/* The same, that must be in state st: else NULL with errno err. */
struct rsock *rs_of_in(int fd, enum rs_state st, int err);

/* rsocket_io.c */
/* Reap completions and CM events of rs without blocking; 0, or -1 with
 * errno when the connection broke (err is set). */
int rs_progress(struct rsock *rs);	/* >= 0: things processed */
/* Block until rs has news (a completion or CM event) or ms pass (-1:
 * forever); 0, or -1 with errno (EAGAIN on timeout). */
int rs_wait(struct rsock *rs, int ms);
/* Set up the QP, buffers and receives after the CM gave rs->id a device;
 * peer_slot is what the peer announced; 0 or -1 with errno. */
int rs_setup_qp(struct rsock *rs);
void rs_teardown(struct rsock *rs);
/* Post a zero-length control message; 0 or -1 with errno. */
int rs_ctrl(struct rsock *rs, enum rs_msg type, uint32_t credits);
/* Wait for the sends in flight to complete (close), at most ms. */
void rs_drain(struct rsock *rs, int ms);
/* poll(2) events rs is ready for */
short rs_revents(struct rsock *rs, short events);
/* Process CM events of a connecting or listening rsocket; how many. */
int rs_cm_events(struct rsock *rs);

/* rsocket_dgram.c: the SOCK_DGRAM counterparts */
int rs_ds_bind(struct rsock *rs, const struct sockaddr *addr);
int rs_ds_connect(struct rsock *rs, const struct sockaddr *addr);
int rs_ds_peer(struct rsock *rs, struct sockaddr *addr, socklen_t *len);
int rs_ds_progress(struct rsock *rs);
short rs_ds_revents(struct rsock *rs, short events);
void rs_ds_teardown(struct rsock *rs);
ssize_t rs_ds_send(struct rsock *rs, const struct iovec *iov, int iovcnt,
		   int flags, const struct sockaddr *to);
ssize_t rs_ds_recv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		   int flags, struct sockaddr *from, socklen_t *fromlen);

#endif
