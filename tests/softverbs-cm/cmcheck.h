/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmcheck: what its case files share (see cmcheck.c). */
#ifndef CMCHECK_H
#define CMCHECK_H

#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include "../kit/check.h"

#define TMO 5000	/* ms: no expected event takes longer */
#define CHK(cond, ...) ((cond) ? 0 : bad(__VA_ARGS__))

/* one role's resources, released by the harness */
struct peer {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen, *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	int cq_borrowed;	/* cq is the endpoint's, not ours */
	char buf[4096];
	int fd;		/* to the other role (the kit's socketpair): the port,
			 * "done" */
};

extern char why[512];
#define REQ_DATA "request-data"	/* private data of REQs */
#define REP_DATA "reply-data"	/* and of REPs */

/* Record the first failure reason; returns -1. */
int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long now_ms(void);
/* The next event (unacked) of type/status within ms, or NULL. */
struct rdma_cm_event *want_event(struct rdma_event_channel *ch,
				 enum rdma_cm_event_type type, int status,
				 int ms);
int want_ack(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
	     int status, int ms);
void sa_make(struct sockaddr_storage *ss, const char *ip, uint16_t port);
/* a u32 to or from the other role, within TMO */
int peer_put(struct peer *p, uint32_t v);
int peer_get(struct peer *p, uint32_t *v);
/* passive: listen on ip, port 0, publish the port to the active role */
int passive_listen(struct peer *s, const char *ip, enum rdma_port_space ps);
/* active: resolve ip:port (0: from the passive role), address and route */
int active_resolve(struct peer *c, const char *ip, uint16_t port,
		   enum rdma_port_space ps);
int make_qp(struct peer *p, struct rdma_cm_id *id, enum ibv_qp_type t);
/* active: resolve 127.0.0.1 (the passive role's port), an RC QP, connect */
int rc4_connect(struct peer *c);
/* passive: listen on 127.0.0.1 and take one request (its id in s->id) */
int rc4_request(struct peer *s);
/* rc4_request, then an RC QP, accept, and wait for ESTABLISHED */
int rc4_accept(struct peer *s);
int post_recv(struct peer *p, struct rdma_cm_id *id, size_t len);
int wait_wc(struct peer *p, enum ibv_wc_opcode op, struct ibv_wc *wc);
int send_msg(struct peer *p, struct rdma_cm_id *id, const char *msg,
	     struct ibv_ah *ah, uint32_t qpn, uint32_t qkey);

/* cmcheck_more.c */
int ud_passive(struct peer *s);
int ud_active(struct peer *c);
int ep_passive(struct peer *s);
int ep_active(struct peer *c);
int migrate_passive(struct peer *s);
int migrate_active(struct peer *c);
int lgone_passive(struct peer *s);
int lgone_active(struct peer *c);
int qpfreed_passive(struct peer *s);
int qpfreed_active(struct peer *c);

#endif
