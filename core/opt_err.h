/* SPDX-License-Identifier: GPL-2.0-only */
/* Errors about an option and its value, for the option parser and the
 * value parsers: the option and the value quoted, clipped. */
#ifndef QPERF_OPT_ERR_H
#define QPERF_OPT_ERR_H

#include <stddef.h>

#define CLIP_MAX 60 /* characters of a value quoted in a message */

/* A value cut for quoting in a message. */
struct clip {
	char s[CLIP_MAX + 4];
};

/* v, or its first CLIP_MAX characters and "..." kept in c. */
const char *clip(struct clip *c, const char *v);

/*
 * Fill err with "<opt>: <v>: <what>" (or "<opt>: <what>" when v is NULL),
 * opt and v clipped to 60 characters.  Returns -1.  For opts.c and
 * param.c.
 */
int opts_fail(char *err, size_t errlen, const char *opt, const char *v,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
