// SPDX-License-Identifier: GPL-2.0-only
/*
 * udspray: a stranger on the fabric.  For SECS seconds it sends 1-byte UD
 * datagrams (Q_Key 0x11111111, the key qperf uses) from its own UD QP to
 * every QP of emulated node NODE that softverbs lists in /proc/net/unix
 * ("@softverbs/<fabric>/<node>/<qpn>").  Prints how many it sent.
 *   udspray NODE SECS     (SOFTVERBS_NODE and _FABRIC as for the others)
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXQ 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The QPNs of node's endpoints on our fabric. */
static int targets(unsigned node, uint32_t *q, int max)
{
	const char *fab = getenv("SOFTVERBS_FABRIC");
	char pat[160], line[512];
	FILE *f = fopen("/proc/net/unix", "r");
	int n = 0;

	if (!f)
		return 0;
	snprintf(pat, sizeof(pat), "@softverbs/%s/%u/", fab ? fab : "default",
		 node);
	while (n < max && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, pat);

		if (p)
			q[n++] = (uint32_t)strtoul(p + strlen(pat), NULL, 10);
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_qp_attr a = { 0 };
	struct ibv_ah_attr aa = { 0 };
	static char buf[64];
	unsigned node = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	double end = now() + (argc > 2 ? atof(argv[2]) : 1.0);
	long sent = 0;

	list = ibv_get_device_list(NULL);
	if (!list || !list[0] || !(ctx = ibv_open_device(list[0]))) {
		fprintf(stderr, "udspray: no device\n");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = 128;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = cq && mr ? ibv_create_qp(pd, &ia) : NULL;
	if (!qp) {
		fprintf(stderr, "udspray: setup failed\n");
		return 1;
	}
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_QKEY);
	a.qp_state = IBV_QPS_RTR;
	ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	aa.dlid = (uint16_t)node;
	aa.port_num = 1;
	ah = ibv_create_ah(pd, &aa);
	if (!ah) {
		fprintf(stderr, "udspray: no address handle\n");
		return 1;
	}
	while (now() < end) {
		uint32_t q[MAXQ];
		int nq = targets(node, q, MAXQ);
		struct ibv_wc wc[64];

		for (int i = 0; i < nq; i++) {
			struct ibv_sge sg = { (uintptr_t)buf, 1, mr->lkey };
			struct ibv_send_wr wr = { 0 }, *bad;

			wr.sg_list = &sg;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_SEND;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = q[i];
			wr.wr.ud.remote_qkey = 0x11111111;
			if (ibv_post_send(qp, &wr, &bad) == 0)
				sent++;
		}
		while (ibv_poll_cq(cq, 64, wc) > 0)
			;
	}
	printf("udspray sent=%ld\n", sent);
	return 0;
}
