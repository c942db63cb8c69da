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

#include "../transports/transport.h"
#include "ctl.h"
#include "engine.h"
#include "measure.h"
#include "session.h"
#include "report.h"
#include "util.h"

#define ERR_MAX 512

struct client {
	const struct plan *plan;
	bool legacy; /* the server speaks only 0.4.11's dialect */
	bool quit; /* a quit test ran: stop */
};

/* One test attempt's state. */
struct attempt {
	const struct test_desc *t;
	const struct settings *s;
	struct par_set par; /* after param_prepare() */
	struct ctl c;
	struct req q; /* what the server gets */
	struct req lq; /* the same for this side (loc_ values) */
	struct hello h; /* a 0.5 server's answer */
	char err[ERR_MAX];
};

static uint32_t u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Whole seconds for the legacy fields, rounded up. */
static uint32_t secs_up(uint64_t ns)
{
	return u32((ns + NS_PER_SEC - 1) / NS_PER_SEC);
}

/* The request for one side's values (SIDE_REM: what the server gets). */
static void fill_side(struct attempt *a, int side, bool legacy,
		      struct req *q)
{
	const uint64_t *v = a->par.val[side];

	memset(q, 0, sizeof(*q));
	q->ver_maj = legacy ? 0 : QPERF_VER_MAJ;
	q->ver_min = legacy ? 4 : QPERF_VER_MIN;
	q->ver_inc = legacy ? 11 : QPERF_VER_INC;
	q->req_index = a->t->index;
	q->access_recv = u32(v[PAR_ACCESS_RECV]);
	q->affinity = u32(v[PAR_AFFINITY]);
	q->alt_port = u32(v[PAR_ALT_PORT]);
	q->flip = u32(v[PAR_FLIP]);
	q->msg_size = u32(v[PAR_MSG_SIZE]);
	q->mtu_size = u32(v[PAR_MTU_SIZE]);
	q->no_msgs = u32(v[PAR_NO_MSGS]);
	q->poll_mode = u32(v[PAR_POLL_MODE]);
	q->port = u32(v[PAR_PORT]);
	q->rd_atomic = u32(v[PAR_RD_ATOMIC]);
	q->sl = u32(v[PAR_SL]);
	q->sock_buf_size = u32(v[PAR_SOCK_BUF_SIZE]);
	q->src_path_bits = u32(v[PAR_SRC_PATH_BITS]);
	q->time = secs_up(v[PAR_TIME]);
	q->timeout = secs_up(v[PAR_TIMEOUT]);
	/* As 0.4.11: an RDMA test that cannot use the CM asks for none. */
	q->use_cm = a->t->tp && (a->t->tp->flags & TF_RDMA) &&
			    !(a->t->uses & PAR_BIT(PAR_USE_CM)) ?
			    0 :
			    u32(v[PAR_USE_CM]);
	xsnprintf(q->id, sizeof(q->id), "%s", a->par.str[side][0]);
	xsnprintf(q->static_rate, sizeof(q->static_rate), "%s",
		  a->par.str[side][1]);
	q->ext = !legacy;
	q->ext_ver = legacy ? 0 : 2;
	q->time_ns = legacy ? (uint64_t)q->time * NS_PER_SEC : v[PAR_TIME];
	q->timeout_ns = v[PAR_TIMEOUT];
	q->caps = session_caps();
	q->mtu_explicit = a->par.set[side][PAR_MTU_SIZE];
	q->gid_index = a->par.set[side][PAR_GID_INDEX]
			       ? (int32_t)v[PAR_GID_INDEX]
			       : -1;
}

static void fill_request(struct attempt *a, bool legacy)
{
	fill_side(a, SIDE_REM, legacy, &a->q);
	fill_side(a, SIDE_LOC, legacy, &a->lq);
}

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
				a->c.fd = fd;
				return 0;
			}
			last = errno;
			close(fd);
		}
		if (now_ns() + 100000000ULL >= deadline)
			break;
		sleep_ns(100000000ULL); /* the server may still be starting */
	}
	freeaddrinfo(res);
	return seterr(a->err, sizeof(a->err), "%.200s: failed to connect: %s",
		      p->host, strerror(last));
}

static int send_request(struct attempt *a)
{
	uint8_t b[REQ_SIZE], ext[EXT_BLOCK_MAX];
	size_t n;

	debugf(a->s->out.debug, "sending request: %s", a->t->name);
	req_encode(&a->q, b);
	if (ctl_send(&a->c, b, sizeof(b), "request data", a->err,
		     sizeof(a->err)) < 0)
		return -1;
	if (!a->q.ext)
		return 0;
	n = ext_req_encode(&a->q, ext, sizeof(ext));
	if (ctl_send(&a->c, ext, n, "request extension", a->err,
		     sizeof(a->err)) < 0)
		return -1;
	if (ctl_recv_block(&a->c, ext, sizeof(ext), &n, "server extension",
			   a->err, sizeof(a->err)) < 0)
		return -1;
	if (hello_decode(ext, n, &a->h) < 0)
		return seterr(a->err, sizeof(a->err),
			      "bad server extension");
	return 0;
}

