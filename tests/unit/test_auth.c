// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared-secret authentication (core/auth.c): the secret file's rules,
 * HMAC-SHA256 against RFC 4231's vectors, and the proof exchange over a
 * socket pair (right secret, wrong secret, a replayed proof, a server
 * that cannot prove the secret).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/auth.h"
#include "lib/tlv.h"
#include "lib/alloc.h"
#include "harness.h"

static char dir[] = "/tmp/qperf-auth-XXXXXX";

/* Write len bytes of data to dir/name with mode; returns the path. */
static const char *file(const char *name, const void *data, size_t len,
			mode_t mode)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len ||
	    fchmod(fd, mode) < 0)
		fprintf(stderr, "    cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
	return path;
}

/* Remove dir and what the test put in it. */
static void cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static struct auth_secret *load(const char *path, char *err, size_t len)
{
	err[0] = '\0';
	return auth_load(path, "--secret_file", err, len);
}

TEST(secret_file_rules)
{
	static uint8_t big[AUTH_SECRET_MAX + 1], big2[AUTH_SECRET_MAX + 8];
	struct auth_secret *s;
	char err[512], want[512];
	const char *p;

	CHECK(mkdtemp(dir) != NULL);
	p = file("ok", "s3cret\n", 7, 0600);
	s = load(p, err, sizeof(err));
	CHECK(s && s->len == 6 && memcmp(s->key, "s3cret", 6) == 0);
	auth_free(s);
	p = file("crlf", "s3cret\r\n", 8, 0400);
	s = load(p, err, sizeof(err));
	CHECK(s && s->len == 6);
	auth_free(s);
	/* Only one newline is dropped: the rest is the secret. */
	p = file("two", "ab\n\n", 4, 0600);
	s = load(p, err, sizeof(err));
	CHECK(s && s->len == 3 && memcmp(s->key, "ab\n", 3) == 0);
	auth_free(s);
	/* Group or other bits of any kind: refused, naming file and mode. */
	p = file("open", "s3cret", 6, 0644);
	CHECK(load(p, err, sizeof(err)) == NULL);
	snprintf(want, sizeof(want),
		 "--secret_file: \"%s\" has mode 0644: group or others may access it; chmod 600 it",
		 p);
	CHECK_STR(err, want);
	p = file("gw", "s3cret", 6, 0620);
	CHECK(load(p, err, sizeof(err)) == NULL && strstr(err, "mode 0620"));
	p = file("ox", "s3cret", 6, 0601);
	CHECK(load(p, err, sizeof(err)) == NULL && strstr(err, "mode 0601"));
	/* Empty, or only a newline. */
	p = file("empty", "", 0, 0600);
	CHECK(load(p, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "\" is empty; ") != NULL);
	p = file("nl", "\n", 1, 0600);
	CHECK(load(p, err, sizeof(err)) == NULL && strstr(err, "is empty"));
	/* At most AUTH_SECRET_MAX bytes. */
	memset(big, 'k', sizeof(big));
	p = file("max", big, AUTH_SECRET_MAX, 0600);
	s = load(p, err, sizeof(err));
	CHECK(s && s->len == AUTH_SECRET_MAX);
	auth_free(s);
	p = file("big", big, sizeof(big), 0600);
	CHECK(load(p, err, sizeof(err)) == NULL &&
	      strstr(err, "is longer than 4096 bytes, the most a secret may have"));
	/* The largest secret and its newline (as echo writes it) is fine. */
	big[AUTH_SECRET_MAX] = '\n';
	p = file("maxnl", big, AUTH_SECRET_MAX + 1, 0600);
	s = load(p, err, sizeof(err));
	CHECK(s && s->len == AUTH_SECRET_MAX);
	auth_free(s);
	memcpy(big2, big, AUTH_SECRET_MAX);
	memcpy(big2 + AUTH_SECRET_MAX, "\r\n", 2);
	p = file("maxcrlf", big2, AUTH_SECRET_MAX + 2, 0600);
	s = load(p, err, sizeof(err));
	CHECK(s && s->len == AUTH_SECRET_MAX);
	auth_free(s);
	/* One byte more than the limit, before the newline: refused. */
	memset(big2, 'k', sizeof(big2));
	big2[AUTH_SECRET_MAX + 1] = '\n';
	p = file("bignl", big2, AUTH_SECRET_MAX + 2, 0600);
	CHECK(load(p, err, sizeof(err)) == NULL &&
	      strstr(err, "is longer than 4096 bytes"));
	/* A long file is refused whole, whatever it ends with. */
	p = file("huge", big2, sizeof(big2), 0600);
	CHECK(load(p, err, sizeof(err)) == NULL &&
	      strstr(err, "is longer than 4096 bytes"));
	/* Missing, a directory, a FIFO (must not block). */
	snprintf(want, sizeof(want), "%s/none", dir);
	CHECK(load(want, err, sizeof(err)) == NULL &&
	      strstr(err, "cannot open") && strstr(err, "No such file"));
	chmod(dir, 0700);
	CHECK(load(dir, err, sizeof(err)) == NULL &&
	      strstr(err, "is not a regular file"));
	snprintf(want, sizeof(want), "%s/fifo", dir);
	CHECK(mkfifo(want, 0600) == 0);
	CHECK(load(want, err, sizeof(err)) == NULL &&
	      strstr(err, "is not a regular file"));
	cleanup();
}

