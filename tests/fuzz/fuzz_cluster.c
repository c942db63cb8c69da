// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for cluster mode's message decoder: whatever bytes a
 * rank (or a stranger on the rendezvous port) sends, decoding must not
 * crash or read out of bounds, strings must end inside their buffers, and
 * what decodes must encode and decode again to the same message.
 */
#include <stdint.h>
#include <string.h>

#include "cluster/cluster_msg.h"
#include "lib/tlv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmsg m, m2;
	uint8_t b[TLV_MAX];
	size_t n;

	if (cmsg_decode(data, size, &m) < 0)
		return 0;
	if (strnlen(m.u.join.host, CMSG_HOST_MAX) >= CMSG_HOST_MAX ||
	    strnlen(m.u.result.err, CMSG_ERR_MAX) >= CMSG_ERR_MAX)
		__builtin_trap();
	n = cmsg_encode(&m, b, sizeof(b));
	if (!n || cmsg_decode(b, n, &m2) < 0 || m2.type != m.type)
		__builtin_trap();
	return 0;
}
