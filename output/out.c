// SPDX-License-Identifier: GPL-2.0-only
/* stdout and its first write error; see out.h. */
#include <errno.h>
#include <stdio.h>

#include "out.h"

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
