// SPDX-License-Identifier: GPL-2.0-only
/*
 * --clients K (docs/clients.md): an incast from one host without a
 * launcher.  The parent forks K children; each runs the plan's tests
 * against the host as any client does (client_pair_sync()), and stops at
 * a barrier once its data path is set up, just before the "before" sync
 * that starts its window.  When all K are there the parent releases them
 * together, collects each one's figures and prints one report per test:
 * each client's figure, the aggregate, Jain's fairness index and the
 * slowest client against the fair share (lib/fair.h).
 *
 * Parent and child talk over one SOCK_SEQPACKET pair each: the child sends
 * fixed-size records (ready, done with its figures, failed with its error),
 * the parent sends one byte per test to release it and closes the pair to
 * stop it.  Every wait is bounded; a child that does not answer in time is
 * killed (only the parent's own children, by pid).  A failure of any
 * client ends the run after that test, as a failed test ends a client's
 * run: the others are told to stop at the barrier.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
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
#include "lib/fair.h"
#include "output/out.h"
#include "output/sink.h"

#define CLIENTS_GRACE (10 * NS_PER_SEC) /* beyond a child's own bounds */
/* A "server busy" refusal is tried again for this long: the server's
 * children of the previous test may not all be gone yet. */
#define CLIENTS_BUSY_RETRY (2 * NS_PER_SEC)
#define CLIENTS_BUSY_PAUSE (50 * 1000000ULL)
#define CLIENTS_POLL NS_PER_SEC /* the longest single wait of the parent */
#define CLIENTS_RELEASE 'G'
#define CLIENTS_ERR_MAX 1024 /* the run's error: a client's, and more */

enum cmsg_type { CM_READY = 1, CM_DONE, CM_FAIL };

/* One record from a child. */
struct cmsg {
	uint32_t type; /* enum cmsg_type */
	uint32_t test; /* the plan item it is about */
	uint64_t start; /* CM_DONE: now_ns() when its window was released */
	struct pair_res r; /* CM_DONE */
	char err[CLIENT_ERR_MAX]; /* CM_FAIL */
};

/* A child as the parent sees it. */
struct child {
	pid_t pid; /* 0: reaped */
	int fd; /* the parent's end; -1: closed */
	bool failed; /* it said so, or did not answer */
	struct cmsg m; /* its last record */
};

/* A child's own state: its end of the pair, and its window's start. */
struct child_self {
	int fd;
	uint32_t test;
	uint64_t start;
};

/* ---------------------------------------------------------------------- */
/* The child                                                               */
/* ---------------------------------------------------------------------- */

