// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bare loop reg_mr is compared with (bench/regmr.sh): the first RDMA
 * device, one PD, and ROUNDS times: mmap SIZE bytes (cold, or every page
 * written with "prefault"), clock_gettime, ibv_reg_mr, clock_gettime,
 * ibv_dereg_mr, clock_gettime, munmap.  No histogram, no threads: what
 * any verbs program would write.  Prints
 *   "reg_p50_ns N reg_mean_ns N dereg_p50_ns N"
 * Usage: regmr_bare SIZE ROUNDS [prefault]
 */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bare.h"

int main(int argc, char **argv)
{
	size_t size = argc > 2 ? strtoull(argv[1], NULL, 0) : 0;
	long rounds = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	int prefault = argc > 3 && strcmp(argv[3], "prefault") == 0;
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint64_t *reg, *dereg, sum = 0;
	int n = 0;

	if (!size || rounds < 1) {
		fprintf(stderr, "usage: regmr_bare SIZE ROUNDS [prefault]\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list || !n || !(ctx = ibv_open_device(list[0])) ||
	    !(pd = ibv_alloc_pd(ctx))) {
		fprintf(stderr, "regmr_bare: no RDMA device to use\n");
		return 1;
	}
	reg = calloc((size_t)rounds, sizeof(*reg));
	dereg = calloc((size_t)rounds, sizeof(*dereg));
	if (!reg || !dereg)
		return 1;
	for (long i = 0; i < rounds; i++) {
		char *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ibv_mr *mr;
		uint64_t a, b, c;

		if (m == MAP_FAILED)
			return 1;
		if (prefault)
			for (size_t o = 0; o < size; o += (size_t)page)
				m[o] = 0;
		a = ns();
		mr = ibv_reg_mr(pd, m, size,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_WRITE);
		b = ns();
		if (!mr || ibv_dereg_mr(mr)) {
			fprintf(stderr, "regmr_bare: registration failed\n");
			return 1;
		}
		c = ns();
		munmap(m, size);
		reg[i] = b - a;
		dereg[i] = c - b;
		sum += b - a;
	}
	qsort(reg, (size_t)rounds, sizeof(*reg), cmp);
	qsort(dereg, (size_t)rounds, sizeof(*dereg), cmp);
	printf("reg_p50_ns %llu reg_mean_ns %llu dereg_p50_ns %llu\n",
	       (unsigned long long)reg[rounds / 2],
	       (unsigned long long)(sum / (uint64_t)rounds),
	       (unsigned long long)dereg[rounds / 2]);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(reg);
	free(dereg);
	return 0;
}
