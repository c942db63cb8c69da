// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_conn's storm (--qps N, docs/conn.md): each transaction connects N
 * RC QPs through the RDMA CM at once, each step over all N before the
 * next, as rdma-core's cmtime does: the client starts the step on every
 * connection (rdma_resolve_addr on N new ids, then N rdma_connect, ...),
 * then takes the N events (or completions) as they come, each timing its
 * connection from its start to its completion.  One wait serves every
 * connection: the CM's events come through the session's one channel,
 * each naming its id, whose context is its slot's index + 1, and the
 * completions through the one CQ, each work request's id the
 * transaction's number and the slot.
 *
 * The server takes the client's N requests (its host and token only; at
 * most N early ones of the next storm are queued, the rest refused),
 * makes a QP on each, posts its receive, accepts, and waits for all N to
 * be ESTABLISHED; answers each request as it comes (a connection is done
 * with first_msg once its answer is posted: the client, which has it,
 * may disconnect before the answer's completion comes, which is then a
 * flushed one, and is ignored); disconnects each as the client's DREQ
 * comes (one that comes during first_msg is kept for that step); and
 * destroys them.  A connection that
 * fails drops the storm (TP_SOFT: its connections are destroyed, the
 * next storm served), as one does without --qps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_rcconn.h"

#define SLOT_BITS 16 /* a work request's id: transaction << 16 | slot */
#define WANT_SEND 1
#define WANT_RECV 2
#define NO_EVENT (-1)

_Static_assert(RCC_STORM_MAX < (1u << SLOT_BITS), "a slot fits its bits");

int rcc_storm_alloc(struct tsess *s, struct rcc_priv *r, char *err,
		    size_t errlen)
{
	uint32_t n = s->p.qps;

	r->nslot = r->nqueue = 0;
	if (n < 2)
		return 0;
	r->slot = calloc(n, sizeof(*r->slot));
	r->queue = calloc(n, sizeof(*r->queue));
	if (!r->slot || !r->queue)
		return seterr(err, errlen,
			      "out of memory for a storm of %u connections", n);
	r->nslot = n;
	return 0;
}

/* Every slot's QP and id destroyed (a connected one disconnected first,
 * without waiting), and what their work requests left in the CQ. */
static void storm_drop(struct rcc_priv *r)
{
	struct ibv_wc wc[16];

	for (uint32_t j = 0; j < r->nslot; j++) {
		struct rcc_slot *sl = &r->slot[j];

		if (sl->id && sl->connected)
			rdma_disconnect(sl->id);
		if (sl->id && sl->id->qp)
			rdma_destroy_qp(sl->id);
		if (sl->id)
			rdma_destroy_id(sl->id);
		sl->id = NULL;
		sl->connected = false;
	}
	while (r->v.cq && ibv_poll_cq(r->v.cq, 16, wc) > 0)
		;
}

void rcc_storm_free(struct rcc_priv *r)
{
	if (r->slot)
		storm_drop(r);
	for (uint32_t i = 0; i < r->nqueue; i++) {
		rdma_reject(r->queue[i], NULL, 0);
		rdma_destroy_id(r->queue[i]);
	}
	free(r->slot);
	free(r->queue);
	r->slot = NULL;
	r->queue = NULL;
	r->nslot = r->nqueue = 0;
}

