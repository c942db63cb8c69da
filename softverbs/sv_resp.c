// SPDX-License-Identifier: MIT
/*
 * Responder: what a QP does with the requests it receives.
 *  RC: in order, PSN-checked, acknowledged; RNR holds the message (and all
 *      that follow) until a receive is posted or the RNR retries run out;
 *      requests that reach a QP before RTR are held until RTR or until the
 *      requester's transport timeout; access violations NAK and move the
 *      responder to ERR.
 *  UC: no ACKs; anything that cannot be delivered is dropped silently.
 *  UD: one datagram per message, qkey checked, 40-byte GRH area.
 * All functions run with ctx->mu held and never block.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sv_internal.h"

enum { SV_DONE = 0, SV_HOLD = 1 };

static bool is_rc(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC || t == IBV_QPT_XRC_SEND || t == IBV_QPT_XRC_RECV;
}

static void nak(struct sv_qp *qp, const struct sv_pkt *req,
		enum sv_syndrome syn)
{
	struct sv_pkt p;

	memset(&p, 0, sizeof(p));
	p.op = SV_OP_NAK;
	p.syndrome = (uint8_t)syn;
	p.msn = req->msn;
	p.src_qpn = qp ? qp->qpn : 0;
	sv_respond(qp->ctx, qp, req->src_node, req->src_qpn, &p, NULL,
		   0);
}

static void rq_unpop(struct sv_rq *rq, const struct sv_rwqe *w)
{
	rq->head = (rq->head + rq->cap - 1) % rq->cap;
	rq->ring[rq->head] = *w;
	rq->count++;
}

/* ---- held datagrams ----------------------------------------------------------- */

static void hold(struct sv_qp *qp, const struct sv_pkt *pkt, size_t len,
		 bool at_head)
{
	struct sv_held *h = malloc(offsetof(struct sv_held, pkt) + len);

	if (!h)
		return;		/* behaves like a lost packet */
	if (!qp->held)
		qp->ctx->held_qps++;
	h->len = len;
	memcpy(&h->pkt, pkt, len);
	if (at_head) {
		h->next = qp->held;
		qp->held = h;
		if (!qp->held_tail)
			qp->held_tail = h;
	} else {
		h->next = NULL;
		if (qp->held_tail)
			qp->held_tail->next = h;
		else
			qp->held = h;
		qp->held_tail = h;
	}
}

void sv_drop_held(struct sv_qp *qp, enum sv_syndrome syn)
{
	if (qp->held && qp->ctx->held_qps)
		qp->ctx->held_qps--;
	while (qp->held) {
		struct sv_held *h = qp->held;

		qp->held = h->next;
		if (syn && is_rc(qp->qpx.qp_base.qp_type) &&
		    (h->pkt.flags & SV_F_FIRST))
			nak(qp, &h->pkt, syn);
		free(h);
	}
	qp->held_tail = NULL;
	qp->rnr_active = qp->rnr_forced = false;
	qp->hold_deadline = 0;
}

/* ---- helpers -------------------------------------------------------------------- */

static struct ibv_pd *resp_pd(struct sv_qp *qp, struct sv_srq **srq,
			      const struct sv_pkt *pkt)
{
	if (qp->qpx.qp_base.qp_type == IBV_QPT_XRC_RECV) {
		struct sv_srq *s = sv_srq_find(qp->ctx, pkt->srqn);

		if (!s || s->xrcd != qp->xrcd)
			return NULL;
		if (srq)
			*srq = s;
		return s->srq.pd;
	}
	if (srq)
		*srq = qp->srq;
	return qp->qpx.qp_base.pd;
}

/* rkey check in hardware order; *va receives the local address */
static enum sv_syndrome check_rkey(struct sv_qp *qp, const struct sv_pkt *pkt,
				   unsigned int need, uint64_t *va)
{
	struct sv_mr *mr = sv_mr_lookup(qp->ctx, pkt->rkey);
	struct ibv_pd *pd = resp_pd(qp, NULL, pkt);
	uint64_t len = pkt->op == SV_OP_CMP_SWAP || pkt->op == SV_OP_FETCH_ADD ?
			       8 : pkt->len;

	if (!mr || mr->mr.pd != pd)
		return SV_NAK_ACCESS;
	if (!(mr->access & need))
		return SV_NAK_ACCESS;
	if (!(qp->attr.qp_access_flags & need))
		return SV_NAK_ACCESS;
	if (pkt->raddr < mr->iova || pkt->raddr + len < pkt->raddr ||
	    pkt->raddr + len > mr->iova + mr->mr.length)
		return SV_NAK_ACCESS;
	*va = (uint64_t)(uintptr_t)mr->mr.addr + (pkt->raddr - mr->iova);
	/* atomics: aligned by iova and, for the CPU atomics, by address */
	if (need == IBV_ACCESS_REMOTE_ATOMIC && ((pkt->raddr | *va) & 7))
		return SV_NAK_INV_REQ;
	return SV_NAK_NONE;
}

