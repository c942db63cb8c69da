// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * softverbs semantics: verbs behaviour checked across two processes.
 *
 * Each case runs as role A (requester) and role B (responder) in separate
 * processes (harness.c).  Data cases check the bytes in the *other*
 * process; error cases check the completion status on both ends, the QP
 * state afterwards and the affiliated async events, as the InfiniBand spec
 * and real HCAs define them.  Fault-injection cases live in faults.c.
 * Only the public libibverbs API is used, so the same program can be run
 * against a real HCA or rxe to check the expectations themselves.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "vhelp.h"
#include "cases.h"

#define WAIT_MS 5000			/* a completion that must come */
#define QUIET_MS 150			/* a completion that must not come */
#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	    IBV_ACCESS_REMOTE_READ)

/* Expect one completion with this wr_id and status; returns 1 if so. */
int expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status want,
	      const char *what, struct ibv_wc *out)
{
	struct ibv_wc wc;
	int r = wc_wait_id(cq, WAIT_MS, wr_id, &wc);

	if (out)
		*out = wc;
	if (!CHECK(r == 1, "%s: a completion arrives (wr_id %llu)", what,
		   (unsigned long long)wr_id))
		return 0;
	return CHECK(wc.status == want, "%s: status %s (got %s)", what,
		     wc_name(want), wc_name(wc.status));
}

/* Expect no completion for QUIET_MS. */
int expect_quiet(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int r = wc_wait(cq, QUIET_MS, &wc);

	return CHECK(r == 0, "%s: no completion (got %s, wr_id %llu, "
		     "byte_len %u)", what, r == 1 ? wc_name(wc.status) : "none",
		     r == 1 ? (unsigned long long)wc.wr_id : 0ull,
		     r == 1 ? wc.byte_len : 0);
}

int expect_state(struct ibv_qp *qp, int want, const char *what)
{
	int st = qp_state(qp);

	return CHECK(st == want, "%s: QP state %s (got %s)", what,
		     state_name(want), state_name(st));
}

/* A QP access error on the responder: async event and ERR state. */
void expect_access_event(struct sv_side *s, struct ibv_qp *qp)
{
	struct ibv_async_event ev;
	int got = async_wait(s->ctx, WAIT_MS, IBV_EVENT_QP_ACCESS_ERR, &ev);

	if (CHECK(got, "responder gets async event IBV_EVENT_QP_ACCESS_ERR"))
		CHECK(ev.element.qp == qp, "the event names the right QP");
	expect_state(qp, IBV_QPS_ERR, "responder after the access error");
}

static int all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Teardown common to the cases. */
void finish(struct sv_side *s, struct ibv_qp *qp, struct sv_buf *b1,
	    struct sv_buf *b2)
{
	if (qp && ibv_destroy_qp(qp))
		CHECK(0, "ibv_destroy_qp");
	if (b1)
		buf_free(b1);
	if (b2)
		buf_free(b2);
	side_close(s);
}

/* ---- data movement ------------------------------------------------ */

static void t_send_recv(struct sv_side *s)
{
	struct sv_conn c = { .max_inline = 64 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 8192, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 1, &b, 0, 4096) &&
		      !post_recv_one(qp, 2, &b, 4096, 4096), "post 2 receives");
		ctl_sync(s, 'R');
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "SEND received", &wc)) {
			CHECK(wc.opcode == IBV_WC_RECV, "opcode IBV_WC_RECV");
			CHECK(wc.byte_len == 4000, "byte_len 4000 (got %u)",
			      wc.byte_len);
			CHECK(!(wc.wc_flags & IBV_WC_WITH_IMM), "no imm flag");
			CHECK(wc.qp_num == qp->qp_num, "wc.qp_num is ours");
			CHECK(pattern_check(b.p, 4000, 11) < 0, "data intact");
		}
		if (expect_wc(s->cq, 2, IBV_WC_SUCCESS, "inline SEND_WITH_IMM",
			      &wc)) {
			CHECK(wc.byte_len == 64, "byte_len 64 (got %u)",
			      wc.byte_len);
			CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "imm flag set");
			CHECK(ntohl(wc.imm_data) == 0xabcd0123,
			      "imm_data 0xabcd0123 (got 0x%x)",
			      ntohl(wc.imm_data));
			CHECK(pattern_check(b.p + 4096, 64, 12) < 0,
			      "inline data intact");
		}
		ctl_sync(s, 'D');
	} else {
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sge;

		pattern_fill(b.p, 4000, 11);
		pattern_fill(b.p + 4096, 64, 12);
		ctl_sync(s, 'R');
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 4000, 0, 0,
				IBV_SEND_SIGNALED), "post SEND");
		memset(&wr, 0, sizeof(wr));
		sge.addr = (uintptr_t)(b.p + 4096);
		sge.length = 64;
		sge.lkey = b.mr->lkey;
		wr.wr_id = 2;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(0xabcd0123);
		wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		CHECK(!ibv_post_send(qp, &wr, &bad),
		      "post inline SEND_WITH_IMM");
		/* inline: the buffer may be reused at once */
		memset(b.p + 4096, 0, 64);
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "SEND", &wc))
			CHECK(wc.opcode == IBV_WC_SEND, "opcode IBV_WC_SEND");
		expect_wc(s->cq, 2, IBV_WC_SUCCESS, "SEND_WITH_IMM", NULL);
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

