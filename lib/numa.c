// SPDX-License-Identifier: GPL-2.0-only
/*
 * NUMA placement and CPU affinity (numa.h).  libnuma does the work; this file only
 * checks nodes and turns failures into messages.  Without HAVE_NUMA the
 * same functions exist and report that placement is not built in.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "numa.h"

#ifdef HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#include <pthread.h>

/*
 * libnuma fills its per-node CPU mask cache (numa_node_to_cpus, which
 * numa_node_of_cpu calls) on first use without a lock: streams that ask
 * at the same moment each allocate the cache and all but one leak it
 * (LeakSanitizer saw 8 KiB in about 1 of 20 `-st 4 -ca 0-1 udp_bw` runs).
 * Every call that can fill it holds this lock.
 */
static pthread_mutex_t numa_lock = PTHREAD_MUTEX_INITIALIZER;

const char *qnuma_status(void)
{
	return "built";
}

int qnuma_nodes_count(void)
{
	if (numa_available() < 0)
		return 0;
	return numa_max_node() + 1;
}

int qnuma_cpu_node(unsigned cpu)
{
	int node;

	if (numa_available() < 0)
		return -1;
	pthread_mutex_lock(&numa_lock);
	node = numa_node_of_cpu((int)cpu);
	pthread_mutex_unlock(&numa_lock);
	return node;
}

int qnuma_node_check(int node, const char *what, char *err, size_t errlen)
{
	int n = qnuma_nodes_count();

	if (n == 0)
		return seterr(err, errlen, "%s: NUMA node %d: this kernel has no NUMA support (libnuma: numa_available failed)",
			      what, node);
	if (node < 0 || node >= n || !numa_bitmask_isbitset(
						     numa_all_nodes_ptr,
						     (unsigned)node))
		return seterr(err, errlen, "%s: NUMA node %d does not exist on this host (nodes 0..%d)",
			      what, node, n - 1);
	return 0;
}

int qnuma_bind_mem(void *p, size_t len, int node, char *err, size_t errlen)
{
	struct bitmask *m = numa_allocate_nodemask();
	long rc;

	numa_bitmask_setbit(m, (unsigned)node);
	/* MPOL_BIND, not preferred: a full node fails the allocation
	 * rather than moving it elsewhere unseen.  mbind() itself rather
	 * than numa_tonode_memory(), which reports errors on stderr. */
	rc = mbind(p, len, MPOL_BIND, m->maskp, m->size + 1, 0);
	numa_free_nodemask(m);
	if (rc < 0)
		return seterr_errno(err, errlen, errno,
				    "cannot bind %zu bytes to NUMA node %d", len,
				    node);
	return 0;
}

int qnuma_run_on(int node, cpu_set_t *saved, char *err, size_t errlen)
{
	struct bitmask *m = numa_allocate_cpumask();
	cpu_set_t set;
	int n = 0;

	CPU_ZERO(saved);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(*saved), saved) < 0) {
		numa_free_cpumask(m);
		return seterr_errno(err, errlen, errno,
				    "cannot read the CPU affinity");
	}
	pthread_mutex_lock(&numa_lock);
	if (numa_node_to_cpus(node, m) == 0)
		for (unsigned c = 0; c < m->size && c < CPU_SETSIZE; c++)
			if (numa_bitmask_isbitset(m, c)) {
				CPU_SET(c, &set);
				n++;
			}
	pthread_mutex_unlock(&numa_lock);
	numa_free_cpumask(m);
	if (n == 0)
		return seterr(err, errlen, "NUMA node %d has no CPUs", node);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return seterr_errno(err, errlen, errno,
				    "cannot run on the CPUs of NUMA node %d",
				    node);
	return 0;
}

static void qnuma_prefer(int node)
{
	numa_set_preferred(node);
}

void qnuma_restore_cpus(const cpu_set_t *saved)
{
	sched_setaffinity(0, sizeof(*saved), saved);
}

#else /* !HAVE_NUMA */

const char *qnuma_status(void)
{
	return "not built";
}

int qnuma_nodes_count(void)
{
	return 0;
}

int qnuma_cpu_node(unsigned cpu)
{
	(void)cpu;
	return -1;
}

int qnuma_node_check(int node, const char *what, char *err, size_t errlen)
{
	return seterr(err, errlen, "%s: NUMA node %d: this qperf was built without libnuma (NO_NUMA=1 or no numa.h)",
		      what, node);
}

int qnuma_bind_mem(void *p, size_t len, int node, char *err, size_t errlen)
{
	(void)p;
	(void)len;
	return qnuma_node_check(node, "placement", err, errlen);
}

int qnuma_run_on(int node, cpu_set_t *saved, char *err, size_t errlen)
{
	CPU_ZERO(saved);
	return qnuma_node_check(node, "placement", err, errlen);
}

static void qnuma_prefer(int node)
{
	(void)node;
}

void qnuma_restore_cpus(const cpu_set_t *saved)
{
	(void)saved;
}

#endif

int set_cpu_affinity(uint64_t aff, char *err, size_t errlen)
{
	cpu_set_t set;
	unsigned long long cpu = (unsigned long long)aff - 1;
	int node;

	if (!aff)
		return 0;
	if (cpu >= CPU_SETSIZE)
		return seterr(err, errlen,
			      "cannot set processor affinity (cpu %llu): %s",
			      cpu, strerror(EINVAL));
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return seterr_errno(err, errlen, errno,
				    "cannot set processor affinity (cpu %llu)",
				    cpu);
	/* Allocate test buffers on the memory node of the chosen CPU. */
	node = qnuma_cpu_node((unsigned)cpu);
	if (node >= 0)
		qnuma_prefer(node);
	return 0;
}

bool cpu_usable(uint64_t cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return false;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return true; /* cannot tell: leave it to sched_setaffinity */
	return CPU_ISSET((int)cpu, &set);
}

int cpu_node_count(int node)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int count = 0;

	if (n < 1)
		return 1;
	if (node < 0 || qnuma_nodes_count() < 1)
		return (int)n;
	for (long c = 0; c < n && c < CPU_SETSIZE; c++)
		count += qnuma_cpu_node((unsigned)c) == node;
	return count ? count : (int)n;
}

int cpu_usable_count(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	return CPU_COUNT(&set);
}
