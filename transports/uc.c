// SPDX-License-Identifier: GPL-2.0-only
/* The UC transport: unreliable connected QPs (transports/verbs*.c). */
#include "verbs_int.h"

VERBS_TRANSPORT(uc, "UC", TF_LOSSY | TF_RDMA, 0, VQ_UC);
