/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The in-memory transport and the per-test fixture shared by test_loops.c
 * and test_loops_rdma.c, which test the measurement loops of
 * core/measure.c.  The transport's peer is simulated and scripted per
 * test: operations complete at once (or one per poll, or never), a
 * receiver's peer sends N messages and then goes quiet, ends the data path
 * or fails, a ping-pong peer echoes each message (or drops it, or answers
 * late, carrying the old sequence byte as a real echo would), reads
 * complete, atomics act on an emulated 8-byte word of the peer, and a
 * write-poll peer answers by writing its marker bytes into our buffer.
 * Each including file is one test program.
 */
#ifndef QPERF_LOOPS_MEM_H
#define QPERF_LOOPS_MEM_H

#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "core/measure.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "harness.h"
#include "transports/transport.h"

#define MEM_BUF (65536 + 64)
#define CQ_CAP 8192
#define RXQ_CAP 1024 /* above an open-loop window of 1-byte sequences */
#define MAX_CALLS_DEFAULT 2000000ULL
#define MEM_SLOT 64 /* bytes of a slot of the slotted transport */
#define MEM_SLOTS_MAX 16
#define MS 1000000ULL
#define VER_M 0x0123456789abcdefULL
#define ID_CLIENT 0x55
#define ID_SERVER 0xAA

/* What the peer does once it has nothing more to send. */
enum after {
	AFTER_QUIET, /* nothing arrives (a poll returns 0) */
	AFTER_ENDED, /* the peer closed: s->ended */
	AFTER_FATAL /* the poll fails */
};

struct comp {
	struct tcomp c;
	bool has_old; /* atomics: write old to buf + 8 * slot on delivery */
	uint64_t old;
};

struct arrival {
	bool has_seq; /* write seq to buf[rx_off] when it lands */
	unsigned char seq;
	bool late; /* an answer whose exchange the loop gave up on */
};

struct mem {
	/* The script. */
	bool lazy; /* a poll hands out at most one operation completion */
	bool never; /* operations never complete */
	uint64_t ret_at; /* the ret_at-th non-receive post returns ret_val */
	int ret_val;
	uint64_t stream_rx; /* messages the peer sends on its own */
	uint32_t rx_burst; /* at most this many arrivals per poll (0: all) */
	uint64_t rx_err_at; /* the rx_err_at-th arrival is an error */
	enum after after;
	uint64_t quiet_ns; /* a quiet poll with a finite wait takes this long */
	uint64_t poll_fatal_at; /* the poll_fatal_at-th poll fails */
	bool echo; /* ping-pong initiator: the peer answers every send */
	uint64_t drop[8], late[8]; /* exchanges (1-based) lost / answered late */
	uint64_t garble[8]; /* exchanges answered with a changed sequence */
	uint64_t requests; /* ping-pong responder: requests the peer sends */
	uint64_t wp_left; /* write poll: writes the peer still makes */
	uint64_t corrupt_at, corrupt_by; /* atomics: the word is changed by
					  * corrupt_by before op corrupt_at */
	uint64_t max_calls; /* runaway guard (0: default, UINT64_MAX: none) */
	/* > 0 (at most MEM_SLOTS_MAX): the slotted transport (TF_SLOTS):
	 * receive j lands in slot j (round robin), a send goes from the
	 * next send slot; receives posted beyond the slots are counted. */
	uint32_t slots;

	/* State and what was seen. */
	char buf[MEM_BUF];
	uint64_t calls, polls, op_posts, recv_posts;
	uint64_t posted[OP_CSWAP + 1], posted_ops, completed;
	uint64_t out_max, post_n_max;
	uint64_t credits, credits_max;
	struct comp cq[CQ_CAP];
	uint64_t cq_head, cq_tail;
	struct arrival rxq[RXQ_CAP];
	uint64_t rxq_head, rxq_tail;
	struct arrival held[8];
	int held_n;
	uint64_t arrived; /* receive completions handed out */
	uint64_t t_last; /* now_ns() when the last one was handed out */
	uint64_t quiet_polls, finite_waits;
	uint64_t exch, dropped, late_arrived, stale_posts;
	uint64_t req_sent, echo_ok, echo_bad;
	unsigned char last_seq;
	uint64_t wp_bad;
	uint64_t word, atomics;
	uint32_t rx_next, tx_next;
	uint64_t slot_over; /* receives posted beyond the slots */
};

