// SPDX-License-Identifier: GPL-2.0-only
/* Errors into buffers and clamped formatting; see err.h. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

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

const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}