/* a fatal responder error: NAK (RC), event, QP to ERR */
static void resp_fatal(struct sv_qp *qp, const struct sv_pkt *pkt,
		       enum sv_syndrome syn)
{
	if (is_rc(qp->qpx.qp_base.qp_type)) {
		nak(qp, pkt, syn);
		sv_async_event(qp->ctx, syn == SV_NAK_ACCESS ?
						IBV_EVENT_QP_ACCESS_ERR :
						IBV_EVENT_QP_REQ_ERR,
			       &qp->qpx.qp_base);
	}
	sv_qp_to_error(qp);
}

static struct sv_cq *recv_cq(struct sv_qp *qp, struct sv_srq *srq)
{
	if (srq && srq->cq)
		return srq->cq;
	return qp->rcq;
}

static void recv_wc(struct sv_qp *qp, const struct sv_pkt *pkt,
		    struct ibv_wc *wc, uint64_t wr_id)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = IBV_WC_SUCCESS;
	wc->qp_num = qp->qpn;
	wc->src_qp = pkt->src_qpn;
	wc->slid = pkt->slid;
	wc->sl = pkt->sl;
	wc->pkey_index = 0;
	if (pkt->flags & SV_F_IMM) {
		wc->imm_data = pkt->imm;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	}
}

static void srq_limit_check(struct sv_qp *qp, struct sv_srq *srq)
{
	if (srq && srq->limit && srq->rq.count < srq->limit) {
		srq->limit = 0;	/* one-shot, re-armed by modify_srq */
		sv_async_event(qp->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, &srq->srq);
	}
}

/* take a receive WQE for the message; false when none (RNR) */
static bool take_wqe(struct sv_qp *qp, const struct sv_pkt *pkt,
		     struct sv_srq **srqp, struct sv_rwqe *w, bool *bad_srq)
{
	struct sv_srq *srq = NULL;

	*bad_srq = false;
	if (!resp_pd(qp, &srq, pkt) &&
	    qp->qpx.qp_base.qp_type == IBV_QPT_XRC_RECV) {
		*bad_srq = true;
		return false;
	}
	*srqp = srq;
	if (srq) {
		if (!sv_rq_pop(&srq->rq, w))
			return false;
		srq_limit_check(qp, srq);
		return true;
	}
	return sv_rq_pop(&qp->rq, w);
}

/* RNR: hold the message, or give up when rnr_retry allows no more */
static int rnr(struct sv_qp *qp, const struct sv_pkt *pkt, bool forced)
{
	if (!qp->rnr_active) {
		if (pkt->rnr_retry == 0) {
			nak(qp, pkt, SV_NAK_RNR_EXC);
			return -1;
		}
		qp->rnr_active = true;
		qp->rnr_left = pkt->rnr_retry == 7 ? -1 : pkt->rnr_retry - 1;
		qp->hold_retry_at = sv_now_ns() +
				    sv_rnr_timer_ns(qp->attr.min_rnr_timer);
		qp->rnr_forced = forced;
		sv_cnt_note(qp, pkt, SV_C_RNR_NAK);	/* one RNR NAK */
		sv_timer_armed(qp->ctx, qp->hold_retry_at);
		SV_DBG("qp %u: RNR%s on msn %u", qp->qpn,
		       forced ? " (forced)" : "", pkt->msn);
	}
	return SV_HOLD;
}

/*
 * RoCE: the port drops what the delivery rule refuses.  The requester of a
 * lost RC request, or of a lost response, then times out (RETRY_EXC_ERR);
 * UC and UD lose it silently.
 */
