// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pure functions of the verbs transports: the 40-byte NODE of 0.4.11
 * (little-endian, padding zero), the NODE extension of 0.5 peers (a TLV
 * block, lib/tlv.h), checks of a peer's NODE, the RoCE GID choice, and
 * the MTU and static-rate tables.  No I/O, no allocation, no verbs calls.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/tlv.h"
#include "lib/wire.h"
#include "verbs_int.h"

void verbs_node_encode(const struct verbs_node *n,
		       uint8_t out[VERBS_NODE_SIZE])
{
	memset(out, 0, VERBS_NODE_SIZE); /* the 4 bytes of padding too */
	wire_put(out + 0, n->vaddr, 8);
	wire_put(out + 8, n->lid, 4);
	wire_put(out + 12, n->qpn, 4);
	wire_put(out + 16, n->psn, 4);
	wire_put(out + 20, n->srqn, 4);
	wire_put(out + 24, n->rkey, 4);
	wire_put(out + 28, n->alt_lid, 4);
	wire_put(out + 32, n->rd_atomic, 4);
}

void verbs_node_decode(const uint8_t in[VERBS_NODE_SIZE],
		       struct verbs_node *n)
{
	n->vaddr = wire_get(in + 0, 8);
	n->lid = (uint32_t)wire_get(in + 8, 4);
	n->qpn = (uint32_t)wire_get(in + 12, 4);
	n->psn = (uint32_t)wire_get(in + 16, 4);
	n->srqn = (uint32_t)wire_get(in + 20, 4);
	n->rkey = (uint32_t)wire_get(in + 24, 4);
	n->alt_lid = (uint32_t)wire_get(in + 28, 4);
	n->rd_atomic = (uint32_t)wire_get(in + 32, 4);
}

size_t verbs_ext_encode(const struct verbs_ext *x, uint8_t *buf, size_t cap)
{
	struct tlv_w w;
	size_t dl = strnlen(x->device, sizeof(x->device));

	tlv_init(&w, buf, cap);
	if (x->have & VXH_LINK) {
		tlv_u32(&w, VX_LINK_LAYER, x->link_layer);
		tlv_u32(&w, VX_PORT, x->port);
		tlv_bytes(&w, VX_DEVICE, x->device, (uint16_t)dl);
	}
	if (x->have & VXH_GID) {
		tlv_bytes(&w, VX_GID, x->gid, 16);
		tlv_u32(&w, VX_GID_INDEX, x->gid_index);
		tlv_u32(&w, VX_GID_TYPE, x->gid_type);
	}
	if (x->have & VXH_GID) {
		tlv_u32(&w, VX_GID_FORCED, x->gid_forced);
		for (int i = 0; i < x->ncand && i < VG_SLOTS; i++) {
			uint8_t b[24];

			for (int k = 0; k < 4; k++) {
				b[k] = (uint8_t)(x->cand[i].index >> (8 * k));
				b[4 + k] = (uint8_t)((uint32_t)x->cand[i].type >>
						     (8 * k));
			}
			memcpy(b + 8, x->cand[i].gid, 16);
			tlv_bytes(&w, VX_GID_CAND, b, sizeof(b));
		}
	}
	if (x->have & VXH_NUMA)
		tlv_u32(&w, VX_NUMA_NODE, x->numa_node);
	if (x->have & VXH_MTU) {
		tlv_u32(&w, VX_ACTIVE_MTU, x->active_mtu);
		tlv_u32(&w, VX_MTU_SIZE, x->mtu_size);
		tlv_u32(&w, VX_MTU_EXPLICIT, x->mtu_explicit);
	}
	if (x->have & VXH_XRC) {
		tlv_u32(&w, VX_XRC_INI_QPN, x->xrc_ini_qpn);
		tlv_u32(&w, VX_XRC_TGT_QPN, x->xrc_tgt_qpn);
		tlv_u32(&w, VX_XRC_SRQN, x->xrc_srqn);
	}
	return tlv_finish(&w);
}

