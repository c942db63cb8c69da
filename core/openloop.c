// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open-loop latency: --rate on a latency test (docs/openloop.md).
 *
 * The initiator (the client) sends request i at its intended time (the
 * schedule of lib/olsched.h: constant or Poisson arrivals), whether or not
 * earlier requests were answered, each carrying the low bytes of its
 * sequence number; the responder (the server) answers every message as it
 * comes, echoing it.  A request's round trip runs from its INTENDED send
 * time to its answer, so a stall of either end counts for every request it
 * delayed (no coordinated omission).  Requests outstanding are bounded by
 * what the sequence bytes can tell apart (ol_window()); a full window
 * holds the next send back, which makes it late, never untimed.
 *
 * Ending, never hanging: the initiator stops sending when its time (or
 * count) is up and drains answers for at most OL_DRAIN_NS, its timer
 * disarmed and the transport's waits no longer cut short by it; then it
 * says "test done" on the control connection (core/session.c).  The
 * responder answers until that word (or the client going away) ends its
 * window; its own timer, armed for its time plus OL_SERVER_GRACE, ends it
 * regardless, and the server's supervision bounds the rest.
 *
 * Written once over the transport's post() and poll(), like run_pingpong,
 * and its rx_data() and tx_data(): an answer's sequence bytes are read
 * from the payload of the receive that brought it, a request's written
 * where its send goes from.  Sockets have one message buffer (a poll
 * returns one receive, read before the next); the verbs transports
 * (TF_SLOTS) give each receive and send a slot of their buffer and size
 * their queues for the window, told by tparams.slots before open(): the
 * window is then at most what they allow (s->slots), and both ends keep
 * all of their receives posted from the start (loop_prep()), each posted
 * again once its message was read.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "transports/transport.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "lib/olsched.h"
#include "measure.h"
#include "measure_int.h"

/* A lossy transport: a request unanswered this long after it left is
 * lost (a late answer is then ignored).  Also the drain.  From when it
 * left, not when it was due: after a stall (a full window waiting out a
 * loss) the requests sent late in a burst would else be written off
 * before their answers could be read. */
#define OL_LOSS_NS (500 * 1000000ULL)
#define OL_DRAIN_NS OL_LOSS_NS
/* Blocked in a send: how long to wait for answers before trying again. */
#define OL_AGAIN_NS (50 * 1000ULL)
#define MS 1000000ULL

static const uint64_t above_ns[OL_ABOVE_N] = { 1 * MS, 10 * MS, 100 * MS };

/* One request outstanding: due 0 once it is answered or written off. */
struct ol_slot {
	uint64_t seq;
	uint64_t due; /* ns: its intended send time */
	uint64_t left; /* ns: when it was sent */
};

bool loop_open(const struct test_desc *t, const struct tparams *p)
{
	return p->arrivals != OL_CLOSED &&
	       (t->loop == LOOP_PINGPONG ||
		(t->loop == LOOP_ONESIDED && t->op == OP_READ)) &&
	       t->measure == MEAS_LATENCY &&
	       (t->uses & PAR_BIT(PAR_MSG_RATE)) && (p->rate || p->msg_rate);
}

uint32_t loop_open_slots(const struct test_desc *t, const struct tparams *p)
{
	return loop_open(t, p) ? ol_window(ol_seq_bytes(p->msg_size)) : 0;
}

/* Requests in flight at most: what the sequence bytes tell apart, and
 * what a transport with slots allows. */
static uint32_t ol_win(const struct tsess *s, unsigned nb)
{
	uint32_t w = ol_window(nb);

	if ((s->tp->flags & TF_SLOTS) && s->slots < w)
		w = s->slots ? s->slots : 1;
	/* a power of two: the ring's index is a mask */
	while (w & (w - 1))
		w &= w - 1;
	return w;
}

/* Requests/s: --rate as a message rate, or a bandwidth over the size. */
static uint64_t ol_rate(const struct tparams *p)
{
	uint64_t r;

	if (p->msg_rate)
		return p->msg_rate;
	r = p->rate / (p->msg_size ? p->msg_size : 1);
	return r ? r : 1;
}

/* Answer every message as it comes: the responder's side.  The answer
 * carries the request's sequence bytes (where the transport has slots,
 * copied from the request's to the answer's). */
