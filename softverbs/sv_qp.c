// SPDX-License-Identifier: MIT
/*
 * Queue pairs, shared receive queues and XRC domains: creation, the QP state
 * machine with the IBTA required attributes per transition, receive posting
 * and the transition to the error state (flush).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sv_internal.h"

void sv_list_init(struct sv_list *l)
{
	l->next = l->prev = l;
}

void sv_list_add(struct sv_list *head, struct sv_list *n)
{
	n->next = head;
	n->prev = head->prev;
	head->prev->next = n;
	head->prev = n;
}

void sv_list_del(struct sv_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define QP_HASH_MIN 64

static uint32_t qp_bucket(const struct sv_context *ctx, uint32_t qpn)
{
	return (qpn * 2654435761u) & (ctx->qp_hash_size - 1);
}

/* Make room for one more QP in ctx's hash (chains of about one QP):
 * 0, or ENOMEM.  Under ctx->mu. */
static int qp_hash_grow(struct sv_context *ctx)
{
	uint32_t n = ctx->qp_hash_size ? ctx->qp_hash_size : QP_HASH_MIN / 2;
	struct sv_qp **old = ctx->qp_hash, **t;
	uint32_t old_size = ctx->qp_hash_size;

	if (ctx->nqps + 1 <= ctx->qp_hash_size)
		return 0;
	while (n < ctx->nqps + 1)
		n *= 2;
	t = calloc(n, sizeof(*t));
	if (!t)
		return ENOMEM;
	ctx->qp_hash = t;
	ctx->qp_hash_size = n;
	for (uint32_t i = 0; i < old_size; i++)
		while (old[i]) {
			struct sv_qp *qp = old[i];
			uint32_t b = qp_bucket(ctx, qp->qpn);

			old[i] = qp->hnext;
			qp->hnext = t[b];
			t[b] = qp;
		}
	free(old);
	return 0;
}

static void qp_hash_del(struct sv_context *ctx, struct sv_qp *qp)
{
	struct sv_qp **p = &ctx->qp_hash[qp_bucket(ctx, qp->qpn)];

	while (*p && *p != qp)
		p = &(*p)->hnext;
	if (*p)
		*p = qp->hnext;
	qp->hnext = NULL;
}

struct sv_qp *sv_qp_find(struct sv_context *ctx, uint32_t qpn)
{
	struct sv_qp *qp;

	if (!ctx->qp_hash_size)
		return NULL;
	for (qp = ctx->qp_hash[qp_bucket(ctx, qpn)]; qp; qp = qp->hnext)
		if (qp->qpn == qpn)
			return qp;
	return NULL;
}

struct sv_srq *sv_srq_find(struct sv_context *ctx, uint32_t srqn)
{
	struct sv_list *l;

	for (l = ctx->srqs.next; l != &ctx->srqs; l = l->next) {
		struct sv_srq *s = sv_container(l, struct sv_srq, link);

		if (s->srqn == srqn)
			return s;
	}
	return NULL;
}

/* ---- receive queues ------------------------------------------------------------ */

static int rq_init(struct sv_rq *rq, uint32_t wr, uint32_t sge)
{
	rq->cap = wr ? wr : 1;
	rq->max_sge = sge ? sge : 1;
	rq->ring = calloc(rq->cap, sizeof(*rq->ring));
	return rq->ring ? 0 : -1;
}

bool sv_rq_pop(struct sv_rq *rq, struct sv_rwqe *out)
{
	if (!rq->count)
		return false;
	*out = rq->ring[rq->head];
	rq->head = (rq->head + 1) % rq->cap;
	rq->count--;
	return true;
}

/* SOFTVERBS_NULL: a receive completes as it is posted, as if a message
 * of its whole length had come (its buffer untouched). */
static void null_recv(struct sv_qp *qp, const struct ibv_recv_wr *wr)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr->wr_id;
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = IBV_WC_RECV;
	wc.byte_len = (uint32_t)sv_sge_total(wr->sg_list,
					     (uint32_t)wr->num_sge);
	wc.qp_num = qp->qpn;
	sv_cq_push(qp->rcq, &wc, false);
}

static int rq_push(struct sv_context *ctx, struct ibv_pd *pd, struct sv_rq *rq,
		   struct ibv_recv_wr *wr)
{
	struct sv_rwqe *e;

