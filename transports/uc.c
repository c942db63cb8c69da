// SPDX-License-Identifier: GPL-2.0-only
/* The UC transport: unreliable connected QPs (transports/verbs*.c). */
#include "verbs_int.h"

static int uc_open(struct tsess *s, char *err, size_t errlen)
{
	return verbs_open(s, VQ_UC, err, errlen);
}

static int uc_check(struct tsess *s, char *err, size_t errlen)
{
	return verbs_check(s, VQ_UC, err, errlen);
}

const struct transport transport_uc = {
	.name = "uc",
	.label = "UC",
	.flags = TF_LOSSY | TF_RDMA,
	.max_msg = 0,
	.priv_size = sizeof(struct verbs_priv),
	.check = uc_check,
	.open = uc_open,
	.close = verbs_close,
	.post = verbs_post,
	.poll = verbs_poll,
};
