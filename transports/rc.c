// SPDX-License-Identifier: GPL-2.0-only
/* The RC transport: reliable connected QPs (transports/verbs*.c). */
#include "verbs_int.h"

static int rc_open(struct tsess *s, char *err, size_t errlen)
{
	return verbs_open(s, VQ_RC, err, errlen);
}

static int rc_check(struct tsess *s, char *err, size_t errlen)
{
	return verbs_check(s, VQ_RC, err, errlen);
}

const struct transport transport_rc = {
	.name = "rc",
	.label = "RC",
	.flags = TF_RDMA,
	.max_msg = 0,
	.priv_size = sizeof(struct verbs_priv),
	.check = rc_check,
	.open = rc_open,
	.close = verbs_close,
	.post = verbs_post,
	.poll = verbs_poll,
};