	(void)ctx;
	(void)pd;
	if (rq->count == rq->cap)
		return ENOMEM;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;
	e = &rq->ring[(rq->head + rq->count) % rq->cap];
	e->wr_id = wr->wr_id;
	e->nsge = (uint32_t)wr->num_sge;
	if (wr->num_sge)
		memcpy(e->sge, wr->sg_list, sizeof(e->sge[0]) * e->nsge);
	rq->count++;
	return 0;
}

static void flush_rwqe(struct sv_cq *cq, struct sv_qp *qp, uint64_t wr_id)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = IBV_WC_WR_FLUSH_ERR;
	wc.opcode = IBV_WC_RECV;
	wc.qp_num = qp->qpn;
	sv_cq_push(cq, &wc, false);
}

int sv_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad)
{
	struct sv_qp *qp = sv_qp(q);
	struct sv_context *ctx = qp->ctx;
	int err = 0;

	if (!sv_ctx_usable(ctx)) {
		*bad = wr;
		return EINVAL;
	}
	if (qp->srq || q->qp_type == IBV_QPT_XRC_SEND ||
	    q->qp_type == IBV_QPT_XRC_RECV) {
		*bad = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&ctx->mu);
	for (; wr; wr = wr->next) {
		if (q->state == IBV_QPS_ERR) {
			flush_rwqe(qp->rcq, qp, wr->wr_id);
			continue;
		}
		if (sv_cfg.null_mode && wr->num_sge >= 0 &&
		    (uint32_t)wr->num_sge <= qp->rq.max_sge) {
			null_recv(qp, wr);
			continue;
		}
		err = rq_push(ctx, q->pd, &qp->rq, wr);
		if (err)
			break;
	}
	if (qp->held)
		sv_retry_held(qp);
	pthread_mutex_unlock(&ctx->mu);
	if (err)
		*bad = wr;
	return err;
}

int sv_post_srq_recv(struct ibv_srq *s, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad)
{
	struct sv_srq *srq = sv_srq(s);
	struct sv_context *ctx = sv_ctx(s->context);
	struct sv_list *l;
	int err = 0;

	if (!sv_ctx_usable(ctx)) {
		*bad = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&ctx->mu);
	for (; wr; wr = wr->next) {
		err = rq_push(ctx, s->pd, &srq->rq, wr);
		if (err)
			break;
	}
	/* the QPs waiting for a receive (RNR) try again: a walk over all of
	 * them, so only when some hold requests */
	for (l = ctx->held_qps ? ctx->qps.next : &ctx->qps; l != &ctx->qps;
	     l = l->next) {
		struct sv_qp *qp = sv_container(l, struct sv_qp, link);

		if (qp->held && (qp->srq == srq ||
				  (qp->xrcd && qp->xrcd == srq->xrcd)))
			sv_retry_held(qp);
	}
	pthread_mutex_unlock(&ctx->mu);
	if (err)
		*bad = wr;
	return err;
}

/* ---- error state --------------------------------------------------------------- */

void sv_qp_to_error(struct sv_qp *qp)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	struct sv_rwqe r;
	uint32_t i;

	if (q->state == IBV_QPS_ERR)
		return;
	SV_DBG("qp %u -> ERR", qp->qpn);
	q->state = IBV_QPS_ERR;
	qp->attr.qp_state = IBV_QPS_ERR;
	/* outstanding sends, in order; errors always complete */
	for (i = 0; i < qp->sq_count; i++) {
		struct sv_swqe *e = &qp->sq[(qp->sq_head + i) % qp->sq_cap];

		if (!e->done) {
			e->done = true;
			e->signaled = true;
			e->status = IBV_WC_WR_FLUSH_ERR;
		}
	}
	sv_sq_retire(qp);
	qp->rd_inflight = 0;
	qp->dead_at = 0;
	if (qp->in_msg && !qp->in_discard && qp->in_has_wqe &&
	    qp->rcq && !qp->in_srq) {
		flush_rwqe(qp->rcq, qp, qp->in_wqe.wr_id);
	}
	qp->in_msg = false;
	if (!qp->srq && qp->rcq)
		while (sv_rq_pop(&qp->rq, &r))
			flush_rwqe(qp->rcq, qp, r.wr_id);
	if (qp->srq)
		sv_async_event(qp->ctx, IBV_EVENT_QP_LAST_WQE_REACHED, q);
	sv_drop_held(qp, SV_NAK_DEAD);
	pthread_cond_broadcast(&qp->send_cv);
}

