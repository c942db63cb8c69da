// SPDX-License-Identifier: MIT
/*
 * Requester: ibv_post_send and what happens to its responses.
 * Requests leave in posting order from the application thread, blocking
 * while the peer's socket is full (back-pressure); ctx->mu is never held
 * while blocking.  RC send WQEs stay on the SQ until acknowledged and then
 * complete strictly in order; UC and UD complete once sent.  A peer that
 * is gone or in ERR yields RETRY_EXC_ERR only after the emulated transport
 * timeout 4.096 us * 2^timeout * (retry_cnt + 1).
 * Fault injection (drop, duplicate, delay, reorder) applies to UC and UD.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "sv_internal.h"

static bool rc_like(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC || t == IBV_QPT_XRC_SEND;
}

static void send_wc(struct sv_qp *qp, const struct sv_swqe *e)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = e->wr_id;
	wc.status = e->status;
	wc.opcode = e->opcode;
	wc.qp_num = qp->qpn;
	wc.byte_len = e->len;
	sv_cq_push(qp->scq, &wc, false);
}

void sv_sq_retire(struct sv_qp *qp)
{
	bool freed = false;

	while (qp->sq_count) {
		struct sv_swqe *e = &qp->sq[qp->sq_head];

		if (!e->done)
			break;
		if (e->signaled || e->status != IBV_WC_SUCCESS)
			send_wc(qp, e);
		qp->sq_head = (qp->sq_head + 1) % qp->sq_cap;
		qp->sq_count--;
		freed = true;
	}
	if (freed)
		pthread_cond_broadcast(&qp->send_cv);
}

static struct sv_swqe *sq_find(struct sv_qp *qp, uint32_t msn)
{
	uint32_t d;

	if (!qp->sq_count)
		return NULL;
	d = msn - qp->sq[qp->sq_head].msn;
	if (d >= qp->sq_count)
		return NULL;
	return &qp->sq[(qp->sq_head + d) % qp->sq_cap];
}

static void sq_ack_upto(struct sv_qp *qp, uint32_t msn)
{
	uint32_t i;

	for (i = 0; i < qp->sq_count; i++) {
		struct sv_swqe *e = &qp->sq[(qp->sq_head + i) % qp->sq_cap];

		if ((int32_t)(e->msn - msn) > 0)
			break;
		if (!e->done) {
			if (e->needs_resp && qp->rd_inflight)
				qp->rd_inflight--;
			e->done = true;
		}
	}
	sv_sq_retire(qp);
}

void sv_sq_fail(struct sv_qp *qp, enum ibv_wc_status st)
{
	uint32_t i;

	qp->dead_at = 0;
	for (i = 0; i < qp->sq_count; i++) {
		struct sv_swqe *e = &qp->sq[(qp->sq_head + i) % qp->sq_cap];

		if (!e->done) {
			e->done = true;
			e->status = st;
			break;
		}
	}
	SV_DBG("qp %u: send failed: %s", qp->qpn, ibv_wc_status_str(st));
	sv_qp_to_error(qp);
}

void sv_sq_lost(struct sv_qp *qp)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	uint64_t t;

	if (!rc_like(q->qp_type) || q->state == IBV_QPS_ERR ||
	    q->state == IBV_QPS_RESET || !qp->sq_count || qp->dead_at)
		return;
	t = sv_transport_timeout_ns(qp->attr.timeout, qp->attr.retry_cnt);
	if (t == UINT64_MAX)
		return;		/* timeout 0: the requester waits forever */
	qp->dead_at = sv_now_ns() + t;
	sv_timer_armed(qp->ctx, qp->dead_at);
}

static enum ibv_wc_status nak_status(uint8_t syn)
{
	switch (syn) {
	case SV_NAK_ACCESS: return IBV_WC_REM_ACCESS_ERR;
	case SV_NAK_INV_REQ: return IBV_WC_REM_INV_REQ_ERR;
	case SV_NAK_OP: return IBV_WC_REM_OP_ERR;
	case SV_NAK_RNR_EXC: return IBV_WC_RNR_RETRY_EXC_ERR;
	default: return IBV_WC_RETRY_EXC_ERR;
	}
}

