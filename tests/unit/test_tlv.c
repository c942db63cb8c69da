// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table-driven TLV decoder (lib/tlv.h tlv_decode): each kind, range
 * and length rules, unknown items, duplicates, TLVF_LAX, TLVF_REQ, the
 * seen mask, callbacks (runs of types, TLV_STOP), truncated blocks.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "lib/alloc.h"
#include "lib/tlv.h"

struct rec {
	uint32_t a;
	uint16_t port;
	int32_t idx;
	bool flag, mark;
	uint64_t b;
	double d;
	uint8_t blob[4];
	char s[8], t[8], u[8];
	uint32_t run[3];
	int calls;
};

#define F(t, k, field, ...)                                               \
	{ .type = (t), .kind = (k), .off = offsetof(struct rec, field),    \
	  .size = sizeof(((struct rec *)0)->field), __VA_ARGS__ }

static int run_item(void *dst, const struct tlv_field *f, uint16_t type,
		    const uint8_t *val, uint16_t len)
{
	struct rec *r = dst;

	r->calls++;
	if (!tlv_val_u32(val, len, &r->run[type - f->type]))
		return -1;
	return r->run[type - f->type] == 99 ? TLV_STOP : 0;
}

static const struct tlv_field tab[] = {
	F(1, TLV_U32, a, .flags = TLVF_REQ),
	F(2, TLV_U32, port, .max = 65535),
	F(3, TLV_U32, idx, .min = 1, .max = 0xffff),
	F(4, TLV_U32, flag, .flags = TLVF_BOOL),
	F(5, TLV_U64, b),
	F(6, TLV_F64, d),
	F(7, TLV_BLOB, blob),
	F(8, TLV_STR, s),
	F(9, TLV_STR, t, .flags = TLVF_TRUNC | TLVF_PRINT),
	F(10, TLV_STR, u, .flags = TLVF_NONUL),
	F(11, TLV_FLAG, mark),
	F(12, TLV_BLOB, blob, .flags = TLVF_LAX),
	{ .type = 40, .count = 3, .kind = TLV_FN, .fn = run_item },
};

/* Decode the block w holds into r (zeroed first). */
static int dec(struct tlv_w *w, struct rec *r, uint64_t *seen)
{
	size_t n = tlv_finish(w);

	memset(r, 0, sizeof(*r));
	return n ? tlv_decode(w->buf, n, tab, ARRAY_SIZE(tab), r, seen) : -9;
}

static uint8_t b[512];

TEST(each_kind)
{
	struct tlv_w w;
	struct rec r;
	uint64_t seen, bits;
	double d = 2.5;
	uint64_t db;

	memcpy(&db, &d, 8);
	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 1, 0xdeadbeef);
	tlv_u32(&w, 2, 65535);
	tlv_u32(&w, 3, 7);
	tlv_u32(&w, 4, 5);
	tlv_u64(&w, 5, 1ull << 40);
	tlv_u64(&w, 6, db);
	tlv_bytes(&w, 7, "\1\2\3\4", 4);
	tlv_bytes(&w, 8, "abcdefg", 7);
	tlv_bytes(&w, 9, "x\033y\200zzzzzz", 10);
	tlv_bytes(&w, 10, "ok", 2);
	tlv_bytes(&w, 11, NULL, 0);
	tlv_u32(&w, 41, 6);
	CHECK(dec(&w, &r, &seen) == 0);
	CHECK(r.a == 0xdeadbeef && r.port == 65535 && r.idx == 7);
	CHECK(r.flag && r.b == 1ull << 40 && r.d == 2.5);
	CHECK(memcmp(r.blob, "\1\2\3\4", 4) == 0);
	CHECK_STR(r.s, "abcdefg");
	CHECK_STR(r.t, "x?y?zzz"); /* cut to 7, bytes outside ASCII '?' */
	CHECK_STR(r.u, "ok");
	CHECK(r.mark && r.run[1] == 6 && r.run[0] == 0 && r.calls == 1);
	bits = TLV_BIT(41);
	for (int t = 1; t <= 11; t++)
		bits |= TLV_BIT(t);
	CHECK(seen == bits);
}

/* One item after the required one: the decoder's answer. */
static int one(uint16_t type, const void *v, uint16_t len, struct rec *r)
{
	struct tlv_w w;

	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 1, 1);
	tlv_bytes(&w, type, v, len);
	return dec(&w, r, NULL);
}

