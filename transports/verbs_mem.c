// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory for registration: anonymous mappings of 4 KiB or 2 MiB pages
 * (--hugepages, MAP_HUGETLB), the check that enough huge pages are free
 * before asking for them, and On-Demand Paging (--odp): the device's
 * odp_caps, the access flag, the implicit region and the prefetch
 * advice.  Used by reg_mr (verbs_regmr.c) and by the buffers of the RDMA
 * tests (verbs.c mem_create()).  Nothing here prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_int.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

/* The kernel's count, not a planted sysfs tree's (SYSFS_PATH). */
#define HUGE_FREE "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

long verbs_huge_free(void)
{
	char buf[32];
	ssize_t n;
	int fd = open(HUGE_FREE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0; /* no 2 MiB pages in this kernel */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

size_t verbs_map_len(size_t len, bool huge)
{
	size_t page = huge ? VERBS_HUGE_PAGE : (size_t)sysconf(_SC_PAGESIZE);

	if (!len)
		len = 1;
	return (len + page - 1) / page * page;
}

int verbs_huge_check(uint64_t pages, char *err, size_t errlen)
{
	long have = verbs_huge_free();

	if ((uint64_t)(have < 0 ? 0 : have) >= pages)
		return 0;
	return seterr(err, errlen,
		      "--hugepages needs %llu free 2 MiB huge pages and %ld %s free; reserve them first (sysctl vm.nr_hugepages=%llu, as root)",
		      (unsigned long long)pages, have < 0 ? 0 : have,
		      have == 1 ? "is" : "are", (unsigned long long)pages);
}

void *verbs_map(size_t len, bool huge, char *err, size_t errlen)
{
	int fl = MAP_PRIVATE | MAP_ANONYMOUS, e;
	void *m;

	if (huge)
		fl |= MAP_HUGETLB | MAP_HUGE_2MB;
	m = mmap(NULL, verbs_map_len(len, huge), PROT_READ | PROT_WRITE, fl,
		 -1, 0);
	if (m != MAP_FAILED)
		return m;
	e = errno;
	/* too few huge pages free: the line that says what to reserve */
	if (!(huge && e == ENOMEM &&
	      verbs_huge_check(verbs_map_len(len, huge) / VERBS_HUGE_PAGE, err,
			       errlen)))
		seterr(err, errlen, "failed to map %zu bytes%s: %s",
		       verbs_map_len(len, huge), huge ? " of huge pages" : "",
		       strerror(e));
	return NULL;
}

void verbs_unmap(void *mem, size_t len, bool huge)
{
	if (mem)
		munmap(mem, verbs_map_len(len, huge));
}

void verbs_touch(void *mem, size_t len, bool huge)
{
	size_t step = huge ? VERBS_HUGE_PAGE : (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mem;

	for (size_t i = 0; i < len; i += step)
		p[i] = 0;
}

int verbs_odp_check(struct ibv_context *ctx, const char *dev, uint32_t odp,
		    char *err, size_t errlen)
{
	struct ibv_device_attr_ex ax;
	uint32_t need = IBV_ODP_SUPPORT;

	if (odp == REGMR_ODP_OFF)
		return 0;
	if (odp == REGMR_ODP_IMPLICIT)
		need |= IBV_ODP_SUPPORT_IMPLICIT;
	memset(&ax, 0, sizeof(ax));
	if (ibv_query_device_ex(ctx, NULL, &ax))
		return seterr(err, errlen,
			      "--odp: device %s cannot say whether it has On-Demand Paging (ibv_query_device_ex failed)",
			      dev);
	if ((ax.odp_caps.general_caps & need) != need)
		return seterr(err, errlen,
			      "--odp: device %s has no %sOn-Demand Paging (its odp_caps lack %s)",
			      dev, odp == REGMR_ODP_IMPLICIT ? "implicit " : "",
			      (ax.odp_caps.general_caps & IBV_ODP_SUPPORT)
				      ? "IBV_ODP_SUPPORT_IMPLICIT"
				      : "IBV_ODP_SUPPORT");
	if (!(ax.odp_caps.per_transport_caps.rc_odp_caps &
	      IBV_ODP_SUPPORT_WRITE))
		return seterr(err, errlen,
			      "--odp: device %s has no On-Demand Paging for RDMA writes on RC (rc_odp_caps lacks IBV_ODP_SUPPORT_WRITE)",
			      dev);
	return 0;
}

struct ibv_mr *verbs_reg(struct ibv_pd *pd, void *mem, size_t len,
			 unsigned access, uint32_t odp)
{
	if (odp == REGMR_ODP_OFF)
		return ibv_reg_mr(pd, mem, len, (int)access);
	access |= IBV_ACCESS_ON_DEMAND;
	if (odp == REGMR_ODP_IMPLICIT)
		return ibv_reg_mr(pd, NULL, SIZE_MAX, (int)access);
	return ibv_reg_mr(pd, mem, len, (int)access);
}

int verbs_prefetch(struct ibv_pd *pd, const struct ibv_mr *mr, void *mem,
		   size_t len)
{
	struct ibv_sge sge = { .addr = (uint64_t)(uintptr_t)mem,
			       .length = (uint32_t)(len > UINT32_MAX ? UINT32_MAX
								     : len),
			       .lkey = mr->lkey };

	return ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
}
