/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Socket transports.  transports/sock.c holds the code they share (data
 * socket setup on both sides, send and receive), so tcp, udp, sdp, sctp
 * and rds differ only in their descriptors' data.
 */
#ifndef QPERF_SOCK_H
#define QPERF_SOCK_H

#include "lib/sockcall.h"
#include "transport.h"

extern const struct transport transport_tcp, transport_udp, transport_sdp,
	transport_sctp, transport_rds;

enum sock_style {
	SS_STREAM, /* tcp, sdp, sctp, rsockets: connected byte stream */
	SS_DGRAM, /* udp: datagrams */
	SS_RDS /* rds: reliable datagrams, address exchange first */
};

/* What a socket transport is made of.  Only streams may use calls
 * other than the kernel's. */
struct xport {
	const char *name; /* for messages: "TCP", "SCTP", ... */
	enum sock_style style;
	int family; /* 0: the control connection's; else forced family */
	int socktype;
	int protocol; /* 0, or IPPROTO_SCTP */
	const struct sock_calls *k; /* socket calls (lib/sockcall.h) */
};

/* The operations of every socket transport (sock.c; post and poll are
 * sock_io.c's, sock_io.h); open is sock_open() with the transport's
 * xport. */
int sock_open(struct tsess *s, const struct xport *xp, char *err,
	      size_t errlen);
void sock_close(struct tsess *s);
/* The counters operation (sock_cnt.c): TCP_INFO for tcp, the socket's
 * drops and the host's UDP errors for udp, nothing for the others. */
struct cnt_set;
void sock_counters(struct tsess *s, struct cnt_set *c);
#define SOCK_PRIV_MAX 1024 /* bytes of s->priv a socket transport needs */

extern const struct transport transport_rs; /* rsockets (rsock.c) */
/* tcp_conn: a TCP connection per transaction (sock_conn.c) */
extern const struct transport transport_tcp_conn;

#endif
