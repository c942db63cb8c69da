// SPDX-License-Identifier: MIT
/*
 * Extended verbs: the ibv_qp_ex work-request builder (ibv_wr_*) and the
 * ibv_cq_ex polling API.  ibv_wr_* collects work requests between
 * wr_start and wr_complete and posts them through the ordinary post_send
 * path, so both APIs share one data path.  Inline data is copied when it is
 * set, as the API requires.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"

struct sv_exwr {
	struct ibv_send_wr wr;
	struct ibv_sge sge[SV_MAX_SGE];
	uint8_t *inl;		/* owned copy of inline data */
};

struct sv_exstate {
	struct sv_exwr *w;
	uint32_t n, cap;
	int err;
};

static struct sv_exstate *ex_of(struct ibv_qp_ex *qx)
{
	return ((struct sv_qp *)qx)->ex;
}

static void ex_clear(struct sv_exstate *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		free(s->w[i].inl);
	s->n = 0;
	s->err = 0;
}

/* start a new WR with the common fields taken from the qp_ex */
static struct ibv_send_wr *ex_new(struct ibv_qp_ex *qx, enum ibv_wr_opcode op)
{
	struct sv_exstate *s = ex_of(qx);
	struct sv_exwr *w;

	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		struct sv_exwr *nw = realloc(s->w, cap * sizeof(*nw));

		if (!nw) {
			s->err = ENOMEM;
			return NULL;
		}
		s->w = nw;
		s->cap = cap;
	}
	w = &s->w[s->n++];
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = qx->wr_id;
	w->wr.send_flags = qx->wr_flags;
	w->wr.opcode = op;
	w->wr.sg_list = w->sge;
	return &w->wr;
}

static struct sv_exwr *ex_cur(struct ibv_qp_ex *qx)
{
	struct sv_exstate *s = ex_of(qx);

	return s->n ? &s->w[s->n - 1] : NULL;
}

static void wr_start(struct ibv_qp_ex *qx)
{
	ex_clear(ex_of(qx));
}

static int wr_complete(struct ibv_qp_ex *qx)
{
	struct sv_exstate *s = ex_of(qx);
	struct ibv_send_wr *bad = NULL;
	uint32_t i;
	int err = s->err;

	if (!err && s->n) {
		for (i = 0; i < s->n; i++) {
			s->w[i].wr.sg_list = s->w[i].sge;
			s->w[i].wr.next = i + 1 < s->n ? &s->w[i + 1].wr : NULL;
		}
		err = sv_post_send(&qx->qp_base, &s->w[0].wr, &bad);
	}
	ex_clear(s);
	return err;
}

static void wr_abort(struct ibv_qp_ex *qx)
{
	ex_clear(ex_of(qx));
}

static void wr_send(struct ibv_qp_ex *qx)
{
	ex_new(qx, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qx, __be32 imm)
{
	struct ibv_send_wr *w = ex_new(qx, IBV_WR_SEND_WITH_IMM);

	if (w)
		w->imm_data = imm;
}

static void wr_send_inv(struct ibv_qp_ex *qx, uint32_t rkey)
{
	(void)rkey;
	ex_of(qx)->err = EOPNOTSUPP;
}

static void wr_send_tso(struct ibv_qp_ex *qx, void *hdr, uint16_t hdr_sz,
			uint16_t mss)
{
	(void)hdr, (void)hdr_sz, (void)mss;
	ex_of(qx)->err = EOPNOTSUPP;
}

static void wr_rdma_write(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *w = ex_new(qx, IBV_WR_RDMA_WRITE);

	if (w) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = raddr;
	}
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qx, uint32_t rkey,
			      uint64_t raddr, __be32 imm)
{
	struct ibv_send_wr *w = ex_new(qx, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (w) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = raddr;
		w->imm_data = imm;
	}
}

static void wr_rdma_read(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *w = ex_new(qx, IBV_WR_RDMA_READ);

	if (w) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = raddr;
	}
}

