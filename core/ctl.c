// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control connection codecs and bounded I/O; see ctl.h.
 *
 * Every integer is packed little-endian byte by byte with no padding, so
 * the codecs do not depend on the host's byte order or struct layout.
 * Every read and write is bounded by the per-message timeout; the socket
 * is non-blocking and poll() watches for POLLPRI so that a peer's urgent
 * error notice is never mistaken for message bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "lib/hist.h"
#include "opt_table.h"
#include "lib/text.h"
#include "lib/tlv.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/wire.h"

/* Cursor forms of wire_put/wire_get: pack and advance. */
static void put16(uint8_t **p, uint16_t v)
{
	wire_put(*p, v, 2);
	*p += 2;
}

static void put32(uint8_t **p, uint32_t v)
{
	wire_put(*p, v, 4);
	*p += 4;
}

static void put64(uint8_t **p, uint64_t v)
{
	wire_put(*p, v, 8);
	*p += 8;
}

static uint64_t get_n(const uint8_t **p, int n)
{
	uint64_t v = wire_get(*p, n);

	*p += n;
	return v;
}

static uint16_t get16(const uint8_t **p)
{
	return (uint16_t)get_n(p, 2);
}

static uint32_t get32(const uint8_t **p)
{
	return (uint32_t)get_n(p, 4);
}

static uint64_t get64(const uint8_t **p)
{
	return get_n(p, 8);
}

static void putstr(uint8_t **p, const char *s, size_t size)
{
	size_t n = strnlen(s, size - 1);

	memset(*p, 0, size);
	memcpy(*p, s, n);
	*p += size;
}

static void getstr(const uint8_t **p, char *s, size_t size)
{
	memcpy(s, *p, size);
	s[size - 1] = '\0';
	*p += size;
}

void req_encode(const struct req *q, uint8_t out[REQ_SIZE])
{
	uint8_t *p = out;

	put16(&p, q->ver_maj);
	put16(&p, q->ver_min);
	put16(&p, q->ver_inc);
	put16(&p, q->req_index);
	put32(&p, q->access_recv);
	put32(&p, q->affinity);
	put32(&p, q->alt_port);
	put32(&p, q->flip);
	put32(&p, q->msg_size);
	put32(&p, q->mtu_size);
	put32(&p, q->no_msgs);
	put32(&p, q->poll_mode);
	put32(&p, q->port);
	put32(&p, q->rd_atomic);
	put32(&p, q->sl);
	put32(&p, q->sock_buf_size);
	put32(&p, q->src_path_bits);
	put32(&p, q->time);
	put32(&p, q->timeout);
	put32(&p, q->use_cm);
	putstr(&p, q->id, sizeof(q->id));
	putstr(&p, q->static_rate, sizeof(q->static_rate));
}

void req_decode(const uint8_t in[REQ_SIZE], struct req *q)
{
	const uint8_t *p = in;

	memset(q, 0, sizeof(*q));
	q->ver_maj = get16(&p);
	q->ver_min = get16(&p);
	q->ver_inc = get16(&p);
	q->req_index = get16(&p);
	q->access_recv = get32(&p);
	q->affinity = get32(&p);
	q->alt_port = get32(&p);
	q->flip = get32(&p);
	q->msg_size = get32(&p);
	q->mtu_size = get32(&p);
	q->no_msgs = get32(&p);
	q->poll_mode = get32(&p);
	q->port = get32(&p);
	q->rd_atomic = get32(&p);
	q->sl = get32(&p);
	q->sock_buf_size = get32(&p);
	q->src_path_bits = get32(&p);
	q->time = get32(&p);
	q->timeout = get32(&p);
	q->use_cm = get32(&p);
	getstr(&p, q->id, sizeof(q->id));
	getstr(&p, q->static_rate, sizeof(q->static_rate));
	q->time_ns = (uint64_t)q->time * NS_PER_SEC;
	q->timeout_ns = (uint64_t)q->timeout * NS_PER_SEC;
	q->gid_index = -1;
}

size_t ext_block_len(const uint8_t *hdr)
{
	const uint8_t *p = hdr;
	uint32_t magic = get32(&p), len = get32(&p);

	if (magic == EXT_MAGIC)
		return len == EXT_REQ_SIZE ? EXT_REQ_SIZE : 0;
	return tlv_header(hdr);
}

