/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Verbs helpers for the semantics cases: open a side (device, PD, CQ),
 * create and connect QPs, register buffers, wait for completions and async
 * events with deadlines, and talk to the peer role over the control socket.
 * Only the public libibverbs API is used.  Helpers record a FAIL check when
 * a setup step fails and return an error so the case can stop; every wait
 * has a deadline, so a missing completion is a failure, never a hang.
 */
#ifndef SV_VHELP_H
#define SV_VHELP_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

struct sv_side {
	int role;			/* ROLE_A or ROLE_B */
	int sock;			/* control stream to the peer role */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;	/* NULL unless asked for */
	struct ibv_cq *cq;
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	union ibv_gid gid;		/* our GID at gid_index */
	int gid_index;			/* sgid_index of our GRHs (0) */
	int global;			/* address peers with a GRH (RoCE) */
	uint8_t port_num;
};

/* What one side tells the other about a QP and (optionally) a buffer. */
struct sv_addr {
	uint32_t qpn;
	uint32_t psn;
	uint32_t qkey;
	uint16_t lid;
	uint8_t gid[16];
	uint64_t addr;			/* remote buffer address (or iova) */
	uint32_t rkey;
	uint32_t len;			/* bytes */
};

/* Transport parameters for qp_new()/qp_connect(); zeros mean defaults. */
struct sv_conn {
	enum ibv_qp_type type;		/* 0 means IBV_QPT_RC */
	int access;			/* qp_access_flags for INIT */
	int no_access;			/* use access as given even if 0 */
	uint32_t sq_psn;		/* our first PSN (default 0x1000) */
	uint32_t rq_psn;		/* PSN we expect (default: peer's) */
	int force_rq_psn;		/* use rq_psn instead of the peer's */
	uint8_t timeout;		/* local ACK timeout exponent; 0: 12 */
	uint8_t retry_cnt;		/* 0: 3 (use retry_set for real 0) */
	uint8_t rnr_retry;		/* 0 allowed via rnr_set */
	uint8_t min_rnr_timer;		/* 0: 1 (0.01 ms) */
	int retry_set, rnr_set;		/* take retry_cnt/rnr_retry as is */
	uint32_t qkey;			/* UD; 0: SV_QKEY */
	uint32_t max_send, max_recv;	/* 0: 64 each */
	uint32_t max_inline;		/* bytes */
};

#define SV_QKEY 0x11111111u

/* A registered buffer. */
struct sv_buf {
	uint8_t *p;
	size_t len;			/* bytes */
	uint64_t iova;			/* 0: addressed by virtual address */
	struct ibv_mr *mr;
};

/* Open device (SV_DEVICE or the first), port 1, PD, CQ of cqe entries. */
int side_open(struct sv_side *s, int cqe, int with_channel);
/* Use GID index idx as our source GID (s->gid, sgid_index). 0 or -1. */
int side_use_gid(struct sv_side *s, int idx);
/* Release everything side_open() made; safe on a partly opened side. */
void side_close(struct sv_side *s);

/* Move a new QP to INIT (UD: all the way to RTS).  0 or -1. */
int qp_init(struct sv_side *s, struct ibv_qp *qp, const struct sv_conn *c);
/* Create a QP and move it to INIT (UD: all the way to RTS). */
struct ibv_qp *qp_new(struct sv_side *s, const struct sv_conn *c);
/* Fill *a with our QP's address (and no buffer). */
void addr_of(struct sv_side *s, struct ibv_qp *qp, const struct sv_conn *c,
	     struct sv_addr *a);
/* INIT -> RTR -> RTS towards *peer (RC/UC).  0 or -1. */
int qp_connect(struct sv_side *s, struct ibv_qp *qp, const struct sv_conn *c,
	       const struct sv_addr *peer);
/*
 * qp_pair - both roles call it: create, exchange addresses (with the
 * optional buffer described by mybuf), connect and barrier.  On return
 * *peer holds the other side's address and buffer.  NULL on failure.
 */
struct ibv_qp *qp_pair(struct sv_side *s, const struct sv_conn *c,
		       const struct sv_buf *mybuf, struct sv_addr *peer);
/* Current QP state, or -1 if ibv_query_qp failed. */
int qp_state(struct ibv_qp *qp);
/* An address handle towards peer (UD). */
struct ibv_ah *ah_to(struct sv_side *s, const struct sv_addr *peer);

int buf_new(struct sv_side *s, struct sv_buf *b, size_t len, int access);
int buf_new_iova(struct sv_side *s, struct sv_buf *b, size_t len,
		 uint64_t iova, int access);
void buf_free(struct sv_buf *b);
/* Deterministic byte pattern keyed by seed. */
void pattern_fill(uint8_t *p, size_t len, unsigned int seed);
/* Offset of the first mismatch against the pattern, or -1. */
long pattern_check(const uint8_t *p, size_t len, unsigned int seed);

/* Post one work request with a single SGE (len 0: no SGE). 0 or errno. */
int post_one(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
	     const struct sv_buf *b, size_t off, uint32_t len,
	     uint64_t raddr, uint32_t rkey, int flags);
int post_recv_one(struct ibv_qp *qp, uint64_t wr_id, const struct sv_buf *b,
		  size_t off, uint32_t len);

/* Wait up to ms for one completion: 1 got it, 0 timed out, -1 error. */
int wc_wait(struct ibv_cq *cq, int ms, struct ibv_wc *wc);
/* Wait up to ms for a completion with wr_id; others are discarded. */
int wc_wait_id(struct ibv_cq *cq, int ms, uint64_t wr_id, struct ibv_wc *wc);
/*
 * Wait up to ms for an async event of the given type (others are noted and
 * skipped).  1 got it (acked, *ev is a copy), 0 not within ms.
 */
int async_wait(struct ibv_context *ctx, int ms, enum ibv_event_type type,
	       struct ibv_async_event *ev);

/* Control socket: tagged messages with a deadline (20 s). 0 or -1. */
int ctl_send(struct sv_side *s, uint32_t tag, const void *p, size_t len);
int ctl_recv(struct sv_side *s, uint32_t tag, void *p, size_t len);
/* Both roles call it: send tag, wait for the peer's tag. 0 or -1. */
int ctl_sync(struct sv_side *s, uint32_t tag);

/* "IBV_WC_..." style name of a status, for messages. */
const char *wc_name(enum ibv_wc_status st);
const char *state_name(int st);
/* IBTA transport timeout: 4.096 us * 2^exp, in ms. */
double ack_timeout_ms(uint8_t exp);

#endif
