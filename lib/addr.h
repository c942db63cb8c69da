/* SPDX-License-Identifier: GPL-2.0-only */
/* Socket address helpers (lib/addr.c).  Pure, never block. */
#ifndef QPERF_ADDR_H
#define QPERF_ADDR_H

#include <stdbool.h>

struct sockaddr_storage;

/* Same host?  IPv4 and its v4-mapped IPv6 form are the same address;
 * ports are ignored. */
bool sa_same_host(const struct sockaddr_storage *a,
		  const struct sockaddr_storage *b);

#endif
