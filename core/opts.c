// SPDX-License-Identifier: GPL-2.0-only
/*
 * The option table and the command-line parser (spec §1.1, §4).
 *
 * opt_table is the single source for parsing, validation, --loop variable
 * names, --help opts/options and the man-page check.  Parsing never
 * prints: messages go to the caller's buffer (errors) or plan->warn
 * (obsolete spellings).  Every value is range-checked before it is
 * stored, so nothing that reaches the 32-bit wire fields can wrap, and
 * every --loop is proven to terminate before any test runs.  The value
 * parsers themselves (parse_size, parse_time, parse_int) are in param.c.
 *
 * Values quoted in messages are cut at CLIP_MAX characters, so a hostile
 * argv cannot make a message overflow (0.4.11 overflowed, spec §7.32).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "engine.h"
#include "interval.h"
#include "lib/olsched.h"
#include "opts.h"
#include "opts_int.h"
#include "output/plot.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/numa.h"
#include "transports/transport.h"

#define LOC (1u << SIDE_LOC)
#define U32 ((uint64_t)UINT32_MAX)
#define MEMORY_MAX (1ULL << 50) /* --max_memory: 1 PiB */
#define DEFAULT_LISTEN_PORT 19765
#define DEFAULT_WAIT (5 * NS_PER_SEC)
#define DEFAULT_PRECISION 3

/* Static rate names accepted by -sr (spec §4.4); "" means the default. */
static const char *const static_rates[] = {
	"",	 "max",	  "1xSDR", "1xDDR", "1xQDR", "4xSDR", "4xDDR",
	"4xQDR", "8xSDR", "8xDDR", "8xQDR", "2.5",   "5",     "10",
	"20",	 "30",	  "40",	   "60",    "80",    "120",
};


/* Is v one of the static rate names (0.4.11's --rate, -sr)? */
static bool static_rate_name(const char *v)
{
	for (size_t i = 0; i < sizeof(static_rates) / sizeof(static_rates[0]);
	     i++)
		if (strcmp(v, static_rates[i]) == 0)
			return true;
	return false;
}

/* Exact-name lookup; obsolete spellings are returned as such. */
const struct opt_desc *opt_lookup(const char *name, bool dashes)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];
		const char *n = o->name, *a = o->abbr;

		if (!dashes) {
			n += strspn(n, "-");
			a = a ? a + strspn(a, "-") : NULL;
		}
		if (strcmp(n, name) == 0 || (a && strcmp(a, name) == 0))
			return o;
	}
	return NULL;
}

/* The entry an obsolete spelling stands for (itself if current). */
const struct opt_desc *opt_resolve(const struct opt_desc *o)
{
	const struct opt_desc *n;

	if (!o || !o->obsolete_for)
		return o;
	n = opt_lookup(o->obsolete_for, true);
	return n ? n : o;
}

bool opt_takes_value(const struct opt_desc *o)
{
	switch (o->type) {
	case OT_INT:
	case OT_SIZE:
	case OT_TIME:
	case OT_RATE:
	case OT_STR:
	case OT_SL:
		return true;
	case OT_SPECIAL:
		return o->arg && o->act != OA_HELP;
	default:
		return false;
	}
}

/* Only numbers that live in struct settings can be looped. */
bool opt_loopable(const struct opt_desc *o)
{
	if (o->par < 0 && o->act != OA_PRECISION)
		return false;
	return o->type == OT_INT || o->type == OT_SIZE || o->type == OT_TIME ||
	       o->type == OT_RATE || o->type == OT_SL;
}

static void settings_init(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->out.precision = DEFAULT_PRECISION;
}

static void set_par(struct par_set *p, const struct opt_desc *o,
		    const char *spelling, uint64_t v, const char *str)
{
	int si = par_str_index((enum par_id)o->par);

	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		if (!(o->sides & (1u << side)))
			continue;
		if (si >= 0)
			snprintf(p->str[side][si], PAR_STR_MAX, "%s", str);
		else
			p->val[side][o->par] = v;
		p->set[side][o->par] = true;
		p->spelling[side][o->par] = spelling;
	}
}

