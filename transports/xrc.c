// SPDX-License-Identifier: GPL-2.0-only
/*
 * The XRC transport (transports/verbs*.c): an XRC domain, an XRC SRQ, a
 * send (INI) and a receive (TGT) QP per side, with today's verbs API.
 * Only between 0.5 peers: the NODE extension carries the QP and SRQ
 * numbers.
 */
#include "verbs_int.h"

static int xrc_open(struct tsess *s, char *err, size_t errlen)
{
	return verbs_open(s, VQ_XRC, err, errlen);
}

static int xrc_check(struct tsess *s, char *err, size_t errlen)
{
	return verbs_check(s, VQ_XRC, err, errlen);
}

const struct transport transport_xrc = {
	.name = "xrc",
	.label = "XRC",
	.flags = TF_RDMA | TF_XRC,
	.max_msg = 0,
	.priv_size = sizeof(struct verbs_priv),
	.check = xrc_check,
	.open = xrc_open,
	.close = verbs_close,
	.post = verbs_post,
	.poll = verbs_poll,
};
