// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fault shims for xport_test, for two conditions softverbs cannot
 * produce: a device whose largest memory region is small, and
 * ibv_reg_mr failing with ENOMEM as pinned-memory limits make it fail on
 * hardware.  The executable's definitions take the place of the
 * library's for the transport code linked into it; each forwards to the
 * real function unless its variable is set:
 *   XPORT_FAKE_MAX_MR=N      ibv_query_device reports max_mr_size N
 *   XPORT_FAKE_REG_ENOMEM=1  ibv_reg_mr fails with ENOMEM
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access);
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access);

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	int (*real)(struct ibv_context *, struct ibv_device_attr *) =
		(int (*)(struct ibv_context *, struct ibv_device_attr *))
			dlsym(RTLD_NEXT, "ibv_query_device");
	const char *m = getenv("XPORT_FAKE_MAX_MR");
	int rc;

	if (!real)
		return ENOSYS;
	rc = real(c, a);
	if (rc == 0 && m)
		a->max_mr_size = strtoull(m, NULL, 0);
	return rc;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	struct ibv_mr *(*real)(struct ibv_pd *, void *, size_t, int) =
		(struct ibv_mr * (*)(struct ibv_pd *, void *, size_t, int))
			dlsym(RTLD_NEXT, "ibv_reg_mr");

	if (getenv("XPORT_FAKE_REG_ENOMEM") || !real) {
		errno = ENOMEM;
		return NULL;
	}
	return real(pd, addr, length, access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct ibv_mr *(*real)(struct ibv_pd *, void *, size_t, uint64_t,
			       unsigned int) =
		(struct ibv_mr * (*)(struct ibv_pd *, void *, size_t, uint64_t,
				     unsigned int))
			dlsym(RTLD_NEXT, "ibv_reg_mr_iova2");

	if (getenv("XPORT_FAKE_REG_ENOMEM") || !real) {
		errno = ENOMEM;
		return NULL;
	}
	return real(pd, addr, length, iova, access);
}
