// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measurement loops of core/measure.c against an in-memory transport.
 * The transport's peer is simulated and scripted per test: operations
 * complete at once (or one per poll, or never), a receiver's peer sends N
 * messages and then goes quiet, ends the data path or fails, a ping-pong
 * peer echoes each message (or drops it, or answers late, carrying the
 * old sequence byte as a real echo would), reads complete, atomics act on
 * an emulated 8-byte word of the peer, and a write-poll peer answers by
 * writing its marker bytes into our buffer.  The loops are checked
 * against 0.4.11's counting rules (spec §3.2-3.3).
 */
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "core/measure.h"
#include "core/util.h"
#include "harness.h"
#include "transports/transport.h"

#define MEM_BUF (65536 + 64)
#define CQ_CAP 8192
#define RXQ_CAP 64
#define MAX_CALLS_DEFAULT 2000000ULL
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
	uint64_t requests; /* ping-pong responder: requests the peer sends */
	uint64_t wp_left; /* write poll: writes the peer still makes */
	uint64_t corrupt_at, corrupt_by; /* atomics: the word is changed by
					  * corrupt_by before op corrupt_at */
	uint64_t max_calls; /* runaway guard (0: default, UINT64_MAX: none) */

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
};

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
	switch (wr->op) {
	case OP_SEND:
	case OP_WRITE_IMM:
		if (m->echo) { /* we are the initiator */
			struct arrival a = { true,
					     (unsigned char)s->buf[s->rx_off],
					     false };

			for (uint64_t i = m->rxq_head; i < m->rxq_tail; i++)
				if (!m->rxq[i % RXQ_CAP].late) {
					m->stale_posts++;
					break;
				}
			m->exch++;
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
			if ((unsigned char)s->buf[s->rx_off] == m->last_seq)
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

		if (m->rxq_head < m->rxq_tail)
			a = m->rxq[m->rxq_head++ % RXQ_CAP];
		else
			m->stream_rx--;
		m->credits--;
		m->arrived++;
		if (a.has_seq) {
			s->buf[s->rx_off] = (char)a.seq;
			m->last_seq = a.seq;
		}
		if (a.late)
			m->late_arrived++;
		c[n++] = (struct tcomp){ OP_RECV,
					 m->arrived == m->rx_err_at ? TC_ERR :
								      TC_OK,
					 0, s->p.msg_size };
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

static uint64_t window(void)
{
	return ST->real_e - ST->real_s;
}

/* ---- one-way bandwidth, sending side ---- */

TEST(send_count_depth_lazy)
{
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 1000, 10);
	M->lazy = true; /* completions trickle in, one per poll */
	CHECK(prep() == 0);
	CHECK(M->credits == 0 && M->recv_posts == 0);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 10);
	CHECK(ST->s.bytes == 10000);
	CHECK(ST->s.errs == 0);
	CHECK(ST->r.msgs == 0 && ST->r.bytes == 0);
	CHECK(M->posted[OP_SEND] == 10);
	CHECK(M->post_n_max <= 4);
	CHECK(M->out_max == 4);
	CHECK(ST->real_e > ST->real_s);
}

TEST(send_count_deep)
{
	setup(LOOP_STREAM_BW, OP_WRITE_IMM, 1024, false, false, 65536, 3000);
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 3000);
	CHECK(ST->s.bytes == 3000ULL * 65536);
	CHECK(M->posted[OP_WRITE_IMM] == 3000);
	CHECK(M->posted_ops == 3000);
	CHECK(M->post_n_max == 1024);
	CHECK(M->out_max <= 1024);

	/* A count below the depth: never more posted than n. */
	setup(LOOP_STREAM_BW, OP_SEND, 1024, false, false, 8, 5);
	M->never = true;
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 5 && ST->s.bytes == 40);
	CHECK(M->posted[OP_SEND] == 5);
	CHECK(M->post_n_max == 5);
}

