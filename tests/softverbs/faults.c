// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fault-injection cases: each runs its two roles with one softverbs knob
 * set in the environment (see docs/softverbs.md) and checks the effect a
 * program sees.
 */
#include "harness.h"
#include "cases.h"
