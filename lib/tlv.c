// SPDX-License-Identifier: GPL-2.0-only
/* Extension block codec; see tlv.h. */
#include <string.h>

#include "text.h"
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

size_t tlv_append(uint8_t *blk, size_t n, size_t cap, uint16_t type,
		  const void *v, uint16_t len)
{
	if (n < TLV_HDR || n > cap || cap - n < 4u + len ||
	    n + 4u + len > TLV_BIG_MAX)
		return 0;
	wire_put(blk + n, type, 2);
	wire_put(blk + n + 2, len, 2);
	if (len)
		memcpy(blk + n + 4, v, len);
	n += 4u + len;
	wire_put(blk + 4, n, 4);
	return n;
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

/* The row of tab that takes items of type, or NULL. */
static const struct tlv_field *tlv_row(const struct tlv_field *tab, size_t n,
				       uint16_t type)
{
	for (size_t i = 0; i < n; i++) {
		unsigned c = tab[i].count ? tab[i].count : 1;

		if (type >= tab[i].type && (unsigned)(type - tab[i].type) < c)
			return &tab[i];
	}
	return NULL;
}

/* v into the integer field p of size bytes (a bool with TLVF_BOOL). */
static void put_uint(void *p, const struct tlv_field *f, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;
	bool b = v != 0;

	if (f->flags & TLVF_BOOL)
		memcpy(p, &b, sizeof(b));
	else if (f->size == 1)
		memcpy(p, &u8, 1);
	else if (f->size == 2)
		memcpy(p, &u16, 2);
	else if (f->size == 4)
		memcpy(p, &u32, 4);
	else
		memcpy(p, &v, 8);
}

/* The largest value an integer row takes. */
static uint64_t row_max(const struct tlv_field *f)
{
	if (f->max || (f->flags & TLVF_BOOL))
		return f->max ? f->max : UINT64_MAX;
	return f->size >= 8 ? UINT64_MAX : (1ull << (8 * f->size)) - 1;
}

int tlv_val_str(char *s, size_t size, const uint8_t *val, uint16_t len,
		uint32_t flags)
{
	size_t m = len;

	if (m > size - 1) {
		if (!(flags & TLVF_TRUNC))
			return -1;
		m = size - 1;
	}
	if ((flags & TLVF_NONUL) && memchr(val, 0, len))
		return -1;
	memcpy(s, val, m);
	s[m] = '\0';
	if (flags & TLVF_PRINT)
		text_clean_n(s, m); /* a hostile peer */
	return 0;
}

/* One item by its row: 0 taken, TLV_STOP, or -1 if it breaks the row. */
static int take(const struct tlv_field *f, uint16_t type, const uint8_t *val,
		uint16_t len, void *dst)
{
	uint8_t *p = (uint8_t *)dst + f->off;
	bool yes = true;
	uint64_t v;
	double d;

	switch (f->kind) {
	case TLV_U32:
	case TLV_U64:
		if (len != (f->kind == TLV_U32 ? 4 : 8))
			return -1;
		v = wire_get(val, len);
		if (v < f->min || v > row_max(f))
			return -1;
		put_uint(p, f, v);
		return 0;
	case TLV_F64:
		if (len != 8)
			return -1;
		v = wire_get(val, 8);
		memcpy(&d, &v, sizeof(d));
		memcpy(p, &d, sizeof(d));
		return 0;
	case TLV_BLOB:
		if (len != f->size)
			return -1;
		memcpy(p, val, len);
		return 0;
	case TLV_STR:
		return tlv_val_str((char *)p, f->size, val, len, f->flags);
	case TLV_FLAG:
		memcpy(p, &yes, sizeof(yes));
		return 0;
	case TLV_FN:
		return f->fn(dst, f, type, val, len);
	}
	return -1;
}

int tlv_decode_items(struct tlv_r *r, const struct tlv_field *tab, size_t n,
		     void *dst, uint64_t *seen)
{
	const uint8_t *val;
	uint16_t type, len;
	uint64_t got = 0;
	int k, rc = 0;

	while ((k = tlv_next(r, &type, &val, &len)) > 0) {
		const struct tlv_field *f = tlv_row(tab, n, type);

		if (!f)
			continue; /* a later build's item */
		rc = take(f, type, val, len, dst);
		if (rc < 0 && (f->flags & TLVF_LAX)) {
			rc = 0;
			continue;
		}
		if (rc < 0)
			break;
		if (type < 64)
			got |= TLV_BIT(type);
		if (rc == TLV_STOP)
			break;
	}
	if (seen)
		*seen = got;
	if (k < 0 || rc < 0)
		return -1;
	if (rc == TLV_STOP)
		return TLV_STOP;
	for (size_t i = 0; i < n; i++)
		if ((tab[i].flags & TLVF_REQ) &&
		    (tab[i].type >= 64 || !(got & TLV_BIT(tab[i].type))))
			return -1;
	return 0;
}

int tlv_decode(const uint8_t *blk, size_t len, const struct tlv_field *tab,
	       size_t n, void *dst, uint64_t *seen)
{
	struct tlv_r r;

	tlv_rinit(&r, blk, len);
	return tlv_decode_items(&r, tab, n, dst, seen);
}
