// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Verbs helpers for the semantics cases (see vhelp.h).  Public libibverbs
 * API only; every wait is bounded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "vhelp.h"

#define CTL_DEADLINE_MS 20000

int side_open(struct sv_side *s, int cqe, int with_channel)
{
	struct ibv_device **list;
	const char *want = getenv("SV_DEVICE");
	int i, n = 0;

	s->port_num = 1;
	list = ibv_get_device_list(&n);
	if (!SETUP(list && n > 0, "ibv_get_device_list finds a device (%d)",
		   n)) {
		if (list)
			ibv_free_device_list(list);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!want || !strcmp(ibv_get_device_name(list[i]), want))
			break;
	if (i < n)
		s->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!SETUP(s->ctx, "ibv_open_device"))
		return -1;
	if (!SETUP(!ibv_query_device(s->ctx, &s->dev), "ibv_query_device") ||
	    !SETUP(!ibv_query_port(s->ctx, s->port_num, &s->port),
		   "ibv_query_port") ||
	    !SETUP(!ibv_query_gid(s->ctx, s->port_num, 0, &s->gid),
		   "ibv_query_gid"))
		return -1;
	s->global = s->port.link_layer == IBV_LINK_LAYER_ETHERNET ||
		    s->port.lid == 0;
	s->pd = ibv_alloc_pd(s->ctx);
	if (!SETUP(s->pd, "ibv_alloc_pd"))
		return -1;
	if (with_channel) {
		s->chan = ibv_create_comp_channel(s->ctx);
		if (!SETUP(s->chan, "ibv_create_comp_channel"))
			return -1;
	}
	s->cq = ibv_create_cq(s->ctx, cqe, NULL, s->chan, 0);
	if (!SETUP(s->cq, "ibv_create_cq(%d)", cqe))
		return -1;
	return 0;
}

int side_use_gid(struct sv_side *s, int idx)
{
	if (!SETUP(!ibv_query_gid(s->ctx, s->port_num, idx, &s->gid),
		   "ibv_query_gid(index %d)", idx))
		return -1;
	s->gid_index = idx;
	return 0;
}

void side_close(struct sv_side *s)
{
	if (s->cq && ibv_destroy_cq(s->cq))
		SETUP(0, "ibv_destroy_cq: %s", strerror(errno));
	if (s->chan && ibv_destroy_comp_channel(s->chan))
		SETUP(0, "ibv_destroy_comp_channel: %s", strerror(errno));
	if (s->pd && ibv_dealloc_pd(s->pd))
		SETUP(0, "ibv_dealloc_pd: %s", strerror(errno));
	if (s->ctx && ibv_close_device(s->ctx))
		SETUP(0, "ibv_close_device: %s", strerror(errno));
	s->cq = NULL;
	s->chan = NULL;
	s->pd = NULL;
	s->ctx = NULL;
}

static enum ibv_qp_type conn_type(const struct sv_conn *c)
{
	return c->type ? c->type : IBV_QPT_RC;
}

static int conn_access(const struct sv_conn *c)
{
	if (c->access || c->no_access)
		return c->access;
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
}

static uint32_t conn_sq_psn(const struct sv_conn *c)
{
	return c->sq_psn ? c->sq_psn : 0x1000;
}

static int ud_to_rts(struct sv_side *s, struct ibv_qp *qp,
		     const struct sv_conn *c)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (!SETUP(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "UD QP to RTR"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = conn_sq_psn(c);
	if (!SETUP(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN),
		   "UD QP to RTS"))
		return -1;
	(void)s;
	return 0;
}

