// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rank 0's figures (coord_fig.h).  Figures are kept as "goodness"
 * (coord_goodness: bigger is better) in one float matrix per test.
 */
#include <math.h>
#include <stdio.h>

#include "transports/transport.h"
#include "coord_fig.h"
#include "output/report.h"
#include "lib/err.h"

bool coord_one_way(const struct test_desc *t)
{
	return (t->measure == MEAS_BANDWIDTH ||
		t->measure == MEAS_BANDWIDTH_SR) &&
	       t->loop != LOOP_BI_BW;
}

double coord_goodness(const struct test_desc *t, const struct pair_res *r)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		return r->latency > 0 ? 1 / r->latency : 0;
	case MEAS_MSG_RATE:
		return r->msg_rate;
	default:
		return r->recv_bw;
	}
}

double coord_display(const struct test_desc *t, double g, const char **unit)
{
	switch (t->measure) {
	case MEAS_LATENCY:
		*unit = "us";
		return g > 0 ? 1e6 / g : 0;
	case MEAS_MSG_RATE:
		*unit = "msg/s";
		return g;
	default:
		*unit = "MB/s";
		return g / 1e6;
	}
}

const char *coord_show(const struct test_desc *t, double g, char *buf,
		       size_t len)
{
	char num[64];
	const char *unit;
	double v = coord_display(t, g, &unit);

	fmt_number(num, sizeof(num), v, 3, true);
	xsnprintf(buf, len, "%s %s", num, unit);
	return buf;
}

/* Cell (client, server) of matrix f of item; NAN if none. */
static double cell(const struct coord *c, size_t item, const float *f,
		   uint32_t client, uint32_t server)
{
	float g;

	if (!f)
		return NAN;
	g = f[(size_t)client * c->n + server];
	/* Measured once per pair: it stands for both ways. */
	if (isnan(g) && !coord_one_way(c->p->tests[item].test))
		g = f[(size_t)server * c->n + client];
	return g;
}

double coord_fig(const struct coord *c, size_t item, uint32_t client,
		 uint32_t server)
{
	return cell(c, item, c->t[item].fig, client, server);
}

double coord_low(const struct coord *c, size_t item, uint32_t client,
		 uint32_t server)
{
	return cell(c, item, c->t[item].low, client, server);
}

void coord_why_missing(const struct coord *c, size_t item, uint32_t client,
		       uint32_t server, char *buf, size_t len)
{
	const struct ctest *ct = &c->t[item];
	bool once = !coord_one_way(c->p->tests[item].test);

	for (uint32_t k = 0; k < ct->nkept; k++) {
		const struct cfail *f = &ct->fail[k];

		if ((f->client == client && f->server == server) ||
		    (once && f->client == server && f->server == client)) {
			xsnprintf(buf, len, "failed: %s", f->err);
			return;
		}
	}
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t r = k ? server : client;

		if (!c->r[r].alive) {
			xsnprintf(buf, len, "rank %u is gone: %s", r,
				  c->r[r].why);
			return;
		}
	}
	if (ct->nkept < ct->nfail) {
		xsnprintf(buf, len,
			  "not in the schedule, or failed (the first %d errors are kept)",
			  COORD_FAILS_KEPT);
		return;
	}
	xsnprintf(buf, len, "not in the schedule");
}

void coord_gone_line(const struct coord *c, uint32_t k, char *buf,
		     size_t len)
{
	xsnprintf(buf, len, "gone: rank %u (%s): %s", k,
		  c->r[k].host[0] ? c->r[k].host : "?", c->r[k].why);
}
