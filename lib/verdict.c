// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verdicts: the --expect grammar and the checks of one figure against a
 * limit or a baseline (lib/verdict.h).  Pure functions.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "verdict.h"

static const struct {
	const char *name;
	enum vkind kind;
} figs[VF_COUNT] = {
	[VF_BW] = { "bw", VK_BAND },
	[VF_SEND_BW] = { "send_bw", VK_BAND },
	[VF_RECV_BW] = { "recv_bw", VK_BAND },
	[VF_LATENCY] = { "latency", VK_TIME },
	[VF_LAT_P50] = { "latency_p50", VK_TIME },
	[VF_LAT_P90] = { "latency_p90", VK_TIME },
	[VF_LAT_P99] = { "latency_p99", VK_TIME },
	[VF_LAT_P999] = { "latency_p999", VK_TIME },
	[VF_MSG_RATE] = { "msg_rate", VK_RATE },
};

/* Longest first, so that ">=" is not read as ">". */
static const char *const op_names[] = {
	[VOP_GE] = ">=", [VOP_LE] = "<=", [VOP_GT] = ">", [VOP_LT] = "<"
};

/* The operator that held instead, for a failed check's reason. */
static const char *const op_failed[] = {
	[VOP_GE] = "<", [VOP_LE] = ">", [VOP_GT] = "<=", [VOP_LT] = ">="
};

const char *verdict_fig_name(enum vfig f)
{
	return (unsigned)f < VF_COUNT ? figs[f].name : NULL;
}

enum vkind verdict_fig_kind(enum vfig f)
{
	return (unsigned)f < VF_COUNT ? figs[f].kind : VK_RATE;
}

const char *verdict_op_name(enum vop op)
{
	return (unsigned)op <= VOP_LT ? op_names[op] : "?";
}

/* A unit's factor from a table of spellings; 0 if none matches. */
struct unit {
	const char *s;
	double f;
};

static double unit_find(const struct unit *u, const char *s)
{
	for (; u->s; u++)
		if (strcmp(u->s, s) == 0)
			return u->f;
	return 0;
}

static const struct unit prefixes[] = {
	{ "", 1 }, { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 },
	{ "T", 1e12 }, { "Ki", 1024.0 }, { "Mi", 1048576.0 },
	{ "Gi", 1073741824.0 }, { "Ti", 1099511627776.0 }, { NULL, 0 }
};

