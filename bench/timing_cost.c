// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the latency loops add per timed round trip on each end, on its own:
 * one monotonic clock read (now_ns) and one hist_add, in a tight loop.  The
 * best of ROUNDS rounds is printed in ns, so other load on the machine
 * (which only ever slows a round down) mostly drops out.  Built and run by
 * bench/compare-timing.sh; prints "timing_ns <best> clock_ns <best>".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/hist.h"
#include "lib/clock.h"

#define ITER 1000000
#define ROUNDS 20

static volatile uint64_t sink;

int main(void)
{
	struct hist *h = malloc(sizeof(*h));
	double best = 1e30, best_clock = 1e30;

	if (!h)
		return 1;
	hist_init(h);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns(), t1, t2, prev = t0;

		for (int i = 0; i < ITER; i++) {
			uint64_t now = now_ns();

			hist_add(h, now - prev + 10000); /* a 10 us round trip */
			prev = now;
		}
		t1 = now_ns();
		for (int i = 0; i < ITER; i++)
			sink += now_ns();
		t2 = now_ns();
		if ((double)(t1 - t0) / ITER < best)
			best = (double)(t1 - t0) / ITER;
		if ((double)(t2 - t1) / ITER < best_clock)
			best_clock = (double)(t2 - t1) / ITER;
	}
	printf("timing_ns %.1f clock_ns %.1f\n", best, best_clock);
	free(h);
	return 0;
}