/* Send one record; a parent gone is the child's end too. */
static int child_send(int fd, const struct cmsg *m)
{
	return send(fd, m, sizeof(*m), MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ?
		       0 :
		       -1;
}

/* The barrier (struct client_barrier): ready, then wait to be released. */
static int child_wait(void *arg, uint64_t timeout, char *err, size_t errlen)
{
	struct child_self *me = arg;
	struct cmsg m = { .type = CM_READY, .test = me->test };
	ssize_t n;
	char b = 0;

	if (child_send(me->fd, &m) < 0)
		return seterr(err, errlen, "--clients: the parent is gone");
	n = recv_bounded(me->fd, &b, 1, timeout);
	if (n < 0 && errno == ETIMEDOUT)
		return seterr(err, errlen,
			      "--clients: not released within the timeout (%.1f s): the other clients were not ready",
			      (double)timeout / 1e9);
	if (n != 1 || b != CLIENTS_RELEASE)
		return seterr(err, errlen,
			      "--clients: stopped, another client failed");
	me->start = now_ns();
	return 0;
}

/* A child: run every test, report each; returns its exit status. */
static int child_main(const struct plan *p, int fd)
{
	struct child_self me = { .fd = fd };
	struct client_barrier b = { child_wait, &me, "--clients" };
	struct cmsg m;

	for (size_t i = 0; i < p->ntests; i++) {
		uint64_t until = now_ns() + CLIENTS_BUSY_RETRY;
		int rc;

		memset(&m, 0, sizeof(m));
		me.test = (uint32_t)i;
		m.test = (uint32_t)i;
		while ((rc = client_pair_sync(p, p->tests[i].test,
					      &p->tests[i].s, &b, &m.r, m.err,
					      sizeof(m.err))) != 0 &&
		       strstr(m.err, "server busy") && now_ns() < until)
			sleep_ns(CLIENTS_BUSY_PAUSE);
		if (rc != 0) {
			m.type = CM_FAIL;
			(void)child_send(fd, &m);
			return 1;
		}
		m.type = CM_DONE;
		m.start = me.start;
		if (child_send(fd, &m) < 0)
			return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The parent                                                              */
/* ---------------------------------------------------------------------- */

/* Fork the K children; 0, or -1 with err filled (those forked are in v). */
static int spawn(const struct plan *p, struct child *v, uint32_t k,
		 char *err, size_t errlen)
{
	for (uint32_t i = 0; i < k; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       sv) < 0)
			return seterr_errno(err, errlen, errno, "--clients: socketpair");
		fflush(NULL); /* nothing buffered is written twice */
		v[i].pid = fork();
		if (v[i].pid < 0) {
			v[i].pid = 0;
			close(sv[0]);
			close(sv[1]);
			return seterr_errno(err, errlen, errno, "--clients: fork");
		}
		if (v[i].pid == 0) {
			for (uint32_t j = 0; j < i; j++)
				close(v[j].fd);
			close(sv[0]);
			_exit(child_main(p, sv[1]));
		}
		close(sv[1]);
		v[i].fd = sv[0];
	}
	return 0;
}

/*
 * Wait until every child still in the test has sent a record for test
 * pos (type want or CM_FAIL), or the deadline: one that has not by then
 * is killed and failed.
 */
static void gather(struct child *v, uint32_t k, uint32_t pos,
		   uint32_t want, uint64_t deadline)
{
	bool *got = xcalloc(k, sizeof(*got));
	struct pollfd *pf = xcalloc(k, sizeof(*pf));

	for (;;) {
		uint32_t n = 0, map[CLIENTS_MAX];
		uint64_t now = now_ns();
		int r;

		for (uint32_t i = 0; i < k; i++) {
			if (got[i] || v[i].failed || v[i].fd < 0)
				continue;
			pf[n] = (struct pollfd){ .fd = v[i].fd, .events = POLLIN };
			map[n++] = i;
		}
		if (!n)
			break;
		if (now >= deadline) {
			for (uint32_t j = 0; j < n; j++) {
				struct child *c = &v[map[j]];

				kill(c->pid, SIGKILL);
				c->failed = true;
				xsnprintf(c->m.err, sizeof(c->m.err),
					  "no answer in time; stopped");
			}
			break;
		}
		r = poll(pf, n, deadline - now > CLIENTS_POLL ?
					(int)(CLIENTS_POLL / 1000000) :
					(int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			break;
		for (uint32_t j = 0; r > 0 && j < n; j++) {
			struct child *c = &v[map[j]];
			ssize_t got_n;

			if (!pf[j].revents)
				continue;
			got_n = recv(c->fd, &c->m, sizeof(c->m), 0);
			if (got_n != (ssize_t)sizeof(c->m)) {
				c->failed = true;
				xsnprintf(c->m.err, sizeof(c->m.err),
					  "ended without its results");
			} else if (c->m.test == pos && c->m.type == CM_FAIL) {
				c->failed = true;
			} else if (c->m.test == pos && c->m.type == want) {
				got[map[j]] = true;
			}
		}
	}
	free(pf);
	free(got);
}

/*
 * How long a stage of a test may take at most, from now: beyond the
 * child's own bounds (its timeouts, the test's time).  A test by count
 * (-n without -t) runs as long as data moves, each wait of the child
 * bounded: the parent has no deadline of its own then, and learns of a
 * child's end from its socket pair.
 */
static uint64_t stage_deadline(const struct plan *p, const struct par_set *par,
			       bool setup)
{
	uint64_t to = par->val[SIDE_LOC][PAR_TIMEOUT];

	if (!setup && !par->set[SIDE_LOC][PAR_TIME] &&
	    par->val[SIDE_LOC][PAR_NO_MSGS])
		return UINT64_MAX;
	return now_ns() + CLIENTS_GRACE + 3 * to +
	       (setup ? p->wait_server : par->val[SIDE_LOC][PAR_TIME]);
}

/* The test's figure of one client (lib/fair.h says which). */
static double figure(const struct test_desc *t, const struct pair_res *r)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		return r->latency;
	case MEAS_MSG_RATE:
		return r->msg_rate;
	default:
		return r->recv_bw;
	}
}

/* The error of a test that a client failed: the first failure, counted. */
static void fail_text(const struct child *v, uint32_t k, char *err,
		      size_t errlen)
{
	uint32_t nf = 0, first = 0;

	for (uint32_t i = k; i-- > 0;)
		if (v[i].failed) {
			nf++;
			first = i;
		}
	xsnprintf(err, errlen, "%u of %u clients failed; client %u: %s%s", nf,
		  k, first + 1, v[first].m.err,
		  strstr(v[first].m.err, "per client") ?
			  " (--clients K needs a server started with --max_per_client K or more)" :
			  "");
}

/*
 * Run plan item pos in every child and report it; 0, or -1 with err
 * filled once a client failed.
 */
static int run_one(const struct plan *p, struct outputs *out,
		   struct child *v, uint32_t k, uint32_t pos, char *err,
		   size_t errlen)
{
	const struct plan_item *it = &p->tests[pos];
	struct client_res *cr = xcalloc(k, sizeof(*cr));
	double *x = xcalloc(k, sizeof(*x));
	struct par_set par = it->s.par;
	struct fair_sum sum;
	struct out_clients oc = { cr, k, NULL, 0 };
	uint64_t first = UINT64_MAX, last = 0;
	bool ok = true, released = true;
	char b = CLIENTS_RELEASE;

	param_prepare(it->test, &par);
	out_test_start(out, &(struct out_test){ .t = it->test, .pos = pos,
						.o = &it->s.out, .par = &par });
	out_flush();
	gather(v, k, pos, CM_READY, stage_deadline(p, &par, true));
	for (uint32_t i = 0; i < k; i++)
		released = released && !v[i].failed;
	/* Together: each released child's window starts at once. */
	for (uint32_t i = 0; released && i < k; i++)
		if (send(v[i].fd, &b, 1, MSG_NOSIGNAL) != 1) {
			v[i].failed = true;
			xsnprintf(v[i].m.err, sizeof(v[i].m.err),
				  "gone before its start");
		}
	if (released)
		gather(v, k, pos, CM_DONE, stage_deadline(p, &par, false));
	for (uint32_t i = 0; i < k; i++)
		ok = ok && !v[i].failed;
	for (uint32_t i = 0; i < k; i++) {
		cr[i].ok = released && !v[i].failed;
		if (!cr[i].ok) {
			xsnprintf(cr[i].err, sizeof(cr[i].err), "%s",
				  v[i].failed ? v[i].m.err :
				  "not started: another client failed");
			continue;
		}
		cr[i].r = v[i].m.r;
		cr[i].fig = x[i] = figure(it->test, &v[i].m.r);
		if (v[i].m.start < first)
			first = v[i].m.start;
		if (v[i].m.start > last)
			last = v[i].m.start;
	}
	if (ok) {
		for (uint32_t i = 0; i < k; i++)
			cr[i].start = v[i].m.start - first;
		fair_summarize(x, k, it->test->measure == MEAS_LATENCY, &sum);
		oc.sum = &sum;
		oc.spread = last - first;
	}
	out_clients(out, &oc);
	if (!ok) {
		fail_text(v, k, err, errlen);
		out_test_error(out, &(struct out_error){ err, 1, false });
	}
	out_flush();
	free(x);
	free(cr);
	return ok ? 0 : -1;
}

/* Stop and reap every child: closing its pair ends any wait at the
 * barrier; one still running past its bounds is killed. */
static void reap(const struct plan *p, struct child *v, uint32_t k)
{
	uint64_t end = now_ns() + CLIENTS_GRACE + p->wait_server;

	for (uint32_t i = 0; i < k; i++)
		if (v[i].fd >= 0) {
			close(v[i].fd);
			v[i].fd = -1;
		}
	for (uint32_t left = k; left;) {
		left = 0;
		for (uint32_t i = 0; i < k; i++) {
			if (!v[i].pid)
				continue;
			if (waitpid(v[i].pid, NULL, WNOHANG) == v[i].pid) {
				v[i].pid = 0;
				continue;
			}
			if (now_ns() >= end)
				kill(v[i].pid, SIGKILL);
			left++;
		}
		if (left)
			sleep_ns(10000000ULL); /* polls children's exits */
	}
}

int clients_main(const struct plan *p)
{
	uint32_t k = p->clients;
	struct child *v = xcalloc(k, sizeof(*v));
	struct outputs out;
	char err[CLIENTS_ERR_MAX], ferr[CLIENTS_ERR_MAX];
	int rc = 0;

	for (uint32_t i = 0; i < k; i++)
		v[i].fd = -1;
	err[0] = '\0';
	outputs_init(&out);
	diag_sink(&out);
	if (p->json)
		json_sink(&out, p->json);
	else
		text_sink(&out, stdout);
	measure_init();
	out_run_start(&out, &(struct out_run){ p->argc, p->argv, p->host });
	if (spawn(p, v, k, err, sizeof(err)) < 0)
		rc = 1;
	for (uint32_t i = 0; rc == 0 && i < p->ntests; i++)
		if (run_one(p, &out, v, k, i, err, sizeof(err)) < 0)
			rc = 1;
	reap(p, v, k);
	if (out_finish(&out, ferr, sizeof(ferr)) < 0 && !rc) {
		xsnprintf(err, sizeof(err), "%s", ferr);
		rc = 1;
	}
	out_end(&out, &(struct out_end){ rc, false, 0, rc ? err : NULL });
	outputs_release(&out);
	free(v);
	return rc;
}
