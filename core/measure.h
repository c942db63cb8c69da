/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measurement engine: the test timer, the measured window (monotonic
 * ns plus /proc/stat) and the measurement loops, each written once and
 * generic over the transport (transports/transport.h).  The loops call
 * only the transport's post() and poll() and count by 0.4.11's rules
 * (spec §3.2-3.3): sends and RDMA writes when posted, receives, reads and
 * atomics when they complete, nothing that the end of the test cut short.
 *
 * Timer: SIGALRM, installed without SA_RESTART so that a blocking call
 * returns EINTR when the time is up; after the first expiry it repeats
 * every 10 ms so that a call started just after the check is interrupted
 * too (spec §1.4).  The handler only sets a flag.
 */
#ifndef QPERF_MEASURE_H
#define QPERF_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"
#include "lib/hist.h"
#include "lib/pace.h"
#include "lib/types.h"

/*
 * Set by the test timer's SIGALRM handler (measure.c): the test is over.
 * Loops check it after every blocking call; transports see it through
 * their session's stop pointer (struct tsess).
 */
extern volatile sig_atomic_t timer_fired;

struct ival;
struct tsess;
struct test_desc;
struct hist;

/*
 * Install the SIGALRM handler and ignore SIGPIPE.  Call once.  Reads
 * QPERF_NO_LAT_TIMING: set, the latency loops time nothing (only for
 * bench/compare-timing.sh, which measures what the timing costs).
 */
void measure_init(void);

/* False if QPERF_NO_LAT_TIMING switched per-round-trip timing off. */
bool measure_lat_timing(void);

/*
 * Catch SIGINT, SIGTERM and SIGHUP (client with --json or --json_stream):
 * the handler only records the first signal; a running loop ends as if
 * its time were up, and every later control-connection wait (ctl.c) and
 * measure_start() fail with measure_interrupt_text() ("interrupted by
 * SIGTERM"), so the run unwinds and its JSON is closed.
 */
void measure_catch_interrupt(void);
bool measure_interrupted(void);
/* The signal that interrupted the run (0: none), and the error text. */
int measure_interrupt_signal(void);
const char *measure_interrupt_text(void);
/* The flag behind measure_interrupted() (the signal's number), for
 * struct ctl's intr. */
const volatile sig_atomic_t *measure_interrupt_flag(void);

/*
 * A client test run until interrupted (-t 0 without -n): on between its
 * setup and its end.  A first SIGINT, SIGTERM or SIGHUP once its window
 * has started ends the window as the timer would (measure_end_soon()),
 * and the test ends well (STAT, report); any other signal is an abort:
 * measure_abort_flag() is set, which the control connection's waits
 * watch (struct ctl's intr) and the loops see as the end of the time.
 */
void measure_forever(bool on);
const volatile sig_atomic_t *measure_abort_flag(void);
bool measure_aborted(void);

/*
 * End the measured window now, as the timer would: arm it to fire at
 * once and every 10 ms after.  Async-signal-safe in practice (one
 * setitimer(2) system call); the server's watch for the client's "test
 * done" calls it too.
 */
void measure_end_soon(void);

/*
 * Start the window: sample CPU (system and this process) and clock, arm the timer for time ns (0 =
 * no timer).  Returns 0 or -1 with err filled (bad /proc/stat).
 */
int measure_start(struct node_stat *st, uint64_t time, char *err,
		  size_t errlen);

/* Sample CPU and clock for the start of st's window, arming no timer (a
 * loop whose timer another armed): 0, or -1 with err filled. */
int measure_sample(struct node_stat *st, char *err, size_t errlen);

/* End the window (idempotent: the first call records the end). */
void measure_stop(struct node_stat *st);

/* Disarm the timer. */
void measure_disarm(void);

/* True once the timer has fired. */
bool measure_finished(void);

/* End every running loop as if the time were up (a failed stream ends
 * the others, core/streams.c).  Async-signal-safe: only sets the flag. */
