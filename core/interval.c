// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interval reports; see interval.h.  The client keeps the server's
 * records in order with its own: its record of interval k is emitted
 * first, then the server's records up to k (those that came early wait
 * in a small queue, those that come late are emitted at the next tick or
 * at the end), so the lines go "loc k, rem k, loc k+1, rem k+1...".
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "transports/transport.h"
#include "ctl.h"
#include "interval.h"
#include "lib/tlv.h"
#include "lib/alloc.h"
#include "lib/err.h"

/* TLV items of a record block. */
enum ivx_item {
	IVX_INDEX = 1, /* u32 */
	IVX_START = 2, /* u64 ns from the window's start */
	IVX_END = 3, /* u64 ns */
	IVX_S_BYTES = 4, /* u64, and so on: the ustat fields */
	IVX_S_MSGS = 5,
	IVX_S_ERRS = 6,
	IVX_R_BYTES = 7,
	IVX_R_MSGS = 8,
	IVX_R_ERRS = 9,
	IVX_LAST = 10, /* u32 1: the final record */
	IVX_DONE = 11 /* u32 1: no more records follow */
};

bool ival_applies(const struct test_desc *t, bool server)
{
	if (!t || (t->measure != MEAS_BANDWIDTH &&
		   t->measure != MEAS_BANDWIDTH_SR))
		return false;
	switch (t->loop) {
	case LOOP_STREAM_BW:
	case LOOP_BI_BW:
		return true;
	case LOOP_ONESIDED:
		return !server;
	default:
		return false;
	}
}

void ival_init(struct ival *iv, uint64_t period, uint64_t time,
	       struct ival_sink out, bool server, bool peer, struct ctl *c)
{
	memset(iv, 0, sizeof(*iv));
	iv->period = period < IVAL_MIN ? IVAL_MIN : period;
	iv->time = time;
	iv->out = out;
	iv->server = server;
	iv->peer = peer && !server;
	iv->c = c;
	/* next = 0: the first check learns the window's start */
}

static void ustat_diff(struct ustat *d, const struct ustat *now,
		       const struct ustat *then)
{
	d->bytes = now->bytes - then->bytes;
	d->msgs = now->msgs - then->msgs;
	d->errs = now->errs - then->errs;
}

static void emit(struct ival *iv, const struct ival_rec *r)
{
	if (iv->failed)
		return;
	if (iv->out.emit(iv->out.arg, r, iv->err, sizeof(iv->err)) < 0)
		iv->failed = true;
}

/* Cut this side's record from prev to t (monotonic ns). */
static void cut(struct ival *iv, const struct node_stat *st, uint64_t t,
		bool last)
{
	struct ival_rec r;

	memset(&r, 0, sizeof(r));
	r.index = iv->index++;
	r.last = last;
	r.start = iv->prev - iv->base;
	r.end = t > iv->prev ? t - iv->base : r.start;
	ustat_diff(&r.s, &st->s, &iv->ps);
	ustat_diff(&r.r, &st->r, &iv->pr);
	/* a one-sided reader counts its reads in r and rem_s */
	iv->ps = st->s;
	iv->pr = st->r;
	iv->prev = t;
	emit(iv, &r);
}

/* Emit the queued server records that end before lim (ns), in order. */
static void flush_pending(struct ival *iv, uint64_t lim)
{
	int k = 0;

	while (k < iv->npend) {
		if (iv->pend[k].end >= lim) {
			k++;
			continue;
		}
		emit(iv, &iv->pend[k]);
		memmove(&iv->pend[k], &iv->pend[k + 1],
			(size_t)(iv->npend - k - 1) * sizeof(iv->pend[0]));
		iv->npend--;
	}
}

/*
 * Is the server's record r one too many, or past the test's end (its
 * time and timeout)?  Then fail with one error.  A timed test has at
 * most time / period records a side (a stall makes fewer), a count test
 * at most one per period so far; IVAL_SLACK covers the final record and
 * the two windows' offset.
 */
static bool peer_excess(struct ival *iv, const struct ival_rec *r)
{
	uint64_t span = iv->time, now = now_ns(), lim;

	if (!span)
		span = now > iv->base ? now - iv->base : 0;
	lim = span / iv->period + IVAL_SLACK;
	if (++iv->npeer <= lim &&
	    (!iv->time || r->end <= iv->time + iv->c->timeout))
		return false;
	seterr(iv->err, sizeof(iv->err),
	       "the server sent interval reports past the end of the test (%u records, one ending at %.1f s, for a %.1f s test at %.1f s intervals)",
	       iv->npeer, (double)r->end / NS_PER_SEC,
	       (double)iv->time / NS_PER_SEC,
	       (double)iv->period / NS_PER_SEC);
	iv->failed = true;
	return true;
}

