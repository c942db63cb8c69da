// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters of both ends over the measured window; see session_cnt.h.
 * The server's set travels only to a client that announced
 * CAP_COUNTERS, in the TLV STAT block, so a 0.4.11 peer and an earlier
 * 0.5 one see exactly what they saw before.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "session.h"
#include "session_cnt.h"
#include "lib/alloc.h"
#include "lib/tlv.h"
#include "output/sink.h"

void session_cnt_window(struct tside *sd, const struct cnt_set *c0,
			const struct cnt_set *c1, uint32_t n)
{
	struct cnt_end *e = &sd->cnt;
	struct cnt_set d;

	if (!c0 || !c1 || n == 0)
		return;
	e->valid = true;
	cnt_init(&e->sum, c1[0].src);
	if (n > 1) {
		e->streams = xcalloc(n, sizeof(*e->streams));
		e->nstreams = n;
	}
	for (uint32_t i = 0; i < n; i++) {
		cnt_delta(&d, &c0[i], &c1[i]);
		/* Host and port counters are one reading for every stream:
		 * added up, they would count the window n times. */
		if (i == 0)
			cnt_sum(&e->sum, &d);
		else
			for (uint32_t k = 0; k < d.n; k++)
				if (!(d.v[k].flags & (CNTF_HOST | CNTF_PORT))) {
					struct cnt_set one;

					cnt_init(&one, "");
					cnt_add(&one, d.v[k].name, d.v[k].kind,
						d.v[k].flags, d.v[k].v);
					cnt_sum(&e->sum, &one);
				}
		if (e->streams)
			e->streams[i] = d;
	}
	if (e->sum.n == 0) { /* nothing could be read (sctp, no sysfs) */
		free(e->streams);
		memset(e, 0, sizeof(*e));
	}
}

/* One set as a STATX_COUNTERS item of w, if it fits whole. */
static void append_set(struct tlv_w *w, const struct cnt_set *c,
		       int32_t stream)
{
	size_t room, k;
	uint8_t *p = tlv_begin(w, &room);

	if (!p)
		return;
	k = cnt_encode(c, stream, p, room);
	if (k)
		tlv_end(w, STATX_COUNTERS, k);
}

size_t session_cnt_append(const struct tside *sd, uint8_t *blk, size_t len,
			  size_t cap)
{
	struct tlv_w w;
	size_t n;

	if (!sd->cnt.valid || len < TLV_HDR || tlv_header(blk) != len)
		return len;
	tlv_init(&w, blk, cap);
	w.len = len; /* go on after the items already there */
	append_set(&w, &sd->cnt.sum, -1);
	for (uint32_t i = 0; i < sd->cnt.nstreams && sd->cnt.streams; i++)
		append_set(&w, &sd->cnt.streams[i], (int32_t)i);
	n = tlv_finish(&w);
	return n ? n : len;
}

int session_cnt_take(struct tside *sd, const uint8_t *blk, size_t len)
{
	struct cnt_end *e = &sd->peer_cnt;
	struct tlv_r r;
	const uint8_t *val;
	uint16_t type, vlen;
	struct cnt_set c;
	int32_t idx;
	int rc;

	if (sd->nstreams > 1 && !e->streams) {
		e->streams = xcalloc(sd->nstreams, sizeof(*e->streams));
		e->nstreams = sd->nstreams;
	}
	tlv_rinit(&r, blk, len);
	while ((rc = tlv_next(&r, &type, &val, &vlen)) == 1) {
		if (type != STATX_COUNTERS)
			continue;
		if (cnt_decode(val, vlen, &c, &idx) < 0 ||
		    (idx >= 0 && (uint32_t)idx >= e->nstreams))
			return -1;
		if (idx < 0) {
			e->sum = c;
			e->valid = true;
		} else {
			e->streams[idx] = c;
		}
	}
	return rc;
}

/* One warning per error counter of e that rose. */
static void warn_end(struct outputs *o, const char *test, const char *end,
		     const struct cnt_end *e)
{
	if (!e->valid)
		return;
	for (uint32_t i = 0; i < e->sum.n; i++) {
		const struct cnt_val *v = &e->sum.v[i];

		if (!(v->flags & CNTF_ERROR) || v->kind != CNT_DELTA || !v->v)
			continue;
		out_warning(o, "%s: %s: %s %s rose by %llu during the test%s",
			    test, end,
			    v->flags & CNTF_HOST ? "host" : e->sum.src,
			    v->name, (unsigned long long)v->v,
			    v->flags & CNTF_PORT
				    ? " (a port counter: all traffic of the port, not only this test's)"
			    : v->flags & CNTF_HOST
				    ? " (a host counter: every socket of the host)"
				    : "");
	}
}

void session_cnt_result(const struct tside *sd, struct cnt_both *b,
			struct outputs *o)
{
	memset(b, 0, sizeof(*b));
	b->loc = sd->cnt;
	b->rem = sd->peer_cnt;
	if (!(sd->peer_caps & CAP_COUNTERS) || !sd->ext || sd->ext_ver < 2)
		b->rem_missing = "the server does not send them";
	if (!sd->t)
		return;
	warn_end(o, sd->t->name, "client", &b->loc);
	warn_end(o, sd->t->name, "server", &b->rem);
}