/* A failed datagram is an error and the test goes on (spec §3.2). */
TEST(send_soft_error_counted)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, true, 100, 10);
	M->ret_at = 3;
	M->ret_val = TP_SOFT;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.errs == 1);
	CHECK(ST->s.msgs == 9);
	CHECK(ST->s.bytes == 900);
	CHECK(M->posted[OP_SEND] == 9);

	/* Reliable, deeper: the failed one is not outstanding. */
	setup(LOOP_STREAM_BW, OP_SEND, 2, false, false, 100, 10);
	M->ret_at = 1;
	M->ret_val = TP_SOFT;
	M->lazy = true;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.errs == 1 && ST->s.msgs == 9);
	CHECK(M->posted[OP_SEND] == 9);
}

TEST(send_idle_error)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, false, 100, 10);
	M->ret_at = 2;
	M->ret_val = TP_IDLE;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data sent for 5 s: the server stalled");
	CHECK(ST->s.msgs == 1);
	CHECK(ST->real_e >= ST->real_s && ST->real_e != 0);
}

TEST(send_post_fatal)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, false, 100, 10);
	M->ret_at = 2;
	M->ret_val = TP_FATAL;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "send failed: Broken pipe");
	CHECK(ST->s.msgs == 1);
}

/* The peer closed (post returns 0 with s->ended): a clean end. */
TEST(send_peer_ended)
{
	setup(LOOP_STREAM_BW, OP_SEND, 1, false, false, 100, 100);
	M->ret_at = 4;
	M->ret_val = 0;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 3);
	CHECK(F.s.ended);
}

/* A reliable sender whose sends never complete: the idle error. */
TEST(send_never_completes)
{
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 3);
	M->never = true;
	CHECK(prep_run() == 0); /* all 3 posted: done by the count */
	CHECK(ST->s.msgs == 3 && M->polls == 0);
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 100);
	M->never = true;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data sent for 5 s: the server stalled");
	CHECK(ST->s.msgs == 4);
}

/* ---- one-way bandwidth, receiving side ---- */

TEST(recv_count)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 4096, 100);
	F.s.p.access_recv = 1;
	M->stream_rx = 100;
	M->rx_burst = 7;
	CHECK(prep() == 0);
	CHECK(M->credits == 16);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 100);
	CHECK(ST->r.bytes == 100ULL * 4096);
	CHECK(ST->r.errs == 0);
	CHECK(ST->s.msgs == 0);
	CHECK(M->credits_max == 16);
	CHECK(M->quiet_polls == 0);

	/* The peer sends more than n, one per poll: exactly n counted. */
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 50);
	M->stream_rx = 80;
	M->rx_burst = 1;
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 50 && ST->r.bytes == 500);
	CHECK(M->arrived == 50);
}

TEST(recv_error_completion)
{
	setup(LOOP_STREAM_BW, OP_SEND, 4, true, false, 10, 10);
	M->stream_rx = 10;
	M->rx_err_at = 4;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.errs == 1);
	CHECK(ST->r.msgs == 9);
	CHECK(ST->r.bytes == 90);
}

TEST(recv_reliable_idle)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the client stalled");
	CHECK(ST->r.msgs == 0);

	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	F.s.p.timeout = 2500 * MS;
	M->stream_rx = 3;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 2.5 s: the client stalled");
	CHECK(ST->r.msgs == 3);
}

/* A lossy count receiver ends quietly; its window ends at the last message. */
TEST(recv_lossy_quiet_window)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, true, 10, 100);
	M->stream_rx = 5;
	M->rx_burst = 1;
	M->quiet_ns = 30 * MS; /* the quiet wait is seen to take time */
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 5);
	CHECK(M->quiet_polls == 1);
	CHECK(ST->real_e >= M->t_last);
	CHECK(ST->real_e - M->t_last < 15 * MS);
	CHECK(ST->real_e > ST->real_s);
}

TEST(recv_peer_ended)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	M->stream_rx = 5;
	M->after = AFTER_ENDED;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 5);
	CHECK(F.s.ended);
}

TEST(recv_poll_fatal_after_data)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 100);
	M->stream_rx = 3;
	M->after = AFTER_FATAL;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mem_test failed: Remote access error");
	CHECK(ST->r.msgs == 3);
	CHECK(ST->real_e != 0);
}

/* ---- bi-directional ---- */

