// SPDX-License-Identifier: MIT
/*
 * softverbs' rsockets: the data path.  QP and buffer setup, completion
 * processing (the protocol of rs_internal.h), blocking waits, rrecv/rsend
 * and their variants, riomap/riowrite, rpoll/rselect.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rs_internal.h"

#define RS_WR_CTRL UINT64_MAX	/* wr_id of control sends */
#define RS_WR_SLOT (1ull << 32)	/* | slot: sends from a slot; receives: slot */

static uint32_t clamp_slot(int bytes)
{
	uint32_t v = bytes > 0 ? (uint32_t)bytes / RS_SLOTS : RS_SLOT_DEF;

	if (v < RS_SLOT_MIN)
		v = RS_SLOT_MIN;
	if (v > RS_SLOT_MAX)
		v = RS_SLOT_MAX;
	return v;
}

static int post_recv(struct rsock *rs, uint32_t idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(rs->rbuf + (size_t)idx * rs->slot_size),
		.length = rs->slot_size,
		.lkey = rs->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = idx, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(rs->id->qp, &wr, &bad) ? -1 : 0;
}

int rs_setup_qp(struct rsock *rs)
{
	struct ibv_context *ctx = rs->id->verbs;
	struct ibv_qp_init_attr a;
	uint32_t i, nrecv = RS_SLOTS + RS_CTRL;
	size_t rlen, slen;

	rs->slot_size = clamp_slot(rs->rcvbuf);
	rs->sslot = clamp_slot(rs->sndbuf);
	rs->pd = ibv_alloc_pd(ctx);
	if (!rs->pd)
		goto err;
	rs->cc = ibv_create_comp_channel(ctx);
	if (!rs->cc)
		goto err;
	fcntl(rs->cc->fd, F_SETFL, fcntl(rs->cc->fd, F_GETFL) | O_NONBLOCK);
	rs->cq = ibv_create_cq(ctx, (int)(2 * nrecv + RS_SLOTS + 16), rs,
			       rs->cc, 0);
	if (!rs->cq)
		goto err;
	rlen = (size_t)nrecv * rs->slot_size;
	slen = (size_t)RS_SLOTS * rs->sslot;
	rs->rbuf = mmap(NULL, rlen, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rs->sbuf = mmap(NULL, slen, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rs->rbuf == MAP_FAILED || rs->sbuf == MAP_FAILED) {
		if (rs->rbuf != MAP_FAILED)
			munmap(rs->rbuf, rlen);
		if (rs->sbuf != MAP_FAILED)
			munmap(rs->sbuf, slen);
		rs->rbuf = rs->sbuf = NULL;
		errno = ENOMEM;
		goto err;
	}
	rs->rmr = ibv_reg_mr(rs->pd, rs->rbuf, rlen, IBV_ACCESS_LOCAL_WRITE);
	rs->smr = ibv_reg_mr(rs->pd, rs->sbuf, slen, 0);
	if (!rs->rmr || !rs->smr)
		goto err;
	memset(&a, 0, sizeof(a));
	a.send_cq = rs->cq;
	a.recv_cq = rs->cq;
	a.qp_type = IBV_QPT_RC;
	a.sq_sig_all = 1;
	a.cap.max_send_wr = RS_SLOTS + RS_CTRL + 8;
	a.cap.max_recv_wr = nrecv;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	if (rdma_create_qp(rs->id, rs->pd, &a))
		goto err;
	for (i = 0; i < nrecv; i++)
		if (post_recv(rs, i))
			goto err;
	rs->credits = RS_SLOTS;
	return 0;
err:
	if (!errno)
		errno = ENOMEM;
	return -1;
}

void rs_teardown(struct rsock *rs)
{
	size_t rlen = (size_t)(RS_SLOTS + RS_CTRL) * rs->slot_size;
	int i;

	rs_ds_teardown(rs);
	if (rs->id && rs->id->qp)
		rdma_destroy_qp(rs->id);
	for (i = 0; i < rs->nlmap; i++)
		ibv_dereg_mr(rs->lmap[i].mr);
	rs->nlmap = 0;
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rbuf)
		munmap(rs->rbuf, rlen);
	if (rs->sbuf)
		munmap(rs->sbuf, (size_t)RS_SLOTS * rs->sslot);
	if (rs->cq) {
		if (rs->cq_events)
			ibv_ack_cq_events(rs->cq, rs->cq_events);
		ibv_destroy_cq(rs->cq);
	}
	if (rs->cc)
		ibv_destroy_comp_channel(rs->cc);
	if (rs->pd)
		ibv_dealloc_pd(rs->pd);
	rs->rmr = rs->smr = NULL;
	rs->rbuf = rs->sbuf = NULL;
	rs->cq = NULL;
	rs->cc = NULL;
	rs->pd = NULL;
}