static void t_rdma_read(struct sv_side *s)
{
	enum { LEN = 1 << 20 };
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;

	if (side_open(s, 64, 0) < 0 ||
	    buf_new(s, &b, LEN,
		    s->role == ROLE_B ? RW : IBV_ACCESS_LOCAL_WRITE))
		goto out;
	if (s->role == ROLE_B)
		pattern_fill(b.p, LEN, 21);
	qp = qp_pair(s, &c, s->role == ROLE_B ? &b : NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		CHECK(!post_one(qp, IBV_WR_RDMA_READ, 1, &b, 0, LEN,
				peer.addr, peer.rkey, IBV_SEND_SIGNALED),
		      "post 1 MiB RDMA READ");
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "RDMA READ", &wc)) {
			CHECK(wc.opcode == IBV_WC_RDMA_READ,
			      "opcode IBV_WC_RDMA_READ");
			CHECK(wc.byte_len == LEN, "byte_len %u (got %u)", LEN,
			      wc.byte_len);
			CHECK(pattern_check(b.p, LEN, 21) < 0,
			      "1 MiB read equals the peer's buffer "
			      "(first bad offset %ld)",
			      pattern_check(b.p, LEN, 21));
		}
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

/* RDMA WRITE gathered from three SGEs in two MRs, checked by the target. */
static void t_rdma_write_sges(struct sv_side *s)
{
	enum { L1 = 100000, L2 = 4096, L3 = 7, OFF = 13, TLEN = 256 << 10 };
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 }, b2 = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0)
		goto out;
	if (s->role == ROLE_B) {
		if (buf_new(s, &b, TLEN, RW) < 0)
			goto out;
	} else if (buf_new(s, &b, 128 << 10, IBV_ACCESS_LOCAL_WRITE) < 0 ||
		   buf_new(s, &b2, L2, IBV_ACCESS_LOCAL_WRITE) < 0) {
		goto out;
	}
	qp = qp_pair(s, &c, s->role == ROLE_B ? &b : NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sg[3] = {
			{ (uintptr_t)(b.p + 5), L1, b.mr->lkey },
			{ (uintptr_t)b2.p, L2, b2.mr->lkey },
			{ (uintptr_t)(b.p + 110000), L3, b.mr->lkey },
		};

		pattern_fill(b.p + 5, L1, 31);
		pattern_fill(b2.p, L2, 32);
		pattern_fill(b.p + 110000, L3, 33);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 9;
		wr.sg_list = sg;
		wr.num_sge = 3;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = peer.addr + OFF;
		wr.wr.rdma.rkey = peer.rkey;
		CHECK(!ibv_post_send(qp, &wr, &bad), "post 3-SGE RDMA WRITE");
		expect_wc(s->cq, 9, IBV_WC_SUCCESS, "RDMA WRITE", NULL);
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'D');
		CHECK(all_zero(b.p, OFF), "bytes before the target untouched");
		CHECK(pattern_check(b.p + OFF, L1, 31) < 0 &&
		      pattern_check(b.p + OFF + L1, L2, 32) < 0 &&
		      pattern_check(b.p + OFF + L1 + L2, L3, 33) < 0,
		      "the three SGEs landed back to back");
		CHECK(all_zero(b.p + OFF + L1 + L2 + L3,
			       TLEN - (OFF + L1 + L2 + L3)),
		      "bytes after the target untouched");
	}
