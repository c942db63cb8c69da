// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measured window (see measure.h): the test timer, the signals that
 * end a window or cut a run short (-t 0 ends its window on the first),
 * and the clock and CPU samples at the window's two ends.  The loops that
 * run inside it are core/measure.c.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "transports/transport.h"
#include "measure.h"
#include "output/report.h"
#include "lib/err.h"
#include "lib/clock.h"

volatile sig_atomic_t timer_fired;

/* Off only for bench/compare-timing.sh (QPERF_NO_LAT_TIMING=1). */
static bool lat_timing = true;

#define fired timer_fired

static void on_alarm(int sig)
{
	(void)sig;
	fired = 1;
}

static volatile sig_atomic_t interrupted; /* the first signal caught */
/* A test run until interrupted (-t 0): 1 while it is set up, 2 once its
 * measured window has started (a signal then ends it well). */
static volatile sig_atomic_t forever;
static volatile sig_atomic_t aborted; /* a signal that cuts the run short */

static void on_interrupt(int sig)
{
	bool ends_forever = forever == 2 && !interrupted;

	if (!interrupted)
		interrupted = sig;
	if (ends_forever) {
		measure_end_soon(); /* as if its time were up */
		return;
	}
	if (!aborted)
		aborted = sig;
	fired = 1; /* end a running loop as the timer would */
}

void measure_catch_interrupt(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool measure_interrupted(void)
{
	return interrupted != 0;
}

int measure_interrupt_signal(void)
{
	return interrupted;
}

const char *measure_interrupt_text(void)
{
	static char text[40];

	xsnprintf(text, sizeof(text), "interrupted by %s",
		  sig_name(aborted ? aborted : interrupted));
	return text;
}

const volatile sig_atomic_t *measure_interrupt_flag(void)
{
	return &interrupted;
}

void measure_forever(bool on)
{
	forever = on ? 1 : 0;
}

const volatile sig_atomic_t *measure_abort_flag(void)
{
	return &aborted;
}

bool measure_aborted(void)
{
	return aborted != 0;
}

void measure_end_soon(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 1;
	it.it_interval.tv_usec = 10000;
	setitimer(ITIMER_REAL, &it, NULL);
}

void measure_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: interrupt blocking I/O */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	lat_timing = !getenv("QPERF_NO_LAT_TIMING");
}

bool measure_lat_timing(void)
{
	return lat_timing;
}

bool measure_finished(void)
{
	return fired != 0;
}

void measure_disarm(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

void measure_end_now(void)
{
	fired = 1;
}

/* Sample CPU and clock for the start of st's window. */
int measure_sample(struct node_stat *st, char *err, size_t errlen)
{
	st->no_cpus = cpu_count();
	st->no_ticks = cpu_ticks();
	if (cpu_sample(st->time_s, err, errlen) < 0)
		return -1;
	st->proc_valid = cpu_proc_sample(&st->proc_user_s, &st->proc_sys_s);
	st->real_s = now_ns();
	st->real_e = 0;
	return 0;
}

int measure_start(struct node_stat *st, uint64_t time, char *err,
		  size_t errlen)
{
	struct itimerval it;

	fired = interrupted;
	if (interrupted)
		return seterr(err, errlen, "%s", measure_interrupt_text());
	if (measure_sample(st, err, errlen) < 0)
		return -1;
	if (forever && !time)
		forever = 2; /* from now on a signal ends the test well */
	if (time) {
		memset(&it, 0, sizeof(it));
		it.it_value.tv_sec = (time_t)(time / NS_PER_SEC);
		it.it_value.tv_usec = (suseconds_t)(time % NS_PER_SEC / 1000);
		if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
			it.it_value.tv_usec = 1;
		it.it_interval.tv_usec = 10000;
		setitimer(ITIMER_REAL, &it, NULL);
	}
	return 0;
}

void measure_stop(struct node_stat *st)
{
	char err[64];

	if (st->real_e)
		return;
	st->real_e = now_ns();
	if (st->real_e == st->real_s)
		st->real_e++;
	if (cpu_sample(st->time_e, err, sizeof(err)) < 0)
		memcpy(st->time_e, st->time_s, sizeof(st->time_e));
	if (st->proc_valid)
		st->proc_valid = cpu_proc_sample(&st->proc_user_e,
						 &st->proc_sys_e);
}