static int run_conf(struct attempt *a)
{
	uint8_t b[CONF_SIZE];
	struct conf_info loc, rem;

	if (ctl_recv(&a->c, b, sizeof(b), "configuration", a->err,
		     sizeof(a->err)) < 0)
		return -1;
	conf_decode(b, &rem);
	conf_local(&loc);
	report_conf(stdout, &loc, &rem);
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
	if (a->t->loop == LOOP_STREAM_BW && res->r.r.msgs == 0)
		return seterr(a->err, sizeof(a->err),
			      "no message reached the server (%llu sent, %llu send errors%s%s)",
			      (unsigned long long)st->s.msgs,
			      (unsigned long long)st->s.errs,
			      st->s.errs ? ": " : "",
			      st->s.errs ? strerror(sd->last_errno) : "");
	return 0;
}

static int run_data(struct attempt *a)
{
	struct tside sd;
	struct results res;

	memset(&sd, 0, sizeof(sd));
	sd.t = a->t;
	sd.server = false;
	sd.c = &a->c;
	sd.ext = a->q.ext;
	sd.ext_ver = a->q.ext_ver;
	sd.peer_caps = a->h.caps;
	session_params(&a->lq, &sd.p);
	if (a->t->tp && (a->t->tp->flags & TF_XRC) &&
	    !(sd.peer_caps & CAP_XRC))
		return seterr(a->err, sizeof(a->err),
			      "%s: the server lacks XRC tests (it runs qperf %s; XRC needs %s or later on both ends)",
			      a->t->name, sd.ext ? a->h.version : "0.4",
			      QPERF_VERSION);
	debugf(a->s->out.debug, "waiting for port");
	if (session_run(&sd, a->err, sizeof(a->err)) < 0)
		return -1;
	calc_results(&sd.st, &sd.peer, &res);
	if (check_measured(a, &sd, &res) < 0)
		return -1;
	if (sd.st.lost)
		fprintf(stderr,
			"qperf: warning: %s: %llu message%s lost; each time the exchange was restarted\n",
			a->t->name, (unsigned long long)sd.st.lost,
			sd.st.lost == 1 ? "" : "s");
	{
		struct report_note notes[TNOTE_MAX];

		for (int i = 0; i < sd.nnotes; i++) {
			notes[i].name = sd.notes[i].name;
			notes[i].value = sd.notes[i].value;
		}
		report_test_notes(stdout, a->t, &res, &a->par, &a->s->out,
				  notes, sd.nnotes);
	}
	return 0;
}

