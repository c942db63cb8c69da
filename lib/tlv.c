// SPDX-License-Identifier: GPL-2.0-only
/* Extension block codec; see tlv.h. */
#include <string.h>

#include "tlv.h"
#include "wire.h"

void tlv_init(struct tlv_w *w, uint8_t *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap > TLV_BIG_MAX ? TLV_BIG_MAX : cap;
	w->len = TLV_HDR;
	w->bad = cap < TLV_HDR;
}

void tlv_bytes(struct tlv_w *w, uint16_t type, const void *v, uint16_t len)
{
	if (w->bad || w->cap - w->len < 4u + len) {
		w->bad = true;
		return;
	}
	wire_put(w->buf + w->len, type, 2);
	wire_put(w->buf + w->len + 2, len, 2);
	if (len)
		memcpy(w->buf + w->len + 4, v, len);
	w->len += 4u + len;
}

uint8_t *tlv_begin(struct tlv_w *w, size_t *room)
{
	size_t left = w->bad || w->cap - w->len < 4 ? 0 : w->cap - w->len - 4;

	*room = left > TLV_ITEM_MAX ? TLV_ITEM_MAX : left;
	return left ? w->buf + w->len + 4 : NULL;
}

void tlv_end(struct tlv_w *w, uint16_t type, size_t len)
{
	size_t room;

	if (!tlv_begin(w, &room) || len > room) {
		w->bad = true;
		return;
	}
	wire_put(w->buf + w->len, type, 2);
	wire_put(w->buf + w->len + 2, len, 2);
	w->len += 4 + len;
}

void tlv_u32(struct tlv_w *w, uint16_t type, uint32_t v)
{
	uint8_t b[4];

	wire_put(b, v, 4);
	tlv_bytes(w, type, b, 4);
}

void tlv_u64(struct tlv_w *w, uint16_t type, uint64_t v)
{
	uint8_t b[8];

	wire_put(b, v, 8);
	tlv_bytes(w, type, b, 8);
}

size_t tlv_finish(struct tlv_w *w)
{
	if (w->bad)
		return 0;
	wire_put(w->buf, TLV_MAGIC, 4);
	wire_put(w->buf + 4, w->len, 4);
	return w->len;
}

size_t tlv_header(const uint8_t hdr[TLV_HDR])
{
	uint64_t len = wire_get(hdr + 4, 4);

	if (wire_get(hdr, 4) != TLV_MAGIC || len < TLV_HDR || len > TLV_BIG_MAX)
		return 0;
	return (size_t)len;
}

void tlv_rinit(struct tlv_r *r, const uint8_t *blk, size_t len)
{
	r->p = blk + (len >= TLV_HDR ? TLV_HDR : len);
	r->end = blk + len;
}

int tlv_next(struct tlv_r *r, uint16_t *type, const uint8_t **val,
	     uint16_t *len)
{
	size_t left = (size_t)(r->end - r->p);
	uint16_t n;

	if (left == 0)
		return 0;
	if (left < 4)
		return -1;
	n = (uint16_t)wire_get(r->p + 2, 2);
	if (left - 4 < n)
		return -1;
	*type = (uint16_t)wire_get(r->p, 2);
	*len = n;
	*val = r->p + 4;
	r->p += 4u + n;
	return 1;
}

bool tlv_val_u32(const uint8_t *val, uint16_t len, uint32_t *out)
{
	if (len != 4)
		return false;
	*out = (uint32_t)wire_get(val, 4);
	return true;
}

bool tlv_val_u64(const uint8_t *val, uint16_t len, uint64_t *out)
{
	if (len != 8)
		return false;
	*out = wire_get(val, 8);
	return true;
}
