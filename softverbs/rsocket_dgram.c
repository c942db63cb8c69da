// SPDX-License-Identifier: MIT
/*
 * softverbs' rsockets: datagram rsockets (SOCK_DGRAM).
 *
 * A datagram rsocket is a UD QP.  Its port is reserved in rdma_cm's UDP
 * port space (its rdma_cm_id, RDMA_PS_UDP, bound with rdma_bind_addr), and
 * peers find its QP by a name it binds for its life,
 *
 *   "softverbs-cm/<fabric>/ds/<port>/<LID hex>/<QPN>/<GID 0 hex>",
 *
 * looked up in /proc/net/unix and cached per destination for a second.
 * Each datagram is one UD SEND: a header with the sender's address (what
 * rrecvfrom reports) and the payload, at most the path MTU less the
 * header (EMSGSIZE beyond).  As with UDP nothing is acknowledged: a
 * datagram to a port nobody has bound, or one that finds all RS_DS_RECVS
 * receive buffers full, is lost.  A socket that sends or connects before
 * rbind is bound to an ephemeral port of the wildcard address.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rs_internal.h"

enum {
	RS_DS_RECVS = 128,
	RS_DS_SENDS = 32,
	RS_DS_DESTS = 16,
	RS_DS_GRH = 40,
	RS_DS_TTL_MS = 1000,		/* a destination's lookup is kept */
};

#define RS_DS_SEND_ID (1ull << 32)	/* | slot: send wr_ids */

/* what precedes the payload of every datagram */
struct ds_hdr {
	uint16_t family;		/* AF_INET, AF_INET6 */
	uint16_t port;			/* network order */
	uint8_t addr[16];
} __attribute__((packed));

struct ds_dest {
	struct sockaddr_storage addr;
	struct ibv_ah *ah;		/* NULL: nobody has the port */
	uint32_t qpn;
	uint64_t at;			/* ms, CLOCK_MONOTONIC, of the lookup */
};

