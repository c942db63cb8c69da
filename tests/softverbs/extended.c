// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * More semantics cases: the unreliable transports' silent drops (UC, UD),
 * the UD MTU limit, the extended verbs (ibv_qp_ex ibv_wr_* posting and
 * ibv_cq_ex polling), and fork safety (a forked child must not disturb the
 * parent's traffic), the device's NUMA node in sysfs and the limits of
 * qperf's verbs knobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "vhelp.h"
#include "cases.h"

#define WAIT_MS 5000
#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	    IBV_ACCESS_REMOTE_READ)

/*
 * UC: a SEND without a posted receive and a WRITE with a bad rkey complete
 * successfully at the sender and vanish at the receiver, whose QP stays
 * in RTS; a later SEND is received normally.
 */
void t_uc_silent(struct sv_side *s)
{
	struct sv_conn c = { .type = IBV_QPT_UC };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc;

	if (side_open(s, 64, 0) < 0 || buf_new(s, &b, 8192, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, &b, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		pattern_fill(b.p, 64, 1);
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post UC SEND, no receive "
		      "posted");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "UC SEND without a "
			  "receive", NULL);
		CHECK(!post_one(qp, IBV_WR_RDMA_WRITE, 2, &b, 0, 64, peer.addr,
				peer.rkey ^ 0x80, IBV_SEND_SIGNALED),
		      "post UC WRITE with a bad rkey");
		expect_wc(s->cq, 2, IBV_WC_SUCCESS, "UC WRITE with a bad rkey",
			  NULL);
		expect_state(qp, IBV_QPS_RTS, "UC requester");
		ctl_sync(s, 'R');
		ctl_sync(s, 'P');
		pattern_fill(b.p + 100, 64, 2);
		CHECK(!post_one(qp, IBV_WR_SEND, 3, &b, 100, 64, 0, 0,
				IBV_SEND_SIGNALED), "post UC SEND after the "
		      "receive is there");
		expect_wc(s->cq, 3, IBV_WC_SUCCESS, "UC SEND", NULL);
	} else {
		ctl_sync(s, 'R');
		expect_quiet(s->cq, "UC receiver");
		expect_state(qp, IBV_QPS_RTS, "UC receiver after the drops");
		CHECK(pattern_check(b.p, 64, 1) >= 0, "bad-rkey WRITE did not "
		      "land");
		memset(b.p + 4096, 0, 64);
		CHECK(!post_recv_one(qp, 7, &b, 4096, 4096), "post receive");
		ctl_sync(s, 'P');
		if (expect_wc(s->cq, 7, IBV_WC_SUCCESS, "the later SEND", &wc))
			CHECK(wc.byte_len == 64 &&
			      pattern_check(b.p + 4096, 64, 2) < 0,
			      "receives the later message, not the dropped "
			      "one (byte_len %u)", wc.byte_len);
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

static uint32_t mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;		/* IBV_MTU_256 is 1 */
}

/*
 * UD: a datagram without a posted receive is dropped (not queued); one
 * longer than the path MTU is refused at the sender.
 */
void t_ud_no_recv_mtu(struct sv_side *s)
{
	struct sv_conn c = { .type = IBV_QPT_UD };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	uint32_t mtu;

	if (side_open(s, 64, 0) < 0)
		goto out;
	mtu = mtu_bytes(s->port.active_mtu);
	if (getenv("SOFTVERBS_MTU"))
		CHECK(mtu == (uint32_t)atoi(getenv("SOFTVERBS_MTU")),
		      "active_mtu follows SOFTVERBS_MTU=%s (%u)",
		      getenv("SOFTVERBS_MTU"), mtu);
	if (buf_new(s, &b, 2 * (mtu + 40) + 8192, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_A) {
		int r;

		ah = ah_to(s, &peer);
		if (!ah)
			goto out;
		pattern_fill(b.p, 64, 3);
		CHECK(!post_ud(qp, ah, &peer, peer.qkey, 1, &b, 0, 64),
		      "post UD SEND, no receive posted");
		expect_wc(s->cq, 1, IBV_WC_SUCCESS, "UD SEND without a "
			  "receive", NULL);
		ctl_sync(s, 'R');
		ctl_sync(s, 'P');
		pattern_fill(b.p + 100, 64, 4);
		CHECK(!post_ud(qp, ah, &peer, peer.qkey, 2, &b, 100, 64),
		      "post UD SEND after the receive is there");
		expect_wc(s->cq, 2, IBV_WC_SUCCESS, "UD SEND", NULL);
		ctl_sync(s, 'S');
		r = post_ud(qp, ah, &peer, peer.qkey, 3, &b, 0, mtu + 1);
		if (r) {
			CHECK(1, "UD SEND of MTU+1 (%u) bytes refused at post "
			      "(%d)", mtu + 1, r);
		} else if (CHECK(wc_wait(s->cq, WAIT_MS, &wc) == 1,
				 "UD SEND of MTU+1 bytes completes")) {
			CHECK(wc.status == IBV_WC_LOC_LEN_ERR,
			      "UD SEND of MTU+1 (%u) bytes: LOC_LEN_ERR "
			      "(got %s)", mtu + 1, wc_name(wc.status));
		}
		ctl_sync(s, 'M');
	} else {
		ctl_sync(s, 'R');
		/*
		 * The datagram sent without a receive is on its way (A saw its
		 * completion); polling lets the library process it before a
		 * receive exists, as on the wire.
		 */
		expect_quiet(s->cq, "datagram without a receive is dropped");
		CHECK(!post_recv_one(qp, 7, &b, 0, mtu + 40) &&
		      !post_recv_one(qp, 8, &b, mtu + 40, mtu + 40),
		      "post two receives");
		ctl_sync(s, 'P');
		ctl_sync(s, 'S');
		if (expect_wc(s->cq, 7, IBV_WC_SUCCESS, "the later datagram",
			      &wc))
			CHECK(wc.byte_len == 64 + 40 &&
			      pattern_check(b.p + 40, 64, 4) < 0,
			      "receives the later datagram, not the dropped "
			      "one (byte_len %u; mismatch at %ld; the dropped "
			      "one would mismatch at %ld)", wc.byte_len,
			      pattern_check(b.p + 40, 64, 4),
			      pattern_check(b.p + 40, 64, 3));
		ctl_sync(s, 'M');
		expect_quiet(s->cq, "nothing of the oversized datagram");
	}
	ctl_sync(s, 'D');
out:
	if (ah)
		ibv_destroy_ah(ah);
	finish(s, qp, &b, NULL);
}

/* CLOCK_MONOTONIC in ns: what softverbs' completion timestamps count. */
static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Poll a cq_ex for want completions within WAIT_MS (ts: the CQ was made
 * with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): how many came. */
struct exwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t qp_num;
	uint64_t ts; /* ibv_wc_read_completion_ts, if the CQ asked for it */
};

static int cqx_collect(struct ibv_cq_ex *cq, struct exwc *out, int want,
		       bool ts)
{
	struct ibv_poll_cq_attr pa;
	double end = now_ms() + WAIT_MS;
	int n = 0, r;

	while (n < want && now_ms() < end) {
		memset(&pa, 0, sizeof(pa));
		r = ibv_start_poll(cq, &pa);
		if (r == ENOENT)
			continue;
		if (r)
			return n;
		do {
			out[n].wr_id = cq->wr_id;
			out[n].status = cq->status;
			out[n].opcode = ibv_wc_read_opcode(cq);
			out[n].byte_len = ibv_wc_read_byte_len(cq);
			out[n].qp_num = ibv_wc_read_qp_num(cq);
			out[n].ts = ts ? ibv_wc_read_completion_ts(cq) : 0;
			n++;
		} while (n < want && ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
	}
	return n;
}

/*
 * The extended API: a QP from ibv_create_qp_ex posting WRITE, READ and
 * FETCH_AND_ADD with ibv_wr_* in one batch, completions read through an
 * ibv_cq_ex; role B checks the bytes.
 */
void t_qp_ex(struct sv_side *s)
{
	enum { WLEN = 4096, ROFF = 4096, RLEN = 64, AOFF = 8000 };
	struct sv_conn c = { 0 };
	struct sv_buf b = { 0 };
	struct sv_addr peer, me;
	struct ibv_qp *qp = NULL;
	struct ibv_cq_ex *cqx = NULL;
	uint64_t *word;

	if (side_open(s, 64, 0) < 0 ||
	    buf_new(s, &b, 8192, RW | IBV_ACCESS_REMOTE_ATOMIC) < 0)
		goto out;
	word = (uint64_t *)(void *)(b.p + AOFF);
	if (s->role == ROLE_B) {
		pattern_fill(b.p + ROFF, RLEN, 131);
		*word = 40;
		qp = qp_pair(s, &c, &b, &peer);
		if (!qp)
			goto out;
		ctl_sync(s, 'D');
		CHECK(pattern_check(b.p, WLEN, 130) < 0, "ibv_wr_rdma_write "
		      "data landed");
		CHECK(*word == 47, "ibv_wr_atomic_fetch_add added 7 (%llu)",
		      (unsigned long long)*word);
	} else {
		struct ibv_device_attr_ex dx;
		struct ibv_cq_init_attr_ex ca;
		struct ibv_qp_init_attr_ex ia;
		struct ibv_qp_ex *qx;
		struct exwc wc[3];
		uint64_t t0, t1;
		int n;

		memset(&dx, 0, sizeof(dx));
		CHECK(!ibv_query_device_ex(s->ctx, NULL, &dx) &&
		      dx.orig_attr.max_qp > 0, "ibv_query_device_ex");
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 64;
		ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		cqx = ibv_create_cq_ex(s->ctx, &ca);
		if (!CHECK(cqx, "ibv_create_cq_ex"))
			goto bail;
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = IBV_QPT_RC;
		ia.send_cq = ibv_cq_ex_to_cq(cqx);
		ia.recv_cq = ibv_cq_ex_to_cq(cqx);
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.pd = s->pd;
		ia.comp_mask = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_READ |
				    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
		qp = ibv_create_qp_ex(s->ctx, &ia);
		if (!CHECK(qp, "ibv_create_qp_ex with send_ops_flags") ||
		    qp_init(s, qp, &c) < 0)
			goto bail;
		addr_of(s, qp, &c, &me);
		if (ctl_send(s, 'A', &me, sizeof(me)) < 0 ||
		    ctl_recv(s, 'A', &peer, sizeof(peer)) < 0 ||
		    qp_connect(s, qp, &c, &peer) < 0 || ctl_sync(s, 'C') < 0)
			goto bail;
		qx = ibv_qp_to_qp_ex(qp);
		if (!CHECK(qx, "ibv_qp_to_qp_ex"))
			goto bail;
		pattern_fill(b.p, WLEN, 130);
		ibv_wr_start(qx);
		qx->wr_id = 1;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, peer.rkey, peer.addr);
		ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)b.p, WLEN);
		qx->wr_id = 2;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(qx, peer.rkey, peer.addr + ROFF);
		ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)(b.p + ROFF), RLEN);
		qx->wr_id = 3;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_fetch_add(qx, peer.rkey, peer.addr + AOFF, 7);
		ibv_wr_set_sge(qx, b.mr->lkey, (uintptr_t)(b.p + AOFF), 8);
		t0 = mono_ns();
		CHECK(!ibv_wr_complete(qx), "ibv_wr_complete posts 3 WRs");
		n = cqx_collect(cqx, wc, 3, true);
		t1 = mono_ns();
		if (CHECK(n == 3, "3 completions through ibv_start_poll/"
			  "ibv_next_poll (%d)", n)) {
			CHECK(wc[0].wr_id == 1 && wc[1].wr_id == 2 &&
			      wc[2].wr_id == 3, "in posting order");
			CHECK(wc[0].status == IBV_WC_SUCCESS &&
			      wc[1].status == IBV_WC_SUCCESS &&
			      wc[2].status == IBV_WC_SUCCESS, "all succeed");
			CHECK(wc[0].opcode == IBV_WC_RDMA_WRITE &&
			      wc[1].opcode == IBV_WC_RDMA_READ &&
			      wc[2].opcode == IBV_WC_FETCH_ADD,
			      "ibv_wc_read_opcode: WRITE, READ, FETCH_ADD");
			CHECK(wc[1].byte_len == RLEN, "ibv_wc_read_byte_len of "
			      "the READ is %d (%u)", RLEN, wc[1].byte_len);
			CHECK(wc[0].qp_num == qp->qp_num,
			      "ibv_wc_read_qp_num is ours");
			/* hca_core_clock is 1 GHz: CLOCK_MONOTONIC in ns */
			CHECK(t0 <= wc[0].ts && wc[0].ts <= wc[1].ts &&
			      wc[1].ts <= wc[2].ts && wc[2].ts <= t1,
			      "ibv_wc_read_completion_ts: in order, within "
			      "the post and the poll (%llu..%llu: %llu %llu "
			      "%llu)", (unsigned long long)t0,
			      (unsigned long long)t1,
			      (unsigned long long)wc[0].ts,
			      (unsigned long long)wc[1].ts,
			      (unsigned long long)wc[2].ts);
		}
		CHECK(pattern_check(b.p + ROFF, RLEN, 131) < 0,
		      "ibv_wr_rdma_read data");
		CHECK(*word == 40, "ibv_wr_atomic_fetch_add returned 40 "
		      "(%llu)", (unsigned long long)*word);
		ctl_sync(s, 'D');
	}
	goto out;
