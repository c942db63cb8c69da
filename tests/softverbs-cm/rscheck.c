// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rscheck: rsockets semantics over softverbs' librdmacm, two processes per
 * case, the two roles of the test kit's kit_run_roles (tests/kit/check.h:
 * forked first; the server binds port 0 and passes the port over the kit's
 * socketpair).  What a TCP socket does is what is checked: end of file
 * after the data, reset, non-blocking EAGAIN, rpoll, half-close, refused
 * connect, flow control, a peer that dies mid-stream.
 *
 *   rscheck -l          list the cases
 *   rscheck [CASE...]   run them (default: all; names or shell patterns)
 *
 * A case is one check, the client's: "ok   CASE[client]: what it checks"
 * or "FAIL CASE[ROLE]: why"; a server that fails, crashes or hangs fails
 * the case too.  The last line is "N passed, N failed"; the exit status
 * is 1 on failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rsocket.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KIT_IMPLEMENTATION
#include "../kit/check.h"

static char why[512];

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* the kit's socketpair to the other role, and the result descriptor */
static int sock = -1, resfd = -1;

/* a u32 to (send) or from the other role, within 10 s */
static int xfer(int send, uint32_t *v)
{
	const char *w;

	if (send ? kit_send(sock, v, 4, 10000, &w) :
		   kit_recv(sock, v, 4, 10000, &w))
		return bad("the other process: %s %s", send ? "send" : "receive",
			   w);
	return 0;
}

static int put(uint32_t v)
{
	return xfer(1, &v);
}

static int get(uint32_t *v)
{
	return xfer(0, v);
}

static uint8_t pat(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

/* a listening rsocket on 127.0.0.1:0; returns the accepted one */
static int serve(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int l, s;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = rsocket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || rbind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    rlisten(l, 4) || rgetsockname(l, (struct sockaddr *)&sin, &len))
		return bad("listen: %s", strerror(errno));
	if (put(ntohs(sin.sin_port)))
		return -1;
	s = raccept(l, NULL, NULL);
	if (s < 0)
		return bad("raccept: %s", strerror(errno));
	rclose(l);
	return s;
}

static int dial(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint32_t port;
	int s;

	if (get(&port))
		return -1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || rconnect(s, (struct sockaddr *)&sin, sizeof(sin)))
		return bad("rconnect: %s", strerror(errno));
	return s;
}

static int send_all(int s, size_t n)
{
	uint8_t buf[8192];
	size_t off = 0, i;

	while (off < n) {
		size_t k = n - off < sizeof(buf) ? n - off : sizeof(buf);
		ssize_t w;

		for (i = 0; i < k; i++)
			buf[i] = pat(off + i);
		w = rsend(s, buf, k, 0);
		if (w <= 0)
			return bad("rsend: %s", strerror(errno));
		off += (size_t)w;
	}
	return 0;
}

/* read with odd sizes until EOF; the bytes and the count must match */
static int recv_all(int s, size_t n)
{
	uint8_t buf[777];
	size_t off = 0, i;
	ssize_t r;

	while ((r = rrecv(s, buf, sizeof(buf), 0)) > 0) {
		for (i = 0; i < (size_t)r; i++)
			if (buf[i] != pat(off + i))
				return bad("byte %zu is %u, want %u", off + i,
					   buf[i], pat(off + i));
		off += (size_t)r;
	}
	if (r < 0)
		return bad("rrecv after %zu bytes: %s", off, strerror(errno));
	if (off != n)
		return bad("got %zu bytes before end of file, want %zu", off, n);
	return 0;
}

/* ---- cases ------------------------------------------------------------------ */

static int eof_srv(void)
{
	int s = serve();

	if (s < 0 || send_all(s, 300000))
		return -1;
	return rclose(s) ? bad("rclose: %s", strerror(errno)) : 0;
}

static int eof_cli(void)
{
	int s = dial(), ret;

	if (s < 0)
		return -1;
	ret = recv_all(s, 300000);
	if (!ret && rrecv(s, why, 1, 0) != 0)
		ret = bad("a second read after end of file is not 0");
	rclose(s);
	return ret;
}

