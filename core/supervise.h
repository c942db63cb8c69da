/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The server parent: accept, admit, supervise, stop.
 *
 * The parent never blocks and never reads a request.  For each
 * connection it checks the client against --allow and the slot limits
 * (16 at once, --max_per_client per address), then forks a child that
 * reads and serves the request.  The child talks to the parent over a
 * channel the parent owns (a SOCK_SEQPACKET socketpair): it asks to be
 * admitted (the parent keeps the global memory budget, --max_memory) and
 * says when a quit test has synchronised.  A child never signals anyone.
 *
 * The watchdog lives in the parent: a child must start moving data within
 * --max_setup, keep moving it (progress.h), and end within its test time
 * (or --max_time for a test by count) plus --max_setup.  A child that
 * does not is killed, and the parent writes why to its log and to the
 * client, on its own copy of the control connection.  After quit,
 * SIGTERM, SIGINT or SIGQUIT the parent stops accepting, gives running
 * children a short grace, ends the rest the same way and exits 0; every
 * quit is logged with the client's address.
 *
 * With --secret_file a connection takes one of the 16 slots only when it
 * is admitted, which is after it proved the secret; until then it is one
 * of a separate, smaller pool of unauthenticated connections with 2 s to
 * authenticate (supervise.c, PREAUTH_*).  Out of descriptors (EMFILE,
 * ENFILE) the parent says so once and rests the listener a while instead
 * of retrying accept() at once.
 */
#ifndef QPERF_SUPERVISE_H
#define QPERF_SUPERVISE_H

#include <stddef.h>
#include <stdint.h>

#include "opts.h"

/* What a child tells the parent once its request is valid. */
struct admit {
	uint32_t req_index; /* test index (spec §2.4) */
	uint32_t data; /* 1: a test that moves data; 0: conf, quit */
	uint64_t mem; /* bytes of buffers the test allocates */
	uint32_t qps; /* --qps above one: their queues are part of mem */
	uint32_t conns; /* --conns above one: their socket buffers too */
	uint64_t time_ns; /* 0: by count (or until EOF) */
	uint64_t timeout_ns; /* the request's timeout, after clamping */
	uint64_t no_msgs;
};

/*
 * Child: ask the parent to admit the request.  Returns 0, or -1 with the
 * parent's refusal (or why it could not ask) in err.  Blocks for at most
 * a few seconds.  Outside a supervised child it admits at once.
 */
int superv_admit(const struct admit *a, char *err, size_t errlen);

/* Child: a quit test has synchronised; the parent stops the server. */
void superv_quit(void);

/*
 * Parent: serve connections on lfd until stopped, each in a child running
 * serve(fd, p) whose return value is the child's exit status.  Returns
 * the server's exit status (0 after quit or a stop signal).  Prints its
 * own errors and the watchdog's messages on stderr.
 */
int superv_run(const struct plan *p, int lfd,
	       int (*serve)(int fd, const struct plan *p));

/* The default --max_memory: a quarter of RAM or of the cgroup limit. */
uint64_t superv_default_budget(void);

#endif
