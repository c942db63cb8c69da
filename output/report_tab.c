// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report table (report_tab.h): numbers rendered as 0.4.11 renders them
 * (spec §5.4, §5.5), entries formatted by visibility class (spec §5.3),
 * and the table printed with its columns sized to the widest entry (spec
 * §5.2).  Shared by the report's sections (report.c, report_x.c,
 * report_streams.c); pure functions of their arguments and the table.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "transports/transport.h"
#include "report.h"
#include "report_tab.h"

/* ---------------------------------------------------------------------- */
/* Number rendering (spec §5.4)                                            */
/* ---------------------------------------------------------------------- */

/* -e beyond this adds nothing a double holds and could overflow buffers. */
#define REPORT_MAX_PRECISION 100

/* A bounded string writer: never overruns, always NUL-terminated. */
struct report_sbuf {
	char *buf;
	size_t len, n;
};

static void report_putc(struct report_sbuf *sb, char c)
{
	if (sb->n + 1 < sb->len) {
		sb->buf[sb->n++] = c;
		sb->buf[sb->n] = '\0';
	}
}

static void report_puts(struct report_sbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		report_putc(sb, s[i]);
}

/*
 * Copy in to buf, inserting a comma every three digits in the run of digits
 * that ends at the '.' (or at the end of the string).
 */
static size_t report_commify(char *buf, size_t len, const char *in,
			     bool commas)
{
	struct report_sbuf sb = { buf, len, 0 };
	const char *dot = strchr(in, '.');
	const char *end = dot ? dot : in + strlen(in);
	const char *start = end;
	size_t run;

	buf[0] = '\0';
	if (!commas) {
		report_puts(&sb, in, strlen(in));
		return sb.n;
	}
	while (start > in && isdigit((unsigned char)start[-1]))
		start--;
	run = (size_t)(end - start);
	report_puts(&sb, in, (size_t)(start - in));
	for (size_t i = 0; i < run; i++) {
		if (i > 0 && (run - i) % 3 == 0)
			report_putc(&sb, ',');
		report_putc(&sb, start[i]);
	}
	report_puts(&sb, end, strlen(end));
	return sb.n;
}

size_t fmt_number(char *buf, size_t len, double v, int precision,
		  bool commas)
{
	char tmp[512];
	const char *p;
	int digits = 0;

	if (!buf || len == 0)
		return 0;
	if (v == 0)
		v = 0; /* turn -0 into 0 */
	if (precision < 0)
		precision = 0;
	if (precision > REPORT_MAX_PRECISION)
		precision = REPORT_MAX_PRECISION;

	snprintf(tmp, sizeof(tmp), "%.0f", v);
	p = tmp[0] == '-' ? tmp + 1 : tmp;
	while (isdigit((unsigned char)*p++))
		digits++;

	/* Precision counts significant digits; integer digits always stay. */
	if (precision - digits > 0) {
		snprintf(tmp, sizeof(tmp), "%.*f", precision - digits, v);
		if (strchr(tmp, '.')) {
			size_t n = strlen(tmp);

			while (n > 0 && tmp[n - 1] == '0')
				tmp[--n] = '\0';
			if (n > 0 && tmp[n - 1] == '.')
				tmp[--n] = '\0';
		}
	}
	return report_commify(buf, len, tmp, commas);
}

/* ---------------------------------------------------------------------- */
/* The table                                                               */
/* ---------------------------------------------------------------------- */

bool report_visible(const struct out_opts *o, enum report_class c,
		    double v)
{
	if (c == RC_A)
		return true;
	if (c == RC_X)
		return o->v_extra >= 1 && v >= 0;
	if (!(v > 0))
		return false;
	switch (c) {
	case RC_S:
		return o->v_stat >= 1;
	case RC_S2:
		return o->v_stat >= 2;
	case RC_T:
		return o->v_time >= 1;
	case RC_T2:
		return o->v_time >= 2;
	case RC_U:
		return o->v_used >= 1;
	case RC_D:
		return o->debug;
	case RC_A:
	case RC_X:
		break;
	}
	return true;
}

/* A new entry, or NULL if the table is full (cannot happen, see above). */
struct report_entry *report_add(struct report_table *t,
				       const char *pref, const char *name,
				       const char *unit)
{
	struct report_entry *e;

	if (t->n >= REPORT_TABLE_MAX)
		return NULL;
	e = &t->e[t->n++];
	e->pref = pref;
	e->name = name;
	e->unit = unit;
	e->data[0] = '\0';
	e->alt[0] = '\0';
	return e;
}

void report_put_val(struct report_table *t, const char *pref,
			   const char *name, const char *unit, double v)
{
	struct report_entry *e = report_add(t, pref, name, unit);

	if (e)
		fmt_number(e->data, sizeof(e->data), v, t->o->precision,
			   !t->o->unify_units);
}

/* Divide by 1000 while v >= 1000 and a larger unit exists (spec §5.5). */
const char *report_scale(const struct out_opts *o, double *v,
				 const char *const *units, size_t nunits)
{
	size_t i = 0;

	if (!o->unify_units)
		while (*v >= 1000 && i + 1 < nunits) {
			*v /= 1000;
			i++;
		}
	return units[i];
}