static int reset_srv(void)
{
	struct linger lg = { 1, 0 };
	uint32_t v;
	int s = serve();

	if (s < 0 || rsetsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		return bad("SO_LINGER: %s", strerror(errno));
	if (get(&v))
		return -1;
	rclose(s);
	return 0;
}

static int reset_cli(void)
{
	char c;
	int s = dial();
	ssize_t r;

	if (s < 0 || put(1))
		return -1;
	r = rrecv(s, &c, 1, 0);
	if (r != -1 || errno != ECONNRESET)
		return bad("rrecv after the peer reset: %zd (%s), want ECONNRESET",
			   r, strerror(errno));
	rclose(s);
	return 0;
}

static int nonblock_srv(void)
{
	uint32_t v;
	int s = serve();

	if (s < 0 || get(&v))
		return -1;
	if (rsend(s, "0123456789", 10, 0) != 10)
		return bad("rsend: %s", strerror(errno));
	if (get(&v))
		return -1;
	rclose(s);
	return 0;
}

static int nonblock_cli(void)
{
	struct pollfd p;
	char buf[16];
	int s = dial();
	ssize_t r;

	if (s < 0)
		return -1;
	if (rfcntl(s, F_SETFL, rfcntl(s, F_GETFL) | O_NONBLOCK) ||
	    !(rfcntl(s, F_GETFL) & O_NONBLOCK))
		return bad("rfcntl O_NONBLOCK");
	r = rrecv(s, buf, sizeof(buf), 0);
	if (r != -1 || errno != EAGAIN)
		return bad("empty non-blocking rrecv: %zd (%s)", r,
			   strerror(errno));
	p.fd = s;
	p.events = POLLIN;
	if (rpoll(&p, 1, 100) != 0)
		return bad("rpoll on no data did not time out");
	{
		struct timeval tv = { 0, 50000 };
		fd_set rd;

		FD_ZERO(&rd);
		FD_SET(s, &rd);
		if (rselect(s + 1, &rd, NULL, NULL, &tv) != 0)
			return bad("rselect on no data did not time out");
	}
	if (put(1))
		return -1;
	if (rpoll(&p, 1, 5000) != 1 || !(p.revents & POLLIN))
		return bad("rpoll did not see the data");
	{
		struct timeval tv = { 0, 50000 };
		fd_set rd;

		FD_ZERO(&rd);
		FD_SET(s, &rd);
		if (rselect(s + 1, &rd, NULL, NULL, &tv) != 1 ||
		    !FD_ISSET(s, &rd))
			return bad("rselect did not see the data");
	}
	if (rrecv(s, buf, 4, MSG_PEEK) != 4 || memcmp(buf, "0123", 4))
		return bad("MSG_PEEK");
	if (rrecv(s, buf, 3, 0) != 3 || memcmp(buf, "012", 3))
		return bad("partial read of 3");
	if (rrecv(s, buf, sizeof(buf), 0) != 7 || memcmp(buf, "3456789", 7))
		return bad("the rest (7 bytes)");
	put(2);
	rclose(s);
	return 0;
}

static int dies_srv(void)
{
	int s = serve();

	if (s < 0 || send_all(s, 50000))
		return -1;
	/* no rclose: the process just ends (its counts to the kit first) */
	_exit(kit_role_report(resfd) ? 1 : 0);
}

static int dies_cli(void)
{
	uint8_t buf[4096];
	long t0 = now_ms();
	size_t got = 0;
	int s = dial();
	ssize_t r;

	if (s < 0)
		return -1;
	while ((r = rrecv(s, buf, sizeof(buf), 0)) > 0)
		got += (size_t)r;
	if (r < 0 && errno != ECONNRESET)
		return bad("rrecv: %s (want end of file or ECONNRESET)",
			   strerror(errno));
	if (now_ms() - t0 > 5000)
		return bad("took %ld ms to notice", now_ms() - t0);
	if (got > 50000)
		return bad("got %zu bytes of 50000", got);
	rclose(s);
	return 0;
}

static int halfclose_srv(void)
{
	char buf[8];
	int s = serve();

	if (s < 0)
		return -1;
	/* the client shut its write side: end of file, then we answer */
	if (rrecv(s, buf, sizeof(buf), 0) != 5 || rrecv(s, buf, 1, 0) != 0)
		return bad("server: no 5 bytes then end of file");
	if (rsend(s, "reply", 5, 0) != 5)
		return bad("send after the peer's SHUT_WR: %s", strerror(errno));
	rclose(s);
	return 0;
}

static int halfclose_cli(void)
{
	struct sockaddr_in a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);
	int s = dial(), v;
	socklen_t vl = sizeof(v);
	char buf[8];

	if (s < 0)
		return -1;
	if (rgetsockname(s, (struct sockaddr *)&a, &la) ||
	    rgetpeername(s, (struct sockaddr *)&b, &lb) || !a.sin_port ||
	    !b.sin_port || a.sin_port == b.sin_port)
		return bad("rgetsockname/rgetpeername ports");
	if (rgetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &vl) || v <= 0)
		return bad("SO_RCVBUF");
	if (rsend(s, "hello", 5, 0) != 5 || rshutdown(s, SHUT_WR))
		return bad("send/shutdown: %s", strerror(errno));
	if (rsend(s, "x", 1, 0) != -1 || errno != EPIPE)
		return bad("send after SHUT_WR: %s (want EPIPE)", strerror(errno));
	if (rrecv(s, buf, sizeof(buf), MSG_WAITALL) != 5 ||
	    memcmp(buf, "reply", 5))
		return bad("no reply after the half-close");
	rclose(s);
	return 0;
}

