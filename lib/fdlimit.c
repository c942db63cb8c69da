// SPDX-License-Identifier: GPL-2.0-only
/* Descriptors against RLIMIT_NOFILE; see fdlimit.h. */
#include <dirent.h>
#include <sys/resource.h>

#include "fdlimit.h"

uint64_t fdlimit_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n ? n - 1 : 0; /* the directory's own descriptor */
}

int fdlimit_reserve(uint64_t want, uint64_t spare, uint64_t *need,
		    uint64_t *open, uint64_t *hard)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY)
		return 0;
	*open = fdlimit_open();
	*need = *open + spare + want;
	*hard = rl.rlim_max;
	if (*need > rl.rlim_max)
		return 1;
	if (rl.rlim_cur != RLIM_INFINITY && *need > rl.rlim_cur) {
		rl.rlim_cur = *need;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 0;
}
