/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One side of one data test, the same routine for client and server:
 * open the transport, post the initial work, exchange the "before" sync,
 * run the loop, exchange STAT and the "after" sync, close.  The control
 * connection reaches the transport only through a struct chan built here.
 */
#ifndef QPERF_SESSION_H
#define QPERF_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "transports/transport.h"
#include "ctl.h"
#include "interval.h"
#include "lib/counters.h"
#include "lib/pace.h"
#include "lib/types.h"

/*
 * Does a side with parameters p, talking to a peer that announced caps
 * (0 for a 0.4.11 peer: ext false), run until interrupted?
 */
bool session_forever(const struct tparams *p, bool ext, uint32_t caps);

struct tside {
	const struct test_desc *t;
	bool server;
	struct tparams p; /* this side's parameters */
	struct ctl *c;
	bool ext; /* the peer speaks the 0.5 dialect */
	int ext_ver; /* 1: early 0.5 fixed blocks, 2: TLV */
	uint32_t peer_caps; /* CAP_* */
	uint64_t interval; /* ns: -I, 0 = no interval reports */
	struct ival_sink ival_out; /* client: where its interval records go */
	bool ival_peer; /* client: the server sends its records too */
	/*
	 * Run until interrupted (-t 0 without -n, both ends 0.5 with
	 * CAP_FOREVER): the client's user ends the window with a signal,
	 * the client then says "test done" and the server, which has no
	 * timer either, ends its window on those words (session_run()).
	 * The caller sets it (session_forever() says whether it applies).
	 */
	bool forever;
	/*
	 * Client, --clients (core/clients.c): called once the data path is
	 * set up, just before the "before" sync that starts the window, so
	 * that K clients start together.  timeout: ns it may wait.  0 to go
	 * on, -1 with err filled.  NULL: none.
	 */
	int (*barrier)(void *arg, uint64_t timeout, char *err, size_t errlen);
	void *barrier_arg;
	/* Results. */
	struct node_stat st; /* what this side measured */
	struct node_stat peer; /* client: the server's STAT */
	/*
	 * Latency tests: this side's round trips (NULL: not timed, or
	 * QPERF_NO_LAT_TIMING) and, on a client, the server's as its STAT
	 * block brought them (empty from a 0.4.11 or older 0.5 server).
	 * Owned; session_release() frees them.
	 */
	struct hist *hist, *peer_hist;
	/* A connection-setup test's client: its steps' histograms (NULL
	 * otherwise). */
	struct conn_hist *conn;
	/*
	 * --streams (p.streams > 1): what each stream counted (sst, this
	 * side, every counter) and, on a client, the server's per-stream s
	 * and r counters (peer_sst); nstreams entries each, sharing the
	 * window of st and peer.  NULL for one stream.  Owned, freed by
	 * session_release().
	 */
	uint32_t nstreams;
	struct node_stat *sst, *peer_sst;
	/*
	 * --qps (p.qps > 1): qps[0] this side's QPs as its transport counted
	 * them and, on a client, qps[1] the server's from its STAT block
	 * (valid false if it sent none); NULL with one QP.  Owned, freed by
	 * session_release().
	 */
	struct qp_side *qps;
	/* Loss and error counters over the window (core/session_cnt.h):
	 * this side's and, on a client, the server's (valid false: none). */
	struct cnt_end cnt, peer_cnt;
	/* Path facts (core/pathrun.h): this side's, gathered when its data
	 * path opened (a server only for a client with CAP_FACTS), and on a
	 * client the server's from its STAT block. */
	bool have_facts, have_peer_facts;
	struct path_facts facts, peer_facts;
	/* --rate: this side paced (lr->paced of its streams), the kernel
	 * did (TCP), and the spread of what its streams sent, merged. */
	bool paced, kernel_paced;
	struct pace pace;
	/* --rate on a latency test: the open-loop initiator's counts
	 * (core/openloop.c); arrivals 0: closed loop. */
	struct ol_stat ol;
	int last_errno; /* of the last failed send or receive */
	struct tnote notes[TNOTE_MAX]; /* the transport's, for -v */
	int nnotes;
};

/* This side's parameters from a request (the server's, or the client's
 * local request): a loop over param_table[] (core/param.h). */
void session_params(const struct req *q, struct tparams *p);

/*
 * Run this side of data test sd->t on sd->c (see the top of this file).
 * With sd->p.streams > 1 (--streams) it opens that many data paths in
 * turn and runs their loops in threads (core/streams.h); sd->st is then
 * the sum and sd->sst each stream's counters.
 * Blocks, every wait bounded by the timeout or the timer.  Returns 0, or
 * -1 with err filled; sd->c->peer_failed tells whether the peer reported
 * the error.
 */
int session_run(struct tside *sd, char *err, size_t errlen);

/*
 * Check this side's parameters p for test t against what the transport
 * sees locally (an RDMA device and port), without a peer.  Returns 0, or
 * -1 with err filled.  Blocks only on the device's own queries.
 */
int session_check(const struct test_desc *t, const struct tparams *p,
		  char *err, size_t errlen);

/* Free what session_run() left in sd (the histograms).  Idempotent. */
void session_release(struct tside *sd);

/* The capabilities this build announces (CAP_*). */
uint32_t session_caps(void);

#endif