out:
	finish(s, qp, &b, &b2);
}

static void t_rdma_write_imm(struct sv_side *s)
{
	enum { LEN = 64 << 10 };
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, LEN, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 7, NULL, 0, 0),
		      "post a receive without SGEs");
		ctl_sync(s, 'R');
		if (expect_wc(s->cq, 7, IBV_WC_SUCCESS, "WRITE_WITH_IMM "
			      "consumes a receive", &wc)) {
			CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM,
			      "opcode IBV_WC_RECV_RDMA_WITH_IMM (got %d)",
			      wc.opcode);
			CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "imm flag set");
			CHECK(ntohl(wc.imm_data) == 0x5eed1234,
			      "imm_data 0x5eed1234 (got 0x%x)",
			      ntohl(wc.imm_data));
			CHECK(wc.byte_len == LEN, "byte_len %u (got %u)", LEN,
			      wc.byte_len);
			CHECK(pattern_check(b.p, LEN, 41) < 0,
			      "data is in place at the completion");
		}
	} else {
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sge = { (uintptr_t)b.p, LEN, b.mr->lkey };

		pattern_fill(b.p, LEN, 41);
		ctl_sync(s, 'R');
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 3;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(0x5eed1234);
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = peer.addr;
		wr.wr.rdma.rkey = peer.rkey;
		CHECK(!ibv_post_send(qp, &wr, &bad), "post WRITE_WITH_IMM");
		if (expect_wc(s->cq, 3, IBV_WC_SUCCESS, "WRITE_WITH_IMM", &wc))
			CHECK(wc.opcode == IBV_WC_RDMA_WRITE,
			      "opcode IBV_WC_RDMA_WRITE");
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

static int post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op,
		       uint64_t wr_id, struct sv_buf *b, size_t off,
		       const struct sv_addr *peer, uint64_t raddr,
		       uint64_t cmp_add, uint64_t swap)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge = { (uintptr_t)(b->p + off), 8, b->mr->lkey };

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	wr.wr.atomic.rkey = peer->rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static void t_atomics(struct sv_side *s)
{
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;
	uint64_t *w;

	if (side_open(s, 64, 0) < 0 ||
	    buf_new(s, &b, 64, RW | IBV_ACCESS_REMOTE_ATOMIC) < 0)
		goto out;
	CHECK(s->dev.atomic_cap != IBV_ATOMIC_NONE,
	      "device reports atomic support (atomic_cap %d)",
	      s->dev.atomic_cap);
	w = (uint64_t *)(void *)b.p;
	if (s->role == ROLE_B)
		w[1] = 5;
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		uint64_t ra = peer.addr + 8;

		CHECK(!post_atomic(qp, IBV_WR_ATOMIC_FETCH_AND_ADD, 1, &b, 0,
				   &peer, ra, 10, 0), "post FETCH_AND_ADD +10");
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "FETCH_AND_ADD", &wc)) {
			CHECK(wc.opcode == IBV_WC_FETCH_ADD,
			      "opcode IBV_WC_FETCH_ADD");
			CHECK(w[0] == 5, "FAA returns the old value 5 (got "
			      "%llu)", (unsigned long long)w[0]);
		}
		CHECK(!post_atomic(qp, IBV_WR_ATOMIC_CMP_AND_SWP, 2, &b, 8,
				   &peer, ra, 15, 100), "post CAS 15->100");
		if (expect_wc(s->cq, 2, IBV_WC_SUCCESS, "CMP_AND_SWP", &wc)) {
			CHECK(wc.opcode == IBV_WC_COMP_SWAP,
			      "opcode IBV_WC_COMP_SWAP");
			CHECK(w[1] == 15, "CAS returns the old value 15 (got "
			      "%llu)", (unsigned long long)w[1]);
		}
		CHECK(!post_atomic(qp, IBV_WR_ATOMIC_CMP_AND_SWP, 3, &b, 16,
				   &peer, ra, 7, 200),
		      "post CAS 7->200 (must not swap)");
		if (expect_wc(s->cq, 3, IBV_WC_SUCCESS, "failing CAS", NULL))
			CHECK(w[2] == 100, "failed CAS returns 100 (got %llu)",
			      (unsigned long long)w[2]);
		/* misaligned target: spec says invalid request */
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'D');
		CHECK(w[1] == 100, "target word is 100 after FAA, CAS, "
		      "failed CAS (got %llu)", (unsigned long long)w[1]);
		CHECK(w[0] == 0 && w[2] == 0, "neighbouring words untouched");
	}
