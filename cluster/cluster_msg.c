// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's message codec, and one message over a connection (see
 * cluster_msg.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cluster_msg.h"
#include "core/auth.h"
#include "core/ctl.h"
#include "core/measure.h"
#include "lib/err.h"
#include "lib/tlv.h"
#include "lib/alloc.h"
#include "lib/random.h"
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
	CI_NONCE, /* HELLO: rank 0's; JOIN: the rank's (CMSG_NONCE bytes) */
	CI_SEQ, /* u64, in every sealed message */
	CI_MAC, /* AUTH_MAC bytes, the last item of a sealed message */
	CI_CEIL_BPS, /* RESULT: the path's ceiling, double bits (B/s) */
	CI_CEIL_WHAT, /* RESULT: the limit that makes it (printable) */
	CI_FIND, /* JOIN: CI_FIND + i, finding i: check, NUL, text */
	CI_FIND_LAST = CI_FIND + CMSG_FIND_MAX - 1,
	CI_FLOW, /* RUN: CRUN_* (absent: 0) */
	CI_START, /* GO: u64 ns */
	CI_PROBE, /* CLOCK: u32 */
	CI_CLOCK, /* CLOCK: u64 ns, the rank's answer */
	CI_LATE, /* RESULT: u64 ns */
	CI_WINDOW, /* RESULT: double bits (s) */
};

#define MAC_ITEM (4 + AUTH_MAC) /* the MAC item: type, length, value */
#define LABEL_TO_RANK "qperf-0.5 cluster 0->rank"
#define LABEL_TO_0 "qperf-0.5 cluster rank->0"

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

/* The items of m after its type. */
static void put_items(struct tlv_w *w0, const struct cmsg *m)
{
	struct tlv_w w = *w0;

	switch (m->type) {
	case CMSG_JOIN:
		tlv_u32(&w, CI_RANK, m->u.join.rank);
		tlv_u32(&w, CI_SIZE, m->u.join.size);
		tlv_u32(&w, CI_LOCAL, m->u.join.local_rank);
		tlv_u32(&w, CI_PORT, m->u.join.port);
		put_str(&w, CI_HOST, m->u.join.host, CMSG_HOST_MAX);
		for (uint32_t i = 0;
		     i < m->u.join.nfind && i < CMSG_FIND_MAX; i++) {
			const struct cmsg_find *f = &m->u.join.find[i];
			char v[sizeof(f->check) + sizeof(f->text)];
			size_t k;

			if (!f->check[0])
				continue; /* none at this place */
			k = xsnprintf(v, sizeof(v), "%s%c%s", f->check, '\0',
				      f->text);
			tlv_bytes(&w, (uint16_t)(CI_FIND + i), v, (uint16_t)k);
		}
		break;
	case CMSG_RUN:
		tlv_u32(&w, CI_JOB, m->u.run.job);
		tlv_u32(&w, CI_ITEM, m->u.run.item);
		tlv_u32(&w, CI_PEER, m->u.run.peer);
		tlv_u32(&w, CI_PEER_LOCAL, m->u.run.peer_local);
		tlv_u32(&w, CI_PORT, m->u.run.port);
		put_str(&w, CI_HOST, m->u.run.addr, CMSG_HOST_MAX);
		if (m->u.run.flow)
			tlv_u32(&w, CI_FLOW, m->u.run.flow);
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
		if (m->u.result.r.ceil.valid && m->u.result.r.ceil.bps != 0) {
			tlv_u64(&w, CI_CEIL_BPS, dbits(m->u.result.r.ceil.bps));
			put_str(&w, CI_CEIL_WHAT, m->u.result.r.ceil.what,
				sizeof(m->u.result.r.ceil.what));
		}
		if (m->u.result.r.window > 0)
			tlv_u64(&w, CI_WINDOW, dbits(m->u.result.r.window));
		if (m->u.result.late)
			tlv_u64(&w, CI_LATE, m->u.result.late);
		break;
	case CMSG_READY:
	case CMSG_STOP:
		tlv_u32(&w, CI_JOB, m->u.go.job);
		break;
	case CMSG_GO:
		tlv_u32(&w, CI_JOB, m->u.go.job);
		tlv_u64(&w, CI_START, m->u.go.start);
		break;
	case CMSG_CLOCK:
		tlv_u32(&w, CI_PROBE, m->u.clock.probe);
		if (m->u.clock.now)
			tlv_u64(&w, CI_CLOCK, m->u.clock.now);
		break;
	case CMSG_HELLO:
		tlv_bytes(&w, CI_NONCE, m->u.nonce, CMSG_NONCE);
		break;
	case CMSG_DONE:
	case CMSG_PING:
		break;
	}
	*w0 = w;
}

