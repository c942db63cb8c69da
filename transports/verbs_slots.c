// SPDX-License-Identifier: GPL-2.0-only
/*
 * Open-loop latency over verbs (TF_SLOTS; core/openloop.c): many
 * requests in flight, so each receive needs a slot of the buffer of its
 * own, read after the poll that returned it, and each send a slot that
 * no later send overwrites before the device has read it.
 *
 * The buffer holds nslots receive slots, then nslots send slots, of
 * slot_len bytes each (the message and, on UD, the GRH before it).
 * Receives take the receive slots round robin, and since a receive queue
 * completes in the order posted, a slot is posted again only after its
 * message was read.  Sends take the send slots round robin; a write with
 * immediate (rc_rdma_write_lat) lands in the peer's receive slot of the
 * same index and names it in its immediate.  nslots is the same at both
 * ends (it depends on the message size only); s->slots, the receives
 * this side keeps posted, may be smaller where the device's queues are.
 * Queues: s->slots receives, twice that many sends (a send completes
 * when acknowledged, after the peer may already have answered), a CQ for
 * both.
 */
#include <arpa/inet.h>

#include "verbs_int.h"

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

void verbs_slots_plan(struct tsess *s, struct verbs_priv *v)
{
	size_t len = (size_t)s->p.msg_size + v->k->rx_off;
	uint32_t n, qwr, cqe;

	v->nslots = 0;
	s->slots = 0;
	if (!(s->tp->flags & TF_SLOTS) || !s->p.slots)
		return;
	v->slot_len = tslot_len(len);
	v->nslots = tslots_fit(v->slot_len, s->p.slots);
	qwr = v->dattr.max_qp_wr > 0 ? (uint32_t)v->dattr.max_qp_wr : 1;
	cqe = v->dattr.max_cqe > 0 ? (uint32_t)v->dattr.max_cqe : 1;
	n = min32(v->nslots, min32(qwr / 2, cqe / 3));
	if ((s->p.use_srq || (s->tp->flags & TF_XRC)) &&
	    v->dattr.max_srq_wr > 0)
		n = min32(n, (uint32_t)v->dattr.max_srq_wr);
	s->slots = n ? n : 1;
}

size_t verbs_slots_bytes(const struct verbs_priv *v)
{
	return (size_t)v->nslots * 2 * v->slot_len;
}

static char *slot_at(const struct verbs_priv *v, uint32_t j, bool send)
{
	return (char *)v->mem + ((send ? v->nslots : 0) + j) * v->slot_len;
}

char *verbs_rx_data(struct tsess *s, const struct tcomp *c)
{
	struct verbs_priv *v = s->priv;

	if (!v->nslots)
		return s->buf + s->rx_off;
	return slot_at(v, c->slot % v->nslots, false) + s->rx_off;
}

char *verbs_tx_data(struct tsess *s)
{
	struct verbs_priv *v = s->priv;

	if (!v->nslots)
		return s->buf + s->rx_off;
	return slot_at(v, v->tx_next, true) + s->rx_off;
}

/* Where the next receive goes; its slot is in the wr_id's upper bits. */
uint64_t verbs_slot_recv(struct verbs_priv *v, uint64_t wr_id)
{
	uint32_t j = v->rx_next;

	v->rx_next = (j + 1) % v->nslots;
	return wr_id | (uint64_t)j << 8;
}

char *verbs_slot_addr(const struct verbs_priv *v, uint64_t wr_id)
{
	return slot_at(v, (uint32_t)(wr_id >> 8) % v->nslots, false);
}

uint32_t verbs_slot_send(struct verbs_priv *v, char **addr)
{
	uint32_t j = v->tx_next;

	v->tx_next = (j + 1) % v->nslots;
	*addr = slot_at(v, j, true);
	return j;
}

/* A write with immediate names the slot it wrote (a stranger's value
 * only picks which slot the loop reads: bounded). */
uint32_t verbs_slot_of(const struct verbs_priv *v, const struct ibv_wc *wc)
{
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	    (wc->wc_flags & IBV_WC_WITH_IMM))
		return ntohl(wc->imm_data) % v->nslots;
	return (uint32_t)(wc->wr_id >> 8) % v->nslots;
}
