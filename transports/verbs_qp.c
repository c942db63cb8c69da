// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue pairs of the verbs transports: creation of one QP (RC, UC, UD;
 * xrc.c makes XRC's), the state changes of spec §2.11 as the kinds'
 * operations share them (ud.c and xrc.c own their own connect), and the
 * choice of this side's address (LID on InfiniBand, a GID on RoCE).
 * Everything made here is released by verbs_close().
 */
#include <errno.h>
#include <string.h>

#include "verbs_int.h"

uint32_t verbs_inline_ask(const struct tsess *s)
{
	return s->p.inline_set ? s->p.inline_size
				     : VERBS_INLINE;
}

/*
 * The device refused a QP with the inline size asked for: find the
 * largest it accepts (halving, each probe QP destroyed at once), so that
 * the message names the limit.
 */
static int inline_refused(struct tsess *s, struct verbs_priv *v,
			  struct ibv_qp_init_attr *ia, char *err,
			  size_t errlen)
{
	int e = errno;
	uint32_t ok = 0;

	for (uint32_t n = ia->cap.max_inline_data / 2; n; n /= 2) {
		struct ibv_qp *q;

		ia->cap.max_inline_data = n;
		q = ibv_create_qp(v->pd, ia);
		if (q) {
			ibv_destroy_qp(q);
			ok = n;
			break;
		}
	}
	seterr(err, errlen,
		  "inline size %u is above what %s allows for %s QPs (%s%u bytes; %s)",
		  s->p.inline_size, v->info.device, s->tp->label,
		  ok ? "at least " : "", ok, strerror(e));
	return -1;
}

/* --use_srq: a shared receive queue for the receives of RC, UC, UD. */
int verbs_srq_create(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	struct ibv_srq_init_attr sa;

	if (!s->p.use_srq || !v->srq_wr || v->srq)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = v->srq_wr;
	sa.attr.max_sge = 1;
	v->srq = ibv_create_srq(v->pd, &sa);
	if (!v->srq) {
		seterr(err, errlen,
			  "failed to create an SRQ of %u receives on %s: %s",
			  v->srq_wr, v->info.device, strerror(errno));
		return -1;
	}
	return 0;
}

void verbs_qp_init_attr(const struct tsess *s, const struct verbs_priv *v,
			uint32_t qi, struct ibv_qp_init_attr *ia)
{
	struct ibv_cq *cq = v->cqs[v->ncq > 1 ? qi : 0];

	memset(ia, 0, sizeof(*ia));
	ia->send_cq = cq;
	ia->recv_cq = cq;
	ia->srq = v->srq;
	ia->qp_type = v->k->qp_type;
	ia->cap.max_send_wr = v->send_wr;
	ia->cap.max_recv_wr = v->srq ? 0 : v->recv_wr;
	ia->cap.max_send_sge = 1;
	ia->cap.max_recv_sge = v->srq ? 0 : 1;
	ia->cap.max_inline_data = verbs_inline_ask(s);
}

int verbs_qp_create(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	if (v->send_wr > (uint32_t)v->dattr.max_qp_wr ||
	    v->recv_wr > (uint32_t)v->dattr.max_qp_wr) {
		seterr(err, errlen,
			  "device %s supports at most %d work requests per queue (%u needed)",
			  v->info.device, v->dattr.max_qp_wr,
			  v->send_wr > v->recv_wr ? v->send_wr : v->recv_wr);
		return -1;
	}
	if (v->k->create(s, v, err, errlen))
		return -1;
	return verbs_qp_made(s, v, err, errlen);
}

int verbs_qp_create_one(struct tsess *s, struct verbs_priv *v, char *err,
			size_t errlen)
{
	struct ibv_qp_init_attr ia;
	bool no_inline = false;

	if (verbs_srq_create(s, v, err, errlen))
		return -1;
	/* one QP, or --qps of them alike (v->qp is the first) */
	for (uint32_t i = 0; i < v->nqp; i++) {
		struct ibv_qp **qp = &v->qps[i];

		verbs_qp_init_attr(s, v, i, &ia);
		if (no_inline)
			ia.cap.max_inline_data = 0;
		*qp = ibv_create_qp(v->pd, &ia);
		if (!*qp && !s->p.inline_set && !no_inline) {
			/* some devices offer no inline data */
			no_inline = true;
			ia.cap.max_inline_data = 0;
			*qp = ibv_create_qp(v->pd, &ia);
		}
		if (!*qp && s->p.inline_set && i == 0)
			return inline_refused(s, v, &ia, err, errlen);
		if (!*qp) {
			seterr(err, errlen, "failed to create %s QP%s%.0u: %s",
			       s->tp->label, v->nqp > 1 ? " " : "",
			       v->nqp > 1 ? i + 1 : 0, strerror(errno));
			return -1;
		}
		v->qp = v->qps[0]; /* close() releases it from here on */
	}
	return 0;
}

