// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interval reports (core/interval.h): the record codec (round trip, end
 * block, malformed blocks), the text line, the cutting of intervals on
 * the grid (a stall, the test time, an interval longer than the test),
 * and the client's ordering of the server's records read from a real
 * socket (early, late, the end block).
 */
#include <stdint.h>
#include <sys/socket.h>

#include "core/ctl.h"
#include "core/interval.h"
#include "output/capture.h"
#include "output/report.h"
#include "lib/tlv.h"
#include "lib/clock.h"
#include "harness.h"
#include "transports/transport.h"

#define MS 1000000ULL

/* A sink that keeps what it is given. */
struct keep {
	int n;
	struct ival_rec r[32];
};

static int keep_emit(void *arg, const struct ival_rec *r, char *err,
		     size_t errlen)
{
	struct keep *k = arg;

	(void)err;
	(void)errlen;
	if (k->n < 32)
		k->r[k->n++] = *r;
	return 0;
}

static struct ival_rec sample(void)
{
	struct ival_rec r;

	memset(&r, 0, sizeof(r));
	r.index = 7;
	r.start = 7 * NS_PER_SEC;
	r.end = 8 * NS_PER_SEC + 5;
	r.s.bytes = 1ULL << 40;
	r.s.msgs = 123456789;
	r.s.errs = 3;
	r.r.bytes = 99;
	r.r.msgs = 2;
	r.r.errs = 1;
	r.last = true;
	return r;
}

TEST(codec_round_trip)
{
	struct ival_rec a = sample(), b;
	uint8_t blk[IVAL_BLOCK_MAX];
	size_t n = ival_encode(&a, false, blk, sizeof(blk));

	CHECK(n > TLV_HDR && n <= IVAL_BLOCK_MAX);
	CHECK(tlv_header(blk) == n);
	CHECK(ival_decode(blk, n, &b) == 1);
	CHECK(b.index == 7 && b.start == a.start && b.end == a.end);
	CHECK(b.s.bytes == a.s.bytes && b.s.msgs == a.s.msgs && b.s.errs == 3);
	CHECK(b.r.bytes == 99 && b.r.msgs == 2 && b.r.errs == 1);
	CHECK(b.last && !b.peer);
	n = ival_encode(NULL, true, blk, sizeof(blk));
	CHECK(n > TLV_HDR);
	CHECK(ival_decode(blk, n, &b) == 0);
	CHECK(ival_encode(&a, false, blk, 20) == 0); /* too small */
}

/* A block of items {type, size 4 or 8, value}, ending at type 0. */
struct item {
	uint16_t type;
	int size;
	uint64_t v;
};

static size_t block(uint8_t *blk, size_t cap, const struct item *it)
{
	struct tlv_w w;

	tlv_init(&w, blk, cap);
	for (; it->type; it++)
		if (it->size == 4)
			tlv_u32(&w, it->type, (uint32_t)it->v);
		else
			tlv_u64(&w, it->type, it->v);
	return tlv_finish(&w);
}

TEST(codec_malformed)
{
	static const struct item no_end[] = { { 1, 4, 0 }, { 2, 8, 0 }, { 0 } };
	static const struct item backwards[] = { { 1, 4, 0 }, { 2, 8, 10 },
						 { 3, 8, 5 }, { 0 } };
	static const struct item short_u64[] = { { 1, 4, 0 }, { 2, 4, 0 },
						 { 3, 8, 5 }, { 0 } };
	static const struct item unknown[] = { { 1, 4, 4 }, { 2, 8, 0 },
					       { 3, 8, 5 }, { 999, 8, 1 },
					       { 0 } };
	struct ival_rec a = sample(), b;
	uint8_t blk[IVAL_BLOCK_MAX];
	size_t n = ival_encode(&a, false, blk, sizeof(blk));

	CHECK(ival_decode(blk, n - 1, &b) < 0); /* length mismatch */
	blk[0] ^= 1; /* magic */
	CHECK(ival_decode(blk, n, &b) < 0);
	n = block(blk, sizeof(blk), no_end);
	CHECK(ival_decode(blk, n, &b) < 0);
	n = block(blk, sizeof(blk), backwards);
	CHECK(ival_decode(blk, n, &b) < 0);
	n = block(blk, sizeof(blk), short_u64);
	CHECK(ival_decode(blk, n, &b) < 0);
	n = block(blk, sizeof(blk), unknown); /* skipped */
	CHECK(ival_decode(blk, n, &b) == 1 && b.index == 4);
}

