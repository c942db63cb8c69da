// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fault-injection cases: each runs its two roles with softverbs knobs set in
 * the environment (docs/softverbs.md: SOFTVERBS_FAULT_*) and checks the
 * effect a program sees.  Rate knobs are used at 0.5 with a fixed seed and
 * 200 messages, so "some but not all" holds with certainty, not luck.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "cases.h"

#define WAIT_MS 5000
#define NMSG 200			/* messages per stream */
#define MSG_LEN 64			/* bytes */

struct msg {
	uint32_t seq;
	uint32_t magic;
	double t_sent;			/* ms, CLOCK_MONOTONIC */
};

#define MSG_MAGIC 0x5f7a11edu
#define RW_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		   IBV_ACCESS_REMOTE_READ)

/* What role B saw of a stream. */
struct stream_rx {
	int got;			/* good receive completions */
	int bad;			/* error completions or bad payloads */
	int seq[2 * NMSG + 16];		/* in arrival order */
	double lat_ms[2 * NMSG + 16];	/* arrival - send */
};

static int grh_room(enum ibv_qp_type t)
{
	return t == IBV_QPT_UD ? 40 : 0;
}

/* Role A: post n numbered messages, at most 32 outstanding; all complete. */
static void stream_send(struct sv_side *s, struct ibv_qp *qp,
			const struct sv_addr *peer, enum ibv_qp_type type,
			struct sv_buf *b, int n)
{
	struct ibv_ah *ah = NULL;
	int posted = 0, done = 0, errs = 0, inflight = 0;
	double end = now_ms() + 20000;
	struct ibv_wc wc[16];

	if (type == IBV_QPT_UD) {
		ah = ah_to(s, peer);
		if (!ah)
			return;
	}
	while (done < n && now_ms() < end) {
		while (posted < n && inflight < 32) {
			struct msg *m = (struct msg *)(void *)(b->p +
				(size_t)posted * MSG_LEN);
			int r;

			m->seq = (uint32_t)posted;
			m->magic = MSG_MAGIC;
			m->t_sent = now_ms();
			if (type == IBV_QPT_UD)
				r = post_ud(qp, ah, peer, peer->qkey,
					    (uint64_t)posted, b,
					    (size_t)posted * MSG_LEN, MSG_LEN);
			else
				r = post_one(qp, IBV_WR_SEND,
					     (uint64_t)posted, b,
					     (size_t)posted * MSG_LEN, MSG_LEN,
					     0, 0, IBV_SEND_SIGNALED);
			if (r)
				break;
			posted++;
			inflight++;
		}
		int k = ibv_poll_cq(s->cq, 16, wc);

		for (int i = 0; i < k; i++)
			errs += wc[i].status != IBV_WC_SUCCESS;
		if (k > 0) {
			done += k;
			inflight -= k;
		}
	}
	CHECK(done == n && !errs, "sender: %d sends complete successfully "
	      "(%d done, %d errors)", n, done, errs);
	ctl_send(s, 'S', NULL, 0);
	if (ah)
		ibv_destroy_ah(ah);
}

/*
 * Role B: collect completions until the sender said it is done and then
 * nothing came for quiet_ms.
 */
static void stream_recv(struct sv_side *s, enum ibv_qp_type type,
			struct sv_buf *b, int slot, struct stream_rx *rx,
			int quiet_ms)
{
	double end = now_ms() + 30000, last = 0;
	int sender_done = 0;
	struct ibv_wc wc;

	memset(rx, 0, sizeof(*rx));
	while (now_ms() < end) {
		int r = ibv_poll_cq(s->cq, 1, &wc);

		if (r == 1) {
			const struct msg *m;

			last = now_ms();
			if (wc.status != IBV_WC_SUCCESS ||
			    wc.wr_id >= (uint64_t)(2 * NMSG + 16)) {
				rx->bad++;
				continue;
			}
			m = (const struct msg *)(const void *)(b->p +
				wc.wr_id * (uint64_t)slot +
				(uint64_t)grh_room(type));
			if (m->magic != MSG_MAGIC ||
			    wc.byte_len != (uint32_t)(MSG_LEN +
						      grh_room(type))) {
				rx->bad++;
				continue;
			}
			if (rx->got < (int)(sizeof(rx->seq) /
					    sizeof(rx->seq[0]))) {
				rx->seq[rx->got] = (int)m->seq;
				rx->lat_ms[rx->got] = last - m->t_sent;
			}
			rx->got++;
			continue;
		}
		if (!sender_done) {
			struct pollfd p = { s->sock, POLLIN, 0 };

			if (poll(&p, 1, 0) == 1) {
				if (ctl_recv(s, 'S', NULL, 0) < 0)
					return;
				sender_done = 1;
				if (last < now_ms())
					last = now_ms();
			}
		} else if (now_ms() - last > quiet_ms) {
			return;
		}
	}
	CHECK(0, "receiver: stream did not go quiet within 30 s");
}

