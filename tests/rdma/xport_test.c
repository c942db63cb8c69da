// SPDX-License-Identifier: GPL-2.0-only
/*
 * xport_test: the verbs transports (rc, uc, ud, xrc) driven directly
 * through struct transport, two processes over softverbs.  Every check
 * asserts a real effect: bytes that arrived, counts, old values of
 * atomics, error texts.  usage: xport_test [-l] [PATTERN...]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "transports/verbs_int.h"
#include "xcases.h"
#include "xharness.h"

struct tcomp comps[2048];

void pattern(char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (char)(seed * 31u + i * 7u + 1u);
}

bool is_pattern(const char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != (char)(seed * 31u + i * 7u + 1u))
			return false;
	return true;
}

int xpost(struct xside *sd, struct tsess *s, enum op op, uint32_t n)
{
	struct twr w = { op, 0, 0, 0 };

	return s->tp->post(s, &w, n, sd->err, sizeof(sd->err));
}

/* Count completions of op with bytes each among the first n. */
int count_op(int n, enum op op, uint32_t bytes)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += comps[i].op == op && comps[i].bytes == bytes &&
		     comps[i].status == TC_OK;
	return k;
}

/* Open both sides; on failure both close and the case ends. */
bool open_ok(struct xside *sd, struct tsess *s,
		    const struct test_desc *t, const struct tparams *p)
{
	int rc = xs_open(sd, s, t, p);

	CHECK(rc == 0, "%s: open (%s)", t->name, rc ? sd->err : "ok");
	if (rc) {
		xs_close(s);
		return false;
	}
	return true;
}

/* Open t with the defaults for msg, on the channel of a 0.5 peer (ext) or
 * of a 0.4.11 one: open_ok's verdict. */
bool open_test(struct xside *sd, struct tsess *s, const struct test_desc *t,
	       struct tparams *p, uint32_t msg, bool ext)
{
	chan_mode(sd, ext, CAPS_05);
	return open_dflt(sd, s, t, p, msg);
}

/* Open t with the defaults for msg: open_ok's verdict. */
bool open_dflt(struct xside *sd, struct tsess *s, const struct test_desc *t,
	       struct tparams *p, uint32_t msg)
{
	tparams_default(p, msg);
	return open_ok(sd, s, t, p);
}

/* SEND: 20 messages with their content checked, then 1000 in bulk. */
void send_run(struct xside *sd, const struct transport *tp,
		     const char *name, uint32_t msg, bool ext)
{
	struct test_desc t = mkdesc(name, LOOP_STREAM_BW, OP_SEND, 1024, tp);
	struct tparams p;
	struct tsess s;
	uint32_t off = tp == &transport_ud ? VERBS_GRH : 0;
	int good = 0, n;

	if (!open_test(sd, &s, &t, &p, msg, ext))
		return;
	for (unsigned i = 0; i < 20; i++) {
		if (s.server) {
			xpost(sd, &s, OP_RECV, 1);
			barrier(sd);
			n = collect(sd, &s, comps, 1, 5000 * MS);
			good += n == 1 && count_op(1, OP_RECV, msg) == 1 &&
				is_pattern(s.buf + off, msg, i);
		} else {
			barrier(sd);
			pattern(s.buf + s.rx_off, msg, i);
			xpost(sd, &s, OP_SEND, 1);
			n = collect(sd, &s, comps, 1, 5000 * MS);
			good += n == 1 && count_op(1, OP_SEND, msg) == 1;
		}
		barrier(sd);
	}
	CHECK(good == 20, "%s: 20 messages of %u bytes %s (%d) %s", name, msg,
	      s.server ? "arrived intact" : "completed as sends", good,
	      good < 20 ? sd->err : "");
	if (s.server)
		CHECK(xpost(sd, &s, OP_RECV, 1000) == 1000,
		      "%s: 1000 receives posted", name);
	barrier(sd);
	if (!s.server)
		CHECK(xpost(sd, &s, OP_SEND, 1000) == 1000,
		      "%s: 1000 sends posted", name);
	n = collect(sd, &s, comps, 1000, 20000 * MS);
	CHECK(n == 1000 &&
		      count_op(n, s.server ? OP_RECV : OP_SEND, msg) == 1000,
	      "%s: 1000 %s completions of %u bytes (%d) %s", name,
	      s.server ? "receive" : "send", msg, n, n < 1000 ? sd->err : "");
	CHECK(s.max_cqes >= 1 && s.max_cqes <= VERBS_BATCH,
	      "%s: max_cqes %u tracked", name, s.max_cqes);
	if (ext) {
		const struct verbs_info *vi = verbs_session_info(&s);

		CHECK(vi && vi->peer_ext && vi->peer_active_mtu == 4096 &&
			      vi->path_mtu == 2048 && vi->peer_known,
		      "%s: NODE extension exchanged (peer active MTU %u, path MTU %u)",
		      name, vi ? vi->peer_active_mtu : 0,
		      vi ? vi->path_mtu : 0);
	}
	barrier(sd);
	xs_close(&s);
}