TEST(format_lines)
{
	struct out_opts o = { .precision = 3 };
	struct ival_rec r;
	char buf[512];

	memset(&r, 0, sizeof(r));
	r.start = NS_PER_SEC;
	r.end = 2 * NS_PER_SEC;
	r.s.bytes = 1170000000;
	r.s.msgs = 17853;
	ival_format(buf, sizeof(buf), test_find("tcp_bw"), &o, &r);
	CHECK_STR(buf, "    1.00-2.00   sec  loc send    1.17 GB      17,853 msgs    1.17 GB/sec      17.9 K/sec\n");
	r.peer = true;
	r.r = r.s;
	r.s.bytes = 0;
	o.unify_units = true;
	o.bits = true;
	ival_format(buf, sizeof(buf), test_find("tcp_bw"), &o, &r);
	CHECK_STR(buf, "    1.00-2.00   sec  rem recv  1170000000 bytes    17853 msgs  9360000000 bits/sec   17853 /sec\n");
	/* a bidirectional side: a send and a receive line */
	ival_format(buf, sizeof(buf), test_find("rc_bi_bw"), &o, &r);
	CHECK(strstr(buf, "rem send") && strstr(buf, "rem recv"));
	/* RDMA read: the client's reads */
	r.peer = false;
	ival_format(buf, sizeof(buf), test_find("rc_rdma_read_bw"), &o, &r);
	CHECK(strstr(buf, "loc recv") && !strstr(buf, "send"));
}

TEST(applies)
{
	CHECK(ival_applies(test_find("tcp_bw"), false));
	CHECK(ival_applies(test_find("tcp_bw"), true));
	CHECK(ival_applies(test_find("udp_bw"), true));
	CHECK(ival_applies(test_find("rc_bi_bw"), true));
	CHECK(ival_applies(test_find("rc_rdma_write_bw"), true));
	CHECK(ival_applies(test_find("rc_rdma_read_bw"), false));
	CHECK(!ival_applies(test_find("rc_rdma_read_bw"), true)); /* idle */
	CHECK(!ival_applies(test_find("tcp_lat"), false));
	CHECK(!ival_applies(test_find("rc_fetch_add_mr"), false));
	CHECK(!ival_applies(test_find("conf"), false));
}

/* A window that started `ago` ns before now. */
static void window(struct node_stat *st, uint64_t ago)
{
	memset(st, 0, sizeof(*st));
	st->real_s = now_ns() - ago;
}

/* One side's interval state over a window starting now; a client with
 * peer reads the server's records from a socket pair (sv[1] is the
 * server's end). */
struct fix {
	struct keep k;
	struct node_stat st;
	struct ival iv;
	struct ctl c;
	int sv[2];
};

static void fix_setup(struct fix *f, uint64_t period, uint64_t time,
		      bool peer)
{
	struct ival_sink out = { keep_emit, &f->k };

	memset(f, 0, sizeof(*f));
	if (peer) {
		CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, f->sv) == 0);
		f->c.fd = f->sv[0];
		f->c.timeout = NS_PER_SEC;
	}
	window(&f->st, 0);
	ival_init(&f->iv, period, time, out, false, peer, &f->c);
}

