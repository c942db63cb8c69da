// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measurement loops; see measure.h (the timer and the measured
 * window they run in: core/measure_win.c).
 *
 * Every wait is bounded: by the timer, by the transport's idle limit (the
 * timeout), by the peer ending the data path, or by a count.  A loop never
 * counts an operation that the end of the test interrupted.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "transports/transport.h"
#include "lib/hist.h"
#include "interval.h"
#include "measure.h"
#include "measure_int.h"
#include "progress.h"
#include "output/report.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

#define LOSSY_IDLE_END NS_PER_SEC /* a lossy count receiver gives up */
#define LOSS_WAIT_MIN (50 * 1000000ULL) /* 50 ms: above scheduling noise */
#define LOSS_WAIT_MAX NS_PER_SEC
#define LOSS_WAIT_FIRST (100 * 1000000ULL)
/* A lossy count responder of a ping-pong gives up after this much quiet:
 * well above the initiator's longest loss wait, so an initiator waiting
 * out a lost answer (and stalled a while by a busy CPU) is never taken
 * for one that has finished. */
#define LOSSY_PP_IDLE_END (3 * LOSS_WAIT_MAX)
#define SPIN_CHECK 1024 /* memory-poll spins between clock reads */
#define ATOMIC_VER_BASE 0x0123456789abcdefULL /* 0.4.11's M */
#define WP_CLIENT_ID 0x55
#define WP_SERVER_ID 0xAA


/* Where touch() leaves its sum, so the reads cannot be optimised away. */
static volatile uint64_t touch_sink;

static void touch(const char *buf, size_t len)
{
	uint64_t sum = 0, w;

	for (size_t i = 0; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, buf + i, sizeof(w));
		sum += w;
	}
	touch_sink = sum;
}

static const char *peer_name(const struct lrun *lr)
{
	return lr->s->server ? "client" : "server";
}

int loop_idle_error(struct lrun *lr, const char *what, char *err,
		      size_t errlen)
{
	measure_stop(&lr->st);
	return seterr(err, errlen, "no data %s for %.3g s: the %s stalled",
		      what, (double)lr->s->p.timeout / 1e9, peer_name(lr));
}

int loop_post(struct lrun *lr, enum op op, uint32_t n, char *err,
		size_t errlen)
{
	struct twr wr = { op, 0, 0, 0 };

	return lr->s->tp->post(lr->s, &wr, n, err, errlen);
}


/* Counted on post (measure_int.h). */
int loop_post_sends(struct lrun *lr, uint32_t n, char *err, size_t errlen)
{
	struct ustat *u = &lr->st.s;
	int k;

	if (count_of(lr)) {
		uint64_t done = u->msgs + u->errs;

		if (done >= count_of(lr))
			return 0;
		if (count_of(lr) - done < n)
			n = (uint32_t)(count_of(lr) - done);
	}
	if (n == 0)
		return 0;
	k = loop_post(lr, T(lr)->op, n, err, errlen);
	if (k > 0) {
		progress_note(); /* server watchdog (progress.h) */
		u->msgs += (uint64_t)k;
		u->bytes += (uint64_t)k * lr->s->p.msg_size;
		return k;
	}
	if (k == TP_SOFT) {
		u->errs++;
		return SEND_FAILED;
	}
	if (k == TP_IDLE)
		return loop_idle_error(lr, "sent", err, errlen);
	if (k == 0)
		return 0;
	if (k == TP_AGAIN)
		return SEND_AGAIN;
	measure_stop(&lr->st);
	return -1;
}

int loop_repost_recvs(struct lrun *lr, uint32_t n, char *err,
			size_t errlen)
{
	if (!n || fired || loop_post(lr, OP_RECV, n, err, errlen) >= 0)
		return 0;
	measure_stop(&lr->st);
	return -1;
}

/*
 * Time one round trip (or operation) begun at t0 (0: none begun, as for
 * a responder's first message) into this side's histogram.  Returns now,
 * which the caller takes as the start of the next one: one clock read per
 * round trip, and the samples add up to the window as 0.4.11's mean does.
 */
