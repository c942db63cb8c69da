// SPDX-License-Identifier: GPL-2.0-only
/*
 * One side of one data test; see session.h.  Order on the wire, as in
 * 0.4.11 (spec §2.9): the transport's own setup exchange (port, NODE),
 * "before" sync, data, STAT (server to client, then a STAT block for a 0.5
 * client), "after" sync (client to server).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/hist.h"
#include "pathrun.h"
#include "measure.h"
#include "opts.h"
#include "lib/numa.h"
#include "lib/qpspread.h"
#include "progress.h"
#include "session.h"
#include "session_cnt.h"
#include "streams.h"
#include "lib/err.h"
#include "lib/alloc.h"

/* A 0.5 client tells an idle server that a count test is done. */
#define SYNC_DONE "test done"

static int ch_send(struct chan *ch, const void *buf, size_t len,
		   const char *item, char *err, size_t errlen)
{
	return ctl_send(ch->ctx, buf, len, item, err, errlen);
}

static int ch_recv(struct chan *ch, void *buf, size_t len, const char *item,
		   char *err, size_t errlen)
{
	return ctl_recv(ch->ctx, buf, len, item, err, errlen);
}

static int ch_send_ext(struct chan *ch, const uint8_t *blk, size_t len,
		       const char *item, char *err, size_t errlen)
{
	if (!ch->ext)
		return seterr(err, errlen, "internal error: %s to a 0.4 peer",
			      item);
	return ctl_send_block(ch->ctx, blk, len, item, err, errlen);
}

static int ch_recv_ext(struct chan *ch, uint8_t *blk, size_t cap,
		       size_t *len, const char *item, char *err,
		       size_t errlen)
{
	if (!ch->ext)
		return seterr(err, errlen,
			      "internal error: %s from a 0.4 peer", item);
	return ctl_recv_block(ch->ctx, blk, cap, len, item, err, errlen);
}

static void chan_init(struct chan *ch, struct tside *sd)
{
	socklen_t len;

	memset(ch, 0, sizeof(*ch));
	ch->send = ch_send;
	ch->recv = ch_recv;
	ch->send_ext = ch_send_ext;
	ch->recv_ext = ch_recv_ext;
	ch->ext = sd->ext && sd->ext_ver >= 2;
	ch->peer_caps = ch->ext ? sd->peer_caps : 0;
	ch->watch_fd = sd->c->fd;
	len = sizeof(ch->local);
	if (getsockname(sd->c->fd, (struct sockaddr *)&ch->local, &len) < 0)
		ch->local.ss_family = AF_UNSPEC;
	len = sizeof(ch->peer);
	if (getpeername(sd->c->fd, (struct sockaddr *)&ch->peer, &len) < 0)
		ch->peer.ss_family = AF_UNSPEC;
	ch->timeout = sd->c->timeout;
	ch->debug = sd->c->debug;
	ch->ctx = sd->c;
}

/* One row of param_table from q into p: a knob not given keeps 0.4.11's
 * behaviour (0, its "set" flag false); a PW_OWN row is session_own()'s. */
static void session_param(const struct par_row *r, const struct req *q,
			  struct tparams *p)
{
	int i = r->par - PAR_VK_FIRST;
	bool set = r->wire == PW_VK && (q->vk_set & (1u << i));
	uint32_t v = 0;
	uint64_t v64;

	if (r->wire == PW_OWN)
		return;
	if (r->wire == PW_LEGACY)
		memcpy(&v, (const char *)q + r->req_off, sizeof(v));
	else if (set)
		v = q->vk[i];
	v64 = v;
	if (r->tp_size == sizeof(v64))
		memcpy((char *)p + r->tp_off, &v64, sizeof(v64));
	else if (r->tp_size == sizeof(v))
		memcpy((char *)p + r->tp_off, &v, sizeof(v));
	if (r->tp_set_off)
		memcpy((char *)p + r->tp_set_off, &set, sizeof(set));
}

/* The parameters that are not a plain copy (param_table[]'s PW_OWN rows):
 * core/client.c fill_own() is the client's half. */