/*
 * Both roles: set up a QP of the given type (B posts nrecv receives) and
 * run one stream of n (<= NMSG) messages from A to B.  On B, *rx is filled.
 */
static void stream_case(struct sv_side *s, enum ibv_qp_type type, int n,
			int nrecv, struct stream_rx *rx, int quiet_ms)
{
	struct sv_conn c = { .type = type, .max_recv = (uint32_t)nrecv };
	int slot = MSG_LEN + grh_room(type);
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	int i;

	if (s->role == ROLE_A)
		c.max_recv = 4;
	if (side_open(s, nrecv + 64, 0) < 0 ||
	    buf_new(s, &b, (size_t)(s->role == ROLE_A ? NMSG : nrecv) *
		    (size_t)slot, IBV_ACCESS_LOCAL_WRITE) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		for (i = 0; i < nrecv; i++)
			if (post_recv_one(qp, (uint64_t)i, &b,
					  (size_t)i * (size_t)slot,
					  (uint32_t)slot))
				break;
		CHECK(i == nrecv, "post %d receives (%d posted)", nrecv, i);
		ctl_sync(s, 'R');
		stream_recv(s, type, &b, slot, rx, quiet_ms);
		CHECK(rx->bad == 0, "receiver: no error completions or "
		      "corrupt messages (%d)", rx->bad);
		note("%d of %d messages received", rx->got, n);
	} else {
		ctl_sync(s, 'R');
		stream_send(s, qp, &peer, type, &b, n);
	}
	ctl_sync(s, 'E');
out:
	finish(s, qp, &b, NULL);
}

static int count_of(const struct stream_rx *rx, int seq)
{
	int i, n = 0;

	for (i = 0; i < rx->got && i < 2 * NMSG + 16; i++)
		n += rx->seq[i] == seq;
	return n;
}

static int inversions(const struct stream_rx *rx)
{
	int i, n = 0;

	for (i = 1; i < rx->got && i < 2 * NMSG + 16; i++)
		n += rx->seq[i] < rx->seq[i - 1];
	return n;
}

static int missing(const struct stream_rx *rx)
{
	int s, n = 0;

	for (s = 0; s < NMSG; s++)
		n += count_of(rx, s) == 0;
	return n;
}

static int duplicated(const struct stream_rx *rx)
{
	int s, n = 0;

	for (s = 0; s < NMSG; s++)
		n += count_of(rx, s) > 1;
	return n;
}

static void drop_case(struct sv_side *s, enum ibv_qp_type type)
{
	struct stream_rx rx;

	stream_case(s, type, NMSG, NMSG, &rx, 150);
	if (s->role != ROLE_B)
		return;
	CHECK(rx.got > 0 && rx.got < NMSG, "drop rate 0.5: some but not all "
	      "of %d arrive (%d)", NMSG, rx.got);
	CHECK(!duplicated(&rx) && !inversions(&rx),
	      "what arrives is in order and unduplicated");
}

void t_fault_ud_drop(struct sv_side *s)
{
	drop_case(s, IBV_QPT_UD);
}

void t_fault_uc_drop(struct sv_side *s)
{
	drop_case(s, IBV_QPT_UC);
}

static void dup_case(struct sv_side *s, enum ibv_qp_type type)
{
	struct stream_rx rx;

	stream_case(s, type, NMSG, 2 * NMSG + 8, &rx, 150);
	if (s->role != ROLE_B)
		return;
	CHECK(!missing(&rx), "every message arrives (%d missing)",
	      missing(&rx));
	CHECK(rx.got > NMSG && duplicated(&rx) > 0,
	      "duplicate rate 0.5: duplicates arrive (%d receives for %d "
	      "messages)", rx.got, NMSG);
	CHECK(rx.got <= 2 * NMSG, "no message arrives more than twice");
}

