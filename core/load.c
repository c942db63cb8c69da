// SPDX-License-Identifier: GPL-2.0-only
/*
 * --load TEST (docs/load.md): a bandwidth test beside each latency test
 * of the plan, so that "rc_lat while rc_bw saturates the link" is one
 * command.  The client runs as usual (client_main_hook()); around each
 * test this file:
 *
 *   before  runs the latency test once idle (unless --no_idle), captured,
 *           unprinted; then forks one child per load (two for --load_dir
 *           both), each a client of the same server running the load
 *           with -t 0 (until interrupted), which stops at its barrier once
 *           set up and says so;
 *   wait    (the latency test set up, just before its window) releases
 *           the loads and lets them run LOAD_WARMUP so that the window
 *           sees them at speed;
 *   result  (the window over) stops each load with SIGINT, which ends a
 *           -t 0 window well, and takes its figures into the report;
 *   after   closes and reaps every child, whatever happened.
 *
 * Parent and child talk over one SOCK_SEQPACKET pair each: the child
 * sends LOAD_READY at its barrier, then one struct lrec (its figures or
 * its error); the parent sends LOAD_GO, or closes the pair to stop it at
 * the barrier.  Every wait is bounded; a child past its bounds is killed
 * (only the parent's own children, by pid).  No field goes on the wire:
 * a load is one more client of the server, which must be a qperf 0.5
 * (-t 0, and several tests at once; --max_per_client 4 allows the idle
 * run's ending, two loads and the latency test).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transports/transport.h"
#include "engine.h"
#include "measure.h"
#include "param.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/sockcall.h"
#include "output/sink.h"

#define LOAD_WARMUP (200 * 1000000ULL) /* ns of load before the window */
#define LOAD_GRACE (10 * NS_PER_SEC) /* beyond a child's own bounds */
#define LOAD_READY 'R'
#define LOAD_GO 'G'
#define LOAD_MAX 2

/* A load child's last word: its figures, or its error. */
struct lrec {
	uint32_t ok;
	struct pair_res r;
	char err[CLIENT_ERR_MAX];
};

struct lchild {
	pid_t pid; /* 0: none, or reaped */
	int fd; /* the parent's end; -1: closed */
};

struct load {
	const struct plan *p;
	struct load_spec spec[LOAD_MAX];
	uint32_t n;
	struct lchild c[LOAD_MAX];
	struct settings ls; /* the loads' settings for the current test */
	uint64_t bound; /* ns: the longest a child may take to answer */
	struct pair_res idle;
	struct load_fig fig[LOAD_MAX];
	struct out_load ol;
};

/* ---------------------------------------------------------------------- */
/* The child                                                               */
/* ---------------------------------------------------------------------- */

/* The load's barrier (struct client_barrier): ready, then wait for go. */
static int child_wait(void *arg, uint64_t timeout, char *err, size_t errlen)
{
	int fd = *(const int *)arg;
	char b = LOAD_READY;

	if (send(fd, &b, 1, MSG_NOSIGNAL) != 1)
		return seterr(err, errlen, "--load: the latency test is gone");
	if (recv_bounded(fd, &b, 1, timeout) != 1 || b != LOAD_GO)
		return seterr(err, errlen,
			      "--load: stopped before its start (the latency test did not start within %.1f s)",
			      (double)timeout / 1e9);
	return 0;
}

/* A child: run the load until SIGINT, send its last word. */
static int child_main(const struct plan *p, const struct test_desc *t,
		      const struct settings *s, int fd)
{
	struct client_barrier b = { child_wait, &fd, "--load" };
	struct lrec *m = xcalloc(1, sizeof(*m));
	int rc;

	measure_catch_interrupt(); /* the first SIGINT ends the window */
	rc = client_pair_sync(p, t, s, &b, &m->r, m->err, sizeof(m->err));
	m->ok = rc == 0;
	(void)send(fd, m, sizeof(*m), MSG_NOSIGNAL);
	free(m);
	return rc ? 1 : 0;
}

/* ---------------------------------------------------------------------- */
/* The parent                                                              */
/* ---------------------------------------------------------------------- */

void load_settings_of(const struct settings *s, const char *by,
		      struct settings *out)
{
	static const enum par_id cleared[] = { PAR_MSG_SIZE, PAR_NO_MSGS,
					       PAR_RATE, PAR_MSG_RATE };
	struct par_set *q = &out->par;

	*out = *s;
	out->interval = 0;
	out->arrivals = 0;
	out->nloops = 0;
	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		for (size_t i = 0; i < sizeof(cleared) / sizeof(cleared[0]);
		     i++) {
			q->val[side][cleared[i]] = 0;
			q->set[side][cleared[i]] = false;
		}
		q->val[side][PAR_TIME] = 0;
		q->set[side][PAR_TIME] = true;
		q->spelling[side][PAR_TIME] = by;
	}
}

/* The loads' settings beside test settings s (load_settings_of()), paced
 * by --load_rate. */
static void load_settings(struct load *L, const struct settings *s)
{
	const struct load_opts *lo = &L->p->load;
	struct par_set *q = &L->ls.par;

	load_settings_of(s, "--load", &L->ls);
	for (int side = SIDE_LOC; lo->rate && side <= SIDE_REM; side++) {
		int r = lo->rate_msgs ? PAR_MSG_RATE : PAR_RATE;

		q->val[side][r] = lo->rate;
		q->set[side][r] = true;
		q->spelling[side][r] = lo->rate_opt;
	}
	L->bound = LOAD_GRACE + L->p->wait_server +
		   3 * q->val[SIDE_LOC][PAR_TIMEOUT];
}