static void session_own(const struct req *q, struct tparams *p)
{
	p->mtu_explicit = q->mtu_explicit;
	p->gid_index = q->gid_index;
	p->streams = q->streams > 1 ? q->streams : 1;
	p->qps = q->qps > 1 ? q->qps : 1;
	/* --threads over the QPs or connections: run as streams, -n the
	 * total */
	p->conns = q->conns > 1 ? q->conns : 1;
	p->threads = q->threads > 1 ? q->threads : 1;
	if (p->threads > 1 && (p->qps > 1 || p->conns > 1) &&
	    p->streams < 2) {
		p->streams = p->threads;
		p->total_n = true;
	}
	p->cpus = q->cpus;
	p->rate = q->rate;
	p->msg_rate = q->rate ? 0 : q->msg_rate;
	p->arrivals = q->rate || q->msg_rate ? q->arrivals : 0;
	p->time = q->time_ns;
	p->timeout = q->timeout_ns;
	memcpy(p->id, q->id, sizeof(p->id));
	memcpy(p->static_rate, q->static_rate, sizeof(p->static_rate));
	p->id[sizeof(p->id) - 1] = '\0';
	p->static_rate[sizeof(p->static_rate) - 1] = '\0';
}

void session_params(const struct req *q, struct tparams *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < param_count; i++)
		session_param(&param_table[i], q, p);
	session_own(q, p);
}

uint32_t session_caps(void)
{
	uint32_t caps = CAP_NODE_EXT | CAP_LOSS | CAP_DATA_SECRET | CAP_HIST |
			CAP_VKNOBS | CAP_INTERVAL | CAP_CONF_EXT | CAP_STREAMS |
			CAP_COUNTERS | CAP_FACTS | CAP_FOREVER |
			CAP_RATE | CAP_OPENLOOP | CAP_OLRDMA | CAP_QPS |
			CAP_QPS2 | CAP_THREADS | CAP_CONNS;

	/* What this build can run: XRC, the tests beyond 0.4.11's. */
	for (size_t i = 0; i < test_count; i++) {
		if (!test_table[i].tp)
			continue;
		if (test_table[i].tp->flags & TF_XRC)
			caps |= CAP_XRC;
		caps |= test_table[i].cap;
		if (test_table[i].tp->conn_storm)
			caps |= CAP_STORM;
	}
	return caps;
}

/*
 * The idle side of a one-sided test: wait for the timer or, in a count
 * test or an open-loop one, for the client's "done"; a client that goes
 * away meanwhile is an error.
 */
static int wait_peer(void *arg, char *err, size_t errlen)
{
	struct tside *sd = arg;
	/* a count test, or an open-loop one (the client drains first) */
	bool count = sd->p.time == 0 || loop_open(sd->t, &sd->p);

	while (!measure_finished()) {
		struct pollfd pfd = { sd->c->fd, POLLPRI | POLLRDHUP, 0 };

		/* The client works on our memory, unseen: while it is still
		 * connected, that is progress for the watchdog. */
		progress_note();
		if (count)
			pfd.events |= POLLIN;
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			return seterr_errno(err, errlen, errno, "poll failed");
		if (pfd.revents & (POLLPRI | POLLRDHUP | POLLHUP | POLLERR))
			return seterr(err, errlen,
				      "the client went away during the test");
		if (count && (pfd.revents & POLLIN))
			return ctl_expect(sd->c, SYNC_DONE, err, errlen);
	}
	return 0;
}

/* Does the server of this test need to be told that the run is over (an
 * open-loop test, a count run of an idle server, or a run until
 * interrupted)? */
static bool peer_waits(const struct tside *sd)
{
	return sd->ext && ((sd->p.time == 0 &&
			    (sd->forever || loop_idle_side(sd->t, true))) ||
			   loop_open(sd->t, &sd->p) ||
			   sd->t->loop == LOOP_CONN);
}

bool session_forever(const struct tparams *p, bool ext, uint32_t caps)
{
	return ext && (caps & CAP_FOREVER) && p->time == 0 && p->no_msgs == 0;
}

/*
 * The server of a run until interrupted has no timer: a thread waits for
 * the client's "test done" (or for the client going away) and ends the
 * window as the timer would.  The words are read after the loop (they
 * may come after a stream's EOF ended it); the idle side of a one-sided
 * test reads them in wait_peer() instead and needs no watch.
 */
struct done_watch {
	pthread_t th;
	int fd; /* the control connection */
	int quit[2]; /* pipe: the loop ended first, stop watching */
	bool on;
};

static void *done_watch_main(void *arg)
{
	struct done_watch *w = arg;
	struct pollfd p[2] = { { w->fd, POLLIN | POLLPRI | POLLRDHUP, 0 },
			       { w->quit[0], POLLIN, 0 } };

	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	if (!(p[1].revents & POLLIN))
		measure_end_soon();
	return NULL;
}

