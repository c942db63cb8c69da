/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers: clamped formatting into caller error buffers, the
 * monotonic clock, allocation that never returns NULL.
 */
#ifndef QPERF_UTIL_H
#define QPERF_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Set by the test timer's SIGALRM handler (core/measure.c): the test is
 * over.  Loops and transports check it after every blocking call.
 */
extern volatile sig_atomic_t timer_fired;

/* Monotonic time in nanoseconds.  Does not block. */
uint64_t now_ns(void);

/*
 * Format into buf (always NUL-terminated, cut at len-1).  Returns the
 * number of bytes written, never more than len-1.  Returns -1 so that
 * "return seterr(...)" reads naturally in functions returning int.
 */
int seterr(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As seterr(), appending ": strerror(errnum)". */
int seterr_errno(char *buf, size_t len, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* snprintf that returns the bytes actually written (clamped). */
size_t xsnprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* malloc/calloc that print "qperf: out of memory" and exit 1 on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);

/*
 * The socket calls a stream transport makes, as a table: the kernel's
 * (sock_calls_kernel; socket() and accept() add SOCK_CLOEXEC) or
 * librdmacm's rsockets (transports/rsock.c).  nonblock: the calls have
 * no SO_RCVTIMEO/SO_SNDTIMEO, so descriptors stay non-blocking and every
 * wait is a poll() through the table.
 */
#include <poll.h>
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

/* Sleep for ns nanoseconds, resuming after signals. */
void sleep_ns(uint64_t ns);

/* With on set, print one debug line (-D) to stderr. */
void debugf(bool on, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Pin this process to CPU aff-1 (0.4.11's 1-based -ca; 0 = leave) and, with
 * libnuma, prefer that CPU's memory node.  Returns 0 or -1 with err filled.
 */
int set_cpu_affinity(uint64_t aff, char *err, size_t errlen);

/*
 * Flush stdout and remember the first write error on it (a full disk, a
 * closed pipe).  Returns 0, or -1 once any write to stdout has failed;
 * out_error() is then its errno.  For the client's results.
 */
int out_flush(void);
int out_error(void);

/*
 * May this process run on CPU number cpu (0-based)?  True when the
 * affinity mask cannot be read.  cpu_usable_count() is the number of
 * CPUs it may run on (0 if unknown).  Do not block.
 */
bool cpu_usable(uint64_t cpu);
int cpu_usable_count(void);

/*
 * Fill buf with n bytes from the kernel's random generator (getrandom(2),
 * which blocks only before the pool is first seeded at boot).  Returns 0
 * or -1 with err filled.
 */
int random_bytes(void *buf, size_t n, char *err, size_t errlen);

#endif