int rs_ctrl(struct rsock *rs, enum rs_msg type, uint32_t credits)
{
	struct ibv_send_wr wr, *bad;

	if (!rs->id || !rs->id->qp)
		return 0;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RS_WR_CTRL;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(RS_IMM(type, credits));
	if (ibv_post_send(rs->id->qp, &wr, &bad))
		return -1;
	rs->cinflight++;
	return 0;
}

/* data or a riowrite from a send slot; the caller checked slot and credit */
static int post_slot(struct rsock *rs, const void *buf, uint32_t len,
		     enum ibv_wr_opcode op, uint32_t imm, uint64_t raddr,
		     uint32_t rkey)
{
	uint32_t idx = (rs->shead + rs->sinflight) % RS_SLOTS;
	uint8_t *slot = rs->sbuf + (size_t)idx * rs->sslot;
	struct ibv_sge sge = { (uintptr_t)slot, len, rs->smr->lkey };
	struct ibv_send_wr wr, *bad;

	if (buf != slot)
		memcpy(slot, buf, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RS_WR_SLOT | idx;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = op;
	wr.imm_data = htonl(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(rs->id->qp, &wr, &bad))
		return cm_fail(ECONNRESET);
	rs->sinflight++;
	return 0;
}

static void broken(struct rsock *rs, int err)
{
	if (!rs->err && !rs->fin_rcvd && !rs->disconnected)
		rs->err = err;
	rs->disconnected = true;
}

static void on_recv(struct rsock *rs, const struct ibv_wc *wc)
{
	uint32_t idx = (uint32_t)wc->wr_id, imm = ntohl(wc->imm_data);
	struct rs_iomap_msg m;

	switch (RS_IMM_TYPE(imm)) {
	case RS_DATA:
		rs->credits += RS_IMM_CREDITS(imm);
		if (!wc->byte_len) {
			post_recv(rs, idx);
			rs->owed++;
			return;
		}
		rs->ready[(rs->rhead + rs->rcount) % (RS_SLOTS + RS_CTRL)] = idx;
		rs->ready_len[(rs->rhead + rs->rcount) % (RS_SLOTS + RS_CTRL)] =
			wc->byte_len;
		rs->rcount++;
		return;
	case RS_CREDIT:
		rs->credits += RS_IMM_CREDITS(imm);
		break;
	case RS_FIN:
		rs->fin_rcvd = true;
		break;
	case RS_RST:
		rs->rst_rcvd = true;
		rs->err = ECONNRESET;
		break;
	case RS_IOMAP:
		memcpy(&m, rs->rbuf + (size_t)idx * rs->slot_size, sizeof(m));
		if (rs->nrmap < RS_MAX_IOMAPS) {
			struct rs_iomap *r = &rs->rmap[rs->nrmap++];

			r->offset = m.offset;
			r->addr = m.addr;
			r->len = m.len;
			r->rkey = m.rkey;
		}
		rs->owed++;
		break;
	}
	post_recv(rs, idx);
}

int rs_progress(struct rsock *rs)
{
	struct ibv_wc wc[16];
	int n, i, done;

	if (rs->dgram)
		return rs_ds_progress(rs);
	done = rs_cm_events(rs);
	while (rs->cq && rs->id && rs->id->qp &&
	       (n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		done += n;
		for (i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;

			if (wc[i].status != IBV_WC_SUCCESS)
				broken(rs, ECONNRESET);	/* a no-op after FIN */
			if (id == RS_WR_CTRL) {
				rs->cinflight--;
			} else if (id & RS_WR_SLOT) {
				rs->shead = (rs->shead + 1) % RS_SLOTS;
				rs->sinflight--;
			} else if (wc[i].status == IBV_WC_SUCCESS) {
				on_recv(rs, &wc[i]);
			}
		}
	}
	if (rs->owed >= RS_SLOTS / 2 && !rs->disconnected) {
		if (!rs_ctrl(rs, RS_CREDIT, rs->owed))
			rs->owed = 0;
	}
	return done;
}

static int ms_left(const struct timespec *end)
{
	struct timespec now;
	long ms;

	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(end->tv_sec - now.tv_sec) * 1000000000LL +
	     (end->tv_nsec - now.tv_nsec);
	/* rounded up: a wait of 1 ms must not end at once */
	ms = ns <= 0 ? 0 : (long)((ns + 999999) / 1000000);
	return (int)ms;
}

/* Read the completion events of rs (its channel is non-blocking); how
 * many.  Called before sleeping too: ibv_get_cq_event tells softverbs'
 * verbs that the application is about to sleep, so that their progress
 * thread, which naps while the application polls, takes over at once. */
static int cq_event(struct rsock *rs)
{
	struct ibv_cq *cq;
	void *ctx;
	int n = 0;

	while (rs->cc && !ibv_get_cq_event(rs->cc, &cq, &ctx)) {
		n++;
		if (++rs->cq_events >= 16) {
			ibv_ack_cq_events(rs->cq, rs->cq_events);
			rs->cq_events = 0;
		}
	}
	return n;
}

int rs_wait(struct rsock *rs, int ms)
{
	struct pollfd p[2];
	int n = 0;

	if (rs->cq) {
		ibv_req_notify_cq(rs->cq, 0);
		if (rs_progress(rs) > 0 || cq_event(rs) > 0)
			return 0;	/* news came while arming */
		p[n].fd = rs->cc->fd;
		p[n++].events = POLLIN;
	} else if (rs_progress(rs) > 0) {
		return 0;
	}
	p[n].fd = rs->ch->fd;
	p[n++].events = POLLIN;
	n = poll(p, (nfds_t)n, ms);
	if (n < 0)
		return -1;
	if (n == 0)
		return cm_fail(EAGAIN);
	if (rs->cq && (p[0].revents & POLLIN))
		cq_event(rs);
	return 0;
}

/* *end = CLOCK_MONOTONIC now + ms */
static void rs_deadline(struct timespec *end, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, end);
	end->tv_sec += ms / 1000;
	end->tv_nsec += (ms % 1000) * 1000000L;
	if (end->tv_nsec >= 1000000000L) {
		end->tv_sec++;
		end->tv_nsec -= 1000000000L;
	}
}

void rs_drain(struct rsock *rs, int ms)
{
	struct timespec end;

	rs_deadline(&end, ms);
	while ((rs->sinflight || rs->cinflight) && !rs->disconnected &&
	       ms_left(&end) > 0)
		rs_wait(rs, ms_left(&end));
}

short rs_revents(struct rsock *rs, short events)
{
	short r = 0;

	if (rs->dgram)
		return rs_ds_revents(rs, events);
	switch (rs->state) {
	case RS_LISTENING:
		if (rs->nreqs)
			r |= POLLIN;
		break;
	case RS_RESOLVING:
	case RS_CONNECTING:
		break;
	case RS_FAILED:
		r |= POLLERR | POLLHUP | POLLOUT;
		break;
	case RS_CONNECTED:
		if (rs->rcount || rs->fin_rcvd || rs->disconnected ||
		    rs->rd_shut || rs->err)
			r |= POLLIN;
		if ((rs->credits && rs->sinflight < RS_SLOTS) ||
		    rs->disconnected || rs->err)
			r |= POLLOUT;
		if (rs->disconnected || rs->rst_rcvd)
			r |= POLLHUP;
		if (rs->err)
			r |= POLLERR;
		break;
	default:
		r |= POLLOUT | POLLHUP;
		break;
	}
	return r & (events | POLLERR | POLLHUP);
}

/* ---- stream calls ------------------------------------------------------- */

/* a connect under way completes first (blocking) or gives EAGAIN */
static int rs_ready(struct rsock *rs)
{
	while (rs->state == RS_RESOLVING || rs->state == RS_CONNECTING) {
		if (rs->nonblock)
			return cm_fail(EAGAIN);
		rs_wait(rs, -1);
	}
	if (rs->state == RS_FAILED)
		return cm_fail(rs->err ? rs->err : ECONNREFUSED);
	if (rs->state != RS_CONNECTED)
		return cm_fail(ENOTCONN);
	return 0;
}

static ssize_t rs_recv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		       int flags)
{
	size_t want = 0, got = 0;
	int i, v = 0;
	size_t voff = 0;

	for (i = 0; i < iovcnt; i++)
		want += iov[i].iov_len;
	if (rs_ready(rs))
		return -1;
	for (;;) {
		uint32_t h, c, off;

		rs_progress(rs);
		h = rs->rhead;
		c = rs->rcount;
		off = rs->roff;
		while (got < want && c) {
			uint32_t idx = rs->ready[h];
			uint32_t avail = rs->ready_len[h] - off;
			size_t n = iov[v].iov_len - voff;

			if (n > avail)
				n = avail;
			memcpy((uint8_t *)iov[v].iov_base + voff,
			       rs->rbuf + (size_t)idx * rs->slot_size + off, n);
			got += n;
			voff += n;
			off += (uint32_t)n;
			if (voff == iov[v].iov_len) {
				v++;
				voff = 0;
			}
			if (off == rs->ready_len[h]) {
				if (!(flags & MSG_PEEK)) {
					post_recv(rs, idx);
					rs->owed++;
				}
				h = (h + 1) % (RS_SLOTS + RS_CTRL);
				c--;
				off = 0;
			}
		}
		if (!(flags & MSG_PEEK)) {
			rs->rhead = h;
			rs->rcount = c;
			rs->roff = off;
			if (rs->owed >= RS_SLOTS / 2 && !rs->disconnected &&
			    !rs_ctrl(rs, RS_CREDIT, rs->owed))
				rs->owed = 0;
		}
		if (got == want || (got && !(flags & MSG_WAITALL)) ||
		    (flags & MSG_PEEK && got))
			return (ssize_t)got;
		if (rs->rst_rcvd) {
			errno = ECONNRESET;
			return got ? (ssize_t)got : -1;
		}
		if (rs->fin_rcvd || rs->rd_shut || rs->disconnected) {
			if (rs->err && !got && !rs->fin_rcvd)
				return cm_fail(rs->err);
			return (ssize_t)got;	/* end of file */
		}
		if (rs->nonblock || (flags & MSG_DONTWAIT)) {
			if (got)
				return (ssize_t)got;
			return cm_fail(EAGAIN);
		}
		rs_wait(rs, -1);
	}
}

