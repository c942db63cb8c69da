// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counter sets: see counters.h.  The encoding is a TLV block (lib/tlv.h)
 * with a CNTX_SRC item, an optional CNTX_STREAM item and one CNTX_VAL
 * item per value: u8 kind, u8 flags, u64 value (little-endian), then the
 * name's bytes (no NUL).
 */
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "tlv.h"
#include "wire.h"

enum cntx_item {
	CNTX_SRC = 1, /* bytes: the set's source */
	CNTX_STREAM = 2, /* u32: stream index; absent: the sum */
	CNTX_VAL = 3 /* bytes: one value */
};

#define CNTX_VAL_FIXED 10 /* kind, flags, value */

bool cnt_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= CNT_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return false;
	return true;
}

void cnt_init(struct cnt_set *c, const char *src)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->src, sizeof(c->src), "%s", src);
}

const struct cnt_val *cnt_find(const struct cnt_set *c, const char *name)
{
	for (uint32_t i = 0; i < c->n && i < CNT_MAX; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	return NULL;
}

bool cnt_add(struct cnt_set *c, const char *name, enum cnt_kind kind,
	     unsigned flags, uint64_t v)
{
	struct cnt_val *x = (struct cnt_val *)cnt_find(c, name);

	if (!cnt_name_ok(name) || kind > CNT_GAUGE_MAX || (flags & ~CNTF_ALL))
		return false;
	if (!x) {
		if (c->n >= CNT_MAX)
			return false;
		x = &c->v[c->n++];
		memset(x, 0, sizeof(*x));
		strcpy(x->name, name); /* checked: shorter than CNT_NAME */
	}
	x->kind = (uint8_t)kind;
	x->flags = (uint8_t)flags;
	x->v = v;
	return true;
}

void cnt_delta(struct cnt_set *out, const struct cnt_set *start,
	       const struct cnt_set *end)
{
	cnt_init(out, end->src);
	for (uint32_t i = 0; i < end->n && i < CNT_MAX; i++) {
		const struct cnt_val *e = &end->v[i], *s;
		uint64_t v = e->v;

		if (e->kind == CNT_DELTA) {
			s = cnt_find(start, e->name);
			if (!s)
				continue;
			v = e->v >= s->v ? e->v - s->v : 0;
		}
		cnt_add(out, e->name, e->kind, e->flags, v);
	}
}

void cnt_sum(struct cnt_set *acc, const struct cnt_set *c)
{
	for (uint32_t i = 0; i < c->n && i < CNT_MAX; i++) {
		const struct cnt_val *x = &c->v[i];
		const struct cnt_val *a = cnt_find(acc, x->name);
		uint64_t v = x->v;

		if (a && x->kind == CNT_GAUGE_MAX)
			v = a->v > v ? a->v : v;
		else if (a)
			v = a->v + v < a->v ? UINT64_MAX : a->v + v;
		cnt_add(acc, x->name, x->kind, x->flags, v);
	}
}

const char *cnt_scope(const struct cnt_set *c)
{
	unsigned f = 0;

	for (uint32_t i = 0; i < c->n && i < CNT_MAX; i++)
		f |= c->v[i].flags;
	return f & CNTF_PORT ? "port" : f & CNTF_HOST ? "socket+host" : "socket";
}

size_t cnt_encode(const struct cnt_set *c, int32_t stream, uint8_t *out,
		  size_t cap)
{
	struct tlv_w w;

	tlv_init(&w, out, cap);
	tlv_bytes(&w, CNTX_SRC, c->src, (uint16_t)strnlen(c->src, CNT_SRC - 1));
	if (stream >= 0)
		tlv_u32(&w, CNTX_STREAM, (uint32_t)stream);
	for (uint32_t i = 0; i < c->n && i < CNT_MAX; i++) {
		const struct cnt_val *x = &c->v[i];
		size_t nl = strnlen(x->name, CNT_NAME - 1), room;
		uint8_t *p = tlv_begin(&w, &room);

		if (!p || room < CNTX_VAL_FIXED + nl) {
			w.bad = true;
			break;
		}
		p[0] = x->kind;
		p[1] = x->flags;
		wire_put(p + 2, x->v, 8);
		memcpy(p + CNTX_VAL_FIXED, x->name, nl);
		tlv_end(&w, CNTX_VAL, CNTX_VAL_FIXED + nl);
	}
	return tlv_finish(&w);
}

/* One CNTX_VAL item into c: 0, or -1 if it breaks the rules. */
static int take_val(struct cnt_set *c, const uint8_t *val, uint16_t len)
{
	char name[CNT_NAME];
	size_t nl;

	if (len <= CNTX_VAL_FIXED || len - CNTX_VAL_FIXED >= CNT_NAME)
		return -1;
	nl = len - CNTX_VAL_FIXED;
	memcpy(name, val + CNTX_VAL_FIXED, nl);
	name[nl] = '\0';
	if (strlen(name) != nl || cnt_find(c, name) || c->n >= CNT_MAX)
		return -1;
	return cnt_add(c, name, val[0], val[1], wire_get(val + 2, 8)) ? 0 : -1;
}

int cnt_decode(const uint8_t *in, size_t len, struct cnt_set *c,
	       int32_t *stream)
{
	struct tlv_r r;
	const uint8_t *val;
	uint16_t type, vlen;
	uint32_t idx;
	int rc;

	cnt_init(c, "");
	*stream = -1;
	if (len < TLV_HDR || tlv_header(in) != len)
		return -1;
	tlv_rinit(&r, in, len);
	while ((rc = tlv_next(&r, &type, &val, &vlen)) == 1) {
		if (type == CNTX_SRC) {
			memset(c->src, 0, sizeof(c->src)); /* a later one wins whole */
			if (tlv_val_str(c->src, sizeof(c->src), val, vlen,
					TLVF_PRINT | TLVF_NONUL) < 0)
				goto bad;
		} else if (type == CNTX_STREAM) {
			if (!tlv_val_u32(val, vlen, &idx) || idx > 65535)
				goto bad;
			*stream = (int32_t)idx;
		} else if (type == CNTX_VAL) {
			if (take_val(c, val, vlen) < 0)
				goto bad;
		} /* a later build's item: ignored */
	}
	if (rc == 0)
		return 0;
bad:
	cnt_init(c, "");
	*stream = -1;
	return -1;
}
