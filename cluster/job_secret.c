// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's job secret (job_secret.h).  A launcher's key is not used
 * as it is: the secret is HMAC-SHA256(key, label), so qperf's MACs never
 * use the launcher's own key.
 */
#include <string.h>

#include "job_secret.h"
#include "core/auth.h"
#include "lib/alloc.h"
#include "lib/err.h"

#define JOB_LABEL "qperf-0.5 cluster job secret"
#define LAUNCHER_KEY_MIN 16 /* characters: Open MPI's holds 33 */

int job_secret(const char *secret_file, env_lookup get,
	       struct auth_secret **out, const char **from, char *err,
	       size_t errlen)
{
	const char *path = secret_file, *key;
	struct auth_secret *k;
	size_t n;

	*out = NULL;
	*from = "--secret_file";
	if (!auth_built())
		return seterr(err, errlen,
			      "cluster mode needs shared-secret support (every message is sealed with the job secret), but this qperf was built without it (NO_AUTH=1 or no libcrypto); rebuild it with libssl-dev installed");
	if (!path) {
		path = get(AUTH_ENV);
		*from = AUTH_ENV;
		if (path && !*path)
			path = NULL;
	}
	if (path) {
		*out = auth_load(path, *from, err, errlen);
		return *out ? 0 : -1;
	}
	*from = OMPI_JOB_KEY;
	key = get(OMPI_JOB_KEY);
	if (!key || !*key)
		return seterr(err, errlen,
			      "--cluster needs a job secret, so that only this job's ranks join and test: give every rank --secret_file FILE (the same file, mode 600) or set QPERF_SECRET_FILE; Open MPI's mpirun gives one per job, Slurm and QPERF_RANK runs do not"),
		       1;
	n = strlen(key);
	if (n < LAUNCHER_KEY_MIN || n > AUTH_SECRET_MAX)
		return seterr(err, errlen,
			      "%s holds %zu characters, not a job key; unset it or give --secret_file FILE",
			      OMPI_JOB_KEY, n);
	k = xcalloc(1, sizeof(*k));
	memcpy(k->key, key, n);
	k->len = n;
	*out = xcalloc(1, sizeof(**out));
	(*out)->len = AUTH_MAC;
	if (auth_mac(k, JOB_LABEL, NULL, 0, NULL, 0, NULL, 0, NULL, 0,
		     (*out)->key) < 0) {
		auth_free(k);
		auth_free(*out);
		*out = NULL;
		return seterr(err, errlen, "internal error: HMAC failed");
	}
	auth_free(k);
	return 0;
}