static int ol_responder(struct lrun *lr, char *err, size_t errlen)
{
	struct tcomp c[POLL_BATCH];
	unsigned nb = ol_seq_bytes(lr->s->p.msg_size);

	while (!fired && !lr->s->ended) {
		uint32_t nrecv = 0;
		int k = loop_poll_some(lr, c, UINT64_MAX, err, errlen);
		char *rx, *tx;

		if (k < 0)
			return -1;
		/* k == 0: quiet for the idle limit; the client's word, its
		 * going away or our timer ends the test. */
		for (int i = 0; i < k; i++) {
			if (c[i].op != OP_RECV)
				continue;
			nrecv++;
			loop_count_recv(lr, &c[i]);
			if (c[i].status != TC_OK)
				continue;
			rx = tsess_rx_data(lr->s, &c[i]);
			tx = tsess_tx_data(lr->s);
			if (tx != rx)
				memcpy(tx, rx, nb);
			if (loop_post_sends(lr, 1, err, errlen) == -1)
				return -1;
		}
		if (loop_repost_recvs(lr, nrecv, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* The initiator's state. */
struct ol_run {
	struct lrun *lr;
	struct ol_stat *o;
	struct ol_slot *ring;
	uint32_t win; /* a power of two */
	unsigned nb; /* sequence bytes per message */
	uint64_t next; /* the next request's sequence number */
	uint64_t oldest; /* the oldest not yet answered or written off */
	uint64_t highest; /* one past the highest answered */
	/* The transport's receives have slots (TF_SLOTS): all of them stay
	 * posted, each again once read, so a lost answer (UD, UC) leaves
	 * none behind; else one receive (a socket's credit) per request. */
	bool slotted;
	/* rc_rdma_read_lat: a request is an RDMA read, its answer the
	 * read's completion; one RC send queue completes in the order
	 * posted, so the answer's sequence number is the count of reads
	 * completed before it (the server takes no part). */
	bool reads;
	uint64_t done; /* reads completed */
	/* The due request could not be sent without waiting (a stream's
	 * buffers full: s->nowait); its receive is posted (recv_ahead). */
	bool blocked, recv_ahead;
};

/* Move oldest past what is resolved; a lossy transport writes off what
 * waited past the loss wait.  now 0: write off nothing. */
static void ol_advance(struct ol_run *r, uint64_t now)
{
	while (r->oldest < r->next) {
		struct ol_slot *sl = &r->ring[r->oldest & (r->win - 1)];

		if (sl->due && now && lossy(r->lr) && now > sl->left &&
		    now - sl->left >= OL_LOSS_NS) {
			r->o->lost++;
			sl->due = 0;
		}
		if (sl->due)
			break;
		r->oldest++;
	}
}

/* One answer: find its request, time it from its intended send. */
static void ol_answer(struct ol_run *r, const struct tcomp *c)
{
	struct lrun *lr = r->lr;
	uint64_t seq, rtt, now;
	struct ol_slot *sl;

	if (r->reads)
		loop_count_onesided(lr, c);
	else
		loop_count_recv(lr, c);
	seq = r->reads ? r->done++ : 0; /* a read's place in the queue */
	if (c->status != TC_OK)
		return;
	if (!r->reads)
		seq = ol_seq_get(tsess_rx_data(lr->s, c), r->nb, r->oldest);
	sl = &r->ring[seq & (r->win - 1)];
	if (seq >= r->next || sl->seq != seq || !sl->due)
		return; /* the answer to a request written off as lost */
	now = now_ns();
	rtt = now > sl->due ? now - sl->due : 0;
	if (lr->hist)
		hist_add(lr->hist, rtt);
	for (int i = 0; i < OL_ABOVE_N; i++)
		if (rtt > above_ns[i])
			r->o->above[i]++;
	r->o->answered++;
	if (seq + 1 < r->highest)
		r->o->out_of_order++;
	else
		r->highest = seq + 1;
	sl->due = 0;
}

/*
 * Send every request that is due (the window allowing).  Returns 1 when
 * the test is over (the count sent or the peer gone), 0, or -1 with err.
 */
static int ol_send_due(struct ol_run *r, struct ol_sched *sc, uint64_t *due,
		       uint64_t interval, char *err, size_t errlen)
{
	struct lrun *lr = r->lr;
	uint64_t now = now_ns();

	while (*due <= now && r->next - r->oldest < r->win) {
		struct ol_slot *sl = &r->ring[r->next & (r->win - 1)];
		int k;

		if (count_reached(lr, r->o->sent))
			return 1;
		if (r->reads) {
			k = loop_post(lr, OP_READ, 1, err, errlen);
			if (k < 0)
				return -1;
		} else {
			if (!r->slotted && !r->recv_ahead &&
			    loop_post(lr, OP_RECV, 1, err, errlen) < 0)
				return -1; /* a receive for its answer */
			r->recv_ahead = false;
			ol_seq_put(tsess_tx_data(lr->s), r->nb, r->next);
			k = loop_post_sends(lr, 1, err, errlen);
			if (k == -1)
				return -1;
			/* No room to send now: read answers, then try again
			 * (its receive is posted already). */
			r->blocked = k == SEND_AGAIN;
			if (r->blocked) {
				r->recv_ahead = !r->slotted;
				return 0;
			}
		}
		if (k == 0)
			return 1;
		sl->seq = r->next;
		sl->due = k == SEND_FAILED ? 0 : *due;
		sl->left = now;
		if (k == SEND_FAILED)
			r->o->lost++; /* never left: no answer can come */
		if (now - *due > interval)
			r->o->late++;
		r->o->sent++;
		r->next++;
		*due = ol_sched_next(sc);
		now = now_ns();
	}
	return 0;
}

/* How long to wait for an answer now (ns). */
static uint64_t ol_wait(const struct ol_run *r, uint64_t due, uint64_t end,
			bool draining)
{
	uint64_t now = now_ns(), w = UINT64_MAX;

	if (draining)
		w = end > now ? end - now : 0;
	else if (r->blocked)
		w = OL_AGAIN_NS;
	else if (r->next - r->oldest < r->win)
		w = due > now ? due - now : 0;
	if (lossy(r->lr) && r->oldest < r->next) {
		uint64_t lost_at = r->ring[r->oldest & (r->win - 1)].left +
				   OL_LOSS_NS;

		if (lost_at > now && lost_at - now < w)
			w = lost_at - now;
		else if (lost_at <= now)
			w = 0;
	}
	return w;
}

static int ol_initiator(struct lrun *lr, char *err, size_t errlen)
{
	struct tsess *s = lr->s;
	const volatile sig_atomic_t *stop = s->stop;
	static volatile sig_atomic_t never; /* the drain's stop flag: 0 */
	struct tcomp c[POLL_BATCH];
	struct ol_run r = { .lr = lr, .o = &lr->ol };
	struct ol_sched sc;
	uint64_t rate = ol_rate(&s->p), interval = ol_interval(rate), due;
	uint64_t end = 0, now, wait;
	bool draining = false;
	uint32_t nrecv;
	int rc = -1, slack;

	/* Sleeping until a request is due, wake on time: the default
	 * timer slack (50 us) would make every send that late. */
	slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	r.nb = ol_seq_bytes(s->p.msg_size);
	r.win = ol_win(s, r.nb);
	r.reads = s->t->op == OP_READ;
	r.slotted = (s->tp->flags & TF_SLOTS) && s->slots && !r.reads;
	r.ring = xcalloc(r.win, sizeof(*r.ring));
	s->nowait = true;
	lr->ol.arrivals = s->p.arrivals;
	lr->ol.rate = rate;
	now = now_ns();
	ol_sched_init(&sc, (enum ol_arrivals)s->p.arrivals, rate, now,
		      now ^ (uint64_t)(uintptr_t)r.ring);
	due = ol_sched_next(&sc);
	for (;;) {
		int k;

		if (!draining && (fired || s->ended)) {
			/* The sending phase is the window; then drain. */
			measure_stop(&lr->st);
			if (!lr->shared_timer)
				measure_disarm();
			if (s->ended)
				break;
			draining = true;
			end = now_ns() + OL_DRAIN_NS;
			s->stop = &never;
		}
		ol_advance(&r, now_ns());
		if (draining && (r.oldest == r.next || now_ns() >= end ||
				 s->ended))
			break;
		if (!draining) {
			k = ol_send_due(&r, &sc, &due, interval, err, errlen);
			if (k < 0)
				goto out;
			if (k > 0) {
				measure_end_now(); /* drain next round */
				continue;
			}
		}
		wait = ol_wait(&r, due, end, draining);
		k = loop_poll_some(lr, c, wait, err, errlen);
		if (k < 0)
			goto out;
		/* A full window and nothing for the idle limit: as the
		 * closed loop, the server stalled (a count run has no timer
		 * to end it). */
		if (k == 0 && wait == UINT64_MAX && !fired && !s->ended) {
			loop_idle_error(lr, "received", err, errlen);
			goto out;
		}
		nrecv = 0;
		for (int i = 0; i < k; i++)
			if (c[i].op == (r.reads ? OP_READ : OP_RECV)) {
				ol_answer(&r, &c[i]);
				nrecv++;
			}
		if (r.slotted && !draining &&
		    loop_repost_recvs(lr, nrecv, err, errlen) < 0)
			goto out;
	}
	ol_advance(&r, 0);
	for (uint64_t q = r.oldest; q < r.next; q++)
		if (r.ring[q & (r.win - 1)].due)
			lr->ol.lost++; /* unanswered by the end of the drain */
	rc = 0;
out:
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	s->stop = stop;
	s->nowait = false;
	measure_stop(&lr->st);
	free(r.ring);
	return rc;
}

int run_openloop(struct lrun *lr, char *err, size_t errlen)
{
	return lr->s->server ? ol_responder(lr, err, errlen)
			     : ol_initiator(lr, err, errlen);
}
