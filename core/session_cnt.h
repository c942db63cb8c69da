/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loss and error counters of both ends over the measured window (issue
 * 18 item 5), the engine's part: the differences of the transport's two
 * readings (core/session.c takes them around the loops), the server's
 * STATX_COUNTERS items in its STAT block for a client that announced
 * CAP_COUNTERS, and the warning lines of error counters that rose.
 */
#ifndef QPERF_SESSION_CNT_H
#define QPERF_SESSION_CNT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/counters.h"

struct tside;
struct outputs;

/*
 * This side's window from n streams' readings at its start (c0) and end
 * (c1): sd->cnt gets the sum and, for n > 1, each stream's (owned by sd,
 * freed by session_release()).  c0 NULL: the transport has no counters;
 * sd->cnt then stays invalid, as it does when no value could be read.
 */
void session_cnt_window(struct tside *sd, const struct cnt_set *c0,
			const struct cnt_set *c1, uint32_t n);

/*
 * Server: append sd->cnt to the STAT block blk (len bytes, cap at most)
 * as STATX_COUNTERS items, the sum first, then each stream's while they
 * fit.  Returns the block's new length (len when nothing fits).
 */
size_t session_cnt_append(const struct tside *sd, uint8_t *blk, size_t len,
			  size_t cap);

/*
 * Client: the server's counters from its STAT block into sd->peer_cnt.
 * Returns 0, or -1 if an item is malformed.
 */
int session_cnt_take(struct tside *sd, const uint8_t *blk, size_t len);

/*
 * Both ends' counters of a finished test into b (pointing into sd),
 * and one warning for each error counter that rose on either end.
 */
void session_cnt_result(const struct tside *sd, struct cnt_both *b,
			struct outputs *o);

#endif