TEST(bi_counts)
{
	setup(LOOP_BI_BW, OP_SEND, 8, false, false, 100, 50);
	M->stream_rx = 50;
	M->rx_burst = 5;
	M->lazy = true;
	CHECK(prep() == 0);
	CHECK(M->credits == 8);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 50 && ST->s.bytes == 5000);
	CHECK(ST->r.msgs == 50 && ST->r.bytes == 5000);
	CHECK(M->posted[OP_SEND] == 50);
	CHECK(M->post_n_max <= 8);
	CHECK(M->out_max <= 8);
	CHECK(M->credits_max == 8);

	/* The server side, the peer sending more slowly. */
	setup(LOOP_BI_BW, OP_SEND, 8, true, false, 10, 30);
	M->stream_rx = 30;
	M->rx_burst = 1;
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 30 && ST->r.msgs == 30);
	CHECK(M->posted[OP_SEND] == 30);
}

TEST(bi_peer_ended)
{
	setup(LOOP_BI_BW, OP_SEND, 8, false, false, 10, 100);
	M->stream_rx = 20;
	M->after = AFTER_ENDED;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 20);
	CHECK(ST->s.msgs <= 100 && ST->s.msgs >= 8);
}

TEST(bi_reliable_idle)
{
	setup(LOOP_BI_BW, OP_SEND, 8, true, false, 10, 100);
	M->stream_rx = 10;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the client stalled");
	CHECK(ST->r.msgs == 10);
}

/* ---- ping-pong ---- */

TEST(pingpong_initiator_count)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, false, 1, 20);
	M->echo = true;
	CHECK(prep() == 0);
	CHECK(M->credits == 1);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 20 && ST->r.msgs == 20);
	CHECK(ST->s.bytes == 20 && ST->r.bytes == 20);
	CHECK(ST->lost == 0 && ST->r.errs == 0);
	CHECK(M->posted[OP_SEND] == 20);
	CHECK(M->stale_posts == 0);
	CHECK(M->credits_max == 1);

	/* RDMA write with immediate, a bigger message. */
	setup(LOOP_PINGPONG, OP_WRITE_IMM, 1, false, false, 64, 7);
	M->echo = true;
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 7 && ST->r.msgs == 7);
	CHECK(M->posted[OP_WRITE_IMM] == 7);
}

TEST(pingpong_responder_count)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 20);
	M->requests = 20;
	CHECK(prep() == 0);
	CHECK(M->credits == 1);
	next_request(M); /* the client's first message */
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 20 && ST->r.msgs == 20);
	CHECK(M->posted[OP_SEND] == 20);
	CHECK(M->echo_ok == 20 && M->echo_bad == 0);
	CHECK(M->quiet_polls == 0); /* done without waiting for more */
}

/* UD: messages start at buf + 40 (after the GRH) both ways, so the
 * answer carries the request's first byte, or a recovering client would
 * take every answer for a late one. */
TEST(pingpong_responder_echoes_at_rx_off)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, true, true, 8, 10);
	F.s.rx_off = 40;
	M->requests = 10;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK(ST->s.msgs == 10 && ST->r.msgs == 10);
	CHECK(M->echo_ok == 10);
	CHECK(M->echo_bad == 0);
}

TEST(pingpong_responder_idle_and_ended)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 10);
	M->requests = 3;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the client stalled");
	CHECK(ST->r.msgs == 3 && ST->s.msgs == 3);

	setup(LOOP_PINGPONG, OP_SEND, 1, true, false, 1, 10);
	M->requests = 3;
	M->after = AFTER_ENDED;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 3 && ST->s.msgs == 3);
}

TEST(pingpong_initiator_idle)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, false, 1, 10);
	M->echo = true;
	M->drop[0] = 4; /* a reliable transport: the answer never comes */
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the server stalled");
	CHECK(ST->s.msgs == 4 && ST->r.msgs == 3);
	CHECK(ST->lost == 0);
}

