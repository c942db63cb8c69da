// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster messages: round trips, malformed blocks, sealing (a MAC over
 * each message, nonces, sequence numbers: tampering, replays, reflection,
 * another secret), figures that cannot be, the job secret's sources, and
 * reading a message in parts without blocking.
 */
#include <math.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/cluster_msg.h"
#include "cluster/job_secret.h"
#include "core/auth.h"
#include "lib/tlv.h"
#include "harness.h"

static int roundtrip(const struct cmsg *in, struct cmsg *out)
{
	uint8_t b[TLV_MAX];
	size_t n = cmsg_encode(in, b, sizeof(b));

	return n ? cmsg_decode(b, n, out) : -2;
}

TEST(join_run_done)
{
	struct cmsg m, o;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_JOIN;
	m.u.join.rank = 7;
	m.u.join.size = 9;
	m.u.join.local_rank = 2;
	m.u.join.port = 40000;
	strcpy(m.u.join.host, "node07");
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.type == CMSG_JOIN && o.u.join.rank == 7 &&
	      o.u.join.size == 9 && o.u.join.local_rank == 2 &&
	      o.u.join.port == 40000);
	CHECK_STR(o.u.join.host, "node07");
	memset(&m, 0, sizeof(m));
	m.type = CMSG_RUN;
	m.u.run.job = 12;
	m.u.run.item = 1;
	m.u.run.peer = 3;
	m.u.run.peer_local = 1;
	m.u.run.port = 19765;
	strcpy(m.u.run.addr, "fd00::3");
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.type == CMSG_RUN && o.u.run.job == 12 && o.u.run.item == 1 &&
	      o.u.run.peer == 3 && o.u.run.peer_local == 1 &&
	      o.u.run.port == 19765);
	CHECK_STR(o.u.run.addr, "fd00::3");
	m.type = CMSG_DONE;
	CHECK(roundtrip(&m, &o) == 0 && o.type == CMSG_DONE);
}

/* A JOIN carries the rank's findings (check, text), 4 at the largest,
 * within what rank 0 buffers; control bytes arrive as '?'; a place with
 * no finding stays empty. */
TEST(join_findings)
{
	struct cmsg m, o;
	uint8_t b[TLV_MAX];
	size_t n;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_JOIN;
	m.u.join.size = 3;
	strcpy(m.u.join.host, "n03");
	m.u.join.nfind = 2;
	strcpy(m.u.join.find[0].check, "pcie_link");
	strcpy(m.u.join.find[0].text, "softv0: PCIe link at Gen4 x8");
	strcpy(m.u.join.find[1].check, "governor");
	strcpy(m.u.join.find[1].text, "cpufreq: bad\x01governor");
	CHECK(roundtrip(&m, &o) == 0 && o.u.join.nfind == 2);
	CHECK_STR(o.u.join.find[0].check, "pcie_link");
	CHECK_STR(o.u.join.find[0].text, "softv0: PCIe link at Gen4 x8");
	CHECK_STR(o.u.join.find[1].text, "cpufreq: bad?governor");
	m.u.join.nfind = CMSG_FIND_MAX;
	for (int i = 0; i < CMSG_FIND_MAX; i++) {
		memset(m.u.join.find[i].check, 'c', sizeof(m.u.join.find[i].check) - 1);
		memset(m.u.join.find[i].text, 't', sizeof(m.u.join.find[i].text) - 1);
	}
	memset(m.u.join.host, 'h', CMSG_HOST_MAX - 1);
	n = cmsg_encode(&m, b, sizeof(b));
	CHECK(n > 0 && n + 200 < CMSG_WIRE_MAX, "%zu bytes", n);
	CHECK(roundtrip(&m, &o) == 0 && o.u.join.nfind == CMSG_FIND_MAX);
	m.u.join.nfind = 2; /* a place with no finding is not sent */
	m.u.join.find[0].check[0] = '\0';
	CHECK(roundtrip(&m, &o) == 0 && o.u.join.nfind == 2 &&
	      !o.u.join.find[0].check[0] && o.u.join.find[1].check[0] == 'c');
}