TEST(grid_and_test_time)
{
	static struct fix f;
	struct keep *kp = &f.k;
	char err[128];

	/* 100 ms intervals of a 1 s test; the loop starts now */
	fix_setup(&f, 100 * MS, NS_PER_SEC, false);
	ival_tick(&f.iv, &f.st); /* first check: learns the start */
	CHECK(kp->n == 0 && f.iv.next == f.st.real_s + 100 * MS);
	/* a stall: the loop notices 230 ms later, one record to now */
	f.iv.base = f.iv.prev = f.st.real_s -= 230 * MS;
	f.iv.next = f.st.real_s + 100 * MS;
	f.st.s.bytes = 1000;
	f.st.s.msgs = 10;
	ival_tick(&f.iv, &f.st);
	CHECK(kp->n == 1 && kp->r[0].index == 0 && kp->r[0].start == 0);
	CHECK(kp->r[0].end >= 230 * MS && kp->r[0].s.bytes == 1000);
	CHECK(f.iv.next == f.st.real_s + 300 * MS); /* 200 ms skipped */
	/* at 280 ms the end at 300 is too close: the next is at 400 */
	f.iv.base = f.iv.prev = f.st.real_s = now_ns() - 280 * MS;
	f.iv.next = f.st.real_s + 200 * MS;
	ival_tick(&f.iv, &f.st);
	CHECK(kp->n == 2 && kp->r[1].s.bytes == 0);
	CHECK(f.iv.next == f.st.real_s + 400 * MS);
	kp->n = 1;
	/* at 950 ms: the next end would be 1 s, the test's end: none */
	f.iv.base = f.iv.prev = f.st.real_s = now_ns() - 950 * MS;
	f.iv.next = 0 + f.st.real_s + 900 * MS;
	f.st.s.bytes = 3000;
	f.st.s.msgs = 30;
	ival_tick(&f.iv, &f.st);
	CHECK(kp->n == 2 && kp->r[1].s.bytes == 2000 && kp->r[1].s.msgs == 20);
	CHECK(f.iv.next == UINT64_MAX);
	/* the end: the rest of the window, marked last */
	f.st.real_e = f.st.real_s + NS_PER_SEC + 1000;
	f.st.s.bytes = 3500;
	CHECK(ival_finish(&f.iv, &f.st, err, sizeof(err)) == 0);
	CHECK(kp->n == 3 && kp->r[2].last && kp->r[2].s.bytes == 500);
	CHECK(kp->r[2].end == NS_PER_SEC + 1000);
	CHECK(kp->r[0].s.bytes + kp->r[1].s.bytes + kp->r[2].s.bytes == 3500);
}

TEST(interval_longer_than_test)
{
	static struct fix f;
	struct keep *kp = &f.k;
	char err[128];

	fix_setup(&f, 5 * NS_PER_SEC, NS_PER_SEC, false);
	ival_check(&f.iv, &f.st);
	CHECK(f.iv.next == UINT64_MAX);
	f.st.real_e = f.st.real_s + NS_PER_SEC;
	f.st.r.bytes = 42;
	CHECK(ival_finish(&f.iv, &f.st, err, sizeof(err)) == 0);
	CHECK(kp->n == 1 && kp->r[0].start == 0 && kp->r[0].end == NS_PER_SEC);
	CHECK(kp->r[0].r.bytes == 42 && kp->r[0].last);
	/* a period below the minimum is raised to it */
	ival_init(&f.iv, 1, 0, f.iv.out, false, false, NULL);
	CHECK(f.iv.period == IVAL_MIN);
}

static void send_rec(int fd, uint32_t index, bool done)
{
	struct ival_rec r;
	uint8_t blk[IVAL_BLOCK_MAX];
	size_t n;

	memset(&r, 0, sizeof(r));
	r.index = index;
	r.end = (index + 1) * 100 * MS;
	r.r.bytes = 100 + index;
	n = ival_encode(&r, done, blk, sizeof(blk));
	CHECK(write(fd, blk, n) == (ssize_t)n);
}

/* Shift iv's window back by ns: its next record ends ns later. */
static void later(struct ival *iv, uint64_t ns)
{
	iv->base -= ns;
	iv->prev -= ns;
	iv->next = 0;
}

/*
 * Client side: the server's records, early and late, come in order of
 * their end times, each right after ours of the same interval.
 */