TEST(pingpong_lossy_drops)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 20);
	M->echo = true;
	M->drop[0] = 3;
	M->drop[1] = 7;
	M->drop[2] = 8;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->dropped == 3);
	CHECK(ST->lost == 3);
	CHECK(ST->r.errs == 3);
	CHECK(ST->r.msgs == 17);
	CHECK(ST->s.msgs == 20);
	CHECK(M->posted[OP_SEND] == 20);
	CHECK(M->finite_waits > 0);

	/* The very first exchange lost. */
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 5);
	M->echo = true;
	M->drop[0] = 1;
	CHECK(prep_run() == 0);
	CHECK(ST->lost == 1 && ST->r.msgs == 4 && ST->s.msgs == 5);
}

/* A 0.4.11 responder does not echo the sequence byte: no recovery, and a
 * lost message ends a lossy count run quietly. */
TEST(pingpong_lossy_legacy_peer)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 10);
	F.ch.ext = false;
	F.ch.peer_caps = 0;
	M->echo = true;
	M->drop[0] = 3;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->finite_waits == 0);
	CHECK(ST->lost == 0 && ST->r.errs == 0);
	CHECK(ST->s.msgs == 3 && ST->r.msgs == 2);
	CHECK(M->buf[0] == 0); /* no sequence byte written */
}

/* A late answer is skipped by its sequence byte, not taken as the next. */
TEST(pingpong_lossy_late_answer)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 10);
	M->echo = true;
	M->late[0] = 4;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(M->late_arrived == 1); /* it did arrive, after the loss wait */
	CHECK(ST->lost == 1);
	CHECK(ST->r.errs == 1);
	CHECK(ST->r.msgs == 9);
	CHECK(ST->s.msgs == 10);
	CHECK(M->stale_posts == 0); /* never two exchanges in flight */
	CHECK(M->arrived == 10);

	/* UD-like offset, two late answers in a row. */
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 8, 12);
	F.s.rx_off = 40;
	M->echo = true;
	M->late[0] = 5;
	M->late[1] = 6;
	CHECK(prep_run() == 0);
	CHECK(M->late_arrived == 2);
	CHECK(ST->lost == 2 && ST->r.errs == 2);
	CHECK(ST->r.msgs == 10 && ST->s.msgs == 12);
	CHECK(M->stale_posts == 0);
}

/* A failed send (TP_SOFT) counts an error; the exchange is retried. */
TEST(pingpong_soft_send)
{
	setup(LOOP_PINGPONG, OP_SEND, 1, false, true, 1, 5);
	M->echo = true;
	M->ret_at = 2;
	M->ret_val = TP_SOFT;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.errs == 1);
	CHECK(ST->s.msgs == 4);
	CHECK(ST->r.msgs == 4);
	CHECK(ST->lost == 0);
	CHECK(M->posted[OP_SEND] == 4);

	/* The responder's failed answer: it waits for the next request. */
	setup(LOOP_PINGPONG, OP_SEND, 1, true, true, 1, 5);
	M->requests = 5;
	M->ret_at = 2;
	M->ret_val = TP_SOFT;
	CHECK(prep() == 0);
	next_request(M);
	CHECK(run() == 0);
	CHECK(ST->s.errs == 1 && ST->s.msgs == 4);
	CHECK(ST->r.msgs == 5);
	CHECK(M->quiet_polls == 0);
}

/* ---- one-sided: reads and atomics ---- */

TEST(onesided_read)
{
	setup(LOOP_ONESIDED, OP_READ, 16, false, false, 4096, 100);
	F.s.p.access_recv = 1;
	M->lazy = true;
	CHECK(prep() == 0);
	CHECK(M->recv_posts == 0);
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 100 && ST->r.bytes == 409600);
	CHECK(ST->rem_s.msgs == 100 && ST->rem_s.bytes == 409600);
	CHECK(ST->s.msgs == 0 && ST->rem_r.msgs == 0);
	CHECK(M->posted[OP_READ] == 100);
	CHECK(M->out_max == 16);
	CHECK(M->completed == 100); /* the count waits for all of them */

	setup(LOOP_ONESIDED, OP_READ, 1, false, false, 1, 10);
	CHECK(prep_run() == 0);
	CHECK(ST->r.msgs == 10 && ST->rem_s.bytes == 10);
	CHECK(M->out_max == 1);
}

