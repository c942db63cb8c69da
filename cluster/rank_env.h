/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's bootstrap facts from the launcher's environment: this
 * process's rank, the number of ranks and the rank among those on the
 * same host (for distinct ports), and the --rendezvous address.  Pure:
 * the environment is read through a lookup function so that tests can
 * give their own.
 *
 * Sources, first match wins (QPERF_* first so that a user can override a
 * launcher):
 *   QPERF_RANK, QPERF_SIZE, QPERF_LOCAL_RANK     any launcher, or by hand
 *   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK     Open MPI's mpirun
 *   SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID    Slurm's srun
 *   PMIX_RANK (+ QPERF_SIZE or PMIx for size)    any PMIx launcher
 * A missing local rank reads as 0.
 */
#ifndef QPERF_RANK_ENV_H
#define QPERF_RANK_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rank_info {
	uint32_t rank, size, local_rank;
	const char *source; /* "QPERF", "OMPI", "SLURM", "PMIX" */
	int size_known; /* 0: only PMIX_RANK (size must come from PMIx) */
};

typedef const char *(*env_lookup)(const char *name);

/*
 * Fill ri from the environment.  0; 1 if no launcher variable is set (not
 * under a launcher); -1 with err naming the variable and its bad value.
 */
int rank_from_env(env_lookup get, struct rank_info *ri, char *err,
		  size_t errlen);

/*
 * Parse --rendezvous HOST:PORT, [IPV6]:PORT or HOST (port dflt) into host
 * (room hostlen) and port.  0, or -1 with err naming the bad value.
 */
int parse_rendezvous(const char *s, uint16_t dflt, char *host,
		     size_t hostlen, uint16_t *port, char *err,
		     size_t errlen);

/*
 * Does the environment show a launcher's PMIx server (PMIX_NAMESPACE,
 * PMIX_RANK or one of the PMIX_SERVER_URI* variables)?  Then cluster mode
 * without --rendezvous finds rank 0 through PMIx (pmix_boot.h).
 */
bool pmix_env_present(env_lookup get);

/*
 * Write host and port into out (room len) as parse_rendezvous() reads
 * them back: HOST:PORT, or [HOST]:PORT when host holds a colon (IPv6).
 * 0, or -1 if it does not fit.
 */
int rendezvous_format(const char *host, uint16_t port, char *out,
		      size_t len);

#endif