/* VX_GID_CAND: up to VG_SLOTS candidates are kept. */
static int gid_cand_item(void *dst, const struct tlv_field *f, uint16_t type,
			 const uint8_t *val, uint16_t vl)
{
	struct verbs_ext *x = dst;
	struct verbs_gid_cand *c;

	(void)f, (void)type;
	if (vl != 24)
		return -1;
	if (x->ncand < VG_SLOTS) {
		c = &x->cand[x->ncand++];
		c->index = (uint32_t)wire_get(val, 4);
		c->type = (enum verbs_gid_type)wire_get(val + 4, 4);
		memcpy(c->gid, val + 8, 16);
	}
	return 0;
}

#define VX_F(t, k, field)                                                 \
	{ .type = (t), .kind = (k), .off = offsetof(struct verbs_ext, field), \
	  .size = sizeof(((struct verbs_ext *)0)->field) }

static const struct tlv_field vx_tab[] = {
	VX_F(VX_GID, TLV_BLOB, gid),
	VX_F(VX_GID_INDEX, TLV_U32, gid_index),
	VX_F(VX_GID_TYPE, TLV_U32, gid_type),
	VX_F(VX_ACTIVE_MTU, TLV_U32, active_mtu),
	VX_F(VX_LINK_LAYER, TLV_U32, link_layer),
	VX_F(VX_MTU_SIZE, TLV_U32, mtu_size),
	VX_F(VX_MTU_EXPLICIT, TLV_U32, mtu_explicit),
	VX_F(VX_XRC_INI_QPN, TLV_U32, xrc_ini_qpn),
	VX_F(VX_XRC_TGT_QPN, TLV_U32, xrc_tgt_qpn),
	VX_F(VX_XRC_SRQN, TLV_U32, xrc_srqn),
	VX_F(VX_DEVICE, TLV_STR, device),
	VX_F(VX_PORT, TLV_U32, port),
	VX_F(VX_GID_FORCED, TLV_U32, gid_forced),
	VX_F(VX_NUMA_NODE, TLV_U32, numa_node),
	{ .type = VX_GID_CAND, .kind = TLV_FN, .fn = gid_cand_item },
};

int verbs_ext_decode(const uint8_t *blk, size_t len, struct verbs_ext *x)
{
	/* Which items make each VXH_* group (a group counts when whole). */
	static const struct {
		uint32_t have;
		uint64_t items;
	} groups[] = {
		{ VXH_GID, TLV_BIT(VX_GID) | TLV_BIT(VX_GID_INDEX) |
				   TLV_BIT(VX_GID_TYPE) },
		{ VXH_MTU, TLV_BIT(VX_ACTIVE_MTU) | TLV_BIT(VX_MTU_SIZE) |
				   TLV_BIT(VX_MTU_EXPLICIT) },
		{ VXH_XRC, TLV_BIT(VX_XRC_INI_QPN) | TLV_BIT(VX_XRC_TGT_QPN) |
				   TLV_BIT(VX_XRC_SRQN) },
		{ VXH_LINK, TLV_BIT(VX_LINK_LAYER) },
		{ VXH_NUMA, TLV_BIT(VX_NUMA_NODE) },
	};
	uint64_t seen;

	memset(x, 0, sizeof(*x));
	if (len < TLV_HDR || tlv_header(blk) != len)
		return -1;
	if (tlv_decode(blk, len, vx_tab, ARRAY_SIZE(vx_tab), x, &seen) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
		if ((seen & groups[i].items) == groups[i].items)
			x->have |= groups[i].have;
	return 0;
}

int verbs_node_check(const struct verbs_node *n, const struct verbs_kind *k,
		     bool rdma, bool rd, bool lid_needed, char *err,
		     size_t errlen)
{
	if (n->qpn == 0 || n->qpn > 0xffffff) {
		seterr(err, errlen,
			  "peer sent a bad QP number 0x%x (must be 1..0xffffff)",
			  n->qpn);
		return -1;
	}
	if (n->psn > 0xffffff) {
		seterr(err, errlen,
			  "peer sent a bad PSN 0x%x (must fit 24 bits)", n->psn);
		return -1;
	}
	if (k->srq_own && n->srqn > 0xffffff) {
		seterr(err, errlen,
			  "peer sent a bad XRC SRQ number 0x%x (must fit 24 bits)",
			  n->srqn);
		return -1;
	}
	if (lid_needed && n->lid == 0) {
		seterr(err, errlen,
			  "peer sent LID 0, which InfiniBand cannot address (is its port configured by a subnet manager?)");
		return -1;
	}
	if (lid_needed && n->lid > 0xffff) {
		seterr(err, errlen, "peer sent a bad LID 0x%x (16 bits)",
			  n->lid);
		return -1;
	}
	if (k->reads && n->rd_atomic > 255) {
		seterr(err, errlen,
			  "peer sent a bad RDMA read/atomic depth %u (must be 0..255)",
			  n->rd_atomic);
		return -1;
	}
	if (rd && n->rd_atomic == 0) {
		seterr(err, errlen,
			  "peer accepts no RDMA reads or atomics (depth 0)");
		return -1;
	}
	if (rdma && (n->rkey == 0 || n->vaddr == 0)) {
		seterr(err, errlen,
			  "peer sent no memory to access (rkey 0x%x, address 0x%llx)",
			  n->rkey, (unsigned long long)n->vaddr);
		return -1;
	}
	return 0;
}

enum ibv_mtu verbs_mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	case 4096:
		return IBV_MTU_4096;
	default:
		return 0;
	}
}

