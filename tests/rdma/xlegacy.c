// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wire compatibility with qperf 0.4.11, both ways.  The legacy_* cases
 * play a minimal 0.4.11 client (REQ, NODE through our transport, the
 * sync strings, STAT, the after-sync) against Debian's /usr/bin/qperf
 * server, which xport.sh starts over softverbs and names in
 * XPORT_QPERF_PORT; the server's STAT must count exactly what our
 * transport moved.  The legacy_srv_* cases serve Debian's qperf client
 * (XPORT_QPERF411, run with XPORT_411_LIBDIR as its LD_LIBRARY_PATH),
 * which must report its result and exit 0.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transports/verbs_int.h"
#include "xcases.h"
#include "xharness.h"


static struct tcomp lc[2048];

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Connect to the 0.4.11 server and send REQ; the fd goes into sd. */
static bool legacy_req(struct xside *sd, uint16_t idx, uint32_t msg)
{
	const char *port = getenv("XPORT_QPERF_PORT");
	struct sockaddr_in a;
	uint8_t req[200];
	int fd, one = 1;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)atoi(port ? port : "0"));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		CHECK(false, "connect to qperf 0.4.11 on port %s", port);
		if (fd >= 0)
			close(fd);
		return false;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(req, 0, sizeof(req));
	req[2] = 4; /* 0.4.11 */
	req[4] = 11;
	req[6] = (uint8_t)idx;
	put32(req + 24, msg);
	put32(req + 28, 2048); /* mtu_size */
	put32(req + 60, 1); /* time: 1 s */
	put32(req + 64, 5); /* timeout */
	sd->fd = fd;
	memcpy(&sd->ch.local, &a, sizeof(a));
	sd->ch.local.ss_family = AF_INET;
	chan_mode(sd, false, 0);
	oob_send(sd, req, sizeof(req));
	return true;
}

static bool legacy_sync(struct xside *sd)
{
	static const char txt[] = "synchronization before test";
	char got[sizeof(txt)] = "";

	oob_send(sd, txt, sizeof(txt) - 1);
	return oob_recv(sd, got, sizeof(txt) - 1) &&
	       CHECK(memcmp(got, txt, sizeof(txt) - 1) == 0,
		     "0.4.11 server: before-sync \"%.27s\"", got);
}

/* STAT, then the after-sync; the server's s and r message counts. */
static bool legacy_stat(struct xside *sd, uint64_t *smsgs, uint64_t *rmsgs,
			uint64_t *rbytes)
{
	static const char after[] = "synchronization after test";
	uint8_t st[256];

	if (!oob_recv(sd, st, sizeof(st)))
		return false;
	*smsgs = get64(st + 164);
	*rbytes = get64(st + 180);
	*rmsgs = get64(st + 188);
	oob_send(sd, after, sizeof(after) - 1);
	return true;
}

static bool legacy_open(struct xside *sd, struct tsess *s,
			const struct test_desc *t, uint32_t msg)
{
	struct tparams p;
	int rc;

	tparams_default(&p, msg);
	rc = xs_open(sd, s, t, &p);
	CHECK(rc == 0, "%s against qperf 0.4.11: open (%s)", t->name,
	      rc ? sd->err : "ok");
	if (rc)
		xs_close(s);
	return rc == 0;
}

/* Ask the 0.4.11 server for test idx of msg bytes and open t for it; on
 * failure false (and the connection closed if the request went out). */
static bool legacy_start(struct xside *sd, struct tsess *s,
			 const struct test_desc *t, uint16_t idx, uint32_t msg)
{
	if (!legacy_req(sd, idx, msg))
		return false;
	if (!legacy_open(sd, s, t, msg)) {
		close(sd->fd);
		return false;
	}
	return true;
}

static void legacy_end(struct xside *sd, struct tsess *s)
{
	xs_close(s);
	close(sd->fd);
	sd->fd = -1;
}

static int lpost(struct xside *sd, struct tsess *s, enum op op, uint32_t n)
{
	struct twr w = { op, 0, 0, 0 };

	return s->tp->post(s, &w, n, sd->err, sizeof(sd->err));
}

