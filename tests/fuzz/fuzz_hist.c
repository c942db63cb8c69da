// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the histogram decoder (lib/hist.c), which reads
 * a peer's bytes from the STAT block: whatever it is given, it must not
 * crash or read out of bounds; what it accepts must be consistent and
 * re-encode to exactly the same bytes (the encoding is canonical).
 */
#include <stdint.h>
#include <string.h>

#include "lib/hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hist h;
static uint8_t out[HIST_ENC_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t n = 0;
	size_t k;

	if (hist_decode(data, size, &h) < 0) {
		if (h.count != 0)
			__builtin_trap();
		return 0;
	}
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += h.b[i];
	if (n != h.count || (h.count && h.min > h.max))
		__builtin_trap();
	if (h.count && (hist_value_at(&h, 50) < h.min ||
			hist_value_at(&h, 99.99) > h.max))
		__builtin_trap();
	k = hist_encode(&h, out, sizeof(out));
	if (k != size || memcmp(out, data, size) != 0)
		__builtin_trap();
	return 0;
}
