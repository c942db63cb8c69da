/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Descriptors against RLIMIT_NOFILE: how many this process has open, and
 * room for more (the soft limit raised towards the hard one as needed).
 * Used by the transports that take a descriptor per QP or connection
 * before they make any.  No call blocks; none prints.
 */
#ifndef QPERF_FDLIMIT_H
#define QPERF_FDLIMIT_H

#include <stdint.h>

/* Descriptors this process has open now (/proc/self/fd; 0 if unknown). */
uint64_t fdlimit_open(void);

/*
 * Room for want more descriptors besides those open and spare more:
 * 0, the soft limit raised to what that needs if it was below (never
 * past the hard limit); 1 when the hard limit is too low, with *need
 * (open + spare + want), *open and *hard set for the caller's message.
 * An unlimited or unreadable limit is room.
 */
int fdlimit_reserve(uint64_t want, uint64_t spare, uint64_t *need,
		    uint64_t *open, uint64_t *hard);

#endif