void t_fault_ud_dup(struct sv_side *s)
{
	dup_case(s, IBV_QPT_UD);
}

void t_fault_uc_dup(struct sv_side *s)
{
	dup_case(s, IBV_QPT_UC);
}

static void reorder_case(struct sv_side *s, enum ibv_qp_type type)
{
	struct stream_rx rx;

	stream_case(s, type, NMSG, NMSG, &rx, 300);
	if (s->role != ROLE_B)
		return;
	CHECK(rx.got == NMSG && !missing(&rx) && !duplicated(&rx),
	      "every message arrives exactly once (%d receives)", rx.got);
	CHECK(inversions(&rx) > 0, "reorder rate 0.5: some arrive out of "
	      "order (%d inversions)", inversions(&rx));
}

void t_fault_ud_reorder(struct sv_side *s)
{
	reorder_case(s, IBV_QPT_UD);
}

void t_fault_uc_reorder(struct sv_side *s)
{
	reorder_case(s, IBV_QPT_UC);
}

/* SOFTVERBS_FAULT_DELAY=1 with DELAY_US=30000: every message >= 30 ms. */
#define NDELAY 20
static void delay_case(struct sv_side *s, enum ibv_qp_type type)
{
	struct stream_rx rx;
	double lo = 1e9, hi = 0;
	int i;

	stream_case(s, type, NDELAY, NDELAY, &rx, 300);
	if (s->role != ROLE_B)
		return;
	for (i = 0; i < rx.got && i < NDELAY; i++) {
		if (rx.lat_ms[i] < lo)
			lo = rx.lat_ms[i];
		if (rx.lat_ms[i] > hi)
			hi = rx.lat_ms[i];
	}
	CHECK(rx.got == NDELAY, "every message arrives (%d of %d)", rx.got,
	      NDELAY);
	CHECK(rx.got > 0 && lo >= 30.0 * 0.95, "each is delayed by >= 30 ms "
	      "(min %.1f ms, max %.1f ms)", lo, hi);
}

void t_fault_ud_delay(struct sv_side *s)
{
	delay_case(s, IBV_QPT_UD);
}

void t_fault_uc_delay(struct sv_side *s)
{
	delay_case(s, IBV_QPT_UC);
}

/* The UC/UD knobs at rate 1 leave RC alone: reliable, in order. */
void t_fault_rc_immune(struct sv_side *s)
{
	struct stream_rx rx;
	int i, in_order = 1;

	stream_case(s, IBV_QPT_RC, NMSG, NMSG, &rx, 100);
	if (s->role != ROLE_B)
		return;
	for (i = 0; i < rx.got && i < NMSG; i++)
		in_order &= rx.seq[i] == i;
	CHECK(rx.got == NMSG && in_order, "RC delivers all %d in order "
	      "(%d)", NMSG, rx.got);
}

