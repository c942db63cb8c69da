// SPDX-License-Identifier: GPL-2.0-only
/*
 * The client: for each test of the plan (and each --loop iteration),
 * connect, send the request, run the test's exchange, collect the
 * server's results and print the report.
 *
 * Dialect negotiation: the first request goes out as version 0.5 with the
 * extension block.  A 0.4.11 server answers with its "upgrade qperf on
 * server from 0.4.x" error; the client then remembers that the server is
 * legacy and retries on a new connection with a plain 0.4.11 request.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transports/transport.h"
#include "auth.h"
#include "checks.h"
#include "ctl.h"
#include "engine.h"
#include "interval.h"
#include "fabric.h"
#include "measure.h"
#include "session.h"
#include "session_cnt.h"
#include "pathrun.h"
#include "client_int.h"
#include "regmr.h"
#include "lib/tlv.h"
#include "output/report.h"
#include "output/sink.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"
#include "lib/sockcall.h"
#include "lib/numa.h"
#include "lib/random.h"
#include "output/out.h"

#define PREFLIGHT_MAX 16 /* distinct preflights a run makes at most */

struct client {
	const struct plan *plan;
	bool legacy; /* the server speaks only 0.4.11's dialect */
	bool quit; /* a quit test ran: stop */
	struct outputs out; /* where every event goes (output/sink.h) */
	char run_err[ERR_MAX]; /* the run's error: the first failure */
	bool ival_warned; /* said once that the server sends no intervals */
	struct checks *checks; /* --expect, --baseline: NULL if none */
	struct path_seen path_seen; /* findings said (core/pathrun.h) */
	struct path_pre pre_done[PREFLIGHT_MAX][2]; /* preflights run */
	unsigned npre;
	char pre_err[ERR_MAX]; /* a preflight's: plan item pre_pos's error */
	size_t pre_pos;
	const struct client_barrier *barrier; /* --clients, or NULL */
	const struct client_hook *hook; /* --load, or NULL */
};

/* 128 + the signal: a run that SIGINT (130), SIGTERM (143) or SIGHUP
 * (129) cut short (JSON modes and -t 0 only; otherwise the signal kills
 * qperf).  The signal that ends a -t 0 test's window cuts nothing short. */
#define CLIENT_INTERRUPTED (128 + *measure_abort_flag())



/* Connect the control connection within the --wait_server window. */
static int ctl_connect(struct attempt *a, const struct plan *p)
{
	struct addrinfo hints, *res = NULL;
	char port[16];
	uint64_t timeout = a->par.val[SIDE_LOC][PAR_TIMEOUT];
	uint64_t deadline = now_ns() + p->wait_server;
	int e, last = ECONNREFUSED;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	xsnprintf(port, sizeof(port), "%u", p->listen_port);
	e = getaddrinfo(p->host, port, &hints, &res);
	if (e)
		return seterr(a->err, sizeof(a->err),
			      "getaddrinfo failed: %s: \"%.100s\"",
			      gai_strerror(e), p->host);
	for (;;) {
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			uint64_t now = now_ns(), t = timeout;
			int fd = socket(ai->ai_family,
					ai->ai_socktype | SOCK_CLOEXEC,
					ai->ai_protocol);

			if (fd < 0) {
				last = errno;
				continue;
			}
			if (p->wait_server && deadline > now &&
			    deadline - now < t)
				t = deadline - now;
			if (connect_bounded(fd, ai->ai_addr,
					    ai->ai_addrlen, t) == 0) {
				freeaddrinfo(res);
				fcntl(fd, F_SETFL,
				      fcntl(fd, F_GETFL) | O_NONBLOCK);
				ctl_nodelay(fd);
				a->c.fd = fd;
				return 0;
			}
			last = errno;
			close(fd);
		}
		/* (a signal that cuts the run short ends the wait too) */
		if (now_ns() + 100000000ULL >= deadline ||
		    (a->c.intr && *a->c.intr))
			break;
		sleep_ns(100000000ULL); /* the server may still be starting */
	}
	freeaddrinfo(res);
	return seterr(a->err, sizeof(a->err),
		      "%s%.200s port %u: failed to connect: %s",
		      last == ECONNREFUSED ? "no qperf server at " : "",
		      p->host, p->listen_port, strerror(last));
}

/*
 * The server's answer to a 0.5 request did not come, or is not a qperf
 * server's: say so, naming host and port, rather than a protocol item.
 * why: ctl.c's reason ("failed to receive server extension: timed out").
 */
static int not_qperf(struct attempt *a, const struct plan *p,
		     const char *why)
{
	const char *r = "its answer to the request is not qperf's", *c;
	char w[ERR_MAX];

	xsnprintf(w, sizeof(w), "%s", why); /* why may be a->err */
	why = w;
	c = strstr(why, "extension: "); /* "server not responding" */
	if (strstr(why, "closed the connection")) {
		r = "it closed the connection without answering the request";
		c = NULL;
	} else if (strstr(why, "timed out")) {
		r = "no answer to the request (timed out)";
		c = NULL;
	}
	return seterr(a->err, sizeof(a->err),
		      "no qperf server at %.200s port %u: %s%s%.100s%s",
		      p->host, p->listen_port, r, c ? " (" : "",
		      c ? c + strlen("extension: ") : "", c ? ")" : "");
}