static uint64_t time_rt(struct lrun *lr, uint64_t t0)
{
	uint64_t now = now_ns();

	if (lr->hist && t0)
		hist_add(lr->hist, now - t0);
	return now;
}

void loop_count_recv(struct lrun *lr, const struct tcomp *c)
{
	progress_note(); /* server watchdog (progress.h) */
	if (c->status != TC_OK) {
		lr->st.r.errs++;
		return;
	}
	lr->st.r.msgs++;
	lr->st.r.bytes += c->bytes;
	if (lr->s->p.access_recv)
		touch(lr->s->buf, c->bytes);
}

/*
 * What to do when a poll found nothing: 1 = the loop ends normally, 0 =
 * keep waiting, -1 = error (err filled).  A count test of a lossy
 * transport ends when the sender has gone quiet, its window closing at
 * the last message (last, 0 if none).
 */
static int nothing(struct lrun *lr, const char *what, uint64_t last,
		   char *err, size_t errlen)
{
	if (fired || lr->s->ended)
		return 1;
	if (lr->s->p.time || (until_told(lr) && lossy(lr)))
		return 0; /* the timer (or the peer's word) ends the test */
	if (lossy(lr)) {
		measure_stop(&lr->st);
		if (last)
			lr->st.real_e = last;
		return 1;
	}
	return loop_idle_error(lr, what, err, errlen);
}

static uint64_t recv_wait(const struct lrun *lr)
{
	return lossy(lr) && !lr->s->p.time && !until_told(lr) ? LOSSY_IDLE_END
							     : UINT64_MAX;
}

int loop_poll_some(struct lrun *lr, struct tcomp *c, uint64_t wait,
		     char *err, size_t errlen)
{
	int k = lr->s->tp->poll(lr->s, c, POLL_BATCH, wait, err, errlen);

	if (k < 0)
		measure_stop(&lr->st);
	return k;
}

/*
 * --rate: how many of the n messages the loop would post may go now (n
 * when not paced).  0: none yet, and *wait says for how long (ns).
 */
static uint32_t pace_now(struct lrun *lr, uint32_t n, uint64_t *wait)
{
	uint64_t now;
	uint32_t k;

	if (!lr->paced || !n)
		return n;
	now = now_ns();
	k = pace_allow(&lr->pace, lr->pace_cost, n, now);
	*wait = k ? 0 : pace_wait(&lr->pace, now);
	return k;
}

/* --rate: k messages went (the schedule advances, the spread counts). */
static void pace_sent(struct lrun *lr, int k)
{
	if (lr->paced && k > 0)
		pace_take(&lr->pace, lr->pace_cost, (uint32_t)k, now_ns());
}

/*
 * --rate: wait ns for the next message to be due, with nothing to poll.
 * One nanosleep, which the timer's SIGALRM cuts short.
 */
static void pace_sleep(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NS_PER_SEC),
			       (long)(ns % NS_PER_SEC) };

	nanosleep(&ts, NULL);
}

/*
 * --rate: set up this side's pacer (lr->paced) if it posts: a sender of
 * a bandwidth test, the reader of RDMA read.  Each stream paces at its
 * share; a kernel-paced socket (s->kernel_paced) only counts the spread.
 */
static void pace_setup(struct lrun *lr, bool posts)
{
	const struct tsess *s = lr->s;
	uint64_t n = s->p.streams > 1 ? s->p.streams : 1, rate;

	lr->paced = posts && (s->p.rate || s->p.msg_rate) &&
		    s->t->measure != MEAS_LATENCY;
	if (!lr->paced)
		return;
	if (s->p.msg_rate) {
		rate = (s->p.msg_rate + n - 1) / n;
		lr->pace_cost = 1;
	} else {
		rate = tsess_rate(s);
		lr->pace_cost = s->p.msg_size;
	}
	pace_init(&lr->pace, s->kernel_paced ? 0 : rate, lr->pace_cost,
		  now_ns());
}