size_t cmsg_encode(const struct cmsg *m, uint8_t *buf, size_t cap)
{
	struct tlv_w w;

	tlv_init(&w, buf, cap);
	tlv_u32(&w, CI_TYPE, m->type);
	put_items(&w, m);
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

/* A JOIN's finding: check, NUL, text; each printable (or '?'). */
static int find_item(void *dst, const struct tlv_field *fl, uint16_t type,
		     const uint8_t *val, uint16_t len)
{
	struct cmsg_join *j = &((struct cmsg *)dst)->u.join;
	struct cmsg_find *f = &j->find[type - fl->type];
	size_t c = strnlen((const char *)val, len);

	if (c == 0 || c >= len ||
	    tlv_val_str(f->check, sizeof(f->check), val, (uint16_t)c,
			TLVF_PRINT) < 0 ||
	    tlv_val_str(f->text, sizeof(f->text), val + c + 1,
			(uint16_t)(len - c - 1), TLVF_TRUNC | TLVF_PRINT) < 0)
		return -1;
	if (j->nfind < (uint32_t)(type - fl->type) + 1)
		j->nfind = (uint32_t)(type - fl->type) + 1;
	return 0;
}

static const struct tlv_field join_tab[] = {
	CM_REQ(CI_RANK, TLV_U32, join.rank),
	CM_REQ(CI_SIZE, TLV_U32, join.size),
	CM_REQ(CI_LOCAL, TLV_U32, join.local_rank),
	CM_REQ(CI_PORT, TLV_U32, join.port, .max = 65535),
	CM_F(CI_HOST, TLV_STR, join.host,
	     .flags = TLVF_REQ | TLVF_NONUL | TLVF_PRINT),
	{ .type = CI_FIND, .count = CMSG_FIND_MAX, .kind = TLV_FN,
	  .fn = find_item },
};

static const struct tlv_field run_tab[] = {
	CM_REQ(CI_JOB, TLV_U32, run.job),
	CM_REQ(CI_ITEM, TLV_U32, run.item),
	CM_REQ(CI_PEER, TLV_U32, run.peer),
	CM_REQ(CI_PEER_LOCAL, TLV_U32, run.peer_local),
	CM_REQ(CI_PORT, TLV_U32, run.port, .max = 65535),
	CM_F(CI_HOST, TLV_STR, run.addr, .flags = TLVF_REQ | TLVF_NONUL),
	CM_F(CI_FLOW, TLV_U32, run.flow, .max = CRUN_ALL),
};

static const struct tlv_field result_tab[] = {
	CM_REQ(CI_JOB, TLV_U32, result.job),
	CM_REQ(CI_STATUS, TLV_U32, result.status),
	CM_F(CI_ERR, TLV_STR, result.err, .flags = TLVF_NONUL | TLVF_PRINT),
	CM_F(CI_SEND_BW, TLV_F64, result.r.send_bw),
	CM_F(CI_RECV_BW, TLV_F64, result.r.recv_bw),
	CM_F(CI_MSG_RATE, TLV_F64, result.r.msg_rate),
	CM_F(CI_LATENCY, TLV_F64, result.r.latency),
	{ .type = CI_LAT, .kind = TLV_FN, .fn = lat_item },
	CM_F(CI_IVAL_LOW, TLV_F64, result.r.ival_low),
	CM_F(CI_IVAL_N, TLV_U32, result.r.ival_n),
	CM_F(CI_CEIL_BPS, TLV_F64, result.r.ceil.bps),
	CM_F(CI_CEIL_WHAT, TLV_STR, result.r.ceil.what,
	     .flags = TLVF_NONUL | TLVF_PRINT),
	CM_F(CI_WINDOW, TLV_F64, result.r.window),
	CM_F(CI_LATE, TLV_U64, result.late),
};

static const struct tlv_field job_tab[] = { /* READY, STOP */
	CM_REQ(CI_JOB, TLV_U32, go.job),
};

static const struct tlv_field go_tab[] = {
	CM_REQ(CI_JOB, TLV_U32, go.job),
	CM_REQ(CI_START, TLV_U64, go.start),
};

static const struct tlv_field clock_tab[] = {
	CM_REQ(CI_PROBE, TLV_U32, clock.probe),
	CM_F(CI_CLOCK, TLV_U64, clock.now),
};

static const struct tlv_field hello_tab[] = {
	{ .type = CI_NONCE, .kind = TLV_BLOB, .flags = TLVF_REQ,
	  .off = offsetof(struct cmsg, u.nonce), .size = CMSG_NONCE },
};

static const struct {
	const struct tlv_field *tab;
	size_t n;
} cmsg_tabs[] = {
	[CMSG_JOIN] = { join_tab, ARRAY_SIZE(join_tab) },
	[CMSG_RUN] = { run_tab, ARRAY_SIZE(run_tab) },
	[CMSG_RESULT] = { result_tab, ARRAY_SIZE(result_tab) },
	[CMSG_HELLO] = { hello_tab, ARRAY_SIZE(hello_tab) },
	[CMSG_READY] = { job_tab, ARRAY_SIZE(job_tab) },
	[CMSG_GO] = { go_tab, ARRAY_SIZE(go_tab) },
	[CMSG_STOP] = { job_tab, ARRAY_SIZE(job_tab) },
	[CMSG_CLOCK] = { clock_tab, ARRAY_SIZE(clock_tab) },
	/* CMSG_DONE, CMSG_PING: no items */
};

/* Who sends each type: rank 0, a rank, or both; HELLO is never sealed. */
enum { FROM_0 = 1, FROM_RANK = 2 };
static const uint8_t cmsg_from[] = {
	[CMSG_JOIN] = FROM_RANK, [CMSG_RUN] = FROM_0,
	[CMSG_RESULT] = FROM_RANK, [CMSG_DONE] = FROM_0,
	[CMSG_PING] = FROM_0, [CMSG_READY] = FROM_RANK,
	[CMSG_GO] = FROM_0, [CMSG_STOP] = FROM_0,
	[CMSG_CLOCK] = FROM_0 | FROM_RANK,
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
	    !tlv_val_u32(v, ilen, &t) || t < CMSG_JOIN || t > CMSG_CLOCK)
		return -1;
	m->type = (enum cmsg_type)t;
	if (t >= ARRAY_SIZE(cmsg_tabs))
		t = 0;
	if (tlv_decode_items(&r, cmsg_tabs[t].tab, cmsg_tabs[t].n, m, NULL) < 0)
		return -1;
	if (m->type == CMSG_RESULT)
		m->u.result.r.ceil.valid = m->u.result.r.ceil.bps != 0;
	return 0;
}