void sv_handle_response(struct sv_qp *qp, struct sv_pkt *pkt, size_t len)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	struct sv_swqe *e;

	(void)len;
	if (!rc_like(q->qp_type) || q->state == IBV_QPS_ERR ||
	    q->state == IBV_QPS_RESET)
		return;
	if (!sv_gid_path_ok(&qp->attr.ah_attr, pkt)) {
		sv_sq_lost(qp);		/* not from our path: lost */
		return;
	}
	qp->last_activity = sv_now_ns();
	switch (pkt->op) {
	case SV_OP_ACK:
		sq_ack_upto(qp, pkt->msn);
		break;
	case SV_OP_READ_RESP:
		e = sq_find(qp, pkt->msn);
		if (!e || e->done || e->opcode != IBV_WC_RDMA_READ)
			break;
		if (pkt->chunk)
			sv_scatter(e->sge, e->nsge, pkt->off, pkt + 1,
				   pkt->chunk);
		if (pkt->flags & SV_F_LAST)
			sq_ack_upto(qp, pkt->msn);
		break;
	case SV_OP_ATOMIC_RESP:
		e = sq_find(qp, pkt->msn);
		if (!e || e->done)
			break;
		sv_scatter(e->sge, e->nsge, 0, &pkt->atom_a, 8);
		sq_ack_upto(qp, pkt->msn);
		break;
	case SV_OP_NAK:
		e = sq_find(qp, pkt->msn);
		if (!e || e->done)
			break;
		if (pkt->syndrome == SV_NAK_LOST) {
			sv_sq_lost(qp);	/* nothing was delivered */
			break;
		}
		sq_ack_upto(qp, pkt->msn - 1);
		if (pkt->syndrome == SV_NAK_DEAD) {
			uint64_t t = sv_transport_timeout_ns(qp->attr.timeout,
							     qp->attr.retry_cnt);

			if (!qp->dead_at && t != UINT64_MAX) {
				qp->dead_at = qp->last_activity + t;
				sv_timer_armed(qp->ctx, qp->dead_at);
			}
			break;
		}
		if (pkt->syndrome == SV_NAK_PSN)
			sv_cnt_add(SV_C_PKT_SEQ_ERR, 1);
		sv_sq_fail(qp, nak_status(pkt->syndrome));
		break;
	default:
		break;
	}
}

/* ---- fault injection (UC, UD) ------------------------------------------------- */

static void delayed_add(struct sv_qp *qp, const struct sv_pkt *pkt,
			size_t len, uint64_t due, uint32_t dnode)
{
	struct sv_delayed *d = malloc(sizeof(*d) + len), **p;

	if (!d)
		return;
	d->dnode = dnode;
	d->due = due;
	d->len = len;
	memcpy(&d->pkt, pkt, len);
	d->next = NULL;
	for (p = &qp->delayed; *p; p = &(*p)->next)
		;
	*p = d;
	sv_timers_changed(qp->ctx);
}

void sv_send_flush_delayed(struct sv_qp *qp, bool all)
{
	uint64_t now = sv_now_ns();
	struct sv_delayed **p = &qp->delayed;

	while (*p) {
		struct sv_delayed *d = *p;
		struct sockaddr_un a;
		socklen_t alen;

		if (!all && d->due > now) {
			p = &d->next;
			continue;
		}
		sv_addr_of(&a, &alen, d->dnode, d->pkt.dst_qpn);
		if (sendto(qp->fd, &d->pkt, d->len, MSG_DONTWAIT,
			   (struct sockaddr *)&a, alen) < 0) {
			if (errno == EAGAIN && !all) {
				p = &d->next;
				continue;
			}
		} else {
			sv_cnt_wire(true, &d->pkt, sv_qp_mtu(qp));
		}
		*p = d->next;
		free(d);
	}
}

