// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening and closing a verbs session (both roles), spec §2.9: check the
 * parameters, open the device and port, make the completion channel, PD,
 * the one CQ, the QP(s) and the registered buffer, exchange NODE (and
 * with a 0.5 peer the NODE extension), check the peer's values, and move
 * the QP to RTS.  Every step leaves what it made in s->priv, so close()
 * releases everything whatever step failed, and may be called again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/tlv.h"
#include "verbs_int.h"

const struct verbs_info *verbs_session_info(const struct tsess *s)
{
	if (!s || !s->tp || !(s->tp->flags & TF_RDMA) || !s->priv)
		return NULL;
	return &((const struct verbs_priv *)s->priv)->info;
}

static bool is_atomic(enum op op)
{
	return op == OP_FADD || op == OP_CSWAP;
}

/* Does this side post operations on the peer's memory?  Reads/atomics? */
static bool posts_rdma(const struct tsess *s, bool *rd)
{
	enum op op = s->t->op;
	bool both = s->t->loop == LOOP_PINGPONG ||
		    s->t->loop == LOOP_WRITE_POLL || s->t->loop == LOOP_BI_BW;
	bool posts = !s->server || both;
	bool rdma = op == OP_WRITE || op == OP_WRITE_IMM || op == OP_READ ||
		    is_atomic(op);

	*rd = posts && (op == OP_READ || is_atomic(op));
	return posts && rdma;
}

/* Work requests per queue for this test and role (spec §3.1). */
static void wr_counts(const struct tsess *s, uint32_t *snd, uint32_t *rcv)
{
	uint32_t d = s->t->depth ? tsess_depth(s, false) : 1;
	uint32_t r = s->t->depth ? tsess_depth(s, true) : 1;

	switch (s->t->loop) {
	case LOOP_STREAM_BW:
		*snd = s->server ? 0 : d;
		*rcv = s->server ? r : 0;
		break;
	case LOOP_ONESIDED:
	case LOOP_ATOMIC_VER:
		*snd = s->server ? 0 : d;
		*rcv = s->server ? 1 : 0;
		break;
	case LOOP_WRITE_POLL:
		*snd = VERBS_NCQE;
		*rcv = 0;
		break;
	default: /* bi-directional, ping-pong */
		*snd = d;
		*rcv = r;
		break;
	}
}

/* Bytes to register (spec §2.9 "Memory"). */
static size_t reg_size(const struct tsess *s, const struct verbs_kind *k)
{
	size_t n = (size_t)s->p.msg_size + k->rx_off;

	if (is_atomic(s->t->op) &&
	    (s->server || s->t->loop == LOOP_ONESIDED))
		return 8;
	return n ? n : 1;
}

static int parse_id(struct tsess *s, struct verbs_priv *v, char *dev,
		    size_t devlen, char *err, size_t errlen)
{
	const char *id = s->p.id;
	const char *colon = strchr(id, ':');
	size_t n = colon ? (size_t)(colon - id) : strlen(id);
	long port = 1;

	if (n >= devlen) {
		seterr(err, errlen, "device name too long: %s", id);
		return -1;
	}
	memcpy(dev, id, n);
	dev[n] = '\0';
	if (colon) {
		char *end;

		errno = 0;
		port = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || errno || port < 1) {
			seterr(err, errlen,
				  "bad IB port: %s; must be at least 1",
				  colon + 1);
			return -1;
		}
		if (port > 255) {
			seterr(err, errlen,
				  "bad IB port: %ld; must be at most 255", port);
			return -1;
		}
	}
	v->port = (uint8_t)port;
	v->info.port = v->port;
	return 0;
}