uint32_t verbs_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

static const struct {
	const char *name;
	enum ibv_rate rate;
} rates[] = {
	{ "", IBV_RATE_MAX },	     { "max", IBV_RATE_MAX },
	{ "1xSDR", IBV_RATE_2_5_GBPS }, { "1xDDR", IBV_RATE_5_GBPS },
	{ "1xQDR", IBV_RATE_10_GBPS },  { "4xSDR", IBV_RATE_10_GBPS },
	{ "4xDDR", IBV_RATE_20_GBPS },  { "4xQDR", IBV_RATE_40_GBPS },
	{ "8xSDR", IBV_RATE_20_GBPS },  { "8xDDR", IBV_RATE_40_GBPS },
	{ "8xQDR", IBV_RATE_80_GBPS },  { "2.5", IBV_RATE_2_5_GBPS },
	{ "5", IBV_RATE_5_GBPS },	     { "10", IBV_RATE_10_GBPS },
	{ "20", IBV_RATE_20_GBPS },     { "30", IBV_RATE_30_GBPS },
	{ "40", IBV_RATE_40_GBPS },     { "60", IBV_RATE_60_GBPS },
	{ "80", IBV_RATE_80_GBPS },     { "120", IBV_RATE_120_GBPS },
};

int verbs_rate_parse(const char *name, enum ibv_rate *rate)
{
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (strcmp(rates[i].name, name) == 0) {
			*rate = rates[i].rate;
			return 0;
		}
	return -1;
}

uint32_t verbs_path_mtu(uint32_t mtu_size, bool expl, uint32_t own_active,
			uint32_t peer_active, const char *own_name,
			const char *peer_name, char *err, size_t errlen)
{
	uint32_t m = mtu_size;

	if (expl) {
		if (m > own_active || (peer_active && m > peer_active)) {
			if (peer_active)
				seterr(err, errlen,
					  "MTU %u is above the active MTU of a port: this side %s %u, peer %s %u; use -mt %u or less",
					  m, own_name, own_active, peer_name,
					  peer_active,
					  own_active < peer_active ?
						  own_active :
						  peer_active);
			else
				seterr(err, errlen,
					  "MTU %u is above the active MTU of a port: this side %s %u, peer unknown; use -mt %u or less",
					  m, own_name, own_active, own_active);
			return 0;
		}
		return m;
	}
	if (own_active < m)
		m = own_active;
	if (peer_active && peer_active < m)
		m = peer_active;
	return m;
}

/* ::ffff:0:0/96, IPv4-mapped addresses */
static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff,
				       0xff };

int verbs_gid_family(const uint8_t gid[16])
{
	return memcmp(gid, v4mapped, 12) == 0 ? AF_INET : AF_INET6;
}