TEST(result)
{
	struct cmsg m, o;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_RESULT;
	m.u.result.job = 5;
	m.u.result.status = 1;
	strcpy(m.u.result.err, "tcp_bw: failed to connect");
	m.u.result.r.send_bw = 1.25e9;
	m.u.result.r.recv_bw = 1.24e9;
	m.u.result.r.msg_rate = 19000.5;
	m.u.result.r.latency = 12.5e-6;
	m.u.result.r.lat.count = 1000;
	m.u.result.r.lat.p99 = 30e-6;
	m.u.result.r.lat.p9999 = 99e-6;
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.u.result.job == 5 && o.u.result.status == 1);
	CHECK_STR(o.u.result.err, "tcp_bw: failed to connect");
	CHECK(o.u.result.r.send_bw == 1.25e9 && o.u.result.r.recv_bw == 1.24e9);
	CHECK(o.u.result.r.msg_rate == 19000.5);
	CHECK(o.u.result.r.latency == 12.5e-6);
	CHECK(o.u.result.r.lat.count == 1000 && o.u.result.r.lat.p99 == 30e-6 &&
	      o.u.result.r.lat.p9999 == 99e-6);
	CHECK(o.u.result.r.ival_n == 0 && o.u.result.r.ival_low == 0);
	/* -I: the lowest interval travels with its count */
	m.u.result.r.ival_low = 3.5e8;
	m.u.result.r.ival_n = 7;
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.u.result.r.ival_low == 3.5e8 && o.u.result.r.ival_n == 7);
	CHECK(!o.u.result.r.ceil.valid); /* none sent: none known */
	/* the path's ceiling travels with the limit that makes it */
	m.u.result.r.ceil.valid = true;
	m.u.result.r.ceil.bps = 14.4e9;
	strcpy(m.u.result.r.ceil.what, "PCIe Gen4 x8 of the server (0000:17:00.0)");
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.u.result.r.ceil.valid && o.u.result.r.ceil.bps == 14.4e9);
	CHECK_STR(o.u.result.r.ceil.what,
		  "PCIe Gen4 x8 of the server (0000:17:00.0)");
	CHECK(o.u.result.late == 0 && o.u.result.r.window == 0);
	/* a group's flow: its start after its due time, its window */
	m.u.result.late = 123456;
	m.u.result.r.window = 2.0005;
	CHECK(roundtrip(&m, &o) == 0);
	CHECK(o.u.result.late == 123456 && o.u.result.r.window == 2.0005);
}

/* A group's flow: RUN with its flags, READY, GO, STOP and CLOCK. */
TEST(flow_messages)
{
	struct cmsg o, m = { .type = CMSG_RUN,
			     .u.run = { .job = 4, .port = 1,
					.addr = "10.0.0.1" } };

	CHECK(roundtrip(&m, &o) == 0 && o.u.run.flow == 0);
	m.u.run.flow = CRUN_SYNC | CRUN_LOAD;
	CHECK(roundtrip(&m, &o) == 0 && o.u.run.flow == (CRUN_SYNC | CRUN_LOAD));
	m.u.run.flow = 4; /* no such flag */
	CHECK(roundtrip(&m, &o) < 0);
	memset(&m, 0, sizeof(m));
	m.type = CMSG_GO;
	m.u.go.job = 77;
	m.u.go.start = 0x123456789abcULL;
	CHECK(roundtrip(&m, &o) == 0 && o.type == CMSG_GO &&
	      o.u.go.job == 77 && o.u.go.start == 0x123456789abcULL);
	m.type = CMSG_READY;
	CHECK(roundtrip(&m, &o) == 0 && o.type == CMSG_READY &&
	      o.u.go.job == 77 && o.u.go.start == 0);
	m.type = CMSG_STOP;
	CHECK(roundtrip(&m, &o) == 0 && o.type == CMSG_STOP &&
	      o.u.go.job == 77);
	memset(&m, 0, sizeof(m));
	m.type = CMSG_CLOCK;
	m.u.clock.probe = 3;
	CHECK(roundtrip(&m, &o) == 0 && o.u.clock.probe == 3 &&
	      o.u.clock.now == 0);
	m.u.clock.now = 987654321;
	CHECK(roundtrip(&m, &o) == 0 && o.u.clock.now == 987654321);
}

