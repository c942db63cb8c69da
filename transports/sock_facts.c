// SPDX-License-Identifier: GPL-2.0-only
/*
 * The interface a socket test's data connection uses (issue 18's
 * ceiling): the local address of the data socket, or of the control
 * connection when the data socket is bound to no address (a datagram
 * server), looked up among this host's interfaces.  Loopback is said, not
 * looked up: it has no link speed.
 */
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sock_io.h"
#include "transport.h"

static bool is_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (a->ss_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)a)->sin6_addr);
	return true;
}

/* A v4-mapped IPv6 address as IPv4 (in place). */
static void unmap(struct sockaddr_storage *a)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a;
	struct sockaddr_in s4;

	if (a->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return;
	memset(&s4, 0, sizeof(s4));
	s4.sin_family = AF_INET;
	memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
	memset(a, 0, sizeof(*a));
	memcpy(a, &s4, sizeof(s4));
}

static bool same_addr(const struct sockaddr_storage *a,
		      const struct sockaddr *b)
{
	if (!b || a->ss_family != b->sa_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

void sock_facts(const struct tsess *s, struct path_facts *f)
{
	const struct sock_priv *sp = s->priv;
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	struct ifaddrs *ifs, *i;

	f->kind = FACTS_SOCK;
	memset(&a, 0, sizeof(a));
	if (!sp || sp->fd < 0 || getsockname(sp->fd, (struct sockaddr *)&a,
					     &len) < 0 || is_any(&a)) {
		if (!s->ch)
			return;
		a = s->ch->local;
	}
	unmap(&a);
	f->ip6 = a.ss_family == AF_INET6;
	if (getifaddrs(&ifs) < 0)
		return;
	for (i = ifs; i; i = i->ifa_next) {
		if (!same_addr(&a, i->ifa_addr))
			continue;
		snprintf(f->netdev, sizeof(f->netdev), "%s", i->ifa_name);
		snprintf(f->dev, sizeof(f->dev), "%s", i->ifa_name);
		f->loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
		break;
	}
	freeifaddrs(ifs);
}
