// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rank 0's rendezvous address through the launcher's PMIx (see
 * pmix_boot.h).  The prototypes and types come from libpmix-dev's
 * pmix.h; the functions are found with dlsym, so nothing links libpmix.
 */
#include <stdlib.h>
#include <string.h>

#include "pmix_boot.h"
#include "lib/err.h"

#ifdef HAVE_PMIX
#include <dlfcn.h>
#include <pmix.h>

struct pmix_fns {
	void *dl;
	typeof(PMIx_Init) *init;
	typeof(PMIx_Finalize) *finalize;
	typeof(PMIx_Put) *put;
	typeof(PMIx_Commit) *commit;
	typeof(PMIx_Fence) *fence;
	typeof(PMIx_Get) *get;
	typeof(PMIx_Value_destruct) *value_destruct;
	typeof(PMIx_Error_string) *error_string;
};

static const char *const pmix_names[] = {
	"PMIx_Init", "PMIx_Finalize", "PMIx_Put", "PMIx_Commit",
	"PMIx_Fence", "PMIx_Get", "PMIx_Value_destruct", "PMIx_Error_string",
};
#define PMIX_NFNS (sizeof(pmix_names) / sizeof(pmix_names[0]))

/* dlopen lib and resolve every function; 0, or -1 with err. */
static int pmix_load(struct pmix_fns *f, const char *lib, char *err,
		     size_t errlen)
{
	void *s[PMIX_NFNS];
	const char *why;

	/* GLOBAL: libpmix's own plugins resolve its symbols through it. */
	f->dl = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (!f->dl) {
		why = dlerror();
		/* dlerror() usually starts with the name: do not repeat it. */
		if (why && !strncmp(why, lib, strlen(lib)) &&
		    !strncmp(why + strlen(lib), ": ", 2))
			why += strlen(lib) + 2;
		return seterr(err, errlen, "PMIx: cannot load %s (%s)", lib,
			      why ? why : "unknown error");
	}
	for (size_t i = 0; i < PMIX_NFNS; i++) {
		s[i] = dlsym(f->dl, pmix_names[i]);
		if (!s[i]) {
			dlclose(f->dl);
			f->dl = NULL;
			return seterr(err, errlen,
				      "PMIx: %s has no function %s", lib,
				      pmix_names[i]);
		}
	}
	f->init = (typeof(f->init))s[0];
	f->finalize = (typeof(f->finalize))s[1];
	f->put = (typeof(f->put))s[2];
	f->commit = (typeof(f->commit))s[3];
	f->fence = (typeof(f->fence))s[4];
	f->get = (typeof(f->get))s[5];
	f->value_destruct = (typeof(f->value_destruct))s[6];
	f->error_string = (typeof(f->error_string))s[7];
	return 0;
}

/* err = "PMIx: WHAT failed: STATUS"; returns -1. */
static int pmix_fail(const struct pmix_fns *f, const char *what,
		     pmix_status_t st, char *err, size_t errlen)
{
	const char *s = f->error_string(st);

	return seterr(err, errlen, "PMIx: %s failed: %s (%d)", what,
		      s ? s : "?", (int)st);
}

static void info_set(pmix_info_t *in, const char *key)
{
	memset(in, 0, sizeof(*in));
	xsnprintf(in->key, sizeof(in->key), "%s", key);
}

/* Get key of proc into v (freed with pmix_value_free); PMIx status. */
static pmix_status_t pmix_get(const struct pmix_fns *f,
			      const pmix_proc_t *proc, const char *key,
			      int timeout_s, pmix_value_t **v)
{
	pmix_info_t in;

	info_set(&in, PMIX_TIMEOUT);
	in.value.type = PMIX_INT;
	in.value.data.integer = timeout_s;
	*v = NULL;
	return f->get(proc, key, &in, 1, v);
}

static void pmix_value_free(const struct pmix_fns *f, pmix_value_t *v)
{
	if (!v)
		return;
	f->value_destruct(v);
	free(v);
}

/* Size and local rank from PMIx, for a launcher that set only PMIX_RANK. */
static int pmix_job_size(const struct pmix_fns *f, const pmix_proc_t *me,
			 struct rank_info *ri, int timeout_s, char *err,
			 size_t errlen)
{
	pmix_proc_t job = *me;
	pmix_value_t *v;
	pmix_status_t st;

	job.rank = PMIX_RANK_WILDCARD;
	st = pmix_get(f, &job, PMIX_JOB_SIZE, timeout_s, &v);
	if (st != PMIX_SUCCESS)
		return pmix_fail(f, "PMIx_Get(" PMIX_JOB_SIZE ")", st, err,
				 errlen);
	ri->size = v->type == PMIX_UINT32 ? v->data.uint32 : 0;
	pmix_value_free(f, v);
	if (ri->size < 2 || ri->size > 1000000 || ri->rank >= ri->size)
		return seterr(err, errlen,
			      "PMIx: job size %u for rank %u (need 2 to 1000000 ranks)",
			      ri->size, ri->rank);
	ri->size_known = 1;
	if (pmix_get(f, me, PMIX_LOCAL_RANK, timeout_s, &v) == PMIX_SUCCESS &&
	    v->type == PMIX_UINT16)
		ri->local_rank = v->data.uint16;
	pmix_value_free(f, v);
	return 0;
}