/* A JOIN block by hand: rank 0 of 2, local 0, port, host (NULL: none). */
static size_t join_block(uint8_t *b, uint32_t port, const char *host,
			 uint16_t hostlen)
{
	struct tlv_w w;

	tlv_init(&w, b, TLV_MAX);
	tlv_u32(&w, 1, CMSG_JOIN);
	tlv_u32(&w, 2, 0);
	tlv_u32(&w, 3, 2);
	tlv_u32(&w, 4, 0);
	tlv_u32(&w, 5, port);
	if (host)
		tlv_bytes(&w, 6, host, hostlen);
	return tlv_finish(&w);
}

TEST(malformed)
{
	struct cmsg m, o;
	uint8_t b[TLV_MAX];
	size_t n;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_JOIN;
	strcpy(m.u.join.host, "h");
	n = cmsg_encode(&m, b, sizeof(b));
	CHECK(n > 0);
	/* Every truncation fails (header length no longer matches). */
	for (size_t k = 0; k < n; k++)
		CHECK(cmsg_decode(b, k, &o) < 0);
	/* A JOIN without its host, a port beyond 65535, a NUL in the host. */
	CHECK(cmsg_decode(b, join_block(b, 1, NULL, 0), &o) < 0);
	CHECK(cmsg_decode(b, join_block(b, 70000, "h", 1), &o) < 0);
	CHECK(cmsg_decode(b, join_block(b, 1, "h\0x", 3), &o) < 0);
	CHECK(cmsg_decode(b, join_block(b, 1, "h", 1), &o) == 0);
	/* Unknown type. */
	{
		struct tlv_w w;

		tlv_init(&w, b, sizeof(b));
		tlv_u32(&w, 1, 99);
		n = tlv_finish(&w);
		CHECK(cmsg_decode(b, n, &o) < 0);
	}
}

/* -i lists: one device per local rank. */
TEST(pick_id)
{
	char b[64];

	CHECK(cluster_pick_id("mlx5_0,mlx5_1", 0, b, sizeof(b)) == 0);
	CHECK_STR(b, "mlx5_0");
	CHECK(cluster_pick_id("mlx5_0,mlx5_1", 1, b, sizeof(b)) == 0);
	CHECK_STR(b, "mlx5_1");
	CHECK(cluster_pick_id("mlx5_0,mlx5_1:2", 3, b, sizeof(b)) == 0);
	CHECK_STR(b, "mlx5_1:2");
	CHECK(cluster_pick_id("softv0", 5, b, sizeof(b)) == 0);
	CHECK_STR(b, "softv0");
	CHECK(cluster_pick_id("", 5, b, sizeof(b)) == 0);
	CHECK_STR(b, "");
	CHECK(cluster_pick_id("a,,b", 1, b, sizeof(b)) < 0);
	CHECK(cluster_pick_id("a,b,", 2, b, sizeof(b)) < 0);
	CHECK(cluster_pick_id("abcdef,x", 0, b, 4) < 0);
}

static struct auth_secret key_a = { 6, "secret" }, key_b = { 6, "secreT" };

/* Both ends of a connection after HELLO: rank 0's and the rank's. */
static void pair(struct cchan *r0, struct cchan *rk,
		 const struct auth_secret *k0, const struct auth_secret *kr)
{
	memset(r0, 0, sizeof(*r0));
	memset(rk, 0, sizeof(*rk));
	r0->key = k0;
	r0->rank0 = true;
	rk->key = kr;
	for (int i = 0; i < CMSG_NONCE; i++) {
		r0->n0[i] = rk->n0[i] = (uint8_t)(i * 7 + 1);
		rk->nr[i] = (uint8_t)(i * 13 + 5);
	}
}