/* Post slot j's receive of msg_size bytes, or its send. 0 or errno. */
static int slot_post(struct tsess *s, struct rcc_priv *r, uint32_t j,
		     bool send)
{
	struct verbs_priv *v = &r->v;
	struct ibv_sge sg = { (uintptr_t)v->mem, s->p.msg_size, v->mr->lkey };
	uint64_t id = r->n << SLOT_BITS | j;
	struct ibv_recv_wr rw = { .wr_id = id, .sg_list = &sg, .num_sge = 1 },
			   *rbad;
	struct ibv_send_wr sw = { .wr_id = id, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *sbad;
	struct ibv_qp *qp = r->slot[j].id->qp;

	return send ? ibv_post_send(qp, &sw, &sbad) :
		      ibv_post_recv(qp, &rw, &rbad);
}

/* Slot j's step complete: its time, and one fewer to wait for. */
static void slot_done(struct rcc_priv *r, uint32_t j, uint64_t *slot_ns,
		      uint32_t *left)
{
	r->slot[j].done = true;
	slot_ns[j] = now_ns() - r->slot[j].t0;
	(*left)--;
}

/* A request (server): queued if it is the client's and there is room,
 * else refused.  Takes ev. */
static void storm_request(struct tsess *s, struct rcc_priv *r,
			  struct rdma_cm_event *ev)
{
	if (!s->server || r->nqueue >= r->nslot ||
	    !rcc_request_ok(s, r, ev)) {
		rcc_refuse(r, ev);
		return;
	}
	r->queue[r->nqueue++] = ev->id;
	rdma_ack_cm_event(ev);
}

/* The server takes the oldest queued request into slot j: its QP, its
 * receive posted, accepted.  0, or -1 with why filled. */
static int storm_accept(struct tsess *s, struct rcc_priv *r, uint32_t j,
			char *why, size_t len)
{
	struct rcc_slot *sl = &r->slot[j];
	struct rdma_conn_param cp;
	int e;

	sl->id = r->queue[0];
	memmove(r->queue, r->queue + 1, --r->nqueue * sizeof(*r->queue));
	sl->id->context = (void *)(uintptr_t)(j + 1);
	sl->t0 = now_ns();
	if (rcc_qp_on(s, &r->v, sl->id, 0, why, len))
		return -1;
	e = slot_post(s, r, j, false);
	if (e)
		return seterr(why, len, "failed to post a receive: %s",
			      strerror(e));
	rcc_conn_param(&cp);
	if (rdma_accept(sl->id, &cp))
		return seterr(why, len, "rdma_accept: %s", strerror(errno));
	return 0;
}

/* Take the CQ's completions: the number taken, or -1 with why filled.
 * The server answers each request as it is received. */
static int storm_poll(struct tsess *s, struct rcc_priv *r, uint64_t *slot_ns,
		      uint32_t *left, char *why, size_t len)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(r->v.cq, 16, wc);

	if (n < 0)
		return seterr(why, len, "failed to poll the CQ");
	for (int i = 0; i < n; i++) {
		uint32_t j = (uint32_t)(wc[i].wr_id & ((1u << SLOT_BITS) - 1));
		struct rcc_slot *sl;
		int e;

		if (wc[i].wr_id >> SLOT_BITS != r->n || j >= r->nslot)
			continue; /* an earlier storm's */
		sl = &r->slot[j];
		if (sl->done)
			continue; /* the server's answer, its request done */
		if (wc[i].status != IBV_WC_SUCCESS)
			return seterr(why, len, "QP %u: %s", j + 1,
				      ibv_wc_status_str(wc[i].status));
		if (wc[i].opcode == IBV_WC_RECV) {
			sl->wait &= (uint8_t)~WANT_RECV;
			if (s->server && (e = slot_post(s, r, j, true)))
				return seterr(why, len,
					      "QP %u: failed to post: %s",
					      j + 1, strerror(e));
		} else {
			sl->wait &= (uint8_t)~WANT_SEND;
		}
		if (!sl->wait && !sl->done)
			slot_done(r, j, slot_ns, left);
	}
	return n;
}

/* The slot ev's id is, or NULL (a request, an id no slot holds). */
static struct rcc_slot *slot_of(struct rcc_priv *r,
				const struct rdma_cm_event *ev)
{
	uintptr_t j = (uintptr_t)ev->id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST || j == 0 ||
	    j > r->nslot || r->slot[j - 1].id != ev->id)
		return NULL;
	return &r->slot[j - 1];
}

/*
 * An event of slot sl: complete it if it is the one its step wants (the
 * server disconnects on a DISCONNECTED; a DISCONNECTED during first_msg
 * is kept for the next step).  0, or -1 with why filled.
 */