static ssize_t rs_send(struct rsock *rs, const struct iovec *iov, int iovcnt,
		       int flags)
{
	size_t want = 0, sent = 0, voff = 0;
	int i, v = 0;

	for (i = 0; i < iovcnt; i++)
		want += iov[i].iov_len;
	if (rs_ready(rs))
		return -1;
	for (;;) {
		rs_progress(rs);
		if (rs->err || rs->rst_rcvd) {
			errno = rs->err ? rs->err : ECONNRESET;
			return sent ? (ssize_t)sent : -1;
		}
		if (rs->wr_shut || rs->disconnected) {
			errno = EPIPE;
			return sent ? (ssize_t)sent : -1;
		}
		while (sent < want && rs->credits && rs->sinflight < RS_SLOTS) {
			uint32_t max = rs->sslot < rs->peer_slot ? rs->sslot :
								   rs->peer_slot;
			size_t n = 0;
			uint32_t idx = (rs->shead + rs->sinflight) % RS_SLOTS;
			uint8_t *slot = rs->sbuf + (size_t)idx * rs->sslot;

			/* gather up to one slot from the iovecs */
			while (n < max && v < iovcnt) {
				size_t k = iov[v].iov_len - voff;

				if (k > max - n)
					k = max - n;
				memcpy(slot + n, (const uint8_t *)iov[v].iov_base + voff, k);
				n += k;
				voff += k;
				if (voff == iov[v].iov_len) {
					v++;
					voff = 0;
				}
			}
			if (post_slot(rs, slot, (uint32_t)n,
				      IBV_WR_SEND_WITH_IMM,
				      RS_IMM(RS_DATA, rs->owed), 0, 0))
				return sent ? (ssize_t)sent : -1;
			rs->owed = 0;
			rs->credits--;
			sent += n;
		}
		if (sent == want)
			return (ssize_t)sent;
		if (rs->nonblock || (flags & MSG_DONTWAIT)) {
			if (sent)
				return (ssize_t)sent;
			return cm_fail(EAGAIN);
		}
		rs_wait(rs, -1);
	}
}