static int device_open(struct verbs_priv *v, const char *dev, char *err,
		       size_t errlen)
{
	struct ibv_device **list;
	int n = 0, i;

	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		int e = errno;

		if (list)
			ibv_free_device_list(list);
		seterr(err, errlen,
			  "failed to find any RDMA devices%s%s (no RDMA driver loaded? see ibv_devices)",
			  e ? ": " : "", e ? strerror(e) : "");
		v->no_device = true;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!dev[0] || strcmp(ibv_get_device_name(list[i]), dev) == 0)
			break;
	if (i == n) {
		char names[160] = "";
		size_t used = 0;

		for (int j = 0; j < n && used < sizeof(names); j++) {
			int w = snprintf(names + used, sizeof(names) - used,
					 "%s%s", j ? ", " : "",
					 ibv_get_device_name(list[j]));

			if (w < 0)
				break;
			used += (size_t)w; /* clamped by the loop test */
		}
		seterr(err, errlen, "no RDMA device %s; devices: %s", dev,
			  names);
		ibv_free_device_list(list);
		return -1;
	}
	snprintf(v->info.device, sizeof(v->info.device), "%s",
		 ibv_get_device_name(list[i]));
	v->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!v->ctx) {
		seterr(err, errlen, "failed to open device %s: %s",
			  v->info.device, strerror(errno));
		return -1;
	}
	if (ibv_query_device(v->ctx, &v->dattr)) {
		seterr(err, errlen, "failed to query device %s: %s",
			  v->info.device, strerror(errno));
		return -1;
	}
	return 0;
}

int verbs_device(struct tsess *s, struct verbs_priv *v, char *err,
		 size_t errlen)
{
	char dev[64];

	return parse_id(s, v, dev, sizeof(dev), err, errlen) ||
			       device_open(v, dev, err, errlen)
		       ? -1
		       : 0;
}

static const char *port_state(enum ibv_port_state st)
{
	switch (st) {
	case IBV_PORT_DOWN:
		return "DOWN";
	case IBV_PORT_INIT:
		return "INIT";
	case IBV_PORT_ARMED:
		return "ARMED";
	case IBV_PORT_ACTIVE:
		return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	default:
		return "in no known state";
	}
}

/* Query port and check it exists and is ACTIVE. */
static int port_query(struct verbs_priv *v, uint8_t port, const char *what,
		      struct ibv_port_attr *pa, char *err, size_t errlen)
{
	if (port > v->dattr.phys_port_cnt || ibv_query_port(v->ctx, port, pa)) {
		seterr(err, errlen, "device %s has no %s %u (it has %u)",
			  v->info.device, what, port, v->dattr.phys_port_cnt);
		return -1;
	}
	if (pa->state != IBV_PORT_ACTIVE) {
		seterr(err, errlen, "%s %s:%u is %s, not ACTIVE", what,
			  v->info.device, port, port_state(pa->state));
		return -1;
	}
	return 0;
}

static uint32_t port_lid(const struct ibv_port_attr *pa, uint32_t bits)
{
	return pa->lid + (bits & ((1u << pa->lmc) - 1));
}

static int ports_open(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	struct ibv_port_attr alt;

	if (port_query(v, v->port, "port", &v->pattr, err, errlen))
		return -1;
	v->info.roce = v->pattr.link_layer == IBV_LINK_LAYER_ETHERNET;
	v->info.active_mtu = verbs_mtu_bytes(v->pattr.active_mtu);
	v->me.lid = v->info.roce ? 0 : port_lid(&v->pattr, s->p.src_path_bits);
	v->info.lid = v->me.lid;
	if (s->p.alt_port) {
		if (s->p.alt_port > 255) {
			seterr(err, errlen, "bad alternate port: %u",
				  s->p.alt_port);
			return -1;
		}
		v->alt_port = (uint8_t)s->p.alt_port;
		if (port_query(v, v->alt_port, "alternate port", &alt, err,
			       errlen))
			return -1;
		v->me.alt_lid = v->info.roce ? 0 :
					       port_lid(&alt, s->p.src_path_bits);
	}
	return 0;
}

/* The WRs of each queue: the test's (open loop: its slots' (verbs_slots.c)),
 * shared among the QPs (verbs_qps.c). */
static void queues_plan(struct tsess *s, struct verbs_priv *v)
{
	wr_counts(s, &v->send_wr, &v->recv_wr);
	if (s->slots) { /* open loop (verbs_slots.c) */
		v->send_wr = 2 * s->slots;
		v->recv_wr = s->slots;
	}
	verbs_qps_plan(s, v);
}