/* A bound of o as users type it: "5" or, for a time (ns), "1 second". */
static const char *bound_text(const struct opt_desc *o, uint64_t b,
			      char *buf, size_t len)
{
	if (o->type != OT_TIME)
		xsnprintf(buf, len, "%" PRIu64, b);
	else
		xsnprintf(buf, len, "%.9g second%s", (double)b / NS_PER_SEC,
			  b == NS_PER_SEC ? "" : "s");
	return buf;
}

/* Check x (already unit-scaled) against o's range; fills err. */
static int check_range(const struct opt_desc *o, const char *spelling,
		       const char *v, uint64_t x, char *err, size_t errlen)
{
	char b[48];

	if (o->type == OT_SL && x > o->max)
		return opts_fail(err, errlen, spelling, v,
			    "service level must be between 0 and 15");
	if (o->par == PAR_MTU_SIZE && (x < o->min || x > o->max || (x & (x - 1))))
		return opts_fail(err, errlen, spelling, v,
			    "must be 256, 512, 1024, 2048 or 4096");
	if (x < o->min) {
		if (o->min == 1)
			return opts_fail(err, errlen, spelling, v,
				    "must be greater than 0");
		return opts_fail(err, errlen, spelling, v,
			    "must be at least %s",
			    bound_text(o, o->min, b, sizeof(b)));
	}
	if (x > o->max) {
		if (o->arg && strcmp(o->arg, "Port") == 0)
			return opts_fail(err, errlen, spelling, v,
				    "port must be at most %" PRIu64, o->max);
		return opts_fail(err, errlen, spelling, v,
			    "too large; must be at most %s",
			    bound_text(o, o->max, b, sizeof(b)));
	}
	return 0;
}

/* Parse v for a valued option, unit-scaled and range-checked. */
int parse_value(const struct opt_desc *o, const char *spelling,
		const char *v, uint64_t *x, char *err, size_t errlen)
{
	int rc;

	switch (o->type) {
	case OT_SIZE:
		rc = parse_size(spelling, v, x, err, errlen);
		break;
	case OT_TIME:
		rc = parse_time(spelling, v, x, err, errlen);
		break;
	default:
		rc = parse_int(spelling, v, x, err, errlen);
		break;
	}
	return rc ? rc : check_range(o, spelling, v, *x, err, errlen);
}

