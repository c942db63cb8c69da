/* SPDX-License-Identifier: GPL-2.0-only */
/* Random bytes from the kernel, for nonces and per-test secrets. */
#ifndef QPERF_LIB_RANDOM_H
#define QPERF_LIB_RANDOM_H

#include <stddef.h>

/*
 * Fill buf with n bytes from the kernel's random generator (getrandom(2),
 * which blocks only before the pool is first seeded at boot).  Returns 0
 * or -1 with err filled.
 */
int random_bytes(void *buf, size_t n, char *err, size_t errlen);

#endif