/* Start the watch (signals blocked in it: the timer's SIGALRM must
 * interrupt the loop's thread).  0, or -1 with err filled. */
static int done_watch_start(struct done_watch *w, int fd, char *err,
			    size_t errlen)
{
	sigset_t all, old;
	int e;

	w->fd = fd;
	if (pipe(w->quit) < 0)
		return seterr_errno(err, errlen, errno, "pipe failed");
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&w->th, NULL, done_watch_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		close(w->quit[0]);
		close(w->quit[1]);
		return seterr_errno(err, errlen, e,
				    "cannot start the thread that waits for the client");
	}
	w->on = true;
	return 0;
}

static void done_watch_stop(struct done_watch *w)
{
	if (!w->on)
		return;
	if (write(w->quit[1], "", 1) < 0) {
		/* a pipe with room: cannot fail; join regardless */
	}
	pthread_join(w->th, NULL);
	close(w->quit[0]);
	close(w->quit[1]);
	w->on = false;
}

static int send_stat(struct tside *sd, char *err, size_t errlen)
{
	uint8_t st[STAT_SIZE], *ext = NULL;
	const struct hist *h = sd->peer_caps & CAP_HIST ? sd->hist : NULL;
	size_t n;
	int rc = -1;

	stat_encode(&sd->st, st);
	debugf(sd->c->debug, "sending results");
	if (ctl_send(sd->c, st, sizeof(st), "results", err, errlen) < 0)
		return -1;
	if (sd->ext) {
		ext = xmalloc(EXT_STAT_MAX);
		n = sd->nstreams ? ext_stat_encode_streams(&sd->st, sd->ext_ver,
							  sd->sst, sd->nstreams,
							  ext, EXT_STAT_MAX)
				 : ext_stat_encode(&sd->st, sd->ext_ver, h,
						   ext, EXT_STAT_MAX);
		n = pathrun_stat_add(sd, ext, n, EXT_STAT_MAX);
		if (n && sd->qps && (sd->peer_caps &
				     (sd->qps[0].conns ? CAP_CONNS : CAP_QPS)))
			n = stat_qps_append(&sd->qps[0], ext, n, EXT_STAT_MAX);
		if (n && sd->ext_ver >= 2 && (sd->peer_caps & CAP_COUNTERS))
			n = session_cnt_append(sd, ext, n, EXT_STAT_MAX);
		if (ctl_send(sd->c, ext, n, "results extension", err,
			     errlen) < 0)
			goto out;
	}
	rc = ctl_expect(sd->c, SYNC_AFTER, err, errlen);
out:
	free(ext);
	return rc;
}

static int recv_stat(struct tside *sd, char *err, size_t errlen)
{
	uint8_t st[STAT_SIZE], *ext;
	size_t n;
	int rc;

	debugf(sd->c->debug, "waiting for results");
	if (ctl_recv(sd->c, st, sizeof(st), "results", err, errlen) < 0)
		return -1;
	stat_decode(st, &sd->peer);
	if (sd->ext) {
		if (sd->t->measure == MEAS_LATENCY)
			sd->peer_hist = xmalloc(sizeof(*sd->peer_hist));
		ext = xmalloc(EXT_STAT_MAX);
		rc = ctl_recv_block(sd->c, ext, EXT_STAT_MAX, &n,
				    "results extension", err, errlen);
		if (rc == 0 && ext_stat_decode(ext, n, &sd->peer,
					       sd->peer_hist) < 0)
			rc = seterr(err, errlen, "bad results extension");
		if (rc == 0)
			pathrun_stat_take(sd, ext, n);
		if (rc == 0 && sd->qps &&
		    stat_qps_take(ext, n, &sd->qps[1]) < 0)
			rc = seterr(err, errlen, "bad results extension (QPs)");
		if (rc == 0 && sd->nstreams) {
			sd->peer_sst = xcalloc(sd->nstreams,
					       sizeof(*sd->peer_sst));
			if (ext_stat_decode_streams(ext, n, sd->peer_sst,
						    sd->nstreams) < 0)
				rc = seterr(err, errlen,
					    "bad results extension (streams)");
		}
		if (rc == 0 && sd->ext_ver >= 2 &&
		    (sd->peer_caps & CAP_COUNTERS) &&
		    session_cnt_take(sd, ext, n) < 0)
			rc = seterr(err, errlen,
				    "bad results extension (counters)");
		free(ext);
		if (rc < 0)
			return -1;
	}
	debugf(sd->c->debug, "sending synchronization after test");
	return ctl_send(sd->c, SYNC_AFTER, strlen(SYNC_AFTER), SYNC_AFTER, err,
			errlen);
}