/* Take one server record: now if it ends before lim, else queue it. */
static void take_peer(struct ival *iv, struct ival_rec *r, uint64_t lim)
{
	if (peer_excess(iv, r))
		return;
	r->peer = true;
	if (r->end < lim && iv->npend == 0) {
		emit(iv, r);
		return;
	}
	if (iv->npend == IVAL_PENDING)
		flush_pending(iv, UINT64_MAX); /* out of order, not lost */
	iv->pend[iv->npend++] = *r;
}

/*
 * Read the server's records that have fully arrived, without blocking.
 * An urgent error notice is left for the next blocking read to report.
 */
static void drain_peer(struct ival *iv, uint64_t lim)
{
	uint8_t blk[IVAL_BLOCK_MAX];
	char err[128];

	for (;;) {
		struct pollfd pfd = { iv->c->fd, POLLIN | POLLPRI, 0 };
		struct ival_rec r;
		size_t n;
		int avail = 0, k;

		if (iv->peer_done || iv->failed)
			return;
		if (poll(&pfd, 1, 0) != 1 || (pfd.revents & ~POLLIN))
			return;
		if (ioctl(iv->c->fd, FIONREAD, &avail) < 0 || avail < TLV_HDR)
			return;
		if (recv(iv->c->fd, blk, TLV_HDR, MSG_PEEK) != TLV_HDR)
			return;
		n = tlv_header(blk);
		if (n == 0 || n > sizeof(blk) || (size_t)avail < n)
			return; /* a bad block: the end reports it */
		if (ctl_recv_block(iv->c, blk, sizeof(blk), &n,
				   "interval report", err, sizeof(err)) < 0)
			return;
		k = ival_decode(blk, n, &r);
		if (k < 0) {
			seterr(iv->err, sizeof(iv->err),
			       "bad interval report from the server");
			iv->failed = true;
			return;
		}
		if (k == 0) { /* the server's loop has ended */
			iv->peer_done = true;
			return;
		}
		take_peer(iv, &r, lim);
	}
}

/*
 * Cut this side's record between the server's: the two sides' windows
 * start within a sync of each other, so a server record that ends more
 * than half an interval before ours goes first, one that ends within
 * half an interval of ours (the same interval) right after, and later
 * ones wait.
 */
static void cut_ordered(struct ival *iv, const struct node_stat *st,
			uint64_t t, bool last)
{
	uint64_t end = t > iv->base ? t - iv->base : 0, half = iv->period / 2;

	if (iv->peer) {
		flush_pending(iv, end > half ? end - half : 0);
		drain_peer(iv, end > half ? end - half : 0);
	}
	cut(iv, st, t, last);
	if (iv->peer)
		flush_pending(iv, end + half);
}

void ival_tick(struct ival *iv, const struct node_stat *st)
{
	uint64_t now = now_ns(), grid;

	if (iv->base == 0) { /* the loop's first check */
		iv->base = iv->prev = st->real_s;
		iv->next = iv->base + iv->period;
		if (iv->time && iv->period >= iv->time)
			iv->next = UINT64_MAX;
		if (now < iv->next)
			return;
	}
	cut_ordered(iv, st, now, false);
	/* The next end on the grid after now, at least half an interval
	 * away (a stall skips some, and leaves no stub). */
	grid = (now - iv->base + iv->period / 2) / iv->period + 1;
	iv->next = iv->base + grid * iv->period;
	if (iv->time && grid * iv->period >= iv->time)
		iv->next = UINT64_MAX; /* the final record ends the test */
}

/*
 * Client: read the server's records up to its end block (blocking), all
 * of them within the timeout after the test's time (or after now, if
 * that is later).
 */
static int read_rest(struct ival *iv, char *err, size_t errlen)
{
	uint8_t blk[IVAL_BLOCK_MAX];
	uint64_t per = iv->c->timeout, end = iv->base + iv->time, now;
	int rc = 0;

	if (end < now_ns())
		end = now_ns();
	while (!iv->peer_done && !iv->failed) {
		struct ival_rec r;
		size_t n;
		int k;

		now = now_ns();
		if (now < end + per) {
			iv->c->timeout = end + per - now;
			rc = ctl_recv_block(iv->c, blk, sizeof(blk), &n,
					    "interval report", err, errlen);
		}
		if (!iv->c->peer_failed && now_ns() >= end + per)
			rc = seterr(err, errlen,
				    "the server's interval reports did not end within %.1f s of the test's end",
				    (double)per / NS_PER_SEC);
		if (rc < 0)
			break;
		k = ival_decode(blk, n, &r);
		if (k < 0) {
			rc = seterr(err, errlen,
				    "bad interval report from the server");
			break;
		}
		if (k == 0)
			iv->peer_done = true;
		else
			take_peer(iv, &r, UINT64_MAX);
	}
	iv->c->timeout = per;
	if (rc == 0)
		flush_pending(iv, UINT64_MAX);
	return rc;
}

