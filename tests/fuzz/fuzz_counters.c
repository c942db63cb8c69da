// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the counter-set decoder (lib/counters.c), which
 * reads a server's STATX_COUNTERS items: whatever it is given, it must
 * not crash or read out of bounds; a refused block leaves an empty set;
 * what it accepts holds only valid, unique names and known kinds and
 * flags, and survives its own encoding unchanged.
 */
#include <stdint.h>
#include <string.h>

#include "lib/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cnt_set c, d;
static uint8_t out[CNT_ENC_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int32_t idx, idx2;
	size_t k;

	if (cnt_decode(data, size, &c, &idx) < 0) {
		if (c.n != 0 || idx != -1)
			__builtin_trap();
		return 0;
	}
	if (c.n > CNT_MAX || idx < -1 || idx > 65535 ||
	    memchr(c.src, 0, sizeof(c.src)) == NULL)
		__builtin_trap();
	for (uint32_t i = 0; i < c.n; i++) {
		if (!cnt_name_ok(c.v[i].name) || c.v[i].kind > CNT_GAUGE_MAX ||
		    (c.v[i].flags & ~CNTF_ALL) ||
		    cnt_find(&c, c.v[i].name) != &c.v[i])
			__builtin_trap();
	}
	k = cnt_encode(&c, idx, out, sizeof(out));
	if (k == 0 || cnt_decode(out, k, &d, &idx2) < 0 || idx2 != idx ||
	    memcmp(&c, &d, sizeof(c)) != 0)
		__builtin_trap();
	return 0;
}
