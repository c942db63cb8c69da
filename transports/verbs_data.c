// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data path of the verbs transports: post() builds work requests
 * (0.4.11's wr_ids: 1 send, 2 receive, 3 RDMA; atomics use their slot;
 * with --qps the QP's index in the upper 32 bits) and chains up to
 * VERBS_BATCH per call; poll() busy-polls the CQ (or each CQ in turn), or
 * sleeps on the completion channel, bounded by the wait, the core's timer
 * (SIGALRM interrupts the sleep) and the peer giving up (watch_fd).  Any
 * completion with an error status is fatal (spec §3.3).  Several QPs
 * (verbs_qps.c) are walked by the same code as one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "verbs_int.h"

#define WR_SEND 1
#define WR_RECV 2
#define WR_RDMA 3

/* The QP index carried in a wr_id (--qps; 0 with one QP). */
static uint64_t qp_tag(uint32_t qi)
{
	return (uint64_t)qi << 32;
}

/*
 * Receives go to the SRQ, or each to the QP owed it longest (several
 * QPs: one per call, as each goes to its own QP), chained up to
 * VERBS_BATCH.
 */
static int post_recv(struct tsess *s, struct verbs_priv *v, uint32_t n,
		     char *err, size_t errlen)
{
	struct ibv_recv_wr w[VERBS_BATCH], *bad;
	struct ibv_sge sg[VERBS_BATCH];
	uint32_t done = 0, batch = v->rx_ring ? 1 : VERBS_BATCH;
	uint32_t len = s->p.msg_size + v->k->rx_off;

	while (done < n) {
		uint32_t k = n - done < batch ? n - done : batch;
		uint32_t qi = v->rx_ring ? verbs_qp_recv_next(v) : 0;
		int rc;

		for (uint32_t i = 0; i < k; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].wr_id = WR_RECV | qp_tag(qi);
			sg[i].addr = (uintptr_t)v->mem;
			if (v->nslots) { /* open loop: a slot each */
				w[i].wr_id = verbs_slot_recv(v, WR_RECV);
				sg[i].addr = (uintptr_t)verbs_slot_addr(
					v, w[i].wr_id);
			}
			sg[i].length = len;
			sg[i].lkey = v->mr->lkey;
			w[i].sg_list = &sg[i];
			w[i].num_sge = len ? 1 : 0;
			w[i].next = i + 1 < k ? &w[i + 1] : NULL;
		}
		bad = NULL;
		rc = v->srq ? ibv_post_srq_recv(v->srq, w, &bad) :
			      ibv_post_recv(v->qps[qi], w, &bad);
		if (rc) {
			seterr(err, errlen, "failed to post receive: %s",
				  strerror(rc > 0 ? rc : errno));
			return TP_FATAL;
		}
		done += k;
	}
	return (int)n;
}

/* Open loop: a send, or a write with immediate into the peer's slot of
 * the same index, goes from the next send slot (verbs_slots.c). */
static void slot_send(struct verbs_priv *v, enum op op, struct ibv_send_wr *w,
		      struct ibv_sge *sg)
{
	char *at;
	uint32_t j = verbs_slot_send(v, &at);

	sg->addr = (uintptr_t)at + (op == OP_SEND ? v->k->rx_off : 0);
	if (op == OP_WRITE_IMM) {
		w->wr.rdma.remote_addr = v->peer.vaddr + j * v->slot_len;
		w->imm_data = htonl(j);
	}
}

/* One send-queue WR for wr on QP qi; sg is its scatter entry. */
static int build_send(struct tsess *s, struct verbs_priv *v,
		      const struct twr *wr, uint32_t qi, struct ibv_send_wr *w,
		      struct ibv_sge *sg, char *err, size_t errlen)
{
	uint32_t len = s->p.msg_size;

