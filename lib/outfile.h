/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output files created the safe way (--plot, cluster heat maps, -lpf):
 * qperf may run as root and write into a shared directory, so no name
 * planted there may make it write somewhere else, and a FIFO must never
 * hang it.  The one way qperf creates the files it writes.
 *
 * The file is written under a new temporary name in the same directory
 * (mkostemp(): O_EXCL, never a planted name) and renamed onto path when
 * complete, so readers never see it half written and a link at path is
 * never written through.  path itself is refused, before anything is
 * written, when it exists and is not a regular file: a symbolic link,
 * FIFO, device or directory is neither followed nor replaced.  A regular
 * file is replaced: its other hard links keep the old contents.
 */
#ifndef QPERF_LIB_OUTFILE_H
#define QPERF_LIB_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

struct outfile {
	int fd; /* the temporary file's, O_CLOEXEC; -1 once closed */
	char path[4096];
	char tmp[4096 + 8];
};

/*
 * Create o's temporary file for path with mode (less the umask).
 * Returns 0, or -1 with why filled: the reason alone ("it is a symbolic
 * link; not followed", or strerror), for the caller to prefix with the
 * option and path.
 */
int outfile_open(struct outfile *o, const char *path, mode_t mode,
		 char *why, size_t whylen);

/*
 * Close o->fd unless the caller has (fclose of an fdopen()ed stream: set
 * o->fd = -1 first) and rename the file onto its path.  Returns 0, or -1
 * with why filled (the temporary file is then removed).
 */
int outfile_commit(struct outfile *o, char *why, size_t whylen);

/* Give up: close o->fd if open and remove the temporary file. */
void outfile_abort(struct outfile *o);

#endif