/* receive into (send from) iov on the rsocket fd socket */
static ssize_t rs_io(int socket, const struct iovec *iov, int iovcnt,
		     int flags, bool send)
{
	struct rsock *rs = rs_of(socket);

	if (!rs)
		return -1;
	if (rs->dgram)
		return send ? rs_ds_send(rs, iov, iovcnt, flags, NULL) :
			      rs_ds_recv(rs, iov, iovcnt, flags, NULL, NULL);
	return send ? rs_send(rs, iov, iovcnt, flags) :
		      rs_recv(rs, iov, iovcnt, flags);
}

static ssize_t rs_io_msg(int socket, struct msghdr *msg, int flags,
			 bool send)
{
	struct rsock *rs = rs_get(socket);

	if (!msg)
		return cm_fail(rs ? EINVAL : EBADF);
	if (rs && rs->dgram && msg->msg_name) {
		if (send)
			return rs_ds_send(rs, msg->msg_iov,
					  (int)msg->msg_iovlen, flags,
					  msg->msg_name);
		return rs_ds_recv(rs, msg->msg_iov, (int)msg->msg_iovlen,
				  flags, msg->msg_name, &msg->msg_namelen);
	}
	return rs_io(socket, msg->msg_iov, (int)msg->msg_iovlen, flags, send);
}

