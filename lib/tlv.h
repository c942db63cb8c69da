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

#endif
