// SPDX-License-Identifier: GPL-2.0-only
/*
 * LD_PRELOAD shim for the robustness suite: socket(AF_INET6, ...) fails
 * with EAFNOSUPPORT, as on a kernel built without IPv6, so the server's
 * IPv4 fallback (listener and data sockets) can be tested on any host.
 * Build: cc -shared -fPIC -o noipv6.so noipv6.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (domain == AF_INET6) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real(domain, type, protocol);
}
