// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SubnGet(PortInfo) SMP and its answer (lib/portinfo.h).  Layouts from
 * the InfiniBand Architecture Specification, volume 1: the MAD common
 * header (13.4.2), the directed-route SMP (14.2.1.2: M_Key, DrSLID,
 * DrDLID, 28 reserved bytes, 64 bytes of data at offset 64, the initial
 * and return paths), PortInfo (14.2.5.6, byte offsets within the data):
 *   20-23 CapabilityMask (bit 14: IsExtendedSpeedsSupported)
 *   29 LinkWidthEnabled, 31 LinkWidthActive (1 1x, 2 4x, 4 8x, 8 12x,
 *      16 2x; Enabled is a mask of these)
 *   32 LinkSpeedSupported (high nibble)
 *   35 LinkSpeedActive (high nibble), LinkSpeedEnabled (low nibble):
 *      1 SDR, 2 DDR, 4 QDR (Enabled a mask)
 *   62 LinkSpeedExtActive (high nibble), 63 LinkSpeedExtEnabled (low 5
 *      bits): 1 FDR, 2 EDR, 4 HDR, 8 NDR (Enabled a mask)
 * All fields big-endian.
 */
#include <string.h>

#include "lib/portinfo.h"

#define MAD_BASE_VERSION 1
#define SMP_CLASS_VERSION 1
#define METHOD_GET 0x01
#define METHOD_GETRESP 0x81
#define SMP_DATA 64 /* offset of the attribute in an SMP */
#define CAP_EXT_SPEEDS (1u << 14)

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

void pi_request(uint8_t mad[PI_MAD_SIZE], uint32_t port, uint64_t tid)
{
	memset(mad, 0, PI_MAD_SIZE);
	mad[0] = MAD_BASE_VERSION;
	mad[1] = PI_MGMT_CLASS_DR;
	mad[2] = SMP_CLASS_VERSION;
	mad[3] = METHOD_GET;
	/* 4-5: status (D bit 0: outbound); 6: hop pointer; 7: hop count */
	put32(mad + 8, (uint32_t)(tid >> 32));
	put32(mad + 12, (uint32_t)tid);
	put16(mad + 16, PI_ATTR_PORTINFO);
	put32(mad + 20, port);
	put16(mad + 32, 0xffff); /* DrSLID, DrDLID: permissive */
	put16(mad + 34, 0xffff);
}

uint32_t pi_width_lanes(uint32_t code)
{
	switch (code) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	}
	return 0;
}

/* The widest width of a LinkWidthEnabled mask, in lanes. */
static uint32_t widest(uint32_t mask)
{
	uint32_t best = 0;

	for (uint32_t b = 1; b <= 16; b <<= 1)
		if ((mask & b) && pi_width_lanes(b) > best)
			best = pi_width_lanes(b);
	return best;
}

/* The fastest speed of a LinkSpeedEnabled mask (rdma-core codes 1, 2,
 * 4) and a LinkSpeedExtEnabled one (bits 1 FDR 16, 2 EDR 32, 4 HDR 64,
 * 8 NDR 128). */
static uint32_t fastest(uint32_t mask, uint32_t ext)
{
	for (int b = 3; b >= 0; b--)
		if (ext & (1u << b))
			return 16u << b;
	for (int b = 2; b >= 0; b--)
		if (mask & (1u << b))
			return 1u << b;
	return 0;
}

int pi_decode(const uint8_t *mad, size_t len, uint64_t tid, struct pi_link *l)
{
	const uint8_t *pi = mad + SMP_DATA;
	uint32_t cap, ext_on, en, act, xen, xact;

	if (len < SMP_DATA + 64 || mad[0] != MAD_BASE_VERSION ||
	    mad[1] != PI_MGMT_CLASS_DR || mad[3] != METHOD_GETRESP ||
	    (get16(mad + 4) & 0x7fff) != 0 || /* D bit aside: a status */
	    get32(mad + 8) != (uint32_t)(tid >> 32) ||
	    get32(mad + 12) != (uint32_t)tid ||
	    get16(mad + 16) != PI_ATTR_PORTINFO)
		return -1;
	cap = get32(pi + 20);
	ext_on = cap & CAP_EXT_SPEEDS;
	en = pi[35] & 0x0f;
	act = pi[35] >> 4;
	xen = ext_on ? pi[63] & 0x1f : 0;
	xact = ext_on ? pi[62] >> 4 : 0;
	/* 0x0f / 0x1f: "set to supported" in a Set, not a state to report */
	if (en == 0x0f)
		en = pi[32] >> 4;
	if (xen == 0x1f)
		xen = 0;
	memset(l, 0, sizeof(*l));
	l->width_enabled = pi[29] == 0xff ? 0 : widest(pi[29]);
	l->width_active = pi_width_lanes(pi[31]);
	l->speed_enabled = fastest(en, xen);
	l->speed_active = fastest(act, xact);
	return 0;
}