/*
 * With a shared secret, the client sends its nonce, insists that the
 * server asks for the secret too (a server that does not would serve
 * anyone, and may not be the one meant) and runs the proofs.
 */
static int send_request(struct attempt *a, const struct plan *p)
{
	const struct auth_secret *secret = p->secret;
	uint8_t b[REQ_SIZE], ext[EXT_BLOCK_MAX], rep[EXT_BLOCK_MAX];
	struct auth_transcript tr;
	size_t n, hn;

	debugf(a->s->out.debug, "sending request: %s", a->t->name);
	req_encode(&a->q, b);
	if (ctl_send(&a->c, b, sizeof(b), "request data", a->err,
		     sizeof(a->err)) < 0)
		return -1;
	if (!a->q.ext)
		return 0;
	a->q.has_nonce = secret != NULL;
	if (secret && random_bytes(a->q.nonce, sizeof(a->q.nonce), a->err,
				   sizeof(a->err)) < 0)
		return -1;
	n = ext_req_encode(&a->q, ext, sizeof(ext));
	if (ctl_send(&a->c, ext, n, "request extension", a->err,
		     sizeof(a->err)) < 0)
		return -1;
	if (ctl_recv_block(&a->c, rep, sizeof(rep), &hn, "server extension",
			   a->err, sizeof(a->err)) < 0)
		return a->c.peer_failed || measure_aborted() ?
			       -1 :
			       not_qperf(a, p, a->err);
	if (hello_decode(rep, hn, &a->h) < 0)
		return not_qperf(a, p, "");
	if (!secret && a->h.auth)
		return seterr(a->err, sizeof(a->err),
			      "the server requires a shared secret: give --secret_file FILE (or set QPERF_SECRET_FILE)");
	if (!secret)
		return 0;
	if (!a->h.auth)
		return seterr(a->err, sizeof(a->err),
			      "a shared secret was given, but the server (qperf %s) does not check one: it was started without --secret_file; refusing to run tests with it",
			      a->h.version[0] ? a->h.version : "0.5");
	tr = (struct auth_transcript){ b, ext, n, rep, hn };
	return auth_client(&a->c, secret, &tr, a->err, sizeof(a->err));
}

static int run_conf(struct client *cl, struct attempt *a)
{
	uint8_t b[CONF_SIZE];
	struct conf_info loc, rem;
	bool more = !a->pre_for && (a->s->out.v_extra ||
				    (outputs_flags(a->out) & SINK_CONF_EXT));
	struct conf_ext *x = NULL; /* [0] this end, [1] the server */
	struct path_pre pre;

	if (ctl_recv(&a->c, b, sizeof(b), "configuration", a->err,
		     sizeof(a->err)) < 0)
		return -1;
	conf_decode(b, &rem);
	conf_local(&loc);
	pathrun_pre_of(&a->lq, &pre);
	if (more) {
		x = xcalloc(2, sizeof(*x));
		conf_ext_local(&x[0]);
	}
	if (a->q.ext && (a->h.caps & CAP_CONF_EXT)) {
		uint8_t *blk = xmalloc(TLV_MAX);
		size_t n;
		int rc = ctl_recv_block(&a->c, blk, TLV_MAX, &n,
					"configuration extension", a->err,
					sizeof(a->err));

		if (rc == 0 && x && conf_ext_decode(blk, n, &x[1]) < 0)
			rc = seterr(a->err, sizeof(a->err),
				    "bad configuration extension");
		if (rc == 0) /* the host checks of both ends */
			pathrun_conf(&cl->path_seen, a->out, x, &pre,
				     (a->h.caps & CAP_FACTS) ? blk : NULL, n);
		free(blk);
		if (rc < 0) {
			free(x);
			return -1;
		}
	} else {
		pathrun_conf(&cl->path_seen, a->out, x, &pre, NULL, 0);
	}
	if (!pre.on)
		out_conf(a->out, &(struct out_conf){ &loc, &rem, x ? &x[0] : NULL,
					     x ? &x[1] : NULL, a->run_conf });
	free(x);
	return 0;
}

/* A test that measured nothing is a failure, never a zero result. */
static int check_measured(struct attempt *a, const struct tside *sd,
			  const struct results *res)
{
	const struct node_stat *st = &sd->st;

	if (st->s.msgs == 0 && st->s.errs > 0)
		return seterr(a->err, sizeof(a->err),
			      "every send failed (%llu errors): %s",
			      (unsigned long long)st->s.errs,
			      strerror(sd->last_errno));
	if (a->t->measure == MEAS_LATENCY &&
	    res->l.r.msgs + res->r.r.msgs == 0)
		return seterr(a->err, sizeof(a->err),
			      "no message completed a round trip");
	if (a->t->loop == LOOP_CONN && st->s.msgs == 0)
		return seterr(a->err, sizeof(a->err),
			      "no transaction completed");
	if (a->t->loop == LOOP_STREAM_BW && res->r.r.msgs == 0)
		return seterr(a->err, sizeof(a->err),
			      "no message reached the server (%llu sent, %llu send errors%s%s)",
			      (unsigned long long)st->s.msgs,
			      (unsigned long long)st->s.errs,
			      st->s.errs ? ": " : "",
			      st->s.errs ? strerror(sd->last_errno) : "");
	return 0;
}

