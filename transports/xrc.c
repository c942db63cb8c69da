// SPDX-License-Identifier: GPL-2.0-only
/*
 * The XRC transport (transports/verbs*.c): an XRC domain, an XRC SRQ, a
 * send (INI) and a receive (TGT) QP per side, with today's verbs API.
 * Only between 0.5 peers: the NODE extension carries the QP and SRQ
 * numbers.
 */
#include "verbs_int.h"

const struct verbs_kind verbs_kind_xrc = {
	.qp_type = IBV_QPT_XRC_SEND,
	.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_ATOMIC,
	.reads = true,
	.connected = true,
	.ext_only = true,
	.srq_own = true,
	.id = VQ_XRC,
};

VERBS_TRANSPORT(xrc, "XRC", TF_RDMA | TF_XRC, 0);
