// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UD transport: unreliable datagrams (transports/verbs*.c).  A message
 * must fit the path MTU, which open() checks (max_msg is the largest MTU
 * there is).  Receives land VERBS_GRH (40) bytes into s->buf.
 */
#include "verbs_int.h"

static int ud_open(struct tsess *s, char *err, size_t errlen)
{
	return verbs_open(s, VQ_UD, err, errlen);
}

static int ud_check(struct tsess *s, char *err, size_t errlen)
{
	return verbs_check(s, VQ_UD, err, errlen);
}

const struct transport transport_ud = {
	.name = "ud",
	.label = "UD",
	.flags = TF_LOSSY | TF_RDMA,
	.max_msg = 4096,
	.priv_size = sizeof(struct verbs_priv),
	.check = ud_check,
	.open = ud_open,
	.close = verbs_close,
	.post = verbs_post,
	.poll = verbs_poll,
};
