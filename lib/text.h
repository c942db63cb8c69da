/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text that came from a peer (a server's host name and error message, a
 * rank's host name, a cluster RESULT's error) before it is printed or
 * written anywhere: a terminal, a text report, an SVG, a JSON document.
 * One rule for all of them: printable ASCII (0x20-0x7e) is kept, every
 * other byte (controls such as ESC, DEL, and every 8-bit byte such as
 * the C1 CSI 0x9b or a lone 0xff) becomes '?'.  The result is valid
 * UTF-8 and XML character data (still to be XML-escaped), and carries no
 * terminal escape.  Pure functions (lib/text.c).
 */
#ifndef QPERF_TEXT_H
#define QPERF_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Is byte c kept as it is? */
bool text_ok(unsigned char c);

/* Clean the first n bytes of s in place (NULs included: each is '?'). */
void text_clean_n(char *s, size_t n);

/* Clean the NUL-terminated string s in place; returns s. */
char *text_clean(char *s);

/*
 * Copy src (NULL: "") into dst (len bytes, len > 0), cleaned and cut
 * to fit; returns dst.
 */
char *text_copy(char *dst, size_t len, const char *src);

#endif
