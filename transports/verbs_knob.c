// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verbs knobs of 0.5 peers (queue depths, inline threshold, CQ
 * moderation, post list, SRQ, RoCE traffic class, P_Key index) checked
 * against the device, the data-path state they need, and NUMA placement
 * of the registered buffer.  Unset knobs (0, or -1) keep 0.4.11's
 * behaviour exactly.
 *
 * NUMA: the device's node comes from sysfs, <ibdev_path>/device/numa_node
 * (rdma-core sets ibdev_path to /sys/class/infiniband/<dev>; softverbs
 * points it at a directory of the same shape when SOFTVERBS_NUMA_NODE is
 * set, so that this very path is what the tests run).  -1 there means
 * the platform does not say: nothing is placed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/numa.h"
#include "verbs_int.h"

/* Work requests on each queue of this side (wr_counts in verbs.c). */
static uint32_t send_depth(const struct tsess *s)
{
	return tsess_depth(s, false);
}

int verbs_knobs_check(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	const struct tparams *p = &s->p;
	const char *dev = v->info.device;
	uint32_t max_wr = (uint32_t)v->dattr.max_qp_wr;

	if (p->sq_depth > max_wr) {
		seterr(err, errlen,
			  "send queue depth %u is above the limit of %s (max_qp_wr %u)",
			  p->sq_depth, dev, max_wr);
		return -1;
	}
	if (p->use_srq && !v->k->srq_own && v->dattr.max_srq <= 0) {
		seterr(err, errlen,
			  "%s has no shared receive queues (max_srq 0); leave out --use_srq",
			  dev);
		return -1;
	}
	if (p->use_srq && p->rq_depth > (uint32_t)v->dattr.max_srq_wr) {
		seterr(err, errlen,
			  "receive queue depth %u is above the SRQ limit of %s (max_srq_wr %d)",
			  p->rq_depth, dev, v->dattr.max_srq_wr);
		return -1;
	}
	if (!p->use_srq && p->rq_depth > max_wr) {
		seterr(err, errlen,
			  "receive queue depth %u is above the limit of %s (max_qp_wr %u)",
			  p->rq_depth, dev, max_wr);
		return -1;
	}
	if (p->cq_mod > send_depth(s)) {
		seterr(err, errlen,
			  "CQ moderation %u is larger than the send queue depth %u: no send would ever be signalled",
			  p->cq_mod, send_depth(s));
		return -1;
	}
	if (p->post_list > send_depth(s)) {
		seterr(err, errlen,
			  "post list %u is larger than the send queue depth %u",
			  p->post_list, send_depth(s));
		return -1;
	}
	if (p->tclass && !v->info.roce) {
		seterr(err, errlen,
			  "traffic class %u needs a RoCE port (a GRH); %s:%u is InfiniBand, where qperf addresses by LID without one",
			  p->tclass, dev, v->port);
		return -1;
	}
	if (p->pkey_index) {
		__be16 pkey = 0;

		if (p->pkey_index >= (uint32_t)v->pattr.pkey_tbl_len) {
			seterr(err, errlen,
				  "P_Key index %u does not exist on %s:%u (the table has %d entr%s)",
				  p->pkey_index, dev, v->port,
				  v->pattr.pkey_tbl_len,
				  v->pattr.pkey_tbl_len == 1 ? "y" : "ies");
			return -1;
		}
		if (ibv_query_pkey(v->ctx, v->port, (int)p->pkey_index,
				   &pkey) ||
		    !(be16toh(pkey) & 0x7fff)) {
			seterr(err, errlen,
				  "P_Key index %u of %s:%u is empty", p->pkey_index,
				  dev, v->port);
			return -1;
		}
	}
	if (p->numa_set &&
	    qnuma_node_check((int)p->numa_node, "--numa_node", err, errlen))
		return -1;
	return 0;
}

int verbs_knobs_alloc(struct tsess *s, struct verbs_priv *v, char *err,
		      size_t errlen)
{
	v->plist = s->p.post_list ? s->p.post_list : VERBS_BATCH;
	v->swr = calloc(v->plist, sizeof(*v->swr));
	v->ssg = calloc(v->plist, sizeof(*v->ssg));
	v->mod = verbs_mod_of(s);
	if (!v->swr || !v->ssg) {
		seterr(err, errlen, "out of memory for %u work requests",
			  v->plist);
		return -1;
	}
	return 0;
}

