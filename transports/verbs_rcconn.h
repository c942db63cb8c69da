/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rc_conn's session and the helpers its one-at-a-time steps
 * (verbs_rcconn.c) share with its storm (verbs_rcstorm.c, --qps N).
 * Inside the verbs transport only.
 */
#ifndef QPERF_VERBS_RCCONN_H
#define QPERF_VERBS_RCCONN_H

#include <rdma/rdma_cma.h>

#include "verbs_int.h"

#define RCC_TOKEN 8 /* bytes of the test's token in every REQ */
#define RCC_BACKLOG 64 /* connection requests the listener queues */
#define RCC_ANNOUNCE (4 + RCC_TOKEN) /* u32 port (little endian), token */
#define RCC_STORM_MAX 1024 /* connections of a storm (--qps) */

enum rcc_step {
	RCC_ADDR,
	RCC_ROUTE,
	RCC_CREATE,
	RCC_CONNECT,
	RCC_MSG,
	RCC_DISC,
	RCC_DESTROY
};

extern const struct conn_steps rcc_names;

/* One connection of a storm; its id's context is its index + 1. */
struct rcc_slot {
	struct rdma_cm_id *id;
	uint64_t t0; /* ns: the start of its step */
	bool done; /* its step is complete */
	bool connected; /* ESTABLISHED seen, not yet DISCONNECTED */
	bool early; /* server: DISCONNECTED came during first_msg */
	uint8_t wait; /* the completions its first_msg waits for */
};

/* Per session (priv_size); a transaction's id and QP are v.cm_id, v.qp
 * (a storm's: slot[i].id and its QP). */
struct rcc_priv {
	struct verbs_priv v; /* first: verbs_close() and verbs_facts() */
	uint64_t n; /* transactions begun (server: connections taken) */
	uint8_t token[RCC_TOKEN];
	struct sockaddr_storage dst; /* client: the server's CM address */
	struct sockaddr_storage src; /* client: the control's local end */
	bool bind_src; /* ... of dst's family: the source the server checks */
	uint64_t strangers; /* server: requests rejected */
	/* server: the client's next request, come before the current
	 * connection was done with (taken by the next transaction) */
	struct rdma_cm_id *pending;
	/* a storm (--qps N > 1): its N slots, and (server) the requests of
	 * the next storm come before this one was done with, at most N */
	struct rcc_slot *slot;
	uint32_t nslot;
	struct rdma_cm_id **queue;
	uint32_t nqueue;
};

/* What rcc_wait() found. */
#define W_EVENT 1 /* a CM event, in *ev (to be acked) */
#define W_CQ 2 /* a completion notice, taken (the CQ to be polled) */

/* The timeout in ms, for librdmacm's resolutions. */
int rcc_timeout_ms(const struct tsess *s);
/*
 * Wait until deadline for a CM event or, with cq, a completion notice:
 * W_EVENT, W_CQ; 0 when the timer ended a server's wait; -1 with errno
 * ETIMEDOUT, ECONNRESET (the control connection) or the failed call's.
 */
int rcc_wait(struct tsess *s, struct verbs_priv *v, bool cq,
	     uint64_t deadline, struct rdma_cm_event **ev);
/* Reject request ev, ack it and destroy its id (counted a stranger). */
void rcc_refuse(struct rcc_priv *r, struct rdma_cm_event *ev);
/* Is request ev from the control connection's peer with the token? */
bool rcc_request_ok(struct tsess *s, const struct rcc_priv *r,
		    const struct rdma_cm_event *ev);
/* Why a wait failed (errno e), for a message. */
const char *rcc_wait_why(int e);
/* Both ends' connection parameters. */
void rcc_conn_param(struct rdma_conn_param *cp);
/* The client's starts, whose events come later (one connection, or a
 * storm's slot): a new id on the session's channel (ctx its context)
 * resolving the server's address; the connect, with the test's token.
 * 0, or -1 with why filled. */
int rcc_start_addr(struct tsess *s, struct rcc_priv *r,
		   struct rdma_cm_id **id, void *ctx, char *why, size_t len);
int rcc_start_connect(struct rcc_priv *r, struct rdma_cm_id *id, char *why,
		      size_t len);

/* An RC QP on id with the session's PD and CQ (QP qi's, for a CQ per
 * QP): 0, or -1 with why filled. */
int rcc_qp_on(struct tsess *s, struct verbs_priv *v, struct rdma_cm_id *id,
	      uint32_t qi, char *why, size_t len);

/* The storm (verbs_rcstorm.c): conn_storm(); its slots made at open and
 * released at close (with any queued request, refused). */
int rcc_storm(struct tsess *s, int step, uint64_t *slot_ns, char *err,
	      size_t errlen);
int rcc_storm_alloc(struct tsess *s, struct rcc_priv *r, char *err,
		    size_t errlen);
void rcc_storm_free(struct rcc_priv *r);

#endif