int qp_init(struct sv_side *s, struct ibv_qp *qp, const struct sv_conn *c)
{
	struct ibv_qp_attr a;
	int mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = s->port_num;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (conn_type(c) == IBV_QPT_UD) {
		a.qkey = c->qkey ? c->qkey : SV_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = conn_access(c);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (!SETUP(!ibv_modify_qp(qp, &a, mask), "QP to INIT") ||
	    (conn_type(c) == IBV_QPT_UD && ud_to_rts(s, qp, c) < 0))
		return -1;
	return 0;
}

struct ibv_qp *qp_new(struct sv_side *s, const struct sv_conn *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = conn_type(c);
	ia.cap.max_send_wr = c->max_send ? c->max_send : 64;
	ia.cap.max_recv_wr = c->max_recv ? c->max_recv : 64;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = c->max_inline;
	qp = ibv_create_qp(s->pd, &ia);
	if (!SETUP(qp, "ibv_create_qp(type %d): %s", ia.qp_type,
		   qp ? "ok" : strerror(errno)))
		return NULL;
	if (qp_init(s, qp, c) < 0) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

void addr_of(struct sv_side *s, struct ibv_qp *qp, const struct sv_conn *c,
	     struct sv_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->qpn = qp->qp_num;
	a->psn = conn_sq_psn(c);
	a->qkey = c->qkey ? c->qkey : SV_QKEY;
	a->lid = s->port.lid;
	memcpy(a->gid, s->gid.raw, sizeof(a->gid));
}

static void ah_attr_fill(struct sv_side *s, const struct sv_addr *peer,
			 struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = peer->lid;
	ah->port_num = s->port_num;
	if (s->global) {
		ah->is_global = 1;
		ah->grh.hop_limit = 1;
		ah->grh.sgid_index = (uint8_t)s->gid_index;
		memcpy(ah->grh.dgid.raw, peer->gid, sizeof(peer->gid));
	}
}

int qp_connect(struct sv_side *s, struct ibv_qp *qp, const struct sv_conn *c,
	       const struct sv_addr *peer)
{
	enum ibv_qp_type type = conn_type(c);
	struct ibv_qp_attr a;
	int mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	if (s->port.active_mtu < a.path_mtu)
		a.path_mtu = s->port.active_mtu;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = c->force_rq_psn ? c->rq_psn : peer->psn;
	ah_attr_fill(s, peer, &a.ah_attr);
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = c->min_rnr_timer ? c->min_rnr_timer : 1;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (!SETUP(!ibv_modify_qp(qp, &a, mask), "QP to RTR"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = conn_sq_psn(c);
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (type == IBV_QPT_RC) {
		a.timeout = c->timeout ? c->timeout : 12;
		a.retry_cnt = c->retry_set ? c->retry_cnt : 3;
		a.rnr_retry = c->rnr_set ? c->rnr_retry : 7;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (!SETUP(!ibv_modify_qp(qp, &a, mask), "QP to RTS"))
		return -1;
	return 0;
}

struct ibv_qp *qp_pair(struct sv_side *s, const struct sv_conn *c,
		       const struct sv_buf *mybuf, struct sv_addr *peer)
{
	struct sv_addr me;
	struct ibv_qp *qp = qp_new(s, c);

	if (!qp) {
		ctl_send(s, 'X', NULL, 0);
		return NULL;
	}
	addr_of(s, qp, c, &me);
	if (mybuf && mybuf->mr) {
		me.addr = mybuf->iova ? mybuf->iova : (uintptr_t)mybuf->p;
		me.rkey = mybuf->mr->rkey;
		me.len = (uint32_t)mybuf->len;
	}
	if (ctl_send(s, 'A', &me, sizeof(me)) < 0 ||
	    ctl_recv(s, 'A', peer, sizeof(*peer)) < 0)
		goto fail;
	if (conn_type(c) != IBV_QPT_UD && qp_connect(s, qp, c, peer) < 0)
		goto fail;
	if (ctl_sync(s, 'C') < 0)
		goto fail;
	return qp;
fail:
	ibv_destroy_qp(qp);
	return NULL;
}

int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

struct ibv_ah *ah_to(struct sv_side *s, const struct sv_addr *peer)
{
	struct ibv_ah_attr ah;
	struct ibv_ah *h;

	ah_attr_fill(s, peer, &ah);
	h = ibv_create_ah(s->pd, &ah);
	SETUP(h, "ibv_create_ah");
	return h;
}

int buf_new_iova(struct sv_side *s, struct sv_buf *b, size_t len,
		 uint64_t iova, int access)
{
	size_t maplen = len ? len : 1;

	memset(b, 0, sizeof(*b));
	b->p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!SETUP(b->p != MAP_FAILED, "mmap %zu bytes", maplen)) {
		b->p = NULL;
		return -1;
	}
	b->len = len;
	b->iova = iova;
	if (iova)
		b->mr = ibv_reg_mr_iova(s->pd, b->p, maplen, iova, access);
	else
		b->mr = ibv_reg_mr(s->pd, b->p, maplen, access);
	if (!SETUP(b->mr, "ibv_reg_mr %zu bytes access 0x%x%s", maplen,
		   access, iova ? " with iova" : "")) {
		munmap(b->p, maplen);
		b->p = NULL;
		return -1;
	}
	return 0;
}

int buf_new(struct sv_side *s, struct sv_buf *b, size_t len, int access)
{
	return buf_new_iova(s, b, len, 0, access);
}

void buf_free(struct sv_buf *b)
{
	if (b->mr && ibv_dereg_mr(b->mr))
		SETUP(0, "ibv_dereg_mr: %s", strerror(errno));
	if (b->p)
		munmap(b->p, b->len ? b->len : 1);
	memset(b, 0, sizeof(*b));
}

void pattern_fill(uint8_t *p, size_t len, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

long pattern_check(const uint8_t *p, size_t len, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		if (p[i] != (uint8_t)(x >> 16))
			return (long)i;
	}
	return -1;
}

int post_one(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
	     const struct sv_buf *b, size_t off, uint32_t len,
	     uint64_t raddr, uint32_t rkey, int flags)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	memset(&wr, 0, sizeof(wr));
	memset(&sge, 0, sizeof(sge));
	if (len) {
		sge.addr = (uintptr_t)(b->p + off);
		sge.length = len;
		sge.lkey = b->mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

int post_recv_one(struct ibv_qp *qp, uint64_t wr_id, const struct sv_buf *b,
		  size_t off, uint32_t len)
{
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_sge sge;

	memset(&wr, 0, sizeof(wr));
	memset(&sge, 0, sizeof(sge));
	if (b) {
		sge.addr = (uintptr_t)(b->p + off);
		sge.length = len;
		sge.lkey = b->mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}
	wr.wr_id = wr_id;
	return ibv_post_recv(qp, &wr, &bad);
}

int wc_wait(struct ibv_cq *cq, int ms, struct ibv_wc *wc)
{
	double end = now_ms() + ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n < 0 ? -1 : 1;
		if (now_ms() > end)
			return 0;
		sched_yield();
	}
}

int wc_wait_id(struct ibv_cq *cq, int ms, uint64_t wr_id, struct ibv_wc *wc)
{
	double end = now_ms() + ms;
	int r;

	for (;;) {
		double left = end - now_ms();

		r = wc_wait(cq, left > 0 ? (int)left : 0, wc);
		if (r <= 0)
			return r;
		if (wc->wr_id == wr_id)
			return 1;
		note("skipping completion wr_id %llu status %s",
		     (unsigned long long)wc->wr_id, wc_name(wc->status));
	}
}

int async_wait(struct ibv_context *ctx, int ms, enum ibv_event_type type,
	       struct ibv_async_event *ev)
{
	double end = now_ms() + ms;
	struct pollfd pfd;
	int left;

	for (;;) {
		left = (int)(end - now_ms());
		if (left < 0)
			left = 0;
		pfd.fd = ctx->async_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, left) <= 0)
			return 0;
		if (ibv_get_async_event(ctx, ev))
			return 0;
		ibv_ack_async_event(ev);
		if (ev->event_type == type)
			return 1;
		note("skipping async event %s",
		     ibv_event_type_str(ev->event_type));
	}
}

struct ctl_hdr {
	uint32_t tag;
	uint32_t len;			/* bytes of payload */
};

static int io_full(int fd, void *p, size_t len, int writing)
{
	double end = now_ms() + CTL_DEADLINE_MS;
	uint8_t *q = p;

	while (len) {
		struct pollfd pfd = { fd, writing ? POLLOUT : POLLIN, 0 };
		int left = (int)(end - now_ms());
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		n = writing ? write(fd, q, len) : read(fd, q, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		q += n;
		len -= (size_t)n;
	}
	return 0;
}

int ctl_send(struct sv_side *s, uint32_t tag, const void *p, size_t len)
{
	struct ctl_hdr h = { tag, (uint32_t)len };

	if (io_full(s->sock, &h, sizeof(h), 1) < 0 ||
	    (len && io_full(s->sock, (void *)p, len, 1) < 0)) {
		SETUP(0, "control send '%c' to the peer role", (int)tag);
		return -1;
	}
	return 0;
}

int ctl_recv(struct sv_side *s, uint32_t tag, void *p, size_t len)
{
	struct ctl_hdr h;
	uint8_t junk[256];

	for (;;) {
		if (io_full(s->sock, &h, sizeof(h), 0) < 0) {
			SETUP(0, "control receive '%c' from the peer role "
				 "(peer gone or silent for %d ms)",
			      (int)tag, CTL_DEADLINE_MS);
			return -1;
		}
		if (h.tag == 'X') {
			SETUP(0, "peer role gave up (setup failed there)");
			return -1;
		}
		if (h.tag == tag && h.len == len)
			return len ? io_full(s->sock, p, len, 0) : 0;
		note("discarding control message '%c' (%u bytes) while "
		     "waiting for '%c'", (int)h.tag, h.len, (int)tag);
		while (h.len) {
			uint32_t n = h.len < sizeof(junk) ? h.len :
							    sizeof(junk);

			if (io_full(s->sock, junk, n, 0) < 0)
				return -1;
			h.len -= n;
		}
	}
}

int ctl_sync(struct sv_side *s, uint32_t tag)
{
	if (ctl_send(s, tag, NULL, 0) < 0)
		return -1;
	return ctl_recv(s, tag, NULL, 0);
}

const char *wc_name(enum ibv_wc_status st)
{
	return ibv_wc_status_str(st);
}

const char *state_name(int st)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD",   "SQE",  "ERR" };

	if (st >= 0 && st < (int)(sizeof(names) / sizeof(names[0])))
		return names[st];
	return "?";
}

double ack_timeout_ms(uint8_t exp)
{
	return 4.096e-3 * (double)(1ull << exp);
}