/* Ping-pong against 0.4.11: rc_lat, ud_lat. */
static void legacy_pingpong(struct xside *sd, const struct transport *tp,
			    const char *name, uint16_t idx)
{
	struct test_desc t = mkdesc(name, LOOP_PINGPONG, OP_SEND, 1, tp);
	struct tsess s;
	int rounds = 0, sends = 0, recvs = 0;
	uint64_t sm = 0, rm = 0, rb = 0;

	if (!legacy_start(sd, &s, &t, idx, 1))
		return;
	lpost(sd, &s, OP_RECV, 1);
	if (legacy_sync(sd)) {
		while (rounds < 300) {
			if (lpost(sd, &s, OP_SEND, 1) != 1)
				break;
			while (sends < rounds + 1 || recvs < rounds + 1) {
				if (collect(sd, &s, lc, 1, 3000 * MS) != 1)
					goto out;
				sends += lc[0].op == OP_SEND;
				recvs += lc[0].op == OP_RECV;
			}
			lpost(sd, &s, OP_RECV, 1);
			rounds++;
		}
out:
		CHECK(rounds == 300, "%s: 300 round trips with qperf 0.4.11 (%d) %s",
		      name, rounds, rounds < 300 ? sd->err : "");
		if (legacy_stat(sd, &sm, &rm, &rb))
			CHECK(rm == (uint64_t)rounds && sm == (uint64_t)rounds,
			      "%s: the 0.4.11 server counted %llu received, %llu sent",
			      name, (unsigned long long)rm,
			      (unsigned long long)sm);
	}
	legacy_end(sd, &s);
}

void l_rc_lat(struct xside *sd)
{
	legacy_pingpong(sd, &transport_rc, "rc_lat", 16);
}

void l_ud_lat(struct xside *sd)
{
	legacy_pingpong(sd, &transport_ud, "ud_lat", 30);
}

/* One-way: the server's receive count equals our completed sends. */
static void legacy_stream(struct xside *sd, const struct transport *tp,
			  const char *name, uint16_t idx, enum op op,
			  uint32_t msg)
{
	struct test_desc t = mkdesc(name, LOOP_STREAM_BW, op, 1024, tp);
	struct tsess s;
	int n = 0;
	uint64_t sm = 0, rm = 0, rb = 0;

	if (!legacy_start(sd, &s, &t, idx, msg))
		return;
	if (legacy_sync(sd)) {
		/* 0.4.11 posts its receives before the sync (spec 2.9) */
		if (lpost(sd, &s, op, 1000) == 1000)
			n = collect(sd, &s, lc, 1000, 5000 * MS);
		CHECK(n == 1000, "%s: 1000 messages to qperf 0.4.11 (%d) %s",
		      name, n, n < 1000 ? sd->err : "");
		if (legacy_stat(sd, &sm, &rm, &rb))
			CHECK(rm == 1000 && rb == 1000ull * msg,
			      "%s: the 0.4.11 server received %llu messages, %llu bytes",
			      name, (unsigned long long)rm,
			      (unsigned long long)rb);
	}
	legacy_end(sd, &s);
}

void l_rc_bw(struct xside *sd)
{
	legacy_stream(sd, &transport_rc, "rc_bw", 13, OP_SEND, 65536);
}

void l_uc_write_imm(struct xside *sd)
{
	legacy_stream(sd, &transport_uc, "uc_rdma_write_bw", 25,
		      OP_WRITE_IMM, 4096);
}

void l_rc_read(struct xside *sd)
{
	struct test_desc t = mkdesc("rc_rdma_read_bw", LOOP_ONESIDED, OP_READ,
				    1024, &transport_rc);
	struct tsess s;
	int n = 0;
	uint64_t sm, rm, rb;

	if (!legacy_start(sd, &s, &t, 17, 65536))
		return;
	if (legacy_sync(sd)) {
		if (lpost(sd, &s, OP_READ, 1000) == 1000)
			n = collect(sd, &s, lc, 1000, 5000 * MS);
		CHECK(n == 1000, "rc_rdma_read_bw: 1000 reads of qperf 0.4.11's buffer (%d) %s",
		      n, n < 1000 ? sd->err : "");
		CHECK(legacy_stat(sd, &sm, &rm, &rb),
		      "rc_rdma_read_bw: STAT from qperf 0.4.11");
	}
	legacy_end(sd, &s);
}

