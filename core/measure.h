/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measurement engine: the test timer, the measured window (monotonic
 * ns plus /proc/stat), and the bandwidth and latency loops, each written
 * once and generic over the socket style.
 *
 * Timer: SIGALRM, installed without SA_RESTART so that a blocking send or
 * receive returns EINTR when the time is up; after the first expiry it
 * repeats every 10 ms so that a call started just after the check is
 * interrupted too (spec §1.4).  The handler only sets a flag.
 */
#ifndef QPERF_MEASURE_H
#define QPERF_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "types.h"

struct xport;

/* One side of one running socket test. */
struct run {
	const struct xport *xp;
	bool server;
	int fd; /* data socket, -1 if none */
	uint32_t msg_size; /* bytes */
	uint64_t time; /* ns; 0 = no time limit */
	uint64_t no_msgs; /* 0 = no count limit */
	uint64_t idle; /* ns: a data socket idle this long ends the test */
	bool access_recv;
	bool count_dgram_idle_end; /* dgram receiver: idle ends the test */
	char *buf;
	struct sockaddr_storage peer; /* datagram peer (server latency) */
	socklen_t peerlen;
	struct node_stat st;
	int last_errno; /* last send/receive error, for "every send failed" */
};

/* Install the SIGALRM handler and ignore SIGPIPE.  Call once. */
void measure_init(void);

/*
 * Start the window: sample CPU and clock, arm the timer for r->time.
 * Returns 0 or -1 with err filled (bad /proc/stat).
 */
int measure_start(struct run *r, char *err, size_t errlen);

/* End the window (idempotent: the first call records the end). */
void measure_stop(struct run *r);

/* Disarm the timer. */
void measure_disarm(void);

/* Loops.  Each returns 0, or -1 with err filled on a fatal error. */
int loop_bw_send(struct run *r, char *err, size_t errlen);
int loop_bw_recv(struct run *r, char *err, size_t errlen);
int loop_lat(struct run *r, bool initiator, char *err, size_t errlen);

struct ctl;

/*
 * The measured phase, the same on both sides: allocate r->buf (the
 * caller frees it), set the idle limit on the data socket, exchange the
 * "before" sync on c, run this side's loop (lat: ping-pong, the client
 * starting; else the client sends and the server receives) and close the
 * data socket.  Returns 0 or -1 with err filled.
 */
int measure_phase(struct run *r, struct ctl *c, bool lat, char *err,
		  size_t errlen);

/* True once the timer has fired. */
bool measure_finished(void);

#endif