TEST(secret_from_env)
{
	struct auth_secret *s = NULL;
	char err[512];
	const char *p;

	CHECK(mkdtemp(dir) != NULL);
	p = file("env", "e", 1, 0600);
	setenv(AUTH_ENV, p, 1);
	CHECK(auth_from_plan(NULL, &s, err, sizeof(err)) == 0 && s &&
	      s->len == 1);
	auth_free(s);
	/* The option wins over the environment. */
	p = file("opt", "oo", 2, 0600);
	CHECK(auth_from_plan(p, &s, err, sizeof(err)) == 0 && s && s->len == 2);
	auth_free(s);
	/* Errors from the environment name it. */
	p = file("bad", "x", 1, 0660);
	setenv(AUTH_ENV, p, 1);
	CHECK(auth_from_plan(NULL, &s, err, sizeof(err)) == -1 && !s);
	CHECK(strncmp(err, "QPERF_SECRET_FILE: \"", 20) == 0);
	setenv(AUTH_ENV, "", 1);
	CHECK(auth_from_plan(NULL, &s, err, sizeof(err)) == 0 && !s);
	unsetenv(AUTH_ENV);
	CHECK(auth_from_plan(NULL, &s, err, sizeof(err)) == 0 && !s);
	cleanup();
}

static void hex(const char *h, uint8_t *out)
{
	for (size_t i = 0; h[2 * i]; i++) {
		unsigned v;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

/* RFC 4231 test cases 2 and 6 (HMAC-SHA256), and the parts concatenate. */
TEST(hmac_rfc4231)
{
	struct auth_secret s;
	uint8_t mac[AUTH_MAC], want[AUTH_MAC], data[64];

	memset(&s, 0, sizeof(s));
	memcpy(s.key, "Jefe", 4);
	s.len = 4;
	hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    want);
	CHECK(auth_mac(&s, "what do ya want for nothing?", NULL, 0, NULL, 0,
		       NULL, 0, NULL, 0, mac) == 0);
	CHECK(memcmp(mac, want, AUTH_MAC) == 0);
	memset(mac, 0, sizeof(mac));
	CHECK(auth_mac(&s, "what do ya ", (const uint8_t *)"want ", 5,
		       (const uint8_t *)"for ", 4, (const uint8_t *)"nothing", 7,
		       (const uint8_t *)"?", 1, mac) == 0);
	CHECK(memcmp(mac, want, AUTH_MAC) == 0);
	/* A key longer than the block (131 bytes of 0xaa) is hashed first. */
	memset(s.key, 0xaa, 131);
	s.len = 131;
	hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
	    want);
	memcpy(data, "Test Using Larger Than Block-Size Key - Hash Key First",
	       54);
	CHECK(auth_mac(&s, "", data, 54, NULL, 0, NULL, 0, NULL, 0, mac) == 0);
	CHECK(memcmp(mac, want, AUTH_MAC) == 0);
	CHECK(auth_equal(mac, want, AUTH_MAC));
	want[31] ^= 1;
	CHECK(!auth_equal(mac, want, AUTH_MAC));
}

TEST(proof_block)
{
	uint8_t b[64], mac[AUTH_MAC], m[AUTH_MAC];
	struct tlv_w w;
	size_t n;

	memset(m, 0x5a, sizeof(m));
	tlv_init(&w, b, sizeof(b));
	tlv_bytes(&w, 9, "x", 1); /* an unknown item is skipped */
	tlv_bytes(&w, 1, m, AUTH_MAC);
	n = tlv_finish(&w);
	CHECK(auth_proof_decode(b, n, mac) == 0 && !memcmp(mac, m, AUTH_MAC));
	CHECK(auth_proof_decode(b, n - 1, mac) == 1); /* length mismatch */
	tlv_init(&w, b, sizeof(b));
	tlv_bytes(&w, 1, m, AUTH_MAC - 1);
	n = tlv_finish(&w);
	CHECK(auth_proof_decode(b, n, mac) == 1); /* short MAC */
	memcpy(b, "QPX1", 4);
	CHECK(auth_proof_decode(b, n, mac) == 1);
	CHECK(auth_proof_decode(b, 3, mac) == 1);
}

