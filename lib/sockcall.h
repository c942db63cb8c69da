/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The socket calls a stream transport makes, as a table: the kernel's
 * (sock_calls_kernel; socket() and accept() add SOCK_CLOEXEC) or
 * librdmacm's rsockets (transports/rsock.c).  nonblock: the calls have
 * no SO_RCVTIMEO/SO_SNDTIMEO, so descriptors stay non-blocking and every
 * wait is a poll() through the table.
 */
#ifndef QPERF_LIB_SOCKCALL_H
#define QPERF_LIB_SOCKCALL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct sock_calls {
	int (*socket)(int domain, int type, int protocol);
	int (*bind)(int fd, const struct sockaddr *sa, socklen_t len);
	int (*listen)(int fd, int backlog);
	int (*accept)(int fd, struct sockaddr *sa, socklen_t *len);
	int (*connect)(int fd, const struct sockaddr *sa, socklen_t len);
	int (*close)(int fd);
	ssize_t (*send)(int fd, const void *buf, size_t len, int flags);
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	int (*setsockopt)(int fd, int level, int name, const void *val,
			  socklen_t len);
	int (*getsockopt)(int fd, int level, int name, void *val,
			  socklen_t *len);
	int (*getsockname)(int fd, struct sockaddr *sa, socklen_t *len);
	int (*poll)(struct pollfd *fds, nfds_t n, int timeout_ms);
	int (*fcntl)(int fd, int cmd, ...);
	bool nonblock;
};
extern const struct sock_calls sock_calls_kernel;

/*
 * connect() within timeout ns through calls; the socket's blocking mode
 * is kept.  Returns 0, or -1 with errno set (ETIMEDOUT when time ran
 * out).  connect_bounded() uses the kernel's calls.
 */
int connect_bounded_calls(const struct sock_calls *calls, int fd,
			  const struct sockaddr *sa, unsigned len,
			  uint64_t timeout);
int connect_bounded(int fd, const struct sockaddr *sa, unsigned len,
		    uint64_t timeout);

/*
 * recv() one message (kernel socket) within timeout ns (0: what is there
 * now).  Returns its length, 0 at the peer's end, or -1 with errno set
 * (ETIMEDOUT when time ran out).
 */
ssize_t recv_bounded(int fd, void *buf, size_t len, uint64_t timeout);

#endif