static void gid_refused(struct sv_qp *qp, const struct sv_pkt *pkt)
{
	SV_DBG("qp %u: GID type/family/dgid mismatch (type %u), dropped",
	       qp->qpn, pkt->gid_type);
	switch (pkt->op) {
	case SV_OP_ACK:
	case SV_OP_NAK:
	case SV_OP_READ_RESP:
	case SV_OP_ATOMIC_RESP:
		sv_sq_lost(qp);
		return;
	default:
		if ((pkt->qp_type == IBV_QPT_RC ||
		     pkt->qp_type == IBV_QPT_XRC_SEND) &&
		    (pkt->flags & SV_F_FIRST))
			nak(qp, pkt, SV_NAK_LOST);
		return;
	}
}

/* ---- UD ---------------------------------------------------------------------------- */

static void ud_recv(struct sv_qp *qp, const struct sv_pkt *pkt)
{
	struct sv_srq *srq = NULL;
	struct sv_rwqe w;
	struct ibv_wc wc;
	uint32_t qkey = qp->attr.qkey;
	struct ibv_pd *pd = qp->qpx.qp_base.pd;
	bool bad_srq;

	if (pkt->qp_type != IBV_QPT_UD || (pkt->flags & (SV_F_FIRST | SV_F_LAST)) !=
						  (SV_F_FIRST | SV_F_LAST))
		return;
	if (pkt->qkey != qkey) {
		SV_DBG("qp %u: UD qkey mismatch 0x%x != 0x%x, dropped",
		       qp->qpn, pkt->qkey, qkey);
		return;
	}
	if (pkt->len > 128u << sv_cfg.mtu)
		return;
	if (!take_wqe(qp, pkt, &srq, &w, &bad_srq))
		return;		/* no receive posted: silently dropped */
	recv_wc(qp, pkt, &wc, w.wr_id);
	wc.opcode = IBV_WC_RECV;
	wc.byte_len = pkt->len + 40;
	if (sv_check_sges(qp->ctx, pd, w.sge, w.nsge, true) != IBV_WC_SUCCESS) {
		wc.status = IBV_WC_LOC_PROT_ERR;
	} else if (sv_sge_total(w.sge, w.nsge) < (uint64_t)pkt->len + 40) {
		wc.status = IBV_WC_LOC_LEN_ERR;
	} else {
		if (pkt->flags & SV_F_GRH) {
			uint8_t grh[40];

			sv_gid_grh(pkt, grh);
			sv_scatter(w.sge, w.nsge, 0, grh, sizeof(grh));
			wc.wc_flags |= IBV_WC_GRH;
		}
		sv_scatter(w.sge, w.nsge, 40, pkt + 1, pkt->len);
	}
	sv_cq_push(recv_cq(qp, srq), &wc, (pkt->flags & SV_F_SOLICITED) != 0);
	if (wc.status != IBV_WC_SUCCESS)
		sv_qp_to_error(qp);
}

/* ---- RC / UC -------------------------------------------------------------------------- */

static void finish_recv(struct sv_qp *qp, const struct sv_pkt *pkt)
{
	struct ibv_wc wc;

	recv_wc(qp, pkt, &wc, qp->in_wqe.wr_id);
	wc.opcode = pkt->op == SV_OP_SEND ? IBV_WC_RECV :
					    IBV_WC_RECV_RDMA_WITH_IMM;
	wc.byte_len = pkt->len;
	if (qp->qpx.qp_base.qp_type == IBV_QPT_XRC_RECV && qp->in_srq)
		wc.qp_num = qp->qpn;
	sv_cq_push(recv_cq(qp, qp->in_srq), &wc,
		   (pkt->flags & SV_F_SOLICITED) != 0);
	if (qp->qpx.qp_base.state == IBV_QPS_RTR && !qp->comm_est_sent) {
		qp->comm_est_sent = true;
		sv_async_event(qp->ctx, IBV_EVENT_COMM_EST, &qp->qpx.qp_base);
	}
}