int verbs_qp_made(struct tsess *s, struct verbs_priv *v, char *err,
		  size_t errlen)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;

	memset(&qa, 0, sizeof(qa));
	memset(&ia, 0, sizeof(ia));
	if (ibv_query_qp(v->qp, &qa, IBV_QP_CAP, &ia) == 0)
		s->max_inline = ia.cap.max_inline_data;
	if (s->p.inline_set) {
		if (s->max_inline < s->p.inline_size) {
			seterr(err, errlen,
				  "inline size %u is above what %s gives %s QPs (%u bytes)",
				  s->p.inline_size, v->info.device,
				  s->tp->label, s->max_inline);
			return -1;
		}
		s->max_inline = s->p.inline_size; /* the threshold */
	}
	v->info.max_inline = s->max_inline;
	v->me.qpn = v->qp->qp_num;
	v->info.qpn = v->qp->qp_num;
	return 0;
}

int verbs_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		 const char *what, char *err, size_t errlen)
{
	int rc = ibv_modify_qp(qp, a, mask);

	if (rc) {
		seterr(err, errlen, "failed to modify %s: %s", what,
			  strerror(rc > 0 ? rc : errno));
		return -1;
	}
	return 0;
}

int verbs_qp_init_one(struct tsess *s, struct verbs_priv *v,
		      struct ibv_qp *qp, char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = (uint16_t)s->p.pkey_index; /* checked: in the table */
	a.port_num = v->port;
	if (v->k->access) {
		a.qp_access_flags = v->k->access;
		mask |= IBV_QP_ACCESS_FLAGS;
	} else {
		a.qkey = VERBS_QKEY;
		mask |= IBV_QP_QKEY;
	}
	return verbs_modify(qp, &a, mask,
			    qp->qp_type == IBV_QPT_XRC_RECV ?
				    "XRC receive QP to INIT" : "QP to INIT",
			    err, errlen);
}

int verbs_qp_init(struct tsess *s, struct verbs_priv *v, char *err,
		  size_t errlen)
{
	for (uint32_t i = 0; i < v->nqp; i++)
		if (verbs_qp_init_one(s, v, v->qps[i], err, errlen))
			return -1;
	for (uint32_t i = 0; v->tgt && i < v->nqp; i++)
		if (verbs_qp_init_one(s, v, v->tgts[i], err, errlen))
			return -1;
	return 0;
}

void verbs_make_av(const struct tsess *s, const struct verbs_priv *v,
		   uint32_t dlid, uint8_t port, struct ibv_ah_attr *av)
{
	memset(av, 0, sizeof(*av));
	av->dlid = (uint16_t)dlid;
	av->sl = (uint8_t)s->p.sl;
	av->src_path_bits = (uint8_t)s->p.src_path_bits;
	av->static_rate = (uint8_t)v->rate;
	av->port_num = port;
	if (v->info.roce) {
		av->is_global = 1;
		memcpy(av->grh.dgid.raw, v->info.peer_gid, 16);
		av->grh.sgid_index = (uint8_t)v->info.gid_index;
		av->grh.hop_limit = 64;
		av->grh.traffic_class = (uint8_t)s->p.tclass;
	}
}

static void alt_path(const struct tsess *s, const struct verbs_priv *v,
		     struct ibv_qp_attr *a, int *mask)
{
	if (!v->peer.alt_lid || !v->alt_port)
		return;
	verbs_make_av(s, v, v->peer.alt_lid, v->alt_port, &a->alt_ah_attr);
	a->alt_port_num = v->alt_port;
	a->alt_pkey_index = 0;
	a->alt_timeout = 14;
	a->path_mig_state = IBV_MIG_REARM;
	*mask |= IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE;
}