uint32_t reqx_vk_max(int i)
{
	uint64_t max;

	if (i < 0 || i >= PAR_VK_COUNT)
		return 0;
	max = opt_max(PAR_VK_FIRST + i);
	return max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

size_t ext_req_encode(const struct req *q, uint8_t *out, size_t cap)
{
	struct tlv_w w;

	tlv_init(&w, out, cap);
	tlv_bytes(&w, REQX_VERSION, QPERF_VERSION, sizeof(QPERF_VERSION) - 1);
	tlv_u64(&w, REQX_TIME_NS, q->time_ns);
	tlv_u64(&w, REQX_TIMEOUT_NS, q->timeout_ns);
	tlv_u32(&w, REQX_CAPS, q->caps);
	if (q->mtu_explicit)
		tlv_u32(&w, REQX_MTU_EXPLICIT, 1);
	if (q->gid_index >= 0)
		tlv_u32(&w, REQX_GID_INDEX, (uint32_t)q->gid_index);
	for (int i = 0; i < PAR_VK_COUNT; i++)
		if (q->vk_set & (1u << i))
			tlv_u32(&w, (uint16_t)(REQX_VK_BASE + i), q->vk[i]);
	if (q->interval_ns)
		tlv_u64(&w, REQX_INTERVAL_NS, q->interval_ns);
	if (q->has_nonce)
		tlv_bytes(&w, REQX_NONCE, q->nonce, CTL_NONCE);
	if (q->streams > 1)
		tlv_u32(&w, REQX_STREAMS, q->streams);
	if (q->preflight)
		tlv_u32(&w, REQX_PREFLIGHT, q->preflight);
	if (q->rate)
		tlv_u64(&w, REQX_RATE, q->rate);
	else if (q->msg_rate)
		tlv_u64(&w, REQX_MSG_RATE, q->msg_rate);
	if (q->arrivals)
		tlv_u32(&w, REQX_ARRIVALS, q->arrivals);
	if (q->qps > 1)
		tlv_u32(&w, REQX_QPS, q->qps);
	if (q->threads > 1)
		tlv_u32(&w, REQX_THREADS, q->threads);
	if (q->conns > 1)
		tlv_u32(&w, REQX_CONNS, q->conns);
	if (q->cpus.n) {
		uint8_t b[2 * CPUS_MAX], *p = b;

		for (uint32_t i = 0; i < q->cpus.n && i < CPUS_MAX; i++)
			put16(&p, q->cpus.pn[i]);
		tlv_bytes(&w, REQX_CPUS, b, (uint16_t)(p - b));
	}
	return tlv_finish(&w);
}

static int ext_req_decode_v1(const uint8_t *in, struct req *q)
{
	const uint8_t *p = in + 8;

	q->time_ns = get64(&p);
	q->timeout_ns = get64(&p);
	q->ext = true;
	q->ext_ver = 1;
	q->gid_index = -1;
	return 0;
}

/* A REQX_CPUS value: 1..CPUS_MAX u16 entries below CPUS_PN_MAX. */
static int req_cpus_item(void *dst, const struct tlv_field *f, uint16_t type,
			 const uint8_t *val, uint16_t n)
{
	struct cpu_list *l = &((struct req *)dst)->cpus;
	const uint8_t *p = val;

	(void)f, (void)type;
	if (n == 0 || n % 2 || n / 2 > CPUS_MAX)
		return -1;
	l->n = n / 2;
	for (uint32_t i = 0; i < l->n; i++) {
		l->pn[i] = get16(&p);
		if (l->pn[i] >= CPUS_PN_MAX)
			return -1;
	}
	return 0;
}

/* A verbs knob: u32, at most reqx_vk_max() (vk_set follows from seen). */
static int req_vk_item(void *dst, const struct tlv_field *f, uint16_t type,
		       const uint8_t *val, uint16_t n)
{
	struct req *q = dst;
	int i = type - f->type;

	return tlv_val_u32(val, n, &q->vk[i]) && q->vk[i] <= reqx_vk_max(i)
		       ? 0
		       : -1;
}

#define REQ_U(t, k, field, ...)                                            \
	{ .type = (t), .kind = (k), .off = offsetof(struct req, field),    \
	  .size = sizeof(((struct req *)0)->field), __VA_ARGS__ }

_Static_assert(REQX_VK_BASE + PAR_VK_COUNT <= 64,
	       "the verbs knobs' items fit tlv_decode()'s seen mask");

/* The request block's items (REQX_VERSION is informational: skipped). */
static const struct tlv_field reqx_tab[] = {
	REQ_U(REQX_TIME_NS, TLV_U64, time_ns),
	REQ_U(REQX_TIMEOUT_NS, TLV_U64, timeout_ns),
	REQ_U(REQX_CAPS, TLV_U32, caps),
	REQ_U(REQX_MTU_EXPLICIT, TLV_U32, mtu_explicit, .flags = TLVF_BOOL),
	REQ_U(REQX_GID_INDEX, TLV_U32, gid_index, .max = 0xffff),
	REQ_U(REQX_INTERVAL_NS, TLV_U64, interval_ns),
	REQ_U(REQX_STREAMS, TLV_U32, streams, .min = 1, .max = STREAMS_MAX),
	REQ_U(REQX_RATE, TLV_U64, rate, .max = RATE_MAX),
	REQ_U(REQX_MSG_RATE, TLV_U64, msg_rate, .max = RATE_MAX),
	REQ_U(REQX_ARRIVALS, TLV_U32, arrivals, .min = 1, .max = 2),
	REQ_U(REQX_QPS, TLV_U32, qps, .min = 1, .max = QPS_MAX),
	REQ_U(REQX_THREADS, TLV_U32, threads, .min = 1, .max = THREADS_MAX),
	REQ_U(REQX_CONNS, TLV_U32, conns, .min = 1, .max = CONNS_MAX),
	REQ_U(REQX_NONCE, TLV_BLOB, nonce),
	REQ_U(REQX_PREFLIGHT, TLV_U32, preflight, .max = 0xffff),
	{ .type = REQX_CPUS, .kind = TLV_FN, .fn = req_cpus_item },
	{ .type = REQX_VK_BASE, .count = PAR_VK_COUNT, .kind = TLV_FN,
	  .fn = req_vk_item },
};

int ext_req_decode(const uint8_t *in, size_t len, struct req *q)
{
	uint64_t seen;

	if (len < TLV_HDR || ext_block_len(in) != len)
		return -1;
	{
		const uint8_t *p = in;

		if (get32(&p) == EXT_MAGIC)
			return ext_req_decode_v1(in, q);
	}
	q->gid_index = -1;
	q->vk_set = 0;
	q->streams = 1;
	q->cpus.n = 0;
	q->preflight = 0;
	q->rate = q->msg_rate = 0;
	q->arrivals = 0;
	q->qps = 1;
	q->threads = 1;
	q->conns = 1;
	if (tlv_decode(in, len, reqx_tab, ARRAY_SIZE(reqx_tab), q, &seen) < 0)
		return -1;
	if (seen & TLV_BIT(REQX_NONCE))
		q->has_nonce = true;
	q->vk_set = (uint32_t)(seen >> REQX_VK_BASE) &
		    ((1u << PAR_VK_COUNT) - 1);
	q->ext = true;
	q->ext_ver = 2;
	return 0;
}

size_t hello_encode(const struct hello *h, uint8_t *out, size_t cap)
{
	struct tlv_w w;

	tlv_init(&w, out, cap);
	tlv_u32(&w, REPX_CAPS, h->caps);
	tlv_bytes(&w, REPX_VERSION, h->version,
		  (uint16_t)strnlen(h->version, sizeof(h->version) - 1));
	if (h->auth)
		tlv_bytes(&w, REPX_NONCE, h->nonce, CTL_NONCE);
	return tlv_finish(&w);
}

#define HELLO_F(t, k, field, ...)                                          \
	{ .type = (t), .kind = (k), .off = offsetof(struct hello, field),  \
	  .size = sizeof(((struct hello *)0)->field), __VA_ARGS__ }

static const struct tlv_field hello_tab[] = {
	HELLO_F(REPX_CAPS, TLV_U32, caps),
	HELLO_F(REPX_NONCE, TLV_BLOB, nonce),
	HELLO_F(REPX_VERSION, TLV_STR, version,
		.flags = TLVF_TRUNC | TLVF_PRINT),
};

int hello_decode(const uint8_t *in, size_t len, struct hello *h)
{
	uint64_t seen;
	int rc;

	memset(h, 0, sizeof(*h));
	if (len < TLV_HDR || tlv_header(in) != len)
		return -1;
	rc = tlv_decode(in, len, hello_tab, ARRAY_SIZE(hello_tab), h, &seen);
	h->auth = (seen & TLV_BIT(REPX_NONCE)) != 0;
	return rc < 0 ? -1 : 0;
}

/* ns → ticks of the node's clock, as 0.4.11's times() would give. */
static uint64_t ns_to_ticks(uint64_t ns, uint32_t ticks)
{
	return (uint64_t)((unsigned __int128)ns * ticks / NS_PER_SEC);
}

void stat_encode(const struct node_stat *s, uint8_t out[STAT_SIZE])
{
	uint8_t *p = out;
	const struct ustat *u[4] = { &s->s, &s->r, &s->rem_s, &s->rem_r };

	put32(&p, s->no_cpus);
	put32(&p, s->no_ticks);
	put32(&p, s->max_cqes);
	for (int t = 0; t < 2; t++) {
		const uint64_t *v = t ? s->time_e : s->time_s;
		uint64_t real = t ? s->real_e : s->real_s;

		put64(&p, ns_to_ticks(real, s->no_ticks));
		for (int i = CPU_USER; i < CPU_COUNT; i++)
			put64(&p, v[i]);
	}
	for (int i = 0; i < 4; i++) {
		put64(&p, u[i]->bytes);
		put64(&p, u[i]->msgs);
		put64(&p, u[i]->errs);
	}
	memset(p, 0, (size_t)(out + STAT_SIZE - p));
}

void stat_decode(const uint8_t in[STAT_SIZE], struct node_stat *s)
{
	const uint8_t *p = in;
	struct ustat *u[4] = { &s->s, &s->r, &s->rem_s, &s->rem_r };

	memset(s, 0, sizeof(*s));
	s->no_cpus = get32(&p);
	s->no_ticks = get32(&p);
	s->max_cqes = get32(&p);
	for (int t = 0; t < 2; t++) {
		uint64_t *v = t ? s->time_e : s->time_s;

		for (int i = 0; i < CPU_COUNT; i++)
			v[i] = get64(&p);
	}
	/*
	 * Only the difference of the real times matters; convert the tick
	 * counts to ns relative to the start so nothing can overflow.
	 */
	if (s->no_ticks) {
		uint64_t d = s->time_e[CPU_REAL] - s->time_s[CPU_REAL];

		if (s->time_e[CPU_REAL] < s->time_s[CPU_REAL])
			d = 0;
		s->real_s = 0;
		s->real_e = (uint64_t)((unsigned __int128)d * NS_PER_SEC /
				       s->no_ticks);
	}
	s->time_s[CPU_REAL] = s->time_e[CPU_REAL] = 0;
	for (int i = 0; i < 4; i++) {
		u[i]->bytes = get64(&p);
		u[i]->msgs = get64(&p);
		u[i]->errs = get64(&p);
	}
}

/* Append h's encoding as one STATX_HIST item (nothing if it is larger). */
static void stat_hist_item(struct tlv_w *w, const struct hist *h)
{
	size_t room, n;
	uint8_t *p = tlv_begin(w, &room);

	if (!p) {
		w->bad = true;
		return;
	}
	n = hist_encode(h, p, room);
	if (n)
		tlv_end(w, STATX_HIST, n);
}

static size_t stat_encode_all(const struct node_stat *s, int ver,
			      const struct hist *h,
			      const struct node_stat *sc, uint32_t nsc,
			      uint8_t *out, size_t cap)
{
	struct tlv_w w;

	if (ver == 1) {
		uint8_t *p = out;

		if (cap < EXT_STAT_SIZE)
			return 0;
		put32(&p, EXT_MAGIC);
		put32(&p, EXT_STAT_SIZE);
		put64(&p, s->real_s);
		put64(&p, s->real_e);
		return EXT_STAT_SIZE;
	}
	tlv_init(&w, out, cap);
	tlv_u64(&w, STATX_REAL_S, s->real_s);
	tlv_u64(&w, STATX_REAL_E, s->real_e);
	if (s->lost)
		tlv_u64(&w, STATX_LOST, s->lost);
	if (s->proc_valid) {
		tlv_u64(&w, STATX_PROC_USER, s->proc_user_e - s->proc_user_s);
		tlv_u64(&w, STATX_PROC_SYS, s->proc_sys_e - s->proc_sys_s);
	}
	if (h)
		stat_hist_item(&w, h);
	for (uint32_t i = 0; i < nsc; i++) {
		uint8_t b[STATX_STREAM_SIZE], *p = b;
		const struct ustat *u[2] = { &sc[i].s, &sc[i].r };

		put32(&p, i);
		for (int k = 0; k < 2; k++) {
			put64(&p, u[k]->bytes);
			put64(&p, u[k]->msgs);
			put64(&p, u[k]->errs);
		}
		tlv_bytes(&w, STATX_STREAM, b, sizeof(b));
	}
	return tlv_finish(&w);
}

size_t ext_stat_encode(const struct node_stat *s, int ver,
		       const struct hist *h, uint8_t *out, size_t cap)
{
	return stat_encode_all(s, ver, h, NULL, 0, out, cap);
}

size_t ext_stat_encode_streams(const struct node_stat *s, int ver,
			       const struct node_stat *sc, uint32_t n,
			       uint8_t *out, size_t cap)
{
	return ver < 2 ? 0 : stat_encode_all(s, ver, NULL, sc, n, out, cap);
}

/* What decoding a --streams STAT block fills and tracks. */
struct stat_streams {
	struct node_stat *sc;
	uint32_t n, got;
	uint64_t seen[(STREAMS_MAX + 63) / 64];
};

/* One STATX_STREAM item: its stream's counters, each index once. */
static int stat_stream_item(void *dst, const struct tlv_field *f,
			    uint16_t type, const uint8_t *val, uint16_t vn)
{
	struct stat_streams *d = dst;
	const uint8_t *p = val;
	struct ustat *u[2];
	uint32_t i;

	(void)f, (void)type;
	if (vn != STATX_STREAM_SIZE)
		return -1;
	i = get32(&p);
	if (i >= d->n || (d->seen[i / 64] >> (i % 64) & 1))
		return -1;
	d->seen[i / 64] |= 1ull << (i % 64);
	u[0] = &d->sc[i].s;
	u[1] = &d->sc[i].r;
	for (int j = 0; j < 2; j++) {
		u[j]->bytes = get64(&p);
		u[j]->msgs = get64(&p);
		u[j]->errs = get64(&p);
	}
	d->got++;
	return 0;
}

static const struct tlv_field stat_streams_tab[] = {
	{ .type = STATX_STREAM, .kind = TLV_FN, .fn = stat_stream_item },
};

int ext_stat_decode_streams(const uint8_t *in, size_t len,
			    struct node_stat *sc, uint32_t n)
{
	struct stat_streams d = { .sc = sc, .n = n };

	if (n > STREAMS_MAX || len < TLV_HDR || ext_block_len(in) != len ||
	    tlv_header(in) != len)
		return -1;
	if (tlv_decode(in, len, stat_streams_tab,
		       ARRAY_SIZE(stat_streams_tab), &d, NULL) < 0)
		return -1;
	return d.got != n ? -1 : 0;
}

/* What decoding a TLV STAT block fills: the window and counters, and the
 * histogram when the caller wants one. */
struct stat_items {
	struct node_stat s;
	struct hist *h;
};

static int stat_hist_decode(void *dst, const struct tlv_field *f,
			    uint16_t type, const uint8_t *val, uint16_t n)
{
	struct hist *h = ((struct stat_items *)dst)->h;

	(void)f, (void)type;
	return !h || hist_decode(val, n, h) == 0 ? 0 : -1;
}

#define STAT_U64(t, field, ...)                                           \
	{ .type = (t), .kind = TLV_U64,                                    \
	  .off = offsetof(struct stat_items, s.field),                     \
	  .size = sizeof(uint64_t), __VA_ARGS__ }

static const struct tlv_field stat_tab[] = {
	STAT_U64(STATX_REAL_S, real_s, .flags = TLVF_REQ),
	STAT_U64(STATX_REAL_E, real_e, .flags = TLVF_REQ),
	STAT_U64(STATX_LOST, lost),
	STAT_U64(STATX_PROC_USER, proc_user_e),
	STAT_U64(STATX_PROC_SYS, proc_sys_e),
	{ .type = STATX_HIST, .kind = TLV_FN, .fn = stat_hist_decode },
};

/* The items of a TLV STAT block into d.  0, or -1 if malformed. */
static int ext_stat_items(const uint8_t *in, size_t len, struct stat_items *d)
{
	uint64_t seen;
	bool have_u, have_y;

	if (tlv_decode(in, len, stat_tab, ARRAY_SIZE(stat_tab), d, &seen) < 0)
		return -1;
	have_u = (seen & TLV_BIT(STATX_PROC_USER)) != 0;
	have_y = (seen & TLV_BIT(STATX_PROC_SYS)) != 0;
	if (have_u != have_y)
		return -1;
	d->s.proc_valid = have_u;
	d->s.proc_user_s = d->s.proc_sys_s = 0;
	return 0;
}

int ext_stat_decode(const uint8_t *in, size_t len, struct node_stat *s,
		    struct hist *h)
{
	const uint8_t *p = in;
	struct stat_items d;

	if (h)
		hist_init(h);
	if (len < TLV_HDR || ext_block_len(in) != len)
		return -1;
	memset(&d, 0, sizeof(d));
	d.h = h;
	if (get32(&p) == EXT_MAGIC) {
		p += 4;
		d.s.real_s = get64(&p);
		d.s.real_e = get64(&p);
	} else if (ext_stat_items(in, len, &d) < 0) {
		if (h)
			hist_init(h);
		return -1;
	}
	if (d.s.real_e < d.s.real_s) {
		if (h)
			hist_init(h);
		return -1;
	}
	s->real_s = d.s.real_s;
	s->real_e = d.s.real_e;
	s->lost = d.s.lost;
	s->proc_valid = d.s.proc_valid;
	s->proc_user_s = s->proc_sys_s = 0;
	s->proc_user_e = d.s.proc_user_e;
	s->proc_sys_e = d.s.proc_sys_e;
	return 0;
}

void conf_encode(const struct conf_info *c, uint8_t out[CONF_SIZE])
{
	uint8_t *p = out;

	putstr(&p, c->node, 64);
	putstr(&p, c->cpu, 64);
	putstr(&p, c->os, 64);
	putstr(&p, c->qperf, 64);
}

void conf_decode(const uint8_t in[CONF_SIZE], struct conf_info *c)
{
	const uint8_t *p = in;

	memset(c, 0, sizeof(*c));
	getstr(&p, c->node, 64);
	getstr(&p, c->cpu, 64);
	getstr(&p, c->os, 64);
	getstr(&p, c->qperf, 64);
	/* Text from the peer is shown on a terminal (lib/text.h). */
	text_clean(c->node);
	text_clean(c->cpu);
	text_clean(c->os);
	text_clean(c->qperf);
}

/* Remaining ms until deadline (ns), for poll(); at least 1 if not due. */
static int remaining_ms(uint64_t deadline)
{
	uint64_t now = now_ns();
	uint64_t ms;

	if (now >= deadline)
		return 0;
	ms = (deadline - now + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}

/*
 * The peer sent urgent data: read the notice byte, skip in-band bytes up
 * to the mark, then read the error text until EOF (bounded in time and
 * length).  Fills err with "<peer>: <text>".
 */
static void read_peer_error(struct ctl *c, char *err, size_t errlen)
{
	char text[512];
	size_t n = 0;
	uint64_t deadline = now_ns() + 3 * NS_PER_SEC;
	char oob = 0;
	bool have_oob = false;

	while (now_ns() < deadline) {
		struct pollfd pfd = { c->fd, POLLIN | POLLPRI, 0 };
		char junk[256];
		ssize_t r;
		int mark;

		if (!have_oob) {
			r = recv(c->fd, &oob, 1, MSG_OOB);
			if (r == 1) {
				have_oob = true;
				continue;
			}
			if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				break; /* EINVAL: already consumed */
		}
		mark = sockatmark(c->fd);
		if (mark == 1 || (mark < 0))
			break;
		r = read(c->fd, junk, sizeof(junk));
		if (r > 0)
			continue;
		if (r == 0)
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			break;
		poll(&pfd, 1, remaining_ms(deadline));
	}
	while (n < sizeof(text) - 1 && now_ns() < deadline) {
		struct pollfd pfd = { c->fd, POLLIN, 0 };
		ssize_t r = read(c->fd, text + n, sizeof(text) - 1 - n);

		if (r > 0) {
			n += (size_t)r;
			continue;
		}
		if (r == 0)
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			break;
		poll(&pfd, 1, remaining_ms(deadline));
	}
	text[n] = '\0';
	/* Keep the text printable (lib/text.h); a final newline ends it. */
	if (n && text[n - 1] == '\n')
		text[--n] = '\0';
	text_clean_n(text, n);
	c->peer_failed = true;
	if (have_oob && oob == '.' && n == 0)
		seterr(err, errlen, "%s finished early",
		       c->server ? "client" : "server");
	else
		seterr(err, errlen, "%s: %s", c->server ? "client" : "server",
		       n ? text : "failed without a message");
}

static int io(struct ctl *c, bool sending, void *buf, size_t len,
	      const char *item, char *err, size_t errlen)
{
	uint8_t *p = buf;
	size_t done = 0;
	uint64_t deadline = now_ns() + c->timeout;
	const char *verb = sending ? "send" : "receive";

	while (done < len) {
		struct pollfd pfd = { c->fd, (short)(POLLPRI |
					   (sending ? POLLOUT : POLLIN)), 0 };
		int ms = remaining_ms(deadline);
		ssize_t r;

		if (c->intr && *c->intr)
			return seterr(err, errlen, "interrupted by %s",
				      sig_name(*c->intr));
		if (ms == 0)
			return seterr(err, errlen, "failed to %s %s: timed out",
				      verb, item);
		r = poll(&pfd, 1, ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return seterr_errno(err, errlen, errno,
					    "failed to %s %s", verb, item);
		}
		if (r == 0)
			continue;
		if (pfd.revents & POLLPRI) {
			read_peer_error(c, err, errlen);
			return -1;
		}
		if (sending)
			r = send(c->fd, p + done, len - done, MSG_NOSIGNAL);
		else
			r = read(c->fd, p + done, len - done);
		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r == 0 && !sending)
			return seterr(err, errlen,
				      "failed to receive %s: %s not responding",
				      item, c->server ? "client" : "server");
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
			      errno == EINTR))
			continue;
		if (r < 0 && !sending && errno == ECONNRESET)
			return seterr(err, errlen,
				      "failed to receive %s: %s closed the connection",
				      item, c->server ? "client" : "server");
		return seterr_errno(err, errlen, r < 0 ? errno : EPIPE,
				    "failed to %s %s", verb, item);
	}
	return 0;
}