/* Atomics on the 0.4.11 server's word: old values 0, 1, 2, ... */
void l_fetch_add(struct xside *sd)
{
	struct test_desc t = mkdesc("ver_rc_fetch_add", LOOP_ATOMIC_VER,
				    OP_FADD, 1024, &transport_rc);
	struct tsess s;
	int good = 0;
	uint64_t sm, rm, rb;

	if (!legacy_start(sd, &s, &t, 32, 64))
		return;
	if (legacy_sync(sd)) {
		for (uint32_t k = 0; k < 100; k++) {
			struct twr w = { OP_FADD, k % 8, 1, 0 };
			uint64_t old;

			if (s.tp->post(&s, &w, 1, sd->err, sizeof(sd->err)) != 1 ||
			    collect(sd, &s, lc, 1, 3000 * MS) != 1)
				break;
			memcpy(&old, s.buf + 8 * (k % 8), 8);
			good += lc[0].op == OP_FADD && lc[0].slot == k % 8 &&
				old == k;
		}
		CHECK(good == 100,
		      "ver_rc_fetch_add: 100 fetch-adds on qperf 0.4.11's word returned 0..99 (%d) %s",
		      good, good < 100 ? sd->err : "");
		CHECK(legacy_stat(sd, &sm, &rm, &rb),
		      "ver_rc_fetch_add: STAT from qperf 0.4.11");
	}
	legacy_end(sd, &s);
}

/* ---- the other way: Debian's qperf 0.4.11 client, our server ---- */

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Start the 0.4.11 client for test on port; its stdout into *out_fd. */
static pid_t start_client(const char *test, int port, int *out_fd)
{
	const char *q = getenv("XPORT_QPERF411");
	char ps[16];
	int pf[2];
	pid_t pid;

	if (pipe(pf))
		return -1;
	snprintf(ps, sizeof(ps), "%d", port);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(pf[1], 1);
		dup2(pf[1], 2);
		close(pf[0]);
		close(pf[1]);
		setenv("SOFTVERBS_NODE", "2", 1);
		if (getenv("XPORT_411_LIBDIR")) /* not our ASan build */
			setenv("LD_LIBRARY_PATH", getenv("XPORT_411_LIBDIR"), 1);
		if (getenv("XPORT_411_ARGS")) /* e.g. "-rcp 1" when debugging */
			execl("/bin/sh", "sh", "-c", "exec \"$0\" \"$@\" $XPORT_411_ARGS",
			      q, "127.0.0.1", "-lp", ps, "-t", "1", "-vvu",
			      test, (char *)NULL);
		execl(q, q, "127.0.0.1", "-lp", ps, "-t", "1", "-vvu", test,
		      (char *)NULL);
		_exit(127);
	}
	close(pf[1]);
	*out_fd = pf[0];
	return pid;
}