static void read_response(struct sv_qp *qp, const struct sv_pkt *req,
			  uint64_t va)
{
	uint32_t off = 0;

	do {
		struct sv_pkt p;
		uint32_t n = req->len - off;

		if (n > SV_CHUNK)
			n = SV_CHUNK;
		memset(&p, 0, sizeof(p));
		p.op = SV_OP_READ_RESP;
		p.msn = req->msn;
		p.len = req->len;
		p.off = off;
		p.src_qpn = qp->qpn;
		p.flags = (off == 0 ? SV_F_FIRST : 0) |
			  (off + n == req->len ? SV_F_LAST : 0);
		sv_respond(qp->ctx, qp, req->src_node, req->src_qpn, &p,
			   (const void *)(uintptr_t)(va + off), n);
		off += n;
	} while (off < req->len);
}

static void atomic_execute(struct sv_qp *qp, const struct sv_pkt *req,
			   uint64_t va)
{
	uint64_t *p = (uint64_t *)(uintptr_t)va, orig;
	struct sv_pkt r;

	if (req->op == SV_OP_CMP_SWAP) {
		orig = req->atom_a;
		__atomic_compare_exchange_n(p, &orig, req->atom_b, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, req->atom_a, __ATOMIC_SEQ_CST);
	}
	memset(&r, 0, sizeof(r));
	r.op = SV_OP_ATOMIC_RESP;
	r.msn = req->msn;
	r.atom_a = orig;
	r.src_qpn = qp->qpn;
	sv_respond(qp->ctx, qp, req->src_node, req->src_qpn, &r, NULL, 0);
}

/* the first packet of a request: checks, then set up the receive */
static int first_packet(struct sv_qp *qp, const struct sv_pkt *pkt)
{
	bool rc = is_rc(qp->qpx.qp_base.qp_type);
	enum sv_syndrome syn;
	uint64_t va = 0;
	bool bad_srq;
	struct sv_srq *srq = NULL;

	if (pkt->psn != qp->rq_psn) {
		sv_cnt_add(SV_C_OUT_OF_SEQ, 1);
		if (rc) {
			SV_DBG("qp %u: PSN 0x%x, expected 0x%x", qp->qpn,
			       pkt->psn, qp->rq_psn);
			nak(qp, pkt, SV_NAK_PSN);
			return -1;
		}
		qp->rq_psn = pkt->psn;	/* UC: resynchronise */
	}
	qp->in_has_wqe = false;
	qp->in_srq = NULL;
	switch (pkt->op) {
	case SV_OP_SEND:
		if (rc && qp->forced_rnr_left && !qp->rnr_active) {
			qp->forced_rnr_left--;
			return rnr(qp, pkt, true);
		}
		if (qp->rnr_forced)
			return SV_HOLD;
		if (!take_wqe(qp, pkt, &srq, &qp->in_wqe, &bad_srq)) {
			if (bad_srq) {
				resp_fatal(qp, pkt, SV_NAK_INV_REQ);
				return -1;
			}
			if (!rc)	/* UC/UD: dropped for want of a WQE */
				sv_cnt_add(SV_C_OUT_OF_BUFFER, 1);
			return rc ? rnr(qp, pkt, false) : -1;
		}
		qp->in_has_wqe = true;
		qp->in_srq = srq;
		if (sv_check_sges(qp->ctx, resp_pd(qp, NULL, pkt),
				  qp->in_wqe.sge, qp->in_wqe.nsge,
				  true) != IBV_WC_SUCCESS ||
		    sv_sge_total(qp->in_wqe.sge, qp->in_wqe.nsge) < pkt->len) {
			struct ibv_wc wc;
			bool len_err = sv_check_sges(qp->ctx,
						     resp_pd(qp, NULL, pkt),
						     qp->in_wqe.sge,
						     qp->in_wqe.nsge, true) ==
				       IBV_WC_SUCCESS;

			recv_wc(qp, pkt, &wc, qp->in_wqe.wr_id);
			wc.opcode = IBV_WC_RECV;
			wc.status = len_err ? IBV_WC_LOC_LEN_ERR :
					      IBV_WC_LOC_PROT_ERR;
			sv_cq_push(recv_cq(qp, srq), &wc, false);
			qp->in_has_wqe = false;
			if (rc)
				nak(qp, pkt, len_err ? SV_NAK_INV_REQ :
						       SV_NAK_OP);
			sv_qp_to_error(qp);
			return -1;
		}
		break;
	case SV_OP_WRITE:
		if (pkt->len) {
			syn = check_rkey(qp, pkt, IBV_ACCESS_REMOTE_WRITE, &va);
			if (syn) {
				if (rc)
					resp_fatal(qp, pkt, syn);
				return -1;
			}
		}
		qp->in_addr = va;
		if (pkt->flags & SV_F_IMM) {
			if (qp->rnr_forced)
				return SV_HOLD;
			if (!take_wqe(qp, pkt, &srq, &qp->in_wqe, &bad_srq)) {
				if (bad_srq) {
					resp_fatal(qp, pkt, SV_NAK_INV_REQ);
					return -1;
				}
				return rc ? rnr(qp, pkt, false) : -1;
			}
			qp->in_has_wqe = true;
			qp->in_srq = srq;
		}
		break;
	case SV_OP_READ_REQ:
	case SV_OP_CMP_SWAP:
	case SV_OP_FETCH_ADD:
		if (!rc) {
			return -1;
		}
		if (pkt->op == SV_OP_READ_REQ) {
			if (pkt->len) {
				syn = check_rkey(qp, pkt,
						 IBV_ACCESS_REMOTE_READ, &va);
				if (syn) {
					resp_fatal(qp, pkt, syn);
					return -1;
				}
			}
			read_response(qp, pkt, va);
		} else {
			syn = check_rkey(qp, pkt, IBV_ACCESS_REMOTE_ATOMIC,
					 &va);
			if (syn) {
				resp_fatal(qp, pkt, syn);
				return -1;
			}
			atomic_execute(qp, pkt, va);
		}
		qp->rq_psn = (pkt->psn + pkt->npkts) & 0xffffff;
		qp->last_msn = pkt->msn;
		qp->ack_pending = false;	/* the response acknowledges */
		qp->last_src_node = pkt->src_node;
		qp->last_src_qpn = pkt->src_qpn;
		return SV_DONE;
	default:
		if (rc)
			resp_fatal(qp, pkt, SV_NAK_INV_REQ);
		return -1;
	}
	qp->rnr_active = qp->rnr_forced = false;
	qp->rq_psn = (pkt->psn + pkt->npkts) & 0xffffff;
	qp->in_msg = true;
	qp->in_discard = false;
	qp->in_msn = pkt->msn;
	return SV_DONE;
}