/* One -ca entry (a CPU number + 1, 0.4.11's meaning) into x.  0 or -1. */
static int cpu_entry(const char *spelling, const char *v, const char *a,
		     size_t n, bool loc, uint64_t *x, char *err, size_t errlen)
{
	char num[16];

	if (n == 0 || n >= sizeof(num))
		return opts_fail(err, errlen, spelling, v,
			    "bad CPU list; use entries such as 1,2 or 1-4 (N pins to CPU N-1)");
	memcpy(num, a, n);
	num[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (num[i] < '0' || num[i] > '9')
			return opts_fail(err, errlen, spelling, v,
				    "bad CPU list; use entries such as 1,2 or 1-4 (N pins to CPU N-1)");
	*x = strtoull(num, NULL, 10);
	if (*x >= CPUS_PN_MAX)
		return opts_fail(err, errlen, spelling, v,
			    "CPU list entry %s is too large; must be at most %d",
			    num, CPUS_PN_MAX - 1);
	if (loc && *x && !cpu_usable(*x - 1))
		return opts_fail(err, errlen, spelling, v,
			    "this host has no usable CPU %" PRIu64 " (%s N pins to CPU N-1; %d usable here, 0 allows any)",
			    *x - 1, spelling, cpu_usable_count());
	return 0;
}

/*
 * -ca given a list ("1,2", "1-4", "1,3-4"): one entry per stream, in
 * order.  Fills l; 0, or -1 with err naming the value.
 */
static int parse_cpu_list(const char *spelling, const char *v, bool loc,
			  struct cpu_list *l, char *err, size_t errlen)
{
	const char *p = v;

	memset(l, 0, sizeof(*l));
	for (;;) {
		size_t n = strcspn(p, ",-");
		uint64_t lo, hi;

		if (cpu_entry(spelling, v, p, n, loc, &lo, err, errlen) < 0)
			return -1;
		hi = lo;
		p += n;
		if (*p == '-') {
			n = strcspn(++p, ",");
			if (cpu_entry(spelling, v, p, n, loc, &hi, err,
				      errlen) < 0)
				return -1;
			if (hi < lo)
				return opts_fail(err, errlen, spelling, v,
					    "bad CPU range; the first number must not exceed the second");
			p += n;
		}
		for (uint64_t x = lo; x <= hi; x++) {
			if (l->n >= CPUS_MAX)
				return opts_fail(err, errlen, spelling, v,
					    "too many CPUs; at most %d (one per stream)",
					    CPUS_MAX);
			l->pn[l->n++] = (uint16_t)x;
		}
		if (*p == '\0')
			return 0;
		p++; /* ',' */
	}
}

/* -ca: a single value (0.4.11) or a CPU list (0.5 peers, --streams). */
static int apply_affinity(struct settings *s, const struct opt_desc *o,
			  const char *spelling, const char *v, char *err,
			  size_t errlen)
{
	struct cpu_list l;

	if (parse_cpu_list(spelling, v, (o->sides & LOC) != 0, &l, err,
			   errlen) < 0)
		return -1;
	set_par(&s->par, o, spelling, l.pn[0], NULL);
	for (int side = SIDE_LOC; side <= SIDE_REM; side++)
		if (o->sides & (1u << side))
			s->par.cpus[side] = l;
	return 0;
}

/* --rate: a bandwidth sets PAR_RATE, a message rate PAR_MSG_RATE; the
 * other is cleared (the last --rate given wins). */
static int apply_rate(struct settings *s, const struct opt_desc *o,
		      const char *spelling, const char *v, char *err,
		      size_t errlen)
{
	uint64_t x;
	bool msgs;

	if (parse_rate(spelling, v, &x, &msgs, err, errlen) < 0)
		return -1;
	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		int on = msgs ? PAR_MSG_RATE : PAR_RATE;
		int off = msgs ? PAR_RATE : PAR_MSG_RATE;

		if (!(o->sides & (1u << side)))
			continue;
		s->par.val[side][on] = x;
		s->par.set[side][on] = true;
		s->par.spelling[side][on] = spelling;
		s->par.val[side][off] = 0;
		s->par.set[side][off] = false;
	}
	return 0;
}

/* Apply a value to an option that lives in struct settings. */
int opts_apply(struct settings *s, const struct opt_desc *o,
	       const char *spelling, const char *v, char *err, size_t errlen)
{
	uint64_t x = 0;

	if (o->type == OT_RATE)
		return apply_rate(s, o, spelling, v, err, errlen);

	if (o->type == OT_STR) {
		bool ok = o->par != PAR_STATIC_RATE;

		if (strlen(v) >= PAR_STR_MAX)
			return opts_fail(err, errlen, spelling, v,
				    "too long; must be at most %d characters",
				    PAR_STR_MAX - 1);
		for (size_t i = 0; !ok && i < sizeof(static_rates) /
						 sizeof(static_rates[0]); i++)
			ok = strcmp(v, static_rates[i]) == 0;
		if (!ok)
			return opts_fail(err, errlen, spelling, v,
				    "bad static rate; try: qperf --help "
				    "options");
		set_par(&s->par, o, spelling, 0, v);
		return 0;
	}
	if (o->par == PAR_AFFINITY && v[strcspn(v, ",-")] != '\0' &&
	    v[0] != '-')
		return apply_affinity(s, o, spelling, v, err, errlen);
	if (parse_value(o, spelling, v, &x, err, errlen))
		return -1;
	if (o->par == PAR_AFFINITY)
		for (int side = SIDE_LOC; side <= SIDE_REM; side++)
			if (o->sides & (1u << side))
				s->par.cpus[side].n = 0;
	/* Only the local side can be checked here; the server checks its own. */
	if (o->par == PAR_AFFINITY && (o->sides & LOC) && x && !cpu_usable(x - 1))
		return opts_fail(err, errlen, spelling, v,
			    "this host has no usable CPU %" PRIu64 " (%s N pins to CPU N-1; %d usable here, 0 allows any)",
			    x - 1, spelling, cpu_usable_count());
	if (o->act == OA_PRECISION)
		s->out.precision = (int)x;
	else
		set_par(&s->par, o, spelling, x, NULL);
	return 0;
}