static int res_create(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	uint64_t cqe;

	queues_plan(s, v);
	cqe = verbs_cq_size(s, v);
	if (cqe > (uint32_t)v->dattr.max_cqe) {
		seterr(err, errlen,
			  "device %s supports CQs of at most %d entries (%llu needed)",
			  v->info.device, v->dattr.max_cqe,
			  (unsigned long long)cqe);
		return -1;
	}
	if (verbs_qps_alloc(s, v, err, errlen))
		return -1;
	v->cc = ibv_create_comp_channel(v->ctx);
	if (!v->cc) {
		seterr(err, errlen,
			  "failed to create completion channel: %s",
			  strerror(errno));
		return -1;
	}
	/* Non-blocking: poll() tries for an event before it sleeps. */
	fcntl(v->cc->fd, F_SETFL, fcntl(v->cc->fd, F_GETFL) | O_NONBLOCK);
	v->pd = ibv_alloc_pd(v->ctx);
	if (!v->pd) {
		seterr(err, errlen, "failed to allocate protection domain: %s",
			  strerror(errno));
		return -1;
	}
	/* each CQ's context is its index: an event names its CQ */
	for (uint32_t i = 0; i < v->ncq; i++) {
		v->cqs[i] = ibv_create_cq(v->ctx, (int)(cqe ? cqe : 1),
					  (void *)(uintptr_t)i, v->cc, 0);
		if (!v->cqs[i]) {
			seterr(err, errlen,
			       "failed to create CQ %u of %llu entries: %s",
			       i + 1, (unsigned long long)cqe,
			       strerror(errno));
			return -1;
		}
	}
	v->cq = v->cqs[0];
	return 0;
}

static int mem_create(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t ps = page > 0 ? (size_t)page : 4096;
	size_t want = v->reglen > s->p.msg_size ? v->reglen : s->p.msg_size;
	struct rlimit rl;
	int e;

	if (v->reglen > v->dattr.max_mr_size) {
		seterr(err, errlen,
			  "message size %u bytes needs a memory region of %zu bytes, larger than device %s allows (%llu)",
			  s->p.msg_size, v->reglen, v->info.device,
			  (unsigned long long)v->dattr.max_mr_size);
		return -1;
	}
	if (want < 8)
		want = 8;
	v->memlen = (want + ps - 1) / ps * ps;
	/* --hugepages, --odp: a mapping of its own, which ODP leaves cold
	 * (the device faults it in: verbs_mem.c) */
	v->mapped = s->p.hugepages || s->p.odp;
	if (v->mapped) {
		if (verbs_odp_check(v->ctx, v->info.device, s->p.odp, err,
				    errlen) ||
		    !(v->mem = verbs_map(v->memlen, s->p.hugepages, err,
					 errlen)))
			return -1;
		v->memlen = verbs_map_len(v->memlen, s->p.hugepages);
	} else if ((e = posix_memalign(&v->mem, ps, v->memlen))) {
		v->mem = NULL;
		seterr(err, errlen, "failed to allocate %zu bytes: %s",
			  v->memlen, strerror(e));
		return -1;
	}
	if (verbs_numa_place(s, v, v->mem, v->memlen, err, errlen))
		return -1; /* before the first touch: pages come from there */
	if (!s->p.odp)
		memset(v->mem, 0, v->memlen);
	s->buf = v->mem;
	s->rx_off = v->k->rx_off;
	s->buflen = want;
	v->mr = verbs_reg(v->pd, v->mem, v->reglen,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_ATOMIC,
			  s->p.odp);
	if (v->mr && s->p.odp == REGMR_ODP_PREFETCH &&
	    (e = verbs_prefetch(v->pd, v->mr, v->mem, v->reglen))) {
		seterr(err, errlen, "--odp prefetch: ibv_advise_mr failed: %s",
		       strerror(e));
		return -1;
	}
	if (!v->mr) {
		e = errno;
		if (getrlimit(RLIMIT_MEMLOCK, &rl))
			rl.rlim_cur = RLIM_INFINITY;
		verbs_reg_mr_error(v->reglen, e,
				   rl.rlim_cur == RLIM_INFINITY ?
					   UINT64_MAX :
					   (uint64_t)rl.rlim_cur,
				   err, errlen);
		return -1;
	}
	v->me.vaddr = (uint64_t)(uintptr_t)v->mem;
	v->me.rkey = v->mr->rkey;
	v->info.vaddr = v->me.vaddr;
	v->info.rkey = v->me.rkey;
	return 0;
}

static bool ext_wanted(const struct tsess *s)
{
	return s->ch->ext && (s->ch->peer_caps & CAP_NODE_EXT);
}

