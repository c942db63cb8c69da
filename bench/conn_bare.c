// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bare loop tcp_conn is compared with (bench/conn.sh), since Debian 12
 * has no netperf (TCP_CRR).  The same transaction as tcp_conn's
 * (docs/conn.md, "One transaction"), written the way any small program
 * would: no histogram, no control connection, no watchdog.
 *
 *   conn_bare server PORTFILE
 *	listens on 127.0.0.1, port 0, writes the port to PORTFILE, then
 *	serves one connection after another until killed: accept, write a
 *	1-byte greeting, read the 1-byte request, write the answer, read
 *	to EOF, close.
 *   conn_bare client PORT SECONDS
 *	for SECONDS: socket, TCP_NODELAY, connect, read the greeting,
 *	write the request, read the answer, shutdown(SHUT_WR), read to EOF,
 *	close; then prints
 *	  "txns N rate_per_s R txn_p50_ns X connect_p50_ns Y"
 *	(connect: from socket() until the greeting is read, as tcp_conn's
 *	connect step).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bare.h"

#define TXN_MAX (1u << 22) /* transactions kept for the medians */

static int nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Read until EOF; 0 at EOF, -1 on an error. */
static int drain(int fd)
{
	char b[64];
	ssize_t n;

	while ((n = read(fd, b, sizeof(b))) > 0)
		;
	return n == 0 ? 0 : -1;
}

static int serve(const char *portfile)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
	FILE *f;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 128) ||
	    getsockname(ls, (struct sockaddr *)&a, &len)) {
		perror("conn_bare server");
		return 1;
	}
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f)) {
		perror(portfile);
		return 1;
	}
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		char c = 'g';

		if (fd < 0)
			continue;
		nodelay(fd);
		if (write(fd, &c, 1) == 1 && read(fd, &c, 1) == 1 &&
		    write(fd, &c, 1) == 1)
			drain(fd);
		close(fd);
	}
}

/* One transaction; 0 and the connect step's time in *conn_ns, or -1. */
static int txn(const struct sockaddr_in *a, uint64_t *conn_ns)
{
	uint64_t t0 = ns();
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc = -1;
	char c = 'r';

	if (fd < 0)
		return -1;
	nodelay(fd);
	if (connect(fd, (const struct sockaddr *)a, sizeof(*a)) == 0 &&
	    read(fd, &c, 1) == 1) {
		*conn_ns = ns() - t0;
		if (write(fd, &c, 1) == 1 && read(fd, &c, 1) == 1 &&
		    shutdown(fd, SHUT_WR) == 0 && drain(fd) == 0)
			rc = 0;
	}
	close(fd);
	return rc;
}

static int client(int port, double seconds)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	uint64_t *t = malloc(TXN_MAX * sizeof(*t));
	uint64_t *c = malloc(TXN_MAX * sizeof(*c));
	uint64_t start = ns(), end, n = 0, fails = 0;

	if (!t || !c) {
		fprintf(stderr, "conn_bare: out of memory\n");
		return 1;
	}
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	end = start + (uint64_t)(seconds * 1e9);
	for (uint64_t now = start; now < end;) {
		uint64_t cn = 0;

		if (txn(&a, &cn) < 0) {
			if (++fails > 100) {
				perror("conn_bare client");
				return 1;
			}
			now = ns();
			continue;
		}
		uint64_t done = ns();

		if (n < TXN_MAX) {
			t[n] = done - now;
			c[n] = cn;
		}
		n++;
		now = done;
	}
	if (!n) {
		fprintf(stderr, "conn_bare: no transaction completed\n");
		return 1;
	}
	uint64_t kept = n < TXN_MAX ? n : TXN_MAX;

	qsort(t, kept, sizeof(*t), cmp);
	qsort(c, kept, sizeof(*c), cmp);
	printf("txns %llu rate_per_s %.1f txn_p50_ns %llu connect_p50_ns %llu\n",
	       (unsigned long long)n, (double)n * 1e9 / (double)(ns() - start),
	       (unsigned long long)t[kept / 2],
	       (unsigned long long)c[kept / 2]);
	free(t);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "server") == 0)
		return serve(argv[2]);
	if (argc == 4 && strcmp(argv[1], "client") == 0) {
		int port = atoi(argv[2]);
		double s = atof(argv[3]);

		if (port > 0 && port < 65536 && s > 0)
			return client(port, s);
	}
	fprintf(stderr, "usage: conn_bare server PORTFILE | "
			"conn_bare client PORT SECONDS\n");
	return 2;
}
