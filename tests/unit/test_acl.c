// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the server's client lists (core/acl.c): CIDR parsing,
 * IPv4 clients seen through the dual-stack listener, host bits, and
 * every rejection.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "core/acl.h"
#include "harness.h"

/* A client address as accept() would return it. */
static const struct sockaddr *addr(const char *text,
				   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(text, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, text, &s6->sin6_addr);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		inet_pton(AF_INET, text, &s4->sin_addr);
	}
	return (struct sockaddr *)ss;
}

static bool allows(const char *spec, const char *client)
{
	struct acl a;
	struct sockaddr_storage ss;
	char err[200];

	memset(&a, 0, sizeof(a));
	if (acl_add(&a, spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "    %s\n", err);
		return false;
	}
	return acl_allows(&a, addr(client, &ss));
}

TEST(ipv4_networks)
{
	CHECK(allows("10.0.0.0/8", "10.200.3.4"));
	CHECK(!allows("10.0.0.0/8", "11.0.0.1"));
	CHECK(allows("192.0.2.7", "192.0.2.7"));
	CHECK(!allows("192.0.2.7", "192.0.2.8"));
	CHECK(allows("192.0.2.0/25", "192.0.2.127"));
	CHECK(!allows("192.0.2.0/25", "192.0.2.128"));
	CHECK(allows("0.0.0.0/0", "203.0.113.9"));
	/* Host bits are cleared: 10.1.2.3/8 is 10.0.0.0/8. */
	CHECK(allows("10.1.2.3/8", "10.9.9.9"));
	/* An IPv4 client through the dual-stack listener. */
	CHECK(allows("10.0.0.0/8", "::ffff:10.1.2.3"));
	CHECK(!allows("10.0.0.0/8", "::ffff:11.1.2.3"));
	CHECK(!allows("0.0.0.0/0", "::1"));
}

TEST(ipv6_networks)
{
	CHECK(allows("fd00::/8", "fd12:3456::1"));
	CHECK(!allows("fd00::/8", "fe80::1"));
	CHECK(allows("::1", "::1"));
	CHECK(!allows("::1", "127.0.0.1"));
	CHECK(allows("2001:db8::/33", "2001:db8:7fff::1"));
	CHECK(!allows("2001:db8::/33", "2001:db8:8000::1"));
	CHECK(allows("::/0", "127.0.0.1")); /* v4-mapped is in ::/0 */
}

TEST(lists)
{
	struct acl a;
	struct sockaddr_storage ss;
	char err[200];

	memset(&a, 0, sizeof(a));
	/* Empty: everyone. */
	CHECK(acl_allows(&a, addr("198.51.100.1", &ss)));
	CHECK(acl_add(&a, "127.0.0.2/32,fd00::/8", err, sizeof(err)) == 0);
	CHECK(acl_add(&a, "10.0.0.0/8", err, sizeof(err)) == 0);
	CHECK(a.n == 3);
	CHECK(acl_allows(&a, addr("127.0.0.2", &ss)));
	CHECK(acl_allows(&a, addr("10.0.0.1", &ss)));
	CHECK(acl_allows(&a, addr("fd00::5", &ss)));
	CHECK(!acl_allows(&a, addr("127.0.0.1", &ss)));
}

TEST(rejections)
{
	static const char *const bad[] = {
		"", "10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0.0/-1",
		"10.0.0.0/8x", "host.example", "10.0.0", "1.2.3.4,", ",1.2.3.4",
		"1.2.3.4/ 8", "fd00::/8,,::1",
	};
	char err[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct acl a;

		memset(&a, 0, sizeof(a));
		if (acl_add(&a, bad[i], err, sizeof(err)) != -1) {
			fprintf(stderr, "    accepted \"%s\"\n", bad[i]);
			CHECK(0);
		}
	}
	{
		struct acl a;

		memset(&a, 0, sizeof(a));
		CHECK(acl_add(&a, "10.0.0.0/33", err, sizeof(err)) == -1);
		CHECK_STR(err, "bad network \"10.0.0.0/33\"; use ADDR or "
			       "ADDR/BITS, e.g. 10.0.0.0/8 or fd00::/8");
	}
}

TEST(addr_text)
{
	struct sockaddr_storage ss;
	char buf[64];

	acl_addr_str(addr("::ffff:192.0.2.1", &ss), buf, sizeof(buf));
	CHECK_STR(buf, "192.0.2.1");
	acl_addr_str(addr("192.0.2.1", &ss), buf, sizeof(buf));
	CHECK_STR(buf, "192.0.2.1");
	acl_addr_str(addr("fd00::1", &ss), buf, sizeof(buf));
	CHECK_STR(buf, "fd00::1");
}

int main(void)
{
	RUN(ipv4_networks);
	RUN(ipv6_networks);
	RUN(lists);
	RUN(rejections);
	RUN(addr_text);
	return harness_done();
}
