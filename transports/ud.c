// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UD transport: unreliable datagrams (transports/verbs*.c).  A message
 * must fit the path MTU, which open() checks (max_msg is the largest MTU
 * there is).  Receives land VERBS_GRH (40) bytes into s->buf.
 */
#include "verbs_int.h"

const struct verbs_kind verbs_kind_ud = {
	.qp_type = IBV_QPT_UD,
	.rx_off = VERBS_GRH,
	.mtu_bound = true,
	.cm = true,
	.id = VQ_UD,
};

VERBS_TRANSPORT(ud, "UD", TF_LOSSY | TF_RDMA, 4096);
