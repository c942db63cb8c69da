// SPDX-License-Identifier: GPL-2.0-only
/*
 * Socket address helpers shared by the engine and the transports (the
 * verbs driver in tests/rdma links this file alone).  Pure functions.
 */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"

/* The 16-byte IPv6 form of an address (IPv4 as v4-mapped). */
static void addr16(const struct sockaddr_storage *ss, uint8_t out[16])
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

bool sa_same_host(const struct sockaddr_storage *a,
		  const struct sockaddr_storage *b)
{
	uint8_t x[16], y[16];

	addr16(a, x);
	addr16(b, y);
	return memcmp(x, y, 16) == 0;
}
