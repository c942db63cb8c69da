// SPDX-License-Identifier: GPL-2.0-only
/* Random bytes; see random.h. */
#include <errno.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>

#include "err.h"
#include "random.h"

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
