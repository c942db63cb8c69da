// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exporter's pure parsing: the allow-list given at start and the
 * query of one /probe.  Every name a probe may use is checked against the
 * allow-list, and every value against a small alphabet, before anything
 * reaches a child's command line: a host cannot start with a dash, so no
 * query can add an option, and each option takes exactly its value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter.h"
#include "core/opts.h"
#include "lib/err.h"
#include "lib/types.h"
#include "transports/transport.h"

/* The current option spelled --NAME that sets a parameter and takes a
 * value, or NULL. */
static const struct opt_desc *param_opt(const char *name)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];

		if (o->obsolete_for || strncmp(o->name, "--", 2) ||
		    strcmp(o->name + 2, name))
			continue;
		if (o->par >= 0 && o->act == OA_NONE && opt_takes_value(o))
			return o;
		return NULL;
	}
	return NULL;
}

int exp_allow_parse(const char *list, struct exp_allow *a, char *err,
		    size_t errlen)
{
	const char *p = list;

	memset(a, 0, sizeof(*a));
	if (!*p) {
		xsnprintf(err, errlen, "--exporter_allow: empty list");
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[64];
		const struct test_desc *t;
		const struct opt_desc *o = NULL;

		if (n == 0 || n >= sizeof(name)) {
			xsnprintf(err, errlen,
				  "--exporter_allow: %.*s: bad entry; give tests and options by name, separated by commas",
				  (int)(n > 60 ? 60 : n), p);
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		t = test_find(name);
		if (!t && strcmp(name, "expect") && !(o = param_opt(name))) {
			xsnprintf(err, errlen,
				  "--exporter_allow: %s: not a test nor an option that sets a parameter; try: qperf --help tests, qperf --help opts",
				  name);
			return -1;
		}
		if (a->ntests + a->nopts >= EXP_ALLOW_MAX) {
			xsnprintf(err, errlen,
				  "--exporter_allow: too many entries; at most %d",
				  EXP_ALLOW_MAX);
			return -1;
		}
		if (t)
			a->tests[a->ntests++] = t;
		else if (o)
			a->opts[a->nopts++] = o;
		else
			a->expect = true;
		p += n;
		if (*p == ',' && !*++p) {
			xsnprintf(err, errlen,
				  "--exporter_allow: %s: ends with a comma",
				  list);
			return -1;
		}
	}
	return 0;
}

/* Whether every byte of s is in set (and s is not empty). */
static bool all_in(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

#define HOST_CHARS                                                         \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"
#define VALUE_CHARS HOST_CHARS ":,*+%<>=/"

/* target=HOST[:PORT] or [V6]:PORT into r. */
static int parse_target(const char *v, struct probe_req *r, char *err,
			size_t errlen)
{
	const char *host = v, *port = NULL, *end;
	size_t n;

	if (v[0] == '[') {
		end = strchr(v, ']');
		if (!end || (end[1] && end[1] != ':'))
			goto bad;
		host = v + 1;
		n = (size_t)(end - host);
		if (end[1])
			port = end + 2;
	} else {
		end = strchr(v, ':');
		n = end ? (size_t)(end - v) : strlen(v);
		if (end)
			port = end + 1;
	}
	if (n == 0 || n >= sizeof(r->host))
		goto bad;
	memcpy(r->host, host, n);
	r->host[n] = '\0';
	if (v[0] == '[' ? !all_in(r->host, "0123456789abcdefABCDEF:.") :
			  !all_in(r->host, HOST_CHARS) || r->host[0] == '-')
		goto bad;
	r->port = EXP_DEFAULT_PORT;
	if (port) {
		char *e;
		unsigned long x;

		if (!all_in(port, "0123456789") || strlen(port) > 5)
			goto bad;
		x = strtoul(port, &e, 10);
		if (x == 0 || x > 65535)
			goto bad;
		r->port = (uint16_t)x;
	}
	return 0;
bad:
	xsnprintf(err, errlen,
		  "target=%.80s: bad target; use HOST, HOST:PORT or [IPV6]:PORT",
		  v);
	return -1;
}

static bool test_allowed(const struct exp_allow *a, const struct test_desc *t)
{
	for (int i = 0; i < a->ntests; i++)
		if (a->tests[i] == t)
			return true;
	return false;
}

static bool opt_allowed(const struct exp_allow *a, const char *name)
{
	if (!strcmp(name, "expect"))
		return a->expect;
	for (int i = 0; i < a->nopts; i++)
		if (!strcmp(a->opts[i]->name + 2, name))
			return true;
	return false;
}

/* An option=value pair of the query into r. */
static int add_opt(const struct exp_allow *a, const char *k, const char *v,
		   struct probe_req *r, char *err, size_t errlen)
{
	if (!opt_allowed(a, k)) {
		xsnprintf(err, errlen,
			  "%.60s: not allowed (not a test's option on --exporter_allow)",
			  k);
		return -1;
	}
	for (int i = 0; i < r->nopts; i++)
		if (!strcmp(r->opt[i].flag + 2, k)) {
			xsnprintf(err, errlen, "%s: given twice", k);
			return -1;
		}
	if (r->nopts >= EXP_OPTS_MAX) {
		xsnprintf(err, errlen, "too many options; at most %d",
			  EXP_OPTS_MAX);
		return -1;
	}
	if (strlen(v) >= EXP_VALUE_MAX || !all_in(v, VALUE_CHARS)) {
		xsnprintf(err, errlen, "%s=%.60s: bad value", k, v);
		return -1;
	}
	if (!strcmp(k, "time")) {
		char inner[160];

		if (parse_time("time", v, &r->time_ns, inner, sizeof(inner))) {
			xsnprintf(err, errlen, "%s", inner);
			return -1;
		}
	}
	/* The allow-list's own string: k lives only as long as the query. */
	r->opt[r->nopts].flag = "--expect";
	for (int i = 0; i < a->nopts; i++)
		if (!strcmp(a->opts[i]->name + 2, k))
			r->opt[r->nopts].flag = a->opts[i]->name;
	snprintf(r->opt[r->nopts].value, EXP_VALUE_MAX, "%s", v);
	r->nopts++;
	return 0;
}

int probe_req_parse(const struct exp_allow *a, size_t n,
		    const char *const *keys, const char *const *vals,
		    struct probe_req *r, char *err, size_t errlen)
{
	bool have_target = false;

	memset(r, 0, sizeof(*r));
	r->time_ns = NS_PER_SEC; /* EXP_DEFAULT_TIME */
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[i], *v = vals[i];

		if (!k || !*k) {
			xsnprintf(err, errlen, "empty argument name");
			return -1;
		}
		if (!v || !*v) {
			xsnprintf(err, errlen, "%.60s: no value", k);
			return -1;
		}
		if (!strcmp(k, "target")) {
			if (have_target) {
				xsnprintf(err, errlen, "target: given twice");
				return -1;
			}
			if (parse_target(v, r, err, errlen))
				return -1;
			have_target = true;
		} else if (!strcmp(k, "test")) {
			if (r->test) {
				xsnprintf(err, errlen, "test: given twice");
				return -1;
			}
			r->test = test_find(v);
			if (!r->test || !test_allowed(a, r->test)) {
				xsnprintf(err, errlen,
					  "test=%.60s: %s", v,
					  r->test ? "not allowed (--exporter_allow)" :
						    "no such test");
				return -1;
			}
		} else if (add_opt(a, k, v, r, err, errlen)) {
			return -1;
		}
	}
	if (!have_target || !r->test) {
		xsnprintf(err, errlen, "missing %s; use /probe?target=HOST[:PORT]&test=TEST",
			  have_target ? "test" : "target");
		return -1;
	}
	return 0;
}

int probe_argv(const struct probe_req *r, const char *exe, char *port_buf,
	       size_t port_len, const char **av, int avmax)
{
	int n = 0;

	if (avmax < 10 + 2 * r->nopts)
		return -1;
	xsnprintf(port_buf, port_len, "%u", r->port);
	av[n++] = exe;
	av[n++] = "--json";
	av[n++] = "-lp";
	av[n++] = port_buf;
	av[n++] = "-ws"; /* one try: a dead server fails at once */
	av[n++] = "0";
	av[n++] = "-t";
	av[n++] = EXP_DEFAULT_TIME; /* a later time=... wins */
	for (int i = 0; i < r->nopts; i++) {
		av[n++] = r->opt[i].flag;
		av[n++] = r->opt[i].value;
	}
	av[n++] = "-H";
	av[n++] = r->host;
	av[n++] = r->test->name;
	av[n] = NULL;
	return n;
}