int ival_finish(struct ival *iv, const struct node_stat *st, char *err,
		size_t errlen)
{
	uint8_t blk[IVAL_BLOCK_MAX];

	if (iv->base == 0) /* the loop never checked: one record for all */
		iv->base = iv->prev = st->real_s;
	cut_ordered(iv, st, st->real_e ? st->real_e : now_ns(), true);
	if (iv->failed)
		return seterr(err, errlen, "%s", iv->err);
	if (iv->server) {
		size_t n = ival_encode(NULL, true, blk, sizeof(blk));

		return ctl_send_block(iv->c, blk, n, "interval reports", err,
				      errlen);
	}
	if (iv->peer && read_rest(iv, err, errlen) < 0)
		return -1;
	if (iv->failed)
		return seterr(err, errlen, "%s", iv->err);
	return 0;
}

int ival_send(void *arg, const struct ival_rec *r, char *err,
	      size_t errlen)
{
	uint8_t blk[IVAL_BLOCK_MAX];
	size_t n = ival_encode(r, false, blk, sizeof(blk));

	return ctl_send_block(arg, blk, n, "interval report", err, errlen);
}

size_t ival_encode(const struct ival_rec *r, bool done, uint8_t *out,
		   size_t cap)
{
	struct tlv_w w;

	tlv_init(&w, out, cap);
	if (done) {
		tlv_u32(&w, IVX_DONE, 1);
		return tlv_finish(&w);
	}
	tlv_u32(&w, IVX_INDEX, r->index);
	tlv_u64(&w, IVX_START, r->start);
	tlv_u64(&w, IVX_END, r->end);
	tlv_u64(&w, IVX_S_BYTES, r->s.bytes);
	tlv_u64(&w, IVX_S_MSGS, r->s.msgs);
	tlv_u64(&w, IVX_S_ERRS, r->s.errs);
	tlv_u64(&w, IVX_R_BYTES, r->r.bytes);
	tlv_u64(&w, IVX_R_MSGS, r->r.msgs);
	tlv_u64(&w, IVX_R_ERRS, r->r.errs);
	if (r->last)
		tlv_u32(&w, IVX_LAST, 1);
	return tlv_finish(&w);
}

/* IVX_DONE: a true value ends the block (and the records). */
static int ival_done_item(void *dst, const struct tlv_field *f,
			  uint16_t type, const uint8_t *val, uint16_t n)
{
	uint32_t v;

	(void)dst, (void)f, (void)type;
	if (!tlv_val_u32(val, n, &v))
		return -1;
	return v ? TLV_STOP : 0;
}

#define IVX_F(t, k, field, ...)                                           \
	{ .type = (t), .kind = (k), .off = offsetof(struct ival_rec, field), \
	  .size = sizeof(((struct ival_rec *)0)->field), __VA_ARGS__ }

static const struct tlv_field ivx_tab[] = {
	IVX_F(IVX_INDEX, TLV_U32, index, .flags = TLVF_REQ),
	IVX_F(IVX_START, TLV_U64, start, .flags = TLVF_REQ),
	IVX_F(IVX_END, TLV_U64, end, .flags = TLVF_REQ),
	IVX_F(IVX_S_BYTES, TLV_U64, s.bytes),
	IVX_F(IVX_S_MSGS, TLV_U64, s.msgs),
	IVX_F(IVX_S_ERRS, TLV_U64, s.errs),
	IVX_F(IVX_R_BYTES, TLV_U64, r.bytes),
	IVX_F(IVX_R_MSGS, TLV_U64, r.msgs),
	IVX_F(IVX_R_ERRS, TLV_U64, r.errs),
	IVX_F(IVX_LAST, TLV_U32, last, .flags = TLVF_BOOL),
	{ .type = IVX_DONE, .kind = TLV_FN, .fn = ival_done_item },
};

int ival_decode(const uint8_t *in, size_t len, struct ival_rec *r)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (len < TLV_HDR || tlv_header(in) != len)
		return -1;
	rc = tlv_decode(in, len, ivx_tab, ARRAY_SIZE(ivx_tab), r, NULL);
	if (rc == TLV_STOP)
		return 0;
	if (rc < 0 || r->end < r->start)
		return -1;
	return 1;
}