TEST(onesided_atomics)
{
	setup(LOOP_ONESIDED, OP_FADD, 1024, false, false, 0, 50);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->rem_r.msgs == 50 && ST->rem_r.bytes == 400);
	CHECK(ST->r.msgs == 0 && ST->r.bytes == 0);
	CHECK(ST->rem_s.msgs == 0 && ST->s.msgs == 0);
	CHECK(M->posted[OP_FADD] == 50);

	setup(LOOP_ONESIDED, OP_CSWAP, 4, false, false, 0, 2000);
	M->lazy = true;
	CHECK(prep_run() == 0);
	CHECK(ST->rem_r.msgs == 2000 && ST->rem_r.bytes == 16000);
	CHECK(M->posted[OP_CSWAP] == 2000);
	CHECK(M->out_max == 4);
}

TEST(onesided_reliable_idle)
{
	setup(LOOP_ONESIDED, OP_READ, 16, false, false, 64, 100);
	M->never = true;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 5 s: the server stalled");
	CHECK(ST->r.msgs == 0);
}

static int stub_wait_peer(void *arg, char *err, size_t errlen)
{
	int *mode = arg;

	F.peer_waits++;
	if (*mode)
		return seterr(err, errlen, "the client went away during the test");
	return 0;
}

TEST(onesided_server_idles)
{
	int mode = 0;
	enum loop_kind loops[] = { LOOP_ONESIDED, LOOP_ATOMIC_VER };

	for (int i = 0; i < 2; i++) {
		setup(loops[i], OP_READ, 1024, true, false, 65536, 100);
		F.lr.wait_peer = stub_wait_peer;
		F.lr.wait_arg = &mode;
		mode = 0;
		CHECK(loop_idle_side(&F.s));
		CHECK(prep_run() == 0);
		CHECK(F.peer_waits == 1);
		CHECK(M->calls == 0);
		CHECK(ST->r.msgs == 0 && ST->s.msgs == 0);
		CHECK(ST->real_e > ST->real_s);
		mode = 1;
		CHECK(run() == -1);
		CHECK_STR(F.err, "the client went away during the test");
		CHECK(F.peer_waits == 2);
	}
	F.s.server = false;
	CHECK(!loop_idle_side(&F.s));
}

/* ---- verified atomics ---- */

TEST(ver_fetch_add_ok)
{
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 64, 3000);
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->rem_r.msgs == 3000 && ST->rem_r.bytes == 24000);
	CHECK(ST->r.msgs == 0);
	CHECK(M->posted[OP_FADD] == 3000);
	CHECK(M->word == 3000);
	CHECK(M->out_max == 8); /* 64 / 8 slots */

	/* Fewer than the slots. */
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 64, 3);
	CHECK(prep_run() == 0);
	CHECK(ST->rem_r.msgs == 3 && M->posted[OP_FADD] == 3);
	CHECK(M->word == 3);
}

TEST(ver_compare_swap_ok)
{
	setup(LOOP_ATOMIC_VER, OP_CSWAP, 1024, false, false, 65536, 5000);
	M->lazy = true;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->rem_r.msgs == 5000 && ST->rem_r.bytes == 40000);
	CHECK(M->posted[OP_CSWAP] == 5000);
	CHECK(M->word == VER_M + 4999);
	CHECK(M->out_max == 1024); /* min(65536 / 8, depth) */
}

TEST(ver_fetch_add_mismatch)
{
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 64, 100);
	M->corrupt_at = 6; /* sequence 5 finds 6 */
	M->corrupt_by = 1;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mismatch, sequence 6, expected 5, got 6");
	CHECK(ST->rem_r.msgs == 5);
}

TEST(ver_compare_swap_mismatch)
{
	setup(LOOP_ATOMIC_VER, OP_CSWAP, 1024, false, false, 16, 100);
	M->corrupt_at = 4; /* sequence 3 */
	M->corrupt_by = 0x10;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mismatch, sequence 4, expected 123456789abcdf1, "
			 "got 123456789abce01");
	CHECK(ST->rem_r.msgs == 3);

	/* The very first one: expected 0. */
	setup(LOOP_ATOMIC_VER, OP_CSWAP, 1024, false, false, 8, 100);
	M->corrupt_at = 1;
	M->corrupt_by = 0xabc;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "mismatch, sequence 1, expected 0, got abc");
	CHECK(ST->rem_r.msgs == 0);
}