/* ---- post_send ------------------------------------------------------------------ */

static uint8_t op_of(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return SV_OP_SEND;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return SV_OP_WRITE;
	case IBV_WR_RDMA_READ:
		return SV_OP_READ_REQ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return SV_OP_CMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return SV_OP_FETCH_ADD;
	default:
		return 0;
	}
}

static enum ibv_wc_opcode wc_op_of(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

static bool op_allowed(enum ibv_qp_type t, uint8_t op)
{
	switch (t) {
	case IBV_QPT_UD:
		return op == SV_OP_SEND;
	case IBV_QPT_UC:
		return op == SV_OP_SEND || op == SV_OP_WRITE;
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		return op != 0;
	default:
		return false;
	}
}

/* an immediate completion (UC/UD, or errors detected at post time) */
static void complete_now(struct sv_qp *qp, const struct ibv_send_wr *wr,
			 uint32_t len, enum ibv_wc_status st, bool signaled)
{
	struct sv_swqe e;

	memset(&e, 0, sizeof(e));
	e.wr_id = wr->wr_id;
	e.opcode = wc_op_of(wr->opcode);
	e.len = len;
	e.status = st;
	if (signaled || st != IBV_WC_SUCCESS)
		send_wc(qp, &e);
}

/* send one request message; returns 0, or -errno if the peer is gone */
static int send_message(struct sv_qp *qp, struct sv_pkt *h,
			const struct ibv_send_wr *wr, uint32_t dnode,
			uint32_t dqpn, bool data)
{
	struct iovec iov[SV_MAX_SGE + 1];
	uint32_t off = 0;
	int err;

	do {
		uint32_t n = h->len - off, skip = off, left, i;
		int cnt = 1;

		if (!data)
			n = 0;
		else if (n > SV_CHUNK)
			n = SV_CHUNK;
		h->off = off;
		h->chunk = n;
		h->flags &= (uint8_t) ~(SV_F_FIRST | SV_F_LAST);
		if (off == 0)
			h->flags |= SV_F_FIRST;
		if (!data || off + n == h->len)
			h->flags |= SV_F_LAST;
		iov[0].iov_base = h;
		iov[0].iov_len = sizeof(*h);
		/* the payload goes straight from the SGEs: no staging copy */
		for (i = 0, left = n; left && i < (uint32_t)wr->num_sge; i++) {
			const struct ibv_sge *g = &wr->sg_list[i];
			uint32_t take;

			if (skip >= g->length) {
				skip -= g->length;
				continue;
			}
			take = g->length - skip;
			if (take > left)
				take = left;
			iov[cnt].iov_base = (void *)(uintptr_t)(g->addr + skip);
			iov[cnt].iov_len = take;
			cnt++;
			left -= take;
			skip = 0;
		}
		err = sv_sendv_blocking(qp->ctx, qp->fd, dnode, dqpn, iov,
					cnt);
		if (err)
			return err;
		sv_cnt_wire(true, h, sv_qp_mtu(qp));
		off += n;
	} while (data && off < h->len);
	return 0;
}

/*
 * A dropped message: it leaves this port (counted as sent) and reaches the
 * peer's port corrupt, which counts it in port_rcv_errors and discards it
 * (a header-only datagram with SV_F_CORRUPT says so)
 */
static void send_corrupt(struct sv_qp *qp, struct sv_pkt *h, uint32_t dnode,
			 uint32_t dqpn)
{
	struct sv_pkt c = *h;
	struct iovec iov = { &c, sizeof(c) };
	uint32_t off = 0;

	do {
		c.off = off;
		c.chunk = h->len - off > SV_CHUNK ? SV_CHUNK : h->len - off;
		c.flags = (uint8_t)((h->flags & ~(SV_F_FIRST | SV_F_LAST)) |
				    (off ? 0 : SV_F_FIRST));
		sv_cnt_wire(true, &c, sv_qp_mtu(qp));
		off += c.chunk;
	} while (off < h->len);
	c.off = 0;
	c.chunk = 0;
	c.flags = (uint8_t)(h->flags | SV_F_CORRUPT | SV_F_FIRST | SV_F_LAST);
	sv_sendv_blocking(qp->ctx, qp->fd, dnode, dqpn, &iov, 1);
}

/* UC/UD with fault injection: decide the fate of a one-datagram message */
static void send_faulty(struct sv_qp *qp, struct sv_pkt *h,
			const struct ibv_send_wr *wr, uint32_t dnode,
			uint32_t dqpn)
{
	double r = sv_random();
	bool single = h->len <= SV_CHUNK;

	if (r < sv_cfg.drop) {
		SV_DBG("qp %u: fault: dropped msn %u", qp->qpn, h->msn);
		send_corrupt(qp, h, dnode, dqpn);
		return;
	}
	r -= sv_cfg.drop;
	if (single && r < sv_cfg.delay + sv_cfg.reorder) {
		uint8_t *buf = qp->pktbuf;
		uint64_t due = sv_now_ns() +
			       (r < sv_cfg.delay ? sv_cfg.delay_us * 1000ull :
						   200000ull);

		h->off = 0;
		h->chunk = h->len;
		h->flags |= SV_F_FIRST | SV_F_LAST;
		memcpy(buf, h, sizeof(*h));
		sv_gather(wr->sg_list, (uint32_t)wr->num_sge, 0,
			  buf + sizeof(*h), h->len);
		((struct sv_pkt *)buf)->dst_qpn = dqpn;
		SV_DBG("qp %u: fault: %s msn %u", qp->qpn,
		       r < sv_cfg.delay ? "delayed" : "reordered", h->msn);
		pthread_mutex_lock(&qp->ctx->mu);
		delayed_add(qp, (struct sv_pkt *)buf, sizeof(*h) + h->len, due,
			    dnode);
		pthread_mutex_unlock(&qp->ctx->mu);
		sv_wake(qp->ctx);
		return;
	}
	r -= sv_cfg.delay + sv_cfg.reorder;
	send_message(qp, h, wr, dnode, dqpn, true);
	if (r < sv_cfg.dup) {
		SV_DBG("qp %u: fault: duplicated msn %u", qp->qpn, h->msn);
		send_message(qp, h, wr, dnode, dqpn, true);
	}
}

/* UD to a multicast group: a datagram to each member (sv_mcast.c), or to
 * none unless the remote QPN is the multicast QPN, as on a fabric */
static void send_group(struct sv_qp *qp, struct sv_pkt *h,
		       const struct ibv_send_wr *wr, uint32_t dqpn)
{
	struct sv_member m[SV_MCAST_MAX];
	bool faults = sv_cfg.drop > 0 || sv_cfg.dup > 0 || sv_cfg.delay > 0 ||
		      sv_cfg.reorder > 0;
	int i, n;

	if (dqpn != SV_MCAST_QPN) {
		SV_DBG("qp %u: send to a group with QPN 0x%x: dropped",
		       qp->qpn, dqpn);
		return;
	}
	n = sv_mcast_members(&((struct sv_ah *)wr->wr.ud.ah)->attr, m,
			     SV_MCAST_MAX);
	SV_DBG("qp %u: multicast msn %u to %d members", qp->qpn, h->msn, n);
	for (i = 0; i < n; i++) {
		if (faults)
			send_faulty(qp, h, wr, m[i].node, m[i].qpn);
		else
			send_message(qp, h, wr, m[i].node, m[i].qpn, true);
	}
}

static int post_one(struct sv_qp *qp, struct ibv_send_wr *wr)
{
	struct sv_context *ctx = qp->ctx;
	struct ibv_qp *q = &qp->qpx.qp_base;
	uint8_t op = op_of(wr->opcode);
	bool rc = rc_like(q->qp_type);
	bool signaled = qp->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
	bool inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
	struct sv_pkt h;
	struct sv_swqe *e = NULL;
	uint32_t dnode, dqpn;
	uint32_t mtu = 128u << (q->qp_type == IBV_QPT_UD ? sv_cfg.mtu :
							  qp->attr.path_mtu);
	uint64_t len;
	enum ibv_wc_status st;
	int err;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge ||
	    !op_allowed(q->qp_type, op))
		return EINVAL;
	len = sv_sge_total(wr->sg_list, (uint32_t)wr->num_sge);
	if (inl && len > qp->cap.max_inline_data && op != SV_OP_READ_REQ)
		return EINVAL;
	pthread_mutex_lock(&ctx->mu);
	if (q->state == IBV_QPS_RESET || q->state == IBV_QPS_INIT ||
	    q->state == IBV_QPS_RTR) {
		pthread_mutex_unlock(&ctx->mu);
		return EINVAL;
	}
	if (q->state == IBV_QPS_ERR) {
		complete_now(qp, wr, 0, IBV_WC_WR_FLUSH_ERR, true);
		pthread_mutex_unlock(&ctx->mu);
		return 0;
	}
	if (rc && qp->sq_count >= qp->sq_cap) {
		pthread_mutex_unlock(&ctx->mu);
		return ENOMEM;
	}
	if (sv_cfg.null_mode) {	/* done at once; nothing is sent */
		complete_now(qp, wr, (uint32_t)len, IBV_WC_SUCCESS, signaled);
		pthread_mutex_unlock(&ctx->mu);
		return 0;
	}
	qp->posted++;
	if (sv_cfg.qp_fatal_after && qp->posted > sv_cfg.qp_fatal_after) {
		SV_DBG("qp %u: fault: QP fatal", qp->qpn);
		sv_async_event(ctx, IBV_EVENT_QP_FATAL, q);
		sv_qp_to_error(qp);
		complete_now(qp, wr, 0, IBV_WC_WR_FLUSH_ERR, true);
		pthread_mutex_unlock(&ctx->mu);
		return 0;
	}
	/* local checks: an error completion, and the QP goes to ERR */
	st = IBV_WC_SUCCESS;
	if (op == SV_OP_CMP_SWAP || op == SV_OP_FETCH_ADD) {
		if (len != 8)
			st = IBV_WC_LOC_LEN_ERR;
	}
	if (len > (1ull << 31))
		st = IBV_WC_LOC_LEN_ERR;
	if (q->qp_type == IBV_QPT_UD && len > mtu)
		st = IBV_WC_LOC_LEN_ERR;
	if (st == IBV_WC_SUCCESS && (!inl || op == SV_OP_READ_REQ))
		st = sv_check_sges(ctx, q->pd, wr->sg_list,
				   (uint32_t)wr->num_sge,
				   op == SV_OP_READ_REQ || op == SV_OP_CMP_SWAP ||
					   op == SV_OP_FETCH_ADD);
	if (st != IBV_WC_SUCCESS) {
		SV_DBG("qp %u: local error %s", qp->qpn, ibv_wc_status_str(st));
		if (rc) {
			e = &qp->sq[(qp->sq_head + qp->sq_count) % qp->sq_cap];
			memset(e, 0, sizeof(*e));
			e->wr_id = wr->wr_id;
			e->msn = qp->next_msn++;
			e->opcode = wc_op_of(wr->opcode);
			e->done = true;
			e->status = st;
			qp->sq_count++;
		} else {
			complete_now(qp, wr, (uint32_t)len, st, true);
		}
		if (q->qp_type != IBV_QPT_UD)
			sv_qp_to_error(qp);
		pthread_mutex_unlock(&ctx->mu);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.magic = SV_PKT_MAGIC;
	h.op = op;
	h.qp_type = (uint8_t)q->qp_type;
	h.src_node = sv_cfg.node;
	h.src_qpn = qp->qpn;
	h.slid = sv_cfg.roce ? 0 : (uint16_t)sv_cfg.node;
	h.len = (uint32_t)len;
	h.timeout = qp->attr.timeout;
	h.retry_cnt = qp->attr.retry_cnt;
	h.rnr_retry = qp->attr.rnr_retry;
	h.sl = qp->attr.ah_attr.sl;
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		h.flags |= SV_F_IMM;
		h.imm = wr->imm_data;
	}
	if (wr->send_flags & IBV_SEND_SOLICITED)
		h.flags |= SV_F_SOLICITED;
	if (op == SV_OP_WRITE || op == SV_OP_READ_REQ) {
		h.raddr = wr->wr.rdma.remote_addr;
		h.rkey = wr->wr.rdma.rkey;
	} else if (op == SV_OP_CMP_SWAP || op == SV_OP_FETCH_ADD) {
		h.raddr = wr->wr.atomic.remote_addr;
		h.rkey = wr->wr.atomic.rkey;
		h.atom_a = wr->wr.atomic.compare_add;
		h.atom_b = wr->wr.atomic.swap;
	}
	if (q->qp_type == IBV_QPT_UD) {
		struct sv_ah *ah = (struct sv_ah *)wr->wr.ud.ah;

		if (!ah) {
			pthread_mutex_unlock(&ctx->mu);
			return EINVAL;
		}
		dnode = ah->node;
		dqpn = wr->wr.ud.remote_qpn;
		h.qkey = (wr->wr.ud.remote_qkey & 0x80000000u) ?
				 qp->attr.qkey :
				 wr->wr.ud.remote_qkey;
		h.sl = ah->attr.sl;
		if (ah->attr.is_global) {
			sv_gid_stamp(&h, &ah->attr);
			h.hop_limit = ah->attr.grh.hop_limit;
			h.tclass = ah->attr.grh.traffic_class;
			h.flow_label = ah->attr.grh.flow_label;
		}
	} else {
		dnode = qp->dest_node;
		dqpn = qp->attr.dest_qp_num;
		sv_gid_stamp(&h, &qp->attr.ah_attr);
		h.hop_limit = qp->attr.ah_attr.grh.hop_limit;
		h.tclass = qp->attr.ah_attr.grh.traffic_class;
		h.flow_label = qp->attr.ah_attr.grh.flow_label;
		if (q->qp_type == IBV_QPT_XRC_SEND)
			h.srqn = wr->qp_type.xrc.remote_srqn;
	}
	h.dst_qpn = dqpn;
	h.npkts = len ? (uint32_t)((len + mtu - 1) / mtu) : 1;
	h.psn = qp->sq_psn;
	qp->sq_psn = (qp->sq_psn + h.npkts) & 0xffffff;
	h.msn = qp->next_msn++;
	if (rc) {
		bool rd = op == SV_OP_READ_REQ || op == SV_OP_CMP_SWAP ||
			  op == SV_OP_FETCH_ADD;
		uint32_t max_rd = qp->attr.max_rd_atomic ?
					  qp->attr.max_rd_atomic : 1;

		e = &qp->sq[(qp->sq_head + qp->sq_count) % qp->sq_cap];
		memset(e, 0, sizeof(*e));
		e->wr_id = wr->wr_id;
		e->msn = h.msn;
		e->opcode = wc_op_of(wr->opcode);
		e->len = (uint32_t)len;
		e->signaled = signaled;
		e->needs_resp = rd;
		e->status = IBV_WC_SUCCESS;
		if (rd) {
			e->nsge = (uint32_t)wr->num_sge;
			memcpy(e->sge, wr->sg_list,
			       e->nsge * sizeof(e->sge[0]));
		}
		qp->sq_count++;
		if (qp->sq_count == 1) {
			uint64_t t = sv_transport_timeout_ns(
				qp->attr.timeout, qp->attr.retry_cnt);

			qp->last_activity = sv_now_ns();
			if (t != UINT64_MAX)	/* the liveness probe */
				sv_timer_armed(ctx, qp->last_activity + t);
		}
		/* RDMA READ / atomics: at most max_rd_atomic in flight */
		if (rd) {
			while (qp->rd_inflight >= max_rd &&
			       q->state != IBV_QPS_ERR) {
				sv_app_sleeps(ctx);	/* the thread must progress */
				pthread_cond_wait(&qp->send_cv, &ctx->mu);
			}
			qp->rd_inflight++;
		}
		if (ctx->port_is_down && !qp->dead_at) {
			uint64_t t = sv_transport_timeout_ns(
				qp->attr.timeout, qp->attr.retry_cnt);

			if (t != UINT64_MAX)
				qp->dead_at = sv_now_ns() + t;
			sv_timers_changed(ctx);
			sv_wake(ctx);
		}
		if (q->state == IBV_QPS_ERR || ctx->port_is_down) {
			if (ctx->port_is_down)
				sv_cnt_add(SV_C_XMIT_DISCARDS, h.npkts);
			pthread_mutex_unlock(&ctx->mu);
			return 0;
		}
	}
	pthread_mutex_unlock(&ctx->mu);

	/* RoCE congestion (SOFTVERBS_FAULT_ECN): the message arrives marked */
	if (sv_cfg.ecn > 0 && sv_cfg.roce && sv_random() < sv_cfg.ecn)
		h.flags |= SV_F_ECN;
	if (ctx->port_is_down) {
		sv_cnt_add(SV_C_XMIT_DISCARDS, h.npkts);
		err = 0;	/* UC/UD: lost on the wire */
	} else if (q->qp_type == IBV_QPT_UD &&
		   ((struct sv_ah *)wr->wr.ud.ah)->node == SV_NODE_MCAST) {
		send_group(qp, &h, wr, dqpn);
		err = 0;
	} else if (!rc && (sv_cfg.drop > 0 || sv_cfg.dup > 0 ||
			   sv_cfg.delay > 0 || sv_cfg.reorder > 0)) {
		send_faulty(qp, &h, wr, dnode, dqpn);
		err = 0;
	} else {
		err = send_message(qp, &h, wr, dnode, dqpn,
				   op == SV_OP_SEND || op == SV_OP_WRITE);
	}
	pthread_mutex_lock(&ctx->mu);
	if (rc) {
		if (err && !qp->dead_at) {
			uint64_t t = sv_transport_timeout_ns(
				qp->attr.timeout, qp->attr.retry_cnt);

			SV_DBG("qp %u: peer %u/%u unreachable (%d)", qp->qpn,
			       dnode, dqpn, err);
			if (t != UINT64_MAX) {
				qp->dead_at = sv_now_ns() + t;
				sv_timers_changed(ctx);
				sv_wake(ctx);
			}
		}
	} else {
		complete_now(qp, wr, (uint32_t)len, IBV_WC_SUCCESS, signaled);
	}
	pthread_mutex_unlock(&ctx->mu);
	return 0;
}

int sv_post_send(struct ibv_qp *q, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad)
{
	struct sv_qp *qp = sv_qp(q);
	int err = 0;

	if (!sv_ctx_usable(qp->ctx)) {
		*bad = wr;
		return EINVAL;
	}
	/* an active application will poll soon: let it do the progress */
	__atomic_store_n(&qp->ctx->inline_poll_ns, sv_now_ns(), __ATOMIC_RELAXED);
	pthread_mutex_lock(&qp->send_mu);
	for (; wr; wr = wr->next) {
		err = post_one(qp, wr);
		if (err) {
			*bad = wr;
			break;
		}
	}
	pthread_mutex_unlock(&qp->send_mu);
	return err;
}
