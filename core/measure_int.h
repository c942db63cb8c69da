/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the loops of core/measure.c share with the open-loop latency loop
 * (core/openloop.c): shorthands over the session and the counting
 * primitives, each written once in measure.c.  Internal to the loops.
 */
#ifndef QPERF_MEASURE_INT_H
#define QPERF_MEASURE_INT_H

#include "transports/transport.h"
#include "measure.h"

#define POLL_BATCH 64 /* completions taken per poll */
#define SEND_FAILED (-2) /* loop_post_sends(): one failed, counted in s.errs */
#define SEND_AGAIN (-3) /* loop_post_sends(), s->nowait: none could start */
#define fired timer_fired

/* Shorthands over the session. */
static inline const struct test_desc *T(const struct lrun *lr)
{
	return lr->s->t;
}

static inline bool lossy(const struct lrun *lr)
{
	return (lr->s->tp->flags & TF_LOSSY) != 0;
}

static inline uint64_t count_of(const struct lrun *lr)
{
	return lr->s->p.no_msgs;
}

/* Run until interrupted (-t 0 without -n): neither time nor count ends it;
 * a lossy side must not take the peer's quiet for the end. */
static inline bool until_told(const struct lrun *lr)
{
	return !lr->s->p.time && !count_of(lr);
}

static inline bool count_reached(const struct lrun *lr, uint64_t n)
{
	return count_of(lr) && n >= count_of(lr);
}

/* The peer sent nothing for the idle limit: stop the window, fill err
 * ("no data <what> for N s: the <peer> stalled").  Returns -1. */
int loop_idle_error(struct lrun *lr, const char *what, char *err,
		    size_t errlen);

/* Post n copies of op (no counting).  What the transport's post()
 * returns. */
/* Count a completion of an RDMA read or atomic (the initiator's side of
 * a one-sided test). */
void loop_count_onesided(struct lrun *lr, const struct tcomp *c);
int loop_post(struct lrun *lr, enum op op, uint32_t n, char *err,
	      size_t errlen);

/*
 * Post up to n sends (or writes) and count them as 0.4.11 does, on post.
 * Returns the number posted (0: the test is over), SEND_FAILED when the
 * transport said TP_SOFT (the error is counted and nothing was posted, so
 * no completion will come), SEND_AGAIN when s->nowait is set and the
 * send could not start without waiting (nothing posted or counted), or
 * -1 with err filled.
 */
int loop_post_sends(struct lrun *lr, uint32_t n, char *err, size_t errlen);

/* Repost n used receives unless the test is over.  0, or -1 with err. */
int loop_repost_recvs(struct lrun *lr, uint32_t n, char *err, size_t errlen);

/* Count one receive completion (an error status as an error). */
void loop_count_recv(struct lrun *lr, const struct tcomp *c);

/* Up to POLL_BATCH completions into c, waiting at most wait ns: the
 * transport's poll(), the window stopped on an error. */
int loop_poll_some(struct lrun *lr, struct tcomp *c, uint64_t wait,
		   char *err, size_t errlen);

/* Open-loop latency (core/openloop.c). */


/* The open-loop loop for either role.  0, or -1 with err filled. */
int run_openloop(struct lrun *lr, char *err, size_t errlen);

/* ns the responder of an open-loop test answers past its time before its
 * own timer ends it (the client's "test done" normally ends it first). */
#define OL_SERVER_GRACE (2 * NS_PER_SEC)

/* A connection-setup test (LOOP_CONN, core/measure_conn.c) for either
 * role.  0, or -1 with err filled. */
int run_conn(struct lrun *lr, char *err, size_t errlen);

#endif
