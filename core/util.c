// SPDX-License-Identifier: GPL-2.0-only
/* Helpers shared by the engine; see util.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#ifdef HAVE_NUMA
#include <numa.h>
#include "numa.h"
#endif

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static size_t clamp(int n, size_t len)
{
	if (n < 0 || len == 0)
		return 0;
	return (size_t)n >= len ? len - 1 : (size_t)n;
}

size_t xsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len == 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0)
		buf[0] = '\0';
	return clamp(n, len);
}

int seterr(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || len == 0)
		return -1;
	va_start(ap, fmt);
	if (vsnprintf(buf, len, fmt, ap) < 0)
		buf[0] = '\0';
	va_end(ap);
	return -1;
}

int seterr_errno(char *buf, size_t len, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	int r;

	if (!buf || len == 0)
		return -1;
	va_start(ap, fmt);
	r = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (r < 0)
		buf[0] = '\0';
	n = clamp(r, len);
	xsnprintf(buf + n, len - n, ": %s", strerror(errnum));
	return -1;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("qperf: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("qperf: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL),
			       (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int set_cpu_affinity(uint64_t aff, char *err, size_t errlen)
{
	cpu_set_t set;
	unsigned long long cpu = (unsigned long long)aff - 1;

	if (!aff)
		return 0;
	if (cpu >= CPU_SETSIZE)
		return seterr(err, errlen,
			      "cannot set processor affinity (cpu %llu): %s",
			      cpu, strerror(EINVAL));
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return seterr_errno(err, errlen, errno,
				    "cannot set processor affinity (cpu %llu)",
				    cpu);
#ifdef HAVE_NUMA
	/* Allocate test buffers on the memory node of the chosen CPU. */
	{
		int node = qnuma_cpu_node((unsigned)cpu);

		if (node >= 0)
			numa_set_preferred(node);
	}
#endif
	return 0;
}

void debugf(bool on, const char *fmt, ...)
{
	va_list ap;

	if (!on)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

/* The first error seen on stdout (0: none); see out_flush(). */
static int out_errno;

int out_flush(void)
{
	errno = 0;
	if (fflush(stdout) != 0 && !out_errno)
		out_errno = errno ? errno : EIO;
	if (ferror(stdout) && !out_errno)
		out_errno = EIO;
	return out_errno ? -1 : 0;
}

int out_error(void)
{
	return out_errno;
}

bool cpu_usable(uint64_t cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return false;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return true; /* cannot tell: leave it to sched_setaffinity */
	return CPU_ISSET((int)cpu, &set);
}

int cpu_usable_count(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	return CPU_COUNT(&set);
}

int random_bytes(void *buf, size_t n, char *err, size_t errlen)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = getrandom(p, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return seterr_errno(err, errlen, r < 0 ? errno : EIO,
					    "getrandom failed");
		p += r;
		n -= (size_t)r;
	}
	return 0;
}