	memset(w, 0, sizeof(*w));
	/* A send starts where a receive's data does (UD: after its GRH):
	 * an echo echoes. */
	sg->addr = (uintptr_t)v->mem + (wr->op == OP_SEND ? v->k->rx_off : 0);
	sg->length = len;
	sg->lkey = v->mr->lkey;
	w->sg_list = sg;
	w->num_sge = len ? 1 : 0;
	w->send_flags = 0; /* signalled or not: verbs_post() decides */
	switch (wr->op) {
	case OP_SEND:
		w->wr_id = WR_SEND;
		w->opcode = IBV_WR_SEND;
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		w->wr_id = WR_RDMA;
		w->opcode = wr->op == OP_WRITE ? IBV_WR_RDMA_WRITE :
						 IBV_WR_RDMA_WRITE_WITH_IMM;
		w->imm_data = 0;
		w->wr.rdma.remote_addr = v->peer.vaddr;
		w->wr.rdma.rkey = v->peer.rkey;
		v->write_imm = wr->op == OP_WRITE_IMM;
		break;
	case OP_READ:
		w->wr_id = WR_RDMA;
		w->opcode = IBV_WR_RDMA_READ;
		w->wr.rdma.remote_addr = v->peer.vaddr;
		w->wr.rdma.rkey = v->peer.rkey;
		break;
	case OP_FADD:
	case OP_CSWAP:
		if ((uint64_t)wr->slot * 8 + 8 > v->reglen) {
			seterr(err, errlen,
				  "internal error: atomic slot %u outside the %zu-byte buffer",
				  wr->slot, v->reglen);
			return -1;
		}
		w->wr_id = wr->slot;
		w->opcode = wr->op == OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD :
						IBV_WR_ATOMIC_CMP_AND_SWP;
		w->wr.atomic.remote_addr = v->peer.vaddr;
		w->wr.atomic.rkey = v->peer.rkey;
		w->wr.atomic.compare_add = wr->compare;
		w->wr.atomic.swap = wr->swap;
		sg->addr = (uintptr_t)v->mem + 8u * wr->slot;
		sg->length = 8;
		w->num_sge = 1;
		w->wr_id |= qp_tag(qi);
		return 0;
	default:
		seterr(err, errlen, "internal error: op %d is not a send",
			  (int)wr->op);
		return -1;
	}
	if (v->nslots && (wr->op == OP_SEND || wr->op == OP_WRITE_IMM))
		slot_send(v, wr->op, w, sg);
	if (wr->op != OP_READ && len && len <= s->max_inline)
		w->send_flags |= IBV_SEND_INLINE;
	if (v->k->address)
		v->k->address(v, w, qi);
	w->wr_id |= qp_tag(qi);
	return 0;
}

/*
 * The WR built for QP qi's turn, made the next QP's: a WR of the same
 * call differs from the one before only in its wr_id (made afresh: its
 * kind and QP; what the signalling adds comes after) and the peer's
 * address where the kind gives one, and in being signalled, which
 * verbs_post() sets.  Atomics and open-loop WRs take a slot each and are
 * built every time (wr_reusable()).
 */
static void wr_retarget(const struct verbs_priv *v, struct ibv_send_wr *w,
			enum op op, uint32_t qi)
{
	if (v->k->address)
		v->k->address(v, w, qi);
	w->wr_id = (op == OP_SEND ? WR_SEND : WR_RDMA) | qp_tag(qi);
}

static bool wr_reusable(const struct verbs_priv *v, enum op op)
{
	return !v->nslots && (op == OP_SEND || op == OP_WRITE ||
			      op == OP_WRITE_IMM || op == OP_READ);
}

static uint32_t min3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * Send-queue WRs go out in chains of at most v->plist (--post_list,
 * default VERBS_BATCH) per ibv_post_send; several QPs take turns (round
 * robin), each v->turn WRs at a time as far as its queue has room.  With
 * --cq_moderation only every Nth WR of a QP, and the last of each call or
 * of a full queue, asks for a completion; cq_take() hands the loop one
 * completion per WR all the same.
 */
int verbs_post(struct tsess *s, const struct twr *wr, uint32_t n, char *err,
	       size_t errlen)
{
	struct verbs_priv *v = s->priv;
	struct ibv_send_wr *w = v->swr, *bad;
	struct ibv_sge *sg = v->ssg;
	uint32_t done = 0, built = 0; /* w[0, built): this call's, reusable */

	if (!v->qp || !v->mr || !w || !sg) {
		seterr(err, errlen, "internal error: post on a closed session");
		return TP_FATAL;
	}
	if (wr->op == OP_RECV)
		return post_recv(s, v, n, err, errlen);
	while (done < n) {
		uint32_t room, k;
		int qi = verbs_qp_pick(v, &room), rc;

		if (qi < 0)
			break; /* every queue is full: the rest waits */
		k = min3(n - done, v->plist, v->turn < room ? v->turn : room);
		for (uint32_t i = 0; i < k; i++) {
			if (i < built)
				wr_retarget(v, &w[i], wr->op, (uint32_t)qi);
			else if (build_send(s, v, wr, (uint32_t)qi, &w[i],
					    &sg[i], err, errlen))
				return TP_FATAL;
			if (verbs_mod_signal(v, (uint32_t)qi, &w[i],
					     done + i + 1 == n || i + 1 == room))
				w[i].send_flags |= IBV_SEND_SIGNALED;
			else
				w[i].send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
			w[i].next = i + 1 < k ? &w[i + 1] : NULL;
		}
		if (k > built && wr_reusable(v, wr->op))
			built = k;
		bad = NULL;
		rc = ibv_post_send(v->qps[qi], w, &bad);
		if (rc) {
			seterr(err, errlen, "failed to post %s: %s",
				  wr->op == OP_SEND ? "send" : "RDMA operation",
				  strerror(rc > 0 ? rc : errno));
			return TP_FATAL;
		}
		verbs_qp_posted(v, (uint32_t)qi, k, wr->op);
		done += k;
	}
	if (!done) {
		seterr(err, errlen,
		       "internal error: no QP's send queue has room");
		return TP_FATAL;
	}
	return (int)done;
}

