/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Socket transports.  transports/sock.c holds the code they share (data
 * socket setup on both sides, send and receive), so tcp, udp, sdp, sctp
 * and rds differ only in their descriptors' data.
 */
#ifndef QPERF_SOCK_H
#define QPERF_SOCK_H

#include "transport.h"

extern const struct transport transport_tcp, transport_udp, transport_sdp,
	transport_sctp, transport_rds;

#endif