out:
	finish(s, qp, &b, NULL);
}

/* Many outstanding fetch-and-adds from two QPs: none may be lost. */
static void t_atomics_many(struct sv_side *s)
{
	enum { PER_QP = 400, DEPTH = 16 };
	struct sv_conn c = { .max_send = DEPTH * 2 };
	struct sv_buf b = { 0 };
	struct sv_addr peer[2];
	struct ibv_qp *qp[2] = { NULL, NULL };
	uint64_t *w;
	int q;

	if (side_open(s, 256, 0) < 0 ||
	    buf_new(s, &b, 4096, RW | IBV_ACCESS_REMOTE_ATOMIC) < 0)
		goto out;
	w = (uint64_t *)(void *)b.p;
	for (q = 0; q < 2; q++) {
		qp[q] = qp_pair(s, &c, &b, &peer[q]);
		if (!qp[q])
			goto out;
	}
	if (s->role == ROLE_A) {
		int posted[2] = { 0, 0 }, done = 0, errs = 0, n, i;
		int inflight[2] = { 0, 0 };
		struct ibv_wc wc[16];
		double end = now_ms() + 20000;

		while (done < 2 * PER_QP && now_ms() < end) {
			for (q = 0; q < 2; q++)
				while (posted[q] < PER_QP &&
				       inflight[q] < DEPTH) {
					if (post_atomic(qp[q],
						IBV_WR_ATOMIC_FETCH_AND_ADD,
						(uint64_t)q, &b,
						8 * (size_t)(1 + q * DEPTH +
						inflight[q] % DEPTH),
						&peer[q], peer[q].addr,
						q ? 1ull << 32 : 1, 0))
						break;
					posted[q]++;
					inflight[q]++;
				}
			n = ibv_poll_cq(s->cq, 16, wc);
			for (i = 0; i < n; i++) {
				errs += wc[i].status != IBV_WC_SUCCESS;
				inflight[wc[i].wr_id ? 1 : 0]--;
				done++;
			}
		}
		CHECK(done == 2 * PER_QP && !errs,
		      "%d fetch-and-adds on 2 QPs complete without error "
		      "(%d done, %d errors)", 2 * PER_QP, done, errs);
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'D');
		CHECK(w[0] == ((uint64_t)PER_QP << 32) + PER_QP,
		      "target sums both streams (0x%llx)",
		      (unsigned long long)w[0]);
	}
out:
	for (q = 0; q < 2; q++)
		if (qp[q])
			ibv_destroy_qp(qp[q]);
	finish(s, NULL, &b, NULL);
}

/*
 * qperf's *_poll_lat and many RDMA programs poll the last byte of the
 * target buffer: when it changes, the whole message must be in place.
 */
static void t_write_last_byte(struct sv_side *s)
{
	enum { LEN = 1 << 20, ROUNDS = 8 };
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	int i, bad = 0, seen = 0;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, LEN, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	for (i = 0; i < ROUNDS; i++) {
		unsigned int seed = 50 + (unsigned int)i;

		if (s->role == ROLE_A) {
			pattern_fill(b.p, LEN, seed);
			b.p[LEN - 1] = 0xA5;
			ctl_sync(s, 'R');
			if (post_one(qp, IBV_WR_RDMA_WRITE, (uint64_t)i, &b, 0,
				     LEN, peer.addr, peer.rkey,
				     IBV_SEND_SIGNALED) ||
			    !expect_wc(s->cq, (uint64_t)i, IBV_WC_SUCCESS,
				       "1 MiB RDMA WRITE", NULL))
				break;
			ctl_sync(s, 'W');
		} else {
			volatile uint8_t *last = b.p + LEN - 1;
			double end;

			memset(b.p, 0, LEN);
			ctl_sync(s, 'R');
			end = now_ms() + WAIT_MS;
			while (*last != 0xA5 && now_ms() < end)
				;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (*last == 0xA5) {
				seen++;
				if (pattern_check(b.p, LEN - 1, seed) >= 0)
					bad++;
			}
			ctl_sync(s, 'W');
		}
	}
	if (s->role == ROLE_B)
		CHECK(seen == ROUNDS && !bad, "last byte seen in %d/%d rounds; "
		      "buffer complete when it was in %d", seen, ROUNDS,
		      seen - bad);
out:
	finish(s, qp, &b, NULL);
}