/* XCASE_CALL: a case that is one call of FN(sd, ARGS...) */
#define XCASE_CALL(name, fn, ...) \
	static void name(struct xside *sd) { fn(sd, __VA_ARGS__); }

/* send_run cases: one call with fixed arguments */
XCASE_CALL(t_rc_send, send_run, &transport_rc, "rc_bw", 65536, false)
XCASE_CALL(t_rc_send_ext, send_run, &transport_rc, "rc_bw", 4096, true)
XCASE_CALL(t_uc_send, send_run, &transport_uc, "uc_bw", 8192, false)
XCASE_CALL(t_ud_send, send_run, &transport_ud, "ud_bw", 2048, false)
XCASE_CALL(t_xrc_send, send_run, &transport_xrc, "xrc_bw", 16384, true)

/* Both directions at once (XRC: both SRQs and both send QPs). */
static void t_xrc_bi(struct xside *sd)
{
	struct test_desc t =
		mkdesc("xrc_bi_bw", LOOP_BI_BW, OP_SEND, 256, &transport_xrc);
	struct tparams p;
	struct tsess s;
	int n;

	if (!open_test(sd, &s, &t, &p, 4096, true))
		return;
	xpost(sd, &s, OP_RECV, 200);
	barrier(sd);
	CHECK(xpost(sd, &s, OP_SEND, 200) == 200, "xrc_bi_bw: 200 sends posted");
	n = collect(sd, &s, comps, 400, 20000 * MS);
	CHECK(n == 400 && count_op(n, OP_SEND, 4096) == 200 &&
		      count_op(n, OP_RECV, 4096) == 200,
	      "xrc_bi_bw: 200 sends and 200 receives completed (%d) %s", n,
	      n < 400 ? sd->err : "");
	barrier(sd);
	xs_close(&s);
}

/* Take one completion within 5 s into the send/receive counters. */
static bool pump(struct xside *sd, struct tsess *s, int *sends, int *recvs)
{
	if (collect(sd, s, comps, 1, 5000 * MS) != 1)
		return false;
	*sends += comps[0].op == OP_SEND;
	*recvs += comps[0].op == OP_RECV;
	return true;
}

/*
 * Ping-pong with content checks, by the rule of spec 3.3: a side posts
 * its next send only once its previous send completed and the peer's
 * message arrived (the server starts as if its send had completed).
 * msg 64 goes inline on softverbs.
 */
void pingpong(struct xside *sd, const struct transport *tp,
		     const char *name, uint32_t msg, bool ext)
{
	struct test_desc t = mkdesc(name, LOOP_PINGPONG, OP_SEND, 1, tp);
	struct tparams p;
	struct tsess s;
	uint32_t off = tp == &transport_ud ? VERBS_GRH : 0;
	int good = 0, sends = 0, recvs = 0;
	bool alive = true;

	if (!open_test(sd, &s, &t, &p, msg, ext))
		return;
	if (msg <= 128)
		CHECK(s.max_inline >= msg &&
			      verbs_session_info(&s)->max_inline ==
				      s.max_inline,
		      "%s: inline threshold %u bytes reported", name,
		      s.max_inline);
	xpost(sd, &s, OP_RECV, 1);
	barrier(sd);
	for (int i = 0; i < 100 && alive; i++) {
		if (!s.server) {
			pattern(s.buf + s.rx_off, msg, (unsigned)i);
			alive = xpost(sd, &s, OP_SEND, 1) == 1;
			while (alive && (recvs < i + 1 || sends < i + 1))
				alive = pump(sd, &s, &sends, &recvs) &&
					recvs <= i + 1;
			/* nothing else lands in buf before our next send */
			good += alive &&
				is_pattern(s.buf + off, msg, (unsigned)i + 1000);
			alive = alive && xpost(sd, &s, OP_RECV, 1) == 1;
		} else {
			while (alive && (recvs < i + 1 || sends < i))
				alive = pump(sd, &s, &sends, &recvs) &&
					recvs <= i + 1;
			good += alive && is_pattern(s.buf + off, msg, (unsigned)i);
			alive = alive && xpost(sd, &s, OP_RECV, 1) == 1;
			pattern(s.buf + s.rx_off, msg, (unsigned)i + 1000);
			alive = alive && xpost(sd, &s, OP_SEND, 1) == 1;
		}
	}
	if (s.server && alive) /* the last send's completion */
		alive = pump(sd, &s, &sends, &recvs);
	CHECK(good == 100 && sends == 100 && recvs == 100,
	      "%s: 100 round trips of %u bytes, content checked (%d) %s", name,
	      msg, good, alive ? "" : sd->err);
	barrier(sd);
	xs_close(&s);
}