/* ---- creation ------------------------------------------------------------------- */

static void qp_free(struct sv_qp *qp)
{
	if (qp->fd >= 0)
		close(qp->fd);
	free(qp->rq.ring);
	free(qp->sq);
	free(qp->pktbuf);
	sv_qp_ex_free(qp);
	pthread_mutex_destroy(&qp->send_mu);
	pthread_cond_destroy(&qp->send_cv);
	free(qp);
}

struct ibv_qp *sv_create_qp_ex(struct ibv_context *c,
			       struct ibv_qp_init_attr_ex *a)
{
	struct sv_context *ctx = sv_ctx(c);
	struct sv_qp *qp;
	struct ibv_qp *q;
	struct ibv_qp_cap cap = a->cap;
	struct epoll_event ev;
	bool is_xrc_recv = a->qp_type == IBV_QPT_XRC_RECV;
	int e = ENOMEM;

	if (!sv_ctx_usable(ctx)) {
		errno = EINVAL;
		return NULL;
	}
	if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
				       IBV_QP_INIT_ATTR_XRCD |
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
				       IBV_QP_INIT_ATTR_CREATE_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	switch (a->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
		if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || !a->pd ||
		    !a->send_cq ||
		    (a->qp_type != IBV_QPT_XRC_SEND && !a->recv_cq && !a->srq)) {
			errno = EINVAL;
			return NULL;
		}
		break;
	case IBV_QPT_XRC_RECV:
		if (!(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !a->xrcd) {
			errno = EINVAL;
			return NULL;
		}
		break;
	default:
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && a->create_flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (cap.max_send_wr > SV_MAX_WR || cap.max_recv_wr > SV_MAX_WR ||
	    cap.max_send_sge > SV_MAX_SGE || cap.max_recv_sge > SV_MAX_SGE ||
	    cap.max_inline_data > SV_MAX_INLINE) {
		errno = EINVAL;
		return NULL;
	}
	if (is_xrc_recv)
		memset(&cap, 0, sizeof(cap));
	if (a->qp_type == IBV_QPT_XRC_SEND)
		cap.max_recv_wr = cap.max_recv_sge = 0;
	if (a->srq)
		cap.max_recv_wr = cap.max_recv_sge = 0;
	if (!is_xrc_recv) {
		if (!cap.max_send_sge)
			cap.max_send_sge = 1;
		if (!cap.max_send_wr)
			cap.max_send_wr = 1;
		/* as HCAs (and rxe) round up, a send queue takes at least
		 * SV_MIN_INLINE bytes inline, asked for or not: programs
		 * that post small IBV_SEND_INLINE sends without asking
		 * (rdma_xclient) work as on hardware */
		if (cap.max_inline_data < SV_MIN_INLINE)
			cap.max_inline_data = SV_MIN_INLINE;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->fd = -1;
	pthread_mutex_init(&qp->send_mu, NULL);
	pthread_cond_init(&qp->send_cv, NULL);
	qp->ctx = ctx;
	qp->sq_cap = cap.max_send_wr ? cap.max_send_wr : 1;
	qp->sq = calloc(qp->sq_cap, sizeof(*qp->sq));
	qp->pktbuf = malloc(SV_PKT_MAX);
	if (!qp->sq || !qp->pktbuf ||
	    (!a->srq && !is_xrc_recv && a->qp_type != IBV_QPT_XRC_SEND &&
	     rq_init(&qp->rq, cap.max_recv_wr, cap.max_recv_sge)))
		goto err;
	qp->cap = cap;
	qp->sq_sig_all = a->sq_sig_all != 0;
	qp->scq = a->send_cq ? sv_cq(a->send_cq) : NULL;
	qp->rcq = a->recv_cq ? sv_cq(a->recv_cq) : NULL;
	qp->srq = a->srq ? sv_srq(a->srq) : NULL;
	qp->xrcd = (a->comp_mask & IBV_QP_INIT_ATTR_XRCD) ?
			   (struct sv_xrcd *)a->xrcd : NULL;
	qp->forced_rnr_left = sv_cfg.force_rnr;
	qp->rnr_left = -1;
	qp->fd = sv_qp_socket(ctx, &qp->qpn);
	if (qp->fd < 0) {
		e = errno == EMFILE || errno == ENFILE ? errno : ENOMEM;
		goto err;
	}
	q = &qp->qpx.qp_base;
	q->context = c;
	q->qp_context = a->qp_context;
	q->pd = is_xrc_recv ? NULL : a->pd;
	q->send_cq = a->send_cq;
	q->recv_cq = a->recv_cq;
	q->srq = a->srq;
	q->handle = qp->qpn;
	q->qp_num = qp->qpn;
	q->state = IBV_QPS_RESET;
	q->qp_type = a->qp_type;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.cap = cap;
	qp->attr.max_rd_atomic = 1;
	qp->attr.max_dest_rd_atomic = 1;
	sv_qp_ex_init(qp);
	if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->qpx.comp_mask |= IBV_QP_EX_WITH_RDMA_WRITE;

	pthread_mutex_lock(&ctx->mu);
	if (ctx->nqps >= sv_cfg.max_qp || qp_hash_grow(ctx)) {
		/* the device's max_qp (SOFTVERBS_MAX_QP), or no memory */
		pthread_mutex_unlock(&ctx->mu);
		goto err;
	}
	sv_list_add(&ctx->qps, &qp->link);
	qp->hnext = ctx->qp_hash[qp_bucket(ctx, qp->qpn)];
	ctx->qp_hash[qp_bucket(ctx, qp->qpn)] = qp;
	ctx->nqps++;
	pthread_mutex_unlock(&ctx->mu);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = qp->qpn;
	epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, qp->fd, &ev);
	a->cap = cap;
	SV_DBG("created qp %u type %d", qp->qpn, a->qp_type);
	return q;
err:
	qp_free(qp);
	errno = e;
	return NULL;
}

SV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	ex.qp_context = attr->qp_context;
	ex.send_cq = attr->send_cq;
	ex.recv_cq = attr->recv_cq;
	ex.srq = attr->srq;
	ex.cap = attr->cap;
	ex.qp_type = attr->qp_type;
	ex.sq_sig_all = attr->sq_sig_all;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = sv_create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_qp *sv_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	(void)c, (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

SV_EXPORT int ibv_destroy_qp(struct ibv_qp *q)
{
	struct sv_qp *qp = sv_qp(q);
	struct sv_context *ctx = qp->ctx;

	if (!sv_ctx_usable(ctx))
		return EINVAL;
	pthread_mutex_lock(&ctx->rx_lock);
	pthread_mutex_lock(&ctx->mu);
	sv_send_flush_delayed(qp, true);
	epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, qp->fd, NULL);
	/* tell requesters whose packets are still queued that nobody answers */
	for (;;) {
		ssize_t n = recv(qp->fd, ctx->rxbuf, SV_PKT_MAX, MSG_DONTWAIT);
		struct sv_pkt *p = (struct sv_pkt *)ctx->rxbuf;

		if (n < (ssize_t)sizeof(*p))
			break;
		if (p->magic == SV_PKT_MAGIC && (p->flags & SV_F_FIRST) &&
		    p->op <= SV_OP_FETCH_ADD &&
		    (p->qp_type == IBV_QPT_RC || p->qp_type == IBV_QPT_XRC_SEND)) {
			struct sv_pkt nak;

			memset(&nak, 0, sizeof(nak));
			nak.op = SV_OP_NAK;
			nak.syndrome = SV_NAK_DEAD;
			nak.msn = p->msn;
			sv_respond(ctx, qp, p->src_node, p->src_qpn, &nak,
				   NULL, 0);
		}
	}
	sv_drop_held(qp, SV_NAK_DEAD);
	sv_mcast_detach_all(qp);
	qp->destroyed = true;
	sv_list_del(&qp->link);
	qp_hash_del(ctx, qp);
	ctx->nqps--;
	/* pending ACKs go out before the socket disappears */
	sv_emit_ack(qp);
	pthread_mutex_unlock(&ctx->mu);
	pthread_mutex_unlock(&ctx->rx_lock);
	sv_flush_backlog(ctx, 100);
	sv_cnt_flush();
	qp_free(qp);
	return 0;
}

/* ---- state machine ---------------------------------------------------------------- */

/* required attributes for the common transitions, per transport */
static int required_mask(enum ibv_qp_type t, enum ibv_qp_state cur,
			 enum ibv_qp_state next)
{
	bool rc = t == IBV_QPT_RC || t == IBV_QPT_XRC_SEND ||
		  t == IBV_QPT_XRC_RECV;

	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return 0;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT)
		return t == IBV_QPT_UD ? IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						 IBV_QP_QKEY :
					 IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						 IBV_QP_ACCESS_FLAGS;
	if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		if (t == IBV_QPT_UD)
			return 0;
		if (t == IBV_QPT_UC || t == IBV_QPT_XRC_SEND)
			return IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			       IBV_QP_RQ_PSN;
		return IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		       IBV_QP_MIN_RNR_TIMER;
	}
	if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS) {
		if (t == IBV_QPT_XRC_RECV)
			return IBV_QP_TIMEOUT | IBV_QP_SQ_PSN;
		if (rc)
			return IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			       IBV_QP_MAX_QP_RD_ATOMIC;
		return IBV_QP_SQ_PSN;
	}
	return 0;
}

