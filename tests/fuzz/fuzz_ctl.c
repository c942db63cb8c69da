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
#include "core/interval.h"
#include "core/fabric.h"
#include "lib/tlv.h"
#include "lib/wire.h"

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
		ext_stat_decode(b, n, &s, NULL);
		{
			uint8_t mac[AUTH_MAC];

			auth_proof_decode(b, n, mac);
		}
		{
			struct ival_rec r;

			if (ival_decode(b, n, &r) > 0 && r.end < r.start)
				__builtin_trap();
		}
	}
	{
		/* A request block and a --streams STAT block behind a valid
		 * header: streams and CPU lists stay within their bounds. */
		static uint8_t blk[TLV_MAX + TLV_HDR];
		static struct node_stat sc[STREAMS_MAX];
		struct req r;
		size_t n = size < TLV_MAX ? size : TLV_MAX;

		wire_put(blk, TLV_MAGIC, 4);
		wire_put(blk + 4, n + TLV_HDR, 4);
		memcpy(blk + TLV_HDR, data, n);
		memset(&r, 0, sizeof(r));
		if (ext_req_decode(blk, n + TLV_HDR, &r) == 0) {
			if (r.streams < 1 || r.streams > STREAMS_MAX ||
			    r.cpus.n > CPUS_MAX)
				__builtin_trap();
			for (uint32_t i = 0; i < r.cpus.n; i++)
				if (r.cpus.pn[i] >= CPUS_PN_MAX)
					__builtin_trap();
		}
		ext_stat_decode_streams(blk, n + TLV_HDR, sc,
					size ? data[0] % (STREAMS_MAX + 1) : 0);
		if (r.qps > QPS_MAX)
			__builtin_trap();
		{
			/* --qps: a STATX_QPS item within its bounds */
			static struct qp_side q;

			if (stat_qps_take(blk, n + TLV_HDR, &q) == 0 &&
			    q.valid &&
			    (q.n < 1 || q.n > QPS_MAX || q.listed > q.n ||
			     q.listed > QPS_LIST_MAX || q.min > q.median ||
			     q.median > q.max))
				__builtin_trap();
		}
	}
	{
		/* The CONF extension: a whole block, up to 4096 bytes. */
		static struct conf_ext x;
		static struct conf_line l[CONF_LINES_MAX];
		static uint8_t blk[TLV_MAX + TLV_HDR];
		size_t n = size < TLV_MAX ? size : TLV_MAX;

		/* Behind a valid header, so that the items get decoded. */
		wire_put(blk, TLV_MAGIC, 4);
		wire_put(blk + 4, n + TLV_HDR, 4);
		memcpy(blk + TLV_HDR, data, n);
		if (conf_ext_decode(blk, n + TLV_HDR, &x) == 0) {
			if (x.fab.ndevs > FAB_DEV_MAX ||
			    strnlen(x.kernel, sizeof(x.kernel)) >= sizeof(x.kernel))
				__builtin_trap();
			for (uint32_t d = 0; d < x.fab.ndevs; d++)
				if (x.fab.devs[d].nports > FAB_PORT_MAX)
					__builtin_trap();
			if (conf_ext_lines(&x, "rem_", l, CONF_LINES_MAX) >
			    CONF_LINES_MAX)
				__builtin_trap();
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