/* The exchange itself, between PMIx_Init and PMIx_Finalize. */
static int pmix_swap(const struct pmix_fns *f, const pmix_proc_t *me,
		     struct rank_info *ri, char *rv, size_t rvlen,
		     int timeout_s, char *err, size_t errlen)
{
	pmix_proc_t all = *me, root = *me;
	pmix_info_t fin[2];
	pmix_value_t val, *v;
	pmix_status_t st;

	if (me->rank != ri->rank)
		return seterr(err, errlen,
			      "PMIx: this process is PMIx rank %u, but the %s variables say rank %u",
			      me->rank, ri->source, ri->rank);
	if (!ri->size_known &&
	    pmix_job_size(f, me, ri, timeout_s, err, errlen) < 0)
		return -1;
	if (ri->rank == 0) {
		memset(&val, 0, sizeof(val));
		val.type = PMIX_STRING;
		val.data.string = rv;
		st = f->put(PMIX_GLOBAL, PMIX_BOOT_KEY, &val);
		if (st != PMIX_SUCCESS)
			return pmix_fail(f, "PMIx_Put", st, err, errlen);
		st = f->commit();
		if (st != PMIX_SUCCESS)
			return pmix_fail(f, "PMIx_Commit", st, err, errlen);
	}
	/* Collect: the address is everywhere once the fence ends. */
	info_set(&fin[0], PMIX_COLLECT_DATA);
	fin[0].value.type = PMIX_BOOL;
	fin[0].value.data.flag = true;
	info_set(&fin[1], PMIX_TIMEOUT);
	fin[1].value.type = PMIX_INT;
	fin[1].value.data.integer = timeout_s;
	all.rank = PMIX_RANK_WILDCARD;
	st = f->fence(&all, 1, fin, 2);
	if (st != PMIX_SUCCESS)
		return pmix_fail(f, "PMIx_Fence", st, err, errlen);
	if (ri->rank == 0)
		return 0;
	root.rank = 0;
	st = pmix_get(f, &root, PMIX_BOOT_KEY, timeout_s, &v);
	if (st != PMIX_SUCCESS)
		return pmix_fail(f, "PMIx_Get(rank 0's " PMIX_BOOT_KEY ")", st,
				 err, errlen);
	if (v->type != PMIX_STRING || !v->data.string ||
	    strlen(v->data.string) >= rvlen) {
		pmix_value_free(f, v);
		return seterr(err, errlen,
			      "PMIx: rank 0's " PMIX_BOOT_KEY " is not an address");
	}
	memcpy(rv, v->data.string, strlen(v->data.string) + 1);
	pmix_value_free(f, v);
	return 0;
}

int pmix_boot(const char *lib, struct rank_info *ri, char *rv,
	      size_t rvlen, int timeout_s, char *err, size_t errlen)
{
	struct pmix_fns f;
	pmix_proc_t me;
	pmix_status_t st;
	int rc;

	if (!lib)
		lib = getenv("QPERF_PMIX_LIB");
	if (!lib || !*lib)
		lib = PMIX_BOOT_LIB;
	if (timeout_s < 1)
		timeout_s = 1;
	memset(&f, 0, sizeof(f));
	if (pmix_load(&f, lib, err, errlen) < 0)
		return -1;
	memset(&me, 0, sizeof(me));
	st = f.init(&me, NULL, 0);
	if (st != PMIX_SUCCESS)
		return pmix_fail(&f, "PMIx_Init", st, err, errlen);
	rc = pmix_swap(&f, &me, ri, rv, rvlen, timeout_s, err, errlen);
	st = f.finalize(NULL, 0);
	if (st != PMIX_SUCCESS && rc == 0)
		rc = pmix_fail(&f, "PMIx_Finalize", st, err, errlen);
	/*
	 * libpmix stays loaded: once initialised it keeps state past
	 * PMIx_Finalize that dlclose() would unmap under it (under
	 * LeakSanitizer, closing it showed that state as 100 KB of leaks).
	 */
	return rc;
}

const char *pmix_boot_status(void)
{
	return "dlopen";
}

#else /* !HAVE_PMIX */

int pmix_boot(const char *lib, struct rank_info *ri, char *rv,
	      size_t rvlen, int timeout_s, char *err, size_t errlen)
{
	(void)lib, (void)ri, (void)rv, (void)rvlen, (void)timeout_s;
	return seterr(err, errlen,
		      "PMIx: this qperf was built without PMIx support (NO_PMIX=1 or no libpmix-dev)");
}

const char *pmix_boot_status(void)
{
	return "not built";
}

#endif