/* one request datagram; SV_HOLD when it must wait */
static int process_request(struct sv_qp *qp, const struct sv_pkt *pkt)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	bool rc = is_rc(q->qp_type);
	const uint8_t *data = (const uint8_t *)(pkt + 1);
	int r;

	if (q->qp_type == IBV_QPT_UD) {
		if (q->state >= IBV_QPS_RTR && q->state != IBV_QPS_ERR)
			ud_recv(qp, pkt);
		return SV_DONE;
	}
	if (rc != is_rc(pkt->qp_type) || pkt->qp_type == IBV_QPT_UD)
		return SV_DONE;
	if (q->state == IBV_QPS_RESET || q->state == IBV_QPS_INIT) {
		if (!rc)
			return SV_DONE;
		if (!qp->hold_deadline) {
			uint64_t t = sv_transport_timeout_ns(pkt->timeout,
							     pkt->retry_cnt);

			qp->hold_deadline = t == UINT64_MAX ? UINT64_MAX :
							      sv_now_ns() + t;
			sv_timer_armed(qp->ctx, qp->hold_deadline);
		}
		return SV_HOLD;
	}
	if (q->state == IBV_QPS_ERR) {
		if (rc && (pkt->flags & SV_F_FIRST))
			nak(qp, pkt, SV_NAK_DEAD);
		return SV_DONE;
	}
	/* a connected QP only hears its peer (e.g. not an earlier one) */
	if (pkt->src_qpn != qp->attr.dest_qp_num ||
	    pkt->src_node != qp->dest_node) {
		SV_DBG("qp %u: packet from %u/%u, not from the peer %u/%u",
		       qp->qpn, pkt->src_node, pkt->src_qpn, qp->dest_node,
		       qp->attr.dest_qp_num);
		return SV_DONE;
	}
	if (!sv_gid_path_ok(&qp->attr.ah_attr, pkt)) {
		gid_refused(qp, pkt);
		return SV_DONE;
	}
	if (pkt->flags & SV_F_FIRST) {
		if (qp->in_msg && qp->in_has_wqe) {
			/* previous message never finished (UC loss) */
			rq_unpop(qp->in_srq ? &qp->in_srq->rq : &qp->rq,
				 &qp->in_wqe);
		}
		qp->in_msg = false;
		r = first_packet(qp, pkt);
		if (r == SV_HOLD)
			return SV_HOLD;
		if (r < 0) {
			qp->in_msg = true;
			qp->in_discard = true;
			qp->in_has_wqe = false;
			qp->in_msn = pkt->msn;
		}
		if (rc) {
			qp->last_src_node = pkt->src_node;
			qp->last_src_qpn = pkt->src_qpn;
		}
		if (pkt->op != SV_OP_SEND && pkt->op != SV_OP_WRITE)
			return SV_DONE;
	}
	if (!qp->in_msg || pkt->msn != qp->in_msn)
		return SV_DONE;	/* stray continuation */
	if (!qp->in_discard && pkt->chunk) {
		if (pkt->op == SV_OP_SEND)
			sv_scatter(qp->in_wqe.sge, qp->in_wqe.nsge, pkt->off,
				   data, pkt->chunk);
		else
			sv_copy_ordered((void *)(uintptr_t)(qp->in_addr +
							    pkt->off),
					data, pkt->chunk);
	}
	if (pkt->flags & SV_F_LAST) {
		if (!qp->in_discard) {
			if (qp->in_has_wqe)
				finish_recv(qp, pkt);
			if (rc) {
				qp->last_msn = pkt->msn;
				qp->ack_pending = true;
			}
		}
		qp->in_msg = qp->in_discard = qp->in_has_wqe = false;
	}
	return SV_DONE;
}