bail:
	ctl_send(s, 'X', NULL, 0);
out:
	if (qp && ibv_destroy_qp(qp))
		CHECK(0, "ibv_destroy_qp");
	qp = NULL;
	if (cqx && ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)))
		CHECK(0, "ibv_destroy_cq of the cq_ex");
	finish(s, NULL, &b, NULL);
}

#if defined(__SANITIZE_ADDRESS__)
#define SV_ASAN_BUILD 1
#else
#define SV_ASAN_BUILD 0
#endif

/*
 * fork: a child of role A that polls the inherited CQ and posts on the
 * inherited QP must neither crash nor steal or disturb the parent's
 * traffic; the child can open the device afresh.
 */
void t_fork_child(struct sv_side *s)
{
	enum { N = 50, LEN = 256 };
	struct sv_conn c = { .max_send = 64, .max_recv = 64 };
	struct sv_buf b = { 0 };
	struct sv_addr peer;
	struct ibv_qp *qp = NULL;
	int i;

	if (side_open(s, 128, 0) < 0 ||
	    buf_new(s, &b, (size_t)N * LEN, RW) < 0)
		goto out;
	qp = qp_pair(s, &c, NULL, &peer);
	if (!qp)
		goto out;
	if (s->role == ROLE_B) {
		int got = 0, good = 0;
		struct ibv_wc wc;

		for (i = 0; i < N; i++)
			post_recv_one(qp, (uint64_t)i, &b, (size_t)i * LEN,
				      LEN);
		ctl_sync(s, 'R');
		while (got < N && wc_wait(s->cq, WAIT_MS, &wc) == 1) {
			good += wc.status == IBV_WC_SUCCESS &&
				wc.wr_id == (uint64_t)got &&
				pattern_check(b.p + got * LEN, LEN,
					      (unsigned int)(140 + got)) < 0;
			got++;
		}
		CHECK(got == N && good == N, "all %d SENDs arrive in order "
		      "and intact while A has a forked child (%d, %d good)",
		      N, got, good);
	} else {
		int done = 0, ok = 0, st = 0, p[2];
		struct ibv_wc wc;
		pid_t pid;

		for (i = 0; i < N; i++)
			pattern_fill(b.p + i * LEN, LEN,
				     (unsigned int)(140 + i));
		if (!SETUP(pipe(p) == 0, "pipe"))
			goto out;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			/* the child: poke at the inherited objects */
			struct ibv_device **l;
			struct ibv_context *ctx = NULL;
			double end;
			int r, n = 0;
			char ch;

			close(p[1]);
			r = post_one(qp, IBV_WR_SEND, 999, &b, 0, LEN, 0, 0,
				     IBV_SEND_SIGNALED);
			end = now_ms() + 300;
			while (now_ms() < end)
				n += ibv_poll_cq(s->cq, 1, &wc) > 0 &&
				     wc.wr_id != 999;
			/* Under ASan (gcc 12) the child of a threaded parent
			 * may block for ever in malloc: a lock of ASan's
			 * allocator held by a parent thread at the fork (seen:
			 * the fresh open's progress thread stuck in
			 * pthread_getattr_np's calloc).  There the fresh open
			 * is left to the plain build. */
			if (SV_ASAN_BUILD) {
				ctx = (struct ibv_context *)1; /* not opened */
			} else {
				l = ibv_get_device_list(NULL);
				if (l && l[0])
					ctx = ibv_open_device(l[0]);
				if (l)
					ibv_free_device_list(l);
			}
			printf("#    fork_child[a-child]: post on the "
			       "inherited QP returned %d, %d completions "
			       "stolen, fresh open %s\n", r, n,
			       SV_ASAN_BUILD ? "skipped (ASan build)" :
			       ctx ? "ok" : "failed");
			fflush(stdout);
			if (ctx && !SV_ASAN_BUILD)
				ibv_close_device(ctx);
			/* wait until the parent is done */
			if (read(p[0], &ch, 1) < 0)
				ch = 0;
			_exit(n == 0 && ctx ? 0 : 3);
		}
		close(p[0]);
		ctl_sync(s, 'R');
		for (i = 0; i < N; i++)
			if (post_one(qp, IBV_WR_SEND, (uint64_t)i, &b,
				     (size_t)i * LEN, LEN, 0, 0,
				     IBV_SEND_SIGNALED))
				break;
		while (done < i && wc_wait(s->cq, WAIT_MS, &wc) == 1) {
			ok += wc.status == IBV_WC_SUCCESS;
			done++;
		}
		CHECK(done == N && ok == N, "parent: %d SENDs complete while "
		      "the child runs (%d, %d ok)", N, done, ok);
		close(p[1]);
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid &&
		      WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child stole no completion, opened the device afresh "
		      "and exited cleanly (status 0x%x)", st);
	}
	ctl_sync(s, 'D');
