/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Errors into the caller's buffer, clamped formatting, debug lines.  The
 * bottom of the house: modules fill an error buffer and return -1; one
 * place (qperf.c, or the server's session) prints it.  Nothing here
 * blocks.
 */
#ifndef QPERF_LIB_ERR_H
#define QPERF_LIB_ERR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Format into buf (always NUL-terminated, cut at len-1).  Returns -1 so
 * that "return seterr(...)" reads naturally in functions returning int.
 * A NULL buf or zero len is allowed (nothing is written).
 */
int seterr(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As seterr(), appending ": strerror(errnum)". */
int seterr_errno(char *buf, size_t len, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* snprintf that returns the bytes actually written (clamped). */
size_t xsnprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "SIGINT", "SIGTERM", "SIGHUP" for those signals, else "a signal". */
const char *sig_name(int sig);

/* With on set, print one debug line (-D) to stderr. */
void debugf(bool on, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