static void ext_fill(struct tsess *s, struct verbs_priv *v)
{
	struct verbs_ext *x = &v->xme;

	memset(x, 0, sizeof(*x));
	x->have = VXH_LINK | VXH_MTU;
	x->link_layer = v->info.roce ? VL_ETH : VL_IB;
	x->port = v->port;
	snprintf(x->device, sizeof(x->device), "%s", v->info.device);
	x->active_mtu = v->info.active_mtu;
	x->mtu_size = s->p.mtu_size;
	x->mtu_explicit = s->p.mtu_explicit;
	x->have |= VXH_GID; /* InfiniBand: GID 0, for -v only */
	memcpy(x->gid, v->info.gid, 16);
	x->gid_index = v->info.gid_index < 0 ? 0 : (uint32_t)v->info.gid_index;
	x->gid_type = v->info.gid_type;
	x->gid_forced = v->gids.forced;
	for (int i = 0; i < VG_SLOTS; i++)
		if (v->gids.have[i])
			x->cand[x->ncand++] = v->gids.best[i];
	if (v->numa_node >= 0) {
		x->have |= VXH_NUMA;
		x->numa_node = (uint32_t)v->numa_node;
	}
	if (v->k->ext_fill)
		v->k->ext_fill(v, x);
}

int verbs_node_send(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	struct chan *ch = s->ch;
	uint8_t nb[VERBS_NODE_SIZE], xb[VERBS_EXT_MAX];
	size_t xl;

	verbs_node_encode(&v->me, nb);
	if (ch->send(ch, nb, sizeof(nb), "node information", err, errlen))
		return -1;
	if (!ext_wanted(s))
		return 0;
	ext_fill(s, v);
	xl = verbs_ext_encode(&v->xme, xb, VERBS_EXT_MAX);
	if (!xl) {
		seterr(err, errlen, "internal error: node extension too large");
		return -1;
	}
	return ch->send_ext(ch, xb, xl, "node extension", err, errlen);
}

int verbs_node_recv(struct tsess *s, struct verbs_priv *v, bool end_ok,
		    char *err, size_t errlen)
{
	struct chan *ch = s->ch;
	uint8_t nb[VERBS_NODE_SIZE], xb[TLV_MAX];
	size_t xl;

	if (ch->recv(ch, nb, sizeof(nb), "node information", err, errlen))
		return -1;
	verbs_node_decode(nb, &v->peer);
	if (end_ok && !v->peer.qpn)
		return 1; /* no QP: the peer's end (rc_qp_setup) */
	v->info.peer_known = true;
	v->info.peer_lid = v->peer.lid;
	v->info.peer_qpn = v->peer.qpn;
	v->info.peer_rd_atomic = v->peer.rd_atomic;
	v->info.peer_psn = v->peer.psn;
	v->info.peer_rkey = v->peer.rkey;
	v->info.peer_vaddr = v->peer.vaddr;
	v->info.peer_gid_index = -1;
	if (!ext_wanted(s))
		return 0;
	if (ch->recv_ext(ch, xb, sizeof(xb), &xl, "node extension", err,
			 errlen))
		return -1;
	if (verbs_ext_decode(xb, xl, &v->xpeer)) {
		seterr(err, errlen, "peer sent a malformed node extension");
		return -1;
	}
	v->info.peer_ext = true;
	if (v->xpeer.have & VXH_NUMA)
		verbs_numa_note(s, true, (int)v->xpeer.numa_node, NULL);
	if (v->xpeer.have & VXH_MTU)
		v->info.peer_active_mtu = v->xpeer.active_mtu;
	if (v->xpeer.have & VXH_GID) {
		memcpy(v->info.peer_gid, v->xpeer.gid, 16);
		v->info.peer_gid_index = (int)v->xpeer.gid_index;
		v->info.peer_gid_type = (enum verbs_gid_type)v->xpeer.gid_type;
	}
	return 0;
}

/* NODE both ways: each side sends its own, then reads the peer's (the
 * bytes on the wire as 0.4.11's, with a 0.5 peer each NODE followed by
 * its extension). */
static int exchange(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	return verbs_node_send(s, v, err, errlen) ||
			       verbs_node_recv(s, v, false, err, errlen)
		       ? -1
		       : 0;
}

