// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cmcheck cases: UD (SIDR), synchronous endpoints, rdma_migrate_id, and a
 * listener destroyed with a request it never reported.  The harness and
 * the helpers are in cmcheck.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmcheck.h"

/* UD over RDMA_PS_UDP: the ESTABLISHED event's AH attributes, QPN and QKey
 * reach the passive QP */
int ud_passive(struct peer *s)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct ibv_wc wc;

	if (passive_listen(s, "127.0.0.1", RDMA_PS_UDP))
		return -1;
	ev = want_event(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, 0, TMO);
	if (!ev)
		return -1;
	s->id = ev->id;
	if (CHK(ev->param.ud.private_data_len == 216 - 36 &&
		!memcmp(ev->param.ud.private_data, REQ_DATA, sizeof(REQ_DATA)),
		"SIDR REQ private data (len %u)",
		ev->param.ud.private_data_len)) {
		rdma_ack_cm_event(ev);
		return -1;
	}
	rdma_ack_cm_event(ev);
	if (make_qp(s, s->id, IBV_QPT_UD) || post_recv(s, s->id, 4096))
		return -1;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = REP_DATA;
	cp.private_data_len = sizeof(REP_DATA);
	if (rdma_accept(s->id, &cp))
		return bad("rdma_accept: %s", strerror(errno));
	if (wait_wc(s, IBV_WC_RECV, &wc))
		return -1;
	return CHK(!strcmp(s->buf + 40, "hello over UD") &&
		   wc.byte_len == 40 + sizeof("hello over UD"),
		   "UD received '%.40s' (%u bytes)", s->buf + 40, wc.byte_len);
}

int ud_active(struct peer *c)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct ibv_ah *ah;
	uint32_t qpn, qkey;
	int ret;

	if (active_resolve(c, "127.0.0.1", 0, RDMA_PS_UDP) ||
	    make_qp(c, c->id, IBV_QPT_UD))
		return -1;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = REQ_DATA;
	cp.private_data_len = sizeof(REQ_DATA);
	if (rdma_connect(c->id, &cp))
		return bad("rdma_connect: %s", strerror(errno));
	ev = want_event(c->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO);
	if (!ev)
		return -1;
	qpn = ev->param.ud.qp_num;
	qkey = ev->param.ud.qkey;
	if (CHK(qkey == RDMA_UDP_QKEY, "qkey 0x%x", qkey) ||
	    CHK(qpn != 0, "qp_num 0") ||
	    CHK(ev->param.ud.private_data_len == 136 &&
		!memcmp(ev->param.ud.private_data, REP_DATA, sizeof(REP_DATA)),
		"SIDR REP private data")) {
		rdma_ack_cm_event(ev);
		return -1;
	}
	ah = ibv_create_ah(c->pd, &ev->param.ud.ah_attr);
	rdma_ack_cm_event(ev);
	if (!ah)
		return bad("ibv_create_ah from the event: %s", strerror(errno));
	ret = send_msg(c, c->id, "hello over UD", ah, qpn, qkey);
	ibv_destroy_ah(ah);
	return ret;
}