static const struct unit times[] = {
	{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	{ NULL, 0 }
};

/* A bandwidth unit: PREFIX (B|b) [/s|ps] into bytes/s per unit. */
static double band_unit(const char *u, bool *bits)
{
	char p[8];
	size_t n = strlen(u);

	if (n >= 2 && (strcmp(u + n - 2, "/s") == 0 ||
		       strcmp(u + n - 2, "ps") == 0))
		n -= 2;
	if (n == 0 || n > 3 || (u[n - 1] != 'B' && u[n - 1] != 'b'))
		return 0;
	*bits = u[n - 1] == 'b';
	memcpy(p, u, n - 1);
	p[n - 1] = '\0';
	return unit_find(prefixes, p) / (*bits ? 8 : 1);
}

/* A message rate unit: [k|K|M|G] [/s]. */
static double rate_unit(const char *u)
{
	char p[8];
	size_t n = strlen(u);

	if (n >= 2 && strcmp(u + n - 2, "/s") == 0)
		n -= 2;
	if (n > 2)
		return 0;
	memcpy(p, u, n);
	p[n] = '\0';
	return n == 2 && p[1] == 'i' ? 0 : unit_find(prefixes, p);
}

/* The figure named by s[0..n), or VF_COUNT. */
static enum vfig fig_find(const char *s, size_t n)
{
	for (int f = 0; f < VF_COUNT; f++)
		if (strlen(figs[f].name) == n && strncmp(figs[f].name, s, n) == 0)
			return (enum vfig)f;
	return VF_COUNT;
}

/* VALUE of e (figure known): the number and its unit. */
static int parse_value(const char *v, struct vexpr *e, char *err,
		       size_t errlen)
{
	enum vkind k = figs[e->fig].kind;
	char unit[16], *end;
	double x, f = 0;
	size_t n;

	if (!*v)
		return seterr(err, errlen, "no value after %s",
			      op_names[e->op]);
	if (*v == '-' || *v == '+')
		return seterr(err, errlen, "the value must be a plain positive number");
	x = strtod(v, &end);
	if (end == v || !isfinite(x))
		return seterr(err, errlen, "\"%.20s\" is not a number", v);
	while (*end == ' ')
		end++;
	n = strlen(end);
	while (n && end[n - 1] == ' ')
		n--;
	if (n >= sizeof(unit))
		return seterr(err, errlen, "unknown unit \"%.20s\"", end);
	memcpy(unit, end, n);
	unit[n] = '\0';
	if (strcmp(unit, "%") == 0) {
		if (k != VK_BAND && k != VK_RATE)
			return seterr(err, errlen,
				      "a percentage (of the path's ceiling) applies to bandwidths and msg_rate only, not to %s",
				      figs[e->fig].name);
		if (x <= 0 || x > 1000)
			return seterr(err, errlen,
				      "a percentage must be above 0 and at most 1000");
		e->pct = true;
		e->limit = x / 100;
		return 0;
	}
	if (k == VK_BAND) {
		f = band_unit(unit, &e->bits);
		if (!f)
			return seterr(err, errlen,
				      "%s%s%s a bandwidth needs a unit ending in B (bytes) or b (bits), such as 40Gb, 5GB or 1.25GB/s, or a percentage of the ceiling (90%%)",
				      *unit ? "unknown unit \"" : "no unit:",
				      unit, *unit ? "\":" : "");
	} else if (k == VK_TIME) {
		f = unit_find(times, unit);
		if (!f)
			return seterr(err, errlen,
				      "%s%s%s a latency needs a unit: ns, us, ms or s (2us)",
				      *unit ? "unknown unit \"" : "no unit:",
				      unit, *unit ? "\":" : "");
	} else {
		f = rate_unit(unit);
		if (!f)
			return seterr(err, errlen,
				      "unknown unit \"%s\": a message rate is a count with k, M or G and an optional /s (10M)",
				      unit);
	}
	e->limit = x * f;
	return 0;
}

int verdict_parse(const char *s, struct vexpr *e, char *err, size_t errlen)
{
	const char *p = s, *name;
	size_t n;
	int op = -1;

	memset(e, 0, sizeof(*e));
	if (strlen(s) >= sizeof(e->text))
		return seterr(err, errlen, "too long (at most %zu characters)",
			      sizeof(e->text) - 1);
	xsnprintf(e->text, sizeof(e->text), "%s", s);
	while (*p == ' ')
		p++;
	name = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	n = (size_t)(p - name);
	while (*p == ' ')
		p++;
	for (int i = 0; i <= VOP_LT && op < 0; i++)
		if (strncmp(p, op_names[i], strlen(op_names[i])) == 0)
			op = i;
	if (!n && op < 0)
		return seterr(err, errlen,
			      "expected FIGURE OP VALUE, such as bw>=40Gb or latency<=2us");
	if (op < 0)
		return seterr(err, errlen,
			      "no operator after \"%.*s\": expected one of >= <= > <",
			      (int)(n > 32 ? 32 : n), name);
	if (!n)
		return seterr(err, errlen, "no figure before %s", op_names[op]);
	e->fig = fig_find(name, n);
	if (e->fig == VF_COUNT)
		return seterr(err, errlen,
			      "unknown figure \"%.*s\"; figures: bw send_bw recv_bw latency latency_p50 latency_p90 latency_p99 latency_p999 msg_rate",
			      (int)(n > 32 ? 32 : n), name);
	e->op = (enum vop)op;
	p += strlen(op_names[op]);
	while (*p == ' ')
		p++;
	return parse_value(p, e, err, errlen);
}

static bool op_holds(enum vop op, double a, double b)
{
	switch (op) {
	case VOP_GE:
		return a >= b;
	case VOP_LE:
		return a <= b;
	case VOP_GT:
		return a > b;
	default:
		return a < b;
	}
}

char *verdict_format(char *buf, size_t len, enum vkind k, double v, bool bits)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P" };
	static const char *const tu[] = { "ns", "us", "ms", "s" };
	int i = 0;

	if (k == VK_TIME) {
		v *= 1e9;
		for (; i < 3 && fabs(v) >= 1000; i++)
			v /= 1000;
		xsnprintf(buf, len, "%.3g %s", v, tu[i]);
		return buf;
	}
	if (k == VK_BAND && bits)
		v *= 8;
	for (; i < 5 && fabs(v) >= 1000; i++)
		v /= 1000;
	xsnprintf(buf, len, "%.3g %s%s", v, si[i],
		  k == VK_RATE ? "/s" : bits ? "b/s" : "B/s");
	return buf;
}

