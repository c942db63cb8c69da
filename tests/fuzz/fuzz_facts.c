// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the path facts decoder (lib/facts.c), which reads
 * a server's bytes from its STAT block: whatever it is given it must not
 * crash; what it accepts must hold printable NUL-terminated strings and
 * NUMA nodes in range, re-encode to bytes that decode and encode to the
 * same bytes again (a string item repeated leaves stale bytes after the
 * NUL of the shorter value, so the structs are not compared whole), and
 * go through the ceiling and the checks (lib/path.c) as either end.
 */
#include <stdint.h>
#include <string.h>

#include "lib/facts.h"
#include "lib/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool str_ok(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[FACTS_ENC_MAX], out2[FACTS_ENC_MAX];
	struct path_facts f, g;
	struct path_report r;
	struct path_msg m = { .size = size, .per_msg = 16 };
	size_t k, k2;

	if (facts_decode(data, size, &f) < 0) {
		if (f.kind != FACTS_NONE || f.dev[0] || f.dev_numa != -1)
			__builtin_trap();
		return 0;
	}
	if (!str_ok(f.dev, sizeof(f.dev)) || !str_ok(f.pci, sizeof(f.pci)) ||
	    !str_ok(f.governor, sizeof(f.governor)) ||
	    !str_ok(f.netdev, sizeof(f.netdev)) ||
	    f.dev_numa < -1 || f.dev_numa > FACTS_NUMA_MAX ||
	    f.test_numa < -1 || f.test_numa > FACTS_NUMA_MAX)
		__builtin_trap();
	k = facts_encode(&f, out, sizeof(out));
	if (!k || facts_decode(out, k, &g) < 0)
		__builtin_trap();
	k2 = facts_encode(&g, out2, sizeof(out2));
	if (k2 != k || memcmp(out, out2, k) != 0 || f.kind != g.kind ||
	    strcmp(f.dev, g.dev) != 0 || f.dev_numa != g.dev_numa)
		__builtin_trap();
	memset(&r, 0, sizeof(r));
	r.have[0] = r.have[1] = true;
	r.f[0] = f;
	r.f[1] = g;
	r.f[1].active_mtu ^= 1;
	path_ceiling(&r, &m);
	path_findings(&r);
	if (r.nlimits > PATH_LIMITS_MAX || r.nfind > PATH_FINDINGS_MAX ||
	    (r.ceil.valid && !(r.ceil.bps > 0)))
		__builtin_trap();
	return 0;
}
