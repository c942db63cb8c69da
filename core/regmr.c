// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test that runs on the client alone (TK_LOCAL: reg_mr).  No server is
 * contacted: the parameters are this end's (the loc_ values), the
 * transport's local() operation measures, and the result goes to the
 * sinks like any test's.  A server is never asked to run one (a request
 * naming it is refused: core/server.c).
 */
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "client_int.h"
#include "regmr.h"
#include "measure.h"
#include "param.h"
#include "session.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/numa.h"

void regmr_apply(const struct settings *s, struct tparams *p)
{
	p->hugepages = s->mr.hugepages;
	p->prefault = s->mr.prefault;
	p->odp = s->mr.odp;
}

int regmr_run(struct attempt *a)
{
	const struct transport *tp = a->t->tp;
	struct regmr_res r;
	struct results res;
	struct tsess s;
	char err[ERR_MAX - 64];
	int rc;

	memset(&s, 0, sizeof(s));
	fill_request(a, false);
	session_params(&a->lq, &s.p);
	regmr_apply(a->s, &s.p);
	s.tp = tp;
	s.t = a->t;
	s.priv = xcalloc(1, tp->priv_size);
	err[0] = '\0';
	rc = set_cpu_affinity(a->par.val[SIDE_LOC][PAR_AFFINITY], err,
			      sizeof(err));
	/* -t 0: the threads register until a signal ends the window */
	if (rc == 0 && param_forever(a->t, &a->par)) {
		struct node_stat st;

		rc = measure_start(&st, 0, err, sizeof(err));
		s.stop = &timer_fired;
	}
	if (rc == 0)
		rc = tp->local(&s, &r, err, sizeof(err));
	free(s.priv);
	if (rc < 0)
		return seterr(a->err, sizeof(a->err), "%s: %s", a->t->name,
			      err);
	memset(&res, 0, sizeof(res));
	res.regmr = &r;
	out_result(a->out, &(struct out_result){ .res = &res });
	return 0;
}