/*
 * Bandwidth, for one-way (the sender keeps depth sends or writes
 * outstanding, the receiver keeps depth receives posted) and
 * bidirectional tests (each side does both): repost what completed.
 */
static int run_stream(struct lrun *lr, bool sends, bool recvs, char *err,
		      size_t errlen)
{
	struct tcomp c[POLL_BATCH];
	uint32_t depth = tsess_depth(lr->s, false), out = 0;
	uint64_t last = 0;

	while (!fired && !lr->s->ended) {
		uint32_t nrecv = 0, n;
		uint64_t pwait = 0; /* --rate: ns until the next is due */
		int k;

		ival_check(lr->iv, &lr->st);
		if (sends && out < depth &&
		    (n = pace_now(lr, depth - out, &pwait)) > 0) {
			k = loop_post_sends(lr, n, err, errlen);
			if (k == SEND_FAILED)
				continue; /* nothing outstanding: go on */
			if (k < 0)
				return -1;
			if (k == 0 && !recvs)
				break;
			pace_sent(lr, k);
			out += (uint32_t)k;
		}
		if ((!sends || count_reached(lr, lr->st.s.msgs + lr->st.s.errs)) &&
		    (!recvs || count_reached(lr, lr->st.r.msgs + lr->st.r.errs)))
			break;
		if (pwait && !recvs && out == 0) {
			pace_sleep(pwait); /* nothing to poll meanwhile */
			continue;
		}
		k = loop_poll_some(lr, c, pwait ? pwait : recvs ? recv_wait(lr)
							   : UINT64_MAX,
			      err, errlen);
		if (k < 0)
			return -1;
		if (k == 0 && pwait)
			continue; /* the next message is due */
		if (k == 0) {
			int r = nothing(lr, recvs ? "received" : "sent", last,
					err, errlen);

			if (r)
				return r < 0 ? -1 : 0;
			continue;
		}
		for (int i = 0; i < k; i++) {
			if (c[i].op == OP_RECV) {
				loop_count_recv(lr, &c[i]);
				nrecv++;
			} else if (out > 0) {
				out--;
			}
		}
		if (!lr->s->p.time && nrecv)
			last = now_ns();
		if (loop_repost_recvs(lr, nrecv, err, errlen) < 0)
			return -1;
	}
	measure_stop(&lr->st);
	return 0;
}

/*
 * How long a lossy initiator waits for an answer before it counts the
 * exchange as lost: 100 smoothed round trips of answered exchanges
 * (waits for lost ones are left out, so losses cannot stretch it), within
 * 50 ms..1 s: a loaded 2-CPU machine stalls a process for tens of ms.
 */
static uint64_t loss_wait(uint64_t srtt)
{
	uint64_t w = srtt ? srtt * 100 : LOSS_WAIT_FIRST;

	if (w < LOSS_WAIT_MIN)
		w = LOSS_WAIT_MIN;
	if (w > LOSS_WAIT_MAX)
		w = LOSS_WAIT_MAX;
	return w;
}

/*
 * Ping-pong latency (SEND or WRITE_WITH_IMM).  A side posts its next
 * message only when its previous one completed and an answer arrived;
 * the server starts as if its send had completed.  A lossy initiator
 * that hears nothing in time counts the exchange as lost and starts a
 * new one, so one lost message cannot stall the test.  It then tells a
 * late answer from the current one by the sequence byte it puts first in
 * each message (the responder echoes what it received), so a late answer
 * can never leave two exchanges in flight.
 */