static void t_rc_lat(struct xside *sd)
{
	pingpong(sd, &transport_rc, "rc_lat", 64, false);
	pingpong(sd, &transport_rc, "rc_lat", 1000, false);
}

/* pingpong cases: one call with fixed arguments */
XCASE_CALL(t_uc_lat, pingpong, &transport_uc, "uc_lat", 1, false)
XCASE_CALL(t_ud_lat, pingpong, &transport_ud, "ud_lat", 32, false)
XCASE_CALL(t_xrc_lat, pingpong, &transport_xrc, "xrc_lat", 1, true)

/* Spin until the last byte of buf is id (the write-poll tests' way). */
static bool spin_last(volatile char *buf, uint32_t msg, char id)
{
	uint64_t end = now_ns() + 5000 * MS;

	while (buf[msg - 1] != id)
		if (now_ns() > end)
			return false;
	return true;
}

/* Plain RDMA WRITE both ways, found by polling memory. */
static void write_poll(struct xside *sd, const struct transport *tp,
		       const char *name)
{
	struct test_desc t = mkdesc(name, LOOP_WRITE_POLL, OP_WRITE, 1, tp);
	struct tparams p;
	struct tsess s;
	const uint32_t msg = 20000;

	if (!open_dflt(sd, &s, &t, &p, msg))
		return;
	barrier(sd);
	for (int turn = 0; turn < 2; turn++) {
		char id = turn ? (char)0xAA : 0x55;

		if (sd->role == turn) {
			int n;

			pattern(s.buf, msg, 7 + turn);
			s.buf[msg - 1] = id;
			xpost(sd, &s, OP_WRITE, 1);
			n = collect(sd, &s, comps, 1, 5000 * MS);
			CHECK(n == 1 && count_op(1, OP_WRITE, msg) == 1,
			      "%s: write of %u bytes completed %s", name, msg,
			      n == 1 ? "" : sd->err);
		} else {
			bool seen = spin_last(s.buf, msg, id);

			CHECK(seen && is_pattern(s.buf, msg - 1, 7 + turn),
			      "%s: peer's write landed, last byte last", name);
		}
		barrier(sd);
	}
	xs_close(&s);
}

/* write_poll cases: one call with fixed arguments */
XCASE_CALL(t_rc_write, write_poll, &transport_rc, "rc_rdma_write_poll_lat")
XCASE_CALL(t_uc_write, write_poll, &transport_uc, "uc_rdma_write_poll_lat")

/* RDMA WRITE with immediate: consumes the peer's receive. */
void write_imm(struct xside *sd, const struct transport *tp,
		      const char *name)
{
	struct test_desc t =
		mkdesc(name, LOOP_STREAM_BW, OP_WRITE_IMM, 1024, tp);
	struct tparams p;
	struct tsess s;
	const uint32_t msg = 8192;
	int n;

	if (!open_dflt(sd, &s, &t, &p, msg))
		return;
	if (s.server)
		xpost(sd, &s, OP_RECV, 1);
	barrier(sd);
	if (!s.server) {
		pattern(s.buf, msg, 11);
		xpost(sd, &s, OP_WRITE_IMM, 1);
	}
	n = collect(sd, &s, comps, 1, 5000 * MS);
	if (s.server)
		CHECK(n == 1 && count_op(1, OP_RECV, msg) == 1 &&
			      is_pattern(s.buf, msg, 11),
		      "%s: write with immediate arrived as a receive, bytes in place %s",
		      name, sd->err);
	else
		CHECK(n == 1 && count_op(1, OP_WRITE_IMM, msg) == 1,
		      "%s: write with immediate completed %s", name, sd->err);
	barrier(sd);
	if (s.server)
		xpost(sd, &s, OP_RECV, 500);
	barrier(sd);
	if (!s.server)
		xpost(sd, &s, OP_WRITE_IMM, 500);
	n = collect(sd, &s, comps, 500, 20000 * MS);
	CHECK(n == 500 &&
		      count_op(n, s.server ? OP_RECV : OP_WRITE_IMM, msg) == 500,
	      "%s: 500 writes with immediate in bulk (%d)", name, n);
	barrier(sd);
	xs_close(&s);
}