/* The option of the first verbs knob this test uses, or NULL. */
static const char *knob_given(const struct attempt *a)
{
	for (int i = PAR_VK_FIRST; i <= PAR_VK_LAST; i++) {
		int side = a->par.set[SIDE_LOC][i] ? SIDE_LOC : SIDE_REM;

		if (a->par.set[side][i] && a->par.used[i])
			return a->par.spelling[side][i];
	}
	return NULL;
}

/* An interval record of either side: to every output. */
static int ival_out(void *arg, const struct ival_rec *r, char *err,
		    size_t errlen)
{
	return out_interval(arg, r, err, errlen);
}

/* Interval reports: this side's, the server's too if it can send them. */
static void ival_client(struct client *cl, struct attempt *a,
			struct tside *sd)
{
	if (!a->s->interval || !ival_applies(a->t, false))
		return;
	sd->interval = a->s->interval;
	sd->ival_out.emit = ival_out;
	sd->ival_out.arg = a->out;
	sd->ival_peer = sd->ext && (sd->peer_caps & CAP_INTERVAL) &&
			ival_applies(a->t, true);
	if (!sd->ival_peer && ival_applies(a->t, true) && !cl->ival_warned) {
		cl->ival_warned = true;
		out_warning(a->out,
			    "the server runs qperf %s, which sends no interval reports; showing this side's figures only",
			    sd->ext ? a->h.version : "0.4");
	}
}

/* --streams: each stream's figures (free them), or NULL. */
static struct results *stream_results(const struct tside *sd)
{
	struct results *r;

	if (sd->nstreams < 2 || !sd->sst || !sd->peer_sst)
		return NULL;
	r = xcalloc(sd->nstreams, sizeof(*r));
	for (uint32_t i = 0; i < sd->nstreams; i++)
		calc_stream_results(&sd->st, &sd->peer, &sd->sst[i],
				    &sd->peer_sst[i], &r[i]);
	return r;
}

/* The option that asked for several streams or a CPU list, or NULL. */
static const char *streams_given(const struct attempt *a)
{
	if (a->par.used[PAR_STREAMS] && a->par.val[SIDE_LOC][PAR_STREAMS] > 1)
		return a->par.spelling[SIDE_LOC][PAR_STREAMS];
	for (int side = SIDE_LOC; side <= SIDE_REM; side++)
		if (a->par.cpus[side].n)
			return a->par.spelling[side][PAR_AFFINITY];
	return NULL;
}

/* The option that asked for several QPs, or NULL. */
static const char *qps_given(const struct attempt *a)
{
	if (a->par.used[PAR_QPS] && a->par.val[SIDE_LOC][PAR_QPS] > 1)
		return a->par.spelling[SIDE_LOC][PAR_QPS];
	return NULL;
}

/* --rate as given for this test (0: none), and whether it is msgs/s. */
static uint64_t rate_given(const struct attempt *a, bool *msgs)
{
	const uint64_t *v = a->par.val[SIDE_LOC];

	*msgs = a->par.used[PAR_MSG_RATE] && v[PAR_MSG_RATE];
	if (*msgs)
		return v[PAR_MSG_RATE];
	return a->par.used[PAR_RATE] ? v[PAR_RATE] : 0;
}

/* A test where the server sends too, so that it must pace: the
 * bidirectional ones (RDMA read is paced by the client, which posts). */
static bool server_paces(const struct attempt *a)
{
	bool msgs;

	return rate_given(a, &msgs) && a->t->loop == LOOP_BI_BW;
}

/* --rate on a latency test: open loop (core/openloop.c). */
static bool open_loop_given(const struct attempt *a)
{
	bool msgs;

	return a->t->measure == MEAS_LATENCY && rate_given(a, &msgs);
}

/* A server that cannot run open-loop latency: one line, the test fails. */
static int no_open_loop(struct attempt *a, const char *host)
{
	return seterr(a->err, sizeof(a->err),
		      "%s --rate: the server at %s does not run open-loop latency tests (qperf 0.4.11 or an older 0.5)",
		      a->t->name, host);
}

/* --rate's figures and its one warning of a shortfall. */
static void pace_figures(struct attempt *a, const struct tside *sd,
			 struct results *res)
{
	char w[200];
	bool msgs;
	uint64_t r = rate_given(a, &msgs);

	calc_pace(res, a->t, msgs, r, sd->kernel_paced,
		  sd->paced ? &sd->pace : NULL);
	calc_openloop(res, &sd->ol, sd->p.msg_size);
	if (pace_shortfall_text(&res->pace, a->t->name, w, sizeof(w)))
		out_warning(a->out, "%s", w);
}

