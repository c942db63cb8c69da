// SPDX-License-Identifier: GPL-2.0-only
/*
 * The STATX_QPS item of a STAT block (core/ctl.h): one end's QPs of a
 * --qps test, for the client's report; STATX_CONNS, laid out the same,
 * its data connections of a --conns test (qp_side.conns).  Pure: bytes
 * to struct and back, every field and length checked before it is
 * stored.
 */
#include <stddef.h>
#include <string.h>

#include "ctl.h"
#include "lib/tlv.h"
#include "lib/wire.h"

/* The header's u64 fields, in wire order. */
static const size_t U64_OFF[] = {
	offsetof(struct qp_side, setup_ns), offsetof(struct qp_side, mr_B),
	offsetof(struct qp_side, queue_B),  offsetof(struct qp_side, proc_B),
	offsetof(struct qp_side, total),    offsetof(struct qp_side, min),
	offsetof(struct qp_side, median),   offsetof(struct qp_side, max),
};
#define QPS_U64 (sizeof(U64_OFF) / sizeof(U64_OFF[0]))
_Static_assert(16 + 8 * QPS_U64 == STATX_QPS_HDR, "STATX_QPS's header");

size_t stat_qps_append(const struct qp_side *q, uint8_t *blk, size_t len,
		       size_t cap)
{
	struct tlv_w tw;
	uint32_t listed = q->listed < QPS_LIST_MAX ? q->listed : QPS_LIST_MAX;
	size_t room, need = STATX_QPS_HDR + 8 * (size_t)listed, n;
	uint8_t *p;

	if (!q->valid || len < TLV_HDR || tlv_header(blk) != len)
		return len;
	tlv_init(&tw, blk, cap);
	tw.len = len; /* after the items already there */
	p = tlv_begin(&tw, &room);
	if (!p || room < need)
		return len;
	wire_put(p, q->n, 4);
	wire_put(p + 4, q->cq_per_qp ? 1 : 0, 4);
	wire_put(p + 8, listed, 4);
	wire_put(p + 12, 0, 4);
	for (size_t i = 0; i < QPS_U64; i++) {
		uint64_t x;

		memcpy(&x, (const char *)q + U64_OFF[i], sizeof(x));
		wire_put(p + 16 + 8 * i, x, 8);
	}
	for (uint32_t i = 0; i < listed; i++)
		wire_put(p + STATX_QPS_HDR + 8 * (size_t)i, q->counts[i], 8);
	tlv_end(&tw, q->conns ? STATX_CONNS : STATX_QPS, need);
	n = tlv_finish(&tw);
	return n ? n : len;
}

/* One STATX_QPS value into q: 0, or -1 if it breaks the layout. */
static int qps_decode(const uint8_t *v, uint16_t len, struct qp_side *q)
{
	uint32_t n, flags, listed;

	if (len < STATX_QPS_HDR)
		return -1;
	n = (uint32_t)wire_get(v, 4);
	flags = (uint32_t)wire_get(v + 4, 4);
	listed = (uint32_t)wire_get(v + 8, 4);
	if (n < 1 || n > QPS_MAX || flags > 1 || listed > n ||
	    listed > QPS_LIST_MAX ||
	    len != STATX_QPS_HDR + 8 * (size_t)listed)
		return -1;
	memset(q, 0, sizeof(*q));
	q->n = n;
	q->cq_per_qp = flags != 0;
	q->listed = listed;
	for (size_t i = 0; i < QPS_U64; i++) {
		uint64_t x = wire_get(v + 16 + 8 * i, 8);

		memcpy((char *)q + U64_OFF[i], &x, sizeof(x));
	}
	for (uint32_t i = 0; i < listed; i++)
		q->counts[i] = wire_get(v + STATX_QPS_HDR + 8 * (size_t)i, 8);
	if (q->min > q->median || q->median > q->max)
		return -1;
	q->valid = true;
	return 0;
}

int stat_qps_take(const uint8_t *blk, size_t len, struct qp_side *q)
{
	struct tlv_r r;
	const uint8_t *v;
	uint16_t type, n;
	int rc;

	q->valid = false;
	tlv_rinit(&r, blk, len);
	while ((rc = tlv_next(&r, &type, &v, &n)) == 1)
		if ((type == STATX_QPS || type == STATX_CONNS) &&
		    qps_decode(v, n, q) < 0)
			return -1;
		else if (type == STATX_CONNS)
			q->conns = true;
	return rc < 0 ? -1 : 0;
}
