/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Client address lists for the server (--allow): CIDR networks, IPv4 and
 * IPv6.  IPv4 is kept in its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so
 * a client that reaches the dual-stack listener as ::ffff:10.1.2.3
 * matches 10.0.0.0/8.  Pure functions; nothing here blocks or prints.
 */
#ifndef QPERF_ACL_H
#define QPERF_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define ACL_MAX 32

struct acl_net {
	uint8_t addr[16]; /* IPv6 or IPv4-mapped, host bits cleared */
	uint8_t bits; /* prefix length over the 128-bit form */
};

/* An empty list (n == 0) allows every client. */
struct acl {
	int n;
	struct acl_net net[ACL_MAX];
};

/*
 * Add the comma-separated networks of spec ("10.0.0.0/8,::1", a bare
 * address is one host) to a.  Returns 0, or -1 with err filled naming
 * the bad element ("bad network \"x\"; use ADDR or ADDR/BITS").
 */
int acl_add(struct acl *a, const char *spec, char *err, size_t errlen);

/* The 16-byte key of sa (IPv4 mapped); false for other families. */
bool acl_key(const struct sockaddr *sa, uint8_t key[16]);

/* Does a allow the client at sa?  An empty list allows everyone. */
bool acl_allows(const struct acl *a, const struct sockaddr *sa);

/* sa's address as text ("10.1.2.3" for a mapped IPv4 client). */
void acl_addr_str(const struct sockaddr *sa, char *buf, size_t len);

#endif
