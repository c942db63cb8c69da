// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wire compatibility with qperf 0.4.11: these cases play a minimal
 * 0.4.11 client (REQ, NODE through our transport, the sync strings,
 * STAT, the after-sync) against Debian's /usr/bin/qperf server, which
 * xport.sh starts over softverbs and names in XPORT_QPERF_PORT.  The
 * server's STAT must count exactly what our transport moved.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../transports/verbs_int.h"
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

	if (!legacy_req(sd, idx, 1))
		return;
	if (!legacy_open(sd, &s, &t, 1)) {
		close(sd->fd);
		return;
	}
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

	if (!legacy_req(sd, idx, msg))
		return;
	if (!legacy_open(sd, &s, &t, msg)) {
		close(sd->fd);
		return;
	}
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

	if (!legacy_req(sd, 17, 65536))
		return;
	if (!legacy_open(sd, &s, &t, 65536)) {
		close(sd->fd);
		return;
	}
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

	if (!legacy_req(sd, 32, 64))
		return;
	if (!legacy_open(sd, &s, &t, 64)) {
		close(sd->fd);
		return;
	}
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
