// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output interface (sink.h): the fan-out of events to a run's sinks,
 * and the two sinks that write to the terminal: 0.4.11's text report on
 * stdout and the warnings and errors on stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transports/transport.h"
#include "conf_text.h"
#include "out.h"
#include "sink.h"
#include "lib/alloc.h"
#include "lib/err.h"

void outputs_init(struct outputs *o)
{
	memset(o, 0, sizeof(*o));
}

void outputs_add(struct outputs *o, const struct sink_ops *ops, void *self)
{
	if (o->n == OUT_SINKS_MAX)
		abort();
	o->s[o->n].ops = ops;
	o->s[o->n].self = self;
	o->n++;
}

unsigned outputs_flags(const struct outputs *o)
{
	unsigned f = 0;

	for (int i = 0; i < o->n; i++)
		f |= o->s[i].ops->flags;
	return f;
}

void outputs_release(struct outputs *o)
{
	for (int i = 0; i < o->n; i++)
		if (o->s[i].ops->release)
			o->s[i].ops->release(o->s[i].self);
	o->n = 0;
}

/* Call operation op of every sink that has it, with the rest as args. */
#define FAN(o, op, ...)                                                \
	do {                                                           \
		for (int i_ = 0; i_ < (o)->n; i_++)                    \
			if ((o)->s[i_].ops->op)                        \
				(o)->s[i_].ops->op((o)->s[i_].self,    \
						   __VA_ARGS__);       \
	} while (0)

void out_run_start(struct outputs *o, const struct out_run *r)
{
	FAN(o, run_start, r);
}

void out_conf(struct outputs *o, const struct out_conf *c)
{
	FAN(o, conf, c);
}

void out_test_start(struct outputs *o, const struct out_test *t)
{
	FAN(o, test_start, t);
}

int out_interval(struct outputs *o, const struct ival_rec *r, char *err,
		 size_t errlen)
{
	char more[256]; /* a later sink's error: the first one is kept */
	int rc = 0;

	for (int i = 0; i < o->n; i++)
		if (o->s[i].ops->interval &&
		    o->s[i].ops->interval(o->s[i].self, r, rc ? more : err,
					  rc ? sizeof(more) : errlen) < 0)
			rc = -1;
	return rc;
}

void out_result(struct outputs *o, const struct out_result *r)
{
	FAN(o, result, r);
}

void out_clients(struct outputs *o, const struct out_clients *c)
{
	FAN(o, clients, c);
}

void out_test_error(struct outputs *o, const struct out_error *e)
{
	FAN(o, error, e);
}

void out_warning(struct outputs *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	FAN(o, warning, msg);
}

int out_finish(struct outputs *o, char *err, size_t errlen)
{
	char more[256]; /* a later sink's error: the first one is kept */
	int rc = 0;

	for (int i = 0; i < o->n; i++)
		if (o->s[i].ops->finish &&
		    o->s[i].ops->finish(o->s[i].self, rc ? more : err,
					rc ? sizeof(more) : errlen) < 0)
			rc = -1;
	return rc;
}

void out_end(struct outputs *o, const struct out_end *e)
{
	FAN(o, end, e);
}

/* ---------------------------------------------------------------------- */
/* The text report                                                         */
/* ---------------------------------------------------------------------- */

struct text {
	FILE *f;
	struct out_test cur; /* the test being reported */
};

static void text_test_start(void *self, const struct out_test *t)
{
	struct text *x = self;

	x->cur = *t;
	fprintf(x->f, "%s:\n", t->t->name);
}

/* The -vx lines of both ends after conf's eight. */
static void text_conf_more(FILE *f, const struct out_conf *c)
{
	struct conf_line *cl = xcalloc(2 * CONF_LINES_MAX, sizeof(*cl));
	struct report_note *nt = xcalloc(2 * CONF_LINES_MAX, sizeof(*nt));
	int n[2];

	n[0] = conf_ext_lines(c->lx, "loc_", cl, CONF_LINES_MAX);
	n[1] = conf_ext_lines(c->rx, "rem_", cl + CONF_LINES_MAX,
			      CONF_LINES_MAX);
	for (int i = 0; i < 2 * CONF_LINES_MAX; i++) {
		nt[i].name = cl[i].name;
		nt[i].value = cl[i].value;
	}
	report_conf_more(f, c->loc, c->rem, nt, n[0], nt + CONF_LINES_MAX,
			 n[1]);
	free(nt);
	free(cl);
}

static void text_conf(void *self, const struct out_conf *c)
{
	struct text *x = self;

	if (c->run)
		return;
	if (x->cur.o->v_extra)
		text_conf_more(x->f, c);
	else
		report_conf(x->f, c->loc, c->rem);
}

static int text_interval(void *self, const struct ival_rec *r, char *err,
			 size_t errlen)
{
	struct text *x = self;
	char buf[512];

	(void)err;
	(void)errlen;
	ival_format(buf, sizeof(buf), x->cur.t, x->cur.o, r);
	fputs(buf, x->f);
	out_flush(); /* live; a write error is reported at the end */
	return 0;
}

static void text_result(void *self, const struct out_result *r)
{
	struct text *x = self;

	report_test_notes(x->f, x->cur.t, r->res, x->cur.par, x->cur.o,
			  r->notes, r->nnotes);
	if (r->streams)
		report_streams(x->f, x->cur.t, r->streams, r->nstreams,
			       x->cur.o);
	if (r->load)
		report_load(x->f, x->cur.o, r->res, r->load);
	if (r->verdict)
		verdict_text(x->f, r->verdict);
}

static void text_clients(void *self, const struct out_clients *c)
{
	struct text *x = self;

	report_clients(x->f, x->cur.t, x->cur.o, c);
}

static const struct sink_ops text_ops = {
	.test_start = text_test_start,
	.conf = text_conf,
	.interval = text_interval,
	.result = text_result,
	.clients = text_clients,
	.release = free,
};

void text_sink(struct outputs *o, FILE *f)
{
	struct text *x = xcalloc(1, sizeof(*x));

	x->f = f;
	outputs_add(o, &text_ops, x);
}

/* ---------------------------------------------------------------------- */
/* Warnings and errors on stderr                                           */
/* ---------------------------------------------------------------------- */

struct diag {
	bool shown; /* a test's error was printed */
};

static void diag_warning(void *self, const char *message)
{
	(void)self;
	fprintf(stderr, "qperf: warning: %s\n", message);
}

static void diag_error(void *self, const struct out_error *e)
{
	struct diag *d = self;

	fprintf(stderr, "qperf: %s\n", e->message);
	d->shown = true;
}

/* The run's error, unless a test's error (the same) was printed. */
static void diag_end(void *self, const struct out_end *e)
{
	struct diag *d = self;

	if (e->message && !d->shown)
		fprintf(stderr, "qperf: %s\n", e->message);
}

static const struct sink_ops diag_ops = {
	.warning = diag_warning,
	.error = diag_error,
	.end = diag_end,
	.release = free,
};

void diag_sink(struct outputs *o)
{
	outputs_add(o, &diag_ops, xcalloc(1, sizeof(struct diag)));
}