/* Adjustments a 0.4.11 server needs; may fail with a clear error. */
static int legacy_adjust(struct attempt *a)
{
	uint64_t t = a->par.val[SIDE_LOC][PAR_TIME];

	if (a->par.val[SIDE_REM][PAR_NO_MSGS] && a->t->tp &&
	    !(a->t->flags & TDF_LEGACY_N) &&
	    !(a->t->tp->flags & TF_EOF_ENDS))
		return seterr(a->err, sizeof(a->err),
			      "%s with -n needs a server running qperf %s or later; this server runs 0.4",
			      a->t->name, QPERF_VERSION);
	if (a->t->index > TEST_LEGACY_LAST)
		return seterr(a->err, sizeof(a->err),
			      "%s needs a server running qperf %s or later; this server runs 0.4, which lacks it",
			      a->t->name, QPERF_VERSION);
	if (a->par.set[SIDE_REM][PAR_GID_INDEX] ||
	    a->par.set[SIDE_LOC][PAR_GID_INDEX])
		return seterr(a->err, sizeof(a->err),
			      "%s: -gi needs a server running qperf %s or later; this server runs 0.4, whose protocol cannot carry a GID",
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
	if (legacy && legacy_adjust(a) < 0)
		return -1;
	fill_request(a, legacy);
	if (ctl_connect(a, cl->plan) < 0)
		return -1;
	rc = send_request(a);
	if (rc == 0) {
		switch (a->t->kind) {
		case TK_CONF:
			rc = run_conf(a);
			break;
		case TK_QUIT:
			rc = ctl_sync(&a->c, SYNC_BEFORE, a->err,
				      sizeof(a->err));
			if (rc == 0)
				cl->quit = true;
			break;
		default:
			rc = run_data(a);
			break;
		}
	}
	if (rc < 0 && !a->c.peer_failed)
		ctl_send_error(&a->c, a->err);
	close(a->c.fd);
	a->c.fd = -1;
	return rc;
}

static int run_test(struct client *cl, const struct test_desc *t,
		    const struct settings *s)
{
	struct attempt *a = xcalloc(1, sizeof(*a));
	char warn[2048];
	int rc;

	a->t = t;
	a->s = s;
	a->par = s->par;
	param_prepare(t, &a->par);
	printf("%s:\n", t->name);
	out_flush();
	if (t->kind != TK_CONF && param_unused(t, &a->par, warn, sizeof(warn))) {
		char *save = NULL;

		for (char *l = strtok_r(warn, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "qperf: warning: %s\n", l);
	}
	if (t->tp && t->tp->max_msg &&
	    a->par.val[SIDE_LOC][PAR_MSG_SIZE] > t->tp->max_msg) {
		fprintf(stderr,
			"qperf: %s: message size %llu is larger than %s can carry (%u)\n",
			t->name,
			(unsigned long long)a->par.val[SIDE_LOC][PAR_MSG_SIZE],
			t->tp->label, t->tp->max_msg);
		free(a);
		return 1;
	}
	if (t->missing) {
		fprintf(stderr, "qperf: %s: %s\n", t->name, t->missing);
		free(a);
		return 1;
	}
	rc = set_cpu_affinity(a->par.val[SIDE_LOC][PAR_AFFINITY], a->err,
			      sizeof(a->err));
	if (rc == 0) {
		rc = attempt_run(cl, a, cl->legacy);
		if (rc < 0 && !cl->legacy && a->c.peer_failed &&
		    (strncmp(a->err, LEGACY_UPGRADE_ERR,
			     strlen(LEGACY_UPGRADE_ERR)) == 0 ||
		     strcmp(a->err, EARLY_EXT_ERR) == 0)) {
			debugf(a->s->out.debug, "server speaks qperf 0.4.11; retrying");
			cl->legacy = true;
			rc = attempt_run(cl, a, true);
		}
	}
	if (rc < 0)
		fprintf(stderr, "qperf: %s\n", a->err);
	out_flush();
	free(a);
	return rc < 0 ? 1 : 0;
}

/*
 * Before any test runs: each test's local values against the local
 * device (RDMA), for every --loop iteration.  Iterations that differ only
 * in message size, time or count are checked once, with their largest
 * message.
 */
struct precheck {
	const struct test_desc *t;
	struct tparams group; /* the values being gathered */
	bool have;
	char err[ERR_MAX];
};

static bool same_group(const struct tparams *a, const struct tparams *b)
{
	struct tparams x = *a, y = *b;

	x.msg_size = y.msg_size = 0;
	x.time = y.time = 0;
	x.no_msgs = y.no_msgs = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

static int precheck_flush(struct precheck *pc)
{
	if (!pc->have)
		return 0;
	pc->have = false;
	return session_check(pc->t, &pc->group, pc->err, sizeof(pc->err));
}

static int precheck_cb(const struct settings *s, void *arg)
{
	struct precheck *pc = arg;
	struct attempt *a = xcalloc(1, sizeof(*a));
	struct tparams p;
	int rc = 0;

	a->t = pc->t;
	a->s = s;
	a->par = s->par;
	param_prepare(pc->t, &a->par);
	fill_side(a, SIDE_LOC, false, &a->lq);
	memset(&p, 0, sizeof(p));
	session_params(&a->lq, &p);
	free(a);
	if (pc->have && same_group(&pc->group, &p)) {
		if (p.msg_size > pc->group.msg_size)
			pc->group.msg_size = p.msg_size;
		return 0;
	}
	rc = precheck_flush(pc);
	pc->group = p;
	pc->have = true;
	return rc;
}

/* 0, or the exit status: 2 for a bad value, 1 if a test cannot run here. */
static int precheck_plan(const struct plan *p)
{
	struct precheck *pc = xcalloc(1, sizeof(*pc));
	char err[ERR_MAX];
	int rc = 0;

	for (size_t i = 0; i < p->ntests && rc == 0; i++) {
		const struct test_desc *t = p->tests[i].test;

		if (!t->tp || !t->tp->check)
			continue;
		pc->t = t;
		pc->have = false;
		err[0] = '\0';
		rc = loops_run(&p->tests[i].s, precheck_cb, pc, err,
			       sizeof(err));
		if (rc == 0)
			rc = precheck_flush(pc);
		if (rc)
			fprintf(stderr, "qperf: %s: %s\n", t->name,
				pc->err[0] ? pc->err : err);
	}
	free(pc);
	return rc == 0 ? 0 : rc == TP_NOT_HERE ? 1 : 2;
}

struct loop_arg {
	struct client *cl;
	const struct test_desc *t;
};

static int loop_cb(const struct settings *s, void *arg)
{
	struct loop_arg *la = arg;

	if (la->cl->quit)
		return 0;
	/* Stop once the results cannot be written; main() says why. */
	if (out_flush() < 0)
		return 1;
	return run_test(la->cl, la->t, s);
}

int client_main(const struct plan *p)
{
	struct client cl = { p, false, false };
	char err[ERR_MAX];
	int rc0;

	measure_init();
	rc0 = precheck_plan(p);
	if (rc0)
		return rc0;
	for (size_t i = 0; i < p->ntests && !cl.quit; i++) {
		const struct plan_item *it = &p->tests[i];
		struct loop_arg la = { &cl, it->test };
		int rc;

		err[0] = '\0';
		rc = loops_run(&it->s, loop_cb, &la, err, sizeof(err));
		if (rc < 0 && err[0])
			fprintf(stderr, "qperf: %s\n", err);
		if (rc || out_flush() < 0)
			return 1;
	}
	return 0;
}
