/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Progress of a server child's test, for the parent's watchdog
 * (core/supervise.c).  The parent maps one counter per child in memory it
 * shares with its children; a child's measurement loops call
 * progress_note() once per send or receive that moved data (a partial
 * one too, so a huge message on a slow link counts as progress).  It is
 * a plain store to memory, no system call; outside a server child (the
 * client, unit tests) progress_counter is NULL and the call is one
 * predictable branch.
 *
 * Loop owners: call progress_note() wherever data moves (or an RDMA
 * completion is polled) on the server side; a child that shows no
 * progress is treated as stalled by the watchdog (docs/qperf.1,
 * --max_setup).
 */
#ifndef QPERF_PROGRESS_H
#define QPERF_PROGRESS_H

#include <stdint.h>

/* This child's counter in the shared mapping, or NULL. */
extern uint64_t *progress_counter;

static inline void progress_note(void)
{
	uint64_t *c = progress_counter;

	if (c)
		__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
}

#endif