void sv_handle_packet(struct sv_context *ctx, struct sv_qp *qp,
		      struct sv_pkt *pkt, size_t len)
{
	if (len < sizeof(*pkt) || pkt->magic != SV_PKT_MAGIC ||
	    pkt->chunk != len - sizeof(*pkt) ||
	    (uint64_t)pkt->off + pkt->chunk > pkt->len)
		return;
	if (ctx->port_is_down)
		return;
	if (sv_cnt_rx(ctx, qp, pkt))
		return;
	if (sv_cfg.roce && !sv_pkt_is_meta(pkt) && !sv_gid_accept(pkt)) {
		gid_refused(qp, pkt);
		return;
	}
	switch (pkt->op) {
	case SV_OP_ACK:
	case SV_OP_NAK:
	case SV_OP_READ_RESP:
	case SV_OP_ATOMIC_RESP:
		sv_handle_response(qp, pkt, len);
		return;
	case SV_OP_PING:
		return;
	default:
		break;
	}
	if (qp->held) {
		hold(qp, pkt, len, false);
		return;
	}
	if (process_request(qp, pkt) == SV_HOLD)
		hold(qp, pkt, len, false);
}

void sv_emit_ack(struct sv_qp *qp)
{
	struct sv_pkt ack;

	if (!qp->ack_pending)
		return;
	qp->ack_pending = false;
	memset(&ack, 0, sizeof(ack));
	ack.op = SV_OP_ACK;
	ack.msn = qp->last_msn;
	ack.src_qpn = qp->qpn;
	sv_respond(qp->ctx, qp, qp->last_src_node, qp->last_src_qpn, &ack,
		   NULL, 0);
}

void sv_retry_held(struct sv_qp *qp)
{
	while (qp->held) {
		struct sv_held *h = qp->held;

		if (process_request(qp, &h->pkt) == SV_HOLD) {
			sv_emit_ack(qp);
			return;
		}
		qp->held = h->next;
		if (!qp->held) {
			qp->held_tail = NULL;
			if (qp->ctx->held_qps)
				qp->ctx->held_qps--;
		}
		free(h);
	}
	qp->hold_deadline = 0;
	sv_emit_ack(qp);
}