static int run_pingpong(struct lrun *lr, char *err, size_t errlen)
{
	struct tcomp c[POLL_BATCH];
	bool initiator = !lr->s->server;
	/* Only a 0.5 responder is known to echo the sequence byte. */
	bool recover = initiator && lossy(lr) && lr->s->p.msg_size > 0 &&
		       lr->s->ch && (lr->s->ch->peer_caps & CAP_LOSS);
	/* A lossy responder of a count test ends when the initiator is
	 * quiet, its window closing at the last message. */
	bool quiet_end = !initiator && lossy(lr) && !lr->s->p.time &&
			 !until_told(lr);
	bool sent = true, got = initiator;
	volatile char *seqp = lr->s->buf + lr->s->rx_off;
	unsigned char seq = 0;
	uint64_t t_sent = 0, srtt = 0, last = 0, now;

	while (!fired && !lr->s->ended) {
		uint32_t nrecv = 0;
		uint64_t wait;
		int k;

		if (sent && got && count_reached(lr, lr->st.s.msgs))
			break;
		if (!initiator && sent && !got &&
		    count_reached(lr, lr->st.s.msgs + lr->st.s.errs))
			break;
		if (sent && got) {
			if (recover)
				*seqp = (char)++seq; /* sent from there too */
			if ((recover || lr->hist) && !t_sent)
				t_sent = now_ns(); /* else the last answer's */
			k = loop_post_sends(lr, 1, err, errlen);
			if (k == SEND_FAILED) {
				/* As 0.4.11: the initiator sends again, the
				 * responder waits for the next message. */
				got = initiator;
				continue;
			}
			if (k < 0)
				return -1;
			if (k == 0)
				break;
			sent = got = false;
			continue;
		}
		wait = recover && !got ? loss_wait(srtt)
		       : quiet_end   ? LOSSY_PP_IDLE_END
				     : UINT64_MAX;
		k = loop_poll_some(lr, c, wait, err, errlen);
		if (k < 0)
			return -1;
		if (k == 0) {
			int r;

			if (recover && !got && !fired && !lr->s->ended) {
				lr->st.lost++; /* start a new exchange */
				lr->st.r.errs++;
				got = true;
				t_sent = 0; /* not timed */
				continue;
			}
			r = nothing(lr, "received", last, err, errlen);
			if (r)
				return r < 0 ? -1 : 0;
			continue;
		}
		for (int i = 0; i < k; i++) {
			if (c[i].op != OP_RECV) {
				sent = true;
				continue;
			}
			nrecv++;
			if (recover && c[i].status == TC_OK &&
			    (unsigned char)*seqp != seq)
				continue; /* late: its exchange counted lost */
			loop_count_recv(lr, &c[i]);
			got = true;
			if (!recover && !quiet_end && !lr->hist)
				continue; /* no clock read needed */
			now = time_rt(lr, c[i].status == TC_OK ? t_sent : 0);
			if (recover) {
				uint64_t rtt = now - t_sent;

				srtt = srtt ? (7 * srtt + rtt) / 8 : rtt;
			}
			t_sent = now; /* the next exchange starts here */
			if (quiet_end)
				last = now;
		}
		if (loop_repost_recvs(lr, nrecv, err, errlen) < 0)
			return -1;
	}
	measure_stop(&lr->st);
	return 0;
}

/*
 * Count k posted atomics as 0.4.11 does: each one posted is 8 bytes sent
 * (the client is the sender of its report, spec §5.6: send_cost,
 * send_bytes, send_msgs), each one completed 8 bytes the server received
 * (rem_r, below).  Reads are counted on completion only.
 */
static void count_atomics_posted(struct lrun *lr, int k)
{
	if (k <= 0)
		return;
	lr->st.s.msgs += (uint64_t)k;
	lr->st.s.bytes += (uint64_t)k * sizeof(uint64_t);
}

/* Count one completed read or atomic the way 0.4.11 does (spec §3.3). */
void loop_count_onesided(struct lrun *lr, const struct tcomp *c)
{
	struct node_stat *st = &lr->st;

	progress_note(); /* server watchdog (progress.h) */
	if (c->status != TC_OK) {
		st->r.errs++;
		return;
	}
	if (c->op == OP_READ) {
		st->r.msgs++;
		st->r.bytes += lr->s->p.msg_size;
		st->rem_s.msgs++;
		st->rem_s.bytes += lr->s->p.msg_size;
		if (lr->s->p.access_recv)
			touch(lr->s->buf, lr->s->p.msg_size);
	} else {
		st->rem_r.msgs++;
		st->rem_r.bytes += sizeof(uint64_t);
	}
}