int cmsg_check_figures(const struct pair_res *r, char *why, size_t len)
{
	const struct {
		const char *name;
		double v;
	} f[] = {
		{ "send_bw", r->send_bw },   { "recv_bw", r->recv_bw },
		{ "msg_rate", r->msg_rate }, { "latency", r->latency },
		{ "lat.min", r->lat.min },   { "lat.mean", r->lat.mean },
		{ "lat.max", r->lat.max },   { "lat.p50", r->lat.p50 },
		{ "lat.p90", r->lat.p90 },   { "lat.p99", r->lat.p99 },
		{ "lat.p999", r->lat.p999 }, { "lat.p9999", r->lat.p9999 },
		{ "ival_low", r->ival_low }, { "ceiling", r->ceil.bps },
		{ "window", r->window },
	};

	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (!isfinite(f[i].v) || f[i].v < 0)
			return seterr(why, len, "%s is %g", f[i].name, f[i].v);
	return 0;
}

/* The MAC of a sealed block's first len bytes, as sent by rank 0 or not. */
static int seal_mac(const struct cchan *ch, bool from0, const uint8_t *b,
		    size_t len, uint8_t mac[AUTH_MAC])
{
	return auth_mac(ch->key, from0 ? LABEL_TO_RANK : LABEL_TO_0, ch->n0,
			CMSG_NONCE, ch->nr, CMSG_NONCE, b, len, NULL, 0, mac);
}