static bool gid_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

static bool gid_link_local(const uint8_t gid[16])
{
	if (verbs_gid_family(gid) == AF_INET)
		return gid[12] == 169 && gid[13] == 254;
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

/* The local address as a GID (IPv4 mapped); false if not IP. */
static bool local_gid(const struct sockaddr_storage *ss, uint8_t out[16])
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;

		memcpy(out, v4mapped, 12);
		memcpy(out + 12, &a->sin_addr, 4);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;

		memcpy(out, &a->sin6_addr, 16);
		return true;
	}
	return false;
}

/* Rank of a candidate, larger is better; -1 if unusable. */
static int gid_rank(const struct verbs_gid_cand *c, bool have_local,
		    const uint8_t local[16])
{
	int r = 0;

	if (gid_zero(c->gid) || c->type == VG_IB)
		return -1;
	if (have_local && verbs_gid_family(c->gid) == verbs_gid_family(local))
		r += 8;
	if (c->type == VG_ROCE_V2)
		r += 4;
	if (have_local && memcmp(c->gid, local, 16) == 0)
		r += 2;
	if (!gid_link_local(c->gid))
		r += 1;
	return r;
}

int verbs_gid_pick(const struct verbs_gid_cand *c, int n,
		   const struct sockaddr_storage *local)
{
	uint8_t lg[16];
	bool have_local = local && local_gid(local, lg);
	int best = -1, best_rank = -1;

	for (int i = 0; i < n; i++) {
		int r = gid_rank(&c[i], have_local, lg);

		if (r > best_rank ||
		    (r == best_rank && r >= 0 && c[i].index < c[best].index)) {
			best = i;
			best_rank = r;
		}
	}
	return best_rank < 0 ? -1 : best;
}

int verbs_gid_slot(enum verbs_gid_type t, int family)
{
	if (t != VG_ROCE_V1 && t != VG_ROCE_V2)
		return -1;
	return (t == VG_ROCE_V2 ? 2 : 0) + (family == AF_INET6 ? 1 : 0);
}

void verbs_gid_offer(const struct verbs_gid_cand *c, int n,
		     const struct sockaddr_storage *local,
		     const struct verbs_gid_cand *pick, bool forced,
		     struct verbs_gid_set *set)
{
	struct verbs_gid_cand sub[256];

	memset(set, 0, sizeof(*set));
	set->pick = *pick;
	set->forced = forced;
	for (int slot = 0; slot < VG_SLOTS && !forced; slot++) {
		int m = 0, b;

		for (int i = 0; i < n && m < 256; i++)
			if (verbs_gid_slot(c[i].type,
					   verbs_gid_family(c[i].gid)) == slot)
				sub[m++] = c[i];
		b = verbs_gid_pick(sub, m, local);
		if (b >= 0) {
			set->have[slot] = true;
			set->best[slot] = sub[b];
		}
	}
}

static bool cand_compat(const struct verbs_gid_cand *a,
			const struct verbs_gid_cand *b)
{
	return a->type == b->type &&
	       verbs_gid_family(a->gid) == verbs_gid_family(b->gid);
}

/* b moves to its entry matching a's type and family, if it may and can. */
static bool follow(const struct verbs_gid_set *a, const struct verbs_gid_set *b,
		   struct verbs_gid_cand *bf)
{
	int slot = verbs_gid_slot(a->pick.type, verbs_gid_family(a->pick.gid));

	if (b->forced || slot < 0 || !b->have[slot])
		return false;
	*bf = b->best[slot];
	return true;
}

