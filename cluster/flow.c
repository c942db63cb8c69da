// SPDX-License-Identifier: GPL-2.0-only
/*
 * A rank's jobs as a client (see flow.h).
 *
 * The worker and each flow child talk over one SOCK_SEQPACKET pair: the
 * child sends a struct frec when it is ready (at its barrier) and when it
 * is done (its figures or its error); the worker sends the start time (a
 * u64, 0 for "do not start").  The worker owns the connection to rank 0
 * and the children's pids: it ends them (SIGKILL, by pid) if rank 0 is
 * lost or says DONE, and each child ends with the worker (PDEATHSIG).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transports/transport.h"
#include "flow.h"
#include "cluster.h"
#include "core/measure.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/sched.h"
#include "lib/sockcall.h"

#define FLOWS_MAX SCHED_GROUP_MAX /* a rank's flows at once (fan-out) */
#define FLOW_BUSY_RETRY (2 * NS_PER_SEC)
#define FLOW_BUSY_PAUSE (50 * 1000000ULL)

uint32_t flow_job(const struct plan *p, const struct rank_info *ri,
		  const struct cmsg_run *run, const struct client_barrier *b,
		  struct cmsg_result *res)
{
	const uint32_t local[2] = { ri->local_rank, run->peer_local };
	const struct test_desc *t;
	struct settings s;
	uint64_t until;
	int rc;

	if (run->item >= p->ntests) {
		seterr(res->err, sizeof(res->err), "rank 0 asked for test %u of %zu",
		       run->item, p->ntests);
		return res->status = 2;
	}
	t = p->tests[run->item].test;
	s = p->tests[run->item].s;
	if ((run->flow & CRUN_ALL) == CRUN_ALL) { /* only a flow loads */
		t = test_bw_of(t);
		if (!t) {
			seterr(res->err, sizeof(res->err),
			       "%s: its transport has no bandwidth test to load it with",
			       p->tests[run->item].test->name);
			return res->status = 2;
		}
		load_settings_of(&p->tests[run->item].s, "--cluster", &s);
	}
	for (int side = 0; side < 2; side++) {
		char *id = s.par.str[side][0];
		char one[PAR_STR_MAX];

		if (cluster_pick_id(id, local[side], one, sizeof(one)) < 0) {
			seterr(res->err, sizeof(res->err),
			       "-i %s: empty entry for local rank %u", id,
			       local[side]);
			return res->status = 2;
		}
		memcpy(id, one, sizeof(one));
	}
	/* A flow's server may still be ending the tests of the round before
	 * (its 16 at once): "server busy" is tried again a while. */
	until = now_ns() + FLOW_BUSY_RETRY;
	while ((rc = client_pair(p, t, &s, run->addr, run->port, b, &res->r,
				 res->err, sizeof(res->err))) != 0 &&
	       b && strstr(res->err, "server busy") && now_ns() < until)
		sleep_ns(FLOW_BUSY_PAUSE);
	/* Nothing listens where the peer's server was: say whose it was. */
	if (rc && strstr(res->err, strerror(ECONNREFUSED))) {
		char was[CMSG_ERR_MAX];

		xsnprintf(was, sizeof(was), "%s", res->err);
		xsnprintf(res->err, sizeof(res->err),
			  "the qperf server of rank %u (%.100s port %u) is gone: %s",
			  run->peer, run->addr, run->port, was);
	}
	return res->status = (uint32_t)rc;
}

int flow_clock(int fd, struct cchan *ch, const struct cmsg *m, char *err,
	       size_t errlen)
{
	struct cmsg a;

	memset(&a, 0, sizeof(a));
	a.type = CMSG_CLOCK;
	a.u.clock.probe = m->u.clock.probe;
	a.u.clock.now = now_ns();
	return cluster_send(fd, ch, CLUSTER_SEND_NS, &a, err, errlen);
}

/* ---------------------------------------------------------------------- */
/* A flow child                                                            */
/* ---------------------------------------------------------------------- */

enum { FR_READY = 1, FR_DONE };

/* A child's word to the worker. */
struct frec {
	uint32_t type; /* FR_* */
	struct cmsg_result res; /* FR_DONE */
};

/* The child's own state: its end of the pair, its start's lateness. */
struct fself {
	int fd;
	uint64_t late; /* ns after the start rank 0 gave */
};