TEST(ver_message_too_small)
{
	setup(LOOP_ATOMIC_VER, OP_FADD, 1024, false, false, 7, 100);
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "message size must be at least 8");
	CHECK(M->calls == 0);
	CHECK(ST->rem_r.msgs == 0);
}

/* ---- RDMA write, memory polling ---- */

TEST(write_poll_client)
{
	uint32_t sizes[] = { 64, 1 };

	for (int i = 0; i < 2; i++) {
		uint32_t sz = sizes[i];

		setup(LOOP_WRITE_POLL, OP_WRITE, 1024, false, false, sz, 5);
		M->wp_left = 5;
		CHECK(prep() == 0);
		CHECK((unsigned char)M->buf[0] == ID_CLIENT);
		CHECK((unsigned char)M->buf[sz - 1] == ID_CLIENT);
		CHECK(run() == 0);
		CHECK_STR(F.err, "");
		CHECK(ST->s.msgs == 5 && ST->s.bytes == 5ULL * sz);
		CHECK(ST->r.msgs == 5 && ST->r.bytes == 5ULL * sz);
		CHECK(M->posted[OP_WRITE] == 5);
		CHECK(M->wp_bad == 0);
		CHECK((unsigned char)M->buf[0] == ID_CLIENT);
		CHECK((unsigned char)M->buf[sz - 1] == ID_CLIENT);
	}
}

TEST(write_poll_server)
{
	setup(LOOP_WRITE_POLL, OP_WRITE, 1024, true, false, 64, 5);
	M->wp_left = 5;
	CHECK(prep() == 0);
	CHECK((unsigned char)M->buf[0] == ID_SERVER);
	CHECK((unsigned char)M->buf[63] == ID_SERVER);
	/* The client's first write lands. */
	memset(M->buf, ID_CLIENT, 64);
	M->wp_left--;
	CHECK(run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->s.msgs == 5 && ST->r.msgs == 5);
	CHECK(ST->s.bytes == 320 && ST->r.bytes == 320);
	CHECK(M->posted[OP_WRITE] == 5);
	CHECK(M->wp_bad == 0);
}

TEST(write_poll_stalled_peer)
{
	setup(LOOP_WRITE_POLL, OP_WRITE, 1024, false, false, 16, 5);
	F.s.p.timeout = 20 * MS;
	M->wp_left = 2;
	CHECK(prep_run() == -1);
	CHECK_STR(F.err, "no data received for 0.02 s: the server stalled");
	CHECK(ST->s.msgs == 3 && ST->r.msgs == 2);
	CHECK(window() >= 20 * MS);
}

TEST(write_poll_empty_message)
{
	setup(LOOP_WRITE_POLL, OP_WRITE, 1024, false, false, 0, 5);
	CHECK(prep() == -1);
	CHECK_STR(F.err, "message size must be at least 1");
}

/* ---- the timer ---- */

static bool timer_idle(void)
{
	struct itimerval it;

	getitimer(ITIMER_REAL, &it);
	return it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0 &&
	       it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0;
}

TEST(time_mode_send)
{
	measure_init();
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 0);
	F.s.p.time = 50 * MS;
	M->max_calls = UINT64_MAX;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(measure_finished());
	CHECK(timer_fired);
	CHECK(window() >= 50 * MS);
	CHECK(window() < 1000 * MS);
	CHECK(ST->s.msgs > 0);
	CHECK(ST->s.bytes == ST->s.msgs * 100);
	CHECK(timer_idle());

	/* A second test in the same process starts with the timer unfired. */
	setup(LOOP_STREAM_BW, OP_SEND, 4, false, false, 100, 0);
	F.s.p.time = 20 * MS;
	M->max_calls = UINT64_MAX;
	CHECK(prep_run() == 0);
	CHECK(window() >= 20 * MS && window() < 1000 * MS);
	CHECK(ST->s.msgs > 0);
	CHECK(timer_idle());
}