static int refused_cli(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int s;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(9);	/* nobody listens in this fabric */
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return bad("rsocket: %s", strerror(errno));
	if (rconnect(s, (struct sockaddr *)&sin, sizeof(sin)) != -1 ||
	    errno != ECONNREFUSED)
		return bad("rconnect to no listener: %s (want ECONNREFUSED)",
			   strerror(errno));
	rclose(s);
	return 0;
}

/* the writer stops at the receiver's window, then everything arrives */
static int flow_srv(void)
{
	uint32_t v;
	int s = serve();

	if (s < 0 || get(&v))
		return -1;
	if (recv_all(s, v))
		return -1;
	rclose(s);
	return 0;
}

static int flow_cli(void)
{
	uint8_t buf[65536];
	size_t sent = 0, i;
	int s = dial();
	ssize_t w;

	if (s < 0)
		return -1;
	rfcntl(s, F_SETFL, O_NONBLOCK);
	for (;;) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = pat(sent + i);
		w = rsend(s, buf, sizeof(buf), 0);
		if (w < 0)
			break;
		sent += (size_t)w;
		if (sent > (64u << 20))
			return bad("64 MB accepted with nobody reading");
	}
	if (errno != EAGAIN)
		return bad("rsend: %s (want EAGAIN)", strerror(errno));
	if (!sent)
		return bad("nothing accepted");
	if (put((uint32_t)(sent + 100000)))
		return -1;
	rfcntl(s, F_SETFL, 0);
	/* the rest, blocking: the receiver now drains the window */
	for (i = 0; i < 100000; i += (size_t)w) {
		size_t k = 100000 - i < sizeof(buf) ? 100000 - i : sizeof(buf);
		size_t j;

		for (j = 0; j < k; j++)
			buf[j] = pat(sent + i + j);
		w = rsend(s, buf, k, 0);
		if (w <= 0)
			return bad("blocking rsend: %s", strerror(errno));
	}
	rclose(s);
	return 0;
}

