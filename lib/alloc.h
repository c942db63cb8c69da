/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Allocation with one out-of-memory policy: print "qperf: out of memory"
 * and exit 1.  None of these returns NULL.  Used for the engine's small
 * bookkeeping; test buffers, whose size a user chooses, are allocated by
 * their owners with an error path instead.
 */
#ifndef QPERF_LIB_ALLOC_H
#define QPERF_LIB_ALLOC_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
/* A copy of the string s. */
char *xstrdup(const char *s);

/*
 * Growable array: make room for at least need elements of size bytes in
 * the array p whose capacity is *cap elements (0 for a NULL p), doubling
 * (at least 8).  Returns the (maybe moved) array; *cap is updated.  New
 * elements are not initialised.
 */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);

#endif
