/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's bootstrap through the launcher's PMIx server (mpirun,
 * srun --mpi=pmix), for runs without --rendezvous.  libpmix is opened at
 * run time with dlopen (QPERF_PMIX_LIB, default libpmix.so.2), never
 * linked, so the binary runs where it is absent; only its headers are
 * needed to build (libpmix-dev; NO_PMIX=1 builds without them).
 *
 * Only rank 0's rendezvous address goes through PMIx: rank 0 puts it,
 * every rank fences, the others get it.  Everything after that (every
 * rank's own address and port, the schedule, the results) goes over
 * qperf's control connections exactly as with --rendezvous, so the two
 * paths differ in this one step.
 */
#ifndef QPERF_PMIX_BOOT_H
#define QPERF_PMIX_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "rank_env.h"

#define PMIX_BOOT_LIB "libpmix.so.2" /* Debian's libpmix2 */
#define PMIX_BOOT_KEY "qperf.rendezvous"

/*
 * Exchange rank 0's rendezvous address through PMIx.  lib: the library to
 * open (NULL: $QPERF_PMIX_LIB or PMIX_BOOT_LIB).  On rank 0 (ri->rank)
 * rv holds its HOST:PORT and is published; on the others rv (room rvlen)
 * receives it.  When ri->size_known is 0 (only PMIX_RANK was set), size
 * and local rank are filled from PMIx.  The launcher's rank must be
 * PMIx's.  Blocks up to timeout_s seconds in the fence (every rank must
 * come).  Initialises and finalises PMIx before it returns (call it
 * before forking); the library stays loaded (see pmix_boot.c).  0, or -1
 * with err naming what failed ("PMIx: ...").
 */
int pmix_boot(const char *lib, struct rank_info *ri, char *rv,
	      size_t rvlen, int timeout_s, char *err, size_t errlen);

/* "dlopen" if built with PMIx support, else "not built". */
const char *pmix_boot_status(void);

#endif