CM_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	struct iovec iov = { buf, len };

	return rs_io(socket, &iov, 1, flags, false);
}

CM_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
			    struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct rsock *rs = rs_get(socket);
	struct iovec iov = { buf, len };
	ssize_t n;

	if (rs && rs->dgram)
		return rs_ds_recv(rs, &iov, 1, flags, src_addr, addrlen);
	n = rrecv(socket, buf, len, flags);
	if (n >= 0 && src_addr && addrlen)
		rgetpeername(socket, src_addr, addrlen);
	return n;
}

CM_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	return rs_io_msg(socket, msg, flags, false);
}

CM_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

CM_EXPORT ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return rs_io(socket, iov, iovcnt, 0, false);
}

CM_EXPORT ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	struct iovec iov = { (void *)buf, len };

	return rs_io(socket, &iov, 1, flags, true);
}

CM_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
			  const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct rsock *rs = rs_get(socket);
	struct iovec iov = { (void *)buf, len };

	if (rs && rs->dgram && dest_addr) {
		if (addrlen < cm_addrlen(dest_addr))
			return cm_fail(EINVAL);
		return rs_ds_send(rs, &iov, 1, flags, dest_addr);
	}
	/* a connected stream ignores the address, as TCP */
	return rsend(socket, buf, len, flags);
}

CM_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	return rs_io_msg(socket, (struct msghdr *)msg, flags, true);
}

CM_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

CM_EXPORT ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	return rs_io(socket, iov, iovcnt, 0, true);
}

/* ---- iomap ----------------------------------------------------------------- */

