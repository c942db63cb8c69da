// SPDX-License-Identifier: GPL-2.0-only
/*
 * The XRC transport (transports/verbs*.c): an XRC domain, an XRC SRQ, a
 * send (INI) and a receive (TGT) QP per side, with today's verbs API.
 * Only between 0.5 peers: the NODE extension carries the QP and SRQ
 * numbers.
 */
#include "verbs_int.h"

VERBS_TRANSPORT(xrc, "XRC", TF_RDMA | TF_XRC, 0, VQ_XRC);