/* rwritev gathers, rreadv scatters, rwrite/rread are rsend/rrecv */
static int iov_srv(void)
{
	char a[5], b[20];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	size_t got = 0;
	int s = serve();
	ssize_t r;

	if (s < 0)
		return -1;
	while (got < 17) {
		struct iovec v[2] = { iov[0], iov[1] };

		if (got < 5) {
			v[0].iov_base = a + got;
			v[0].iov_len = 5 - got;
		} else {
			v[0].iov_base = b + got - 5;
			v[0].iov_len = 20 - (got - 5);
			v[1].iov_len = 0;
		}
		r = rreadv(s, v, 2);
		if (r <= 0)
			return bad("rreadv: %zd %s", r, strerror(errno));
		got += (size_t)r;
	}
	if (memcmp(a, "abcde", 5) || memcmp(b, "fghijklmnopq", 12))
		return bad("rreadv scattered '%.5s' '%.12s'", a, b);
	if (rwrite(s, "done", 4) != 4)
		return bad("rwrite: %s", strerror(errno));
	rclose(s);
	return 0;
}

static int iov_cli(void)
{
	struct iovec iov[3] = { { "abc", 3 }, { "defghij", 7 }, { "klmnopq", 7 } };
	char buf[8];
	int s = dial();

	if (s < 0)
		return -1;
	if (rwritev(s, iov, 3) != 17)
		return bad("rwritev: %s", strerror(errno));
	if (rrecv(s, buf, 4, MSG_WAITALL) != 4 || memcmp(buf, "done", 4))
		return bad("no answer to the vector write");
	if (rread(s, buf, 1) != 0)
		return bad("rread after the peer closed is not end of file");
	rclose(s);
	return 0;
}

/* a case's roles: fn[0] the client, fn[1] the server (none: one role) */
struct rscase {
	int (*fn[2])(void);
};

static void role(const struct kit_roles *k, int r, int fd, int rfd);

/* CASE2: the two roles, forked; CASE1: the client alone */
#define CASE2(nm, srv, cli, what)					\
	{ .name = nm, .roles = 2, .timeout_ms = 30000,			\
	  .tags = { "client", "server" }, .child = role,		\
	  .arg = &(const struct rscase){ { cli, srv } }, .doc = what }
#define CASE1(nm, cli, what)						\
	{ .name = nm, .roles = 1, .timeout_ms = 30000,			\
	  .tags = { "client", NULL }, .child = role,			\
	  .arg = &(const struct rscase){ { cli, NULL } }, .doc = what }

static const struct kit_roles cases[] = {
	CASE2("eof", eof_srv, eof_cli,
	      "300 kB in odd-sized partial reads, then end of file (rclose)"),
	CASE2("reset", reset_srv, reset_cli,
	      "SO_LINGER 0 close: the peer's rrecv fails with ECONNRESET"),
	CASE2("nonblock", nonblock_srv, nonblock_cli,
	      "O_NONBLOCK EAGAIN, rpoll/rselect timeout and readiness, MSG_PEEK, partial reads"),
	CASE2("peer_dies", dies_srv, dies_cli,
	      "the peer process ends mid-stream: EOF or ECONNRESET, no hang"),
	CASE2("halfclose", halfclose_srv, halfclose_cli,
	      "rshutdown(SHUT_WR): EOF at the peer, EPIPE here, replies still come"),
	CASE1("refused", refused_cli, "rconnect to no listener: ECONNREFUSED"),
	CASE2("iov", iov_srv, iov_cli,
	      "rwritev gathers 3 buffers, rreadv scatters, rwrite/rread"),
	CASE2("flow", flow_srv, flow_cli,
	      "non-blocking writer stops at the window (EAGAIN), all data arrives"),
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Role r of case k (0 client, 1 server) in its forked child; the case is
 * one check (kit_role_outcome); the kit then sends the counts. */
static void role(const struct kit_roles *k, int r, int fd, int rfd)
{
	const struct rscase *c = k->arg;
	int ret;

	sock = fd;
	resfd = rfd;
	ret = c->fn[r]();
	kit_role_outcome(k, r, !ret, why);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	kit.glob = 1; /* names, or shell patterns */
	return kit_main_roles(argc, argv, cases, NCASES, 12);
}
