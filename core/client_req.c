// SPDX-License-Identifier: GPL-2.0-only
/*
 * The client's requests: one side's parameters as the request the server
 * gets (0.4.11's fixed fields and the 0.5 block), and the checks of the
 * whole plan against the local device before any test runs.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "client_int.h"
#include "lib/olsched.h"
#include "interval.h"
#include "opts.h"
#include "session.h"
#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/err.h"

static uint32_t u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Whole seconds for the legacy fields, rounded up. */
static uint32_t secs_up(uint64_t ns)
{
	return u32((ns + NS_PER_SEC - 1) / NS_PER_SEC);
}

/*
 * The parameters that are not a plain copy of a value into the request
 * (param_table[]'s PW_OWN rows and fill_own rows), and the block's own
 * items.  core/session.c session_own() is the server's half.
 */
static void fill_own(struct attempt *a, int side, bool legacy,
		     struct req *q)
{
	const uint64_t *v = a->par.val[side];

	q->time = secs_up(v[PAR_TIME]);
	q->timeout = secs_up(v[PAR_TIMEOUT]);
	/* As 0.4.11: an RDMA test that cannot use the CM asks for none. */
	q->use_cm = a->t->tp && (a->t->tp->flags & TF_RDMA) &&
			    !(a->t->uses & PAR_BIT(PAR_USE_CM)) ?
			    0 :
			    u32(v[PAR_USE_CM]);
	xsnprintf(q->id, sizeof(q->id), "%s",
		  a->par.str[side][par_str_index(PAR_ID)]);
	xsnprintf(q->static_rate, sizeof(q->static_rate), "%s",
		  a->par.str[side][par_str_index(PAR_STATIC_RATE)]);
	q->ext = !legacy;
	q->ext_ver = legacy ? 0 : 2;
	q->time_ns = legacy ? (uint64_t)q->time * NS_PER_SEC : v[PAR_TIME];
	q->timeout_ns = v[PAR_TIMEOUT];
	q->caps = session_caps();
	q->preflight = a->pre_for ? a->pre_for->index + 1u : 0;
	q->mtu_explicit = a->par.set[side][PAR_MTU_SIZE];
	q->gid_index = a->par.set[side][PAR_GID_INDEX]
			       ? (int32_t)v[PAR_GID_INDEX]
			       : -1;
	q->interval_ns = legacy || !ival_applies(a->t, false) ? 0
							       : a->s->interval;
	/* The client's own request always carries the rate (it paces what
	 * it sends); encoding sends it to 0.5 servers only. */
	if (a->par.used[PAR_RATE] || a->par.used[PAR_MSG_RATE]) {
		q->rate = v[PAR_RATE];
		q->msg_rate = v[PAR_MSG_RATE];
		/* On a latency test: open loop (0.5 servers only). */
		if (!legacy && a->t->measure == MEAS_LATENCY)
			q->arrivals = a->s->arrivals ? a->s->arrivals
						     : OL_CONSTANT;
	}
	if (!legacy && a->par.used[PAR_QPS] && v[PAR_QPS] > 1)
		q->qps = u32(v[PAR_QPS]);
	if (!legacy && a->par.used[PAR_CONNS] && v[PAR_CONNS] > 1)
		q->conns = u32(v[PAR_CONNS]);
	/* resolved by param_prepare(): above one only where it applies */
	if (!legacy && a->par.used[PAR_THREADS] && v[PAR_THREADS] > 1)
		q->threads = u32(v[PAR_THREADS]);
	if (!legacy && a->par.used[PAR_STREAMS]) {
		q->streams = u32(v[PAR_STREAMS]);
		q->cpus = a->par.cpus[side];
	}
}

int client_caps_check(struct attempt *a, bool legacy, const char *host)
{
	const uint64_t *v = a->par.val[SIDE_LOC];
	uint32_t caps = legacy ? 0 : a->h.caps;
	const char *ver = legacy ? "0.4" : a->h.version;

	if (a->par.used[PAR_CONNS] && v[PAR_CONNS] > 1 && !(caps & CAP_CONNS))
		return seterr(a->err, sizeof(a->err),
			      "%s: --conns %" PRIu64 " needs a server that runs several connections in one test (qperf %s); the server at %s (qperf %s) lacks it",
			      a->t->name, v[PAR_CONNS], QPERF_VERSION, host,
			      ver);
	if (a->par.used[PAR_THREADS] && v[PAR_THREADS] > 1 &&
	    param_spread_n(a->t, &a->par) > 1 && !(caps & CAP_THREADS))
		return seterr(a->err, sizeof(a->err),
			      "%s: %" PRIu64 " threads (%s) need a server that spreads QPs over threads (qperf %s); the server at %s (qperf %s) lacks it: give --threads 1",
			      a->t->name, v[PAR_THREADS],
			      a->par.set[SIDE_LOC][PAR_THREADS] ?
				      "--threads" :
				      "the default of --threads, one per CPU",
			      QPERF_VERSION, host, ver);
	return 0;
}

/*
 * The request for one side's values (SIDE_REM: what the server gets): a
 * loop over param_table[], then fill_own().
 */
void fill_side(struct attempt *a, int side, bool legacy,
		      struct req *q)
{
	const uint64_t *v = a->par.val[side];

	memset(q, 0, sizeof(*q));
	q->ver_maj = legacy ? 0 : QPERF_VER_MAJ;
	q->ver_min = legacy ? 4 : QPERF_VER_MIN;
	q->ver_inc = legacy ? 11 : QPERF_VER_INC;
	q->req_index = a->t->index;
	for (size_t i = 0; i < param_count; i++) {
		const struct par_row *r = &param_table[i];
		uint32_t x = u32(v[r->par]);
		int k = r->par - PAR_VK_FIRST;

		if (r->wire == PW_LEGACY && !r->fill_own) {
			memcpy((char *)q + r->req_off, &x, sizeof(x));
		} else if (r->wire == PW_VK && a->par.set[side][r->par] &&
			   a->par.used[r->par]) {
			/* unset or unused: only a warning, as in 0.4.11 */
			q->vk[k] = x;
			q->vk_set |= 1u << k;
		}
	}
	fill_own(a, side, legacy, q);
}

void fill_request(struct attempt *a, bool legacy)
{
	fill_side(a, SIDE_REM, legacy, &a->q);
	fill_side(a, SIDE_LOC, legacy, &a->lq);
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

/*
 * 0, or the exit status (2 for a bad value, 1 if a test cannot run here)
 * with the error in msg.
 */
int precheck_plan(const struct plan *p, char *msg, size_t msglen)
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
			xsnprintf(msg, msglen, "%s: %s", t->name,
				  pc->err[0] ? pc->err : err);
	}
	free(pc);
	return rc == 0 ? 0 : rc == TP_NOT_HERE ? 1 : 2;
}