static enum op wc_op(const struct verbs_priv *v, const struct ibv_wc *wc)
{
	switch (wc->opcode) {
	case IBV_WC_SEND:
		return OP_SEND;
	case IBV_WC_RDMA_WRITE:
		return v->write_imm ? OP_WRITE_IMM : OP_WRITE;
	case IBV_WC_RDMA_READ:
		return OP_READ;
	case IBV_WC_COMP_SWAP:
		return OP_CSWAP;
	case IBV_WC_FETCH_ADD:
		return OP_FADD;
	default: /* IBV_WC_RECV, IBV_WC_RECV_RDMA_WITH_IMM */
		return OP_RECV;
	}
}

/* One completion of op for each WR of a moderated run. */
static int hand_owed(struct tsess *s, struct verbs_priv *v, struct tcomp *c,
		     int max)
{
	int k = 0;

	for (; v->owed && k < max; v->owed--, k++) {
		c[k].op = v->owed_op;
		c[k].status = TC_OK;
		c[k].slot = 0;
		c[k].bytes = s->p.msg_size;
	}
	return k;
}

/*
 * Up to want completions into wc from the CQs, one after the other from
 * where the last poll stopped (one CQ: that one).  The count, or -1.
 */
static int cqs_poll(struct verbs_priv *v, int want, struct ibv_wc *wc)
{
	int got = 0;

	for (uint32_t k = 0; k < v->ncq && got < want; k++) {
		int n = ibv_poll_cq(v->cqs[v->cq_next], want - got, wc + got);

		if (n < 0)
			return -1;
		got += n;
		if (got < want) /* drained: the next one's turn */
			v->cq_next = v->cq_next + 1 < v->ncq ? v->cq_next + 1
							     : 0;
	}
	return got;
}

/* Poll the CQ(s) once: number of completions, or TP_FATAL. */
static int cq_take(struct tsess *s, struct verbs_priv *v, struct tcomp *c,
		   int max, char *err, size_t errlen)
{
	struct ibv_wc wc[VERBS_BATCH];
	int n, k = 0, stray = 0;

	if (v->owed)
		return hand_owed(s, v, c, max);
	n = cqs_poll(v, max < VERBS_BATCH ? max : VERBS_BATCH, wc);
	if (n < 0) {
		seterr(err, errlen, "failed to poll CQ");
		return TP_FATAL;
	}
	for (int i = 0; i < n; i++) {
		enum op op;
		uint32_t qi;
		bool lost, atomic;

		if (wc[i].status != IBV_WC_SUCCESS) {
			verbs_wc_error(s->t ? s->t->name : s->tp->name,
				       (int)wc[i].status, err, errlen);
			return TP_FATAL;
		}
		op = wc_op(v, &wc[i]);
		qi = verbs_qp_of(v, &wc[i]);
		lost = v->k->stray &&
		       v->k->stray(v, &wc[i], v->peer_qpns[qi]);
		verbs_qp_done(v, qi, op, lost);
		if (lost) {
			stray++;
			continue;
		}
		/* Moderated: a signalled send or RDMA stands for its run;
		 * the part of the runs beyond max comes with the next poll. */
		if (v->mod && op != OP_RECV) {
			v->owed_op = op;
			v->owed += verbs_mod_retire(v, &wc[i]) - 1;
		}
		atomic = op == OP_FADD || op == OP_CSWAP;
		c[k].op = op;
		c[k].status = TC_OK;
		c[k].slot = atomic ? (uint32_t)wc[i].wr_id :
			    op == OP_RECV && v->nslots ?
				     verbs_slot_of(v, &wc[i]) :
				     0;
		c[k].bytes = atomic ? 8 : s->p.msg_size;
		k++;
	}
	if (stray && post_recv(s, v, (uint32_t)stray, err, errlen) < 0)
		return TP_FATAL;
	if (n > 0 && (uint32_t)n > s->max_cqes)
		s->max_cqes = (uint32_t)n;
	if (v->owed && k < max)
		k += hand_owed(s, v, c + k, max - k);
	return k;
}

