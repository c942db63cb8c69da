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

#endif