static bool transition_ok(enum ibv_qp_state cur, enum ibv_qp_state next)
{
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return true;
	switch (cur) {
	case IBV_QPS_RESET:
		return next == IBV_QPS_INIT;
	case IBV_QPS_INIT:
		return next == IBV_QPS_INIT || next == IBV_QPS_RTR;
	case IBV_QPS_RTR:
		return next == IBV_QPS_RTS;
	case IBV_QPS_RTS:
		return next == IBV_QPS_RTS || next == IBV_QPS_SQD;
	case IBV_QPS_SQD:
		return next == IBV_QPS_RTS || next == IBV_QPS_SQD;
	case IBV_QPS_SQE:
		return next == IBV_QPS_RTS;
	default:
		return false;
	}
}

static void qp_reset(struct sv_qp *qp)
{
	qp->sq_head = qp->sq_count = 0;
	qp->rq.head = qp->rq.count = 0;
	qp->rd_inflight = 0;
	qp->dead_at = 0;
	qp->in_msg = qp->in_discard = false;
	qp->ack_pending = false;
	qp->comm_est_sent = false;
	sv_drop_held(qp, SV_NAK_DEAD);
}

static int check_attr(struct sv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	if ((mask & IBV_QP_PORT) && a->port_num != 1)
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) &&
	    (a->path_mtu < IBV_MTU_256 || a->path_mtu > sv_cfg.mtu))
		return EINVAL;
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return EINVAL;
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return EINVAL;
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return EINVAL;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > SV_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > SV_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > 0xffffff)
		return EINVAL;
	if ((mask & IBV_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
						 IBV_ACCESS_REMOTE_WRITE |
						 IBV_ACCESS_REMOTE_READ |
						 IBV_ACCESS_REMOTE_ATOMIC |
						 IBV_ACCESS_MW_BIND)))
		return EINVAL;
	if ((mask & IBV_QP_CAP) &&
	    (a->cap.max_send_wr > qp->cap.max_send_wr ||
	     a->cap.max_recv_wr > qp->cap.max_recv_wr))
		return EINVAL;
	if ((mask & IBV_QP_AV) && a->ah_attr.port_num != 1 &&
	    a->ah_attr.port_num != 0)
		return EINVAL;
	return 0;
}