int verbs_gid_settle(const struct verbs_gid_set *own,
		     const struct verbs_gid_set *peer, bool own_is_client,
		     struct verbs_gid_cand *own_f, struct verbs_gid_cand *peer_f,
		     char *err, size_t errlen)
{
	const struct verbs_gid_set *c = own_is_client ? own : peer;
	const struct verbs_gid_set *s = own_is_client ? peer : own;
	struct verbs_gid_cand cf = c->pick, sf = s->pick;
	bool done = cand_compat(&cf, &sf);

	if (!done && c->forced && !s->forced)
		done = follow(c, s, &sf);
	else if (!done && s->forced && !c->forced)
		done = follow(s, c, &cf);
	else if (!done && !c->forced && !s->forced) {
		int fam = verbs_gid_family(c->pick.gid);
		int fams[2] = { fam, fam == AF_INET ? AF_INET6 : AF_INET };
		enum verbs_gid_type types[2] = { VG_ROCE_V2, VG_ROCE_V1 };

		for (int t = 0; t < 2 && !done; t++)
			for (int f = 0; f < 2 && !done; f++) {
				int slot = verbs_gid_slot(types[t], fams[f]);

				if (c->have[slot] && s->have[slot]) {
					cf = c->best[slot];
					sf = s->best[slot];
					done = true;
				}
			}
	}
	if (!done)
		return verbs_gid_compat(own->pick.gid, own->pick.index,
					own->pick.type, peer->pick.gid,
					peer->pick.index, peer->pick.type, err,
					errlen);
	*own_f = own_is_client ? cf : sf;
	*peer_f = own_is_client ? sf : cf;
	return 0;
}

void verbs_gid_str(const uint8_t gid[16], char *out, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, out, (socklen_t)len) && len)
		out[0] = '\0';
}

const char *verbs_gid_type_str(enum verbs_gid_type t)
{
	switch (t) {
	case VG_IB:
		return "InfiniBand";
	case VG_ROCE_V1:
		return "RoCE v1";
	case VG_ROCE_V2:
		return "RoCE v2";
	}
	return "unknown GID type";
}

int verbs_gid_compat(const uint8_t *own, uint32_t own_index,
		     enum verbs_gid_type own_type, const uint8_t *peer,
		     uint32_t peer_index, enum verbs_gid_type peer_type,
		     char *err, size_t errlen)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int fa = verbs_gid_family(own), fb = verbs_gid_family(peer);

	if (own_type == peer_type && fa == fb)
		return 0;
	verbs_gid_str(own, a, sizeof(a));
	verbs_gid_str(peer, b, sizeof(b));
	seterr(err, errlen,
		  "RoCE GIDs do not match: this side %u %s (%s %s), peer %u %s (%s %s); give both sides GID indexes of one type and address family",
		  own_index, a, verbs_gid_type_str(own_type),
		  fa == AF_INET ? "IPv4" : "IPv6", peer_index, b,
		  verbs_gid_type_str(peer_type),
		  fb == AF_INET ? "IPv4" : "IPv6");
	return -1;
}

/* 0.4.11's texts for the completion statuses 0..21 (its output, kept so
 * that what users match on stays the same). */
static const char *const wc_text[] = {
	"Success",
	"Local length error",
	"Local QP operation failure",
	"Local EEC operation failure",
	"Local protection error",
	"WR flush failure",
	"Memory window bind failure",
	"Bad response",
	"Local access failure",
	"Remote invalid request",
	"Remote access failure",
	"Remote operation failure",
	"Retries exceeded",
	"RNR retry exceeded",
	"Local RDD violation",
	"Remote invalid read request",
	"Remote abort",
	"Invalid EECN",
	"Invalid EEC state",
	"Fatal error",
	"Responder timeout",
	"General error",
};

void verbs_wc_error(const char *test, int status, char *err, size_t errlen)
{
	if (status >= 0 && (size_t)status < sizeof(wc_text) / sizeof(wc_text[0]))
		seterr(err, errlen, "%s failed: %s", test, wc_text[status]);
	else
		seterr(err, errlen, "%s failed: CQ error %d", test, status);
}

void verbs_reg_mr_error(size_t len, int e, uint64_t memlock, char *err,
			size_t errlen)
{
	if ((e == ENOMEM || e == EPERM) && memlock != UINT64_MAX)
		seterr(err, errlen,
			  "failed to register %zu bytes of memory: %s; locked memory is limited to %llu bytes (raise it with ulimit -l)",
			  len, strerror(e), (unsigned long long)memlock);
	else
		seterr(err, errlen,
			  "failed to register %zu bytes of memory: %s", len,
			  strerror(e));
}
