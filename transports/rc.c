// SPDX-License-Identifier: GPL-2.0-only
/* The RC transport: reliable connected QPs (transports/verbs*.c). */
#include "verbs_int.h"

static int rc_open(struct tsess *s, char *err, size_t errlen)
{
	return verbs_open(s, VQ_RC, err, errlen);
}

const struct transport transport_rc = {
	.name = "rc",
	.label = "RC",
	.flags = TF_RDMA,
	.max_msg = 0,
	.priv_size = sizeof(struct verbs_priv),
	.open = rc_open,
	.close = verbs_close,
	.post = verbs_post,
	.poll = verbs_poll,
};