out:
	finish(s, qp, &b, NULL);
}

/*
 * SOFTVERBS_FABRIC keeps runs apart: role B lives in another fabric, so
 * A's SEND to B's QP number finds nobody (RETRY_EXC_ERR) and B receives
 * nothing, although both run on one host with the same node id.
 */
void t_fabric_apart(struct sv_side *s)
{
	struct sv_conn c = { .timeout = 12, .retry_set = 1, .retry_cnt = 1 };
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
		expect_quiet(s->cq, "receiver in another fabric");
	} else {
		ctl_sync(s, 'R');
		CHECK(!post_one(qp, IBV_WR_SEND, 1, &b, 0, 64, 0, 0,
				IBV_SEND_SIGNALED), "post SEND across fabrics");
		expect_wc(s->cq, 1, IBV_WC_RETRY_EXC_ERR, "SEND to a QP in "
			  "another fabric", NULL);
		ctl_sync(s, 'D');
	}
out:
	finish(s, qp, &b, NULL);
}

/*
 * SOFTVERBS_NUMA_NODE: the device's NUMA node is where a program finds a
 * real device's, <ibdev_path>/device/numa_node; without the variable that
 * file is absent (a platform that does not say).
 */
void t_numa_sysfs(struct sv_side *s)
{
	const char *want = getenv("SOFTVERBS_NUMA_NODE");
	char path[IBV_SYSFS_PATH_MAX + 32], got[32] = "";
	FILE *f;

	if (side_open(s, 4, 0) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/device/numa_node",
		 s->ctx->device->ibdev_path);
	f = fopen(path, "r");
	if (!want) {
		CHECK(!f, "no SOFTVERBS_NUMA_NODE: %s is absent", path);
	} else if (CHECK(f, "%s exists", path)) {
		if (!fgets(got, sizeof(got), f))
			got[0] = '\0';
		got[strcspn(got, "\n")] = '\0';
		CHECK(got[0] && atol(got) == atol(want),
		      "%s holds %s (got \"%.20s\")", path, want, got);
	}
	if (f)
		fclose(f);
out:
	finish(s, NULL, NULL, NULL);
}