static int slot_event(struct tsess *s, struct rcc_priv *r,
		      struct rcc_slot *sl, int want, int got, int status,
		      uint64_t *slot_ns, uint32_t *left, char *why,
		      size_t len)
{
	uint32_t j = (uint32_t)(sl - r->slot);

	if (got == RDMA_CM_EVENT_DISCONNECTED) {
		sl->connected = false;
		if (s->server)
			rdma_disconnect(sl->id); /* the DREP */
		if (want == NO_EVENT && s->server) {
			sl->early = true;
			return 0;
		}
	}
	if (got == want && !sl->done) {
		sl->connected |= got == RDMA_CM_EVENT_ESTABLISHED;
		slot_done(r, j, slot_ns, left);
		return 0;
	}
	if (got == RDMA_CM_EVENT_REJECTED)
		return seterr(why, len,
			      "QP %u: the server rejected the connection",
			      j + 1);
	return seterr(why, len, "QP %u: %s (status %d) instead of %s", j + 1,
		      rdma_event_str((enum rdma_cm_event_type)got), status,
		      want == NO_EVENT ? "its completions" :
		      rdma_event_str((enum rdma_cm_event_type)want));
}

/*
 * Wait until every slot not done has its event want (NO_EVENT: its
 * completions), each one's time into slot_ns; the server's connect also
 * fills the slots from the requests as they come.  1, 0 (the timer ended
 * the server's wait), or -1 with why filled.
 */
static int storm_wait(struct tsess *s, struct rcc_priv *r, int want,
		      uint64_t *slot_ns, char *why, size_t len)
{
	struct verbs_priv *v = &r->v;
	uint64_t deadline = now_ns() + s->p.timeout;
	bool cq = want == NO_EVENT;
	bool take = s->server && want == RDMA_CM_EVENT_ESTABLISHED;
	uint32_t left = 0, taken = take ? 0 : r->nslot;

	for (uint32_t j = 0; j < r->nslot; j++)
		left += !r->slot[j].done;
	while (left) {
		struct rdma_cm_event *ev;
		struct rcc_slot *sl;
		int w, got, st;

		if (taken < r->nslot && r->nqueue) {
			if (storm_accept(s, r, taken, why, len))
				return -1;
			taken++;
			continue;
		}
		if (cq) {
			w = storm_poll(s, r, slot_ns, &left, why, len);
			if (w < 0)
				return -1;
			if (w > 0)
				continue;
			if (!v->armed) {
				if (ibv_req_notify_cq(v->cq, 0))
					return seterr(why, len,
						      "failed to arm the CQ");
				v->armed = true;
				continue; /* one more poll: one before it */
			}
		}
		w = rcc_wait(s, v, cq, deadline, &ev);
		if (w < 0) {
			int e = errno;

			seterr(why, len, "%s", rcc_wait_why(e));
			errno = e;
			return -1;
		}
		if (w == 0)
			return 0;
		if (w != W_EVENT)
			continue;
		sl = slot_of(r, ev);
		if (!sl) {
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				storm_request(s, r, ev);
			else
				rdma_ack_cm_event(ev); /* an id gone */
			continue;
		}
		got = ev->event;
		st = ev->status;
		rdma_ack_cm_event(ev);
		if (slot_event(s, r, sl, want, got, st, slot_ns, &left, why,
			       len))
			return -1;
	}
	return 1;
}

/* Start the client's step on slot j: 0, or -1 with why filled. */
static int client_start(struct tsess *s, struct rcc_priv *r,
			enum rcc_step step, uint32_t j, char *why, size_t len)
{
	struct verbs_priv *v = &r->v;
	struct rcc_slot *sl = &r->slot[j];
	int e;

	switch (step) {
	case RCC_ADDR:
		return rcc_start_addr(s, r, &sl->id,
				      (void *)(uintptr_t)(j + 1), why, len);
	case RCC_ROUTE:
		if (sl->id->verbs != v->ctx)
			return seterr(why, len,
				      "the RDMA CM moved the connection to another device");
		if (rdma_resolve_route(sl->id, rcc_timeout_ms(s)))
			return seterr(why, len, "%s", strerror(errno));
		return 0;
	case RCC_CONNECT:
		return rcc_start_connect(r, sl->id, why, len);
	case RCC_MSG:
		sl->wait = WANT_SEND | WANT_RECV;
		e = slot_post(s, r, j, false);
		if (!e)
			e = slot_post(s, r, j, true);
		return e ? seterr(why, len, "failed to post: %s", strerror(e)) :
			   0;
	case RCC_DISC:
		sl->connected = false;
		if (rdma_disconnect(sl->id))
			return seterr(why, len, "%s", strerror(errno));
		return 0;
	default:
		return seterr(why, len, "internal error: step %d", (int)step);
	}
}

