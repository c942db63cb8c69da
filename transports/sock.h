/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Socket transports.  Each is a const descriptor; transports/sock.c holds
 * the code they share (data socket setup on both sides, send and receive
 * primitives), so tcp, udp, sdp, sctp and rds differ only in these fields.
 */
#ifndef QPERF_SOCK_H
#define QPERF_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

enum sock_style {
	SS_STREAM, /* tcp, sdp, sctp: connected byte stream */
	SS_DGRAM, /* udp: connected datagrams */
	SS_RDS /* rds: reliable datagrams, address exchange first */
};

struct xport {
	const char *name; /* for messages: "TCP", "SCTP", ... */
	const char *lname; /* for --version: "tcp", ... */
	enum sock_style style;
	int family; /* 0: the usual AF_INET6/AF_INET; else forced family */
	int socktype;
	int protocol; /* 0, or IPPROTO_SCTP */
};

extern const struct xport xport_tcp, xport_udp, xport_sdp, xport_sctp,
	xport_rds;

struct ctl;
struct req;
struct run;

/*
 * Server half of the data-socket setup for request q on control
 * connection c: make and bind the data socket, announce its port, and for
 * stream transports accept the client's connection within the timeout.
 * lat selects TCP_NODELAY.  Fills r->fd.  Returns 0 or -1 with err filled.
 */
int sock_server_open(const struct xport *xp, struct ctl *c,
		     const struct req *q, bool lat, struct run *r, char *err,
		     size_t errlen);

/*
 * Client half: receive the data port and connect to the address the
 * control connection reached (never re-resolving the name).  bufsize is
 * the client's own socket buffer size (0 = leave).  Fills r->fd.
 */
int sock_client_open(const struct xport *xp, struct ctl *c, uint32_t bufsize,
		     bool lat, struct run *r, char *err, size_t errlen);

/*
 * connect() within timeout ns; the socket's blocking mode is kept.
 * Returns 0, or -1 with errno set (ETIMEDOUT when time ran out).
 */
int sock_connect_bounded(int fd, const struct sockaddr *sa, socklen_t len,
			 uint64_t timeout);

/* Set SO_RCVTIMEO and SO_SNDTIMEO on fd (ns; 0 = none). */
void sock_set_idle(int fd, uint64_t ns);

#endif