/*
 * The device limits qperf's verbs knobs are checked against: an SRQ of
 * max_srq_wr receives can be made and one more cannot; a QP with more
 * inline data than the device allows is refused; the P_Key table has one
 * entry (the default P_Key) and index 1 does not query.
 */
void t_knob_limits(struct sv_side *s)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC };
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	__be16 pkey = 0;

	if (side_open(s, 4, 0) < 0)
		goto out;
	sa.attr.max_wr = (uint32_t)s->dev.max_srq_wr;
	srq = ibv_create_srq(s->pd, &sa);
	CHECK(srq, "SRQ of max_srq_wr (%d) receives", s->dev.max_srq_wr);
	if (srq)
		ibv_destroy_srq(srq);
	sa.attr.max_wr = (uint32_t)s->dev.max_srq_wr + 1;
	srq = ibv_create_srq(s->pd, &sa);
	CHECK(!srq, "SRQ of max_srq_wr + 1 receives refused");
	if (srq)
		ibv_destroy_srq(srq);
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = 1024;
	qp = ibv_create_qp(s->pd, &qa);
	CHECK(qp && qa.cap.max_inline_data >= 1024,
	      "QP with 1024 bytes of inline data");
	if (qp)
		ibv_destroy_qp(qp);
	qa.cap.max_inline_data = 1025;
	qp = ibv_create_qp(s->pd, &qa);
	CHECK(!qp, "QP with 1025 bytes of inline data refused");
	if (qp)
		ibv_destroy_qp(qp);
	CHECK(s->port.pkey_tbl_len == 1, "pkey_tbl_len 1 (%d)",
	      s->port.pkey_tbl_len);
	CHECK(!ibv_query_pkey(s->ctx, s->port_num, 0, &pkey) &&
		      be16toh(pkey) == 0xffff,
	      "P_Key index 0 is the default P_Key 0xffff");
	CHECK(ibv_query_pkey(s->ctx, s->port_num, 1, &pkey),
	      "P_Key index 1 does not query");
