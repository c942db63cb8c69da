// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Error cases of the semantics program: remote and local protection errors,
 * RNR, length errors, PSN mismatch and vanished peers.  Each checks the
 * completion status on both ends, the QP states afterwards and the
 * affiliated async events, as the InfiniBand spec and real HCAs define them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "vhelp.h"
#include "cases.h"

#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	    IBV_ACCESS_REMOTE_READ)

static int all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* ---- remote and local protection errors --------------------------- */

/*
 * A requester error case: role B offers a buffer (mr_access) on a QP with
 * qp_access; role A first optionally does a good op, then the bad one, and
 * a second WR behind it that must be flushed.
 */
struct bad_op {
	enum ibv_wr_opcode op;
	int mr_access, qp_access;
	int64_t roff;			/* remote offset (may be < 0) */
	uint32_t len;			/* bytes */
	uint32_t rkey_xor;
	enum ibv_wc_status want;
	const char *what;
};

static void remote_error_case(struct sv_side *s, const struct bad_op *o)
{
	enum { LEN = 4096 };
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (s->role == ROLE_B) {
		c.access = o->qp_access;
		c.no_access = 1;
	}
	if (side_open(s, 64, 0) < 0 ||
	    buf_new(s, &b, LEN, s->role == ROLE_B ? o->mr_access : RW) < 0)
		goto out;
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		pattern_fill(b.p, LEN, 71);
		CHECK(!post_one(qp, o->op, 1, &b, 0, o->len,
				(uint64_t)((int64_t)peer.addr + o->roff),
				peer.rkey ^ o->rkey_xor, IBV_SEND_SIGNALED) &&
		      !post_one(qp, IBV_WR_RDMA_WRITE, 2, &b, 0, 64, peer.addr,
				peer.rkey, IBV_SEND_SIGNALED),
		      "post %s and a good WRITE behind it", o->what);
		expect_wc(s->cq, 1, o->want, o->what, NULL);
		expect_wc(s->cq, 2, IBV_WC_WR_FLUSH_ERR, "the WR behind it",
			  NULL);
		expect_state(qp, IBV_QPS_ERR, "requester after the error");
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'D');
		expect_access_event(s, qp);
		CHECK(all_zero(b.p, LEN), "target buffer untouched");
	}
out:
	finish(s, qp, &b, NULL);
}

void t_bad_rkey(struct sv_side *s)
{
	static const struct bad_op o = {
		IBV_WR_RDMA_WRITE, RW, RW, 0, 256, 0x80,
		IBV_WC_REM_ACCESS_ERR, "WRITE with a bad rkey"
	};

	remote_error_case(s, &o);
}

void t_mr_no_remote(struct sv_side *s)
{
	static const struct bad_op o = {
		IBV_WR_RDMA_WRITE, IBV_ACCESS_LOCAL_WRITE, RW, 0, 256, 0,
		IBV_WC_REM_ACCESS_ERR, "WRITE to an MR without remote access"
	};

	remote_error_case(s, &o);
}

void t_qp_no_remote(struct sv_side *s)
{
	static const struct bad_op o = {
		IBV_WR_RDMA_READ, RW, IBV_ACCESS_REMOTE_WRITE, 0, 256, 0,
		IBV_WC_REM_ACCESS_ERR,
		"READ on a QP without IBV_ACCESS_REMOTE_READ"
	};

	remote_error_case(s, &o);
}

void t_out_of_bounds(struct sv_side *s)
{
	static const struct bad_op o = {
		IBV_WR_RDMA_WRITE, RW, RW, 4096 - 8, 16, 0,
		IBV_WC_REM_ACCESS_ERR, "WRITE crossing the MR end"
	};

	remote_error_case(s, &o);
}

void t_below_start(struct sv_side *s)
{
	static const struct bad_op o = {
		IBV_WR_RDMA_READ, RW, RW, -8, 8, 0,
		IBV_WC_REM_ACCESS_ERR, "READ before the MR start"
	};

	remote_error_case(s, &o);
}

void t_bad_lkey(struct sv_side *s)
{
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 1, &b, 0, 4096), "post receive");
		ctl_sync(s, 'R');
		ctl_sync(s, 'D');
		expect_quiet(s->cq, "receiver of a send with a bad lkey");
	} else {
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sge = { (uintptr_t)b.p, 64, b.mr->lkey ^ 0x80 };

		ctl_sync(s, 'R');
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		CHECK(!ibv_post_send(qp, &wr, &bad), "post SEND with a bad "
		      "lkey (the error comes as a completion)");
		expect_wc(s->cq, 1, IBV_WC_LOC_PROT_ERR, "SEND with a bad lkey",
			  NULL);
		expect_state(qp, IBV_QPS_ERR, "requester after LOC_PROT_ERR");
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/* ---- RNR, length, PSN and peer errors ------------------------------ */

void t_rnr_exceeded(struct sv_side *s)
{
	struct sv_conn c = { .rnr_set = 1, .rnr_retry = 2,
			     .min_rnr_timer = 1 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		double t0 = now_ms();

		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND, peer has no "
		      "receive, rnr_retry 2");
		expect_wc(s->cq, 1, IBV_WC_RNR_RETRY_EXC_ERR,
			  "SEND without a receive", NULL);
		note("RNR retry exceeded after %.1f ms", now_ms() - t0);
		expect_state(qp, IBV_QPS_ERR, "requester");
		ctl_sync(s, 'D');
	} else {
		ctl_sync(s, 'D');
		expect_state(qp, IBV_QPS_RTS, "responder (RNR is no error "
			     "there)");
		expect_quiet(s->cq, "responder");
	}
out:
	finish(s, qp, &b, NULL);
}