static int run_data(struct client *cl, struct attempt *a)
{
	struct tside sd;
	struct results res;
	struct report_note notes[TNOTE_MAX];
	struct out_result o;
	struct cnt_both cnt;
	struct path_report pr;
	struct conn_res conn;
	char qw[64];
	uint32_t cap;
	int rc = -1;

	memset(&sd, 0, sizeof(sd));
	sd.t = a->t;
	sd.server = false;
	sd.c = &a->c;
	sd.ext = a->q.ext;
	sd.ext_ver = a->q.ext_ver;
	sd.peer_caps = a->h.caps;
	session_params(&a->lq, &sd.p);
	regmr_apply(a->s, &sd.p); /* this end's buffer only */
	if (sd.ext && knob_given(a) && !(sd.peer_caps & CAP_VKNOBS))
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server that honours qperf %s's verbs knobs; this server (qperf %s) would ignore it",
			      a->t->name, knob_given(a), QPERF_VERSION,
			      a->h.version);
	if (sd.ext && streams_given(a) && !(sd.peer_caps & CAP_STREAMS))
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server that runs several streams (qperf %s); this server (qperf %s) lacks it",
			      a->t->name, streams_given(a), QPERF_VERSION,
			      a->h.version);
	cap = param_qps_cap(a->t, &a->par, qw, sizeof(qw));
	if (qps_given(a) && !(sd.ext && (sd.peer_caps & cap) == cap))
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server that %s (qperf %s); the server at %s (qperf %s) lacks it",
			      a->t->name, qps_given(a), qw, QPERF_VERSION,
			      cl->plan->host, a->h.version);
	if (client_caps_check(a, false, cl->plan->host) < 0)
		return -1;
	if (param_forever(a->t, &a->par) && !session_forever(&sd.p, sd.ext &&
						       sd.ext_ver >= 2,
						       sd.peer_caps))
		return seterr(a->err, sizeof(a->err),
			      "%s: -t 0 (run until interrupted) needs a server that can be told when to stop (qperf %s); this server (qperf %s) lacks it",
			      a->t->name, QPERF_VERSION, a->h.version);
	sd.forever = param_forever(a->t, &a->par);
	if (sd.ext && server_paces(a) && !(sd.peer_caps & CAP_RATE))
		return seterr(a->err, sizeof(a->err),
			      "%s: --rate needs a server that paces what it sends (qperf %s); this server (qperf %s) cannot",
			      a->t->name, QPERF_VERSION, a->h.version);
	if (open_loop_given(a) &&
	    !(sd.ext && (sd.peer_caps & CAP_OPENLOOP) &&
	      (!(a->t->flags & TDF_OL_NEW) || (sd.peer_caps & CAP_OLRDMA))))
		return no_open_loop(a, cl->plan->host);
	ival_client(cl, a, &sd);
	if (cl->barrier) {
		sd.barrier = cl->barrier->wait;
		sd.barrier_arg = cl->barrier->arg;
	} else if (cl->hook) {
		sd.barrier = cl->hook->wait;
		sd.barrier_arg = cl->hook->arg;
	}
	if (a->t->cap && !(sd.peer_caps & a->t->cap))
		return seterr(a->err, sizeof(a->err),
			      "%s needs a server running qperf %s or later; the server at %s runs qperf %s, which lacks it",
			      a->t->name, QPERF_VERSION, cl->plan->host,
			      a->h.version);
	if (a->t->tp && (a->t->tp->flags & TF_XRC) &&
	    !(sd.peer_caps & CAP_XRC))
		return seterr(a->err, sizeof(a->err),
			      "%s: the server lacks XRC tests (it runs qperf %s; XRC needs %s or later on both ends)",
			      a->t->name, sd.ext ? a->h.version : "0.4",
			      QPERF_VERSION);
	debugf(a->s->out.debug, "waiting for port");
	if (session_run(&sd, a->err, sizeof(a->err)) < 0)
		goto out;
	calc_results(&sd.st, &sd.peer, &res);
	calc_extra(&res, a->t, sd.hist, sd.peer_hist);
	if (check_measured(a, &sd, &res) < 0)
		goto out;
	if (sd.conn) {
		conn_summarize(sd.conn, &sd.st,
			       (a->t->uses & PAR_BIT(PAR_MSG_SIZE)) ?
				       sd.p.msg_size : 0,
			       a->t->tp->conn_steps, &conn);
		res.conn = &conn;
	}
	pace_figures(a, &sd, &res);
	res.qps = sd.qps;
	if (sd.st.lost)
		out_warning(a->out,
			    "%s: %llu message%s lost; each time the exchange was restarted",
			    a->t->name, (unsigned long long)sd.st.lost,
			    sd.st.lost == 1 ? "" : "s");
	session_cnt_result(&sd, &cnt, a->out);
	res.cnt = &cnt;
	pathrun_result(&cl->path_seen, a->out, &sd, &res, &pr);
	for (int i = 0; i < sd.nnotes; i++) {
		notes[i].name = sd.notes[i].name;
		notes[i].value = sd.notes[i].value;
		notes[i].extra = sd.notes[i].extra;
	}
	o = (struct out_result){ .res = &res, .notes = notes,
				 .nnotes = sd.nnotes,
				 .streams = stream_results(&sd),
				 .nstreams = sd.nstreams, .path = &pr };
	if (cl->hook && cl->hook->result(cl->hook->arg, &o, a->err,
					 sizeof(a->err)) < 0)
		goto out;
	o.verdict = checks_result(cl->checks, a->out, a->t, a->s, &a->par,
				  &res);
	out_result(a->out, &o);
	free((void *)o.streams);
	rc = 0;