/* write_imm cases: one call with fixed arguments */
XCASE_CALL(t_rc_write_imm, write_imm, &transport_rc, "rc_rdma_write_bw")
XCASE_CALL(t_uc_write_imm, write_imm, &transport_uc, "uc_rdma_write_bw")

static void t_rc_read(struct xside *sd)
{
	struct test_desc t = mkdesc("rc_rdma_read_bw", LOOP_ONESIDED, OP_READ,
				    1024, &transport_rc);
	struct tparams p;
	struct tsess s;
	const uint32_t msg = 8192;
	int n;

	if (!open_dflt(sd, &s, &t, &p, msg))
		return;
	if (s.server)
		pattern(s.buf, msg, 3);
	barrier(sd);
	if (!s.server) {
		xpost(sd, &s, OP_READ, 1);
		n = collect(sd, &s, comps, 1, 5000 * MS);
		CHECK(n == 1 && count_op(1, OP_READ, msg) == 1 &&
			      is_pattern(s.buf, msg, 3),
		      "rc_rdma_read_bw: read brought the peer's %u bytes %s",
		      msg, sd->err);
		xpost(sd, &s, OP_READ, 1000);
		n = collect(sd, &s, comps, 1000, 20000 * MS);
		CHECK(n == 1000 && count_op(n, OP_READ, msg) == 1000,
		      "rc_rdma_read_bw: 1000 reads outstanding completed (%d)",
		      n);
	}
	barrier(sd);
	xs_close(&s);
}

static uint64_t slot(const struct tsess *s, uint32_t i)
{
	uint64_t v;

	memcpy(&v, s->buf + 8 * i, 8);
	return v;
}

static int atomic1(struct xside *sd, struct tsess *s, enum op op, uint32_t sl,
		   uint64_t cmp, uint64_t swp)
{
	struct twr w = { op, sl, cmp, swp };

	if (s->tp->post(s, &w, 1, sd->err, sizeof(sd->err)) != 1)
		return -1;
	return collect(sd, s, comps, 1, 5000 * MS) == 1 &&
			       comps[0].op == op && comps[0].slot == sl &&
			       comps[0].bytes == 8 ?
		       0 :
		       -1;
}