out:
	finish(s, NULL, NULL, NULL);
}

/* Pages of [p, p + len) resident now (mincore). */
static size_t resident(void *p, size_t len)
{
	unsigned char v[512];
	size_t n = 0, pages = len / 4096;

	if (pages > sizeof(v) || mincore(p, len, v))
		return (size_t)-1;
	for (size_t i = 0; i < pages; i++)
		n += v[i] & 1;
	return n;
}

/* On-Demand Paging: odp_caps, the implicit region, pages faulted in at
 * registration (ordinary) or not (ODP), and ibv_advise_mr's answers. */
void t_odp(struct sv_side *s)
{
	const size_t len = 1 << 20, pages = len / 4096;
	unsigned acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_device_attr_ex ax;
	struct ibv_mr *odp = NULL, *pin = NULL, *imp;
	char *a = NULL, *b = NULL;
	struct ibv_sge sge;
	size_t n;
	int rc;

	if (side_open(s, 4, 0) < 0)
		goto out;
	memset(&ax, 0, sizeof(ax));
	rc = ibv_query_device_ex(s->ctx, NULL, &ax);
	/* (the message's arguments may be read before the condition) */
	CHECK(!rc &&
		      (ax.odp_caps.general_caps &
		       (IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT)) ==
			      (IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT) &&
		      (ax.odp_caps.per_transport_caps.rc_odp_caps &
		       IBV_ODP_SUPPORT_WRITE),
	      "odp_caps: ODP, implicit, RC writes (general 0x%llx, rc 0x%x)",
	      (unsigned long long)ax.odp_caps.general_caps,
	      ax.odp_caps.per_transport_caps.rc_odp_caps);
	imp = ibv_reg_mr(s->pd, NULL, SIZE_MAX, (int)(acc | IBV_ACCESS_ON_DEMAND));
	CHECK(imp != NULL, "implicit ODP region (NULL, SIZE_MAX) registers");
	if (imp)
		ibv_dereg_mr(imp);
	errno = 0;
	CHECK(!ibv_reg_mr(s->pd, NULL, SIZE_MAX, (int)acc) && errno == EINVAL,
	      "(NULL, SIZE_MAX) without ON_DEMAND: EINVAL");
	errno = 0;
	CHECK(!ibv_reg_mr(s->pd, NULL, 4096, (int)(acc | IBV_ACCESS_ON_DEMAND)) &&
		      errno == EINVAL,
	      "(NULL, 4096) with ON_DEMAND: EINVAL");
	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED) {
		CHECK(0, "two mappings of 1 MiB");
		a = a == MAP_FAILED ? NULL : a, b = b == MAP_FAILED ? NULL : b;
		goto out;
	}
	odp = ibv_reg_mr(s->pd, a, len, (int)(acc | IBV_ACCESS_ON_DEMAND));
	pin = ibv_reg_mr(s->pd, b, len, (int)acc);
	if (!odp || !pin) {
		CHECK(0, "an ODP and an ordinary region of 1 MiB");
		goto out;
	}
	CHECK(resident(a, len) == 0, "ODP region: no page faulted in (%zu)",
	      resident(a, len));
	CHECK(resident(b, len) == pages,
	      "ordinary region: every page faulted in (%zu of %zu)",
	      resident(b, len), pages);
	sge = (struct ibv_sge){ (uintptr_t)a, (uint32_t)len, odp->lkey };
	CHECK(ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0,
			    &sge, 1) == 0 && resident(a, len) == 0,
	      "PREFETCH_NO_FAULT: 0, nothing faulted in");
	rc = ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			   IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	n = resident(a, len);
	CHECK(rc == 0 && n == pages,
	      "PREFETCH_WRITE, FLUSH: 0, every page faulted in (%d, %zu)", rc,
	      n);
	CHECK(ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 1u << 7,
			    &sge, 1) == EINVAL, "unknown flags: EINVAL");
	CHECK(ibv_advise_mr(s->pd, (enum ibv_advise_mr_advice)99, 0, &sge,
			    1) == EOPNOTSUPP, "unknown advice: EOPNOTSUPP");
	CHECK(ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge,
			    0) == 0, "no entries: 0");
	sge.length += 1;
	CHECK(ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge,
			    1) == EFAULT, "a range past the region: EFAULT");
	sge = (struct ibv_sge){ (uintptr_t)b, 4096, pin->lkey };
	CHECK(ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge,
			    1) == ENOENT, "an ordinary region's lkey: ENOENT");
	sge.lkey = odp->lkey + 0x100000;
	CHECK(ibv_advise_mr(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge,
			    1) == ENOENT, "an unknown lkey: ENOENT");
out:
	if (odp)
		ibv_dereg_mr(odp);
	if (pin)
		ibv_dereg_mr(pin);
	if (a)
		munmap(a, len);
	if (b)
		munmap(b, len);
	finish(s, NULL, NULL, NULL);
}