/* An MR registered with an iova: the peer addresses it by iova. */
static void t_mr_iova(struct sv_side *s)
{
	enum { LEN = 8192 };
	const uint64_t iova = 0x10000000ull;
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 ||
	    buf_new_iova(s, &b, LEN, s->role == ROLE_B ? iova : 0, RW) < 0)
		goto out;
	if (s->role == ROLE_B)		/* what A will READ, before connecting */
		pattern_fill(b.p + LEN - 64, 64, 62);
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		CHECK(peer.addr == iova, "peer advertises its iova");
		pattern_fill(b.p, 100, 61);
		CHECK(!post_one(qp, IBV_WR_RDMA_WRITE, 1, &b, 0, 100,
				iova + 200, peer.rkey, IBV_SEND_SIGNALED),
		      "post WRITE to iova+200");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "WRITE by iova", NULL);
		CHECK(!post_one(qp, IBV_WR_RDMA_READ, 2, &b, 1000, 64,
				iova + LEN - 64, peer.rkey, IBV_SEND_SIGNALED),
		      "post READ of the last 64 bytes by iova");
		if (expect_wc(s->cq, 2, IBV_WC_SUCCESS, "READ by iova", NULL))
			CHECK(pattern_check(b.p + 1000, 64, 62) < 0,
			      "READ by iova returns the right bytes");
		ctl_sync(s, 'D');
		CHECK(!post_one(qp, IBV_WR_RDMA_WRITE, 3, &b, 0, 8,
				iova + LEN, peer.rkey, IBV_SEND_SIGNALED),
		      "post WRITE just past iova+len");
		expect_wc(s->cq, 3, IBV_WC_REM_ACCESS_ERR,
			  "WRITE past the iova range", NULL);
		ctl_sync(s, 'E');
	} else {
		ctl_sync(s, 'D');
		CHECK(pattern_check(b.p + 200, 100, 61) < 0 &&
		      all_zero(b.p, 200) && all_zero(b.p + 300, 100),
		      "iova+200 maps to buffer offset 200");
		ctl_sync(s, 'E');
	}
out:
	finish(s, qp, &b, NULL);
}

/* ---- completion channel ------------------------------------------- */

static void t_comp_channel(struct sv_side *s)
{
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, s->role == ROLE_B) < 0 ||
	    buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		struct pollfd pfd = { s->chan->fd, POLLIN, 0 };
		struct ibv_cq *ecq = NULL;
		void *ectx = NULL;
		struct ibv_wc wc;

		CHECK(!post_recv_one(qp, 1, &b, 0, 4096), "post receive");
		CHECK(!ibv_req_notify_cq(s->cq, 0), "arm the CQ");
		CHECK(poll(&pfd, 1, 50) == 0, "channel fd not readable "
		      "before any completion");
		ctl_sync(s, 'R');
		CHECK(poll(&pfd, 1, WAIT_MS) == 1 && (pfd.revents & POLLIN),
		      "channel fd becomes readable (poll)");
		if (CHECK(!ibv_get_cq_event(s->chan, &ecq, &ectx),
			  "ibv_get_cq_event")) {
			CHECK(ecq == s->cq, "event names our CQ");
			ibv_ack_cq_events(s->cq, 1);
		}
		if (CHECK(wc_wait(s->cq, WAIT_MS, &wc) == 1,
			  "completion is there after the event"))
			CHECK(wc.status == IBV_WC_SUCCESS &&
			      wc.opcode == IBV_WC_RECV, "a good receive");
		pfd.revents = 0;
		CHECK(poll(&pfd, 1, 0) == 0, "no second event unarmed");
	} else {
		ctl_sync(s, 'R');
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 100, 0, 0,
				IBV_SEND_SIGNALED), "post SEND");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "SEND", NULL);
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

/* ---- QP state machine ------------------------------------------------ */