static void t_atomics(struct xside *sd)
{
	const uint64_t M = 0x0123456789abcdefull;
	struct test_desc tf = mkdesc("ver_rc_fetch_add", LOOP_ATOMIC_VER,
				     OP_FADD, 1024, &transport_rc);
	struct test_desc tc = mkdesc("ver_rc_compare_swap", LOOP_ATOMIC_VER,
				     OP_CSWAP, 1024, &transport_rc);
	struct test_desc tm = mkdesc("rc_fetch_add_mr", LOOP_ONESIDED, OP_FADD,
				     1024, &transport_rc);
	struct tparams p;
	struct tsess s;
	int good = 0, n;
	uint64_t word;

	tparams_default(&p, 64); /* 8 slots */
	if (!open_ok(sd, &s, &tf, &p))
		return;
	barrier(sd);
	if (!s.server) {
		for (uint32_t k = 0; k < 8; k++)
			good += atomic1(sd, &s, OP_FADD, k, 1, 0) == 0 &&
				slot(&s, k) == k;
		CHECK(good == 8, "fetch-add: old values 0..7 in slots 0..7 (%d)",
		      good);
		for (uint32_t k = 0; k < 8; k++) {
			struct twr w = { OP_FADD, k, 1, 0 };

			s.tp->post(&s, &w, 1, sd->err, sizeof(sd->err));
		}
		n = collect(sd, &s, comps, 8, 5000 * MS);
		good = 0;
		for (uint32_t k = 0; k < 8; k++)
			good += slot(&s, k) >= 8 && slot(&s, k) < 16;
		CHECK(n == 8 && good == 8,
		      "fetch-add: 8 outstanding returned 8..15 (%d)", good);
	}
	barrier(sd);
	if (s.server) {
		memcpy(&word, s.buf, 8);
		CHECK(word == 16 && verbs_session_info(&s) &&
			      ((struct verbs_priv *)s.priv)->reglen == 8,
		      "fetch-add: the server's 8-byte word holds 16 (%llu)",
		      (unsigned long long)word);
		memset(s.buf, 0, 8);
	}
	barrier(sd);
	xs_close(&s);

	if (!open_ok(sd, &s, &tc, &p))
		return;
	barrier(sd);
	if (!s.server) {
		good = 0;
		for (uint32_t k = 0; k < 4; k++)
			good += atomic1(sd, &s, OP_CSWAP, k,
					k ? M + k - 1 : 0, M + k) == 0 &&
				slot(&s, k) == (k ? M + k - 1 : 0);
		good += atomic1(sd, &s, OP_CSWAP, 5, 5, 9) == 0 &&
			slot(&s, 5) == M + 3;
		CHECK(good == 5,
		      "compare-swap: the 0.4.11 sequence and a failed compare return the right old values (%d)",
		      good);
	}
	barrier(sd);
	if (s.server) {
		memcpy(&word, s.buf, 8);
		CHECK(word == M + 3, "compare-swap: the server's word is M+3");
	}
	barrier(sd);
	xs_close(&s);

	tparams_default(&p, 0); /* *_mr: msg_size unused */
	if (!open_ok(sd, &s, &tm, &p))
		return;
	barrier(sd);
	if (!s.server) {
		struct twr w = { OP_FADD, 0, 0, 0 };

		CHECK(((struct verbs_priv *)s.priv)->reglen == 8,
		      "rc_fetch_add_mr: the client registers 8 bytes");
		s.tp->post(&s, &w, 1000, sd->err, sizeof(sd->err));
		n = collect(sd, &s, comps, 1000, 20000 * MS);
		CHECK(n == 1000 && count_op(n, OP_FADD, 8) == 1000 &&
			      slot(&s, 0) == 0,
		      "rc_fetch_add_mr: 1000 outstanding fetch-adds of 0 (%d)",
		      n);
	}
	barrier(sd);
	xs_close(&s);
}

/* A fatal QP error and a bad rkey come back as "<test> failed: ...". */
static void t_err_qp_fatal(struct xside *sd)
{
	struct test_desc t =
		mkdesc("rc_bw", LOOP_STREAM_BW, OP_SEND, 1024, &transport_rc);
	struct tparams p;
	struct tsess s;
	char want[128];
	int ok = 0, rc, n;

	if (!open_dflt(sd, &s, &t, &p, 1024))
		return;
	if (s.server)
		xpost(sd, &s, OP_RECV, 10);
	barrier(sd);
	if (!s.server) {
		for (int i = 0; i < 3; i++)
			ok += xpost(sd, &s, OP_SEND, 1) == 1 &&
			      collect(sd, &s, comps, 1, 5000 * MS) == 1;
		CHECK(ok == 3, "rc_bw: 3 sends before the fault");
		rc = xpost(sd, &s, OP_SEND, 1);
		n = rc == 1 ? collect(sd, &s, comps, 1, 5000 * MS) : rc;
		snprintf(want, sizeof(want), "rc_bw failed: WR flush failure");
		CHECK(n == TP_FATAL && strcmp(sd->err, want) == 0,
		      "QP fatal: \"%s\"", sd->err);
	}
	barrier(sd);
	xs_close(&s);
}

static void t_err_rkey(struct xside *sd)
{
	struct test_desc t = mkdesc("rc_rdma_write_bw", LOOP_STREAM_BW,
				    OP_WRITE, 1024, &transport_rc);
	struct tparams p;
	struct tsess s;
	char want[128];
	int n;

	if (!open_dflt(sd, &s, &t, &p, 4096))
		return;
	barrier(sd);
	if (!s.server) {
		((struct verbs_priv *)s.priv)->peer.rkey ^= 0x100;
		xpost(sd, &s, OP_WRITE, 1);
		pattern(s.buf, 4096, 1);
		n = collect(sd, &s, comps, 1, 10000 * MS);
		snprintf(want, sizeof(want),
			 "rc_rdma_write_bw failed: Remote access failure");
		CHECK(n == TP_FATAL && strcmp(sd->err, want) == 0,
		      "bad rkey: \"%s\"", sd->err);
	}
	barrier(sd);
	if (s.server) {
		int zero = 1;

		for (int i = 0; i < 4096; i++)
			zero &= s.buf[i] == 0;
		CHECK(zero, "bad rkey: the target memory is untouched");
	}
	xs_close(&s);
}