out:
	session_release(&sd);
	return rc;
}

/* Adjustments a 0.4.11 server needs; may fail with a clear error. */
static int legacy_adjust(struct attempt *a, const char *host)
{
	uint64_t t = a->par.val[SIDE_LOC][PAR_TIME];

	/* 0.4.11 would run it, but only a stream's EOF could end it: an
	 * RDMA or UDP server would never finish, and it serves one client
	 * at a time. */
	if (param_forever(a->t, &a->par))
		return seterr(a->err, sizeof(a->err),
			      "%s: -t 0 (run until interrupted) needs a server running qperf %s or later; this server runs 0.4, which could not be told to stop",
			      a->t->name, QPERF_VERSION);
	if (a->par.val[SIDE_REM][PAR_NO_MSGS] && a->t->tp &&
	    !(a->t->flags & TDF_LEGACY_N) &&
	    !(a->t->tp->flags & TF_EOF_ENDS))
		return seterr(a->err, sizeof(a->err),
			      "%s with -n needs a server running qperf %s or later; this server runs 0.4",
			      a->t->name, QPERF_VERSION);
	if (a->t->index > TEST_LEGACY_LAST)
		return seterr(a->err, sizeof(a->err),
			      "%s needs a server running qperf %s or later; the server at %s runs qperf 0.4, which lacks it",
			      a->t->name, QPERF_VERSION, host);
	if (a->par.set[SIDE_REM][PAR_GID_INDEX] ||
	    a->par.set[SIDE_LOC][PAR_GID_INDEX])
		return seterr(a->err, sizeof(a->err),
			      "%s: -gi needs a server running qperf %s or later; this server runs 0.4, whose protocol cannot carry a GID",
			      a->t->name, QPERF_VERSION);
	if (streams_given(a))
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server running qperf %s or later; this server runs 0.4, %s",
			      a->t->name, streams_given(a), QPERF_VERSION,
			      a->par.val[SIDE_LOC][PAR_STREAMS] > 1 &&
					      a->par.used[PAR_STREAMS]
				      ? "which runs one stream per test"
				      : "whose -ca takes one CPU number, not a list");
	if (qps_given(a))
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server running qperf %s or later; the server at %s runs qperf 0.4, which holds one QP per test",
			      a->t->name, qps_given(a), QPERF_VERSION, host);
	if (client_caps_check(a, true, host) < 0)
		return -1;
	if (knob_given(a))
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server running qperf %s or later; this server runs 0.4, whose protocol cannot carry it",
			      a->t->name, knob_given(a), QPERF_VERSION);
	if (open_loop_given(a))
		return no_open_loop(a, host);
	if (server_paces(a))
		return seterr(a->err, sizeof(a->err),
			      "%s: --rate needs a server running qperf %s or later to pace what it sends; this server runs 0.4, which cannot (tests where only the client sends are paced by the client alone)",
			      a->t->name, QPERF_VERSION);
	/* 0.4.11 connects only RC through the CM; elsewhere it ignores
	 * -cm1 with this warning and uses its own exchange. */
	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		if (!a->par.val[side][PAR_USE_CM] || !a->t->tp ||
		    (a->t->tp->flags & TF_LEGACY_CM) ||
		    !(a->t->uses & PAR_BIT(PAR_USE_CM)))
			continue;
		if (a->par.set[side][PAR_USE_CM] &&
		    (side == SIDE_LOC ||
		     strcmp(a->par.spelling[SIDE_LOC][PAR_USE_CM],
			    a->par.spelling[SIDE_REM][PAR_USE_CM]) != 0))
			fprintf(stderr,
				"qperf: warning: %s set but not used in test %s\n",
				a->par.spelling[side][PAR_USE_CM], a->t->name);
		a->par.val[side][PAR_USE_CM] = 0;
		param_prepare(a->t, &a->par);
		a->par.used[PAR_USE_CM] = false;
	}
	if (t % NS_PER_SEC) {
		t = (t + NS_PER_SEC - 1) / NS_PER_SEC * NS_PER_SEC;
		fprintf(stderr,
			"qperf: warning: the server runs qperf 0.4, which counts whole seconds; -t rounded up to %llu s\n",
			(unsigned long long)(t / NS_PER_SEC));
		/* The report shows the time that actually ran. */
		a->par.val[SIDE_LOC][PAR_TIME] = t;
		a->par.val[SIDE_REM][PAR_TIME] = t;
	}
	return 0;
}

