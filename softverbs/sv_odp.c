// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory regions and the page tables: what a real HCA does with pages.
 *
 * - An ordinary region is pinned by a real driver (get_user_pages), which
 *   faults every page in at ibv_reg_mr().  softverbs pins nothing (it
 *   copies through the process's own mappings), but it faults the pages
 *   in at registration (MADV_POPULATE_WRITE, or _READ for a region
 *   without write access), so that registering cold memory costs what it
 *   costs on hardware, in proportion to its pages.  Failures are ignored:
 *   softverbs stays as lenient as it was about what it registers.
 * - An On-Demand Paging region (IBV_ACCESS_ON_DEMAND) is not faulted in:
 *   its pages fault when the responder or the requester first copies
 *   into or out of them, which is the first-touch cost ODP has.
 * - An implicit ODP region (addr NULL, length SIZE_MAX, ON_DEMAND) covers
 *   the whole address space (sv_dev.c).
 * - ibv_advise_mr() (PREFETCH, PREFETCH_WRITE, PREFETCH_NO_FAULT) faults
 *   the ranges in now, always synchronously (IBV_ADVISE_MR_FLAG_FLUSH
 *   or not).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sv_internal.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void sv_odp_caps(struct ibv_odp_caps *c)
{
	uint32_t conn = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			IBV_ODP_SUPPORT_WRITE;

	c->general_caps = IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT;
	c->per_transport_caps.rc_odp_caps = conn | IBV_ODP_SUPPORT_READ |
					    IBV_ODP_SUPPORT_ATOMIC |
					    IBV_ODP_SUPPORT_SRQ_RECV;
	c->per_transport_caps.uc_odp_caps = conn;
	c->per_transport_caps.ud_odp_caps = IBV_ODP_SUPPORT_SEND |
					    IBV_ODP_SUPPORT_RECV;
}

int sv_populate(uintptr_t addr, size_t len, bool write)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = addr & ~(page - 1);
	uintptr_t end = addr + len;

	if (!len || end < addr)
		return 0;
	end = (end + page - 1) & ~(page - 1);
	if (!madvise((void *)a, end - a, write ? MADV_POPULATE_WRITE
					       : MADV_POPULATE_READ))
		return 0;
	if (errno != EINVAL)
		return EFAULT; /* a hole in the range, or no access */
	/* a kernel before 5.14: touch each page, changing nothing */
	for (uintptr_t p = a; p < end; p += page)
		if (write)
			__atomic_fetch_add((volatile char *)p, 0,
					   __ATOMIC_RELAXED);
		else
			(void)*(volatile const char *)p;
	return 0;
}

/* One entry of an advice: 0, ENOENT (no ODP region of this PD by that
 * lkey, as the kernel says it) or EFAULT (out of the region's bounds, or
 * a write prefetch into a region without local write access). */
static int sv_advise_check(struct sv_context *ctx, struct ibv_pd *pd,
			   const struct ibv_sge *sg, bool write)
{
	struct sv_mr *mr;
	uint64_t start, end;
	int e = 0;

	pthread_mutex_lock(&ctx->mu);
	mr = sv_mr_lookup(ctx, sg->lkey);
	if (!mr || mr->mr.pd != pd || !(mr->access & IBV_ACCESS_ON_DEMAND)) {
		e = ENOENT;
	} else {
		start = (uint64_t)(uintptr_t)mr->mr.addr;
		end = start + mr->mr.length;
		if (sg->addr < start || sg->addr + sg->length < sg->addr ||
		    sg->addr + sg->length > end ||
		    (write && !(mr->access & IBV_ACCESS_LOCAL_WRITE)))
			e = EFAULT;
	}
	pthread_mutex_unlock(&ctx->mu);
	return e;
}

int sv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		 uint32_t flags, struct ibv_sge *sg, uint32_t n)
{
	struct sv_context *ctx = sv_ctx(pd->context);
	bool write = advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	uint32_t i;

	if (!sv_ctx_usable(ctx) || (flags & ~IBV_ADVISE_MR_FLAG_FLUSH) ||
	    (n && !sg))
		return EINVAL;
	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH && !write &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return EOPNOTSUPP;
	/* check every entry before touching any */
	for (i = 0; i < n; i++) {
		int e = sv_advise_check(ctx, pd, &sg[i], write);

		if (e)
			return e;
	}
	if (advice == IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return 0; /* present pages are the device's already */
	for (i = 0; i < n; i++)
		if (sv_populate((uintptr_t)sg[i].addr, sg[i].length, write))
			return EFAULT;
	return 0;
}