/* A quiet peer in a timed test is no idle error: the timer ends it. */
TEST(time_mode_recv_quiet)
{
	measure_init();
	setup(LOOP_STREAM_BW, OP_SEND, 16, true, false, 10, 0);
	F.s.p.time = 50 * MS;
	M->max_calls = UINT64_MAX;
	M->stream_rx = 10;
	CHECK(prep_run() == 0);
	CHECK_STR(F.err, "");
	CHECK(ST->r.msgs == 10);
	CHECK(window() >= 50 * MS && window() < 1000 * MS);
	CHECK(M->quiet_polls > 0);
	CHECK(timer_idle());
}

/* ---- a poll's TP_FATAL propagates from every loop ---- */

TEST(poll_fatal_everywhere)
{
	struct {
		enum loop_kind loop;
		enum op op;
		bool server;
		uint32_t msg;
	} cases[] = {
		{ LOOP_STREAM_BW, OP_SEND, false, 100 },
		{ LOOP_STREAM_BW, OP_SEND, true, 100 },
		{ LOOP_BI_BW, OP_SEND, false, 100 },
		{ LOOP_PINGPONG, OP_SEND, false, 1 },
		{ LOOP_PINGPONG, OP_SEND, true, 1 },
		{ LOOP_ONESIDED, OP_READ, false, 100 },
		{ LOOP_ONESIDED, OP_FADD, false, 0 },
		{ LOOP_ATOMIC_VER, OP_CSWAP, false, 64 },
		{ LOOP_WRITE_POLL, OP_WRITE, false, 8 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		setup(cases[i].loop, cases[i].op, 8, cases[i].server, false,
		      cases[i].msg, 100);
		M->poll_fatal_at = 1;
		M->stream_rx = 100;
		M->echo = !cases[i].server;
		M->requests = cases[i].server ? 100 : 0;
		M->wp_left = 100;
		if (prep() != 0) {
			CHECK(!"prep failed");
			continue;
		}
		if (M->requests)
			next_request(M);
		CHECK(run() == -1);
		if (strcmp(F.err, "mem_test failed: Retries exceeded") != 0)
			fprintf(stderr, "    case %zu: \"%s\"\n", i, F.err);
		CHECK_STR(F.err, "mem_test failed: Retries exceeded");
		CHECK(M->polls == 1);
		CHECK(ST->real_e != 0);
	}
}

int main(void)
{
	RUN(send_count_depth_lazy);
	RUN(send_count_deep);
	RUN(send_soft_error_counted);
	RUN(send_idle_error);
	RUN(send_post_fatal);
	RUN(send_peer_ended);
	RUN(send_never_completes);
	RUN(recv_count);
	RUN(recv_error_completion);
	RUN(recv_reliable_idle);
	RUN(recv_lossy_quiet_window);
	RUN(recv_peer_ended);
	RUN(recv_poll_fatal_after_data);
	RUN(bi_counts);
	RUN(bi_peer_ended);
	RUN(bi_reliable_idle);
	RUN(pingpong_initiator_count);
	RUN(pingpong_responder_count);
	RUN(pingpong_responder_echoes_at_rx_off);
	RUN(pingpong_responder_idle_and_ended);
	RUN(pingpong_initiator_idle);
	RUN(pingpong_lossy_drops);
	RUN(pingpong_lossy_legacy_peer);
	RUN(pingpong_lossy_late_answer);
	RUN(pingpong_soft_send);
	RUN(onesided_read);
	RUN(onesided_atomics);
	RUN(onesided_reliable_idle);
	RUN(onesided_server_idles);
	RUN(ver_fetch_add_ok);
	RUN(ver_compare_swap_ok);
	RUN(ver_fetch_add_mismatch);
	RUN(ver_compare_swap_mismatch);
	RUN(ver_message_too_small);
	RUN(write_poll_client);
	RUN(write_poll_server);
	RUN(write_poll_stalled_peer);
	RUN(write_poll_empty_message);
	RUN(time_mode_send);
	RUN(time_mode_recv_quiet);
	RUN(poll_fatal_everywhere);
	return harness_done();
}