SV_EXPORT int ibv_modify_qp(struct ibv_qp *q, struct ibv_qp_attr *a, int mask)
{
	struct sv_qp *qp = sv_qp(q);
	struct sv_context *ctx = qp->ctx;
	enum ibv_qp_state cur, next;
	uint32_t dest_node = 0;
	int req, err;

	if (!sv_ctx_usable(ctx))
		return EINVAL;
	/* GRH rules, sgid_index, dgid -> node; may read /proc: not under mu */
	if (mask & IBV_QP_AV) {
		err = sv_av_resolve(&a->ah_attr, &dest_node);
		if (!err && dest_node == SV_NODE_MCAST)
			err = EINVAL;	/* a connection to a group */
		if (err) {
			SV_DBG("qp %u: address vector refused (%d)", qp->qpn,
			       err);
			return err;
		}
	}
	pthread_mutex_lock(&ctx->mu);
	cur = q->state;
	if ((mask & IBV_QP_CUR_STATE) && a->cur_qp_state != cur &&
	    !(cur == IBV_QPS_SQE || a->cur_qp_state == IBV_QPS_SQE)) {
		err = EINVAL;
		goto out;
	}
	next = (mask & IBV_QP_STATE) ? a->qp_state : cur;
	if (!transition_ok(cur, next)) {
		err = EINVAL;
		goto out;
	}
	req = required_mask(q->qp_type, cur, next);
	if ((mask & req) != req) {
		SV_DBG("qp %u: modify %d->%d lacks attr mask 0x%x", qp->qpn,
		       cur, next, req & ~mask);
		err = EINVAL;
		goto out;
	}
	if (q->qp_type == IBV_QPT_UD && (mask & IBV_QP_ACCESS_FLAGS)) {
		err = EINVAL;
		goto out;
	}
	err = check_attr(qp, a, mask);
	if (err)
		goto out;
	if (mask & IBV_QP_PKEY_INDEX)
		qp->attr.pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		qp->attr.port_num = a->port_num;
	if (mask & IBV_QP_QKEY)
		qp->attr.qkey = a->qkey;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_AV) {
		qp->attr.ah_attr = a->ah_attr;
		qp->dest_node = dest_node;
	}
	if (mask & IBV_QP_ALT_PATH) {
		qp->attr.alt_ah_attr = a->alt_ah_attr;
		qp->attr.alt_pkey_index = a->alt_pkey_index;
		qp->attr.alt_port_num = a->alt_port_num;
		qp->attr.alt_timeout = a->alt_timeout;
	}
	if (mask & IBV_QP_PATH_MIG_STATE)
		qp->attr.path_mig_state = a->path_mig_state;
	if (mask & IBV_QP_PATH_MTU)
		qp->attr.path_mtu = a->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		qp->attr.dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN) {
		qp->attr.rq_psn = a->rq_psn & 0xffffff;
		qp->rq_psn = qp->attr.rq_psn;
	}
	if (mask & IBV_QP_SQ_PSN) {
		qp->attr.sq_psn = a->sq_psn & 0xffffff;
		qp->sq_psn = qp->attr.sq_psn;
	}
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)
		qp->attr.timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->attr.retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->attr.rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_SQ_PSN && q->qp_type == IBV_QPT_UD)
		qp->sq_psn = a->sq_psn & 0xffffff;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = a->en_sqd_async_notify;
	if (next != cur) {
		SV_DBG("qp %u: %s -> %d", qp->qpn,
		       cur == IBV_QPS_RESET ? "RESET" : "state", next);
		if (next == IBV_QPS_ERR) {
			sv_qp_to_error(qp);
		} else {
			if (next == IBV_QPS_RESET)
				qp_reset(qp);
			q->state = next;
			qp->attr.qp_state = next;
			if (next == IBV_QPS_SQD && qp->attr.en_sqd_async_notify)
				sv_async_event(ctx, IBV_EVENT_SQ_DRAINED, q);
			if ((next == IBV_QPS_RTR || next == IBV_QPS_RTS) &&
			    qp->held)
				sv_retry_held(qp);
		}
	}
	err = 0;
