// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's message codec, and one message over a connection (see
 * cluster_msg.h).
 */
#include <string.h>

#include "cluster_msg.h"
#include "core/ctl.h"
#include "core/measure.h"
#include "lib/tlv.h"
#include "lib/alloc.h"
#include "lib/err.h"

/* Item types.  Doubles travel as their IEEE-754 bits in a u64. */
enum {
	CI_TYPE = 1,
	CI_RANK,
	CI_SIZE,
	CI_LOCAL,
	CI_PORT,
	CI_HOST,
	CI_JOB,
	CI_ITEM,
	CI_PEER,
	CI_STATUS,
	CI_ERR,
	CI_SEND_BW,
	CI_RECV_BW,
	CI_MSG_RATE,
	CI_LATENCY,
	CI_LAT, /* lat_summary: count then 8 doubles */
	CI_PEER_LOCAL,
	CI_IVAL_LOW, /* double bits */
	CI_IVAL_N,
};

static uint64_t dbits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bitsd(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static void put_str(struct tlv_w *w, uint16_t type, const char *s,
		    size_t max)
{
	size_t n = strnlen(s, max - 1);

	tlv_bytes(w, type, s, (uint16_t)n);
}

static void put_lat(struct tlv_w *w, const struct lat_summary *l)
{
	const double v[8] = { l->min,  l->mean, l->max, l->p50,
			      l->p90,  l->p99,  l->p999, l->p9999 };
	uint8_t b[72];

	for (int i = 0; i < 9; i++) {
		uint64_t u = i ? dbits(v[i - 1]) : l->count;

		for (int k = 0; k < 8; k++)
			b[i * 8 + k] = (uint8_t)(u >> (8 * k));
	}
	tlv_bytes(w, CI_LAT, b, sizeof(b));
}

size_t cmsg_encode(const struct cmsg *m, uint8_t *buf, size_t cap)
{
	struct tlv_w w;

	tlv_init(&w, buf, cap);
	tlv_u32(&w, CI_TYPE, m->type);
	switch (m->type) {
	case CMSG_JOIN:
		tlv_u32(&w, CI_RANK, m->u.join.rank);
		tlv_u32(&w, CI_SIZE, m->u.join.size);
		tlv_u32(&w, CI_LOCAL, m->u.join.local_rank);
		tlv_u32(&w, CI_PORT, m->u.join.port);
		put_str(&w, CI_HOST, m->u.join.host, CMSG_HOST_MAX);
		break;
	case CMSG_RUN:
		tlv_u32(&w, CI_JOB, m->u.run.job);
		tlv_u32(&w, CI_ITEM, m->u.run.item);
		tlv_u32(&w, CI_PEER, m->u.run.peer);
		tlv_u32(&w, CI_PEER_LOCAL, m->u.run.peer_local);
		tlv_u32(&w, CI_PORT, m->u.run.port);
		put_str(&w, CI_HOST, m->u.run.addr, CMSG_HOST_MAX);
		break;
	case CMSG_RESULT:
		tlv_u32(&w, CI_JOB, m->u.result.job);
		tlv_u32(&w, CI_STATUS, m->u.result.status);
		put_str(&w, CI_ERR, m->u.result.err, CMSG_ERR_MAX);
		tlv_u64(&w, CI_SEND_BW, dbits(m->u.result.r.send_bw));
		tlv_u64(&w, CI_RECV_BW, dbits(m->u.result.r.recv_bw));
		tlv_u64(&w, CI_MSG_RATE, dbits(m->u.result.r.msg_rate));
		tlv_u64(&w, CI_LATENCY, dbits(m->u.result.r.latency));
		put_lat(&w, &m->u.result.r.lat);
		if (m->u.result.r.ival_n) {
			tlv_u64(&w, CI_IVAL_LOW, dbits(m->u.result.r.ival_low));
			tlv_u32(&w, CI_IVAL_N, m->u.result.r.ival_n);
		}
		break;
	case CMSG_DONE:
	case CMSG_PING:
		break;
	}
	return tlv_finish(&w);
}

/* CI_LAT: the count, then 8 doubles. */
static int lat_item(void *dst, const struct tlv_field *f, uint16_t type,
		    const uint8_t *v, uint16_t len)
{
	struct lat_summary *l = &((struct cmsg *)dst)->u.result.r.lat;
	double *d[8] = { &l->min, &l->mean, &l->max, &l->p50,
			 &l->p90, &l->p99,  &l->p999, &l->p9999 };

	(void)f, (void)type;
	if (len != 72)
		return -1;
	for (int i = 0; i < 9; i++) {
		uint64_t u = 0;

		for (int k = 0; k < 8; k++)
			u |= (uint64_t)v[i * 8 + k] << (8 * k);
		if (i)
			*d[i - 1] = bitsd(u);
		else
			l->count = u;
	}
	return 0;
}

/*
 * Each type's items: those it must carry (TLVF_REQ) and those it may.
 * Items of other types, and unknown ones, are skipped.
 */
#define CM_F(t, k, field, ...)                                            \
	{ .type = (t), .kind = (k), .off = offsetof(struct cmsg, u.field), \
	  .size = sizeof(((struct cmsg *)0)->u.field), __VA_ARGS__ }
#define CM_REQ(t, k, field, ...) CM_F(t, k, field, .flags = TLVF_REQ, __VA_ARGS__)

static const struct tlv_field join_tab[] = {
	CM_REQ(CI_RANK, TLV_U32, join.rank),
	CM_REQ(CI_SIZE, TLV_U32, join.size),
	CM_REQ(CI_LOCAL, TLV_U32, join.local_rank),
	CM_REQ(CI_PORT, TLV_U32, join.port, .max = 65535),
	CM_F(CI_HOST, TLV_STR, join.host, .flags = TLVF_REQ | TLVF_NONUL),
};

static const struct tlv_field run_tab[] = {
	CM_REQ(CI_JOB, TLV_U32, run.job),
	CM_REQ(CI_ITEM, TLV_U32, run.item),
	CM_REQ(CI_PEER, TLV_U32, run.peer),
	CM_REQ(CI_PEER_LOCAL, TLV_U32, run.peer_local),
	CM_REQ(CI_PORT, TLV_U32, run.port, .max = 65535),
	CM_F(CI_HOST, TLV_STR, run.addr, .flags = TLVF_REQ | TLVF_NONUL),
};

static const struct tlv_field result_tab[] = {
	CM_REQ(CI_JOB, TLV_U32, result.job),
	CM_REQ(CI_STATUS, TLV_U32, result.status),
	CM_F(CI_ERR, TLV_STR, result.err, .flags = TLVF_NONUL),
	CM_F(CI_SEND_BW, TLV_F64, result.r.send_bw),
	CM_F(CI_RECV_BW, TLV_F64, result.r.recv_bw),
	CM_F(CI_MSG_RATE, TLV_F64, result.r.msg_rate),
	CM_F(CI_LATENCY, TLV_F64, result.r.latency),
	{ .type = CI_LAT, .kind = TLV_FN, .fn = lat_item },
	CM_F(CI_IVAL_LOW, TLV_F64, result.r.ival_low),
	CM_F(CI_IVAL_N, TLV_U32, result.r.ival_n),
};

static const struct {
	const struct tlv_field *tab;
	size_t n;
} cmsg_tabs[] = {
	[CMSG_JOIN] = { join_tab, ARRAY_SIZE(join_tab) },
	[CMSG_RUN] = { run_tab, ARRAY_SIZE(run_tab) },
	[CMSG_RESULT] = { result_tab, ARRAY_SIZE(result_tab) },
	/* CMSG_DONE, CMSG_PING: no items */
};

int cmsg_decode(const uint8_t *buf, size_t len, struct cmsg *m)
{
	struct tlv_r r;
	uint16_t type, ilen;
	const uint8_t *v;
	uint32_t t;

	memset(m, 0, sizeof(*m));
	if (len < TLV_HDR || tlv_header(buf) != len)
		return -1;
	tlv_rinit(&r, buf, len);
	/* The type comes first: it says which items follow. */
	if (tlv_next(&r, &type, &v, &ilen) != 1 || type != CI_TYPE ||
	    !tlv_val_u32(v, ilen, &t) || t < CMSG_JOIN || t > CMSG_PING)
		return -1;
	m->type = (enum cmsg_type)t;
	if (t >= ARRAY_SIZE(cmsg_tabs))
		t = 0;
	return tlv_decode_items(&r, cmsg_tabs[t].tab, cmsg_tabs[t].n, m,
				NULL) < 0
		       ? -1
		       : 0;
}

int cluster_send(int fd, const struct cmsg *m, char *err, size_t errlen)
{
	struct ctl c = { fd, true, CLUSTER_LOSS_NS, false, false,
			 measure_interrupt_flag() };
	uint8_t b[TLV_MAX];
	size_t n = cmsg_encode(m, b, sizeof(b));

	if (!n)
		return seterr(err, errlen, "cluster message too long");
	return ctl_send_block(&c, b, n, "cluster message", err, errlen);
}

int cluster_recv(int fd, uint64_t timeout, struct cmsg *m, char *err,
		 size_t errlen)
{
	struct ctl c = { fd, true, timeout, false, false,
			 measure_interrupt_flag() };
	uint8_t b[TLV_MAX];
	size_t n;

	if (ctl_recv_block(&c, b, sizeof(b), &n, "cluster message", err,
			   errlen) < 0)
		return -1;
	if (cmsg_decode(b, n, m) < 0)
		return seterr(err, errlen, "bad cluster message");
	return 0;
}
