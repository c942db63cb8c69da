// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UC transport: unreliable connected QPs (transports/verbs*.c): sends
 * and RDMA writes only (no reads, no atomics, no retries); an alternate
 * path if both sides have one.
 */
#include "verbs_int.h"

const struct verbs_kind verbs_kind_uc = {
	.qp_type = IBV_QPT_UC,
	.access = IBV_ACCESS_REMOTE_WRITE,
	.alt_path = true,
	.connected = true,
	.cm = true,
	.create = verbs_qp_create_one,
	.connect = verbs_qp_connect,
};

VERBS_TRANSPORT(uc, "UC", TF_LOSSY | TF_RDMA | TF_SLOTS, 0);
