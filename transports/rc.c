// SPDX-License-Identifier: GPL-2.0-only
/* The RC transport: reliable connected QPs (transports/verbs*.c). */
#include "verbs_int.h"

VERBS_TRANSPORT(rc, "RC", TF_RDMA | TF_LEGACY_CM, 0, VQ_RC);
