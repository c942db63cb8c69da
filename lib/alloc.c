// SPDX-License-Identifier: GPL-2.0-only
/* Allocation that never returns NULL; see alloc.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static void out_of_memory(void)
{
	fputs("qperf: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap;

	if (need <= n && p)
		return p;
	if (n < 8)
		n = 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			out_of_memory();
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	p = realloc(p, n * (size ? size : 1));
	if (!p)
		out_of_memory();
	*cap = n;
	return p;
}