static const char *const REPORT_BYTES_SEC[] = { "bytes/sec", "KB/sec",
						"MB/sec", "GB/sec",
						"TB/sec" };
static const char *const REPORT_BITS_SEC[] = { "bits/sec", "Kb/sec", "Mb/sec",
					       "Gb/sec", "Tb/sec" };
static const char *const REPORT_RATE[] = { "/sec", "K/sec", "M/sec", "G/sec",
					   "T/sec" };
static const char *const REPORT_TIME[] = { "ns", "us", "ms", "sec" };
static const char *const REPORT_COUNT[] = { "", "thousand", "million",
					    "billion", "trillion" };
static const char *const REPORT_SIZE[] = { "bytes", "KB", "MB", "GB", "TB" };
static const char *const REPORT_SIZE_1024[] = { "KiB", "MiB", "GiB", "TiB" };

const char *report_unit(const struct out_opts *o, enum report_qty q,
			double *v)
{
	switch (q) {
	case RQ_BAND:
		if (o->bits) {
			*v *= 8;
			return report_scale(o, v, REPORT_BITS_SEC,
					    REPORT_NUNITS(REPORT_BITS_SEC));
		}
		return report_scale(o, v, REPORT_BYTES_SEC,
				    REPORT_NUNITS(REPORT_BYTES_SEC));
	case RQ_RATE:
		return report_scale(o, v, REPORT_RATE,
				    REPORT_NUNITS(REPORT_RATE));
	case RQ_TIME:
		return report_scale(o, v, REPORT_TIME,
				    REPORT_NUNITS(REPORT_TIME));
	case RQ_SIZE:
		break;
	}
	return report_scale(o, v, REPORT_SIZE, REPORT_NUNITS(REPORT_SIZE));
}

/* A time given in nanoseconds. */
void report_time(struct report_table *t, enum report_class c,
			const char *pref, const char *name, double ns)
{
	const char *unit;

	if (!report_visible(t->o, c, ns))
		return;
	unit = report_unit(t->o, RQ_TIME, &ns);
	report_put_val(t, pref, name, unit, ns);
}

/* An unscaled integer, exact even beyond 2^53. */
void report_put_u64(struct report_table *t, const char *pref,
		    const char *name, const char *unit, uint64_t v)
{
	struct report_entry *e = report_add(t, pref, name, unit);
	char tmp[32];

	if (!e)
		return;
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	report_commify(e->data, sizeof(e->data), tmp, !t->o->unify_units);
}

/* A count: scaled to thousand, million, ... only from 1,000,000 up. */
void report_count(struct report_table *t, enum report_class c,
			 const char *pref, const char *name, uint64_t v)
{
	double d = (double)v;
	const char *unit;

	if (!report_visible(t->o, c, d))
		return;
	if (t->o->unify_units || v < 1000000) {
		report_put_u64(t, pref, name, REPORT_COUNT[0], v);
		return;
	}
	unit = report_scale(t->o, &d, REPORT_COUNT,
			    REPORT_NUNITS(REPORT_COUNT));
	report_put_val(t, pref, name, unit, d);
}

/*
 * The 1024 rule: a size that stays an exact multiple of 1024 at every step
 * is shown as "<n> KiB (<bytes>)".  Returns false if the rule does not
 * apply.
 */
bool report_size_1024(struct report_table *t, const char *pref,
		      const char *name, uint64_t v)
{
	uint64_t n = v;
	size_t i = 0;
	struct report_entry *e;
	char tmp[32];

	if (n < 1024 || n % 1024)
		return false;
	n /= 1024;
	while (n >= 1024 && i + 1 < REPORT_NUNITS(REPORT_SIZE_1024)) {
		if (n % 1024)
			return false;
		n /= 1024;
		i++;
	}
	e = report_add(t, pref, name, REPORT_SIZE_1024[i]);
	if (!e)
		return true;
	snprintf(tmp, sizeof(tmp), "%" PRIu64, n);
	report_commify(e->data, sizeof(e->data), tmp, true);
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	report_commify(e->alt, sizeof(e->alt), tmp, true);
	return true;
}

/* Print the table (spec §5.2). */
void report_print(FILE *f, const struct report_table *t)
{
	size_t w = 0, d = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct report_entry *e = &t->e[i];
		size_t n = strlen(e->pref) + strlen(e->name);

		if (n > w)
			w = n;
		if (e->unit && strlen(e->data) > d)
			d = strlen(e->data);
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct report_entry *e = &t->e[i];
		int pad = (int)(w - strlen(e->pref));

		fprintf(f, "    %s%-*s  =  ", e->pref, pad, e->name);
		if (e->unit)
			fprintf(f, "%*s %s", (int)d, e->data, e->unit);
		else
			fputs(e->data, f);
		if (e->alt[0])
			fprintf(f, " (%s)", e->alt);
		fputc('\n', f);
	}
}


void report_dist(struct report_table *t, const char *pref,
		 const char *const names[7], const struct lat_summary *s)
{
	const double v[7] = { s->min, s->mean, s->p50, s->p90,
			      s->p99, s->p999, s->max };
	static const enum report_class c[7] = { RC_X, RC_X, RC_A, RC_A,
						RC_A, RC_X, RC_A };

	for (int i = 0; i < 7; i++)
		report_time(t, c[i], pref, names[i], v[i] * 1e9);
}