static struct auth_secret *mem_secret(const char *k)
{
	struct auth_secret *s = xcalloc(1, sizeof(*s));

	s->len = strlen(k);
	memcpy(s->key, k, s->len);
	return s;
}

struct peer_side {
	struct ctl c;
	uint8_t req[REQ_SIZE], reqx[64], hello[64];
	struct auth_transcript t;
};

static void side_init(struct peer_side *d, int fd, uint8_t nonce_byte)
{
	memset(d, 0, sizeof(*d));
	d->c.fd = fd;
	d->c.timeout = 2 * NS_PER_SEC;
	memset(d->req, 1, sizeof(d->req));
	memset(d->reqx, 2, sizeof(d->reqx));
	memset(d->hello, nonce_byte, sizeof(d->hello));
	d->t = (struct auth_transcript){ d->req, d->reqx, sizeof(d->reqx),
					 d->hello, sizeof(d->hello) };
}

/*
 * Run the exchange: the server (forked) with secret ks and the transcript
 * byte hs, the client with kc and hc.  Returns the client's result;
 * *srv gets the server's.
 */
static int exchange(const char *ks, uint8_t hs, const char *kc, uint8_t hc,
		    int *srv, char *err, size_t errlen)
{
	int sp[2], st = 0, rc;
	struct peer_side d;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0)
		return -2;
	pid = fork();
	if (pid == 0) {
		struct auth_secret *s = mem_secret(ks);
		char e[256];
		int r;

		close(sp[0]);
		side_init(&d, sp[1], hs);
		r = auth_serve(&d.c, s, &d.t, e, sizeof(e));
		if (r > 0)
			ctl_send_error(&d.c, e);
		_exit(r < 0 ? 2 : r);
	}
	close(sp[1]);
	{
		struct auth_secret *s = mem_secret(kc);

		side_init(&d, sp[0], hc);
		rc = auth_client(&d.c, s, &d.t, err, errlen);
		auth_free(s);
	}
	close(sp[0]);
	waitpid(pid, &st, 0);
	*srv = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return rc;
}

TEST(proof_exchange)
{
	char err[512] = "";
	int srv = -1;

	/* Same secret, same transcript: both sides accept. */
	CHECK(exchange("k", 7, "k", 7, &srv, err, sizeof(err)) == 0);
	CHECK(srv == 0);
	/* Wrong secret: the server refuses and says why. */
	CHECK(exchange("k", 7, "x", 7, &srv, err, sizeof(err)) == -1);
	CHECK(srv == 1);
	/* AF_UNIX has no urgent data: the client sees the text in-band or
	 * a closed connection; what matters is the server's verdict. */
	/* A proof made for another server nonce (a replay): refused. */
	CHECK(exchange("k", 7, "k", 8, &srv, err, sizeof(err)) == -1);
	CHECK(srv == 1);
}

/* A "server" that answers with a proof made without the secret. */
TEST(server_without_the_secret)
{
	int sp[2];
	struct peer_side d;
	struct auth_secret *s = mem_secret("k");
	char err[512];
	pid_t pid;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	pid = fork();
	if (pid == 0) {
		uint8_t junk[8 + 4 + AUTH_MAC], b[64];

		memset(junk, 0x55, sizeof(junk));
		memcpy(junk, "QPX2", 4);
		junk[4] = sizeof(junk);
		junk[5] = junk[6] = junk[7] = 0;
		junk[8] = 1, junk[9] = 0, junk[10] = AUTH_MAC, junk[11] = 0;
		if (read(sp[1], b, sizeof(b)) <= 0 ||
		    write(sp[1], junk, sizeof(junk)) != sizeof(junk))
			_exit(1);
		_exit(0);
	}
	close(sp[1]);
	side_init(&d, sp[0], 7);
	CHECK(auth_client(&d.c, s, &d.t, err, sizeof(err)) == -1);
	CHECK(strstr(err, "the server failed to prove it has the shared secret") != NULL);
	close(sp[0]);
	waitpid(pid, NULL, 0);
	auth_free(s);
}

/* A NO_AUTH=1 build refuses every secret file, saying why. */
TEST(not_built)
{
	char err[512];

	CHECK(auth_load("/dev/null", "--secret_file", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "built without shared-secret support") != NULL);
}

int main(void)
{
	if (!auth_built()) {
		RUN(not_built);
		return harness_done();
	}
	RUN(secret_file_rules);
	RUN(secret_from_env);
	RUN(hmac_rfc4231);
	RUN(proof_block);
	RUN(proof_exchange);
	RUN(server_without_the_secret);
	return harness_done();
}