int opts_set_value(struct settings *s, const struct opt_desc *opt,
		   uint64_t v, char *err, size_t errlen)
{
	char buf[24];

	opt = opt_resolve(opt);
	if (!opt || !opt_loopable(opt))
		return opts_fail(err, errlen, opt ? opt->name : "--loop", NULL,
			    "cannot be set to a number");
	/* Times are ns here and typed in seconds: exact to the ns. */
	if (opt->type == OT_TIME && v % NS_PER_SEC)
		snprintf(buf, sizeof(buf), "%llu.%09llu",
			 (unsigned long long)(v / NS_PER_SEC),
			 (unsigned long long)(v % NS_PER_SEC));
	else if (opt->type == OT_TIME)
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)(v / NS_PER_SEC));
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
	/* The table's spelling outlives argv copies; use it for warnings. */
	return opts_apply(s, opt, opt->name, buf, err, errlen);
}

/* Verbosity (spec §4.2 notes). */
static void apply_verbose(struct out_opts *out, enum opt_act act)
{
	int *cls[4] = { &out->v_conf, &out->v_stat, &out->v_time, &out->v_used };

	switch (act) {
	case OA_VERBOSE:
		for (int i = 0; i < 4; i++)
			if (*cls[i] < 1)
				*cls[i] = 1;
		break;
	case OA_VERBOSE_MORE:
		for (int i = 0; i < 4; i++)
			*cls[i] = 2;
		break;
	case OA_V_CONF:
	case OA_V_STAT:
	case OA_V_TIME:
	case OA_V_USED:
		*cls[act - OA_V_CONF] = 1;
		break;
	case OA_VV_CONF:
	case OA_VV_STAT:
	case OA_VV_TIME:
	case OA_VV_USED:
		*cls[act - OA_VV_CONF] = 2;
		break;
	default:
		break;
	}
}

static void plan_init(struct plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->mode = RUN_SERVER;
	plan->listen_port = DEFAULT_LISTEN_PORT;
	plan->wait_server = DEFAULT_WAIT;
	plan->server_timeout = DEFAULT_WAIT;
	plan->lim.max_per_client = DEFAULT_MAX_PER_CLIENT;
	plan->lim.max_time = DEFAULT_MAX_TIME;
	plan->lim.max_msgs = DEFAULT_MAX_MSGS;
	plan->lim.max_setup = DEFAULT_MAX_SETUP;
	plan->checks.tolerance = TOLERANCE_DEFAULT;
}