/* RDMA read and atomic rate: depth operations kept outstanding. */
static int run_onesided(struct lrun *lr, char *err, size_t errlen)
{
	struct tcomp c[POLL_BATCH];
	uint32_t depth = tsess_depth(lr->s, false), out = 0;
	uint64_t posted = 0, t_post = 0, pwait = 0;
	bool timed = lr->hist && depth == 1; /* a latency test */

	while (!fired) {
		int k;

		ival_check(lr->iv, &lr->st);
		if (out < depth && !(count_of(lr) && posted >= count_of(lr))) {
			uint32_t n = depth - out;

			if (count_of(lr) && count_of(lr) - posted < n)
				n = (uint32_t)(count_of(lr) - posted);
			n = pace_now(lr, n, &pwait);
			if (timed && !t_post && n)
				t_post = now_ns();
			k = n ? loop_post(lr, T(lr)->op, n, err, errlen) : 0;
			if (k < 0)
				return measure_stop(&lr->st), -1;
			if (T(lr)->op != OP_READ)
				count_atomics_posted(lr, k);
			pace_sent(lr, k);
			out += (uint32_t)k;
			posted += (uint64_t)k;
		}
		if (count_of(lr) && posted >= count_of(lr) && out == 0)
			break;
		if (pwait && out == 0) {
			pace_sleep(pwait); /* nothing to poll meanwhile */
			pwait = 0;
			continue;
		}
		k = loop_poll_some(lr, c, pwait ? pwait : UINT64_MAX, err, errlen);
		if (k < 0)
			return -1;
		if (k == 0 && pwait) {
			pwait = 0;
			continue; /* the next read is due */
		}
		if (k == 0) {
			int r = nothing(lr, "received", 0, err, errlen);

			if (r)
				return r < 0 ? -1 : 0;
			continue;
		}
		for (int i = 0; i < k; i++) {
			loop_count_onesided(lr, &c[i]);
			if (timed && c[i].status != TC_OK)
				t_post = 0; /* a failed read is not timed */
			if (timed)
				t_post = time_rt(lr, t_post);
			if (out > 0)
				out--;
		}
	}
	measure_stop(&lr->st);
	return 0;
}

/* The old value 0.4.11's verify tests expect back for sequence k. */
static uint64_t ver_expect(enum op op, uint64_t k)
{
	if (op == OP_FADD)
		return k;
	return k == 0 ? 0 : ATOMIC_VER_BASE + k - 1;
}

static int post_ver(struct lrun *lr, uint32_t slot, uint64_t k, char *err,
		    size_t errlen)
{
	struct twr wr = { T(lr)->op, slot, 0, 0 };
	int rc;

	if (wr.op == OP_FADD) {
		wr.compare = 1;
	} else {
		wr.compare = k == 0 ? 0 : ATOMIC_VER_BASE + k - 1;
		wr.swap = ATOMIC_VER_BASE + k;
	}
	rc = lr->s->tp->post(lr->s, &wr, 1, err, errlen);
	count_atomics_posted(lr, rc);
	return rc;
}

/*
 * Atomics with the returned old values checked: every atomic targets
 * the peer's one 8-byte word, and sequence k must find the value that
 * sequence k-1 left there.
 */