/* Interval reports for this side, if asked for and the test has them. */
static struct ival *ival_setup(struct tside *sd, struct ival *iv)
{
	struct ival_sink srv = { ival_send, sd->c };

	if (!sd->interval || !ival_applies(sd->t, sd->server))
		return NULL;
	ival_init(iv, sd->interval, sd->p.time,
		  sd->server ? srv : sd->ival_out, sd->server,
		  sd->ival_peer, sd->c);
	return iv;
}

/* One stream of the test: its session and loop state. */
struct strm {
	struct tsess s;
	struct lrun lr;
	bool open;
};

/* Close what is still open (a stream early: TF_CLOSE_EARLY). */
static void close_all(struct strm *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].open)
			v[i].s.tp->close(&v[i].s);
		v[i].open = false;
	}
}

/*
 * Open every stream's data path, one after the other on the control
 * connection (the peer opens them in the same order).  0, or -1 with err
 * filled; the caller closes what was opened.
 */
static int open_streams(struct tside *sd, struct chan *ch, struct strm *v,
			uint32_t n, char *err, size_t errlen)
{
	const struct transport *tp = sd->t->tp;
	uint32_t at = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct tsess *s = &v[i].s;

		s->tp = tp;
		s->t = sd->t;
		s->server = sd->server;
		s->p = sd->p;
		s->p.slots = loop_open_slots(sd->t, &sd->p);
		/* --qps over --streams: stream i holds its share of them */
		s->p.qps = sd->p.qps / n + (i < sd->p.qps % n);
		/* --threads: -n is the total, the first n mod T one more;
		 * the device's limits are for all QPs */
		if (sd->p.total_n && sd->p.no_msgs)
			s->p.no_msgs = sd->p.no_msgs / n + (i < sd->p.no_msgs % n);
		if (sd->p.total_n)
			s->p.qps_test = sd->p.qps;
		/* --conns: likewise its share of the connections */
		s->p.conns = sd->p.conns / n + (i < sd->p.conns % n);
		s->p.conns_test = sd->p.conns;
		s->p.conns_before = at;
		at += s->p.conns;
		s->ch = ch;
		s->stop = &timer_fired;
		s->progress = progress_counter;
		s->priv = xcalloc(1, tp->priv_size ? tp->priv_size : 1);
		v[i].lr.s = s;
		v[i].lr.wait_peer = wait_peer;
		v[i].lr.wait_arg = sd;
		if (param_msg_check(sd->t, s->p.msg_size, err, errlen) < 0)
			return -1;
		v[i].open = true;
		if (tp->open(s, err, errlen) < 0)
			return -1;
	}
	sd->nnotes = v[0].s.nnotes < TNOTE_MAX ? v[0].s.nnotes : TNOTE_MAX;
	memcpy(sd->notes, v[0].s.notes, sizeof(sd->notes));
	return 0;
}

/* Every open stream's counters now (NULL: the transport has none). */
static struct cnt_set *read_counters(struct strm *v, uint32_t n)
{
	const struct transport *tp = v[0].s.tp;
	struct cnt_set *c;

	if (!tp->counters)
		return NULL;
	c = xcalloc(n, sizeof(*c));
	for (uint32_t i = 0; i < n; i++) {
		cnt_init(&c[i], tp->name);
		if (v[i].open)
			tp->counters(&v[i].s, &c[i]);
	}
	return c;
}

/* --rate: whether this side paced, and its streams' spread merged; an
 * open-loop test's counts (one stream). */
static void pace_result(struct tside *sd, const struct strm *v, uint32_t n)
{
	sd->paced = v[0].lr.paced;
	sd->kernel_paced = v[0].s.kernel_paced;
	sd->pace = v[0].lr.pace;
	sd->ol = v[0].lr.ol;
	for (uint32_t i = 1; i < n; i++)
		pace_merge(&sd->pace, &v[i].lr.pace);
}

