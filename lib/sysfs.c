// SPDX-License-Identifier: GPL-2.0-only
/* Small sysfs files under $SYSFS_PATH or /sys (lib/sysfs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sysfs.h"

const char *sysfs_root(void)
{
	static __thread char root[PATH_MAX];
	const char *e = getenv("SYSFS_PATH");
	size_t n;

	if (!e || !*e)
		return "/sys";
	n = strlen(e);
	if (n >= sizeof(root))
		return "/sys";
	memcpy(root, e, n + 1);
	while (n > 1 && root[n - 1] == '/')
		root[--n] = '\0';
	return root;
}

static int vpath(char *path, size_t len, const char *fmt, va_list ap)
{
	int n = snprintf(path, len, "%s/", sysfs_root());
	int m;

	if (n < 0 || (size_t)n >= len)
		return -1;
	m = vsnprintf(path + n, len - (size_t)n, fmt, ap);
	return m < 0 || (size_t)m >= len - (size_t)n ? -1 : 0;
}

static int read_path(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len < 2)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n ? 0 : -1;
}

int sysfs_read(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	return rc < 0 ? -1 : read_path(path, buf, len);
}

int sysfs_long(long *v, const char *fmt, ...)
{
	char path[PATH_MAX], buf[32], *end;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (rc < 0 || read_path(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*v = strtol(buf, &end, 0);
	return errno || end == buf || *end ? -1 : 0;
}

int sysfs_link_name(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base || strlen(base) >= len)
		return -1;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

int sysfs_first_entry(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	struct dirent *e;
	va_list ap;
	DIR *d;
	int rc;

	va_start(ap, fmt);
	rc = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (rc < 0 || !(d = opendir(path)))
		return -1;
	rc = -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= len ||
		    (rc == 0 && strcmp(e->d_name, buf) >= 0))
			continue;
		memcpy(buf, e->d_name, strlen(e->d_name) + 1);
		rc = 0;
	}
	closedir(d);
	return rc;
}

bool sysfs_cpulist_has(const char *list, unsigned cpu)
{
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return false;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return false;
			p = end;
		}
		if (cpu >= a && cpu <= b)
			return true;
		if (*p != ',')
			return false;
		p++;
	}
	return false;
}

#define NODES_MAX 1024
int sysfs_cpu_node(unsigned cpu)
{
	char list[4096];
	int misses = 0;

	/* Nodes may be sparse: look on past a few missing numbers. */
	for (int n = 0; n < NODES_MAX && misses < 8; n++) {
		if (sysfs_read(list, sizeof(list),
			       "devices/system/node/node%d/cpulist", n) < 0) {
			misses++;
			continue;
		}
		if (sysfs_cpulist_has(list, cpu))
			return n;
	}
	return -1;
}