static char *mem_slot(struct tsess *s, uint32_t j, bool send)
{
	struct mem *m = s->priv;

	return s->buf + ((send ? m->slots : 0) + j % m->slots) * MEM_SLOT +
	       s->rx_off;
}

static char *mem_rx_data(struct tsess *s, const struct tcomp *c)
{
	struct mem *m = s->priv;

	return m->slots ? mem_slot(s, c->slot, false) : s->buf + s->rx_off;
}

static char *mem_tx_data(struct tsess *s)
{
	struct mem *m = s->priv;

	return m->slots ? mem_slot(s, m->tx_next, true) : s->buf + s->rx_off;
}

static bool listed(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static void rxq_push(struct mem *m, struct arrival a)
{
	if (m->rxq_tail - m->rxq_head < RXQ_CAP)
		m->rxq[m->rxq_tail++ % RXQ_CAP] = a;
}

static bool runaway(struct mem *m, char *err, size_t errlen)
{
	uint64_t lim = m->max_calls ? m->max_calls : MAX_CALLS_DEFAULT;

	if (++m->calls <= lim)
		return false;
	seterr(err, errlen, "mem: runaway loop (%llu calls)",
	       (unsigned long long)m->calls);
	return true;
}

static int mem_open(struct tsess *s, char *err, size_t errlen)
{
	struct mem *m = s->priv;

	(void)err;
	(void)errlen;
	s->buf = m->buf;
	s->buflen = sizeof(m->buf);
	return 0;
}

static void mem_close(struct tsess *s)
{
	(void)s;
}

/* The peer sends the next ping-pong request, sequence byte req number. */
static void next_request(struct mem *m)
{
	if (m->req_sent < m->requests) {
		m->req_sent++;
		rxq_push(m, (struct arrival){ true,
					      (unsigned char)(m->req_sent * 7 + 1),
					      false });
	}
}

static void post_one(struct tsess *s, struct mem *m, const struct twr *wr)
{
	struct comp cp;
	size_t last = s->p.msg_size ? s->p.msg_size - 1 : 0;

	memset(&cp, 0, sizeof(cp));
	cp.c = (struct tcomp){ wr->op, TC_OK, wr->slot, s->p.msg_size };
	unsigned char out = (unsigned char)*mem_tx_data(s); /* a send's */

	if (m->slots && (wr->op == OP_SEND || wr->op == OP_WRITE_IMM))
		m->tx_next = (m->tx_next + 1) % m->slots;
	switch (wr->op) {
	case OP_SEND:
	case OP_WRITE_IMM:
		if (m->echo) { /* we are the initiator */
			struct arrival a = { true, out, false };

			for (uint64_t i = m->rxq_head; i < m->rxq_tail; i++)
				if (!m->rxq[i % RXQ_CAP].late) {
					m->stale_posts++;
					break;
				}
			m->exch++;
			if (listed(m->garble, 8, m->exch))
				a.seq ^= 0x5a;
			if (listed(m->drop, 8, m->exch)) {
				m->dropped++;
			} else if (listed(m->late, 8, m->exch)) {
				a.late = true;
				if (m->held_n < 8)
					m->held[m->held_n++] = a;
			} else {
				rxq_push(m, a);
			}
		}
		if (m->requests) { /* we are the responder */
			if (out == m->last_seq)
				m->echo_ok++;
			else
				m->echo_bad++;
			next_request(m);
		}
		break;
	case OP_WRITE: {
		char own = (char)(s->server ? ID_SERVER : ID_CLIENT);
		char peer = (char)(s->server ? ID_CLIENT : ID_SERVER);

		if (s->buf[0] != own || s->buf[last] != own)
			m->wp_bad++;
		if (m->wp_left) {
			m->wp_left--;
			memset(s->buf, peer, s->p.msg_size);
		}
		break;
	}
	case OP_FADD:
	case OP_CSWAP:
		m->atomics++;
		if (m->corrupt_at == m->atomics)
			m->word += m->corrupt_by;
		cp.has_old = true;
		cp.old = m->word;
		if (wr->op == OP_FADD)
			m->word += wr->compare;
		else if (m->word == wr->compare)
			m->word = wr->swap;
		cp.c.bytes = 8;
		break;
	default:
		break;
	}
	if (!m->never && m->cq_tail - m->cq_head < CQ_CAP)
		m->cq[m->cq_tail++ % CQ_CAP] = cp;
}

static int mem_post(struct tsess *s, const struct twr *wr, uint32_t n,
		    char *err, size_t errlen)
{
	struct mem *m = s->priv;

	if (runaway(m, err, errlen))
		return TP_FATAL;
	if (n == 0)
		return seterr(err, errlen, "mem: post of 0");
	if (wr->op == OP_RECV) {
		m->recv_posts++;
		m->credits += n;
		if (m->slots && m->credits > m->slots)
			m->slot_over++;
		if (m->credits > m->credits_max)
			m->credits_max = m->credits;
		return (int)n;
	}
	m->op_posts++;
	if (n > m->post_n_max)
		m->post_n_max = n;
	if (m->ret_at && m->op_posts == m->ret_at) {
		if (m->ret_val == TP_FATAL)
			seterr(err, errlen, "send failed: Broken pipe");
		if (m->ret_val == 0)
			s->ended = true;
		if (m->ret_val == TP_SOFT && m->requests)
			next_request(m); /* the initiator gives up, goes on */
		return m->ret_val;
	}
	for (uint32_t i = 0; i < n; i++)
		post_one(s, m, wr);
	m->posted[wr->op] += n;
	m->posted_ops += n;
	if (m->posted_ops - m->completed > m->out_max)
		m->out_max = m->posted_ops - m->completed;
	return (int)n;
}

/* Hand out arrivals, one receive credit each. */
static int arrivals(struct tsess *s, struct mem *m, struct tcomp *c, int max)
{
	int n = 0;

	while (n < max && m->credits > 0 &&
	       (m->rxq_head < m->rxq_tail || m->stream_rx > 0) &&
	       (!m->rx_burst || n < (int)m->rx_burst)) {
		struct arrival a = { false, 0, false };
		uint32_t slot = m->slots ? m->rx_next : 0;

		if (m->rxq_head < m->rxq_tail)
			a = m->rxq[m->rxq_head++ % RXQ_CAP];
		else
			m->stream_rx--;
		m->credits--;
		m->arrived++;
		if (m->slots)
			m->rx_next = (m->rx_next + 1) % m->slots;
		if (a.has_seq) {
			*(m->slots ? mem_slot(s, slot, false) : s->buf + s->rx_off) =
				(char)a.seq;
			m->last_seq = a.seq;
		}
		if (a.late)
			m->late_arrived++;
		c[n++] = (struct tcomp){ OP_RECV,
					 m->arrived == m->rx_err_at ? TC_ERR :
								      TC_OK,
					 slot, s->p.msg_size };
		m->t_last = now_ns();
	}
	return n;
}

static int mem_poll(struct tsess *s, struct tcomp *c, int max, uint64_t wait,
		    char *err, size_t errlen)
{
	struct mem *m = s->priv;
	int k = 0, lim;

	if (runaway(m, err, errlen))
		return TP_FATAL;
	m->polls++;
	if (wait != UINT64_MAX)
		m->finite_waits++;
	if (m->poll_fatal_at && m->polls == m->poll_fatal_at)
		return seterr(err, errlen, "%s failed: Retries exceeded",
			      s->t->name);
	lim = m->lazy && max > 1 ? 1 : max;
	while (k < lim && m->cq_head < m->cq_tail) {
		struct comp *cp = &m->cq[m->cq_head++ % CQ_CAP];

		if (cp->has_old)
			memcpy(s->buf + (size_t)cp->c.slot * 8, &cp->old, 8);
		c[k++] = cp->c;
		m->completed++;
	}
	k += arrivals(s, m, c + k, max - k);
	if (k == 0 && m->held_n) {
		/* The late answers come after this wait. */
		for (int i = 0; i < m->held_n; i++)
			rxq_push(m, m->held[i]);
		m->held_n = 0;
		if (wait != UINT64_MAX)
			return 0;
		k = arrivals(s, m, c, max);
	}
	if (k) {
		if ((uint32_t)k > s->max_cqes)
			s->max_cqes = (uint32_t)k;
		return k;
	}
	switch (m->after) {
	case AFTER_ENDED:
		s->ended = true;
		return 0;
	case AFTER_FATAL:
		return seterr(err, errlen, "%s failed: Remote access error",
			      s->t->name);
	default:
		m->quiet_polls++;
		if (wait != UINT64_MAX && m->quiet_ns) {
			struct timespec ts = { 0, (long)m->quiet_ns };

			nanosleep(&ts, NULL);
		}
		return 0;
	}
}

static const struct transport mem_reliable = {
	.name = "mem",
	.label = "MEM",
	.flags = 0,
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.post = mem_post,
	.poll = mem_poll,
};

static const struct transport mem_lossy = {
	.name = "meml",
	.label = "MEML",
	.flags = TF_LOSSY,
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.post = mem_post,
	.poll = mem_poll,
};

/* The slotted transports (open loop over slots: TF_SLOTS). */
static const struct transport mem_slotted = {
	.name = "mems",
	.label = "MEMS",
	.flags = TF_SLOTS,
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.post = mem_post,
	.poll = mem_poll,
	.rx_data = mem_rx_data,
	.tx_data = mem_tx_data,
};

static const struct transport mem_slotted_lossy = {
	.name = "memsl",
	.label = "MEMSL",
	.flags = TF_SLOTS | TF_LOSSY,
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.post = mem_post,
	.poll = mem_poll,
	.rx_data = mem_rx_data,
	.tx_data = mem_tx_data,
};

/* One side of one test. */
static struct fix {
	struct test_desc t;
	struct tsess s;
	struct mem m;
	struct lrun lr;
	struct chan ch;
	char err[256];
	int peer_waits;
} F;

static struct mem *const M = &F.m;
static struct node_stat *const ST = &F.lr.st;

static void setup(enum loop_kind loop, enum op op, uint32_t depth,
		  bool server, bool lossy, uint32_t msg_size, uint64_t n)
{
	char err[64];

	memset(&F, 0, sizeof(F));
	F.t.name = "mem_test";
	F.t.kind = TK_DATA;
	F.t.measure = MEAS_BANDWIDTH;
	F.t.loop = loop;
	F.t.op = op;
	F.t.depth = depth;
	F.t.tp = lossy ? &mem_lossy : &mem_reliable;
	F.s.tp = F.t.tp;
	F.s.t = &F.t;
	F.s.server = server;
	F.s.p.msg_size = msg_size;
	F.s.p.timeout = 5 * NS_PER_SEC;
	F.s.p.no_msgs = n;
	F.s.priv = &F.m;
	F.s.ch = &F.ch;
	F.ch.ext = true; /* a 0.5 peer: it echoes the sequence byte */
	F.ch.peer_caps = CAP_NODE_EXT | CAP_LOSS;
	F.ch.timeout = F.s.p.timeout;
	F.lr.s = &F.s;
	if (F.s.tp->open(&F.s, err, sizeof(err)) < 0)
		abort();
}

static int prep(void)
{
	F.err[0] = '\0';
	return loop_prep(&F.lr, F.err, sizeof(F.err));
}

static int run(void)
{
	F.err[0] = '\0';
	return loop_run(&F.lr, F.err, sizeof(F.err));
}

static int prep_run(void)
{
	if (prep() < 0)
		return -2;
	return run();
}

#endif
