// SPDX-License-Identifier: GPL-2.0-only
/*
 * Client address lists (--allow); see acl.h.  Networks are parsed with
 * inet_pton only (no name lookups), so the list means the same thing
 * whatever DNS says.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "lib/err.h"

static void map4(const struct in_addr *in, uint8_t key[16])
{
	memset(key, 0, 16);
	key[10] = key[11] = 0xff;
	memcpy(key + 12, &in->s_addr, 4);
}

static bool in_net(const uint8_t key[16], const struct acl_net *n)
{
	int full = n->bits / 8, rest = n->bits % 8;

	if (memcmp(key, n->addr, (size_t)full) != 0)
		return false;
	if (!rest)
		return true;
	return ((key[full] ^ n->addr[full]) & (0xff00 >> rest) & 0xff) == 0;
}

/* Parse one "ADDR[/BITS]" (len bytes of s). */
static int parse_net(const char *s, size_t len, struct acl_net *n)
{
	char buf[64], *slash, *end;
	struct in_addr a4;
	struct in6_addr a6;
	long bits = -1;
	int max;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash) {
		*slash++ = '\0';
		if (*slash < '0' || *slash > '9')
			return -1;
		bits = strtol(slash, &end, 10);
		if (*end || bits > 128)
			return -1;
	}
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		map4(&a4, n->addr);
		max = 32;
		if (bits < 0)
			bits = 32;
		if (bits > 32)
			return -1;
		bits += 96;
	} else if (inet_pton(AF_INET6, buf, &a6) == 1) {
		memcpy(n->addr, &a6, 16);
		max = 128;
		if (bits < 0)
			bits = max;
	} else {
		return -1;
	}
	n->bits = (uint8_t)bits;
	/* Clear the host bits, so that 10.1.2.3/8 means 10.0.0.0/8. */
	for (int i = 0; i < 16; i++) {
		int keep = n->bits - i * 8;

		if (keep <= 0)
			n->addr[i] = 0;
		else if (keep < 8)
			n->addr[i] &= (uint8_t)(0xff00 >> keep);
	}
	return 0;
}

int acl_add(struct acl *a, const char *spec, char *err, size_t errlen)
{
	const char *p = spec;

	/* Every element, the empty ones of "a,,b" or "a," included. */
	for (;;) {
		size_t len = strcspn(p, ",");

		if (a->n >= ACL_MAX)
			return seterr(err, errlen,
				      "too many networks; at most %d", ACL_MAX);
		if (parse_net(p, len, &a->net[a->n]) < 0)
			return seterr(err, errlen,
				      "bad network \"%.*s\"; use ADDR or ADDR/BITS, e.g. 10.0.0.0/8 or fd00::/8",
				      (int)(len > 60 ? 60 : len), p);
		a->n++;
		p += len;
		if (*p != ',')
			return 0;
		p++;
	}
}

bool acl_key(const struct sockaddr *sa, uint8_t key[16])
{
	if (sa->sa_family == AF_INET) {
		map4(&((const struct sockaddr_in *)sa)->sin_addr, key);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return true;
	}
	return false;
}

bool acl_allows(const struct acl *a, const struct sockaddr *sa)
{
	uint8_t key[16];

	if (a->n == 0)
		return true;
	if (!acl_key(sa, key))
		return false;
	for (int i = 0; i < a->n; i++)
		if (in_net(key, &a->net[i]))
			return true;
	return false;
}

void acl_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	uint8_t key[16];
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0,
					    0, 0, 0, 0, 0xff, 0xff };

	if (!acl_key(sa, key)) {
		xsnprintf(buf, len, "?");
		return;
	}
	if (memcmp(key, mapped, 12) == 0) {
		if (!inet_ntop(AF_INET, key + 12, buf, (socklen_t)len))
			xsnprintf(buf, len, "?");
	} else if (!inet_ntop(AF_INET6, key, buf, (socklen_t)len)) {
		xsnprintf(buf, len, "?");
	}
}
