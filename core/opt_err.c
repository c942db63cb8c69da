// SPDX-License-Identifier: GPL-2.0-only
/* Errors about an option and its value; see opt_err.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "opt_err.h"

const char *clip(struct clip *c, const char *v)
{
	size_t n = strlen(v);

	if (n <= CLIP_MAX)
		return v;
	memcpy(c->s, v, CLIP_MAX);
	memcpy(c->s + CLIP_MAX, "...", 4);
	return c->s;
}

/*
 * Fill err with "<opt>: <v>: <what>" (or "<opt>: <what>" when v is
 * NULL), opt and v clipped.  Returns -1.
 */
int opts_fail(char *err, size_t errlen, const char *opt, const char *v,
	      const char *fmt, ...)
{
	struct clip co, cv;
	char what[256];
	va_list ap;

	if (!err || !errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (v)
		snprintf(err, errlen, "%s: %s: %s", clip(&co, opt), clip(&cv, v),
			 what);
	else
		snprintf(err, errlen, "%s: %s", clip(&co, opt), what);
	return -1;
}
