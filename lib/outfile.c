// SPDX-License-Identifier: GPL-2.0-only
/* Output files created the safe way; see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "err.h"

/* Why path is refused (it exists and is not a regular file), or NULL. */
static const char *not_regular(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0 || S_ISREG(st.st_mode))
		return NULL;
	if (S_ISLNK(st.st_mode))
		return "it is a symbolic link; not followed or replaced";
	if (S_ISFIFO(st.st_mode))
		return "it is a FIFO, not a regular file";
	if (S_ISDIR(st.st_mode))
		return "it is a directory";
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return "it is a device, not a regular file";
	return "it is not a regular file";
}

int outfile_open(struct outfile *o, const char *path, mode_t mode,
		 char *why, size_t whylen)
{
	const char *bad = not_regular(path);
	mode_t mask;

	o->fd = -1;
	o->tmp[0] = '\0';
	if (bad)
		return seterr(why, whylen, "%s", bad);
	if (strlen(path) >= sizeof(o->path))
		return seterr(why, whylen, "%s", strerror(ENAMETOOLONG));
	xsnprintf(o->path, sizeof(o->path), "%s", path);
	xsnprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		o->tmp[0] = '\0';
		return seterr(why, whylen, "%s", strerror(errno));
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(o->fd, mode & ~mask) < 0) { /* mkstemp makes it 0600 */
		int e = errno;

		outfile_abort(o);
		return seterr(why, whylen, "%s", strerror(e));
	}
	return 0;
}

int outfile_commit(struct outfile *o, char *why, size_t whylen)
{
	const char *bad;
	int e = 0;

	if (o->fd >= 0 && close(o->fd) < 0)
		e = errno;
	o->fd = -1;
	if (e) {
		outfile_abort(o);
		return seterr(why, whylen, "%s", strerror(e));
	}
	/* Checked again: a name put there since is not replaced either. */
	bad = not_regular(o->path);
	if (bad || rename(o->tmp, o->path) < 0) {
		e = errno;
		outfile_abort(o);
		return seterr(why, whylen, "%s", bad ? bad : strerror(e));
	}
	o->tmp[0] = '\0';
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}