static const int step_event[] = {
	[RCC_ADDR] = RDMA_CM_EVENT_ADDR_RESOLVED,
	[RCC_ROUTE] = RDMA_CM_EVENT_ROUTE_RESOLVED,
	[RCC_CONNECT] = RDMA_CM_EVENT_ESTABLISHED,
	[RCC_MSG] = NO_EVENT,
	[RCC_DISC] = RDMA_CM_EVENT_DISCONNECTED,
};

/* The client's step: started on every slot, then waited for; create_qp
 * and destroy are done on each in turn.  1, or -1 with why filled. */
static int client_storm(struct tsess *s, struct rcc_priv *r,
			enum rcc_step step, uint64_t *slot_ns, char *why,
			size_t len)
{
	char w[160];

	if (step == RCC_ADDR)
		r->n++;
	for (uint32_t j = 0; j < r->nslot; j++) {
		struct rcc_slot *sl = &r->slot[j];

		sl->t0 = now_ns();
		sl->done = false;
		if (step == RCC_CREATE || step == RCC_DESTROY) {
			if (step == RCC_DESTROY) {
				rdma_destroy_qp(sl->id);
				rdma_destroy_id(sl->id);
				sl->id = NULL;
			} else if (rcc_qp_on(s, &r->v, sl->id, 0, w,
					     sizeof(w))) {
				return seterr(why, len, "QP %u: %s", j + 1, w);
			}
			slot_ns[j] = now_ns() - sl->t0;
			continue;
		}
		if (client_start(s, r, step, j, w, sizeof(w)))
			return seterr(why, len, "QP %u: %s", j + 1, w);
	}
	if (step == RCC_CREATE || step == RCC_DESTROY) {
		if (step == RCC_DESTROY)
			storm_drop(r); /* the CQ's flushed entries */
		return 1;
	}
	return storm_wait(s, r, step_event[step], slot_ns, why, len);
}

/* The server's step over the storm: 1, 0 (the timer), TP_SOFT (a
 * connection failed: the storm dropped), or TP_FATAL (none came). */
static int server_storm(struct tsess *s, struct rcc_priv *r,
			enum rcc_step step, uint64_t *slot_ns, char *err,
			size_t errlen)
{
	char why[200];
	int rc;

	if (step < RCC_CONNECT)
		return 1; /* the client's alone */
	if (step == RCC_DESTROY) {
		storm_drop(r);
		return 1;
	}
	if (step == RCC_CONNECT)
		r->n++;
	for (uint32_t j = 0; j < r->nslot; j++) {
		struct rcc_slot *sl = &r->slot[j];

		sl->done = step == RCC_DISC && sl->early;
		sl->early = false;
		sl->wait = WANT_RECV;
	}
	rc = storm_wait(s, r, step_event[step], slot_ns, why, sizeof(why));
	if (rc >= 0)
		return rc;
	if (step == RCC_CONNECT && !r->slot[0].id &&
	    (errno == ECONNRESET || errno == ETIMEDOUT))
		return seterr(err, errlen, "%s",
			      errno == ECONNRESET ?
				      "the client went away during the test" :
				      "no transaction from the client within the timeout: the client stalled");
	storm_drop(r); /* gone, stalled or failed: serve the next storm */
	return TP_SOFT;
}

int rcc_storm(struct tsess *s, int step, uint64_t *slot_ns, char *err,
	      size_t errlen)
{
	struct rcc_priv *r = s->priv;
	char why[200];

	if (s->server)
		return server_storm(s, r, (enum rcc_step)step, slot_ns, err,
				    errlen);
	if (client_storm(s, r, (enum rcc_step)step, slot_ns, why,
			 sizeof(why)) < 0)
		return seterr(err, errlen, "transaction %llu: %s failed: %s",
			      (unsigned long long)r->n, rcc_names.name[step],
			      why);
	return 1;
}
