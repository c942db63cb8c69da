// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's socket calls as a table, a bounded connect and recv; see sockcall.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "clock.h"
#include "sockcall.h"

static int k_socket(int domain, int type, int protocol)
{
	return socket(domain, type | SOCK_CLOEXEC, protocol);
}

static int k_accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	return accept4(fd, sa, len, SOCK_CLOEXEC);
}

const struct sock_calls sock_calls_kernel = {
	.socket = k_socket, .bind = bind, .listen = listen,
	.accept = k_accept, .connect = connect, .close = close,
	.send = send, .recv = recv, .setsockopt = setsockopt,
	.getsockopt = getsockopt, .getsockname = getsockname,
	.poll = poll, .fcntl = fcntl, .nonblock = false,
};

int connect_bounded_calls(const struct sock_calls *k, int fd,
			  const struct sockaddr *sa, unsigned len,
			  uint64_t timeout)
{
	int fl = k->fcntl(fd, F_GETFL);
	int r, e = 0;
	socklen_t el = sizeof(e);
	struct pollfd pfd = { fd, POLLOUT, 0 };
	uint64_t deadline = now_ns() + timeout;

	k->fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	r = k->connect(fd, sa, (socklen_t)len);
	if (r < 0 && errno == EINPROGRESS) {
		do {
			uint64_t now = now_ns();

			if (now >= deadline) {
				errno = ETIMEDOUT;
				return -1;
			}
			r = k->poll(&pfd, 1,
				    (int)((deadline - now) / 1000000 + 1));
		} while (r < 0 ? errno == EINTR : r == 0);
		if (r < 0)
			return -1;
		k->getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e) {
			errno = e;
			return -1;
		}
		r = 0;
	}
	if (r == 0)
		k->fcntl(fd, F_SETFL, fl);
	return r;
}

int connect_bounded(int fd, const struct sockaddr *sa, unsigned len,
		    uint64_t timeout)
{
	return connect_bounded_calls(&sock_calls_kernel, fd, sa, len, timeout);
}

ssize_t recv_bounded(int fd, void *buf, size_t len, uint64_t timeout)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	uint64_t end = now_ns() + timeout;

	for (;;) {
		uint64_t now = now_ns();
		int n = poll(&pf, 1, now < end ? (int)((end - now) / 1000000 + 1)
					       : 0);

		if (n > 0)
			return recv(fd, buf, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = ETIMEDOUT;
		return -1;
	}
}