out:
	pthread_mutex_unlock(&ctx->mu);
	return err;
}

SV_EXPORT int ibv_query_qp(struct ibv_qp *q, struct ibv_qp_attr *a,
			   int mask, struct ibv_qp_init_attr *init)
{
	struct sv_qp *qp = sv_qp(q);

	(void)mask;
	pthread_mutex_lock(&qp->ctx->mu);
	*a = qp->attr;
	a->qp_state = q->state;
	a->cur_qp_state = q->state;
	a->cap = qp->cap;
	a->sq_draining = 0;
	pthread_mutex_unlock(&qp->ctx->mu);
	if (init) {
		memset(init, 0, sizeof(*init));
		init->qp_context = q->qp_context;
		init->send_cq = q->send_cq;
		init->recv_cq = q->recv_cq;
		init->srq = q->srq;
		init->cap = qp->cap;
		init->qp_type = q->qp_type;
		init->sq_sig_all = qp->sq_sig_all;
	}
	return 0;
}

SV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp,
					 enum ibv_wr_opcode op, uint32_t flags)
{
	/* data is placed in increasing address order, whole messages */
	(void)qp, (void)op, (void)flags;
	return 1;
}

SV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return EOPNOTSUPP;
}

SV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return EOPNOTSUPP;
}

/* ---- SRQ ------------------------------------------------------------------------- */