/* The port goes down under a running test: the 0.4.11 example text. */
static void t_err_port_down(struct xside *sd)
{
	struct test_desc t =
		mkdesc("rc_bw", LOOP_STREAM_BW, OP_SEND, 1024, &transport_rc);
	struct tparams p;
	struct tsess s;
	uint64_t end;
	int n = 0;

	if (!open_dflt(sd, &s, &t, &p, 4096))
		return;
	if (s.server)
		xpost(sd, &s, OP_RECV, 1024);
	barrier(sd);
	if (!s.server) {
		/* keep sending until the error comes, 10 s at most */
		end = now_ns() + 10000 * MS;
		xpost(sd, &s, OP_SEND, 64);
		while (now_ns() < end) {
			n = collect(sd, &s, comps, 1, 1000 * MS);
			if (n < 0)
				break;
			if (n == 1)
				xpost(sd, &s, OP_SEND, 1);
		}
		CHECK(n == TP_FATAL &&
			      strcmp(sd->err, "rc_bw failed: Retries exceeded") == 0,
		      "port down: \"%s\"", sd->err);
	}
	barrier(sd);
	xs_close(&s);
}

static void t_err_text(struct xside *sd)
{
	char err[128];

	(void)sd;
	verbs_wc_error("ud_bw", IBV_WC_RNR_RETRY_EXC_ERR, err, sizeof(err));
	CHECK(strcmp(err, "ud_bw failed: RNR retry exceeded") == 0, "%s", err);
	verbs_wc_error("rc_lat", 99, err, sizeof(err));
	CHECK(strcmp(err, "rc_lat failed: CQ error 99") == 0, "%s", err);
}

/* Lossy UD: lost datagrams are no error; the receiver's wait ends. */
static void t_ud_lossy(struct xside *sd)
{
	struct test_desc t =
		mkdesc("ud_bw", LOOP_STREAM_BW, OP_SEND, 1024, &transport_ud);
	struct tparams p;
	struct tsess s;
	int n;

	if (!open_dflt(sd, &s, &t, &p, 1024))
		return;
	if (s.server)
		xpost(sd, &s, OP_RECV, 1000);
	barrier(sd);
	if (!s.server) {
		n = xpost(sd, &s, OP_SEND, 500) == 500 ?
			    collect(sd, &s, comps, 500, 10000 * MS) :
			    -1;
		CHECK(n == 500 && count_op(n, OP_SEND, 1024) == 500,
		      "ud_bw: all 500 sends complete although some are lost");
	} else {
		n = collect(sd, &s, comps, 500, 1500 * MS);
		CHECK(n > 250 && n < 500 && count_op(n, OP_RECV, 1024) == n,
		      "ud_bw: %d of 500 arrived, the rest lost without an error",
		      n);
	}
	barrier(sd);
	xs_close(&s);
}

static volatile sig_atomic_t fired;

static void on_alarm(int sig)
{
	(void)sig;
	fired = 1;
}

