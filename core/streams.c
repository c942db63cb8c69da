// SPDX-License-Identifier: GPL-2.0-only
/*
 * The threads of a --streams test; see streams.h.  Each thread runs
 * loop_run() on its own session; nothing here knows a transport or a
 * loop.  Start: every thread pins itself, then reports ready; when all
 * are, the main thread starts the window and the timer and opens the
 * gate.  End: the main thread polls the threads' done flags and, once the
 * time is up (or a stream failed), interrupts the ones still running.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "measure.h"
#include "lib/numa.h"
#include "streams.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

#define STREAMS_POLL_NS 2000000ULL /* 2 ms between looks at the threads */
#define STREAMS_ERR 256

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t ready; /* threads waiting at the gate */
	int go; /* 0: wait, 1: run, -1: abandon (setup failed) */
};

struct worker {
	struct lrun *lr;
	struct gate *g;
	uint32_t idx;
	uint16_t pn; /* CPU + 1 to pin to; 0: none */
	pthread_t th;
	bool started;
	int done; /* set (atomically) when the thread is about to return */
	int rc;
	char err[STREAMS_ERR];
};

/* Pin the calling thread: the -ca entry, else its transport's node. */
static int worker_place(struct worker *w)
{
	struct tsess *s = w->lr->s;
	cpu_set_t saved;

	if (w->pn)
		return set_cpu_affinity(w->pn, w->err, sizeof(w->err));
	if (s->numa_placed)
		return qnuma_run_on(s->numa_node, &saved, w->err,
				    sizeof(w->err));
	return 0;
}

/* Wait at the gate; returns its verdict (1: run, -1: abandon). */
static int gate_pass(struct gate *g)
{
	int go;

	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (g->go == 0)
		pthread_cond_wait(&g->cond, &g->lock);
	go = g->go;
	pthread_mutex_unlock(&g->lock);
	return go;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int placed = worker_place(w);

	/* Even a thread that could not be pinned waits at the gate, so the
	 * main thread's count of ready threads stays exact. */
	if (gate_pass(w->g) > 0 && placed == 0)
		w->rc = loop_run(w->lr, w->err, sizeof(w->err));
	else
		w->rc = -1;
	if (placed < 0)
		w->rc = -1;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void gate_open(struct gate *g, int go)
{
	pthread_mutex_lock(&g->lock);
	g->go = go;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* Wait until n threads stand at the gate. */
static void gate_wait_ready(struct gate *g, uint32_t n)
{
	pthread_mutex_lock(&g->lock);
	while (g->ready < n)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* Until every started thread is done: end the rest once one failed, and
 * interrupt their blocking calls once the time is up. */
static void watch_workers(struct worker *w, uint32_t n)
{
	for (;;) {
		uint32_t left = 0;
		bool failed = false;

		for (uint32_t i = 0; i < n; i++) {
			if (!__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
				left++;
			else if (w[i].rc < 0)
				failed = true;
		}
		if (!left)
			return;
		if (failed)
			measure_end_now();
		if (measure_finished())
			for (uint32_t i = 0; i < n; i++)
				if (!__atomic_load_n(&w[i].done,
						     __ATOMIC_ACQUIRE))
					pthread_kill(w[i].th, SIGALRM);
		sleep_ns(STREAMS_POLL_NS);
	}
}

static void ustat_sum(struct ustat *to, const struct ustat *from)
{
	to->bytes += from->bytes;
	to->msgs += from->msgs;
	to->errs += from->errs;
}

static void sum_streams(struct node_stat *agg, struct lrun *const *lr,
			uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct node_stat *st = &lr[i]->st;

		ustat_sum(&agg->s, &st->s);
		ustat_sum(&agg->r, &st->r);
		ustat_sum(&agg->rem_s, &st->rem_s);
		ustat_sum(&agg->rem_r, &st->rem_r);
		agg->lost += st->lost;
		if (lr[i]->s->max_cqes > agg->max_cqes)
			agg->max_cqes = lr[i]->s->max_cqes;
	}
}

int streams_run(struct lrun *const *lr, uint32_t n,
		const struct cpu_list *cpus, uint64_t time,
		struct node_stat *agg, char *err, size_t errlen)
{
	struct worker *w = xcalloc(n, sizeof(*w));
	struct gate g;
	uint32_t started = 0;
	int rc = -1, e;

	memset(agg, 0, sizeof(*agg));
	memset(&g, 0, sizeof(g));
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.cond, NULL);
	for (uint32_t i = 0; i < n; i++) {
		w[i].lr = lr[i];
		w[i].g = &g;
		w[i].idx = i;
		w[i].pn = cpus && cpus->n ? cpus->pn[i % cpus->n] : 0;
		lr[i]->shared_timer = true;
		e = pthread_create(&w[i].th, NULL, worker_main, &w[i]);
		if (e) {
			seterr_errno(err, errlen, e,
				     "cannot start the thread of stream %u",
				     i + 1);
			break;
		}
		w[i].started = true;
		started++;
	}
	gate_wait_ready(&g, started);
	if (started == n && measure_start(agg, time, err, errlen) == 0) {
		gate_open(&g, 1);
		watch_workers(w, n);
		measure_stop(agg);
		rc = 0;
	} else {
		gate_open(&g, -1);
	}
	for (uint32_t i = 0; i < n; i++)
		if (w[i].started)
			pthread_join(w[i].th, NULL);
	measure_disarm();
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		if (w[i].rc < 0) {
			seterr(err, errlen, "stream %u: %s", i + 1, w[i].err);
			rc = -1;
		}
	}
	if (rc == 0)
		sum_streams(agg, lr, n);
	pthread_cond_destroy(&g.cond);
	pthread_mutex_destroy(&g.lock);
	free(w);
	return rc;
}