int verbs_qp_rtr(struct tsess *s, struct verbs_priv *v, struct ibv_qp *qp,
		 uint32_t dest, bool responds, const char *what, char *err,
		 size_t errlen)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	verbs_make_av(s, v, v->peer.lid, v->port, &a.ah_attr);
	a.path_mtu = v->path_mtu;
	a.dest_qp_num = dest;
	a.rq_psn = v->peer.psn;
	if (responds) {
		a.max_dest_rd_atomic = (uint8_t)v->me.rd_atomic;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return verbs_modify(qp, &a, mask, what, err, errlen);
}

int verbs_qp_rts(struct tsess *s, struct verbs_priv *v, struct ibv_qp *qp,
		 char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	uint32_t init_max = (uint32_t)v->dattr.max_qp_init_rd_atom;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = v->me.psn;
	if (v->k->reads) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		/* the peer's responder depth, within what this device can
		 * issue */
		a.max_rd_atomic = (uint8_t)(v->peer.rd_atomic < init_max ?
						    v->peer.rd_atomic :
						    init_max);
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (v->k->alt_path)
		alt_path(s, v, &a, &mask);
	return verbs_modify(qp, &a, mask, "QP to RTS", err, errlen);
}

int verbs_qp_connect(struct tsess *s, struct verbs_priv *v, char *err,
		     size_t errlen)
{
	for (uint32_t i = 0; i < v->nqp; i++)
		if (verbs_qp_rtr(s, v, v->qps[i], v->peer_qpns[i],
				 v->k->responds, "QP to RTR", err, errlen) ||
		    verbs_qp_rts(s, v, v->qps[i], err, errlen))
			return -1;
	return 0;
}

static enum verbs_gid_type gid_type_of(enum ibv_gid_type t)
{
	return t == IBV_GID_TYPE_ROCE_V2 ? VG_ROCE_V2 :
	       t == IBV_GID_TYPE_ROCE_V1 ? VG_ROCE_V1 :
					   VG_IB;
}

int verbs_addr_choose(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	struct ibv_gid_entry e;
	struct verbs_gid_cand c[256];
	int n = 0, pick, len = v->pattr.gid_tbl_len;
	int forced = s->p.gid_index;

	if (forced >= 0 && (forced >= len || forced > 255)) {
		seterr(err, errlen,
			  "GID index %d does not exist on %s:%u (the table has %d entries)",
			  forced, v->info.device, v->port, len);
		return -1;
	}
	for (int i = 0; i < len && n < 256; i++) {
		if (forced >= 0 && i != forced)
			continue;
		memset(&e, 0, sizeof(e));
		if (ibv_query_gid_ex(v->ctx, v->port, (uint32_t)i, &e, 0))
			continue; /* an empty entry (ENODATA) */
		memcpy(c[n].gid, e.gid.raw, 16);
		c[n].index = (uint32_t)i;
		c[n].type = gid_type_of(e.gid_type);
		n++;
	}
	if (!v->info.roce) {
		/* InfiniBand: LID addressing exactly as 0.4.11, no GRH; the
		 * GID is only shown. */
		if (n) {
			memcpy(v->info.gid, c[0].gid, 16);
			v->info.gid_type = VG_IB;
		}
		v->info.gid_index = -1;
		return 0;
	}
	if (forced >= 0) {
		pick = n == 1 && c[0].type != VG_IB ? 0 : -1;
		for (int i = 0; pick >= 0 && i < 16 && !c[0].gid[i]; i++)
			if (i == 15)
				pick = -1; /* all zero */
		if (pick < 0) {
			seterr(err, errlen,
				  "GID index %d of %s:%u is empty or not a RoCE GID",
				  forced, v->info.device, v->port);
			return -1;
		}
	} else {
		pick = verbs_gid_pick(c, n, &s->ch->local);
		if (pick < 0) {
			seterr(err, errlen,
				  "no usable RoCE GID on %s:%u (is an IP address configured on its network interface?)",
				  v->info.device, v->port);
			return -1;
		}
	}
	verbs_gid_offer(c, n, &s->ch->local, &c[pick], forced >= 0, &v->gids);
	memcpy(v->gid.raw, c[pick].gid, 16);
	memcpy(v->info.gid, c[pick].gid, 16);
	v->info.gid_index = (int)c[pick].index;
	v->info.gid_type = c[pick].type;
	return 0;
}