struct ibv_srq *sv_create_srq_ex(struct ibv_context *c,
				 struct ibv_srq_init_attr_ex *a)
{
	struct sv_context *ctx = sv_ctx(c);
	struct sv_srq *srq;
	bool xrc = (a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
		   a->srq_type == IBV_SRQT_XRC;

	if (!sv_ctx_usable(ctx) || !(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) ||
	    !a->pd || a->attr.max_wr > SV_MAX_WR || a->attr.max_wr == 0 ||
	    a->attr.max_sge > SV_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	if ((a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    a->srq_type != IBV_SRQT_BASIC && a->srq_type != IBV_SRQT_XRC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (xrc && (!(a->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !a->xrcd ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !a->cq)) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq || rq_init(&srq->rq, a->attr.max_wr, a->attr.max_sge)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	srq->srq.context = c;
	srq->srq.srq_context = a->srq_context;
	srq->srq.pd = a->pd;
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	srq->limit = a->attr.srq_limit;
	if (xrc) {
		srq->xrcd = (struct sv_xrcd *)a->xrcd;
		srq->cq = sv_cq(a->cq);
	}
	pthread_mutex_lock(&ctx->mu);
	srq->srqn = ctx->next_srqn++;
	srq->srq.handle = srq->srqn;
	sv_list_add(&ctx->srqs, &srq->link);
	pthread_mutex_unlock(&ctx->mu);
	a->attr.max_wr = srq->rq.cap;
	a->attr.max_sge = srq->rq.max_sge;
	return &srq->srq;
}

SV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	struct ibv_srq *s;

	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	ex.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	ex.pd = pd;
	s = sv_create_srq_ex(pd->context, &ex);
	if (s)
		attr->attr = ex.attr;
	return s;
}

SV_EXPORT int ibv_modify_srq(struct ibv_srq *s, struct ibv_srq_attr *a,
			     int mask)
{
	struct sv_srq *srq = sv_srq(s);
	struct sv_context *ctx = sv_ctx(s->context);
	int err = 0;

	pthread_mutex_lock(&ctx->mu);
	if (mask & IBV_SRQ_MAX_WR) {
		struct sv_rwqe *r;
		uint32_t i;

		if (a->max_wr < srq->rq.count || a->max_wr > SV_MAX_WR) {
			err = EINVAL;
			goto out;
		}
		r = calloc(a->max_wr, sizeof(*r));
		if (!r) {
			err = ENOMEM;
			goto out;
		}
		for (i = 0; i < srq->rq.count; i++)
			r[i] = srq->rq.ring[(srq->rq.head + i) % srq->rq.cap];
		free(srq->rq.ring);
		srq->rq.ring = r;
		srq->rq.head = 0;
		srq->rq.cap = a->max_wr;
	}
	if (mask & IBV_SRQ_LIMIT) {
		if (a->srq_limit > srq->rq.cap) {
			err = EINVAL;
			goto out;
		}
		srq->limit = a->srq_limit;
	}
out:
	pthread_mutex_unlock(&ctx->mu);
	return err;
}

SV_EXPORT int ibv_query_srq(struct ibv_srq *s, struct ibv_srq_attr *a)
{
	struct sv_srq *srq = sv_srq(s);

	a->max_wr = srq->rq.cap;
	a->max_sge = srq->rq.max_sge;
	a->srq_limit = srq->limit;
	return 0;
}

SV_EXPORT int ibv_destroy_srq(struct ibv_srq *s)
{
	struct sv_srq *srq = sv_srq(s);
	struct sv_context *ctx = sv_ctx(s->context);
	struct sv_list *l;
	if (!sv_ctx_usable(ctx))
		return EINVAL;

	pthread_mutex_lock(&ctx->mu);
	for (l = ctx->qps.next; l != &ctx->qps; l = l->next)
		if (sv_container(l, struct sv_qp, link)->srq == srq) {
			pthread_mutex_unlock(&ctx->mu);
			return EBUSY;
		}
	sv_list_del(&srq->link);
	pthread_mutex_unlock(&ctx->mu);
	free(srq->rq.ring);
	free(srq);
	return 0;
}

int sv_get_srq_num(struct ibv_srq *s, uint32_t *num)
{
	*num = sv_srq(s)->srqn;
	return 0;
}

/* ---- XRC domains ------------------------------------------------------------------- */

struct ibv_xrcd *sv_open_xrcd(struct ibv_context *c,
			      struct ibv_xrcd_init_attr *a)
{
	struct sv_xrcd *x;

	if (a->comp_mask & ~(uint32_t)(IBV_XRCD_INIT_ATTR_FD |
				       IBV_XRCD_INIT_ATTR_OFLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->xrcd.context = c;
	return &x->xrcd;
}

int sv_close_xrcd(struct ibv_xrcd *x)
{
	free(x);
	return 0;
}