static void join_msg(struct cmsg *m, uint32_t rank)
{
	memset(m, 0, sizeof(*m));
	m->type = CMSG_JOIN;
	m->u.join.rank = rank;
	m->u.join.size = 4;
	m->u.join.port = 4000;
	strcpy(m->u.join.host, "node1");
}

TEST(sealed)
{
	struct cchan r0, rk, r0b, rkb;
	struct cmsg m, o;
	uint8_t b[CMSG_WIRE_MAX], c[CMSG_WIRE_MAX], ping[CMSG_WIRE_MAX];
	size_t n, np;
	char why[256];

	if (!auth_built())
		return; /* NO_AUTH=1: nothing can be sealed */
	pair(&r0, &rk, &key_a, &key_a);
	join_msg(&m, 2);
	n = cmsg_seal(&rk, &m, b, sizeof(b));
	CHECK(n > 0 && rk.tx == 1);
	/* Any byte changed: refused (the MAC, or the framing). */
	for (size_t k = 0; k < n; k++) {
		struct cchan t = r0;

		memcpy(c, b, n);
		c[k] ^= 0x40;
		CHECK(cmsg_open(&t, c, n, &o, why, sizeof(why)) < 0);
	}
	/* Sealed with another secret, or for another nonce of rank 0. */
	pair(&r0b, &rkb, &key_a, &key_b);
	np = cmsg_seal(&rkb, &m, c, sizeof(c));
	CHECK(cmsg_open(&r0b, c, np, &o, why, sizeof(why)) < 0);
	CHECK_STR(why, "bad MAC: it does not hold this job's secret");
	pair(&r0b, &rkb, &key_a, &key_a);
	r0b.n0[3] ^= 1;
	CHECK(cmsg_open(&r0b, b, n, &o, why, sizeof(why)) < 0);
	CHECK_STR(why, "bad MAC: it does not hold this job's secret");
	/* Unsealed: no MAC. */
	np = cmsg_encode(&m, c, sizeof(c));
	pair(&r0b, &rkb, &key_a, &key_a);
	CHECK(cmsg_open(&r0b, c, np, &o, why, sizeof(why)) < 0);
	CHECK_STR(why, "no MAC: not sealed with a job secret");
	/* The genuine one opens, once: the rank's nonce taken from it. */
	CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) == 0);
	CHECK(o.type == CMSG_JOIN && o.u.join.rank == 2 && r0.rx == 1 &&
	      !memcmp(r0.nr, rk.nr, CMSG_NONCE));
	CHECK_STR(o.u.join.host, "node1");
	CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) < 0);
	CHECK_STR(why, "message 0 where 1 was due: replayed or out of order");
	/* Rank 0 -> rank: a PING opens at the rank; fed back to rank 0 (a
	 * reflection) it does not, nor a second time at the rank. */
	memset(&m, 0, sizeof(m));
	m.type = CMSG_PING;
	np = cmsg_seal(&r0, &m, ping, sizeof(ping));
	CHECK(np > 0);
	CHECK(cmsg_open(&rk, ping, np, &o, why, sizeof(why)) == 0 &&
	      o.type == CMSG_PING);
	CHECK(cmsg_open(&rk, ping, np, &o, why, sizeof(why)) < 0);
	{
		struct cchan t = r0;

		CHECK(cmsg_open(&t, ping, np, &o, why, sizeof(why)) < 0);
	}
	/* Each direction's own types only: a GO or STOP from a rank, a
	 * READY from rank 0 are refused; CLOCK goes both ways. */
	{
		static const enum cmsg_type to0[] = { CMSG_GO, CMSG_STOP,
						      CMSG_RUN };
		struct cchan t;

		memset(&m, 0, sizeof(m));
		for (size_t i = 0; i < sizeof(to0) / sizeof(to0[0]); i++) {
			m.type = to0[i];
			strcpy(m.u.run.addr, "x");
			t = rk;
			n = cmsg_seal(&t, &m, b, sizeof(b));
			t = r0;
			CHECK(cmsg_open(&t, b, n, &o, why, sizeof(why)) < 0);
			CHECK_STR(why, "bad cluster message");
		}
		m.type = CMSG_READY;
		t = r0;
		n = cmsg_seal(&t, &m, b, sizeof(b));
		t = rk;
		CHECK(cmsg_open(&t, b, n, &o, why, sizeof(why)) < 0);
		m.type = CMSG_CLOCK;
		m.u.clock.probe = 1;
		t = r0;
		n = cmsg_seal(&t, &m, b, sizeof(b));
		CHECK(cmsg_open(&rk, b, n, &o, why, sizeof(why)) == 0 &&
		      o.type == CMSG_CLOCK);
		m.u.clock.now = 5;
		n = cmsg_seal(&rk, &m, b, sizeof(b));
		CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) == 0 &&
		      o.u.clock.now == 5);
		m.type = CMSG_READY;
		m.u.go.job = 8;
		n = cmsg_seal(&rk, &m, b, sizeof(b));
		CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) == 0 &&
		      o.type == CMSG_READY && o.u.go.job == 8);
	}
	/* A second JOIN on the same connection is not taken. */
	join_msg(&m, 3);
	n = cmsg_seal(&rk, &m, b, sizeof(b));
	CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) < 0);
	CHECK_STR(why, "bad cluster message");
}