int ctl_send(struct ctl *c, const void *buf, size_t len, const char *item,
	     char *err, size_t errlen)
{
	return io(c, true, (void *)buf, len, item, err, errlen);
}

int ctl_recv(struct ctl *c, void *buf, size_t len, const char *item,
	     char *err, size_t errlen)
{
	return io(c, false, buf, len, item, err, errlen);
}

int ctl_expect(struct ctl *c, const char *text, char *err, size_t errlen)
{
	char buf[64];
	size_t n = strlen(text);

	if (n > sizeof(buf))
		return seterr(err, errlen, "internal error: sync too long");
	if (ctl_recv(c, buf, n, text, err, errlen) < 0)
		return -1;
	if (memcmp(buf, text, n) != 0)
		return seterr(err, errlen,
			      "synchronize %s failure: data does not match",
			      text);
	return 0;
}

int ctl_sync(struct ctl *c, const char *text, char *err, size_t errlen)
{
	if (ctl_send(c, text, strlen(text), text, err, errlen) < 0)
		return -1;
	return ctl_expect(c, text, err, errlen);
}

/*
 * The control connection carries small messages that each side writes
 * back to back (a STAT then its extension, a request then its block)
 * before reading: with Nagle's algorithm the second write waits for the
 * peer's delayed ACK, about 40 ms per test on Linux.  Control messages
 * are few and already whole, so send each at once.  Not a wire change.
 */