static void t_qp_states(struct sv_side *s)
{
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct sv_addr me;
	struct ibv_qp *qp = NULL;
	int rtr, rts;

	if (s->role == ROLE_B)
		return;			/* a one-process case */
	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(s->pd, &ia);
	if (!CHECK(qp, "ibv_create_qp"))
		goto out;
	expect_state(qp, IBV_QPS_RESET, "new QP");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = s->port_num;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_ACCESS_FLAGS), "RESET->INIT without "
	      "IBV_QP_PORT is refused");
	rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	a.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &a, rtr), "RESET->RTR is refused");
	expect_state(qp, IBV_QPS_RESET, "after refused transitions");
	a.qp_state = IBV_QPS_INIT;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	      "RESET->INIT with the required mask");
	expect_state(qp, IBV_QPS_INIT, "after INIT");
	CHECK(post_one(qp, IBV_WR_SEND, 1, &b, 0, 8, 0, 0, IBV_SEND_SIGNALED),
	      "post_send in INIT is refused");
	CHECK(!post_recv_one(qp, 2, &b, 0, 64), "post_recv in INIT is fine");

	addr_of(s, qp, &c, &me);	/* connect to ourselves */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = me.qpn;
	a.rq_psn = 0x123;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = me.lid;
	a.ah_attr.port_num = s->port_num;
	if (s->global) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.hop_limit = 1;
		memcpy(a.ah_attr.grh.dgid.raw, me.gid, 16);
	}
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN),
	      "INIT->RTR without IBV_QP_AV is refused");
	expect_state(qp, IBV_QPS_INIT, "after a refused RTR");
	CHECK(!ibv_modify_qp(qp, &a, rtr), "INIT->RTR with the required mask");
	if (expect_state(qp, IBV_QPS_RTR, "after RTR")) {
		memset(&a, 0, sizeof(a));
		CHECK(!ibv_query_qp(qp, &a, IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_PATH_MTU, &ia) &&
		      a.dest_qp_num == me.qpn && a.rq_psn == 0x123 &&
		      a.path_mtu == IBV_MTU_1024,
		      "ibv_query_qp returns the RTR attributes");
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x123;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	rts = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	CHECK(ibv_modify_qp(qp, &a, rts), "RTR->RTS without IBV_QP_SQ_PSN "
	      "is refused");
	CHECK(!ibv_modify_qp(qp, &a, rts | IBV_QP_SQ_PSN),
	      "RTR->RTS with the required mask");
	if (expect_state(qp, IBV_QPS_RTS, "after RTS")) {
		memset(&a, 0, sizeof(a));
		CHECK(!ibv_query_qp(qp, &a, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT, &ia) &&
		      a.sq_psn == 0x123 && a.timeout == 14 &&
		      a.retry_cnt == 7, "ibv_query_qp returns the RTS "
		      "attributes");
	}
	/* loopback SEND to ourselves consumes the receive posted in INIT */
	CHECK(!post_one(qp, IBV_WR_SEND, 3, &b, 1024, 16, 0, 0,
			IBV_SEND_SIGNALED), "post SEND to ourselves");
	{
		/* the send and the receive complete on one CQ, either first */
		int got = 0, ok = 0, i;
		struct ibv_wc wc;

		for (i = 0; i < 2 && wc_wait(s->cq, WAIT_MS, &wc) == 1; i++) {
			got |= wc.wr_id == 3 ? 1 : wc.wr_id == 2 ? 2 : 4;
			ok += wc.status == IBV_WC_SUCCESS;
		}
		CHECK(got == 3 && ok == 2, "loopback SEND and its receive "
		      "complete successfully");
	}

	CHECK(!post_recv_one(qp, 4, &b, 0, 64), "post a receive");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "RTS->ERR");
	expect_state(qp, IBV_QPS_ERR, "after ERR");
	expect_wc(s->cq, 4, IBV_WC_WR_FLUSH_ERR, "receive flushed by ERR",
		  NULL);
	CHECK(!post_one(qp, IBV_WR_SEND, 5, &b, 0, 8, 0, 0,
			IBV_SEND_SIGNALED), "post_send in ERR is accepted");
	expect_wc(s->cq, 5, IBV_WC_WR_FLUSH_ERR, "send posted in ERR", NULL);
	a.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "ERR->RESET");
	expect_state(qp, IBV_QPS_RESET, "after RESET");
out:
	finish(s, qp, &b, NULL);
}

/* ---- UD ---------------------------------------------------------------- */

int post_ud(struct ibv_qp *qp, struct ibv_ah *ah, const struct sv_addr *peer,
	    uint32_t qkey, uint64_t wr_id, struct sv_buf *b, size_t off,
	    uint32_t len)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge = { (uintptr_t)(b->p + off), len, b->mr->lkey };

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = peer->qpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &wr, &bad);
}

