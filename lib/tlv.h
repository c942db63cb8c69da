/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Extension blocks of qperf 0.5's dialect: typed, length-prefixed items in
 * a framed block, so that a peer ignores what it does not know and new
 * items never break an earlier 0.5 build (docs/protocol.md).
 *
 * Block:  u32 magic TLV_MAGIC ("QPX2"), u32 total length in bytes (header
 *         included, at most TLV_BIG_MAX), then items until the end.
 * Item:   u16 type, u16 length, length bytes of value.
 * All integers little-endian.  Pure functions: no I/O, no allocation.
 */
#ifndef QPERF_TLV_H
#define QPERF_TLV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLV_MAGIC 0x32585051u /* "QPX2" little-endian */
#define TLV_HDR 8
#define TLV_MAX 4096 /* ordinary blocks (request, reply, NODE), bytes */
/*
 * Largest block at all: a STAT block with a histogram item, sent only to
 * a client that announced CAP_HIST.  Every receiver also bounds a block
 * by its own buffer (TLV_MAX for the others).
 */
#define TLV_BIG_MAX (64 * 1024 + 1024)
#define TLV_ITEM_MAX 65535 /* a value's largest length (u16) */

struct tlv_w {
	uint8_t *buf;
	size_t cap, len;
	bool bad; /* an item did not fit: tlv_finish() returns 0 */
};

/* Start a block in buf (cap bytes, at least TLV_HDR). */
void tlv_init(struct tlv_w *w, uint8_t *buf, size_t cap);
void tlv_u32(struct tlv_w *w, uint16_t type, uint32_t v);
void tlv_u64(struct tlv_w *w, uint16_t type, uint64_t v);
void tlv_bytes(struct tlv_w *w, uint16_t type, const void *v, uint16_t len);
/*
 * Write an item's value in place: tlv_begin returns where it goes and its
 * room (at most TLV_ITEM_MAX; NULL if none is left), tlv_end(w, type, len)
 * then adds the item of the len bytes written there.
 */
uint8_t *tlv_begin(struct tlv_w *w, size_t *room);
void tlv_end(struct tlv_w *w, uint16_t type, size_t len);
/* Fill in the length; returns the block's size, or 0 if it overflowed. */
size_t tlv_finish(struct tlv_w *w);

/*
 * Add one item to a finished block blk of n bytes (cap bytes of room) and
 * fix its length.  Returns the new size, or 0 if it does not fit.
 */
size_t tlv_append(uint8_t *blk, size_t n, size_t cap, uint16_t type,
		  const void *v, uint16_t len);

/* Check a header; returns the block's total length, or 0 if bad. */
size_t tlv_header(const uint8_t hdr[TLV_HDR]);

struct tlv_r {
	const uint8_t *p, *end;
};

/* Iterate over the items of a whole block (header included). */
void tlv_rinit(struct tlv_r *r, const uint8_t *blk, size_t len);
/* Next item: 1 (type, val, len set), 0 at the end, -1 if malformed. */
int tlv_next(struct tlv_r *r, uint16_t *type, const uint8_t **val,
	     uint16_t *len);
/* Values of exactly 4 / 8 bytes; false if the length is wrong. */
bool tlv_val_u32(const uint8_t *val, uint16_t len, uint32_t *out);
bool tlv_val_u64(const uint8_t *val, uint16_t len, uint64_t *out);

/*
 * Table-driven decoding.  A table has one row per item type (or, for a
 * callback, a run of count types) a block may carry; tlv_decode() walks
 * the items and stores each one its row describes at dst + off.  Rules:
 * - an item of no row is ignored (a later build's item);
 * - an item whose length or value breaks its row makes the block
 *   malformed, unless the row has TLVF_LAX (the item is then skipped);
 * - a later item of the same type overwrites an earlier one (a callback
 *   decides for itself: it may append, or refuse a duplicate);
 * - a row with TLVF_REQ must have been taken by the end of the block.
 */
enum tlv_kind {
	TLV_U32, /* exactly 4 bytes, within min..max; into an unsigned or
		  * int field of size 1, 2, 4 or 8 (or a bool: TLVF_BOOL) */
	TLV_U64, /* exactly 8 bytes, within min..max; into a uint64_t */
	TLV_F64, /* exactly 8 bytes: a double's IEEE-754 bits; into a double */
	TLV_BLOB, /* exactly size bytes, copied */
	TLV_STR, /* at most size - 1 bytes into char[size], NUL-terminated */
	TLV_FLAG, /* any value: sets the bool at off */
	TLV_FN /* fn(dst, row, type, val, len) decides */
};

#define TLVF_LAX 0x01u /* a wrong length or value: skip the item */
#define TLVF_REQ 0x02u /* the block is malformed without this item */
#define TLVF_BOOL 0x04u /* TLV_U32: store value != 0 into a bool */
#define TLVF_TRUNC 0x08u /* TLV_STR: cut a longer value to size - 1 bytes */
#define TLVF_PRINT 0x10u /* TLV_STR: bytes outside printable ASCII -> '?' */
#define TLVF_NONUL 0x20u /* TLV_STR: a NUL inside the value is malformed */

/* What a TLV_FN callback returns besides 0 (taken) and -1 (malformed):
 * the item is taken and decoding ends here, successfully. */
#define TLV_STOP 1

struct tlv_field;
typedef int (*tlv_item_fn)(void *dst, const struct tlv_field *f,
			   uint16_t type, const uint8_t *val, uint16_t len);

struct tlv_field {
	uint16_t type;
	uint16_t count; /* TLV_FN: types type .. type + count - 1 (0: one) */
	enum tlv_kind kind;
	uint32_t flags; /* TLVF_* */
	size_t off; /* of the field in dst */
	size_t size; /* of the field (TLV_BLOB: also the item's length) */
	uint64_t min, max; /* TLV_U32/U64: the values accepted (max 0: any
			    * the field holds) */
	tlv_item_fn fn; /* TLV_FN */
};

/*
 * A string value into s (size bytes, NUL-terminated) by TLVF_TRUNC,
 * TLVF_PRINT and TLVF_NONUL; without TLVF_TRUNC a value of size bytes or
 * more is refused.  0, or -1 (s untouched).
 */
int tlv_val_str(char *s, size_t size, const uint8_t *val, uint16_t len,
		uint32_t flags);

/* Bit of an item type (below 64) in tlv_decode()'s seen mask. */
#define TLV_BIT(t) (1ull << (t))

/*
 * Decode the items of a whole block (header included, not checked: the
 * caller checks it as its dialect wants) by tab (n rows) into dst.  seen
 * (may be NULL) gets TLV_BIT(type) of each item type below 64 a row took.
 * Returns 0 at the end of the block, TLV_STOP if a callback ended it, -1
 * if the block is malformed (framing, an item breaking its row, a required
 * item missing).  What was stored before a failure stays stored.
 */
int tlv_decode(const uint8_t *blk, size_t len, const struct tlv_field *tab,
	       size_t n, void *dst, uint64_t *seen);
/* The same over the items left in r (after some were read by hand). */
int tlv_decode_items(struct tlv_r *r, const struct tlv_field *tab, size_t n,
		     void *dst, uint64_t *seen);

#endif
