/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small sysfs files under one root: $SYSFS_PATH when set (rdma-core's
 * convention, which is also how tests plant a machine: softverbs/
 * sysfs-plant), else /sys.  Reads only; never prints.
 */
#ifndef QPERF_SYSFS_H
#define QPERF_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/* The root: $SYSFS_PATH without a trailing '/', or "/sys". */
const char *sysfs_root(void);

/*
 * Read root/PATH (PATH from fmt, relative to the root) into buf: at most
 * len - 1 bytes, the trailing newline removed.  0, or -1 (absent,
 * unreadable, empty, or the path too long).
 */
int sysfs_read(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same as a decimal number into *v. */
int sysfs_long(long *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last component of the target of the symlink root/PATH into buf (a
 * device's PCI address: class/infiniband/mlx5_0/device).  0 or -1. */
int sysfs_link_name(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The name of the first entry (by name) of the directory root/PATH,
 * dot entries aside, into buf.  0 or -1 (none, or the name too long). */
int sysfs_first_entry(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Is cpu in the kernel's CPU list text ("0-3,8,10-11")? */
bool sysfs_cpulist_has(const char *list, unsigned cpu);
/* The NUMA node whose devices/system/node/nodeN/cpulist holds cpu, or
 * -1 (no such file: a machine without NUMA in sysfs). */
int sysfs_cpu_node(unsigned cpu);

#endif