CM_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
		       off_t offset)
{
	struct rsock *rs = rs_get(socket);
	struct rs_iomap_msg m;
	struct rs_iomap *l;
	int i;

	(void)flags;
	if (!rs || !buf || !len)
		return cm_fail(rs ? EINVAL : EBADF);
	if (!(prot & PROT_WRITE) || rs_ready(rs))
		return errno = errno ? errno : EINVAL, -1;
	if (rs->nlmap >= RS_MAX_IOMAPS ||
	    (rs->iomapsize && rs->nlmap >= rs->iomapsize))
		return cm_fail(ENOMEM);
	if (offset == -1) {
		offset = 0;
		for (i = 0; i < rs->nlmap; i++)
			if ((off_t)(rs->lmap[i].offset + rs->lmap[i].len) > offset)
				offset = (off_t)(rs->lmap[i].offset + rs->lmap[i].len);
	}
	l = &rs->lmap[rs->nlmap];
	l->mr = ibv_reg_mr(rs->pd, buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!l->mr)
		return -1;
	l->buf = buf;
	l->len = len;
	l->offset = (uint64_t)offset;
	m.offset = (uint64_t)offset;
	m.addr = (uintptr_t)buf;
	m.len = len;
	m.rkey = l->mr->rkey;
	/* the mapping travels in the stream: it needs a credit and a slot */
	while (!(rs->credits && rs->sinflight < RS_SLOTS)) {
		rs_progress(rs);
		if (rs->disconnected || rs->err) {
			ibv_dereg_mr(l->mr);
			return cm_fail(rs->err ? rs->err : EPIPE);
		}
		if (rs->credits && rs->sinflight < RS_SLOTS)
			break;
		rs_wait(rs, -1);
	}
	if (post_slot(rs, &m, sizeof(m), IBV_WR_SEND_WITH_IMM,
		      RS_IMM(RS_IOMAP, rs->owed), 0, 0)) {
		ibv_dereg_mr(l->mr);
		return -1;
	}
	rs->owed = 0;
	rs->credits--;
	rs->nlmap++;
	return offset;
}

CM_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	struct rsock *rs = rs_of(socket);
	int i;

	if (!rs)
		return -1;
	for (i = 0; i < rs->nlmap; i++) {
		if (rs->lmap[i].buf != buf || rs->lmap[i].len != len)
			continue;
		ibv_dereg_mr(rs->lmap[i].mr);
		rs->lmap[i] = rs->lmap[--rs->nlmap];
		return 0;
	}
	return cm_fail(EINVAL);
}

static struct rs_iomap *rmap_find(struct rsock *rs, uint64_t off, size_t n)
{
	int i;

	for (i = 0; i < rs->nrmap; i++)
		if (off >= rs->rmap[i].offset &&
		    off + n <= rs->rmap[i].offset + rs->rmap[i].len)
			return &rs->rmap[i];
	return NULL;
}

CM_EXPORT size_t riowrite(int socket, const void *buf, size_t count,
			  off_t offset, int flags)
{
	struct rsock *rs = rs_get(socket);
	struct rs_iomap *r;
	size_t done = 0;

	if (!rs) {
		errno = EBADF;
		return (size_t)-1;
	}
	if (rs_ready(rs))
		return (size_t)-1;
	while (done < count) {
		size_t n = count - done;

		rs_progress(rs);
		if (rs->err || rs->disconnected) {
			errno = rs->err ? rs->err : EPIPE;
			return done ? done : (size_t)-1;
		}
		if (n > rs->sslot)
			n = rs->sslot;
		r = rmap_find(rs, (uint64_t)offset + done, n);
		if (r && rs->sinflight < RS_SLOTS) {
			if (post_slot(rs, (const uint8_t *)buf + done,
				      (uint32_t)n, IBV_WR_RDMA_WRITE, 0,
				      r->addr + (uint64_t)offset + done -
					      r->offset,
				      r->rkey))
				return done ? done : (size_t)-1;
			done += n;
			continue;
		}
		if (!r && rs->nrmap && !rmap_find(rs, (uint64_t)offset + done, 1)) {
			errno = EINVAL;	/* outside every mapping */
			return done ? done : (size_t)-1;
		}
		if (rs->nonblock || (flags & MSG_DONTWAIT)) {
			if (done)
				return done;
			errno = EAGAIN;
			return (size_t)-1;
		}
		rs_wait(rs, -1);
	}
	return done;
}