/* Everything the client printed, until it ends (10 s at most). */
static void client_output(pid_t pid, int fd, char *buf, size_t cap,
			  int *status)
{
	size_t len = 0;
	uint64_t end = now_ns() + 10000 * MS;
	ssize_t n;

	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };

		if (now_ns() > end || poll(&pf, 1, 100) < 0)
			break;
		if (!(pf.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd, buf + len, cap - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	if (waitpid(pid, status, WNOHANG) != pid) {
		kill(pid, SIGKILL); /* our own child */
		waitpid(pid, status, 0);
	}
}

/* Serve one test of the 0.4.11 client: REQ, open, sync, loop, STAT. */
static void legacy_serve(struct xside *sd, const struct transport *tp,
			 const char *name, enum loop_kind loop,
			 const char *want_line)
{
	struct test_desc t = mkdesc(name, loop, OP_SEND, loop == LOOP_PINGPONG ?
							  1 : 1024, tp);
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int ls, fd = -1, cfd = -1, st = 0, one = 1;
	pid_t cpid;
	uint8_t req[200], stat[256];
	char out[4096];
	struct tparams p;
	struct tsess s;
	struct pollfd pf;
	uint64_t t0, t1, rmsgs = 0, smsgs = 0;
	uint32_t msg;
	bool opened = false;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(ls, 1) || getsockname(ls, (struct sockaddr *)&a, &al)) {
		CHECK(false, "listen");
		return;
	}
	cpid = start_client(name, ntohs(a.sin_port), &cfd);
	pf.fd = ls;
	pf.events = POLLIN;
	if (cpid < 0 || poll(&pf, 1, 10000) != 1 ||
	    (fd = accept(ls, NULL, NULL)) < 0) {
		CHECK(false, "%s: the 0.4.11 client connects", name);
		goto out;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sd->fd = fd;
	memset(&sd->ch.local, 0, sizeof(sd->ch.local));
	sd->ch.local.ss_family = AF_INET;
	chan_mode(sd, false, 0);
	if (!oob_recv(sd, req, sizeof(req)))
		goto out;
	msg = get32(req + 24);
	tparams_default(&p, msg);
	p.mtu_size = get32(req + 28);
	p.poll_mode = get32(req + 36);
	CHECK(req[2] == 4 && req[4] == 11 && p.mtu_size == 2048,
	      "%s: REQ from qperf 0.4.11 (index %u, %u bytes)", name, req[6],
	      msg);
	s.server = true;
	if (xs_open(sd, &s, &t, &p)) {
		CHECK(false, "%s: open for the 0.4.11 client: %s", name,
		      sd->err);
		xs_close(&s);
		goto out;
	}
	opened = true;
	xpost(sd, &s, OP_RECV, loop == LOOP_PINGPONG ? 1 : 1024);
	{
		static const char txt[] = "synchronization before test";
		char got[sizeof(txt)] = "";

		oob_send(sd, txt, sizeof(txt) - 1);
		if (!oob_recv(sd, got, sizeof(txt) - 1))
			goto out;
	}
	t0 = now_ns();
	t1 = t0 + 1000 * MS;
	/* ping-pong by 0.4.11's rule: answer once the message came and the
	 * previous answer completed (the next message may come first) */
	{
		bool busy = false, owed = false, ok = true;

		while (ok && now_ns() < t1) {
			int n = s.tp->poll(&s, comps, 64, t1 - now_ns(),
					   sd->err, sizeof(sd->err));

			ok = n >= 0;
			for (int i = 0; ok && i < n; i++) {
				if (comps[i].op == OP_SEND) {
					busy = false;
				} else {
					rmsgs++;
					ok = xpost(sd, &s, OP_RECV, 1) == 1;
					owed = loop == LOOP_PINGPONG;
				}
				if (ok && owed && !busy) {
					ok = xpost(sd, &s, OP_SEND, 1) == 1;
					smsgs++;
					busy = true;
					owed = false;
				}
			}
		}
		CHECK(ok, "%s: our server's loop ran without error %s", name,
		      ok ? "" : sd->err);
	}
	t1 = now_ns();
	memset(stat, 0, sizeof(stat));
	put32(stat + 0, 1); /* no_cpus */
	put32(stat + 4, 100); /* no_ticks */
	put32(stat + 8, s.max_cqes);
	put64(stat + 12, t0 / 10000000u); /* real, ticks of 10 ms */
	put64(stat + 84, t1 / 10000000u);
	put64(stat + 156, smsgs * msg);
	put64(stat + 164, smsgs);
	put64(stat + 180, rmsgs * msg);
	put64(stat + 188, rmsgs);
	oob_send(sd, stat, sizeof(stat));
	{
		char after[26];

		oob_recv(sd, after, sizeof(after));
	}
	CHECK(rmsgs > 0, "%s: our server took %llu messages from qperf 0.4.11",
	      name, (unsigned long long)rmsgs);
out:
	if (opened)
		xs_close(&s);
	if (fd >= 0)
		close(fd);
	close(ls);
	sd->fd = -1;
	if (cpid > 0) {
		client_output(cpid, cfd, out, sizeof(out), &st);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			      contains(out, want_line),
		      "%s: the 0.4.11 client reports \"%s\" (exit %d)%s%s", name,
		      want_line, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		      contains(out, want_line) ? "" : ": ",
		      contains(out, want_line) ? "" : out);
	}
}

void l_srv_rc_bw(struct xside *sd)
{
	legacy_serve(sd, &transport_rc, "rc_bw", LOOP_STREAM_BW, "    bw        =");
}

void l_srv_rc_lat(struct xside *sd)
{
	legacy_serve(sd, &transport_rc, "rc_lat", LOOP_PINGPONG,
		     "    latency   =");
}

void l_srv_ud_lat(struct xside *sd)
{
	legacy_serve(sd, &transport_ud, "ud_lat", LOOP_PINGPONG,
		     "    latency   =");
}

void l_srv_uc_bw(struct xside *sd)
{
	legacy_serve(sd, &transport_uc, "uc_bw", LOOP_STREAM_BW,
		     "    recv_bw   =");
}