/* SOFTVERBS_FAULT_RNR=2: the first SENDs on an RC QP get RNR NAKs. */
void t_fault_rnr(struct sv_side *s)
{
	struct sv_conn c0 = { .rnr_set = 1, .rnr_retry = 0,
			      .min_rnr_timer = 1 };
	struct sv_conn c7 = { .rnr_set = 1, .rnr_retry = 7,
			      .min_rnr_timer = 1 };
	struct sv_buf b = { 0 };
	struct sv_addr p0, p7;
	struct ibv_qp *q0 = NULL, *q7 = NULL;
	struct ibv_wc wc;
	int i;

	if (side_open(s, 64, 0) < 0 ||
	    buf_new(s, &b, 4096, IBV_ACCESS_LOCAL_WRITE) < 0)
		goto out;
	q0 = qp_pair(s, &c0, NULL, &p0);
	q7 = q0 ? qp_pair(s, &c7, NULL, &p7) : NULL;
	if (!q7)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(q0, 100, &b, 0, 256), "post a receive on "
		      "QP 1");
		for (i = 0; i < 3; i++)
			post_recv_one(q7, (uint64_t)i, &b,
				      512 + (size_t)i * 256, 256);
		ctl_sync(s, 'R');
		for (i = 0; i < 3; i++) {
			unsigned int seed = 110 + (unsigned int)i;

			if (expect_wc(s->cq, (uint64_t)i, IBV_WC_SUCCESS,
				      "receive on QP 2", &wc))
				CHECK(pattern_check(b.p + 512 + i * 256, 64,
						    seed) < 0,
				      "data of SEND %d", i);
		}
		ctl_sync(s, 'D');
		expect_quiet(s->cq, "QP 1's receive was never consumed");
	} else {
		ctl_sync(s, 'R');
		pattern_fill(b.p, 64, 200);
		CHECK(!post_one(q0, IBV_WR_SEND, 100, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND on QP 1 "
		      "(rnr_retry 0) though a receive is posted");
		expect_wc(s->cq, 100, IBV_WC_RNR_RETRY_EXC_ERR,
			  "forced RNR with rnr_retry 0", NULL);
		for (i = 0; i < 3; i++) {
			pattern_fill(b.p + 1024 + i * 64, 64,
				     (unsigned int)(110 + i));
			CHECK(!post_one(q7, IBV_WR_SEND, (uint64_t)i, &b,
					1024 + (size_t)i * 64, 64, 0, 0,
					IBV_SEND_SIGNALED),
			      "post SEND %d on QP 2 (rnr_retry 7)", i);
		}
		for (i = 0; i < 3; i++)
			expect_wc(s->cq, (uint64_t)i, IBV_WC_SUCCESS,
				  "SEND through forced RNRs", NULL);
		ctl_sync(s, 'D');
	}
out:
	if (q0)
		ibv_destroy_qp(q0);
	finish(s, q7, &b, NULL);
}

/*
 * SOFTVERBS_FAULT_QP_FATAL=3 (role A): 3 send WRs go through; posting the
 * 4th makes the QP fatal (async event, ERR, flush).
 */
/* Device, a 4 KiB buffer (told to the peer) and a connected RC QP pair:
 * the QP, or NULL (a FAIL recorded). */
static struct ibv_qp *rc_pair_4k(struct sv_side *s, struct sv_buf *b,
				 struct sv_addr *peer)
{
	struct sv_conn c = { 0 };

	if (side_open(s, 64, 0) < 0 || buf_new(s, b, 4096, RW_ACCESS) < 0)
		return NULL;
	return qp_pair(s, &c, b, peer);
}