/* Path MTU, and that the peer will use the same one. */
static int mtu_settle(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	char own[96], peer[96];
	const struct verbs_ext *x = &v->xpeer;
	uint32_t m, pm, peer_act = (x->have & VXH_MTU) ? x->active_mtu : 0;

	snprintf(own, sizeof(own), "%s:%u", v->info.device, v->port);
	snprintf(peer, sizeof(peer), "%s:%u",
		 x->device[0] ? x->device : "?", x->port);
	m = verbs_path_mtu(s->p.mtu_size, s->p.mtu_explicit,
			   v->info.active_mtu, peer_act, own, peer, err, errlen);
	if (!m)
		return -1;
	if (peer_act) {
		if (!verbs_mtu_enum(x->mtu_size)) {
			seterr(err, errlen, "peer asks for a bad MTU %u",
				  x->mtu_size);
			return -1;
		}
		pm = verbs_path_mtu(x->mtu_size, x->mtu_explicit, peer_act,
				    v->info.active_mtu, peer, own, NULL, 0);
		if (!pm) {
			seterr(err, errlen,
				  "peer's MTU %u is above the active MTU of a port: this side %s %u, peer %s %u",
				  x->mtu_size, own, v->info.active_mtu, peer,
				  peer_act);
			return -1;
		}
		if (pm != m) {
			seterr(err, errlen,
				  "path MTUs differ: this side %u, peer %u; give both sides the same -mt",
				  m, pm);
			return -1;
		}
	}
	v->path_mtu = verbs_mtu_enum(m);
	v->info.path_mtu = m;
	return verbs_mtu_fits(s, v, m, err, errlen);
}

int verbs_mtu_fits(const struct tsess *s, const struct verbs_priv *v,
		   uint32_t m, char *err, size_t errlen)
{
	if (v->k->mtu_bound && s->p.msg_size > m) {
		seterr(err, errlen,
			  "%s message size %u is larger than the path MTU %u; use -m %u or less",
			  s->tp->label, s->p.msg_size, m, m);
		return -1;
	}
	return 0;
}

/* Both ends' RoCE GIDs (verbs_gid_settle), into v->gid and v->info. */
static int roce_settle(struct tsess *s, struct verbs_priv *v, char *err,
		       size_t errlen)
{
	const struct verbs_ext *x = &v->xpeer;
	struct verbs_gid_set peer;
	struct verbs_gid_cand of, pf;

	memset(&peer, 0, sizeof(peer));
	memcpy(peer.pick.gid, x->gid, 16);
	peer.pick.index = x->gid_index;
	peer.pick.type = (enum verbs_gid_type)x->gid_type;
	peer.forced = x->gid_forced != 0;
	for (int i = 0; i < x->ncand; i++) {
		int slot = verbs_gid_slot(x->cand[i].type,
					  verbs_gid_family(x->cand[i].gid));

		if (slot >= 0 && !peer.have[slot]) {
			peer.have[slot] = true;
			peer.best[slot] = x->cand[i];
		}
	}
	if (verbs_gid_settle(&v->gids, &peer, !s->server, &of, &pf, err,
			     errlen))
		return -1;
	memcpy(v->gid.raw, of.gid, 16);
	memcpy(v->info.gid, of.gid, 16);
	v->info.gid_index = (int)of.index;
	v->info.gid_type = of.type;
	memcpy(v->info.peer_gid, pf.gid, 16);
	v->info.peer_gid_index = (int)pf.index;
	v->info.peer_gid_type = pf.type;
	return 0;
}

int verbs_peer_check(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	const struct verbs_ext *x = &v->xpeer;
	bool rd, rdma = posts_rdma(s, &rd);

	if (v->info.peer_ext && (x->have & VXH_LINK) &&
	    (x->link_layer == VL_ETH) != v->info.roce) {
		seterr(err, errlen,
			  "link layers differ: this side %s, peer %s",
			  v->info.roce ? "Ethernet (RoCE)" : "InfiniBand",
			  v->info.roce ? "InfiniBand" : "Ethernet (RoCE)");
		return -1;
	}
	if (v->cm) /* the CM connected the QP: NODE's QP fields are 0 */
		return v->k->connected ?
			       0 :
			       verbs_node_check(&v->peer, v->k, false, false,
						!v->info.roce, err, errlen);
	if (verbs_node_check(&v->peer, v->k, rdma, rd, !v->info.roce, err,
			     errlen))
		return -1;
	if (v->k->peer_check && v->k->peer_check(s, v, err, errlen))
		return -1;
	if (v->info.roce) {
		if (!(x->have & VXH_GID) || x->gid_type == VG_IB ||
		    x->gid_type > VG_ROCE_V2) {
			seterr(err, errlen, "peer sent no RoCE GID");
			return -1;
		}
		if (roce_settle(s, v, err, errlen))
			return -1;
	}
	return mtu_settle(s, v, err, errlen);
}

