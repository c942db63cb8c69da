// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's verdicts on rank 0 (coord_verdict.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coord_verdict.h"
#include "cluster_plan.h"
#include "core/checks.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/verdict.h"
#include "transports/transport.h"

void cv_name_ranks(const struct coord *c, uint32_t client, uint32_t server,
		   const char *in, char *out, size_t len)
{
	static const char *const end[2] = { "of the client", "of the server" };
	size_t at = 0;

	out[0] = '\0';
	while (*in && at + 1 < len) {
		int e = !strncmp(in, end[0], strlen(end[0]))   ? 0
			: !strncmp(in, end[1], strlen(end[1])) ? 1
							      : -1;
		uint32_t k = e == 0 ? client : server;

		if (e < 0) {
			out[at++] = *in++;
			out[at] = '\0';
			continue;
		}
		at += xsnprintf(out + at, len - at, "of rank %u (%s)", k,
				c->r[k].host[0] ? c->r[k].host : "?");
		in += strlen(end[e]);
	}
}

void cv_record(struct coord *c, uint32_t item, uint32_t client,
	       uint32_t server, const struct pair_res *r)
{
	struct ctest *ct = &c->t[item];
	const struct test_desc *t = c->p->tests[item].test;
	size_t k = (size_t)client * c->n + server;
	struct verdict v;
	char line[sizeof(ct->vfail[0].why)];
	struct cvfail *f;

	if (ct->eff && r->ceil.valid && r->ceil.bps > 0)
		ct->eff[k] = (float)(r->recv_bw / r->ceil.bps);
	if (!checks_pair(c->p, t, r, &v))
		return;
	ct->nchecked++;
	if (v.pass)
		return;
	ct->nvfail++;
	if (ct->nvkept >= COORD_VFAILS_KEPT)
		return;
	if (!ct->vfail)
		ct->vfail = xcalloc(COORD_VFAILS_KEPT, sizeof(*ct->vfail));
	f = &ct->vfail[ct->nvkept++];
	f->client = client;
	f->server = server;
	verdict_line(&v, line, sizeof(line));
	cv_name_ranks(c, client, server, line, f->why, sizeof(f->why));
}

void cv_print(const struct coord *c, size_t item)
{
	const struct ctest *ct = &c->t[item];
	const char *name = cluster_item_name(&c->p->tests[item]);

	if (!c->p->checks.nexpect)
		return;
	if (!ct->nvfail) {
		printf("%s: verdict: pass (%u pair result%s checked)\n", name,
		       ct->nchecked, ct->nchecked == 1 ? "" : "s");
		return;
	}
	printf("%s: verdict: %u of %u pair results failed their checks%s\n",
	       name, ct->nvfail, ct->nchecked,
	       ct->nvfail > ct->nvkept ? "; the first ones:" : ":");
	for (uint32_t i = 0; i < ct->nvkept; i++) {
		const struct cvfail *f = &ct->vfail[i];

		printf("  rank %u (%s) -> rank %u (%s): %s\n", f->client,
		       c->r[f->client].host[0] ? c->r[f->client].host : "?",
		       f->server,
		       c->r[f->server].host[0] ? c->r[f->server].host : "?",
		       f->why);
	}
}

uint32_t cv_failed(const struct coord *c)
{
	uint32_t n = 0;

	for (size_t i = 0; c->t && i < c->p->ntests; i++)
		n += c->t[i].nvfail;
	return n;
}