/* The barrier (struct client_barrier): ready, then wait for the start. */
static int flow_wait(void *arg, uint64_t timeout, char *err, size_t errlen)
{
	struct fself *me = arg;
	struct frec m = { .type = FR_READY };
	uint64_t start = 0, now;
	ssize_t n;

	if (send(me->fd, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		return seterr(err, errlen, "the rank's worker is gone");
	n = recv_bounded(me->fd, &start, sizeof(start), timeout);
	if (n < 0 && errno == ETIMEDOUT)
		return seterr(err, errlen,
			      "not started within the timeout (%.1f s): the other flows of its round were not ready",
			      (double)timeout / 1e9);
	if (n != (ssize_t)sizeof(start) || !start)
		return seterr(err, errlen, "not started: %s", FLOW_STOPPED);
	/* a start is due within a lead and a victim's warm-up (under
	 * 1 s): a later one is a clock gone wrong, not a wait */
	now = now_ns();
	if (start > now && start - now > timeout + NS_PER_SEC)
		return seterr(err, errlen,
			      "not started: the start rank 0 gave is %.1f s ahead",
			      (double)(start - now) / 1e9);
	sleep_until_ns(start);
	now = now_ns();
	me->late = now - start;
	return 0;
}

/* A child: run the flow, say how it went; returns its exit status. */
static int flow_child(const struct plan *p, const struct rank_info *ri,
		      const struct cmsg_run *run, int fd)
{
	struct fself me = { fd, 0 };
	struct client_barrier b = { flow_wait, &me, "--cluster" };
	struct frec *m = xcalloc(1, sizeof(*m));
	int rc;

	/* a load's window ends at the first SIGINT (STOP) */
	if (run->flow & CRUN_LOAD)
		measure_catch_interrupt();
	m->res.job = run->job;
	rc = (int)flow_job(p, ri, run, &b, &m->res);
	m->type = FR_DONE;
	m->res.late = me.late;
	(void)send(fd, m, sizeof(*m), MSG_NOSIGNAL);
	free(m);
	return rc ? 1 : 0;
}

/* ---------------------------------------------------------------------- */
/* The worker                                                              */
/* ---------------------------------------------------------------------- */

struct flow {
	pid_t pid; /* 0: none, or reaped */
	int fd; /* the worker's end; -1: closed */
	uint32_t job;
};

struct flows {
	const struct plan *p;
	const struct rank_info *ri;
	int fd; /* to rank 0 */
	struct cchan *ch;
	struct flow f[FLOWS_MAX];
	char *err; /* why rank 0 was lost */
	size_t errlen;
};

/* Send m to rank 0; -1 (err filled) if it is lost. */
static int to0(struct flows *w, const struct cmsg *m)
{
	return cluster_send(w->fd, w->ch, CLUSTER_LOSS_NS, m, w->err,
			    w->errlen);
}

/* A RESULT for job: failed with why. */
static int fail_to0(struct flows *w, uint32_t job, const char *why)
{
	struct cmsg m;

	memset(&m, 0, sizeof(m));
	m.type = CMSG_RESULT;
	m.u.result.job = job;
	m.u.result.status = 1;
	xsnprintf(m.u.result.err, sizeof(m.u.result.err), "%s", why);
	return to0(w, &m);
}

/* Start run's flow in a child; 0, or -1 if rank 0 is lost. */
static int flow_start(struct flows *w, const struct cmsg_run *run)
{
	struct flow *f = NULL;
	int sv[2];
	pid_t me = getpid();
	char why[160];

	for (uint32_t i = 0; i < FLOWS_MAX && !f; i++)
		if (!w->f[i].pid)
			f = &w->f[i];
	if (!f)
		return fail_to0(w, run->job, "more flows at once than a rank runs");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		seterr_errno(why, sizeof(why), errno, "socketpair");
		return fail_to0(w, run->job, why);
	}
	fflush(NULL); /* nothing buffered is written twice */
	f->pid = fork();
	if (f->pid < 0) {
		f->pid = 0;
		close(sv[0]);
		close(sv[1]);
		seterr_errno(why, sizeof(why), errno, "fork");
		return fail_to0(w, run->job, why);
	}
	if (f->pid == 0) {
		cluster_die_with(me);
		close(w->fd); /* only the worker speaks to rank 0 */
		for (uint32_t i = 0; i < FLOWS_MAX; i++)
			if (w->f[i].fd >= 0)
				close(w->f[i].fd);
		close(sv[0]);
		_exit(flow_child(w->p, w->ri, run, sv[1]));
	}
	close(sv[1]);
	f->fd = sv[0];
	f->job = run->job;
	return 0;
}

/* Close and reap flow f (SIGKILL first if kill). */
static void flow_end(struct flow *f, bool kill_it)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->pid && kill_it)
		kill(f->pid, SIGKILL);
	if (f->pid)
		waitpid(f->pid, NULL, 0);
	f->pid = 0;
}

