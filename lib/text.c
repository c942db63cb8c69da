// SPDX-License-Identifier: GPL-2.0-only
/* Peer-supplied text made safe to print (see text.h). */
#include <string.h>

#include "text.h"

bool text_ok(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

void text_clean_n(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!text_ok((unsigned char)s[i]))
			s[i] = '?';
}

char *text_clean(char *s)
{
	text_clean_n(s, strlen(s));
	return s;
}

char *text_copy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= len)
		n = len - 1;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
	text_clean_n(dst, n);
	return dst;
}