void verdict_eval(const struct vexpr *e, bool have, double value,
		  const struct ceiling *ceil, struct vcheck *c)
{
	enum vkind k = figs[e->fig].kind;
	char a[32], b[32];
	double top;

	memset(c, 0, sizeof(*c));
	xsnprintf(c->expr, sizeof(c->expr), "%s", e->text);
	c->fig = e->fig;
	c->op = e->op;
	c->have_value = have;
	c->value = have ? value : 0;
	top = !ceil ? 0 : k == VK_RATE ? ceil->msg_rate : ceil->bps;
	c->have_limit = !e->pct || (ceil && ceil->valid && top > 0);
	if (c->have_limit)
		c->limit = e->pct ? e->limit * top : e->limit;
	if (!have) {
		xsnprintf(c->reason, sizeof(c->reason),
			  "%s was not measured in this test",
			  figs[e->fig].name);
		return;
	}
	if (!c->have_limit) {
		/* A path may say why it has no ceiling (loopback). */
		if (k == VK_RATE && ceil && ceil->valid)
			xsnprintf(c->reason, sizeof(c->reason),
				  "%s: no message-rate ceiling: %s", e->text,
				  ceil->stream ? "a stream's writes are not packets" :
						 "long messages");
		else
			xsnprintf(c->reason, sizeof(c->reason),
				  "%s: no ceiling known%s%.120s", e->text,
				  ceil && ceil->what[0] ? ": " : " for this path",
				  ceil && ceil->what[0] ? ceil->what : "");
		return;
	}
	c->pass = op_holds(e->op, value, c->limit);
	verdict_format(a, sizeof(a), k, value, e->bits);
	verdict_format(b, sizeof(b), k, c->limit, e->bits);
	if (c->pass)
		xsnprintf(c->reason, sizeof(c->reason), "%s %s %s %s",
			  figs[e->fig].name, a, op_names[e->op], b);
	else if (e->pct)
		xsnprintf(c->reason, sizeof(c->reason),
			  "%s %s %s %g%% of %s (%.100s)", figs[e->fig].name, a,
			  op_failed[e->op], e->limit * 100,
			  verdict_format(b, sizeof(b), k, top, e->bits),
			  ceil->what);
	else
		xsnprintf(c->reason, sizeof(c->reason), "%s %s %s %s",
			  figs[e->fig].name, a, op_failed[e->op], b);
}

double verdict_regression(enum vkind k, double a, double b)
{
	if (!(a > 0))
		return 0;
	return k == VK_TIME ? (b - a) / a : (a - b) / a;
}

void verdict_baseline(enum vfig f, double value, double base, double tol,
		      bool bits, struct vcheck *c)
{
	enum vkind k = figs[f].kind;
	double r = verdict_regression(k, base, value);
	char a[32], b[32];

	memset(c, 0, sizeof(*c));
	xsnprintf(c->expr, sizeof(c->expr), "baseline");
	c->fig = f;
	c->baseline = true;
	c->base = base;
	c->have_value = true;
	c->value = value;
	c->op = k == VK_TIME ? VOP_LE : VOP_GE;
	verdict_format(a, sizeof(a), k, value, bits);
	verdict_format(b, sizeof(b), k, base, bits);
	if (!(base > 0)) {
		c->pass = true;
		xsnprintf(c->reason, sizeof(c->reason),
			  "%s: the baseline's figure is 0; not compared",
			  figs[f].name);
		return;
	}
	c->have_limit = true;
	c->limit = k == VK_TIME ? base * (1 + tol) : base * (1 - tol);
	c->pass = r <= tol;
	xsnprintf(c->reason, sizeof(c->reason),
		  "%s %s is %.1f%% %s the baseline's %s (tolerance %g%%)",
		  figs[f].name, a, fabs(r) * 100,
		  (k == VK_TIME) == (r >= 0) ? "above" : "below", b, tol * 100);
}

int verdict_tolerance(const char *s, double *frac, char *err, size_t errlen)
{
	char *end;
	double x;

	if (*s == '-' || *s == '+' || !*s)
		return seterr(err, errlen,
			      "expected a percentage from 0 to 1000, such as 5 or 5%%");
	x = strtod(s, &end);
	if (end == s || !isfinite(x) || (*end && strcmp(end, "%") != 0))
		return seterr(err, errlen,
			      "expected a percentage from 0 to 1000, such as 5 or 5%%");
	if (x > 1000)
		return seterr(err, errlen, "at most 1000%%");
	*frac = x / 100;
	return 0;
}

void verdict_settle(struct verdict *v)
{
	v->pass = true;
	for (int i = 0; i < v->n; i++)
		v->pass = v->pass && v->c[i].pass;
}

char *verdict_line(const struct verdict *v, char *buf, size_t len)
{
	size_t at;

	if (v->pass) {
		xsnprintf(buf, len, "pass");
		return buf;
	}
	at = xsnprintf(buf, len, "fail:");
	for (int i = 0, k = 0; i < v->n; i++)
		if (!v->c[i].pass)
			at += xsnprintf(buf + at, len - at, "%s %s",
					k++ ? ";" : "", v->c[i].reason);
	return buf;
}