TEST(peer_order)
{
	static struct fix f;
	struct keep *kp = &f.k;
	char err[128];

	fix_setup(&f, 100 * MS, 0, true);
	ival_tick(&f.iv, &f.st); /* learns the start */
	/* the server's 0 and 1 are already here at the end of our 0 (at
	 * 100 ms): its 0 comes right after ours, its 1 waits */
	send_rec(f.sv[1], 0, false);
	send_rec(f.sv[1], 1, false);
	later(&f.iv, 100 * MS);
	ival_tick(&f.iv, &f.st);
	CHECK(kp->n == 2 && !kp->r[0].peer && kp->r[0].index == 0);
	CHECK(kp->r[1].peer && kp->r[1].index == 0);
	CHECK(f.iv.npend == 1);
	later(&f.iv, 100 * MS);
	ival_tick(&f.iv, &f.st); /* our 1 (to 200 ms), then the server's 1 */
	CHECK(kp->n == 4 && !kp->r[2].peer && kp->r[2].index == 1);
	CHECK(kp->r[3].peer && kp->r[3].index == 1);
	/* the server's 2 and 3 come late: read at the end, then its end
	 * block */
	send_rec(f.sv[1], 2, false);
	send_rec(f.sv[1], 3, false);
	send_rec(f.sv[1], 0, true);
	later(&f.iv, 100 * MS);
	f.st.real_e = now_ns();
	CHECK(ival_finish(&f.iv, &f.st, err, sizeof(err)) == 0);
	CHECK(kp->n == 7);
	CHECK(!kp->r[4].peer && kp->r[4].index == 2 && kp->r[4].last);
	CHECK(kp->r[5].peer && kp->r[5].index == 2 && kp->r[5].r.bytes == 102);
	CHECK(kp->r[6].peer && kp->r[6].index == 3);
	close(f.sv[1]);
	close(f.sv[0]);
}

/* A server that goes away before its end block: a clear error. */
TEST(peer_gone)
{
	static struct fix f;
	struct keep *kp = &f.k;
	char err[128];

	fix_setup(&f, 100 * MS, 0, true);
	send_rec(f.sv[1], 0, false);
	close(f.sv[1]);
	f.st.real_e = now_ns();
	CHECK(ival_finish(&f.iv, &f.st, err, sizeof(err)) < 0);
	CHECK(strstr(err, "interval report") != NULL);
	CHECK(kp->n == 2); /* ours, then the one that came */
	close(f.sv[0]);
}

/* Cluster mode's sink: the lowest receive rate of the receiving side. */
TEST(lowest_interval)
{
	struct ival_low l;
	struct ival_rec r;
	uint32_t n;
	char err[64];

	/* the client sends (no bytes received), the server receives */
	ival_low_init(&l, 100 * MS);
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 4; i++) {
		r.index = (uint32_t)i;
		r.start = (uint64_t)i * 100 * MS;
		r.end = r.start + 100 * MS;
		r.peer = false;
		r.s.bytes = 1000000;
		r.r.bytes = 0;
		CHECK(ival_low_emit(&l, &r, err, sizeof(err)) == 0);
		r.peer = true;
		r.s.bytes = 0;
		r.r.bytes = i == 2 ? 250000 : 1000000; /* 2.5 MB/s, else 10 */
		CHECK(ival_low_emit(&l, &r, err, sizeof(err)) == 0);
	}
	/* a final 10 ms interval with little in it is left out */
	r.index = 4;
	r.start = 400 * MS;
	r.end = 410 * MS;
	r.last = true;
	r.r.bytes = 1000;
	CHECK(ival_low_emit(&l, &r, err, sizeof(err)) == 0);
	CHECK(ival_low_result(&l, &n) == 2.5e6);
	CHECK(n == 4);

	/* a stall: an interval that took 0.5 s holds 0.1 s of data */
	ival_low_init(&l, 100 * MS);
	memset(&r, 0, sizeof(r));
	r.end = 500 * MS;
	r.r.bytes = 1000000;
	CHECK(ival_low_emit(&l, &r, err, sizeof(err)) == 0);
	CHECK(ival_low_result(&l, &n) == 2e6 && n == 1);

	/* only one interval, and short: it counts; none at all: 0 */
	ival_low_init(&l, 100 * MS);
	r.end = 10 * MS;
	r.last = true;
	CHECK(ival_low_emit(&l, &r, err, sizeof(err)) == 0);
	CHECK(ival_low_result(&l, &n) == 1e8 && n == 1);
	ival_low_init(&l, 100 * MS);
	CHECK(ival_low_result(&l, &n) == 0 && n == 0);
}

int main(void)
{
	RUN(codec_round_trip);
	RUN(codec_malformed);
	RUN(format_lines);
	RUN(applies);
	RUN(grid_and_test_time);
	RUN(interval_longer_than_test);
	RUN(peer_order);
	RUN(peer_gone);
	RUN(lowest_interval);
	return harness_done();
}