static void t_ud_qkey(struct sv_side *s)
{
	enum { LEN = 256, SLOT = LEN + 40 };
	struct sv_conn c = { .type = IBV_QPT_UD };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4 * SLOT, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 1, &b, 0, SLOT) &&
		      !post_recv_one(qp, 2, &b, SLOT, SLOT),
		      "post two receives with 40 bytes of GRH room");
		ctl_sync(s, 'R');
		ctl_sync(s, 'B');
		expect_quiet(s->cq, "datagram with the wrong qkey is dropped");
		ctl_sync(s, 'N');
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "datagram with the "
			      "right qkey", &wc)) {
			CHECK(wc.byte_len == LEN + 40, "byte_len %d + 40 "
			      "(got %u)", LEN, wc.byte_len);
			CHECK(pattern_check(b.p + 40, LEN, 91) < 0,
			      "payload after the 40-byte GRH area");
			CHECK(wc.src_qp == peer.qpn, "src_qp is the sender's");
			CHECK(!!(wc.wc_flags & IBV_WC_GRH) == s->global,
			      "IBV_WC_GRH %s", s->global ? "set (GRH sent)" :
			      "clear (no GRH)");
		}
	} else {
		ah = ah_to(s, &peer);
		if (!ah)
			goto out;
		pattern_fill(b.p, LEN, 91);
		ctl_sync(s, 'R');
		CHECK(!post_ud(qp, ah, &peer, 0x22222222, 1, &b, 0, LEN),
		      "post UD SEND with the wrong qkey");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "UD SEND completes anyway",
			  NULL);
		ctl_sync(s, 'B');
		ctl_sync(s, 'N');
		CHECK(!post_ud(qp, ah, &peer, peer.qkey, 2, &b, 0, LEN),
		      "post UD SEND with the right qkey");
		expect_wc(s->cq, 2, IBV_WC_SUCCESS, "UD SEND", NULL);
	}
	ctl_sync(s, 'D');
out:
	if (ah)
		ibv_destroy_ah(ah);
	finish(s, qp, &b, NULL);
}

/* ---- two emulated hosts -------------------------------------------- */

static void t_two_hosts(struct sv_side *s)
{
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		CHECK(memcmp(peer.gid, s->gid.raw, 16) != 0 &&
		      (s->global || peer.lid != s->port.lid),
		      "the hosts have distinct addresses (LID %u vs %u)",
		      s->port.lid, peer.lid);
		pattern_fill(b.p, 4096, 101);
		CHECK(!post_one(qp, IBV_WR_RDMA_WRITE, 1, &b, 0, 4096,
				peer.addr, peer.rkey, IBV_SEND_SIGNALED),
		      "post WRITE to the other host");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "WRITE across hosts", NULL);
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'D');
		CHECK(pattern_check(b.p, 4096, 101) < 0, "data arrived");
	}
out:
	finish(s, qp, &b, NULL);
}