void ctl_nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * Filler sent in-band before the urgent byte of an error notice, in the same
 * segment.  A 0.4.11 reader, woken by SIGURG, skips in-band bytes up to the
 * mark and then reads the text once, without waiting: when the text was a
 * separate segment it often was not there yet and 0.4.11 printed a bare
 * "server: " (about half the time here).  Skipping the filler (0.4.11 reads
 * 248 bytes at a time) gives the text time to follow.  It stays within one
 * segment, so the urgent byte comes with the urgent pointer, and within the
 * smallest window a peer is likely to offer.  Every reader skips it.  A
 * 0.4.11 reader on the same CPU that preempts the sender before the text is
 * sent would still print the bare line (0.4.11's own servers share this
 * race); see ctl_urgent_notice for how the sender avoids being preempted.
 */
#define NOTICE_FILL 8192

ssize_t ctl_urgent_notice(int fd, const char *text, size_t n)
{
	char buf[NOTICE_FILL];
	int mss = 0;
	socklen_t len = sizeof(mss);
	size_t fill = 0;
	ssize_t sent = -1;
	struct sched_param old_param, rt = { .sched_priority = 1 };
	int old_policy = sched_getscheduler(0);
	int raised = 0;

	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == 0 &&
	    mss > 1)
		fill = (size_t)mss - 1;
	if (fill > sizeof(buf) - 1)
		fill = sizeof(buf) - 1;
	memset(buf, ' ', fill);
	buf[fill] = '?';
	/*
	 * A peer on this CPU, woken by the urgent byte, preempts us before the
	 * text follows.  For the two sends only, where allowed (root or
	 * CAP_SYS_NICE), run as the lowest real-time priority, which no
	 * ordinary task preempts; elsewhere a fresh time slice makes it less
	 * likely.
	 */
	if (old_policy >= 0 && old_policy != SCHED_FIFO &&
	    old_policy != SCHED_RR && sched_getparam(0, &old_param) == 0)
		raised = sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
	if (!raised)
		sched_yield();
	if (send(fd, buf, fill + 1, MSG_OOB | MSG_NOSIGNAL) ==
	    (ssize_t)fill + 1) {
		sent = send(fd, text, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent < 0)
			sent = 0;
	}
	if (raised)
		sched_setscheduler(0, old_policy, &old_param);
	return sent;
}

