// SPDX-License-Identifier: MIT
/*
 * Completion queues, completion channels and asynchronous events.
 * A completion channel is a real pipe: arming a CQ and then queueing a CQE
 * writes the CQ's address to it, so the channel fd works with poll, epoll
 * and select.  The async fd is a pipe of struct ibv_async_event.
 * CQ rings grow instead of overflowing (documented difference).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sv_internal.h"

/* ---- completion channels ---------------------------------------------------- */

SV_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *c)
{
	struct sv_comp_channel *ch;
	int p[2];

	if (!sv_ctx_usable(sv_ctx(c))) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	if (pipe2(p, O_CLOEXEC) < 0) {
		free(ch);
		return NULL;
	}
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	ch->ch.context = c;
	ch->ch.fd = p[0];
	ch->wfd = p[1];
	ch->ch.refcnt = 0;
	return &ch->ch;
}

SV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct sv_comp_channel *ch = (struct sv_comp_channel *)channel;

	if (channel->refcnt)
		return EBUSY;
	close(ch->ch.fd);
	close(ch->wfd);
	free(ch);
	return 0;
}

SV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
			       struct ibv_cq **cq, void **cq_context)
{
	struct sv_cq *scq;
	ssize_t n;

	sv_app_sleeps(sv_ctx(channel->context));
	n = read(channel->fd, &scq, sizeof(scq));
	if (n != (ssize_t)sizeof(scq))
		return -1;
	*cq = (struct ibv_cq *)&scq->cq;
	*cq_context = scq->cq.cq_context;
	return 0;
}

SV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ---- async events ---------------------------------------------------------- */

void sv_async_event(struct sv_context *ctx, enum ibv_event_type type,
		    void *obj)
{
	struct ibv_async_event ev;
	ssize_t n;

	memset(&ev, 0, sizeof(ev));
	ev.event_type = type;
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		ev.element.cq = obj;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		ev.element.qp = obj;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		ev.element.srq = obj;
		break;
	default:
		ev.element.port_num = 1;
		break;
	}
	SV_DBG("async event %s", ibv_event_type_str(type));
	n = write(ctx->async_wfd, &ev, sizeof(ev));
	(void)n;
}

SV_EXPORT int ibv_get_async_event(struct ibv_context *c,
				  struct ibv_async_event *event)
{
	ssize_t n = read(c->async_fd, event, sizeof(*event));

	return n == (ssize_t)sizeof(*event) ? 0 : -1;
}

SV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

/* ---- CQs --------------------------------------------------------------------- */

void sv_cq_push(struct sv_cq *cq, const struct ibv_wc *wc, bool solicited)
{
	struct sv_cqe *e;

	if (cq->count == cq->cap) {
		uint32_t n = cq->cap * 2, i;
		struct sv_cqe *r = malloc(n * sizeof(*r));

		if (!r) {
			sv_async_event(cq->ctx, IBV_EVENT_CQ_ERR, &cq->cq);
			return;
		}
		for (i = 0; i < cq->count; i++)
			r[i] = cq->ring[(cq->head + i) % cq->cap];
		free(cq->ring);
		cq->ring = r;
		cq->head = 0;
		cq->cap = n;
	}
	e = &cq->ring[(cq->head + cq->count) % cq->cap];
	e->wc = *wc;
	/* a clock read per completion only for a CQ that reads the time */
	e->ts = cq->wc_flags_ex & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) ?
			sv_now_ns() :
			0;
	cq->count++;
	if (cq->armed && cq->cq.channel &&
	    (!cq->solicited_only || solicited ||
	     wc->status != IBV_WC_SUCCESS)) {
		struct sv_comp_channel *ch =
			(struct sv_comp_channel *)cq->cq.channel;
		ssize_t n;

		cq->armed = false;
		n = write(ch->wfd, &cq, sizeof(cq));
		(void)n;
	}
}

static bool cq_pop(struct sv_cq *cq, struct sv_cqe *out)
{
	if (!cq->count)
		return false;
	*out = cq->ring[cq->head];
	cq->head = (cq->head + 1) % cq->cap;
	cq->count--;
	return true;
}

int sv_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *wc)
{
	struct sv_cq *cq = sv_cq(c);
	struct sv_context *ctx = cq->ctx;
	struct sv_cqe e;
	int got = 0, pass;

	if (!sv_ctx_usable(ctx))
		return -1;
	for (pass = 0; pass < 2; pass++) {
		pthread_mutex_lock(&ctx->mu);
		while (got < n && cq_pop(cq, &e))
			wc[got++] = e.wc;
		pthread_mutex_unlock(&ctx->mu);
		if (got || pass)
			break;
		sv_progress(ctx, false);
	}
	return got;
}

