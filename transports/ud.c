// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UD transport: unreliable datagrams (transports/verbs*.c).  A message
 * must fit the path MTU, which open() checks (max_msg is the largest MTU
 * there is).  Receives land VERBS_GRH (40) bytes into s->buf.
 */
#include "verbs_int.h"

VERBS_TRANSPORT(ud, "UD", TF_LOSSY | TF_RDMA, 4096, VQ_UD);