/* One try at the test in the given dialect. */
static int attempt_run(struct client *cl, struct attempt *a, bool legacy)
{
	int rc;

	a->c.fd = -1;
	a->c.server = false;
	a->c.timeout = a->par.val[SIDE_LOC][PAR_TIMEOUT];
	a->c.debug = a->s->out.debug;
	a->c.peer_failed = false;
	/* -t 0: the first signal in the window ends the test well; only
	 * another one (or one during setup) cuts the control waits short. */
	a->c.intr = param_forever(a->t, &a->par) ? measure_abort_flag()
					   : measure_interrupt_flag();
	if (legacy && cl->barrier)
		return seterr(a->err, sizeof(a->err),
			      "%s: %s needs a server running qperf %s or later, which serves clients at once; this server runs 0.4, which serves one test at a time",
			      a->t->name, cl->barrier->opt, QPERF_VERSION);
	if (legacy && legacy_adjust(a, cl->plan->host) < 0)
		return -1;
	fill_request(a, legacy);
	if (ctl_connect(a, cl->plan) < 0)
		return -1;
	rc = send_request(a, cl->plan);
	if (rc == 0) {
		switch (a->t->kind) {
		case TK_CONF:
			rc = run_conf(cl, a);
			break;
		case TK_QUIT:
			rc = ctl_sync(&a->c, SYNC_BEFORE, a->err,
				      sizeof(a->err));
			if (rc == 0)
				cl->quit = true;
			break;
		default:
			rc = run_data(cl, a);
			break;
		}
	}
	if (rc < 0 && !a->c.peer_failed)
		ctl_send_error(&a->c, a->err);
	close(a->c.fd);
	a->c.fd = -1;
	return rc;
}

/* Did a 0.5 request of attempt a get a 0.4.11 (or early 0.5) server's
 * refusal? */
static bool legacy_answer(const struct attempt *a)
{
	return a->c.peer_failed &&
	       (strncmp(a->err, LEGACY_UPGRADE_ERR,
			strlen(LEGACY_UPGRADE_ERR)) == 0 ||
		strcmp(a->err, EARLY_EXT_ERR) == 0);
}

/* Run attempt a, once more in 0.4.11's dialect if the server needs it. */
static int attempt_dialects(struct client *cl, struct attempt *a)
{
	int rc = set_cpu_affinity(a->par.val[SIDE_LOC][PAR_AFFINITY], a->err,
				  sizeof(a->err));

	if (rc < 0)
		return rc;
	rc = attempt_run(cl, a, cl->legacy);
	if (rc < 0 && !cl->legacy && legacy_answer(a)) {
		if (cl->plan->secret) {
			seterr(a->err, sizeof(a->err),
			       "a shared secret was given, but the server runs %s, which cannot check one; refusing to run tests with it",
			       strncmp(a->err, LEGACY_UPGRADE_ERR,
				       strlen(LEGACY_UPGRADE_ERR))
				       ? "an early qperf 0.5 build"
				       : "qperf 0.4");
			return rc;
		}
		debugf(a->s->out.debug, "server speaks qperf 0.4.11; retrying");
		cl->legacy = true;
		rc = attempt_run(cl, a, true);
	}
	return rc;
}

/* Checks of the local side before connecting; -1 with a->err filled. */
static int test_local_checks(struct attempt *a)
{
	const struct test_desc *t = a->t;
	char msg[ERR_MAX - 64];

	if (param_msg_check(t, a->par.val[SIDE_LOC][PAR_MSG_SIZE], msg,
			    sizeof(msg)) < 0)
		return seterr(a->err, sizeof(a->err), "%s: %s", t->name, msg);
	if (t->missing)
		return seterr(a->err, sizeof(a->err), "%s: %s", t->name,
			      t->missing);
	return 0;
}

/* The exit status of a failed test: 128 + the signal once interrupted,
 * else 1. */
static int fail_status(void)
{
	return measure_aborted() ? CLIENT_INTERRUPTED : 1;
}