static void seed_psn(struct verbs_priv *v)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
	    ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)v;
	v->seed[0] = (unsigned short)x;
	v->seed[1] = (unsigned short)(x >> 16);
	v->seed[2] = (unsigned short)(x >> 32 ^ x >> 48);
}

static int params_check(struct tsess *s, struct verbs_priv *v, bool cm,
			char *dev, size_t devlen, char *err, size_t errlen)
{
	if (cm) { /* the CM picks device, port and path */
		dev[0] = '\0';
		v->port = 1;
		return 0;
	}
	if (!verbs_mtu_enum(s->p.mtu_size)) {
		seterr(err, errlen,
			  "bad MTU: %u; must be 256/512/1K/2K/4K",
			  s->p.mtu_size);
		return -1;
	}
	if (verbs_rate_parse(s->p.static_rate, &v->rate)) {
		seterr(err, errlen, "bad static rate: %s", s->p.static_rate);
		return -1;
	}
	if (v->k->ext_only && !ext_wanted(s)) {
		seterr(err, errlen,
			  "%s tests need a peer running qperf 0.5 or later",
			  s->tp->label);
		return -1;
	}
	return parse_id(s, v, dev, devlen, err, errlen);
}

/*
 * This side's parameters against its own device, before any peer is
 * involved: device, port and its state, MTU, static rate, read/atomic
 * depth, UD message size against the MTU the port allows.  cm: the RDMA
 * CM picks device, port and path (the first device is checked).
 */
static int check_device(struct tsess *s, const struct verbs_kind *k, bool cm,
			char *err, size_t errlen)
{
	struct verbs_priv *v = s->priv;
	char dev[64];
	uint32_t mtu;
	int rc = -1;

	memset(v, 0, sizeof(*v));
	verbs_qps_init(v);
	v->k = k;
	v->opened_once = true;
	if (params_check(s, v, cm, dev, sizeof(dev), err, errlen) ||
	    device_open(v, dev, err, errlen) || ports_open(s, v, err, errlen))
		goto out;
	if (s->p.rd_atomic > (uint32_t)v->dattr.max_qp_rd_atom) {
		seterr(err, errlen,
			  "device only supports %u (< %u) RDMA reads or atomics",
			  (uint32_t)v->dattr.max_qp_rd_atom, s->p.rd_atomic);
		goto out;
	}
	if (verbs_knobs_check(s, v, err, errlen))
		goto out;
	queues_plan(s, v);
	v->reglen = reg_size(s, k);
	if (verbs_qps_check(s, v, err, errlen))
		goto out;
	/* An inline size the device refuses shows only at QP creation. */
	if (s->p.inline_set &&
	    (res_create(s, v, err, errlen) || verbs_qp_create(s, v, err, errlen)))
		goto out;
	/* A forced GID index must exist (the automatic choice needs the
	 * control connection's address, which there is none of yet). */
	if (s->p.gid_index >= 0 && verbs_addr_choose(s, v, err, errlen))
		goto out;
	if (s->p.mtu_explicit && !cm &&
	    s->p.mtu_size > v->info.active_mtu) {
		seterr(err, errlen,
			  "MTU %u is above the active MTU %u of %s:%u",
			  s->p.mtu_size, v->info.active_mtu, v->info.device,
			  v->port);
		goto out;
	}
	mtu = s->p.mtu_size && s->p.mtu_size < v->info.active_mtu ?
		      s->p.mtu_size :
		      v->info.active_mtu;
	if (verbs_mtu_fits(s, v, mtu, err, errlen))
		goto out;
	if (v->dattr.max_mr_size && s->p.msg_size > v->dattr.max_mr_size) {
		seterr(err, errlen,
			  "message size %u is larger than the largest memory region %s can register (%llu)",
			  s->p.msg_size, v->info.device,
			  (unsigned long long)v->dattr.max_mr_size);
		goto out;
	}
	rc = 0;
out:
	if (rc < 0 && v->no_device)
		rc = TP_NOT_HERE;
	verbs_close(s);
	return rc;
}