void verbs_knobs_free(struct verbs_priv *v)
{
	free(v->swr);
	free(v->ssg);
	v->swr = NULL;
	v->ssg = NULL;
}

/* Moderation only where a completion is interchangeable with the next:
 * sends and RDMA of the bandwidth loops, never atomics. */
uint32_t verbs_mod_of(const struct tsess *s)
{
	return s->p.cq_mod > 1 && s->t && s->t->op != OP_FADD &&
			       s->t->op != OP_CSWAP ?
		       s->p.cq_mod :
		       0;
}

bool verbs_mod_signal(struct verbs_priv *v, uint32_t qi,
		      struct ibv_send_wr *w, bool last)
{
	struct verbs_qpc *q = &v->qc[qi];

	if (!v->mod)
		return true;
	q->run++;
	if (q->run < v->mod && !last && q->run < VERBS_WR_RUN_MAX) {
		if (v->nqp > 1)
			v->run_qp = qi + 1; /* its turn lasts until signalled */
		return false;
	}
	w->wr_id |= (uint64_t)q->run << VERBS_WR_RUN_SHIFT;
	q->run = 0;
	v->run_qp = 0;
	return true;
}

uint32_t verbs_mod_retire(struct verbs_priv *v, const struct ibv_wc *wc)
{
	uint32_t run = (uint32_t)(wc->wr_id >> VERBS_WR_RUN_SHIFT) &
		       VERBS_WR_RUN_MAX;
	struct verbs_qpc *q = &v->qc[verbs_qp_of(v, wc)];

	if (!v->mod || !run)
		return 1;
	/* verbs_qp_done() took the signalled one */
	q->out = q->out > run - 1 ? q->out - (run - 1) : 0;
	if (wc->opcode == IBV_WC_RDMA_READ)
		q->msgs += run - 1;
	return run;
}

/* The device's node from sysfs: >= 0, or -1 if it does not say. */
static int device_node(const struct verbs_priv *v)
{
	char path[IBV_SYSFS_PATH_MAX + 32], buf[32];
	FILE *f;
	long n = -1;

	if (!v->ctx || !v->ctx->device)
		return -1;
	snprintf(path, sizeof(path), "%s/device/numa_node",
		 v->ctx->device->ibdev_path);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		char *end;

		errno = 0;
		n = strtol(buf, &end, 10);
		if (errno || end == buf || n < -1 || n > 1 << 20)
			n = -1;
	}
	fclose(f);
	return (int)n;
}

void verbs_numa_note(struct tsess *s, bool peer, int node, const char *why)
{
	struct tnote *t;

	if (s->nnotes >= TNOTE_MAX)
		return;
	t = &s->notes[s->nnotes++];
	snprintf(t->name, sizeof(t->name), "%s_numa_node",
		 peer ? "rem" : "loc");
	snprintf(t->value, sizeof(t->value), why ? "%d (%s)" : "%d", node,
		 why ? why : "");
	t->extra = true;
}

int verbs_numa_place(struct tsess *s, struct verbs_priv *v, void *mem,
		     size_t len, char *err, size_t errlen)
{
	char what[96];
	int node;

	v->numa_node = -1;
	if (s->p.numa_set) {
		node = (int)s->p.numa_node;
		snprintf(what, sizeof(what), "--numa_node");
	} else if (s->p.affinity) {
		node = qnuma_cpu_node(s->p.affinity - 1);
		if (node < 0)
			return 0; /* no libnuma: -ca's preferred node, if any */
		snprintf(what, sizeof(what), "the node of -ca's CPU %u",
			 s->p.affinity - 1);
	} else {
		node = device_node(v);
		if (node < 0 || !qnuma_nodes_count())
			return 0; /* the platform does not say, or no libnuma */
		snprintf(what, sizeof(what), "device %s", v->info.device);
	}
	if (qnuma_node_check(node, what, err, errlen) ||
	    qnuma_bind_mem(mem, len, node, err, errlen))
		return -1;
	v->numa_node = node;
	s->numa_placed = true;
	s->numa_node = node;
	verbs_numa_note(s, false, node,
		  s->p.affinity ? "buffers; -ca pins the thread" :
				  s->p.numa_set ?
				  "buffers and thread, --numa_node" :
				  "buffers and thread, the device's node");
	return 0;
}