static void wr_cmp_swp(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t raddr,
		       uint64_t compare, uint64_t swap)
{
	struct ibv_send_wr *w = ex_new(qx, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (w) {
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.remote_addr = raddr;
		w->wr.atomic.compare_add = compare;
		w->wr.atomic.swap = swap;
	}
}

static void wr_fetch_add(struct ibv_qp_ex *qx, uint32_t rkey, uint64_t raddr,
			 uint64_t add)
{
	struct ibv_send_wr *w = ex_new(qx, IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (w) {
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.remote_addr = raddr;
		w->wr.atomic.compare_add = add;
	}
}

static void wr_bind_mw(struct ibv_qp_ex *qx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *info)
{
	(void)mw, (void)rkey, (void)info;
	ex_of(qx)->err = EOPNOTSUPP;
}

static void wr_local_inv(struct ibv_qp_ex *qx, uint32_t rkey)
{
	(void)rkey;
	ex_of(qx)->err = EOPNOTSUPP;
}

static void wr_atomic_write(struct ibv_qp_ex *qx, uint32_t rkey,
			    uint64_t raddr, const void *data)
{
	(void)rkey, (void)raddr, (void)data;
	ex_of(qx)->err = EOPNOTSUPP;
}

static void wr_set_ud_addr(struct ibv_qp_ex *qx, struct ibv_ah *ah,
			   uint32_t qpn, uint32_t qkey)
{
	struct sv_exwr *w = ex_cur(qx);

	if (w) {
		w->wr.wr.ud.ah = ah;
		w->wr.wr.ud.remote_qpn = qpn;
		w->wr.wr.ud.remote_qkey = qkey;
	}
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *qx, uint32_t srqn)
{
	struct sv_exwr *w = ex_cur(qx);

	if (w)
		w->wr.qp_type.xrc.remote_srqn = srqn;
}

static void wr_set_sge(struct ibv_qp_ex *qx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct sv_exwr *w = ex_cur(qx);

	if (!w)
		return;
	w->sge[0].lkey = lkey;
	w->sge[0].addr = addr;
	w->sge[0].length = length;
	w->wr.num_sge = 1;
}

static void wr_set_sge_list(struct ibv_qp_ex *qx, size_t n,
			    const struct ibv_sge *sg)
{
	struct sv_exwr *w = ex_cur(qx);

	if (!w)
		return;
	if (n > SV_MAX_SGE) {
		ex_of(qx)->err = EINVAL;
		return;
	}
	memcpy(w->sge, sg, n * sizeof(*sg));
	w->wr.num_sge = (int)n;
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qx, size_t n,
				    const struct ibv_data_buf *bufs)
{
	struct sv_exwr *w = ex_cur(qx);
	size_t i, total = 0, off = 0;

	if (!w)
		return;
	for (i = 0; i < n; i++)
		total += bufs[i].length;
	free(w->inl);
	w->inl = malloc(total ? total : 1);
	if (!w->inl) {
		ex_of(qx)->err = ENOMEM;
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(w->inl + off, bufs[i].addr, bufs[i].length);
		off += bufs[i].length;
	}
	w->sge[0].addr = (uintptr_t)w->inl;
	w->sge[0].length = (uint32_t)total;
	w->sge[0].lkey = 0;
	w->wr.num_sge = 1;
	w->wr.send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *qx, void *addr, size_t len)
{
	struct ibv_data_buf b = { addr, len };

	wr_set_inline_data_list(qx, 1, &b);
}

static void wr_unsupported(void)
{
}

void sv_qp_ex_init(struct sv_qp *qp)
{
	struct ibv_qp_ex *x = &qp->qpx;
	unsigned int i;

	qp->ex = calloc(1, sizeof(struct sv_exstate));
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_send_inv = wr_send_inv;
	x->wr_send_tso = wr_send_tso;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_atomic_cmp_swp = wr_cmp_swp;
	x->wr_atomic_fetch_add = wr_fetch_add;
	x->wr_bind_mw = wr_bind_mw;
	x->wr_local_inv = wr_local_inv;
	x->wr_atomic_write = wr_atomic_write;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	/* ops newer headers append (e.g. wr_flush) land here: harmless */
	for (i = 0; i < sizeof(qp->stub_tail) / sizeof(qp->stub_tail[0]); i++)
		qp->stub_tail[i] = (void *)(uintptr_t)wr_unsupported;
}

void sv_qp_ex_free(struct sv_qp *qp)
{
	struct sv_exstate *s = qp->ex;

	if (!s)
		return;
	ex_clear(s);
	free(s->w);
	free(s);
	qp->ex = NULL;
}

SV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return &sv_qp(qp)->qpx;
}

/* ---- ibv_cq_ex ----------------------------------------------------------------------- */

static struct sv_cq *cqx(struct ibv_cq_ex *c)
{
	return (struct sv_cq *)c;
}

static int cq_next(struct sv_cq *cq)
{
	int got;

	pthread_mutex_lock(&cq->ctx->mu);
	got = cq->count > 0;
	if (got) {
		cq->cur = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
	}
	pthread_mutex_unlock(&cq->ctx->mu);
	if (!got)
		return ENOENT;
	cq->cq.status = cq->cur.wc.status;
	cq->cq.wr_id = cq->cur.wc.wr_id;
	return 0;
}

static int start_poll(struct ibv_cq_ex *c, struct ibv_poll_cq_attr *attr)
{
	struct sv_cq *cq = cqx(c);

	if (attr && attr->comp_mask)
		return EINVAL;
	if (!sv_ctx_usable(cq->ctx))
		return EINVAL;
	if (cq_next(cq) == 0)
		return 0;
	sv_progress(cq->ctx, false);
	return cq_next(cq);
}

static int next_poll(struct ibv_cq_ex *c)
{
	return cq_next(cqx(c));
}

static void end_poll(struct ibv_cq_ex *c)
{
	(void)c;
}

static enum ibv_wc_opcode read_opcode(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.opcode;
}

static uint32_t read_vendor_err(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.vendor_err;
}

static uint32_t read_byte_len(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.byte_len;
}

static __be32 read_imm_data(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.imm_data;
}

static uint32_t read_qp_num(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.qp_num;
}

static uint32_t read_src_qp(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.src_qp;
}

static unsigned int read_wc_flags(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.wc_flags;
}

static uint32_t read_slid(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.slid;
}

static uint8_t read_sl(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.sl;
}

static uint8_t read_dlid_path_bits(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.wc.dlid_path_bits;
}

static uint64_t read_completion_ts(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.ts;
}

static uint64_t read_completion_wallclock_ns(struct ibv_cq_ex *c)
{
	return cqx(c)->cur.ts;
}

static uint16_t read_cvlan(struct ibv_cq_ex *c)
{
	(void)c;
	return 0;
}

static uint32_t read_flow_tag(struct ibv_cq_ex *c)
{
	(void)c;
	return 0;
}

static void read_tm_info(struct ibv_cq_ex *c, struct ibv_wc_tm_info *tm)
{
	(void)c;
	memset(tm, 0, sizeof(*tm));
}

void sv_cq_ex_init(struct sv_cq *cq)
{
	struct ibv_cq_ex *c = &cq->cq;

	c->start_poll = start_poll;
	c->next_poll = next_poll;
	c->end_poll = end_poll;
	c->read_opcode = read_opcode;
	c->read_vendor_err = read_vendor_err;
	c->read_byte_len = read_byte_len;
	c->read_imm_data = read_imm_data;
	c->read_qp_num = read_qp_num;
	c->read_src_qp = read_src_qp;
	c->read_wc_flags = read_wc_flags;
	c->read_slid = read_slid;
	c->read_sl = read_sl;
	c->read_dlid_path_bits = read_dlid_path_bits;
	c->read_completion_ts = read_completion_ts;
	c->read_cvlan = read_cvlan;
	c->read_flow_tag = read_flow_tag;
	c->read_tm_info = read_tm_info;
	c->read_completion_wallclock_ns = read_completion_wallclock_ns;
}