int verbs_check(struct tsess *s, const struct verbs_kind *k, char *err,
		size_t errlen)
{
	return check_device(s, k, s->p.use_cm, err, errlen);
}

int verbs_check_cm(struct tsess *s, const struct verbs_kind *k, char *err,
		   size_t errlen)
{
	return check_device(s, k, true, err, errlen);
}

/* On RoCE, tell the report (-v) which GID each end chose. */
static void add_notes(struct tsess *s, const struct verbs_info *vi)
{
	char g[64];

	if (!vi->roce)
		return;
	for (int peer = 0; peer < 2 && s->nnotes + 1 < TNOTE_MAX; peer++) {
		struct tnote *n = &s->notes[s->nnotes++];

		verbs_gid_str(peer ? vi->peer_gid : vi->gid, g, sizeof(g));
		snprintf(n->name, sizeof(n->name), "%s_gid",
			 peer ? "rem" : "loc");
		snprintf(n->value, sizeof(n->value), "%s (index %d, %s)", g,
			 peer ? vi->peer_gid_index : vi->gid_index,
			 verbs_gid_type_str(peer ? vi->peer_gid_type
						 : vi->gid_type));
	}
}

/*
 * Without RDMA CM: the queues, the QP(s), the buffer, both ends' values
 * and the QP(s) to RTS.  The time of every step but the buffer's, and
 * what the process grew by while the queues were made, are the QPs'
 * setup figures (--qps).
 */
static int qps_open(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	uint64_t t0 = now_ns(), m0 = verbs_proc_bytes(), t1;

	if (res_create(s, v, err, errlen) || verbs_qp_create(s, v, err, errlen))
		return -1;
	verbs_qps_made(s, v);
	t1 = now_ns();
	v->proc_B = verbs_proc_bytes();
	v->proc_B = v->proc_B > m0 ? v->proc_B - m0 : 0;
	if (verbs_knobs_alloc(s, v, err, errlen) ||
	    mem_create(s, v, err, errlen))
		return -1;
	v->setup_ns = t1 - t0;
	t0 = now_ns();
	if (verbs_qp_init(s, v, err, errlen) ||
	    verbs_addr_choose(s, v, err, errlen) ||
	    exchange(s, v, err, errlen) ||
	    verbs_qpn_exchange(s, v, err, errlen) ||
	    verbs_peer_check(s, v, err, errlen) ||
	    v->k->connect(s, v, err, errlen))
		return -1;
	v->setup_ns += now_ns() - t0;
	return 0;
}

/*
 * What every open does first: the device (-i's, or cm_dev's from the
 * RDMA CM) and port, the checks of this side's values against them, the
 * PSN, and the bytes to register.  0, or -1 with err filled.
 */
static int open_device(struct tsess *s, const struct verbs_kind *k,
		       verbs_dev_fn *cm_dev, char *err, size_t errlen)
{
	struct verbs_priv *v = s->priv;
	char dev[64];
	uint32_t max_rd;

	memset(v, 0, sizeof(*v));
	verbs_qps_init(v);
	v->k = k;
	v->opened_once = true;
	v->info.gid_index = -1;
	v->info.peer_gid_index = -1;
	v->peer_qkey = VERBS_QKEY;
	if (params_check(s, v, cm_dev != NULL, dev, sizeof(dev), err,
			 errlen) ||
	    (cm_dev ? cm_dev(s, v, err, errlen) :
		      device_open(v, dev, err, errlen)) ||
	    ports_open(s, v, err, errlen))
		return -1;
	if (v->info.roce && !ext_wanted(s) && !v->cm) {
		seterr(err, errlen,
			  "%s:%u is a RoCE port: addressing it needs a GID, which qperf 0.4.11's protocol cannot carry; use RDMA CM (-cm1) with that peer",
			  v->info.device, v->port);
		return -1;
	}
	max_rd = (uint32_t)v->dattr.max_qp_rd_atom;
	if (s->p.rd_atomic > max_rd) {
		seterr(err, errlen,
			  "device only supports %u (< %u) RDMA reads or atomics",
			  max_rd, s->p.rd_atomic);
		return -1;
	}
	if (verbs_knobs_check(s, v, err, errlen))
		return -1;
	v->me.rd_atomic = s->p.rd_atomic ? s->p.rd_atomic : max_rd;
	v->info.rd_atomic = v->me.rd_atomic;
	seed_psn(v);
	v->me.psn = (uint32_t)nrand48(v->seed) & 0xffffff;
	v->info.psn = v->me.psn;
	verbs_slots_plan(s, v);
	v->reglen = v->nslots ? verbs_slots_bytes(v) : reg_size(s, k);
	return 0;
}