size_t cmsg_seal(struct cchan *ch, const struct cmsg *m, uint8_t *buf,
		 size_t cap)
{
	static const uint8_t zero[AUTH_MAC];
	struct tlv_w w;
	size_t n;

	tlv_init(&w, buf, cap);
	tlv_u32(&w, CI_TYPE, m->type);
	if (m->type == CMSG_JOIN)
		tlv_bytes(&w, CI_NONCE, ch->nr, CMSG_NONCE);
	tlv_u64(&w, CI_SEQ, ch->tx);
	put_items(&w, m);
	/* The MAC's place, so that the header holds the final length. */
	tlv_bytes(&w, CI_MAC, zero, AUTH_MAC);
	n = tlv_finish(&w);
	if (!n || !ch->key ||
	    seal_mac(ch, ch->rank0, buf, n - AUTH_MAC, buf + n - AUTH_MAC) < 0)
		return 0;
	ch->tx++;
	return n;
}

int cmsg_open(struct cchan *ch, const uint8_t *buf, size_t len,
	      struct cmsg *m, char *why, size_t whylen)
{
	uint8_t mac[AUTH_MAC];
	struct tlv_r r;
	uint16_t type, ilen;
	const uint8_t *v, *nonce = NULL;
	uint64_t seq = 0;
	bool has_seq = false;

	memset(m, 0, sizeof(*m));
	if (len < TLV_HDR + MAC_ITEM || tlv_header(buf) != len)
		return seterr(why, whylen, "not a cluster message");
	/* The MAC is the last item, of its size, ending the block. */
	if (buf[len - MAC_ITEM] != (CI_MAC & 0xff) ||
	    buf[len - MAC_ITEM + 1] != CI_MAC >> 8 ||
	    buf[len - MAC_ITEM + 2] != AUTH_MAC || buf[len - MAC_ITEM + 3])
		return seterr(why, whylen,
			      "no MAC: not sealed with a job secret");
	tlv_rinit(&r, buf, len - MAC_ITEM);
	for (int k; (k = tlv_next(&r, &type, &v, &ilen)) != 0;) {
		if (k < 0)
			return seterr(why, whylen, "not a cluster message");
		if (type == CI_SEQ && tlv_val_u64(v, ilen, &seq))
			has_seq = true;
		else if (type == CI_NONCE && ilen == CMSG_NONCE)
			nonce = v;
	}
	/* A rank's first message is its JOIN, with its nonce. */
	if (ch->rank0 && ch->rx == 0) {
		if (!nonce)
			return seterr(why, whylen, "not a JOIN");
		memcpy(ch->nr, nonce, CMSG_NONCE);
	}
	if (!ch->key || seal_mac(ch, !ch->rank0, buf, len - AUTH_MAC, mac) < 0 ||
	    !auth_equal(mac, buf + len - AUTH_MAC, AUTH_MAC))
		return seterr(why, whylen,
			      "bad MAC: it does not hold this job's secret");
	if (!has_seq || seq != ch->rx)
		return seterr(why, whylen,
			      "message %llu where %llu was due: replayed or out of order",
			      (unsigned long long)seq,
			      (unsigned long long)ch->rx);
	ch->rx++;
	if (cmsg_decode(buf, len, m) < 0 ||
	    !(cmsg_from[m->type] & (ch->rank0 ? FROM_RANK : FROM_0)) ||
	    (ch->rank0 && (m->type == CMSG_JOIN) != (ch->rx == 1)))
		return seterr(why, whylen, "bad cluster message");
	if (m->type == CMSG_RESULT) {
		char f[128];

		if (cmsg_check_figures(&m->u.result.r, f, sizeof(f)) < 0) {
			seterr(why, whylen,
			       "a figure that is not a finite number >= 0: %s",
			       f);
			return 1;
		}
	}
	return 0;
}