const struct sv_test sv_tests[] = {
	{ "send_recv", t_send_recv, NULL, NULL, 0,
	  "SEND and inline SEND_WITH_IMM data, lengths, flags" },
	{ "rdma_read", t_rdma_read, NULL, NULL, 0,
	  "1 MiB RDMA READ returns the peer's bytes" },
	{ "rdma_write_sges", t_rdma_write_sges, NULL, NULL, 0,
	  "RDMA WRITE gathered from 3 SGEs lands exactly" },
	{ "rdma_write_imm", t_rdma_write_imm, NULL, NULL, 0,
	  "WRITE_WITH_IMM data, immediate and receive consumption" },
	{ "atomics", t_atomics, NULL, NULL, 0,
	  "FETCH_AND_ADD and CMP_AND_SWP values, both ends" },
	{ "atomics_many", t_atomics_many, NULL, NULL, 0,
	  "800 outstanding FAAs on 2 QPs lose nothing" },
	{ "write_last_byte", t_write_last_byte, NULL, NULL, 0,
	  "a polled last byte means the whole WRITE is in place" },
	{ "mr_iova", t_mr_iova, NULL, NULL, 0,
	  "MR registered with an iova is addressed by iova" },
	{ "comp_channel", t_comp_channel, NULL, NULL, 0,
	  "completion channel fd is pollable; events and acks" },
	{ "qp_states", t_qp_states, NULL, NULL, 0,
	  "QP state machine, required masks, flush in ERR" },
	{ "bad_rkey", t_bad_rkey, NULL, NULL, 0,
	  "bad rkey: REM_ACCESS_ERR, flush, ERR, responder event" },
	{ "mr_no_remote", t_mr_no_remote, NULL, NULL, 0,
	  "MR without remote access: REM_ACCESS_ERR" },
	{ "qp_no_remote", t_qp_no_remote, NULL, NULL, 0,
	  "QP without remote read: REM_ACCESS_ERR" },
	{ "out_of_bounds", t_out_of_bounds, NULL, NULL, 0,
	  "WRITE crossing the MR end: REM_ACCESS_ERR" },
	{ "below_start", t_below_start, NULL, NULL, 0,
	  "READ before the MR start: REM_ACCESS_ERR" },
	{ "bad_lkey", t_bad_lkey, NULL, NULL, 0,
	  "bad lkey: LOC_PROT_ERR completion, nothing sent" },
	{ "rnr_exceeded", t_rnr_exceeded, NULL, NULL, 0,
	  "no receive, rnr_retry 2: RNR_RETRY_EXC_ERR" },
	{ "rnr_wait", t_rnr_wait, NULL, NULL, 0,
	  "rnr_retry 7: SEND waits for a late receive, then succeeds" },
	{ "recv_too_small", t_recv_too_small, NULL, NULL, 0,
	  "LOC_LEN_ERR on the receiver, REM_INV_REQ_ERR on the sender" },
	{ "psn_mismatch", t_psn_mismatch, NULL, NULL, 0,
	  "PSN ahead of the responder: RETRY_EXC_ERR, nothing received" },
	{ "peer_destroyed", t_peer_destroyed, NULL, NULL, 0,
	  "destroyed peer QP: RETRY_EXC_ERR after the timeout" },
	{ "peer_exit", t_peer_exit, NULL, NULL, 0,
	  "peer process gone: RETRY_EXC_ERR" },
	{ "ud_qkey", t_ud_qkey, NULL, NULL, 0,
	  "UD qkey mismatch drops; GRH area, src_qp, byte_len" },
	{ "two_hosts", t_two_hosts, "SOFTVERBS_NODE=1", "SOFTVERBS_NODE=2", 0,
	  "two emulated hosts (distinct node ids) talk" },
	{ "uc_silent", t_uc_silent, NULL, NULL, 0,
	  "UC: no receive or bad rkey drop silently; QP stays RTS" },
	{ "ud_no_recv_mtu", t_ud_no_recv_mtu, NULL, NULL, 0,
	  "UD: no receive drops; MTU+1 bytes refused" },
	{ "ud_mtu_1024", t_ud_no_recv_mtu, "SOFTVERBS_MTU=1024",
	  "SOFTVERBS_MTU=1024", 0,
	  "SOFTVERBS_MTU=1024: active_mtu 1024; 1025-byte datagram refused" },
	{ "qp_ex", t_qp_ex, NULL, NULL, 0,
	  "ibv_wr_* WRITE/READ/FAA batch, ibv_cq_ex polling" },
	{ "fork_child", t_fork_child, NULL, NULL, 0,
	  "a forked child neither crashes nor steals the parent's traffic" },
	{ "fabric_apart", t_fabric_apart, NULL,
	  "SOFTVERBS_FABRIC=sv-semantics-elsewhere", 0,
	  "another SOFTVERBS_FABRIC is unreachable (RETRY_EXC_ERR)" },
	{ "numa_none", t_numa_sysfs, NULL, NULL, 0,
	  "no SOFTVERBS_NUMA_NODE: no <ibdev_path>/device/numa_node" },
	{ "numa_sysfs", t_numa_sysfs, "SOFTVERBS_NUMA_NODE=0",
	  "SOFTVERBS_NUMA_NODE=3", 0,
	  "SOFTVERBS_NUMA_NODE: <ibdev_path>/device/numa_node holds it" },
	{ "knob_limits", t_knob_limits, NULL, NULL, 0,
	  "max_srq_wr, max inline data 1024, one P_Key (qperf's knobs)" },
	{ "odp", t_odp, NULL, NULL, 0,
	  "odp_caps, implicit ODP, pages at registration, ibv_advise_mr" },
	FAULT_CASES
	GID_CASES
	{ NULL, NULL, NULL, NULL, 0, NULL },
};