static int run_test(struct client *cl, const struct test_desc *t,
		    const struct settings *s, unsigned pos, unsigned iter)
{
	struct attempt *a = xcalloc(1, sizeof(*a));
	struct loop_val lv[LOOP_MAX];
	struct out_test ot;
	char warn[2048];
	int rc;

	a->t = t;
	a->s = s;
	a->par = s->par;
	a->out = &cl->out;
	param_prepare(t, &a->par);
	ot = (struct out_test){
		.t = t, .pos = pos, .iter = iter, .loops = lv,
		.nloops = loop_vals(s, lv), .o = &s->out,
		.par = t->kind != TK_CONF ? &a->par : NULL,
		.interval = ival_applies(t, false) ? s->interval : 0,
	};
	out_test_start(a->out, &ot);
	out_flush();
	if (t->kind != TK_CONF &&
	    param_unused(t, &a->par, warn, sizeof(warn))) {
		char *save = NULL;

		for (char *l = strtok_r(warn, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			out_warning(a->out, "%s", l);
	}
	if (s->interval && t->kind != TK_CONF && !ival_applies(t, false))
		out_warning(a->out,
			    "%s set but not used in test %s (interval reports are for bandwidth tests)",
			    s->interval_opt ? s->interval_opt : "-I", t->name);
	rc = test_local_checks(a);
	measure_forever(param_forever(t, &a->par));
	if (rc == 0 && cl->pre_err[0] && pos == cl->pre_pos) {
		rc = seterr(a->err, sizeof(a->err), "%s", cl->pre_err);
		cl->pre_err[0] = '\0';
	} else if (rc == 0) {
		if (cl->hook && t->kind == TK_DATA)
			rc = cl->hook->before(cl->hook->arg, t, s, a->err,
					      sizeof(a->err));
		if (rc == 0)
			rc = t->kind == TK_LOCAL ? regmr_run(a)
						 : attempt_dialects(cl, a);
		if (cl->hook && t->kind == TK_DATA)
			cl->hook->after(cl->hook->arg);
	}
	if (param_forever(t, &a->par))
		measure_disarm(); /* a signal after the window armed it */
	measure_forever(false);
	if (rc < 0) {
		out_test_error(a->out, &(struct out_error){
			a->err, fail_status(),
			measure_aborted() &&
				strcmp(a->err, measure_interrupt_text()) == 0 });
		xsnprintf(cl->run_err, sizeof(cl->run_err), "%s", a->err);
	}
	out_flush();
	free(a);
	return rc < 0 ? fail_status() : 0;
}

/*
 * JSON: both ends' configuration for the run's header, fetched as a conf
 * test would (a 0.4.11 server gives its four strings).  Returns 0, or the
 * exit status with the error printed.
 */
static int run_conf_header(struct client *cl, const struct settings *s)
{
	struct attempt *a = xcalloc(1, sizeof(*a));
	int rc;

	a->t = test_find("conf");
	a->s = s;
	a->par = s->par;
	a->out = &cl->out;
	a->run_conf = true;
	param_prepare(a->t, &a->par);
	rc = attempt_dialects(cl, a);
	if (rc < 0)
		xsnprintf(cl->run_err, sizeof(cl->run_err), "%s", a->err);
	free(a);
	return rc < 0 ? fail_status() : 0;
}


struct loop_arg {
	struct client *cl;
	const struct test_desc *t;
	unsigned pos; /* of the test among those named */
	unsigned iter; /* --loop iteration */
};

static int loop_cb(const struct settings *s, void *arg)
{
	struct loop_arg *la = arg;

	if (la->cl->quit)
		return 0;
	/* Stop once the results cannot be written; main() says why. */
	if (out_flush() < 0)
		return 1;
	if (measure_aborted())
		return CLIENT_INTERRUPTED;
	return run_test(la->cl, la->t, s, la->pos, la->iter++);
}

/*
 * Before the tests: both ends' host checks for plan item it (a data test,
 * at pos), asked for with a conf request marked as its preflight (core/
 * pathrun.h), said once per run; once per distinct device and placement.
 * A server that refuses it or does not answer would do the same to the
 * test: the error is the item's first test's, not asked again (false).  A
 * 0.4.11 server is not asked (its refusal of the 0.5 request tells the
 * client to speak 0.4.11): the findings are this end's.
 */
static bool preflight(struct client *cl, const struct plan_item *it,
		      size_t pos)
{
	struct attempt *a = xcalloc(1, sizeof(*a));
	struct path_pre pre[2];
	bool ok = true;

	a->s = &it->s;
	a->par = it->s.par;
	a->out = &cl->out;
	a->pre_for = it->test;
	param_prepare(it->test, &a->par);
	a->par.used[PAR_STREAMS] = false;
	a->par.used[PAR_QPS] = a->par.used[PAR_THREADS] =
		a->par.used[PAR_CONNS] = false;
	a->t = test_find("conf");
	fill_request(a, false);
	pathrun_pre_of(&a->lq, &pre[0]);
	pathrun_pre_of(&a->q, &pre[1]);
	for (unsigned i = 0; i < cl->npre; i++)
		if (memcmp(cl->pre_done[i], pre, sizeof(pre)) == 0)
			goto out;
	if (cl->npre == PREFLIGHT_MAX)
		goto out;
	memcpy(cl->pre_done[cl->npre++], pre, sizeof(pre));
	if (set_cpu_affinity(a->par.val[SIDE_LOC][PAR_AFFINITY], a->err,
			     sizeof(a->err)) < 0)
		goto out; /* the test says why */
	if (!cl->legacy && attempt_run(cl, a, false) < 0) {
		debugf(it->s.out.debug, "preflight of %s: %s", it->test->name,
		       a->err);
		ok = false;
		if (legacy_answer(a) && !cl->plan->secret) {
			ok = cl->legacy = true;
		} else if (!legacy_answer(a)) {
			xsnprintf(cl->pre_err, sizeof(cl->pre_err), "%s",
				  a->err);
			cl->pre_pos = pos;
		}
	}
	/* A 0.4.11 server has no checks to give: this end's only. */
	if (cl->legacy)
		pathrun_conf(&cl->path_seen, a->out, NULL, &pre[0], NULL, 0);
out:
	free(a);
	return ok;
}

/* Does every test of the plan run on this end alone (TK_LOCAL)? */
static bool plan_local(const struct plan *p)
{
	for (size_t i = 0; i < p->ntests; i++)
		if (p->tests[i].test->kind != TK_LOCAL)
			return false;
	return p->ntests > 0;
}

/* The run between its start and end: the exit status, cl->run_err the error. */
static int client_run(struct client *cl)
{
	const struct plan *p = cl->plan;
	char ferr[ERR_MAX];
	int rc;

	rc = precheck_plan(p, cl->run_err, sizeof(cl->run_err));
	/* Before any test: a sweep must not run for nothing. */
	if (rc == 0 && p->plot_file &&
	    plot_sink(&cl->out, p->plot_file,
		      p->ntests && p->tests[0].s.out.bits, cl->run_err,
		      sizeof(cl->run_err)) < 0)
		rc = 1;
	/* Tests on this end alone (reg_mr) ask no server for its conf. */
	if (rc == 0 && (outputs_flags(&cl->out) & SINK_RUN_CONF) &&
	    !plan_local(p))
		rc = run_conf_header(cl, &p->tests[0].s);
	for (size_t i = 0; rc == 0 && i < p->ntests; i++)
		if (p->tests[i].test->kind == TK_DATA &&
		    (measure_interrupted() || !preflight(cl, &p->tests[i], i)))
			break;
	for (size_t i = 0; rc == 0 && i < p->ntests && !cl->quit; i++) {
		const struct plan_item *it = &p->tests[i];
		struct loop_arg la = { cl, it->test, (unsigned)i, 0 };
		char err[ERR_MAX];

		err[0] = '\0';
		rc = loops_run(&it->s, loop_cb, &la, err, sizeof(err));
		if (rc < 0 && err[0])
			xsnprintf(cl->run_err, sizeof(cl->run_err), "%s", err);
		if (measure_aborted() && rc == CLIENT_INTERRUPTED &&
		    !cl->run_err[0])
			xsnprintf(cl->run_err, sizeof(cl->run_err), "%s",
				  measure_interrupt_text());
		if (rc == 0 && out_flush() < 0)
			rc = 1; /* main() says why */
		if (rc < 0)
			rc = 1;
	}
	/* What ran is written even when a later test failed. */
	if (out_finish(&cl->out, ferr, sizeof(ferr)) < 0) {
		if (!cl->run_err[0])
			xsnprintf(cl->run_err, sizeof(cl->run_err), "%s", ferr);
		if (!rc)
			rc = 1;
	}
	return rc;
}

int client_main(const struct plan *p)
{
	return client_main_hook(p, NULL);
}

int client_main_hook(const struct plan *p, const struct client_hook *h)
{
	struct client cl;
	int rc;

	memset(&cl, 0, sizeof(cl));
	cl.plan = p;
	cl.hook = h;
	outputs_init(&cl.out);
	diag_sink(&cl.out);
	if (p->json)
		json_sink(&cl.out, p->json);
	else
		text_sink(&cl.out, stdout);
	measure_init();
	if ((outputs_flags(&cl.out) & SINK_ON_SIGINT) || param_plan_forever(p))
		measure_catch_interrupt();
	out_run_start(&cl.out, &(struct out_run){ p->argc, p->argv, p->host });
	cl.checks = checks_new(p);
	rc = client_run(&cl);
	if (rc == 0)
		rc = checks_status(cl.checks, cl.run_err, sizeof(cl.run_err));
	checks_free(cl.checks);
	out_end(&cl.out, &(struct out_end){
		rc, measure_aborted(), measure_interrupt_signal(),
		rc && cl.run_err[0] ? cl.run_err : NULL });
	outputs_release(&cl.out);
	return rc;
}

int client_pair_sync(const struct plan *p, const struct test_desc *t,
		     const struct settings *s, const struct client_barrier *b,
		     struct pair_res *out, char *err, size_t errlen)
{
	struct client cl = { .plan = p, .barrier = b };
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	outputs_init(&cl.out);
	capture_sink(&cl.out, out, err, errlen);
	rc = run_test(&cl, t, s, 0, 0);
	outputs_release(&cl.out);
	if (rc && !err[0])
		xsnprintf(err, errlen, "%s failed (see the %s's stderr)",
			  t->name, b ? "client" : "rank");
	return rc;
}

int client_pair(const struct plan *p, const struct test_desc *t,
		const struct settings *s, const char *host, uint16_t port,
		const struct client_barrier *b, struct pair_res *out,
		char *err, size_t errlen)
{
	struct plan q = *p;

	q.host = host;
	q.listen_port = port;
	return client_pair_sync(&q, t, s, b, out, err, errlen);
}
