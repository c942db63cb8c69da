/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's job secret (docs/cluster.md, "Trust"): the key that
 * seals every cluster message (cluster_msg.h) and that every rank's
 * qperf server requires of its clients during the run, so that only the
 * job's ranks join, report figures or run tests against its servers.
 *
 * Sources, first match wins:
 *   --secret_file FILE, else $QPERF_SECRET_FILE   as for server and client
 *   OMPI_MCA_orte_precondition_transports         the per-job key Open
 *                                                 MPI's mpirun (4.x) gives
 *                                                 every process of a job
 * Slurm gives its tasks no per-job secret (SLURM_JOB_ID and the like are
 * public), nor do QPERF_RANK runs by hand: they need --secret_file.
 * Without any, cluster mode does not run; nor in a build without
 * shared-secret support (NO_AUTH=1).
 */
#ifndef QPERF_JOB_SECRET_H
#define QPERF_JOB_SECRET_H

#include <stddef.h>

#include "rank_env.h"

struct auth_secret;

#define OMPI_JOB_KEY "OMPI_MCA_orte_precondition_transports"

/*
 * The job secret into *out (release with auth_free()) and where it came
 * from into *from ("--secret_file", "QPERF_SECRET_FILE", OMPI_JOB_KEY).
 * 0; 1 if there is none (err says how to give one); -1 if a source is
 * unusable (err names it).
 */
int job_secret(const char *secret_file, env_lookup get,
	       struct auth_secret **out, const char **from, char *err,
	       size_t errlen);

#endif