/* The peer gave up (urgent data or hang-up on the control socket)? */
static bool peer_gone(struct tsess *s, short revents)
{
	if (revents & (POLLPRI | POLLRDHUP | POLLHUP | POLLERR)) {
		s->ended = true;
		return true;
	}
	return false;
}

/*
 * Sleep until the completion channel is readable, the deadline passes
 * (UINT64_MAX: none), SIGALRM arrives or the peer gives up.  Returns 1
 * when readable, 0 otherwise.
 */
static int wait_channel(struct tsess *s, struct verbs_priv *v,
			uint64_t deadline)
{
	struct pollfd pf[2];
	struct timespec ts, *tp = NULL;
	nfds_t nf = 1;
	int rc;

	pf[0].fd = v->cc->fd;
	pf[0].events = POLLIN;
	pf[0].revents = 0;
	if (s->ch && s->ch->watch_fd >= 0) {
		pf[1].fd = s->ch->watch_fd;
		pf[1].events = POLLPRI | POLLRDHUP;
		pf[1].revents = 0;
		nf = 2;
	}
	if (deadline != UINT64_MAX) {
		uint64_t t = now_ns();
		uint64_t left = deadline > t ? deadline - t : 0;

		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		tp = &ts;
	}
	/* With the core's flag: look at it with SIGALRM blocked, and sleep
	 * with SIGALRM unblocked in one step (ppoll), so that an alarm just
	 * before the sleep still interrupts it. */
	if (s->stop) {
		sigset_t block, old, during;

		sigemptyset(&block);
		sigaddset(&block, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		if (*s->stop) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			return 0;
		}
		during = old;
		sigdelset(&during, SIGALRM);
		rc = ppoll(pf, nf, tp, &during);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	} else {
		rc = ppoll(pf, nf, tp, NULL);
	}
	if (rc <= 0) /* timed out, or interrupted by the timer (EINTR) */
		return 0;
	if (nf == 2 && peer_gone(s, pf[1].revents))
		return 0;
	return (pf[0].revents & POLLIN) ? 1 : 0;
}

int verbs_poll(struct tsess *s, struct tcomp *c, int max, uint64_t wait,
	       char *err, size_t errlen)
{
	struct verbs_priv *v = s->priv;
	uint64_t deadline = wait == UINT64_MAX ? UINT64_MAX : now_ns() + wait;
	unsigned spins = 0;

	if (!v->cq || max <= 0) {
		seterr(err, errlen, "internal error: poll on a closed session");
		return TP_FATAL;
	}
	if (deadline < wait) /* wrapped */
		deadline = UINT64_MAX;
	for (;;) {
		int n = cq_take(s, v, c, max, err, errlen);

		if (n)
			return n;
		if (wait == 0 || tsess_stopped(s) || s->ended)
			return 0;
		if (s->p.poll_mode) {
			/* busy: look at the clock (vDSO, cheap) every time,
			 * at the peer now and then */
			++spins;
			if (deadline != UINT64_MAX && now_ns() >= deadline)
				return 0;
			if (spins % 4096 == 0 && s->ch && s->ch->watch_fd >= 0) {
				struct pollfd pf = { s->ch->watch_fd,
						     POLLPRI | POLLRDHUP, 0 };

				if (poll(&pf, 1, 0) == 1 &&
				    peer_gone(s, pf.revents))
					return 0;
			}
			continue;
		}
		{
			struct ibv_cq *ecq;
			void *ectx;

			/*
			 * Ask for the event first (the channel is
			 * non-blocking) and sleep only if there is none: as
			 * for a program blocked in ibv_get_cq_event, the
			 * provider then knows that we wait (softverbs hands
			 * its work to its own thread at once).
			 */
			if (ibv_get_cq_event(v->cc, &ecq, &ectx)) {
				if (errno == EAGAIN || errno == EWOULDBLOCK) {
					if (!wait_channel(s, v, deadline))
						return 0;
					continue;
				}
				if (errno == EINTR)
					continue;
				seterr(err, errlen,
					  "failed to get a CQ event: %s",
					  strerror(errno));
				return TP_FATAL;
			}
			ibv_ack_cq_events(ecq, 1);
			/* Every CQ stays armed (open() armed them): this one
			 * again at once, and then its completions are taken
			 * (one that came before the arming raises no event,
			 * but the poll finds it). */
			if (ibv_req_notify_cq(ecq, 0)) {
				seterr(err, errlen, "failed to arm the CQ");
				return TP_FATAL;
			}
		}
	}
}