/* synchronous ids: rdma_create_ep, rdma_get_request, blocking connect */
int ep_passive(struct peer *s)
{
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr a;
	struct ibv_wc wc;
	char port[16];

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo("127.0.0.1", "0", &hints, &res))
		return bad("rdma_getaddrinfo passive");
	memset(&a, 0, sizeof(a));
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.qp_type = IBV_QPT_RC;
	if (rdma_create_ep(&s->listen, res, NULL, &a))
		return bad("rdma_create_ep passive: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	if (rdma_listen(s->listen, 2))
		return bad("rdma_listen: %s", strerror(errno));
	snprintf(port, sizeof(port), "%u", ntohs(rdma_get_src_port(s->listen)));
	if (peer_put(s, (uint32_t)atoi(port)))
		return -1;
	if (rdma_get_request(s->listen, &s->id))
		return bad("rdma_get_request: %s", strerror(errno));
	if (!s->id->qp)
		return bad("rdma_get_request made no QP");
	s->mr = ibv_reg_mr(s->id->pd, s->buf, sizeof(s->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	s->cq = s->id->recv_cq;
	s->cq_borrowed = 1;
	if (!s->mr || post_recv(s, s->id, 4096))
		return bad("mr/recv");
	if (rdma_accept(s->id, NULL))
		return bad("rdma_accept (sync): %s", strerror(errno));
	if (wait_wc(s, IBV_WC_RECV, &wc))
		return -1;
	if (strcmp(s->buf, "hello over an endpoint"))
		return bad("received '%.40s'", s->buf);
	rdma_disconnect(s->id);
	ibv_dereg_mr(s->mr);
	s->mr = NULL;
	s->cq = NULL;	/* the endpoint's: rdma_destroy_ep frees it */
	rdma_destroy_ep(s->id);
	s->id = NULL;
	rdma_destroy_ep(s->listen);
	s->listen = NULL;
	return 0;
}

int ep_active(struct peer *c)
{
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr a;
	char port[16];
	uint32_t p;

	if (peer_get(c, &p))
		return -1;
	snprintf(port, sizeof(port), "%u", p);
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo("127.0.0.1", port, &hints, &res))
		return bad("rdma_getaddrinfo");
	memset(&a, 0, sizeof(a));
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.qp_type = IBV_QPT_RC;
	if (rdma_create_ep(&c->id, res, NULL, &a))
		return bad("rdma_create_ep: %s", strerror(errno));
	rdma_freeaddrinfo(res);
	c->mr = ibv_reg_mr(c->id->pd, c->buf, sizeof(c->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	c->cq = c->id->send_cq;
	c->cq_borrowed = 1;
	if (!c->mr)
		return bad("mr");
	if (rdma_connect(c->id, NULL))
		return bad("rdma_connect (sync): %s", strerror(errno));
	if (send_msg(c, c->id, "hello over an endpoint", NULL, 0, 0))
		return -1;
	rdma_disconnect(c->id);
	ibv_dereg_mr(c->mr);
	c->mr = NULL;
	c->cq = NULL;
	rdma_destroy_ep(c->id);
	c->id = NULL;
	return 0;
}

/* rdma_migrate_id: after the move, the child's events come on the new
 * channel and none on the old one */
int migrate_passive(struct peer *s)
{
	struct rdma_event_channel *ch2;
	struct pollfd p;

	if (rc4_request(s))
		return -1;
	ch2 = rdma_create_event_channel();
	if (!ch2 || rdma_migrate_id(s->id, ch2) || s->id->channel != ch2)
		return bad("rdma_migrate_id: %s", strerror(errno));
	if (make_qp(s, s->id, IBV_QPT_RC) || rdma_accept(s->id, NULL))
		return bad("accept: %s", strerror(errno));
	if (want_ack(ch2, RDMA_CM_EVENT_ESTABLISHED, 0, TMO))
		return -1;
	p.fd = s->ch->fd;
	p.events = POLLIN;
	if (poll(&p, 1, 0) != 0)
		return bad("an event on the old channel after the move");
	if (want_ack(ch2, RDMA_CM_EVENT_DISCONNECTED, 0, TMO))
		return -1;
	rdma_destroy_qp(s->id);
	rdma_destroy_id(s->id);
	s->id = NULL;
	rdma_destroy_event_channel(ch2);
	return 0;
}

int migrate_active(struct peer *c)
{
	if (rc4_connect(c))
		return -1;
	if (want_ack(c->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO))
		return -1;
	if (rdma_disconnect(c->id))
		return bad("rdma_disconnect: %s", strerror(errno));
	return want_ack(c->ch, RDMA_CM_EVENT_DISCONNECTED, 0, TMO);
}

/* a listener destroyed with a request it never reported: the active side
 * is rejected, not left waiting */
int lgone_passive(struct peer *s)
{
	struct pollfd p;
	uint32_t done;

	if (passive_listen(s, "127.0.0.1", RDMA_PS_TCP))
		return -1;
	p.fd = s->ch->fd;
	p.events = POLLIN;
	if (poll(&p, 1, TMO) != 1)
		return bad("no CONNECT_REQUEST queued");
	rdma_destroy_id(s->listen);
	s->listen = NULL;
	return peer_get(s, &done);
}

int lgone_active(struct peer *c)
{
	int ret;

	if (rc4_connect(c))
		return -1;
	ret = want_ack(c->ch, RDMA_CM_EVENT_REJECTED, 28, TMO);
	peer_put(c, 1);
	return ret;
}

/* The passive application frees its QP itself with ibv_destroy_qp and
 * never takes DISCONNECTED (perftest -R's exchange id does this), and the
 * active side goes away without a DREQ: nothing in softverbs may use the
 * freed QP afterwards (the CM's drain timer once moved it to ERR from the
 * progress thread: a heap-use-after-free under ASan). */
int qpfreed_passive(struct peer *s)
{
	uint32_t gone;

	if (rc4_accept(s))
		return -1;
	if (ibv_destroy_qp(s->id->qp))
		return bad("ibv_destroy_qp: %s", strerror(errno));
	/* id->qp dangles, as in perftest: only rdma_destroy_id from here */
	if (peer_get(s, &gone))
		return -1;
	usleep(300 * 1000); /* past SOFTVERBS_CM_DRAIN_MS (50) */
	rdma_destroy_id(s->id);
	s->id = NULL;
	return 0;
}

int qpfreed_active(struct peer *c)
{
	if (rc4_connect(c))
		return -1;
	if (want_ack(c->ch, RDMA_CM_EVENT_ESTABLISHED, 0, TMO))
		return -1;
	rdma_destroy_qp(c->id);
	rdma_destroy_id(c->id); /* its CM socket ends: no DREQ */
	c->id = NULL;
	return peer_put(c, 1);
}
