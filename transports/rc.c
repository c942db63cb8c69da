// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RC transport: reliable connected QPs (transports/verbs*.c).  The QP
 * both issues and answers RDMA reads and atomics, and may take an
 * alternate path; with RDMA CM it also talks to qperf 0.4.11.
 */
#include "verbs_int.h"

const struct verbs_kind verbs_kind_rc = {
	.qp_type = IBV_QPT_RC,
	.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_ATOMIC,
	.reads = true,
	.responds = true,
	.alt_path = true,
	.connected = true,
	.cm = true,
	.cm_legacy = true,
	.create = verbs_qp_create_one,
	.connect = verbs_qp_connect,
};

VERBS_TRANSPORT(rc, "RC", TF_RDMA | TF_LEGACY_CM | TF_SLOTS, 0);