static int run_atomic_ver(struct lrun *lr, char *err, size_t errlen)
{
	struct tcomp c[POLL_BATCH];
	uint32_t slots = lr->s->p.msg_size / 8;
	uint64_t *seq, next = 0;
	int rc = -1;

	if (slots > tsess_depth(lr->s, false))
		slots = tsess_depth(lr->s, false);
	if (slots == 0)
		return seterr(err, errlen, "message size must be at least 8");
	seq = xcalloc(slots, sizeof(*seq));
	for (uint32_t i = 0; i < slots; i++) {
		if (count_of(lr) && next >= count_of(lr))
			break;
		seq[i] = next;
		if (post_ver(lr, i, next++, err, errlen) < 0)
			goto out;
	}
	while (!fired) {
		int k = loop_poll_some(lr, c, UINT64_MAX, err, errlen);

		if (k < 0)
			goto out;
		if (k == 0) {
			int r = nothing(lr, "received", 0, err, errlen);

			if (r) {
				rc = r < 0 ? -1 : 0;
				goto out;
			}
			continue;
		}
		for (int i = 0; i < k; i++) {
			uint32_t slot = c[i].slot;
			uint64_t got, want;

			if (slot >= slots || c[i].status != TC_OK)
				continue;
			memcpy(&got, lr->s->buf + (size_t)slot * 8, 8);
			want = ver_expect(T(lr)->op, seq[slot]);
			if (got != want) {
				measure_stop(&lr->st);
				seterr(err, errlen,
				       "mismatch, sequence %llu, expected %llx, got %llx",
				       (unsigned long long)seq[slot] + 1,
				       (unsigned long long)want,
				       (unsigned long long)got);
				goto out;
			}
			loop_count_onesided(lr, &c[i]);
			if (fired || (count_of(lr) && next >= count_of(lr)))
				continue;
			seq[slot] = next;
			if (post_ver(lr, slot, next++, err, errlen) < 0)
				goto out;
		}
		if (count_of(lr) && lr->st.rem_r.msgs >= count_of(lr))
			break;
	}
	rc = 0;
out:
	measure_stop(&lr->st);
	free(seq);
	return rc;
}

static char wp_own(const struct lrun *lr)
{
	return (char)(lr->s->server ? WP_SERVER_ID : WP_CLIENT_ID);
}

static void wp_mark(struct lrun *lr)
{
	volatile char *b = lr->s->buf;

	b[0] = wp_own(lr);
	b[lr->s->p.msg_size - 1] = wp_own(lr);
}

/* Spin until the peer's write has landed in our buffer. 1 / 0 / -1. */
static int wp_spin(struct lrun *lr, char *err, size_t errlen)
{
	volatile char *b = lr->s->buf;
	char peer = (char)(lr->s->server ? WP_CLIENT_ID : WP_SERVER_ID);
	size_t last = lr->s->p.msg_size - 1;
	uint64_t deadline = now_ns() + lr->s->p.timeout;

	for (unsigned n = 0;; n++) {
		if (b[0] == peer && b[last] == peer)
			return 1;
		if (fired)
			return 0;
		if (n % SPIN_CHECK == 0 && now_ns() > deadline) {
			if (lr->s->p.time)
				deadline = now_ns() + lr->s->p.timeout;
			else
				return loop_idle_error(lr, "received", err, errlen);
		}
	}
}

/*
 * RDMA write latency by memory polling: write the whole buffer to the
 * peer, then spin until the peer's write has marked our buffer's first
 * and last bytes.  The client writes first.  No CQ events are used.
 */
static int run_write_poll(struct lrun *lr, char *err, size_t errlen)
{
	struct tcomp c[POLL_BATCH];
	bool my_turn = !lr->s->server;
	uint64_t t_post = 0;

	while (!fired) {
		int k;

		if (my_turn) {
			if (count_reached(lr, lr->st.s.msgs))
				break;
			if (lr->hist && !t_post)
				t_post = now_ns();
			k = loop_post_sends(lr, 1, err, errlen);
			if (k == SEND_FAILED)
				continue; /* write again */
			if (k <= 0)
				return k < 0 ? -1 : (measure_stop(&lr->st), 0);
			if (loop_poll_some(lr, c, 0, err, errlen) < 0)
				return -1;
			if (lr->s->server && count_reached(lr, lr->st.s.msgs))
				break;
		}
		k = wp_spin(lr, err, errlen);
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		progress_note(); /* server watchdog (progress.h) */
		if (lr->hist)
			t_post = time_rt(lr, t_post);
		lr->st.r.msgs++;
		lr->st.r.bytes += lr->s->p.msg_size;
		wp_mark(lr);
		my_turn = true;
	}
	measure_stop(&lr->st);
	return 0;
}

