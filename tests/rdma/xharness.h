/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A two-process harness for the verbs transports' driver (xport_test).
 * Each case runs as two forked processes, role 0 (the client) and role 1
 * (the server), joined by a socketpair that implements struct chan (and
 * doubles as an out-of-band line for barriers and values).  Each role
 * gets SOFTVERBS_NODE=1/2, a fabric of its own and the case's extra
 * environment before its first verbs call.  A crash, hang, sanitizer
 * report or failed check in either role fails the case; the others
 * still run.  The last line is "N passed, N failed".  The roles are run
 * by the test kit (tests/kit/check.h, kit_run_roles).
 */
#ifndef XHARNESS_H
#define XHARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/clock.h"
#include "transports/transport.h"

#define MS 1000000ull /* ns */

struct xside {
	int role; /* 0 client, 1 server */
	int fd; /* socketpair end, -1 for solo cases */
	struct chan ch;
	char err[512];
};

struct xcase {
	const char *name;
	void (*fn)(struct xside *sd);
	const char *env0, *env1; /* "K=V K=V" per role, or NULL */
	bool solo; /* one process, no peer */
	const char *only_env; /* run only when this variable is set */
};

extern const struct xcase xcases[];

/* The checks, the running and the selection are the test kit's
 * (tests/kit/check.h): CHECK(ok [, fmt, ...]) prints one ok/FAIL line. */
#include "../kit/check.h"

/* Out-of-band: both roles meet (each waits at most 20 s). */
void barrier(struct xside *sd);
void oob_send(struct xside *sd, const void *p, size_t len);
bool oob_recv(struct xside *sd, void *p, size_t len);

/* Sessions. */
void tparams_default(struct tparams *p, uint32_t msg_size);
struct test_desc mkdesc(const char *name, enum loop_kind loop, enum op op,
			uint32_t depth, const struct transport *tp);
/* Open s for this role; returns open()'s result (error in sd->err). */
int xs_open(struct xside *sd, struct tsess *s, const struct test_desc *t,
	    const struct tparams *p);
/* close() (twice: it must be idempotent) and free priv. */
void xs_close(struct tsess *s);
/* Collect exactly want completions within timeout ns into c (capacity
 * want).  Returns the number collected, or -1 (error in sd->err). */
int collect(struct xside *sd, struct tsess *s, struct tcomp *c, int want,
	    uint64_t timeout);
/* Set the channel's dialect: ext = 0.5 peer with the NODE extension. */
void chan_mode(struct xside *sd, bool ext, uint32_t caps);
int count_fds(void);
bool contains(const char *hay, const char *needle);

#endif