void t_rnr_wait(struct sv_side *s)
{
	struct sv_conn c = { .rnr_set = 1, .rnr_retry = 7,
			     .min_rnr_timer = 1 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		pattern_fill(b.p, 256, 81);
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 256, 0, 0,
				IBV_SEND_SIGNALED), "post SEND before the "
		      "peer's receive (rnr_retry 7)");
		expect_quiet(s->cq, "SEND waits in RNR");
		ctl_sync(s, 'P');
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "SEND after the receive "
			  "is posted", NULL);
		expect_state(qp, IBV_QPS_RTS, "requester");
	} else {
		ctl_sync(s, 'P');
		CHECK(!post_recv_one(qp, 1, &b, 0, 4096), "post the receive "
		      "late");
		if (expect_wc(s->cq, 1, IBV_WC_SUCCESS, "late receive", &wc))
			CHECK(wc.byte_len == 256 &&
			      pattern_check(b.p, 256, 81) < 0,
			      "the data arrived once RNR was over");
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

void t_recv_too_small(struct sv_side *s)
{
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 1, &b, 0, 16), "post a 16-byte "
		      "receive");
		ctl_sync(s, 'R');
		expect_wc(s->cq, 1, IBV_WC_LOC_LEN_ERR, "64 bytes into a "
			  "16-byte receive", NULL);
		expect_state(qp, IBV_QPS_ERR, "responder after LOC_LEN_ERR");
	} else {
		ctl_sync(s, 'R');
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post a 64-byte SEND");
		expect_wc(s->cq, 1, IBV_WC_REM_INV_REQ_ERR, "SEND too big for "
			  "the receive", NULL);
		expect_state(qp, IBV_QPS_ERR, "requester");
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

void t_psn_mismatch(struct sv_side *s)
{
	struct sv_conn c = { .timeout = 10, .retry_set = 1, .retry_cnt = 1 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	/* B expects PSN 0x1000, A starts at 0x1100: a sequence error */
	if (s->role == ROLE_A) {
		c.sq_psn = 0x1100;
	} else {
		c.force_rq_psn = 1;
		c.rq_psn = 0x1000;
	}
	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!post_recv_one(qp, 1, &b, 0, 4096), "post receive");
		ctl_sync(s, 'R');
		ctl_sync(s, 'D');
		expect_quiet(s->cq, "responder with the wrong PSN");
	} else {
		ctl_sync(s, 'R');
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND with PSN ahead "
		      "of the responder");
		expect_wc(s->cq, 1, IBV_WC_RETRY_EXC_ERR, "SEND with a PSN "
			  "mismatch", NULL);
		expect_state(qp, IBV_QPS_ERR, "requester");
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/* The responder's QP is destroyed: retry exceeded after the timeout. */
void t_peer_destroyed(struct sv_side *s)
{
	struct sv_conn c = { .timeout = 14, .retry_set = 1, .retry_cnt = 2 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		CHECK(!ibv_destroy_qp(qp), "destroy the responder QP");
		qp = NULL;
		ctl_sync(s, 'G');
		ctl_sync(s, 'D');
	} else {
		double t0, dt, tmo = ack_timeout_ms(c.timeout);

		ctl_sync(s, 'G');
		t0 = now_ms();
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND to a destroyed "
		      "QP");
		expect_wc(s->cq, 1, IBV_WC_RETRY_EXC_ERR, "SEND to a destroyed "
			  "QP", NULL);
		dt = now_ms() - t0;
		CHECK(dt >= tmo * 0.9, "error only after the transport timeout "
		      "(%.1f ms; one timeout is %.1f ms, %d retries)", dt, tmo,
		      c.retry_cnt);
		expect_state(qp, IBV_QPS_ERR, "requester");
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/* The responder process dies without cleaning up. */
void t_peer_exit(struct sv_side *s)
{
	struct sv_conn c = { .timeout = 12, .retry_set = 1, .retry_cnt = 1 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;

	if (s->role == ROLE_B) {
		pid_t pid;
		int st = 0;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			/* child: set up, then vanish without any teardown */
			if (side_open(s, 64, 0) == 0 &&
			    buf_new(s, &b, 4096, RW) == 0)
				qp = qp_pair(s, &c, NULL, &peer);
			fflush(stdout);
			_exit(qp ? 0 : 1);
		}
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid &&
		      WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "responder child set up and exited");
		ctl_sync(s, 'G');
		ctl_sync(s, 'D');
		return;
	}
	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 4096, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	ctl_sync(s, 'G');
	CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
			IBV_SEND_SIGNALED), "post SEND to a dead process");
	expect_wc(s->cq, 1, IBV_WC_RETRY_EXC_ERR, "SEND to a dead process",
		  NULL);
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