/* Fork load i; 0, or -1 with err filled. */
static int spawn(struct load *L, uint32_t i, char *err, size_t errlen)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return seterr_errno(err, errlen, errno, "--load: socketpair");
	fflush(NULL); /* nothing buffered is written twice */
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return seterr_errno(err, errlen, errno, "--load: fork");
	}
	if (pid == 0) {
		for (uint32_t j = 0; j < i; j++)
			close(L->c[j].fd);
		close(sv[0]);
		_exit(child_main(L->p, L->spec[i].t, &L->ls, sv[1]));
	}
	close(sv[1]);
	L->c[i] = (struct lchild){ pid, sv[0] };
	return 0;
}

/*
 * Load i's next word within timeout: 1 for LOAD_READY, 0 for its
 * figures in *m; -1 with err filled when it failed or said nothing.
 */
static int hear(struct load *L, uint32_t i, struct lrec *m,
		uint64_t timeout, char *err, size_t errlen)
{
	const char *name = L->spec[i].t->name;
	ssize_t n = recv_bounded(L->c[i].fd, m, sizeof(*m), timeout);

	if (n == 1 && *(const char *)m == LOAD_READY)
		return 1;
	if (n == (ssize_t)sizeof(*m) && m->ok)
		return 0;
	if (n == (ssize_t)sizeof(*m))
		return seterr(err, errlen, "--load %s: %s", name,
			      strstr(m->err, "server runs 0.4") ?
				      "needs a server running qperf 0.5 or later, which runs tests at once and can stop a load; this server runs 0.4" :
				      m->err);
	return seterr(err, errlen, "--load %s: %s", name,
		      n < 0 ? "no answer in time; stopped" :
			      "ended without its results");
}

static int load_before(void *arg, const struct test_desc *t,
		       const struct settings *s, char *err, size_t errlen)
{
	struct load *L = arg;
	struct lrec *m = xcalloc(1, sizeof(*m));
	int rc = 0;

	L->ol = (struct out_load){ L->fig, L->n, NULL, 0 };
	if (!L->p->load.no_idle) {
		rc = client_pair_sync(L->p, t, s, NULL, &L->idle, m->err,
				      sizeof(m->err));
		if (rc)
			rc = seterr(err, errlen,
				    "--load: the idle run failed: %s", m->err);
		L->ol.idle = &L->idle.lat;
		L->ol.idle_latency = L->idle.latency;
	}
	load_settings(L, s);
	for (uint32_t i = 0; rc == 0 && i < L->n; i++)
		rc = spawn(L, i, err, errlen);
	for (uint32_t i = 0; rc == 0 && i < L->n; i++) {
		int h = hear(L, i, m, L->bound, err, errlen);

		if (h == 0)
			rc = seterr(err, errlen, "--load %s: ended at once",
				    L->spec[i].t->name);
		else if (h < 0)
			rc = -1;
	}
	free(m);
	return rc;
}

static int load_wait(void *arg, uint64_t timeout, char *err, size_t errlen)
{
	struct load *L = arg;
	char b = LOAD_GO;

	(void)timeout;
	for (uint32_t i = 0; i < L->n; i++)
		if (send(L->c[i].fd, &b, 1, MSG_NOSIGNAL) != 1)
			return seterr(err, errlen,
				      "--load %s: gone before its start",
				      L->spec[i].t->name);
	sleep_ns(LOAD_WARMUP);
	return 0;
}

static int load_result(void *arg, struct out_result *o, char *err,
		       size_t errlen)
{
	struct load *L = arg;
	struct lrec *m = xcalloc(1, sizeof(*m));
	const struct load_opts *lo = &L->p->load;
	int rc = 0;

	for (uint32_t i = 0; i < L->n; i++)
		kill(L->c[i].pid, SIGINT);
	for (uint32_t i = 0; rc == 0 && i < L->n; i++) {
		rc = hear(L, i, m, L->bound, err, errlen);
		if (rc > 0)
			rc = seterr(err, errlen, "--load %s: never started",
				    L->spec[i].t->name);
		L->fig[i] = (struct load_fig){
			L->spec[i].t->name, load_dir_name(L->spec[i].dir),
			(double)lo->rate, lo->rate_msgs, m->r
		};
	}
	free(m);
	if (rc == 0)
		o->load = &L->ol;
	return rc;
}

/* Close and reap every child: closing its pair ends a wait at the
 * barrier; one still running past the bounds is killed. */
static void load_after(void *arg)
{
	struct load *L = arg;
	uint64_t end = now_ns() + L->bound;

	for (uint32_t i = 0; i < L->n; i++) {
		if (L->c[i].fd >= 0)
			close(L->c[i].fd);
		L->c[i].fd = -1;
	}
	for (uint32_t i = 0; i < L->n; i++) {
		while (L->c[i].pid &&
		       waitpid(L->c[i].pid, NULL, WNOHANG) == 0) {
			if (now_ns() >= end)
				kill(L->c[i].pid, SIGKILL);
			sleep_ns(10000000ULL); /* polls the child's exit */
		}
		L->c[i].pid = 0;
	}
}

int load_main(const struct plan *p)
{
	struct load *L = xcalloc(1, sizeof(*L));
	struct client_hook h = { load_before, load_wait, load_result,
				 load_after, L };
	char err[512];
	int n = load_tests(&p->load, L->spec, err, sizeof(err));
	int rc;

	if (n < 0) { /* not reached: load_check() refused it */
		free(L);
		return 2;
	}
	L->p = p;
	L->n = (uint32_t)n;
	for (uint32_t i = 0; i < LOAD_MAX; i++)
		L->c[i].fd = -1;
	rc = client_main_hook(p, &h);
	free(L);
	return rc;
}