TEST(bad_lengths_and_values)
{
	uint8_t v8[8] = { 0 }, big[4] = { 0, 0, 1, 0 }; /* 65536 */
	struct rec r;

	CHECK(one(1, v8, 3, &r) == -1);
	CHECK(one(1, v8, 8, &r) == -1);
	CHECK(one(5, v8, 4, &r) == -1);
	CHECK(one(6, v8, 7, &r) == -1);
	CHECK(one(7, v8, 3, &r) == -1);
	CHECK(one(7, v8, 5, &r) == -1);
	CHECK(one(2, big, 4, &r) == -1); /* above .max */
	CHECK(one(3, v8, 4, &r) == -1); /* 0: below .min */
	CHECK(one(3, big, 4, &r) == -1);
	CHECK(one(8, "12345678", 8, &r) == -1); /* no room for the NUL */
	CHECK(one(8, "1234567", 7, &r) == 0 && strlen(r.s) == 7);
	CHECK(one(8, "a\0b", 3, &r) == 0 && r.s[0] == 'a'); /* NULs kept */
	CHECK(one(10, "a\0b", 3, &r) == -1); /* TLVF_NONUL */
	CHECK(one(41, v8, 2, &r) == -1); /* the callback refuses */
	/* A U32 row into a u16 field without .max takes what fits. */
	CHECK(one(4, big, 4, &r) == 0 && r.flag);
}

TEST(lax_and_unknown_items)
{
	struct tlv_w w;
	struct rec r;
	uint64_t seen;

	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 1, 1);
	tlv_bytes(&w, 12, "abc", 3); /* wrong length, TLVF_LAX: skipped */
	tlv_bytes(&w, 999, "future", 6); /* no row: skipped */
	tlv_u64(&w, 43, 1); /* past the run of 40: no row */
	tlv_bytes(&w, 63, NULL, 0);
	CHECK(dec(&w, &r, &seen) == 0);
	CHECK(seen == TLV_BIT(1) && r.calls == 0);
	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 1, 1);
	tlv_bytes(&w, 12, "abcd", 4);
	CHECK(dec(&w, &r, &seen) == 0);
	CHECK(seen == (TLV_BIT(1) | TLV_BIT(12)));
	CHECK(memcmp(r.blob, "abcd", 4) == 0);
}

TEST(required_duplicates_and_stop)
{
	struct tlv_w w;
	struct rec r;
	uint64_t seen;

	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 2, 80);
	CHECK(dec(&w, &r, &seen) == -1); /* item 1 is required */
	CHECK(seen == TLV_BIT(2) && r.port == 80);
	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 1, 1);
	tlv_u32(&w, 1, 2); /* the later one wins */
	CHECK(dec(&w, &r, NULL) == 0 && r.a == 2);
	/* TLV_STOP ends the block there: no required check, nothing after
	 * it is read, not even a malformed item. */
	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 42, 99);
	tlv_u32(&w, 5, 1);
	CHECK(dec(&w, &r, &seen) == TLV_STOP);
	CHECK(seen == TLV_BIT(42) && r.run[2] == 99);
}

TEST(truncated_blocks)
{
	struct tlv_w w;
	struct rec r;
	uint64_t seen;
	size_t n;

	tlv_init(&w, b, sizeof(b));
	tlv_u32(&w, 1, 1);
	tlv_u32(&w, 2, 3);
	n = tlv_finish(&w);
	for (size_t cut = 1; cut < 8; cut++) { /* into item 2 */
		memset(&r, 0, sizeof(r));
		CHECK(tlv_decode(b, n - cut, tab, ARRAY_SIZE(tab), &r,
				 &seen) == -1);
		CHECK(seen == TLV_BIT(1)); /* what came before the cut */
	}
	CHECK(tlv_decode(b, n - 8, tab, ARRAY_SIZE(tab), &r, &seen) == 0);
	CHECK(tlv_decode(b, n - 12, tab, ARRAY_SIZE(tab), &r, &seen) == -1);
	CHECK(seen == 0);
	CHECK(tlv_decode(b, 3, tab, ARRAY_SIZE(tab), &r, &seen) == -1);
	/* An empty table ignores every well-framed item. */
	CHECK(tlv_decode(b, n, NULL, 0, &r, &seen) == 0 && seen == 0);
	CHECK(tlv_decode(b, n - 1, NULL, 0, &r, &seen) == -1);
}

TEST(val_str)
{
	char s[4];

	CHECK(tlv_val_str(s, sizeof(s), (const uint8_t *)"abcdef", 6,
			  TLVF_TRUNC) == 0);
	CHECK_STR(s, "abc");
	memcpy(s, "zzz", 4);
	CHECK(tlv_val_str(s, sizeof(s), (const uint8_t *)"abcd", 4, 0) == -1);
	CHECK_STR(s, "zzz");
	CHECK(tlv_val_str(s, sizeof(s), (const uint8_t *)"", 0, 0) == 0);
	CHECK_STR(s, "");
	CHECK(tlv_val_str(s, sizeof(s), (const uint8_t *)"a\0", 2,
			  TLVF_PRINT) == 0);
	CHECK(memcmp(s, "a?", 3) == 0);
}

int main(void)
{
	RUN(each_kind);
	RUN(bad_lengths_and_values);
	RUN(lax_and_unknown_items);
	RUN(required_duplicates_and_stop);
	RUN(truncated_blocks);
	RUN(val_str);
	return harness_done();
}