void plan_warn(struct plan *plan, const char *fmt, ...)
{
	va_list ap;

	if (plan->nwarn >= WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(plan->warn[plan->nwarn++], sizeof(plan->warn[0]), fmt, ap);
	va_end(ap);
}

void plan_free(struct plan *plan)
{
	free(plan->tests);
	plan->tests = NULL;
	plan->ntests = 0;
}

static int plan_add(struct plan *plan, const struct test_desc *t,
		    const struct settings *s, char *err, size_t errlen)
{
	struct plan_item *n;

	if (param_check_test(t, s, err, errlen) < 0)
		return -1;
	n = realloc(plan->tests, (plan->ntests + 1) * sizeof(*n));
	if (!n)
		return opts_fail(err, errlen, t->name, NULL, "out of memory");
	plan->tests = n;
	n[plan->ntests].test = t;
	n[plan->ntests].s = *s;
	plan->ntests++;
	return 0;
}

/* The server's own options (struct server_limits). */
static int apply_server_opt(struct plan *plan, const struct opt_desc *o,
			    const char *spelling, const char *v, char *err,
			    size_t errlen)
{
	struct server_limits *l = &plan->lim;
	char inner[200];
	uint64_t x = 0;

	if (!l->first_opt)
		l->first_opt = o->name;
	switch (o->act) {
	case OA_LISTEN_HOST:
		if (!*v)
			return opts_fail(err, errlen, spelling, NULL,
				    "empty address");
		l->listen_host = v;
		return 0;
	case OA_ALLOW:
		if (acl_add(&l->allow, v, inner, sizeof(inner)) < 0)
			return opts_fail(err, errlen, spelling, v, "%s", inner);
		return 0;
	case OA_NO_QUIT:
		l->no_quit = true;
		return 0;
	case OA_LOW_PORTS:
		l->low_ports = true;
		return 0;
	case OA_MAX_MEMORY:
		if (parse_size_max(spelling, v, MEMORY_MAX, &x, err, errlen) ||
		    check_range(o, spelling, v, x, err, errlen))
			return -1;
		l->max_memory = x;
		return 0;
	default:
		break;
	}
	if (parse_value(o, spelling, v, &x, err, errlen))
		return -1;
	if (o->act == OA_MAX_PER_CLIENT)
		l->max_per_client = (uint32_t)x;
	else if (o->act == OA_MAX_TIME)
		l->max_time = x;
	else if (o->act == OA_MAX_MSGS)
		l->max_msgs = x;
	else
		l->max_setup = x;
	return 0;
}

/* The options that act on the plan, output or loops rather than a par. */
static int apply_plan_opt(struct plan *plan, struct settings *s,
			  const struct opt_desc *o, const char *spelling,
			  const char *v, char *err, size_t errlen)
{
	uint64_t x = 0;

	switch (o->act) {
	case OA_HOST:
		plan->host = v;
		return 0;
	case OA_PORT_FILE:
	case OA_PLOT:
	case OA_SECRET_FILE:
		if (!*v)
			return opts_fail(err, errlen, spelling, NULL,
				    "empty file name");
		if (o->act == OA_PLOT)
			plan->plot_file = v;
		else if (o->act == OA_SECRET_FILE)
			plan->secret_file = v;
		else
			plan->port_file = v;
		return 0;
	case OA_LOOP:
		if (s->nloops >= LOOP_MAX)
			return opts_fail(err, errlen, spelling, v,
				    "too many loops; at most %d", LOOP_MAX);
		if (opts_parse_loop(spelling, v, s, &s->loops[s->nloops],
				    err, errlen))
			return -1;
		s->nloops++;
		return 0;
	case OA_INTERVAL:
		if (parse_value(o, spelling, v, &x, err, errlen))
			return -1;
		if (x < IVAL_MIN)
			return opts_fail(err, errlen, spelling, v,
				    "must be at least 0.1 seconds");
		s->interval = x;
		s->interval_opt = spelling;
		return 0;
	case OA_ARRIVALS: {
		int a = ol_arrivals_parse(v);

		if (a < 0)
			return opts_fail(err, errlen, spelling, v,
				    "bad arrivals; use constant or poisson");
		s->arrivals = (uint32_t)a;
		s->arrivals_opt = spelling;
		return 0;
	}
	case OA_LISTEN_PORT:
		if (parse_value(o, spelling, v, &x, err, errlen))
			return -1;
		plan->listen_port = (uint16_t)x;
		plan->cluster.port_base = (uint32_t)x;
		return 0;
	case OA_WAIT_SERVER:
		if (parse_value(o, spelling, v, &x, err, errlen))
			return -1;
		plan->wait_server = x;
		plan->cluster.join_window = x;
		return 0;
	case OA_CLUSTER: {
		char inner[200];

		if (sched_parse(v, &plan->cluster.pattern, inner,
				sizeof(inner)) < 0)
			return opts_fail(err, errlen, spelling, v, "%s", inner);
		plan->mode = RUN_CLUSTER;
		return 0;
	}
	case OA_RENDEZVOUS:
		if (!*v)
			return opts_fail(err, errlen, spelling, NULL,
					 "empty address");
		plan->cluster.rendezvous = v;
		return 0;
	case OA_LOAD:
	case OA_LOAD_DIR:
	case OA_LOAD_RATE:
	case OA_NO_IDLE:
		return load_opt(plan, o->act, spelling, v, err, errlen);
	case OA_CLIENTS:
		if (parse_value(o, spelling, v, &x, err, errlen))
			return -1;
		plan->clients = (uint32_t)x;
		return 0;
	case OA_SEED:
		if (parse_value(o, spelling, v, &x, err, errlen))
			return -1;
		plan->cluster.seed = x;
		plan->cluster.seed_set = true;
		return 0;
	case OA_SERVER_TIMEOUT:
		if (opts_apply(s, o, spelling, v, err, errlen))
			return -1;
		plan->server_timeout = s->par.val[SIDE_LOC][PAR_TIMEOUT];
		return 0;
	case OA_LISTEN_HOST:
	case OA_ALLOW:
	case OA_NO_QUIT:
	case OA_LOW_PORTS:
	case OA_MAX_PER_CLIENT:
	case OA_MAX_TIME:
	case OA_MAX_MSGS:
	case OA_MAX_MEMORY:
	case OA_MAX_SETUP:
		return apply_server_opt(plan, o, spelling, v, err, errlen);
	case OA_DEBUG:
		plan->debug = true;
		s->out.debug = true;
		return 0;
	case OA_UNIFY_NODES:
		s->out.unify_nodes = true;
		return 0;
	case OA_UNIFY_UNITS:
		s->out.unify_units = true;
		return 0;
	case OA_BITS:
		s->out.bits = true;
		return 0;
	case OA_V_EXTRA:
		s->out.v_extra = 1;
		return 0;
	case OA_EXPORTER:
	case OA_EXPORTER_ALLOW:
		if (!*v)
			return opts_fail(err, errlen, spelling, NULL,
					 "empty value");
		if (o->act == OA_EXPORTER)
			plan->exporter.listen = v;
		else
			plan->exporter.allow = v;
		if (o->act != OA_EXPORTER && !plan->exporter.first_opt)
			plan->exporter.first_opt = o->name;
		return 0;
	case OA_EXPORTER_MAX:
		if (parse_value(o, spelling, v, &x, err, errlen))
			return -1;
		plan->exporter.max = (uint32_t)x;
		if (!plan->exporter.first_opt)
			plan->exporter.first_opt = o->name;
		return 0;
	case OA_EXPECT:
	case OA_BASELINE:
	case OA_TOLERANCE:
	case OA_COMPARE:
		return checks_opt(plan, o, spelling, v, err, errlen);
	case OA_JSON:
	case OA_JSON_STREAM: {
		enum json_mode m = o->act == OA_JSON ? JSON_DOC : JSON_STREAM;

		if (plan->json != JSON_OFF && plan->json != m)
			return opts_fail(err, errlen, spelling, NULL,
				    "cannot be used with %s; choose one",
				    m == JSON_DOC ? "--json_stream" : "--json");
		plan->json = m;
		return 0;
	}
	default:
		apply_verbose(&s->out, o->act);
		return 0;
	}
}

/* A non-option argument: the host, then tests. */
static int parse_word(struct plan *plan, const struct settings *s,
		      const char *w, char *err, size_t errlen)
{
	const struct test_desc *t;

	if (plan->mode == RUN_COMPARE)
		return checks_word(plan, w, err, errlen);
	if (!plan->host && plan->mode != RUN_CLUSTER) {
		plan->host = w;
		return 0;
	}
	t = test_find(w);
	if (!t && plan->mode == RUN_CLUSTER)
		return opts_fail(err, errlen, w, NULL,
				 "bad test (--cluster takes the place of the host); try: qperf --help tests");
	if (!t)
		return opts_fail(err, errlen, w, NULL,
			    "bad test; try: qperf --help tests");
	return plan_add(plan, t, s, err, errlen);
}

/* Cluster mode: tests only, no host, no conf or quit. */
static int cluster_check(struct plan *plan, char *err, size_t errlen)
{
	if (plan->host)
		return opts_fail(err, errlen, "--cluster", NULL,
				 "takes the place of the host; \"%.60s\" is not a test",
				 plan->host);
	if (!plan->ntests)
		return opts_fail(err, errlen, "--cluster", NULL,
				 "must specify a test type; try: qperf --help tests");
	for (size_t i = 0; i < plan->ntests; i++) {
		const struct plan_item *it = &plan->tests[i];

		if (!it->test->tp)
			return opts_fail(err, errlen, it->test->name, NULL,
					 "does not run in cluster mode");
		if (it->s.interval && !ival_applies(it->test, false))
			plan_warn(plan,
				  "%s set but not used in test %s (interval reports are for bandwidth tests)",
				  it->s.interval_opt ? it->s.interval_opt : "-I",
				  it->test->name);
	}
	if (!plan->cluster.join_window)
		plan->cluster.join_window = CLUSTER_JOIN_NS;
	if (!plan->cluster.seed_set)
		plan->cluster.seed = now_ns() % 1000000;
	return 0;
}

/* The exporter runs no test itself: no host, tests or client options. */
static int exporter_check(struct plan *plan, bool client, char *err,
			  size_t errlen)
{
	if (plan->host || plan->ntests || client)
		return opts_fail(err, errlen, "--exporter", NULL,
				 "runs no test itself; give no host, test or client option (probes name them: /probe?target=HOST&test=TEST)");
	if (plan->lim.first_opt)
		plan_warn(plan, "%s set but not used by the exporter",
			  plan->lim.first_opt);
	plan->mode = RUN_EXPORTER;
	return 0;
}

/* Is --rate given (or looped over) in these settings? */
static bool rate_set(const struct settings *s)
{
	for (int side = SIDE_LOC; side <= SIDE_REM; side++)
		if (s->par.set[side][PAR_RATE] || s->par.set[side][PAR_MSG_RATE])
			return true;
	for (int i = 0; i < s->nloops; i++)
		if (s->loops[i].opt->par == PAR_RATE ||
		    s->loops[i].opt->par == PAR_MSG_RATE)
			return true;
	return false;
}

/*
 * Open-loop latency (--rate on a latency test): --arrivals needs --rate,
 * and a latency test that cannot run open loop yet refuses --rate.
 */
static int openloop_check(struct plan *plan, char *err, size_t errlen)
{
	for (size_t i = 0; i < plan->ntests; i++) {
		const struct plan_item *it = &plan->tests[i];
		const struct test_desc *t = it->test;
		bool lat = t->measure == MEAS_LATENCY;

		if (it->s.arrivals == OL_POISSON && !rate_set(&it->s))
			return opts_fail(err, errlen, it->s.arrivals_opt,
				    ol_arrivals_name(it->s.arrivals),
				    "needs --rate (the rate of requests of an open-loop latency test)");
		if (it->s.arrivals && !rate_set(&it->s)) {
			plan_warn(plan, "%s set but not used in test %s (it needs --rate)",
				  it->s.arrivals_opt, t->name);
			continue;
		}
		if (lat && rate_set(&it->s) &&
		    !(t->uses & PAR_BIT(PAR_MSG_RATE)))
			return opts_fail(err, errlen, t->name, NULL,
				    "--rate: open-loop latency is not implemented for this test (ping-pong latency tests only: tcp_lat, udp_lat, sctp_lat, sdp_lat, rds_lat, rs_lat, rc_lat, uc_lat, ud_lat, xrc_lat, rc_rdma_write_lat, uc_rdma_write_lat; and rc_rdma_read_lat)");
		if (it->s.arrivals && !lat)
			plan_warn(plan, "%s set but not used in test %s (open-loop latency is for latency tests)",
				  it->s.arrivals_opt, t->name);
	}
	return 0;
}

/* Client or server, and the errors of spec §1.1. */
static int decide_mode(struct plan *plan, bool client, char *err,
		       size_t errlen)
{
	int rc;

	if (plan->exporter.listen)
		return exporter_check(plan, client, err, errlen);
	if (plan->exporter.first_opt)
		return opts_fail(err, errlen, plan->exporter.first_opt, NULL,
				 "needs --exporter [ADDR]:PORT");
	rc = checks_plan(plan, err, errlen);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (param_forever_check(plan, err, errlen) < 0)
		return -1;
	if (clients_check(plan, err, errlen) < 0)
		return -1;
	if (load_check(plan, err, errlen) < 0)
		return -1;
	regmr_plan_check(plan);
	if (plan->mode == RUN_CLUSTER)
		return cluster_check(plan, err, errlen);
	if (!client && !plan->host) {
		plan->mode = RUN_SERVER;
		return 0;
	}
	plan->mode = RUN_CLIENT;
	if (!plan->host) {
		snprintf(err, errlen,
			 "you used a client-only option but did not specify "
			 "the server name.\nDo you want to be a client or "
			 "server?");
		return -1;
	}
	if (!plan->ntests) {
		if (test_find(plan->host))
			snprintf(err, errlen, "must specify host name first; "
					      "try: qperf --help");
		else
			snprintf(err, errlen, "must specify a test type; "
					      "try: qperf --help");
		return -1;
	}
	if (openloop_check(plan, err, errlen) < 0)
		return -1;
	for (size_t i = 0; plan->plot_file && i < plan->ntests; i++)
		if (plot_check(plan->tests[i].test, plan->tests[i].s.nloops, err,
			       errlen) < 0)
			return -1;
	if (plan->listen_port == 0)
		return opts_fail(err, errlen, "-lp", "0", "a client needs a port "
						     "between 1 and 65535");
	if (plan->port_file)
		plan_warn(plan, "%s set but not used by a client",
			  "--listen_port_file");
	if (plan->lim.first_opt)
		plan_warn(plan, "%s set but not used by a client",
			  plan->lim.first_opt);
	if (plan->cluster.rendezvous || plan->cluster.seed_set)
		plan_warn(plan, "%s set but not used without --cluster",
			  plan->cluster.rendezvous ? "--rendezvous" : "--seed");
	return 0;
}

static int parse_args(int argc, char **argv, struct plan *plan,
		      struct settings *s, char *err, size_t errlen)
{
	bool client = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		const struct opt_desc *o, *typed;

		if (a[0] != '-') {
			if (parse_word(plan, s, a, err, errlen))
				return -1;
			continue;
		}
		typed = opt_lookup(a, true);
		if (!typed)
			return opts_fail(err, errlen, a, NULL,
				    "bad option; try: qperf --help options");
		o = opt_resolve(typed);
		/* 0.4.11's --rate was an obsolete spelling of --static_rate:
		 * with one of its rate names (no unit) it still is. */
		if (o->type == OT_RATE && i + 1 < argc &&
		    static_rate_name(argv[i + 1])) {
			struct clip c;

			o = opt_lookup("--static_rate", true);
			plan_warn(plan, "obsolete option: %s; use %s instead",
				  clip(&c, a), o->name);
		}
		if (o != typed && typed->type != OT_RATE) {
			struct clip c;

			plan_warn(plan, "obsolete option: %s; use %s instead",
				  clip(&c, a), typed->obsolete_for);
		}
		if (o->act == OA_HELP || o->act == OA_COMPLETION) {
			plan->mode = o->act == OA_HELP ? RUN_HELP : RUN_COMPLETION;
			plan->help_topic = o->act == OA_HELP ? "main" : "";
			if (i + 1 < argc && argv[i + 1][0] != '-')
				plan->help_topic = argv[i + 1];
			return 1;
		}
		if (o->act == OA_VERSION) {
			plan->mode = RUN_VERSION;
			return 1;
		}
		if (!o->server_ok)
			client = true;
		if (opt_takes_value(o)) {
			if (i + 1 >= argc) {
				struct clip c;

				snprintf(err, errlen, "missing argument to %s",
					 clip(&c, a));
				return -1;
			}
			v = argv[++i];
		}
		if (o->act >= OA_HUGEPAGES && o->act <= OA_ODP) {
			bool used = false;

			if (regmr_opt(s, o, a, v, i + 1 < argc && plan->host
							  ? argv[i + 1]
							  : NULL,
				      &used, err, errlen))
				return -1;
			i += used;
		} else if (o->type == OT_SET1) {
			set_par(&s->par, o, a, 1, NULL);
		} else if ((o->par >= 0 && o->act == OA_NONE) ||
			   o->act == OA_PRECISION) {
			if (opts_apply(s, o, a, v, err, errlen))
				return -1;
		} else if (apply_plan_opt(plan, s, o, a, v, err, errlen)) {
			return -1;
		}
	}
	return decide_mode(plan, client, err, errlen);
}

int opts_parse(int argc, char **argv, struct plan *plan, char *err,
	       size_t errlen)
{
	struct settings s;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	plan_init(plan);
	plan->argc = argc;
	plan->argv = argv;
	settings_init(&s);
	rc = parse_args(argc, argv, plan, &s, err, errlen);
	if (rc < 0) {
		plan_free(plan);
		return -1;
	}
	return 0;
}