TEST(figures)
{
	struct cchan r0, rk;
	struct cmsg m, o;
	uint8_t b[CMSG_WIRE_MAX];
	char why[256];
	size_t n;
	const double bad[] = { INFINITY, -INFINITY, NAN, -1, -1e-300 };

	memset(&m, 0, sizeof(m));
	m.u.result.r.recv_bw = 1e9;
	CHECK(cmsg_check_figures(&m.u.result.r, why, sizeof(why)) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m.u.result.r.recv_bw = 1e9;
		m.u.result.r.lat.p99 = bad[i];
		CHECK(cmsg_check_figures(&m.u.result.r, why, sizeof(why)) < 0);
		m.u.result.r.lat.p99 = 0;
		m.u.result.r.ceil.bps = bad[i];
		CHECK(cmsg_check_figures(&m.u.result.r, why, sizeof(why)) < 0);
		CHECK(!strncmp(why, "ceiling is ", 11));
		m.u.result.r.ceil.bps = 0;
		m.u.result.r.recv_bw = bad[i];
		CHECK(cmsg_check_figures(&m.u.result.r, why, sizeof(why)) < 0);
		CHECK(!strncmp(why, "recv_bw is ", 11));
	}
	CHECK_STR(why, "recv_bw is -1e-300");
	if (!auth_built())
		return;
	/* Sealed and genuine, but refused: 1, the message decoded. */
	pair(&r0, &rk, &key_a, &key_a);
	join_msg(&m, 1);
	n = cmsg_seal(&rk, &m, b, sizeof(b));
	CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) == 0);
	memset(&m, 0, sizeof(m));
	m.type = CMSG_RESULT;
	m.u.result.job = 9;
	m.u.result.r.recv_bw = INFINITY;
	n = cmsg_seal(&rk, &m, b, sizeof(b));
	CHECK(cmsg_open(&r0, b, n, &o, why, sizeof(why)) == 1);
	CHECK(o.type == CMSG_RESULT && o.u.result.job == 9);
	CHECK_STR(why, "a figure that is not a finite number >= 0: recv_bw is inf");
}

static const char *env_ompi, *env_file;

static const char *fake_env(const char *name)
{
	if (!strcmp(name, OMPI_JOB_KEY))
		return env_ompi;
	if (!strcmp(name, AUTH_ENV))
		return env_file;
	return NULL;
}