void t_fault_qp_fatal(struct sv_side *s)
{
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp;
	struct ibv_async_event ev;
	int i;

	qp = rc_pair_4k(s, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		for (i = 0; i < 8; i++)
			post_recv_one(qp, (uint64_t)i, &b, (size_t)i * 256,
				      256);
		ctl_sync(s, 'R');
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'R');
		for (i = 0; i < 3; i++) {
			CHECK(!post_one(qp, IBV_WR_SEND, (uint64_t)i, &b, 0, 64,
					0, 0, IBV_SEND_SIGNALED),
			      "post SEND %d of 3", i + 1);
			expect_wc(s->cq, (uint64_t)i, IBV_WC_SUCCESS,
				  "a SEND before the fault", NULL);
		}
		expect_state(qp, IBV_QPS_RTS, "QP after 3 sends");
		CHECK(!post_one(qp, IBV_WR_SEND, 3, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND 4");
		if (CHECK(async_wait(s->ctx, WAIT_MS, IBV_EVENT_QP_FATAL, &ev),
			  "async event IBV_EVENT_QP_FATAL on the 4th post"))
			CHECK(ev.element.qp == qp, "the event names our QP");
		expect_state(qp, IBV_QPS_ERR, "QP after the fatal error");
		expect_wc(s->cq, 3, IBV_WC_WR_FLUSH_ERR, "the 4th SEND", NULL);
		CHECK(!post_one(qp, IBV_WR_SEND, 9, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post after the fault");
		expect_wc(s->cq, 9, IBV_WC_WR_FLUSH_ERR, "SEND on the dead QP",
			  NULL);
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/* SOFTVERBS_FAULT_PORT_DOWN=now (role A): the port is down from the start. */
void t_fault_port_down(struct sv_side *s)
{
	if (s->role == ROLE_B)
		return;
	if (side_open(s, 16, 0) < 0)
		goto out;
	CHECK(s->port.state == IBV_PORT_DOWN, "ibv_query_port: state "
	      "DOWN (got %d)", s->port.state);
out:
	side_close(s);
}

/*
 * SOFTVERBS_FAULT_PORT_DOWN=300 (role A): the port goes down 300 ms after
 * open; IBV_EVENT_PORT_ERR, state DOWN, and traffic stops.
 */
void t_fault_port_down_later(struct sv_side *s)
{
	struct sv_conn c = { .timeout = 12, .retry_set = 1, .retry_cnt = 1 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW_ACCESS) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		post_recv_one(qp, 1, &b, 0, 256);
		ctl_sync(s, 'D');
	} else {
		struct ibv_async_event ev;
		struct ibv_port_attr pa;
		struct ibv_wc wc;

		CHECK(s->port.state == IBV_PORT_ACTIVE, "port ACTIVE at "
		      "first");
		if (CHECK(async_wait(s->ctx, WAIT_MS, IBV_EVENT_PORT_ERR, &ev),
			  "async event IBV_EVENT_PORT_ERR"))
			CHECK(ev.element.port_num == s->port_num,
			      "the event names port %u", s->port_num);
		CHECK(!ibv_query_port(s->ctx, s->port_num, &pa) &&
		      pa.state == IBV_PORT_DOWN, "ibv_query_port: state DOWN "
		      "(got %d)", pa.state);
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND on the dead "
		      "port");
		if (CHECK(wc_wait(s->cq, WAIT_MS, &wc) == 1,
			  "the SEND completes"))
			CHECK(wc.status != IBV_WC_SUCCESS,
			      "with an error (got %s)", wc_name(wc.status));
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/*
 * SOFTVERBS_NULL=1 (both roles, docs/softverbs.md): every work request
 * completes as it is posted and nothing moves.  A's SENDs and its RDMA
 * WRITE into B's buffer complete at once with success; B's receives
 * complete at once, each with its whole length, before A sends anything;
 * B's buffer keeps its pattern (no WRITE and no SEND landed in it).
 */
void t_null_mode(struct sv_side *s)
{
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int i;

	qp = rc_pair_4k(s, &b, &peer);
	if (!qp)
		goto out;
	pattern_fill(b.p, 4096, s->role == ROLE_B ? 7 : 8);
	if (s->role == ROLE_B) {
		for (i = 0; i < 4; i++) {
			post_recv_one(qp, (uint64_t)i, &b, (size_t)i * 256,
				      256);
			if (expect_wc(s->cq, (uint64_t)i, IBV_WC_SUCCESS,
				      "a receive completing as it is posted",
				      &wc))
				CHECK(wc.opcode == IBV_WC_RECV &&
				      wc.byte_len == 256,
				      "receive %d: IBV_WC_RECV of 256 bytes "
				      "(got opcode %d, %u bytes)", i,
				      (int)wc.opcode, wc.byte_len);
		}
		ctl_sync(s, 'R');
		ctl_sync(s, 'D');
		CHECK(pattern_check(b.p, 4096, 7) < 0,
		      "B's buffer untouched by A's SENDs and RDMA WRITE");
		expect_quiet(s->cq, "no further completion on B");
	} else {
		ctl_sync(s, 'R');
		for (i = 0; i < 3; i++) {
			CHECK(!post_one(qp, IBV_WR_SEND, (uint64_t)i, &b, 0, 64,
					0, 0, IBV_SEND_SIGNALED),
			      "post SEND %d", i);
			expect_wc(s->cq, (uint64_t)i, IBV_WC_SUCCESS,
				  "a SEND completing as it is posted", NULL);
		}
		CHECK(!post_one(qp, IBV_WR_RDMA_WRITE, 9, &b, 0, 1024,
				peer.addr, peer.rkey, IBV_SEND_SIGNALED),
		      "post RDMA WRITE");
		if (expect_wc(s->cq, 9, IBV_WC_SUCCESS,
			      "an RDMA WRITE completing as it is posted", &wc))
			CHECK(wc.opcode == IBV_WC_RDMA_WRITE,
			      "opcode IBV_WC_RDMA_WRITE (got %d)",
			      (int)wc.opcode);
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}