/*
 * --qps (--conns): this side's QPs (connections), over every stream
 * (each held its share of them, opened one after the other): their counts
 * in stream order, their spread, setup times added up, memory per QP over
 * them all.
 */
static void qps_collect(struct tside *sd, struct strm *v, uint32_t n)
{
	const struct transport *tp = sd->t->tp;
	struct qp_side *q, *one = xcalloc(1, sizeof(*one));
	uint32_t all = sd->p.conns > 1 ? sd->p.conns : sd->p.qps;
	uint64_t *c = xcalloc(all, sizeof(*c)), mr = 0, qb = 0, pb = 0;
	uint32_t at = 0;

	sd->qps = xcalloc(2, sizeof(*sd->qps));
	q = &sd->qps[0];
	for (uint32_t i = 0; i < n; i++) {
		memset(one, 0, sizeof(*one));
		tp->qp_stats(&v[i].s, one, c + at);
		if (!one->n || one->n > all - at)
			break; /* each stream holds its share (open_streams()) */
		at += one->n;
		q->cq_per_qp = one->cq_per_qp;
		q->conns = one->conns;
		q->setup_ns += one->setup_ns;
		mr += one->mr_B * one->n;
		qb += one->queue_B * one->n;
		pb += one->proc_B * one->n;
	}
	q->valid = at > 0;
	q->n = at;
	q->threads = n;
	if (at) {
		q->mr_B = mr / at;
		q->queue_B = qb / at;
		q->proc_B = pb / at;
	}
	qps_spread(q, c, at);
	free(c);
	free(one);
}

/*
 * The measured phase: one stream in this thread, as 0.4.11 runs it; or
 * several in threads (core/streams.c), the idle side of a one-sided test
 * excepted, which has nothing to run but one wait for the peer.
 */
static int run_loops(struct tside *sd, struct strm *v, uint32_t n,
		     char *err, size_t errlen)
{
	struct lrun **lr;
	int rc;

	if (n == 1 || loop_idle_side(sd->t, sd->server)) {
		rc = loop_run(&v[0].lr, err, errlen);
		sd->st = v[0].lr.st;
		sd->st.max_cqes = v[0].s.max_cqes;
		pace_result(sd, v, 1);
		return rc; /* an idle side's streams count nothing */
	}
	lr = xcalloc(n, sizeof(*lr));
	for (uint32_t i = 0; i < n; i++)
		lr[i] = &v[i].lr;
	rc = streams_run(lr, n, &sd->p.cpus, sd->p.time, &sd->st, err,
			 errlen);
	for (uint32_t i = 0; i < n; i++)
		sd->sst[i] = v[i].lr.st;
	pace_result(sd, v, n);
	free(lr);
	return rc;
}