static void arm_alarm(unsigned ms)
{
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

	fired = 0;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Poll bounds: wait, SIGALRM (with and without the stop flag), peer. */
static void t_poll_bounds(struct xside *sd)
{
	struct test_desc t =
		mkdesc("rc_lat", LOOP_PINGPONG, OP_SEND, 1, &transport_rc);
	struct sigaction sa;
	struct tparams p;
	struct tsess s;
	uint64_t t0, dt;
	int n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	for (int mode = 0; mode < 2; mode++) {
		const char *m = mode ? "busy" : "event";

		tparams_default(&p, 1);
		p.poll_mode = (uint32_t)mode;
		if (!open_ok(sd, &s, &t, &p))
			return;
		t0 = now_ns();
		n = s.tp->poll(&s, comps, 4, 0, sd->err, sizeof(sd->err));
		dt = now_ns() - t0;
		CHECK(n == 0 && dt < 50 * MS, "%s: wait 0 returns at once", m);
		t0 = now_ns();
		n = s.tp->poll(&s, comps, 4, 200 * MS, sd->err,
			       sizeof(sd->err));
		dt = now_ns() - t0;
		CHECK(n == 0 && dt >= 195 * MS && dt < 1000 * MS,
		      "%s: 200 ms wait returns 0 after %llu ms", m,
		      (unsigned long long)(dt / MS));
		s.stop = &fired;
		arm_alarm(150);
		t0 = now_ns();
		n = s.tp->poll(&s, comps, 4, UINT64_MAX, sd->err,
			       sizeof(sd->err));
		dt = now_ns() - t0;
		CHECK(n == 0 && fired && dt >= 140 * MS && dt < 2000 * MS,
		      "%s: endless wait ends at the timer (stop flag) after %llu ms",
		      m, (unsigned long long)(dt / MS));
		if (!mode) {
			s.stop = NULL;
			arm_alarm(150);
			t0 = now_ns();
			n = s.tp->poll(&s, comps, 4, 3000 * MS, sd->err,
				       sizeof(sd->err));
			dt = now_ns() - t0;
			CHECK(n == 0 && fired && dt < 1000 * MS,
			      "event: SIGALRM interrupts the sleep (no flag) after %llu ms",
			      (unsigned long long)(dt / MS));
			/* a completion arriving during a wait is returned */
			xpost(sd, &s, OP_RECV, 1);
			barrier(sd);
			if (!s.server) {
				usleep(100000);
				xpost(sd, &s, OP_SEND, 1);
			}
			n = collect(sd, &s, comps, 1, 3000 * MS);
			CHECK(n == 1 && comps[0].op ==
						(s.server ? OP_RECV : OP_SEND),
			      "event: a completion during the wait comes back");
		}
		barrier(sd);
		xs_close(&s);
	}
	/* the peer giving up (hang-up of the control socket) ends a wait */
	if (!open_dflt(sd, &s, &t, &p, 1))
		return;
	barrier(sd);
	if (s.server) {
		sd->ch.watch_fd = sd->fd;
		t0 = now_ns();
		n = s.tp->poll(&s, comps, 4, 10000 * MS, sd->err,
			       sizeof(sd->err));
		dt = now_ns() - t0;
		CHECK(n == 0 && s.ended && dt < 5000 * MS,
		      "peer hang-up ends the wait and sets ended");
		sd->ch.watch_fd = -1;
	} else {
		usleep(100000);
		shutdown(sd->fd, SHUT_WR);
	}
	xs_close(&s);
}

const struct xcase xcases[] = {
	{ "unit_node", u_node, NULL, NULL, true, NULL },
	{ "unit_ext", u_ext, NULL, NULL, true, NULL },
	{ "unit_node_check", u_node_check, NULL, NULL, true, NULL },
	{ "unit_gid", u_gid, NULL, NULL, true, NULL },
	{ "unit_mtu_rate", u_mtu_rate, NULL, NULL, true, NULL },
	{ "rc_send", t_rc_send, NULL, NULL, false, NULL },
	{ "rc_send_ext", t_rc_send_ext, NULL, NULL, false, NULL },
	{ "uc_send", t_uc_send, NULL, NULL, false, NULL },
	{ "ud_send", t_ud_send, NULL, NULL, false, NULL },
	{ "xrc_send", t_xrc_send, NULL, NULL, false, NULL },
	{ "xrc_bi", t_xrc_bi, NULL, NULL, false, NULL },
	{ "rc_lat", t_rc_lat, NULL, NULL, false, NULL },
	{ "uc_lat", t_uc_lat, NULL, NULL, false, NULL },
	{ "ud_lat", t_ud_lat, NULL, NULL, false, NULL },
	{ "xrc_lat", t_xrc_lat, NULL, NULL, false, NULL },
	{ "rc_write", t_rc_write, NULL, NULL, false, NULL },
	{ "uc_write", t_uc_write, NULL, NULL, false, NULL },
	{ "rc_write_imm", t_rc_write_imm, NULL, NULL, false, NULL },
	{ "uc_write_imm", t_uc_write_imm, NULL, NULL, false, NULL },
	{ "rc_read", t_rc_read, NULL, NULL, false, NULL },
	{ "atomics", t_atomics, NULL, NULL, false, NULL },
	{ "err_qp_fatal", t_err_qp_fatal, "SOFTVERBS_FAULT_QP_FATAL=3", NULL,
	  false, NULL },
	{ "err_rkey", t_err_rkey, NULL, NULL, false, NULL },
	{ "err_port_down", t_err_port_down, "SOFTVERBS_FAULT_PORT_DOWN=300",
	  NULL, false, NULL },
	{ "err_text", t_err_text, NULL, NULL, true, NULL },
	{ "ud_lossy", t_ud_lossy, "SOFTVERBS_FAULT_DROP=0.2 SOFTVERBS_FAULT_SEED=7",
	  NULL, false, NULL },
	{ "poll_bounds", t_poll_bounds, NULL, NULL, false, NULL },
	{ "v_local", t_v_local, NULL, NULL, true, NULL },
	{ "v_port_down", t_v_port_down, "SOFTVERBS_FAULT_PORT_DOWN=now", NULL,
	  true, NULL },
	{ "v_roce_local", t_v_roce_local, "SOFTVERBS_LINK_LAYER=eth", NULL,
	  true, NULL },
	{ "v_mr", t_v_mr, NULL, NULL, true, NULL },
	{ "v_no_device", t_v_no_device, NULL, NULL, true, "XPORT_NO_RDMA" },
	{ "v_ud_mtu", t_v_ud_mtu, NULL, NULL, false, NULL },
	{ "v_mtu_explicit", t_v_mtu_explicit, NULL, "SOFTVERBS_MTU=1024",
	  false, NULL },
	{ "v_mtu_differ", t_v_mtu_differ, NULL, NULL, false, NULL },
	{ "mtu_auto", t_mtu_auto, NULL, "SOFTVERBS_MTU=1024", false, NULL },
	{ "v_link_differ", t_v_link_differ, "SOFTVERBS_LINK_LAYER=eth", NULL,
	  false, NULL },
	{ "v_bad_node", t_v_bad_node, NULL, NULL, false, NULL },
	{ "roce", t_roce, "SOFTVERBS_LINK_LAYER=eth",
	  "SOFTVERBS_LINK_LAYER=eth", false, NULL },
	{ "roce_v6", t_roce_v6, "SOFTVERBS_LINK_LAYER=eth",
	  "SOFTVERBS_LINK_LAYER=eth", false, NULL },
	{ "roce_ll", t_roce_ll, "SOFTVERBS_LINK_LAYER=eth SOFTVERBS_ADDRS=none",
	  "SOFTVERBS_LINK_LAYER=eth SOFTVERBS_ADDRS=none", false, NULL },
	{ "roce_v2only", t_roce_v2only, "SOFTVERBS_LINK_LAYER=eth",
	  "SOFTVERBS_LINK_LAYER=eth SOFTVERBS_GID_TYPES=2", false, NULL },
	{ "roce_forced", t_roce_forced, "SOFTVERBS_LINK_LAYER=eth",
	  "SOFTVERBS_LINK_LAYER=eth", false, NULL },
	{ "v_roce_mismatch", t_v_roce_mismatch, "SOFTVERBS_LINK_LAYER=eth",
	  "SOFTVERBS_LINK_LAYER=eth", false, NULL },
	{ "roce_v1v2", t_roce_v1v2,
	  "SOFTVERBS_LINK_LAYER=eth SOFTVERBS_GID_TYPES=1",
	  "SOFTVERBS_LINK_LAYER=eth", false, NULL },
	{ "roce_follow", t_roce_follow, "SOFTVERBS_LINK_LAYER=eth",
	  "SOFTVERBS_LINK_LAYER=eth", false, NULL },
	{ "fd_leak", t_fd_leak, NULL, NULL, false, NULL },
	{ "qp_attrs", t_qp_attrs, NULL, NULL, false, NULL },
	/* against Debian's qperf 0.4.11 server, started by xport.sh */
	{ "legacy_rc_lat", l_rc_lat, NULL, NULL, true, "XPORT_QPERF_PORT" },
	{ "legacy_rc_bw", l_rc_bw, NULL, NULL, true, "XPORT_QPERF_PORT" },
	{ "legacy_rc_read", l_rc_read, NULL, NULL, true, "XPORT_QPERF_PORT" },
	{ "legacy_ud_lat", l_ud_lat, NULL, NULL, true, "XPORT_QPERF_PORT" },
	{ "legacy_fetch_add", l_fetch_add, NULL, NULL, true,
	  "XPORT_QPERF_PORT" },
	{ "legacy_uc_write_imm", l_uc_write_imm, NULL, NULL, true,
	  "XPORT_QPERF_PORT" },
	/* Debian's qperf 0.4.11 as the client of our server side */
	{ "legacy_srv_rc_bw", l_srv_rc_bw, NULL, NULL, true, "XPORT_QPERF411" },
	{ "legacy_srv_rc_lat", l_srv_rc_lat, NULL, NULL, true,
	  "XPORT_QPERF411" },
	{ "legacy_srv_ud_lat", l_srv_ud_lat, NULL, NULL, true,
	  "XPORT_QPERF411" },
	{ "legacy_srv_uc_bw", l_srv_uc_bw, NULL, NULL, true,
	  "XPORT_QPERF411" },
	{ NULL, NULL, NULL, NULL, false, NULL },
};
