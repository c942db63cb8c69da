// SPDX-License-Identifier: GPL-2.0-only
/* Cluster mode's message codec (see cluster_msg.h). */
#include <string.h>

#include "cluster_msg.h"
#include "lib/tlv.h"

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

static int get_str(char *dst, size_t max, const uint8_t *v, uint16_t len)
{
	if (len >= max || memchr(v, 0, len))
		return -1;
	memcpy(dst, v, len);
	dst[len] = '\0';
	return 0;
}

static void get_lat(struct lat_summary *l, const uint8_t *v)
{
	double *f[8] = { &l->min, &l->mean, &l->max, &l->p50,
			 &l->p90, &l->p99,  &l->p999, &l->p9999 };

	for (int i = 0; i < 9; i++) {
		uint64_t u = 0;

		for (int k = 0; k < 8; k++)
			u |= (uint64_t)v[i * 8 + k] << (8 * k);
		if (i)
			*f[i - 1] = bitsd(u);
		else
			l->count = u;
	}
}

/* Which items each type must carry, as a bit mask of item types. */
static uint32_t needed(enum cmsg_type t)
{
	switch (t) {
	case CMSG_JOIN:
		return 1u << CI_RANK | 1u << CI_SIZE | 1u << CI_LOCAL |
		       1u << CI_PORT | 1u << CI_HOST;
	case CMSG_RUN:
		return 1u << CI_JOB | 1u << CI_ITEM | 1u << CI_PEER |
		       1u << CI_PEER_LOCAL | 1u << CI_PORT | 1u << CI_HOST;
	case CMSG_RESULT:
		return 1u << CI_JOB | 1u << CI_STATUS;
	case CMSG_DONE:
	case CMSG_PING:
		return 0;
	}
	return 0;
}

/* Which items a type may carry beyond those it must. */
static uint32_t optional(enum cmsg_type t)
{
	return t == CMSG_RESULT ? 1u << CI_ERR | 1u << CI_SEND_BW |
					  1u << CI_RECV_BW | 1u << CI_MSG_RATE |
					  1u << CI_LATENCY | 1u << CI_LAT |
					  1u << CI_IVAL_LOW | 1u << CI_IVAL_N
				: 0;
}

/* One item into m; -1 if its size is wrong or its value out of range. */
static int get_item(struct cmsg *m, uint16_t type, const uint8_t *v,
		    uint16_t len)
{
	uint32_t x = 0;
	uint64_t y = 0;
	struct cmsg_result *r = &m->u.result;

	if (type == CI_HOST)
		return get_str(m->type == CMSG_JOIN ? m->u.join.host
						    : m->u.run.addr,
			       CMSG_HOST_MAX, v, len);
	if (type == CI_ERR)
		return get_str(r->err, CMSG_ERR_MAX, v, len);
	if (type == CI_LAT) {
		if (len != 72)
			return -1;
		get_lat(&r->r.lat, v);
		return 0;
	}
	if (type == CI_IVAL_LOW) {
		if (!tlv_val_u64(v, len, &y))
			return -1;
		r->r.ival_low = bitsd(y);
		return 0;
	}
	if (type >= CI_SEND_BW && type <= CI_LATENCY) {
		double *d[] = { &r->r.send_bw, &r->r.recv_bw, &r->r.msg_rate,
				&r->r.latency };

		if (!tlv_val_u64(v, len, &y))
			return -1;
		*d[type - CI_SEND_BW] = bitsd(y);
		return 0;
	}
	if (!tlv_val_u32(v, len, &x))
		return -1;
	switch (type) {
	case CI_RANK:
		m->u.join.rank = x;
		break;
	case CI_SIZE:
		m->u.join.size = x;
		break;
	case CI_LOCAL:
		m->u.join.local_rank = x;
		break;
	case CI_PORT:
		if (x > 65535)
			return -1;
		if (m->type == CMSG_JOIN)
			m->u.join.port = (uint16_t)x;
		else
			m->u.run.port = (uint16_t)x;
		break;
	case CI_JOB:
		if (m->type == CMSG_RUN)
			m->u.run.job = x;
		else
			r->job = x;
		break;
	case CI_ITEM:
		m->u.run.item = x;
		break;
	case CI_PEER:
		m->u.run.peer = x;
		break;
	case CI_PEER_LOCAL:
		m->u.run.peer_local = x;
		break;
	case CI_STATUS:
		r->status = x;
		break;
	case CI_IVAL_N:
		r->r.ival_n = x;
		break;
	}
	return 0;
}

int cmsg_decode(const uint8_t *buf, size_t len, struct cmsg *m)
{
	struct tlv_r r;
	uint16_t type, ilen;
	const uint8_t *v;
	uint32_t t, have = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	if (len < TLV_HDR || tlv_header(buf) != len)
		return -1;
	tlv_rinit(&r, buf, len);
	if (tlv_next(&r, &type, &v, &ilen) != 1 || type != CI_TYPE ||
	    !tlv_val_u32(v, ilen, &t) || t < CMSG_JOIN || t > CMSG_PING)
		return -1;
	m->type = (enum cmsg_type)t;
	while ((rc = tlv_next(&r, &type, &v, &ilen)) == 1) {
		/* Items of the other types, and unknown ones, are skipped. */
		if (type >= 32 ||
		    !((needed(m->type) | optional(m->type)) & (1u << type)))
			continue;
		if (get_item(m, type, v, ilen) < 0)
			return -1;
		have |= 1u << type;
	}
	if (rc < 0 || (have & needed(m->type)) != needed(m->type))
		return -1;
	return 0;
}