int sv_req_notify_cq(struct ibv_cq *c, int solicited_only)
{
	struct sv_cq *cq = sv_cq(c);

	pthread_mutex_lock(&cq->ctx->mu);
	cq->armed = true;
	cq->solicited_only = solicited_only != 0;
	pthread_mutex_unlock(&cq->ctx->mu);
	return 0;
}

static struct sv_cq *cq_alloc(struct ibv_context *c, int cqe,
			      struct ibv_comp_channel *channel,
			      void *cq_context)
{
	struct sv_context *ctx = sv_ctx(c);
	struct sv_cq *cq;

	if (!sv_ctx_usable(ctx) || cqe < 1 || cqe >= SV_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->ctx = ctx;
	cq->cap = (uint32_t)cqe + 1;
	cq->ring = calloc(cq->cap, sizeof(*cq->ring));
	pthread_mutex_lock(&ctx->mu);
	if (cq->ring && ctx->ncqs < sv_cfg.max_cq)
		ctx->ncqs++; /* the device's max_cq (SOFTVERBS_MAX_CQ) */
	else
		cq->cap = 0;
	pthread_mutex_unlock(&ctx->mu);
	if (!cq->cap) {
		free(cq->ring);
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->cq.context = c;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.cqe = cqe;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
	sv_cq_ex_init(cq);
	return cq;
}

SV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe,
				       void *cq_context,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct sv_cq *cq;

	(void)comp_vector;
	cq = cq_alloc(c, cqe, channel, cq_context);
	return cq ? (struct ibv_cq *)&cq->cq : NULL;
}

struct ibv_cq_ex *sv_create_cq_ex(struct ibv_context *c,
				  struct ibv_cq_init_attr_ex *attr)
{
	struct sv_cq *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)(IBV_WC_EX_WITH_BYTE_LEN |
					 IBV_WC_EX_WITH_IMM |
					 IBV_WC_EX_WITH_QP_NUM |
					 IBV_WC_EX_WITH_SRC_QP |
					 IBV_WC_EX_WITH_SLID |
					 IBV_WC_EX_WITH_SL |
					 IBV_WC_EX_WITH_DLID_PATH_BITS |
					 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
					 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_alloc(c, (int)attr->cqe, attr->channel, attr->cq_context);
	if (!cq)
		return NULL;
	cq->wc_flags_ex = attr->wc_flags;
	return &cq->cq;
}

SV_EXPORT int ibv_resize_cq(struct ibv_cq *c, int cqe)
{
	struct sv_cq *cq = sv_cq(c);
	struct sv_cqe *r;
	uint32_t i, cap;

	if (cqe < 1 || cqe >= SV_MAX_CQE)
		return EINVAL;
	pthread_mutex_lock(&cq->ctx->mu);
	if ((uint32_t)cqe < cq->count) {
		pthread_mutex_unlock(&cq->ctx->mu);
		return EINVAL;
	}
	cap = (uint32_t)cqe + 1;
	if (cap < cq->cap)
		cap = cq->cap;
	r = calloc(cap, sizeof(*r));
	if (!r) {
		pthread_mutex_unlock(&cq->ctx->mu);
		return ENOMEM;
	}
	for (i = 0; i < cq->count; i++)
		r[i] = cq->ring[(cq->head + i) % cq->cap];
	free(cq->ring);
	cq->ring = r;
	cq->head = 0;
	cq->cap = cap;
	c->cqe = cqe;
	pthread_mutex_unlock(&cq->ctx->mu);
	return 0;
}

SV_EXPORT int ibv_destroy_cq(struct ibv_cq *c)
{
	struct sv_cq *cq = sv_cq(c);
	struct sv_context *ctx = cq->ctx;
	struct sv_list *l;
	if (!sv_ctx_usable(ctx))
		return EINVAL;

	pthread_mutex_lock(&ctx->mu);
	for (l = ctx->qps.next; l != &ctx->qps; l = l->next) {
		struct sv_qp *qp = sv_container(l, struct sv_qp, link);

		if (qp->scq == cq || qp->rcq == cq) {
			pthread_mutex_unlock(&ctx->mu);
			return EBUSY;
		}
	}
	ctx->ncqs--;
	pthread_mutex_unlock(&ctx->mu);
	if (c->channel)
		__atomic_sub_fetch(&c->channel->refcnt, 1, __ATOMIC_RELAXED);
	free(cq->ring);
	free(cq);
	return 0;
}
