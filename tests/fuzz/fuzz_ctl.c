// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for every control-message decoder: whatever bytes a
 * hostile peer sends, decoding must not crash, read out of bounds or leave
 * an unterminated string, and re-encoding must give REQ_SIZE bytes.
 */
#include <stdint.h>
#include <string.h>

#include "core/auth.h"
#include "core/ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t b[STAT_SIZE], out[REQ_SIZE];
	struct req q;
	struct node_stat s;
	struct conf_info c;

	memset(b, 0, sizeof(b));
	memcpy(b, data, size < sizeof(b) ? size : sizeof(b));
	req_decode(b, &q);
	if (strlen(q.id) >= sizeof(q.id) ||
	    strlen(q.static_rate) >= sizeof(q.static_rate))
		__builtin_trap();
	{
		size_t n = size < sizeof(b) ? size : sizeof(b);
		struct hello h;

		if (ext_block_len(b) == n)
			ext_req_decode(b, n, &q);
		ext_req_decode(b, n, &q);
		hello_decode(b, n, &h);
		if (strnlen(h.version, sizeof(h.version)) >= sizeof(h.version))
			__builtin_trap();
		ext_stat_decode(b, n, &s);
		{
			uint8_t mac[AUTH_MAC];

			auth_proof_decode(b, n, mac);
		}
	}
	req_encode(&q, out);
	stat_decode(b, &s);
	if (s.real_e < s.real_s)
		__builtin_trap();
	conf_decode(b, &c);
	if (strlen(c.node) > 63 || strlen(c.qperf) > 63)
		__builtin_trap();
	return 0;
}