/* ---- rpoll / rselect -------------------------------------------------------- */

CM_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollfd *pf;
	struct timespec end;
	nfds_t i, k;
	int ready, n;

	if (timeout > 0) {
		rs_deadline(&end, timeout);
	}
	pf = calloc(nfds * 2 + 1, sizeof(*pf));
	if (!pf)
		return -1;
	for (;;) {
		bool again = false;

		ready = 0;
		k = 0;
		for (i = 0; i < nfds; i++) {
			struct rsock *rs = fds[i].fd >= 0 ? rs_get(fds[i].fd) : NULL;

			fds[i].revents = 0;
			if (!rs) {
				pf[k] = fds[i];
				pf[k++].revents = 0;
				continue;
			}
			if (rs->cq)
				ibv_req_notify_cq(rs->cq, 0);
			rs_progress(rs);
			fds[i].revents = rs_revents(rs, fds[i].events);
			if (fds[i].revents)
				ready++;
			if (rs->cq) {
				pf[k].fd = rs->cc->fd;
				pf[k++].events = POLLIN;
			}
			pf[k].fd = rs->ch->fd;
			pf[k++].events = POLLIN;
		}
		/* about to sleep: events that came meanwhile mean a new
		 * look (see cq_event) */
		for (i = 0; !ready && timeout && i < nfds; i++) {
			struct rsock *rs = fds[i].fd >= 0 ? rs_get(fds[i].fd) : NULL;

			if (rs && rs->cq && cq_event(rs) > 0)
				again = true;
		}
		n = poll(pf, k, ready || again ? 0 :
				       timeout < 0 ? -1 :
				       timeout == 0 ? 0 : ms_left(&end));
		if (n < 0) {
			free(pf);
			return -1;
		}
		k = 0;
		for (i = 0; i < nfds; i++) {
			struct rsock *rs = fds[i].fd >= 0 ? rs_get(fds[i].fd) : NULL;

			if (!rs) {
				fds[i].revents = pf[k++].revents;
				if (fds[i].revents)
					ready++;
				continue;
			}
			if (rs->cq && (pf[k++].revents & POLLIN))
				cq_event(rs);
			k++;
		}
		if (ready || timeout == 0 || (timeout > 0 && !ms_left(&end)))
			break;
	}
	free(pf);
	return ready;
}

CM_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds,
		      fd_set *exceptfds, struct timeval *timeout)
{
	struct pollfd *p;
	int i, n = 0, ret, tmo;

	p = calloc((size_t)nfds + 1, sizeof(*p));
	if (!p)
		return -1;
	for (i = 0; i < nfds; i++) {
		short ev = 0;

		if (readfds && FD_ISSET(i, readfds))
			ev |= POLLIN;
		if (writefds && FD_ISSET(i, writefds))
			ev |= POLLOUT;
		if (exceptfds && FD_ISSET(i, exceptfds))
			ev |= POLLPRI;
		if (!ev)
			continue;
		p[n].fd = i;
		p[n++].events = ev;
	}
	tmo = timeout ? (int)(timeout->tv_sec * 1000 + timeout->tv_usec / 1000) :
			-1;
	ret = rpoll(p, (nfds_t)n, tmo);
	if (ret < 0) {
		free(p);
		return -1;
	}
	if (readfds)
		FD_ZERO(readfds);
	if (writefds)
		FD_ZERO(writefds);
	if (exceptfds)
		FD_ZERO(exceptfds);
	ret = 0;
	for (i = 0; i < n; i++) {
		if (readfds && (p[i].revents & (POLLIN | POLLHUP | POLLERR))) {
			FD_SET(p[i].fd, readfds);
			ret++;
		}
		if (writefds && (p[i].revents & (POLLOUT | POLLERR))) {
			FD_SET(p[i].fd, writefds);
			ret++;
		}
		if (exceptfds && (p[i].revents & POLLPRI)) {
			FD_SET(p[i].fd, exceptfds);
			ret++;
		}
	}
	free(p);
	return ret;
}