int cluster_send(int fd, struct cchan *ch, uint64_t timeout,
		 const struct cmsg *m, char *err, size_t errlen)
{
	struct ctl c = { fd, true, timeout, false, false,
			 measure_interrupt_flag() };
	uint8_t b[CMSG_WIRE_MAX];
	size_t n = cmsg_seal(ch, m, b, sizeof(b));

	if (!n)
		return seterr(err, errlen, "cluster message too long");
	return ctl_send_block(&c, b, n, "cluster message", err, errlen);
}

int cluster_recv(int fd, struct cchan *ch, uint64_t timeout, struct cmsg *m,
		 char *err, size_t errlen)
{
	struct ctl c = { fd, true, timeout, false, false,
			 measure_interrupt_flag() };
	uint8_t b[CMSG_WIRE_MAX];
	size_t n;
	char why[256];

	if (ctl_recv_block(&c, b, sizeof(b), &n, "cluster message", err,
			   errlen) < 0)
		return -1;
	if (cmsg_open(ch, b, n, m, why, sizeof(why)) != 0)
		return seterr(err, errlen, "refused a message: %s", why);
	return 0;
}

int cluster_hello_send(int fd, struct cchan *ch, char *err, size_t errlen)
{
	struct ctl c = { fd, true, CLUSTER_SEND_NS, false, false, NULL };
	struct cmsg m;
	uint8_t b[128];
	size_t n;

	if (random_bytes(ch->n0, CMSG_NONCE, err, errlen) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.type = CMSG_HELLO;
	memcpy(m.u.nonce, ch->n0, CMSG_NONCE);
	n = cmsg_encode(&m, b, sizeof(b));
	return ctl_send_block(&c, b, n, "cluster hello", err, errlen);
}

int cluster_hello_recv(int fd, struct cchan *ch, uint64_t timeout, char *err,
		       size_t errlen)
{
	struct ctl c = { fd, false, timeout, false, false,
			 measure_interrupt_flag() };
	uint8_t b[128];
	struct cmsg m;
	size_t n;

	if (ctl_recv_block(&c, b, sizeof(b), &n, "rank 0's hello", err,
			   errlen) < 0)
		return -1;
	if (cmsg_decode(b, n, &m) < 0 || m.type != CMSG_HELLO)
		return seterr(err, errlen,
			      "rank 0 did not say hello: is it a qperf of this version?");
	memcpy(ch->n0, m.u.nonce, CMSG_NONCE);
	return random_bytes(ch->nr, CMSG_NONCE, err, errlen);
}

int cin_read(struct cin *in, int fd, char *why, size_t whylen)
{
	for (;;) {
		size_t want = in->have < TLV_HDR ? TLV_HDR
						 : tlv_header(in->buf);
		ssize_t r;

		if (in->have >= TLV_HDR &&
		    (want < TLV_HDR || want > CMSG_WIRE_MAX))
			return seterr(why, whylen, "not a cluster message");
		if (in->have == want)
			return 1;
		if (!in->buf)
			in->buf = xmalloc(CMSG_WIRE_MAX);
		r = recv(fd, in->buf + in->have, want - in->have, MSG_DONTWAIT);
		if (r > 0) {
			in->have += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!in->have)
				cin_clear(in); /* a buffer only for a part */
			return 0;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return seterr(why, whylen, in->have
					  ? "closed the connection in mid-message"
					  : "closed the connection");
		return seterr_errno(why, whylen, errno, "cannot read from it");
	}
}

void cin_clear(struct cin *in)
{
	free(in->buf);
	in->buf = NULL;
	in->have = 0;
}