void ctl_send_error(struct ctl *c, const char *text)
{
	size_t n = strnlen(text, 240);
	uint64_t deadline = now_ns() + NS_PER_SEC;
	char junk[512];
	ssize_t sent;

	if (c->fd < 0)
		return;
	sent = ctl_urgent_notice(c->fd, text, n);
	if (sent >= 0) {
		size_t done = (size_t)sent;

		while (done < n && now_ns() < deadline) {
			struct pollfd pfd = { c->fd, POLLOUT, 0 };
			ssize_t r = send(c->fd, text + done, n - done,
					 MSG_NOSIGNAL);

			if (r > 0)
				done += (size_t)r;
			else if (r < 0 && (errno == EAGAIN || errno == EINTR))
				poll(&pfd, 1, remaining_ms(deadline));
			else
				break;
		}
	}
	shutdown(c->fd, SHUT_WR);
	/* Drain what the peer already sent, so close() sends FIN, not RST. */
	while (now_ns() < deadline) {
		ssize_t r = read(c->fd, junk, sizeof(junk));

		if (r <= 0)
			break;
	}
}

int ctl_send_block(struct ctl *c, const uint8_t *blk, size_t len,
		   const char *item, char *err, size_t errlen)
{
	return ctl_send(c, blk, len, item, err, errlen);
}

int ctl_recv_block(struct ctl *c, uint8_t *blk, size_t cap, size_t *len,
		   const char *item, char *err, size_t errlen)
{
	size_t n;

	if (cap < TLV_HDR)
		return seterr(err, errlen, "bad %s", item);
	if (ctl_recv(c, blk, TLV_HDR, item, err, errlen) < 0)
		return -1;
	n = ext_block_len(blk);
	if (n == 0 || n > cap)
		return seterr(err, errlen, "bad %s", item);
	if (n > TLV_HDR &&
	    ctl_recv(c, blk + TLV_HDR, n - TLV_HDR, item, err, errlen) < 0)
		return -1;
	*len = n;
	return 0;
}