static struct flow *flow_of(struct flows *w, uint32_t job)
{
	for (uint32_t i = 0; i < FLOWS_MAX; i++)
		if (w->f[i].pid && w->f[i].fd >= 0 && w->f[i].job == job)
			return &w->f[i];
	return NULL;
}

/* What flow f's child said: READY or its RESULT, to rank 0. */
static int flow_hear(struct flows *w, struct flow *f)
{
	struct frec *r = xcalloc(1, sizeof(*r));
	ssize_t n = recv(f->fd, r, sizeof(*r), MSG_DONTWAIT);
	struct cmsg m;
	int rc = 0;

	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		free(r);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	if (n == (ssize_t)sizeof(*r) && r->type == FR_READY) {
		m.type = CMSG_READY;
		m.u.go.job = f->job;
		rc = to0(w, &m);
	} else if (n == (ssize_t)sizeof(*r) && r->type == FR_DONE) {
		m.type = CMSG_RESULT;
		m.u.result = r->res;
		m.u.result.job = f->job;
		rc = to0(w, &m);
		flow_end(f, false);
	} else {
		rc = fail_to0(w, f->job,
			      "its flow's process ended without its results");
		flow_end(f, true);
	}
	free(r);
	return rc;
}

/* One message from rank 0: 0, 1 for DONE, -1 when it is lost. */
static int hear0(struct flows *w)
{
	struct cmsg m;
	struct flow *f;

	if (cluster_recv(w->fd, w->ch, CLUSTER_LOSS_NS, &m, w->err,
			 w->errlen) < 0)
		return -1;
	switch (m.type) {
	case CMSG_RUN:
		if (m.u.run.flow & CRUN_SYNC)
			return flow_start(w, &m.u.run);
		/* rank 0 sends no pair's job to a rank with flows */
		return fail_to0(w, m.u.run.job, "busy with a group's flows");
	case CMSG_GO:
		f = flow_of(w, m.u.go.job);
		if (f && send(f->fd, &m.u.go.start, sizeof(m.u.go.start),
			      MSG_NOSIGNAL) != (ssize_t)sizeof(m.u.go.start))
			kill(f->pid, SIGKILL); /* its end is heard next */
		return 0;
	case CMSG_STOP:
		f = flow_of(w, m.u.go.job);
		if (f)
			kill(f->pid, SIGINT);
		return 0;
	case CMSG_CLOCK:
		return flow_clock(w->fd, w->ch, &m, w->err, w->errlen);
	case CMSG_DONE:
		return 1;
	default:
		return 0; /* a ping */
	}
}

int flow_group(const struct plan *p, const struct rank_info *ri, int fd,
	       struct cchan *ch, const struct cmsg_run *first, char *err,
	       size_t errlen)
{
	struct flows w = { p, ri, fd, ch, { { 0 } }, err, errlen };
	uint64_t heard = now_ns();
	int rc;

	for (uint32_t i = 0; i < FLOWS_MAX; i++)
		w.f[i].fd = -1;
	rc = flow_start(&w, first);
	while (rc == 0) {
		struct pollfd pf[1 + FLOWS_MAX];
		struct flow *map[1 + FLOWS_MAX];
		nfds_t n = 1;

		pf[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
		for (uint32_t i = 0; i < FLOWS_MAX; i++)
			if (w.f[i].pid) {
				pf[n] = (struct pollfd){ .fd = w.f[i].fd,
							 .events = POLLIN };
				map[n++] = &w.f[i];
			}
		if (n == 1)
			break; /* every flow is done */
		if (poll(pf, n, 1000) < 0 && errno != EINTR) {
			rc = seterr_errno(err, errlen, errno, "poll");
			break;
		}
		if (pf[0].revents) {
			rc = hear0(&w);
			heard = now_ns();
		} else if (now_ns() - heard > CLUSTER_LOSS_NS) {
			rc = seterr(err, errlen, "no word from it for %u s",
				    (unsigned)(CLUSTER_LOSS_NS / NS_PER_SEC));
		}
		for (nfds_t k = 1; rc == 0 && k < n; k++)
			if (pf[k].revents && map[k]->pid)
				rc = flow_hear(&w, map[k]);
	}
	for (uint32_t i = 0; i < FLOWS_MAX; i++)
		flow_end(&w.f[i], true);
	return rc;
}