bool loop_idle_side(const struct test_desc *t, bool server)
{
	return server &&
	       (t->loop == LOOP_ONESIDED || t->loop == LOOP_ATOMIC_VER);
}

int loop_prep(struct lrun *lr, char *err, size_t errlen)
{
	struct tsess *s = lr->s;
	uint32_t depth = s->rx_posted ? s->rx_posted : tsess_depth(s, true);

	memset(&lr->st, 0, sizeof(lr->st));
	switch (s->t->loop) {
	case LOOP_STREAM_BW:
		if (!s->server)
			return 0;
		break;
	case LOOP_BI_BW:
		break;
	case LOOP_PINGPONG:
		/* Open loop over slots: all of them posted (openloop.c). */
		depth = s->slots ? s->slots : 1;
		break;
	case LOOP_WRITE_POLL:
		if (s->p.msg_size == 0)
			return seterr(err, errlen, "message size must be at least 1");
		wp_mark(lr);
		return 0;
	default:
		return 0;
	}
	return loop_post(lr, OP_RECV, depth, err, errlen) < 0 ? -1 : 0;
}

int loop_run(struct lrun *lr, char *err, size_t errlen)
{
	struct tsess *s = lr->s;
	uint64_t time = s->p.time;
	int rc;

	/* An open-loop responder answers past its time until the client
	 * says "test done" (core/openloop.c), and so does a connection
	 * test's server (measure_conn.c); its timer is the backstop. */
	if ((loop_open(s->t, &s->p) || s->t->loop == LOOP_CONN) &&
	    s->server && time)
		time += OL_SERVER_GRACE;
	if ((lr->shared_timer ? measure_sample(&lr->st, err, errlen)
			      : measure_start(&lr->st, time, err, errlen)) < 0)
		return -1;
	pace_setup(lr, s->t->loop == LOOP_BI_BW ||
			       (s->t->loop == LOOP_STREAM_BW && !s->server) ||
			       (s->t->loop == LOOP_ONESIDED && !s->server &&
				s->t->op == OP_READ));
	switch (s->t->loop) {
	case LOOP_STREAM_BW:
		rc = run_stream(lr, !s->server, s->server, err, errlen);
		break;
	case LOOP_BI_BW:
		rc = run_stream(lr, true, true, err, errlen);
		break;
	case LOOP_PINGPONG:
		rc = loop_open(s->t, &s->p) ? run_openloop(lr, err, errlen)
				  : run_pingpong(lr, err, errlen);
		break;
	case LOOP_ONESIDED:
	case LOOP_ATOMIC_VER:
		if (loop_idle_side(s->t, s->server)) {
			rc = lr->wait_peer(lr->wait_arg, err, errlen);
			measure_stop(&lr->st);
		} else if (s->t->loop == LOOP_ONESIDED) {
			rc = loop_open(s->t, &s->p) ?
				     run_openloop(lr, err, errlen) :
				     run_onesided(lr, err, errlen);
		} else {
			rc = run_atomic_ver(lr, err, errlen);
		}
		break;
	case LOOP_WRITE_POLL:
		rc = run_write_poll(lr, err, errlen);
		break;
	case LOOP_CONN:
		rc = run_conn(lr, err, errlen);
		break;
	default:
		rc = seterr(err, errlen, "%s: no measurement loop", s->t->name);
		break;
	}
	measure_stop(&lr->st);
	if (!lr->shared_timer)
		measure_disarm();
	/* 0.4.11 records max_cqe only in the loops that keep many operations
	 * outstanding (bandwidth, atomics), never in a latency test's: so no
	 * end of a latency test reports one (tests/interop/rdma.sh). */
	if (s->t->measure == MEAS_LATENCY)
		s->max_cqes = 0;
	return rc;
}