void measure_end_now(void);

/* A connection-setup test's client (core/measure_conn.c): a histogram
 * per step of a transaction (the transport's conn_steps) and one of
 * whole transactions. */
struct conn_hist {
	struct hist step[CONN_STEPS_MAX];
	struct hist txn;
	/* a storm (--qps N): N per transaction; the sum of each step's
	 * time over the storm (ns), across the storms counted */
	uint32_t qps;
	uint64_t storm_ns[CONN_STEPS_MAX];
};

/* Empty h for a transaction of steps. */
void conn_hist_init(struct conn_hist *h, const struct conn_steps *steps);

/*
 * A connection-setup test's figures from the client's histograms (h, or
 * NULL: not timed) and window (st: its transactions are st->s.msgs) into
 * r, whose steps are steps.  msg_size: 0 for a test without a message.
 * Pure.
 */
void conn_summarize(const struct conn_hist *h, const struct node_stat *st,
		    uint32_t msg_size, const struct conn_steps *steps,
		    struct conn_res *r);

/* One side's loop state. */
struct lrun {
	struct tsess *s;
	struct node_stat st; /* what this side measured */
	/*
	 * The idle side of a one-sided test (the server of RDMA read and
	 * atomics) has nothing to poll: it calls wait_peer(), which returns
	 * when the timer fires or, in a count test, when the peer says it
	 * is done.  0, or -1 with err filled.
	 */
	int (*wait_peer)(void *arg, char *err, size_t errlen);
	void *wait_arg;
	/*
	 * Where this side times its round trips (NULL: not timed), with the
	 * monotonic clock, one read per round trip: a ping-pong round trip
	 * runs from one answer to the next (the first from its post), a
	 * write-poll one from the peer's write landing to the next, a
	 * one-sided latency operation (depth 1) from the previous
	 * completion (or its post) to its own.  An exchange the end of the
	 * test cut short, lost or failed is not timed.
	 */
	struct hist *hist;
	struct ival *iv; /* interval reports (interval.h), or NULL */
	/*
	 * One of several streams (core/streams.c): the owner of the test's
	 * window arms and disarms the timer; loop_run() only samples this
	 * stream's window and leaves the "time is up" flag alone.
	 */
	bool shared_timer;
	/*
	 * --rate (lib/pace.h): this side's schedule and the spread of what
	 * it sent, set up by loop_run() for a side that posts (a sender of
	 * a bandwidth test, the reader of RDMA read).  paced false: no
	 * --rate, or not a posting side.  pace_cost: units per message.
	 */
	bool paced;
	uint64_t pace_cost;
	struct pace pace;
	/* Open-loop latency (core/openloop.c): the initiator's counts. */
	struct ol_stat ol;
	/* A connection test's client times its steps here (NULL: not
	 * timed; core/measure_conn.c). */
	struct conn_hist *conn;
};

/*
 * Before the "before" sync: post the initial receives, set the marker
 * bytes of write-poll latency.  Returns 0 or -1 with err filled.
 */
int loop_prep(struct lrun *lr, char *err, size_t errlen);

/*
 * After the sync: start the window, run the test's loop for this side,
 * stop the window and the timer.  Returns 0 or -1 with err filled.
 */
int loop_run(struct lrun *lr, char *err, size_t errlen);

/* Does test t with parameters p run open loop (core/openloop.c): --rate
 * and arrivals on a ping-pong latency test that takes --rate? */
struct tparams;
bool loop_open(const struct test_desc *t, const struct tparams *p);

/* The requests an open-loop test of t with p would keep in flight (its
 * tparams.slots, for the transport to size for); 0: a closed loop. */
uint32_t loop_open_slots(const struct test_desc *t, const struct tparams *p);

/* True if this role of test t has nothing to poll (see wait_peer). */
bool loop_idle_side(const struct test_desc *t, bool server);

#endif
