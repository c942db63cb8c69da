/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Little-endian integers on the wire, byte by byte, whatever the host's
 * order: every codec of qperf (control messages, extension blocks, NODE)
 * packs through these.  Pure, inline.
 */
#ifndef QPERF_WIRE_H
#define QPERF_WIRE_H

#include <stdint.h>

/* Store the low n bytes of v at p, least significant first. */
static inline void wire_put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Load an n-byte little-endian integer from p. */
static inline uint64_t wire_get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