int session_run(struct tside *sd, char *err, size_t errlen)
{
	const struct transport *tp = sd->t->tp;
	uint32_t n = sd->p.streams > 1 ? sd->p.streams : 1;
	struct strm *v = xcalloc(n, sizeof(*v));
	struct tsess *s = &v[0].s;
	struct cnt_set *c0 = NULL, *c1 = NULL;
	struct chan ch;
	cpu_set_t cpus;
	struct ival iv;
	struct done_watch dw = { .on = false };
	bool moved = false, watch;
	int rc = -1;

	chan_init(&ch, sd);
	/* An open-loop responder answers until told, too (openloop.c), and
	 * a connection test's server accepts until told (measure_conn.c). */
	watch = sd->server && !loop_idle_side(sd->t, true) &&
		(sd->forever || loop_open(sd->t, &sd->p) ||
		 sd->t->loop == LOOP_CONN);
	if (n > 1) {
		sd->nstreams = n;
		sd->sst = xcalloc(n, sizeof(*sd->sst));
	}
	if (open_streams(sd, &ch, v, n, err, errlen) < 0)
		goto out;
	if (!sd->server || (sd->peer_caps & CAP_FACTS)) {
		pathrun_gather(s, &sd->facts);
		sd->have_facts = true;
	}
	/* The transport placed its buffers on a node: run there too
	 * (perftest does the same), unless -ca chose this side's CPU.
	 * Several streams place their own threads. */
	if (n == 1 && s->numa_placed && !s->p.affinity) {
		if (qnuma_run_on(s->numa_node, &cpus, err, errlen) < 0)
			goto out;
		moved = true;
	}
	if (sd->t->measure == MEAS_LATENCY && measure_lat_timing()) {
		sd->hist = xmalloc(sizeof(*sd->hist));
		hist_init(sd->hist);
		v[0].lr.hist = sd->hist;
	}
	if (sd->t->loop == LOOP_CONN && !sd->server) {
		sd->conn = xmalloc(sizeof(*sd->conn));
		conn_hist_init(sd->conn, tp->conn_steps);
		v[0].lr.conn = sd->conn;
	}
	if (n == 1)
		v[0].lr.iv = ival_setup(sd, &iv);
	for (uint32_t i = 0; i < n; i++)
		if (loop_prep(&v[i].lr, err, errlen) < 0)
			goto out;
	if (!sd->server && sd->barrier &&
	    sd->barrier(sd->barrier_arg, sd->c->timeout, err, errlen) < 0)
		goto out;
	debugf(sd->c->debug, "waiting for synchronization before test");
	if (ctl_sync(sd->c, SYNC_BEFORE, err, errlen) < 0)
		goto out;
	debugf(sd->c->debug, "synchronization complete");
	c0 = read_counters(v, n);
	/* Steps that talk on the control connection: conn() reads the end
	 * there itself (the client's conn_done()). */
	if (watch && !(tp->flags & TF_CTL_STEPS) &&
	    done_watch_start(&dw, sd->c->fd, err, errlen) < 0)
		goto out;
	rc = run_loops(sd, v, n, err, errlen);
	done_watch_stop(&dw);
	if ((sd->p.qps > 1 || sd->p.conns > 1) && tp->qp_stats)
		qps_collect(sd, v, n);
	if (watch)
		measure_disarm(); /* the watch may have armed it late */
	c1 = read_counters(v, n);
	session_cnt_window(sd, c0, c1, n);
	sd->last_errno = s->last_errno;
	/*
	 * Close a stream now: a 0.4.11 server's window ends at EOF, and a
	 * peer blocked sending to us returns.  Verbs keep their QP until
	 * both sides are done, as 0.4.11 does.
	 */
	if (tp->flags & TF_CLOSE_EARLY)
		close_all(v, n);
	if (rc < 0)
		goto out;
	rc = -1;
	/* Before the interval reports' end: a server that runs until told
	 * sends its last record only once told. */
	if (!sd->server && peer_waits(sd) &&
	    ctl_send(sd->c, SYNC_DONE, strlen(SYNC_DONE), SYNC_DONE, err,
		     errlen) < 0)
		goto out;
	if (watch && ctl_expect(sd->c, SYNC_DONE, err, errlen) < 0)
		goto out;
	if (v[0].lr.iv && ival_finish(v[0].lr.iv, &sd->st, err, errlen) < 0)
		goto out;
	if ((sd->server ? send_stat(sd, err, errlen)
			: recv_stat(sd, err, errlen)) < 0)
		goto out;
	rc = 0;
out:
	close_all(v, n);
	if (moved)
		qnuma_restore_cpus(&cpus); /* the client's next test */
	for (uint32_t i = 0; i < n; i++)
		free(v[i].s.priv);
	free(v);
	free(c0);
	free(c1);
	return rc;
}

void session_release(struct tside *sd)
{
	free(sd->hist);
	free(sd->peer_hist);
	free(sd->conn);
	sd->conn = NULL;
	free(sd->sst);
	free(sd->peer_sst);
	free(sd->qps);
	sd->qps = NULL;
	free(sd->cnt.streams);
	free(sd->peer_cnt.streams);
	sd->cnt.streams = sd->peer_cnt.streams = NULL;
	sd->hist = sd->peer_hist = NULL;
	sd->sst = sd->peer_sst = NULL;
}

int session_check(const struct test_desc *t, const struct tparams *p,
		  char *err, size_t errlen)
{
	struct chan ch;
	struct tsess s;
	int rc;

	if (!t->tp || !t->tp->check)
		return 0;
	memset(&ch, 0, sizeof(ch));
	ch.ext = true;
	ch.peer_caps = ~0u;
	ch.watch_fd = -1;
	memset(&s, 0, sizeof(s));
	s.tp = t->tp;
	s.t = t;
	s.p = *p;
	s.ch = &ch;
	s.stop = &timer_fired;
	s.progress = progress_counter;
	s.priv = xcalloc(1, t->tp->priv_size ? t->tp->priv_size : 1);
	rc = t->tp->check(&s, err, errlen);
	free(s.priv);
	return rc;
}