/* ---- timers ---------------------------------------------------------------------------- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t qp_timers(struct sv_qp *qp, uint64_t now)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	uint64_t next = UINT64_MAX;

	/* responder: RNR retries */
	if (qp->held && qp->rnr_active) {
		if (now >= qp->hold_retry_at) {
			qp->rnr_forced = false;
			sv_retry_held(qp);
			if (qp->held && qp->rnr_active) {
				if (qp->rnr_left == 0) {
					SV_DBG("qp %u: RNR retries exceeded",
					       qp->qpn);
					nak(qp, &qp->held->pkt, SV_NAK_RNR_EXC);
					sv_drop_held(qp, SV_NAK_NONE);
				} else {
					if (qp->rnr_left > 0)
						qp->rnr_left--;
					sv_cnt_note(qp, &qp->held->pkt,
						    SV_C_RNR_NAK);
					qp->hold_retry_at =
						now + sv_rnr_timer_ns(
							qp->attr.min_rnr_timer);
				}
			}
		}
		if (qp->held && qp->rnr_active)
			next = min_u64(next, qp->hold_retry_at);
	}
	/* responder: requests that arrived before RTR */
	if (qp->held && (q->state == IBV_QPS_RESET || q->state == IBV_QPS_INIT) &&
	    qp->hold_deadline) {
		if (now >= qp->hold_deadline) {
			nak(qp, &qp->held->pkt, SV_NAK_RETRY_EXC);
			sv_drop_held(qp, SV_NAK_NONE);
		} else {
			next = min_u64(next, qp->hold_deadline);
		}
	}
	/* requester */
	if (qp->dead_at) {
		if (now >= qp->dead_at) {
			sv_cnt_add(SV_C_ACK_TIMEOUT, 1);
			sv_sq_fail(qp, IBV_WC_RETRY_EXC_ERR);
		}
		else
			next = min_u64(next, qp->dead_at);
	}
	if (qp->sq_count && q->state != IBV_QPS_ERR && !qp->dead_at) {
		uint64_t t = sv_transport_timeout_ns(qp->attr.timeout,
						     qp->attr.retry_cnt);

		if (t != UINT64_MAX) {
			if (now - qp->last_activity >= t) {
				/* port down, or peer gone?  probe its socket */
				struct sv_pkt p;
				struct sockaddr_un a;
				socklen_t alen;

				memset(&p, 0, sizeof(p));
				p.magic = SV_PKT_MAGIC;
				p.op = SV_OP_PING;
				sv_addr_of(&a, &alen, qp->dest_node,
					   qp->attr.dest_qp_num);
				if (qp->ctx->port_is_down ||
				    (sendto(qp->fd, &p, sizeof(p), MSG_DONTWAIT,
					    (struct sockaddr *)&a, alen) < 0 &&
				     (errno == ECONNREFUSED || errno == ENOENT))) {
					sv_cnt_add(SV_C_ACK_TIMEOUT, 1);
					sv_sq_fail(qp, IBV_WC_RETRY_EXC_ERR);
				}
				qp->last_activity = now;
			}
			if (qp->sq_count && q->state != IBV_QPS_ERR)
				next = min_u64(next, qp->last_activity + t);
		}
	}
	if (qp->delayed) {
		sv_send_flush_delayed(qp, false);
		if (qp->delayed)
			next = min_u64(next, now + 100000);
	}
	return next;
}

/*
 * The QPs are walked only when a deadline of the last walk is due, or a
 * timer was armed since (sv_timers_changed()): with thousands of QPs a
 * walk at every wake-up of the progress thread would be most of its work.
 * Deadlines that move later (activity) need no walk: an early one finds
 * nothing due and learns the new time.
 */
uint64_t sv_run_timers(struct sv_context *ctx)
{
	uint64_t now = sv_now_ns(), next = UINT64_MAX;
	struct sv_list *l, *n;

	if (!__atomic_exchange_n(&ctx->timers_dirty, false, __ATOMIC_ACQ_REL) &&
	    now < ctx->timer_next && !ctx->port_down_at)
		return ctx->timer_next == UINT64_MAX ? UINT64_MAX
						     : ctx->timer_next - now;

	if (ctx->port_down_at) {
		if (now >= ctx->port_down_at) {
			ctx->port_down_at = 0;
			ctx->port_is_down = true;
			sv_cnt_add(SV_C_LINK_DOWNED, 1);
			sv_async_event(ctx, IBV_EVENT_PORT_ERR, NULL);
		} else {
			next = ctx->port_down_at;
		}
	}
	for (l = ctx->qps.next; l != &ctx->qps; l = n) {
		n = l->next;
		next = min_u64(next,
			       qp_timers(sv_container(l, struct sv_qp, link),
					 now));
	}
	__atomic_store_n(&ctx->timer_next, next, __ATOMIC_RELAXED);
	return next == UINT64_MAX ? UINT64_MAX : next > now ? next - now : 0;
}