struct rs_ds {
	struct ibv_qp *qp;
	uint32_t mtu;			/* bytes */
	uint32_t slot;			/* bytes per receive buffer */
	uint8_t *rbuf, *sbuf;
	struct ibv_mr *rmr, *smr;
	uint32_t ready[RS_DS_RECVS], ready_len[RS_DS_RECVS];
	uint32_t rhead, rcount;
	uint32_t shead, sinflight;
	struct ds_dest dests[RS_DS_DESTS];
	int ndests;
	int name_fd;
	bool roce;
	bool connected;
	struct sockaddr_storage peer;
};

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int post_recv(struct rsock *rs, uint32_t i)
{
	struct rs_ds *d = rs->ds;
	struct ibv_sge sge = {
		.addr = (uintptr_t)(d->rbuf + (size_t)i * d->slot),
		.length = d->slot,
		.lkey = d->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(d->qp, &wr, &bad) ? -1 : 0;
}

static int qp_up(struct rs_ds *d)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = RDMA_UDP_QKEY;
	if (ibv_modify_qp(d->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					     IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(d->qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(d->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

static void gid_hex(const union ibv_gid *g, char out[33])
{
	int i;

	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", g->raw[i]);
}

/* bind the name peers find the QP by; 0 or -1 with errno */
static int publish(struct rsock *rs, const struct ibv_port_attr *pa)
{
	struct rs_ds *d = rs->ds;
	uint16_t port = cm_addr_port(rdma_get_local_addr(rs->id));
	union ibv_gid g;
	struct sockaddr_un a;
	socklen_t len;
	char hex[33];
	int n;

	if (ibv_query_gid(rs->id->verbs ? rs->id->verbs : cm.devs[0], 1, 0, &g))
		memset(&g, 0, sizeof(g));
	gid_hex(&g, hex);
	n = snprintf(NULL, 0, "softverbs-cm/%s/ds/%u/%x/%u/%s", cm.fabric,
		     port, pa->lid, d->qp->qp_num, hex);
	if (n < 0 || (size_t)n > sizeof(a.sun_path) - 2)
		return cm_fail(ENAMETOOLONG);
	sv_abstract_addr(&a, &len, "softverbs-cm/%s/ds/%u/%x/%u/%s", cm.fabric,
			 port, pa->lid, d->qp->qp_num, hex);
	d->name_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (d->name_fd < 0)
		return -1;
	return bind(d->name_fd, (struct sockaddr *)&a, len);
}

/* the QP, CQ, buffers and name of a bound datagram rsocket */
static int ds_setup(struct rsock *rs)
{
	struct ibv_context *ctx = rs->id->verbs ? rs->id->verbs : cm.devs[0];
	struct ibv_qp_init_attr qa;
	struct ibv_port_attr pa;
	struct rs_ds *d;
	uint32_t i;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -1;
	d->name_fd = -1;
	rs->ds = d;
	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	d->roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	d->mtu = 128u << pa.active_mtu;
	d->slot = RS_DS_GRH + d->mtu;
	rs->pd = ibv_alloc_pd(ctx);
	rs->cc = rs->pd ? ibv_create_comp_channel(ctx) : NULL;
	/* rs_wait and rpoll read its events until none is left */
	if (rs->cc)
		fcntl(rs->cc->fd, F_SETFL, fcntl(rs->cc->fd, F_GETFL) | O_NONBLOCK);
	rs->cq = rs->cc ? ibv_create_cq(ctx, RS_DS_RECVS + RS_DS_SENDS, rs,
					rs->cc, 0) :
			  NULL;
	d->rbuf = calloc(RS_DS_RECVS, d->slot);
	d->sbuf = calloc(RS_DS_SENDS, d->mtu);
	if (!rs->cq || !d->rbuf || !d->sbuf)
		return -1;
	d->rmr = ibv_reg_mr(rs->pd, d->rbuf, (size_t)RS_DS_RECVS * d->slot,
			    IBV_ACCESS_LOCAL_WRITE);
	d->smr = ibv_reg_mr(rs->pd, d->sbuf, (size_t)RS_DS_SENDS * d->mtu, 0);
	if (!d->rmr || !d->smr)
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = rs->cq;
	qa.qp_type = IBV_QPT_UD;
	qa.cap.max_send_wr = RS_DS_SENDS;
	qa.cap.max_recv_wr = RS_DS_RECVS;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	d->qp = ibv_create_qp(rs->pd, &qa);
	if (!d->qp || qp_up(d))
		return -1;
	for (i = 0; i < RS_DS_RECVS; i++) {
		if (post_recv(rs, i))
			return -1;
	}
	return publish(rs, &pa);
}

void rs_ds_teardown(struct rsock *rs)
{
	struct rs_ds *d = rs->ds;
	int i;

	if (!d)
		return;
	if (d->name_fd >= 0)
		close(d->name_fd);
	for (i = 0; i < d->ndests; i++) {
		if (d->dests[i].ah)
			ibv_destroy_ah(d->dests[i].ah);
	}
	if (d->qp)
		ibv_destroy_qp(d->qp);
	if (d->rmr)
		ibv_dereg_mr(d->rmr);
	if (d->smr)
		ibv_dereg_mr(d->smr);
	free(d->rbuf);
	free(d->sbuf);
	free(d);
	rs->ds = NULL;
}

int rs_ds_bind(struct rsock *rs, const struct sockaddr *addr)
{
	int e;

	if (rs->ds || rs->state != RS_INIT)
		return cm_fail(EINVAL);
	if (rdma_bind_addr(rs->id, (struct sockaddr *)addr))
		return -1;
	rs->state = RS_BOUND;
	if (!ds_setup(rs))
		return 0;
	e = errno ? errno : ENOMEM;
	rs_ds_teardown(rs);
	return cm_fail(e);
}

/* bind to an ephemeral port of the wildcard address, if not bound yet */
static int autobind(struct rsock *rs)
{
	struct sockaddr_storage ss;

	if (rs->ds)
		return 0;
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)rs->domain;
	return rs_ds_bind(rs, (struct sockaddr *)&ss);
}

int rs_ds_connect(struct rsock *rs, const struct sockaddr *addr)
{
	socklen_t n = cm_addrlen(addr);

	if (!n)
		return cm_fail(EAFNOSUPPORT);
	if (autobind(rs))
		return -1;
	memset(&rs->ds->peer, 0, sizeof(rs->ds->peer));
	memcpy(&rs->ds->peer, addr, n);
	rs->ds->connected = true;
	return 0;
}

int rs_ds_peer(struct rsock *rs, struct sockaddr *addr, socklen_t *len)
{
	socklen_t n;

	if (!rs->ds || !rs->ds->connected)
		return cm_fail(ENOTCONN);
	n = cm_addrlen((struct sockaddr *)&rs->ds->peer);
	if (!addr || !len)
		return cm_fail(EFAULT);
	memcpy(addr, &rs->ds->peer, *len < n ? *len : n);
	*len = n;
	return 0;
}

int rs_ds_progress(struct rsock *rs)
{
	struct rs_ds *d = rs->ds;
	struct ibv_wc wc[16];
	int n, i, done = 0;

	if (!d)
		return 0;
	while ((n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		done += n;
		for (i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;

			if (id & RS_DS_SEND_ID) {
				d->shead = (d->shead + 1) % RS_DS_SENDS;
				d->sinflight--;
			} else if (wc[i].status == IBV_WC_SUCCESS &&
				   wc[i].byte_len >= RS_DS_GRH +
							    sizeof(struct ds_hdr)) {
				uint32_t t = (d->rhead + d->rcount) %
					     RS_DS_RECVS;

				d->ready[t] = (uint32_t)id;
				d->ready_len[t] = wc[i].byte_len - RS_DS_GRH -
						  (uint32_t)sizeof(struct ds_hdr);
				d->rcount++;
			} else if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
				post_recv(rs, (uint32_t)id);	/* runt */
			}
		}
	}
	return done;
}

short rs_ds_revents(struct rsock *rs, short events)
{
	short r = POLLOUT;

	if (rs->ds) {
		r = rs->ds->rcount ? POLLIN : 0;
		if (rs->ds->sinflight < RS_DS_SENDS)
			r |= POLLOUT;
	}
	return r & events;
}

/* the port's QP in /proc/net/unix into dst (ah NULL when nobody has it) */
static void lookup(struct rsock *rs, struct ds_dest *dst)
{
	char want[96], hex[33], *line = NULL;
	unsigned int lid = 0, qpn = 0;
	struct ibv_ah_attr a;
	size_t cap = 0;
	bool found = false;
	FILE *f;
	int wl;

	dst->ah = NULL;
	dst->at = now_ms();
	wl = snprintf(want, sizeof(want), "@softverbs-cm/%s/ds/%u/", cm.fabric,
		      cm_addr_port((struct sockaddr *)&dst->addr));
	f = (wl > 0 && (size_t)wl < sizeof(want)) ?
		    fopen("/proc/net/unix", "re") : NULL;
	while (f && !found && getline(&line, &cap, f) > 0) {
		char *p = strstr(line, want);

		found = p && sscanf(p + wl, "%x/%u/%32[0-9a-f]", &lid, &qpn,
				    hex) == 3 && strlen(hex) == 32;
	}
	free(line);
	if (f)
		fclose(f);
	if (!found) {
		CM_DBG("rsocket %d: nobody has port %u", rs->fd,
		       cm_addr_port((struct sockaddr *)&dst->addr));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	if (rs->ds->roce) {
		int i;

		a.is_global = 1;
		a.grh.hop_limit = 64;
		for (i = 0; i < 16; i++) {
			unsigned int b;

			sscanf(hex + 2 * i, "%2x", &b);
			a.grh.dgid.raw[i] = (uint8_t)b;
		}
	} else {
		a.dlid = (uint16_t)lid;
	}
	dst->ah = ibv_create_ah(rs->pd, &a);
	dst->qpn = qpn;
	CM_DBG("rsocket %d: port %u is QP %u (LID 0x%x)%s", rs->fd,
	       cm_addr_port((struct sockaddr *)&dst->addr), qpn, lid,
	       dst->ah ? "" : ": no address handle");
}

/* the cached (or new) destination for addr */
static struct ds_dest *dest_of(struct rsock *rs, const struct sockaddr *addr)
{
	struct rs_ds *d = rs->ds;
	struct ds_dest *e = NULL;
	uint64_t oldest = UINT64_MAX;
	int i;

	for (i = 0; i < d->ndests; i++) {
		if (cm_addr_equal((struct sockaddr *)&d->dests[i].addr, addr)) {
			e = &d->dests[i];
			if (now_ms() - e->at < RS_DS_TTL_MS)
				return e;
			break;
		}
	}
	if (!e && d->ndests < RS_DS_DESTS) {
		e = &d->dests[d->ndests++];
	} else if (!e) {
		for (i = 0; i < d->ndests; i++) {
			if (d->dests[i].at < oldest) {
				oldest = d->dests[i].at;
				e = &d->dests[i];
			}
		}
	}
	if (e->ah)
		ibv_destroy_ah(e->ah);
	memset(&e->addr, 0, sizeof(e->addr));
	memcpy(&e->addr, addr, cm_addrlen(addr));
	lookup(rs, e);
	return e;
}

static bool would_block(const struct rsock *rs, int flags)
{
	return rs->nonblock || (flags & MSG_DONTWAIT);
}

ssize_t rs_ds_send(struct rsock *rs, const struct iovec *iov, int iovcnt,
		   int flags, const struct sockaddr *to)
{
	const struct sockaddr *src;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ds_dest *e;
	struct ds_hdr *h;
	struct rs_ds *d;
	size_t len = 0, off;
	uint32_t slot;
	int i;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (autobind(rs))
		return -1;
	d = rs->ds;
	if (!to) {
		if (!d->connected)
			return cm_fail(EDESTADDRREQ);
		to = (struct sockaddr *)&d->peer;
	}
	if (!cm_addrlen(to))
		return cm_fail(EAFNOSUPPORT);
	if (len > d->mtu - sizeof(*h))
		return cm_fail(EMSGSIZE);
	for (;;) {
		rs_ds_progress(rs);
		if (d->sinflight < RS_DS_SENDS)
			break;
		if (would_block(rs, flags))
			return cm_fail(EAGAIN);
		rs_wait(rs, -1);
	}
	e = dest_of(rs, to);
	if (!e->ah)
		return (ssize_t)len;	/* nobody has the port: lost, as UDP */
	slot = (d->shead + d->sinflight) % RS_DS_SENDS;
	h = (struct ds_hdr *)(d->sbuf + (size_t)slot * d->mtu);
	memset(h, 0, sizeof(*h));
	/* the source: our address, or for a wildcard bind the address the
	 * datagram goes to (every emulated host is this machine) */
	src = rdma_get_local_addr(rs->id);
	if (cm_addr_any(src) || src->sa_family != to->sa_family)
		src = to;
	h->family = src->sa_family;
	h->port = htons(cm_addr_port(rdma_get_local_addr(rs->id)));
	if (src->sa_family == AF_INET)
		memcpy(h->addr, &((const struct sockaddr_in *)src)->sin_addr, 4);
	else
		memcpy(h->addr, &((const struct sockaddr_in6 *)src)->sin6_addr,
		       16);
	for (i = 0, off = sizeof(*h); i < iovcnt; i++) {
		memcpy((uint8_t *)h + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	sge.addr = (uintptr_t)h;
	sge.length = (uint32_t)off;
	sge.lkey = d->smr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RS_DS_SEND_ID | slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = e->ah;
	wr.wr.ud.remote_qpn = e->qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	if (ibv_post_send(d->qp, &wr, &bad))
		return cm_fail(EIO);
	d->sinflight++;
	return (ssize_t)len;
}

static void src_of(const struct ds_hdr *h, struct sockaddr *sa, socklen_t *len)
{
	struct sockaddr_storage ss;
	socklen_t n;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = h->family;
	if (h->family == AF_INET)
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, h->addr, 4);
	else
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, h->addr, 16);
	n = cm_addrlen((struct sockaddr *)&ss);
	if (n)
		cm_addr_set_port((struct sockaddr *)&ss, ntohs(h->port));
	memcpy(sa, &ss, *len < n ? *len : n);
	*len = n;
}

ssize_t rs_ds_recv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		   int flags, struct sockaddr *from, socklen_t *fromlen)
{
	struct rs_ds *d;
	const uint8_t *p;
	uint32_t idx, len, off = 0;
	int i;

	if (autobind(rs))
		return -1;
	d = rs->ds;
	for (;;) {
		rs_ds_progress(rs);
		if (d->rcount)
			break;
		if (would_block(rs, flags))
			return cm_fail(EAGAIN);
		rs_wait(rs, -1);
	}
	idx = d->ready[d->rhead];
	len = d->ready_len[d->rhead];
	p = d->rbuf + (size_t)idx * d->slot + RS_DS_GRH;
	if (from && fromlen)
		src_of((const struct ds_hdr *)p, from, fromlen);
	p += sizeof(struct ds_hdr);
	/* a datagram is read whole: what does not fit is dropped */
	for (i = 0; i < iovcnt && off < len; i++) {
		uint32_t n = len - off;

		if (n > iov[i].iov_len)
			n = (uint32_t)iov[i].iov_len;
		memcpy(iov[i].iov_base, p + off, n);
		off += n;
	}
	if (!(flags & MSG_PEEK)) {
		d->rhead = (d->rhead + 1) % RS_DS_RECVS;
		d->rcount--;
		post_recv(rs, idx);
	}
	return (ssize_t)off;
}