int verbs_open_shared(struct tsess *s, const struct verbs_kind *k,
		      verbs_dev_fn *cm_dev, char *err, size_t errlen)
{
	struct verbs_priv *v = s->priv;

	return open_device(s, k, cm_dev, err, errlen) ||
			       res_create(s, v, err, errlen) ||
			       mem_create(s, v, err, errlen) ||
			       (!v->cm && verbs_addr_choose(s, v, err, errlen))
		       ? -1
		       : 0;
}

int verbs_open(struct tsess *s, const struct verbs_kind *k, char *err,
	       size_t errlen)
{
	struct verbs_priv *v = s->priv;

	if (open_device(s, k, s->p.use_cm ? verbs_cm_device : NULL, err,
			errlen))
		return -1; /* close() releases what was made */
	queues_plan(s, v);
	if (verbs_qps_check(s, v, err, errlen))
		goto fail;
	if (v->cm) {
		if (res_create(s, v, err, errlen) ||
		    verbs_cm_connect(s, v, err, errlen) ||
		    verbs_knobs_alloc(s, v, err, errlen) ||
		    mem_create(s, v, err, errlen) ||
		    exchange(s, v, err, errlen) ||
		    verbs_peer_check(s, v, err, errlen) ||
		    (k->cm_finish && k->cm_finish(s, v, err, errlen)))
			goto fail;
	} else if (qps_open(s, v, err, errlen)) {
		goto fail;
	}
	/* event mode: every CQ armed, and re-armed at each of its events */
	for (uint32_t i = 0; !s->p.poll_mode && i < v->ncq; i++) {
		if (ibv_req_notify_cq(v->cqs[i], 0)) {
			seterr(err, errlen, "failed to arm the CQ");
			goto fail;
		}
	}
	add_notes(s, &v->info);
	return 0;
fail:
	return -1; /* close() releases what was made */
}

void verbs_close(struct tsess *s)
{
	struct verbs_priv *v = s->priv;

	if (!v || !v->opened_once)
		return;
	/* Goes on past failures: each object is released once and
	 * forgotten.  A CM QP belongs to its id. */
	if (v->cm)
		verbs_cm_close_qp(v);
	/* XRC: the receive QPs past the first, then the first */
	for (uint32_t i = 1; v->tgts != &v->tgt && i < v->nqp; i++)
		if (v->tgts[i])
			ibv_destroy_qp(v->tgts[i]);
	if (v->tgt)
		ibv_destroy_qp(v->tgt);
	v->tgt = NULL;
	/* --qps: the QPs and CQs past the first, if they were allocated */
	for (uint32_t i = 1; v->qps != &v->qp && i < v->nqp; i++)
		if (v->qps[i])
			ibv_destroy_qp(v->qps[i]);
	if (v->qp)
		ibv_destroy_qp(v->qp);
	v->qp = NULL;
	if (v->srq)
		ibv_destroy_srq(v->srq);
	v->srq = NULL;
	if (v->ah)
		ibv_destroy_ah(v->ah);
	v->ah = NULL;
	for (uint32_t i = 1; v->cqs != &v->cq && i < v->ncq; i++)
		if (v->cqs[i])
			ibv_destroy_cq(v->cqs[i]);
	if (v->cq)
		ibv_destroy_cq(v->cq);
	v->cq = NULL;
	if (v->xrcd)
		ibv_close_xrcd(v->xrcd);
	v->xrcd = NULL;
	if (v->mr)
		ibv_dereg_mr(v->mr);
	v->mr = NULL;
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	v->pd = NULL;
	if (v->cc)
		ibv_destroy_comp_channel(v->cc);
	v->cc = NULL;
	if (v->cm)
		verbs_cm_release(v);
	if (v->ctx)
		ibv_close_device(v->ctx);
	v->ctx = NULL;
	if (v->mapped)
		munmap(v->mem, v->memlen);
	else
		free(v->mem);
	v->mem = NULL;
	verbs_knobs_free(v);
	verbs_qps_free(v);
	s->buf = NULL;
	s->buflen = 0;
}
