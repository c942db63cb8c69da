/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NUMA placement through libnuma (the memory of a buffer and the CPUs
 * of the calling thread on one node) and CPU affinity.  The only file
 * that wraps libnuma: built without it (NO_NUMA=1, or no numa.h) every
 * placement call says so in its error and places nothing.  No call
 * blocks; none prints.
 */
#ifndef QPERF_NUMA_H
#define QPERF_NUMA_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "built" when NUMA placement is compiled in, else "not built". */
const char *qnuma_status(void);

/* Nodes of this host (highest node number + 1); 0 if libnuma is absent
 * from the build or unavailable on this kernel. */
int qnuma_nodes_count(void);

/* The node of CPU cpu (0-based), or -1 if unknown. */
int qnuma_cpu_node(unsigned cpu);

/*
 * Check that node exists here: 0, or -1 with err saying why not ("NUMA
 * node 3 does not exist on this host (nodes 0..0)", or that libnuma is
 * missing).  what names the source in the message ("--numa_node",
 * "device softv0").
 */
int qnuma_node_check(int node, const char *what, char *err, size_t errlen);

/*
 * Bind len bytes at p (page aligned, not yet touched or registered) to
 * node: pages are then allocated there when first written.  0, or -1
 * with err filled.
 */
int qnuma_bind_mem(void *p, size_t len, int node, char *err, size_t errlen);

/*
 * Run the calling thread on the CPUs of node, saving its CPU mask in
 * *saved for qnuma_restore_cpus().  0, or -1 with err filled.
 */
int qnuma_run_on(int node, cpu_set_t *saved, char *err, size_t errlen);
void qnuma_restore_cpus(const cpu_set_t *saved);

/*
 * Pin this process to CPU aff-1 (0.4.11's 1-based -ca; 0 = leave) and,
 * with libnuma, prefer that CPU's memory node.  Returns 0 or -1 with err
 * filled.
 */
int set_cpu_affinity(uint64_t aff, char *err, size_t errlen);

/*
 * May this process run on CPU number cpu (0-based)?  True when the
 * affinity mask cannot be read.  cpu_usable_count() is the number of
 * CPUs it may run on (0 if unknown).  Do not block.
 */
bool cpu_usable(uint64_t cpu);
/* The online CPUs of NUMA node node (-1, or no NUMA: of the machine),
 * whatever this process's affinity; at least 1. */
int cpu_node_count(int node);
int cpu_usable_count(void);

#endif