TEST(job_key)
{
	struct auth_secret *s = NULL, *s2 = NULL;
	const char *from;
	char err[512];

	env_ompi = env_file = NULL;
	if (!auth_built()) { /* NO_AUTH=1: no cluster mode at all */
		CHECK(job_secret(NULL, fake_env, &s, &from, err,
				 sizeof(err)) < 0 && !s);
		return;
	}
	CHECK(job_secret(NULL, fake_env, &s, &from, err, sizeof(err)) == 1 &&
	      !s);
	CHECK(strstr(err, "--cluster needs a job secret") != NULL);
	env_ompi = "short";
	CHECK(job_secret(NULL, fake_env, &s, &from, err, sizeof(err)) < 0);
	CHECK_STR(err, "OMPI_MCA_orte_precondition_transports holds 5 characters, not a job key; unset it or give --secret_file FILE");
	env_file = "/nonexistent/key";
	CHECK(job_secret(NULL, fake_env, &s, &from, err, sizeof(err)) < 0);
	CHECK_STR(from, "QPERF_SECRET_FILE");
	env_file = "";
	env_ompi = "8d6b2ee98882eb81-1f2de495a36a71b8";
	CHECK(job_secret(NULL, fake_env, &s, &from, err, sizeof(err)) == 0);
	CHECK(s && s->len == AUTH_MAC);
	CHECK_STR(from, OMPI_JOB_KEY);
	/* The launcher's key is not used as it is; the same job, the
	 * same secret; another job, another. */
	CHECK(memcmp(s->key, env_ompi, 32) != 0);
	CHECK(job_secret(NULL, fake_env, &s2, &from, err, sizeof(err)) == 0);
	CHECK(!memcmp(s->key, s2->key, AUTH_MAC));
	auth_free(s2);
	env_ompi = "8d6b2ee98882eb81-1f2de495a36a71b9";
	CHECK(job_secret(NULL, fake_env, &s2, &from, err, sizeof(err)) == 0);
	CHECK(memcmp(s->key, s2->key, AUTH_MAC) != 0);
	auth_free(s);
	auth_free(s2);
}

/* A block that comes in parts: rank 0 never waits for the rest. */
TEST(cin_parts)
{
	struct cin in = { 0 };
	struct cmsg m;
	uint8_t b[CMSG_WIRE_MAX];
	char why[256];
	int sv[2];
	size_t n;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	memset(&m, 0, sizeof(m));
	m.type = CMSG_RESULT;
	strcpy(m.u.result.err, "x");
	n = cmsg_encode(&m, b, sizeof(b));
	CHECK(cin_read(&in, sv[0], why, sizeof(why)) == 0 && !in.buf);
	CHECK(write(sv[1], b, 12) == 12);
	CHECK(cin_read(&in, sv[0], why, sizeof(why)) == 0 && in.have == 12);
	/* the rest, and the start of the next: only the first is taken */
	CHECK(write(sv[1], b + 12, n - 12) == (ssize_t)(n - 12));
	CHECK(write(sv[1], b, 5) == 5);
	CHECK(cin_read(&in, sv[0], why, sizeof(why)) == 1 && in.have == n &&
	      !memcmp(in.buf, b, n));
	cin_clear(&in);
	CHECK(cin_read(&in, sv[0], why, sizeof(why)) == 0 && in.have == 5);
	close(sv[1]);
	CHECK(cin_read(&in, sv[0], why, sizeof(why)) < 0);
	CHECK_STR(why, "closed the connection in mid-message");
	cin_clear(&in);
	close(sv[0]);
	/* A header of a block too big for any cluster message. */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	b[4] = 0;
	b[5] = 0x10; /* 4096 bytes */
	b[6] = b[7] = 0;
	CHECK(write(sv[1], b, 8) == 8);
	CHECK(cin_read(&in, sv[0], why, sizeof(why)) < 0);
	CHECK_STR(why, "not a cluster message");
	cin_clear(&in);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	RUN(sealed);
	RUN(figures);
	RUN(job_key);
	RUN(cin_parts);
	RUN(pick_id);
	RUN(join_run_done);
	RUN(join_findings);
	RUN(result);
	RUN(flow_messages);
	RUN(malformed);
	return harness_done();
}
