// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parameter values: the size, time and integer parsers (spec §4.1), the
 * per-test defaults and the "set but not used" warnings (spec §1.3,
 * §4.7).  Pure functions; nothing here prints.
 *
 * The parsers reject rather than wrap: every value must fit the 32-bit
 * field that carries it in 0.4.11's request (times in whole seconds).
 *
 * Unlike 0.4.11, the "used" marks are reset for every test: 0.4.11 kept
 * them for the whole process, so a later test could miss warnings
 * (spec §7.16).
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt_table.h"
#include "param.h"
#include "lib/err.h"
#include "transports/transport.h"
#include "ctl.h"
#include "lib/alloc.h"
#include "lib/numa.h"

#define U32 ((uint64_t)UINT32_MAX)

/*
 * strtold with the checks 0.4.11 lacked: a number must start the string
 * (no blanks, no inf/nan) and be finite.  *end is left after the number.
 * Returns 0, 1 if the number is negative, -1 if there is none.
 */
static int scan_number(const char *v, long double *x, const char **end)
{
	char *e;

	if (!strchr("+-.0123456789", v[0]) || v[0] == '\0')
		return -1;
	*x = strtold(v, &e);
	if (e == v || !isfinite(*x))
		return -1;
	*end = e;
	return (signbit(*x) || v[0] == '-') ? 1 : 0;
}

/* Size units (spec §4.1, plus KiB/MiB/GiB); case-sensitive like 0.4.11. */
static const struct {
	const char *sfx;
	uint64_t mult;
} size_units[] = {
	{ "", 1 },
	{ "k", 1000 },
	{ "kb", 1000 },
	{ "m", 1000000 },
	{ "mb", 1000000 },
	{ "g", 1000000000 },
	{ "gb", 1000000000 },
	{ "K", 1ULL << 10 },
	{ "kib", 1ULL << 10 },
	{ "KiB", 1ULL << 10 },
	{ "M", 1ULL << 20 },
	{ "mib", 1ULL << 20 },
	{ "MiB", 1ULL << 20 },
	{ "G", 1ULL << 30 },
	{ "gib", 1ULL << 30 },
	{ "GiB", 1ULL << 30 },
};

int parse_size(const char *opt, const char *v, uint64_t *out, char *err,
	       size_t errlen)
{
	return parse_size_max(opt, v, U32, out, err, errlen);
}

int parse_size_max(const char *opt, const char *v, uint64_t max,
		   uint64_t *out, char *err, size_t errlen)
{
	const char *end = NULL;
	long double x, up;
	uint64_t mult = 0;
	int neg;

	neg = scan_number(v, &x, &end);
	if (neg >= 0) {
		for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]);
		     i++)
			if (strcmp(end, size_units[i].sfx) == 0)
				mult = size_units[i].mult;
	}
	if (neg < 0 || !mult)
		return opts_fail(err, errlen, opt, v,
			    "bad size; use a number with an optional unit "
			    "k, kb, K, KiB, m, M, MiB, g, G or GiB");
	if (neg)
		return opts_fail(err, errlen, opt, v, "must not be negative");
	x *= mult;
	/*
	 * Decimal fractions are inexact in binary: 1.001k must be 1001, not
	 * 1000.  Snap values a hair below an integer up before truncating
	 * (0.4.11 truncates, so 3.99 stays 3).
	 */
	if (x >= (long double)max + 1)
		return opts_fail(err, errlen, opt, v,
			    "too large; must be at most %" PRIu64, max);
	/* By hand rather than ceill(): no libm for one call. */
	up = (long double)(uint64_t)x;
	if (up < x)
		up += 1;
	if (up - x < x * 1e-12L && up <= (long double)max)
		x = up;
	*out = (uint64_t)x;
	return 0;
}

/* Decimal prefixes of a rate (rates are decimal: 1 Gb/s is 10^9 bits/s). */
static uint64_t rate_prefix(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 1000;
	case 'M':
		return 1000000;
	case 'G':
		return 1000000000;
	case 'T':
		return 1000000000000ULL;
	default:
		return 0;
	}
}

#define RATE_HINT \
	"bad rate; use a bandwidth such as 10Gb (bits/s) or 1.25GB " \
	"(bytes/s), or a message rate such as 2M/s"

int parse_rate(const char *opt, const char *v, uint64_t *out, bool *msgs,
	       char *err, size_t errlen)
{
	const char *end = NULL, *u;
	long double x;
	uint64_t mult = 1;
	int neg;

	neg = scan_number(v, &x, &end);
	if (neg < 0)
		return opts_fail(err, errlen, opt, v, RATE_HINT);
	if (neg)
		return opts_fail(err, errlen, opt, v, "must not be negative");
	if (x == 0)
		return opts_fail(err, errlen, opt, v,
			    "must be greater than 0 (leave --rate out for an unpaced test)");
	u = end;
	if (*u && rate_prefix(*u)) {
		mult = rate_prefix(*u);
		u++;
	}
	/* bits (b), bytes (B) or messages (nothing), then "/s" or "ps"
	 * (optional after a bandwidth) */
	if (*u == 'b' || *u == 'B') {
		*msgs = false;
		x = *u == 'b' ? x / 8 : x;
		u++;
		if (strcmp(u, "/s") == 0 || strcmp(u, "ps") == 0)
			u += 2;
	} else if (strcmp(u, "/s") == 0) {
		*msgs = true;
		u += 2;
	} else {
		return opts_fail(err, errlen, opt, v, RATE_HINT);
	}
	if (*u)
		return opts_fail(err, errlen, opt, v, RATE_HINT);
	x *= mult;
	if (x >= (long double)RATE_MAX + 1)
		return opts_fail(err, errlen, opt, v,
			    "too large; must be at most 10^15 %s/s",
			    *msgs ? "messages" : "bytes");
	if (x < 1)
		return opts_fail(err, errlen, opt, v,
			    "must be at least 1 %s/s (8b)",
			    *msgs ? "message" : "byte");
	*out = (uint64_t)(x + 0.5L);
	return 0;
}

int parse_time(const char *opt, const char *v, uint64_t *ns, char *err,
	       size_t errlen)
{
	static const char units[] = "sSmMhHdD";
	static const unsigned secs[] = { 1, 1, 60, 60, 3600, 3600, 86400, 86400 };
	const char *end = NULL, *u;
	long double x;
	unsigned mult = 0;
	int neg;

	neg = scan_number(v, &x, &end);
	if (neg >= 0) {
		if (*end == '\0')
			mult = 1;
		else if (end[1] == '\0' && (u = strchr(units, *end)))
			mult = secs[u - units];
	}
	if (neg < 0 || !mult)
		return opts_fail(err, errlen, opt, v,
			    "bad time; use seconds with an optional unit "
			    "s, m, h or d");
	if (neg)
		return opts_fail(err, errlen, opt, v, "must not be negative");
	x *= mult;
	if (x > (long double)U32)
		return opts_fail(err, errlen, opt, v,
			    "too large; must be at most %" PRIu64 " seconds",
			    U32);
	/* Nearest nanosecond: 0.01d is 864 s even though 0.01 is inexact. */
	*ns = (uint64_t)(x * NS_PER_SEC + 0.5L);
	return 0;
}

int parse_int(const char *opt, const char *v, uint64_t *out, char *err,
	      size_t errlen)
{
	const char *p = v;
	uint64_t x = 0;
	bool big = false;

	if (*p == '-' && p[1] >= '0' && p[1] <= '9')
		return opts_fail(err, errlen, opt, v, "must not be negative");
	if (*p == '+')
		p++;
	if (*p == '\0')
		return opts_fail(err, errlen, opt, v,
			    "bad number; use a decimal integer");
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return opts_fail(err, errlen, opt, v,
				    "bad number; use a decimal integer");
		if (x > U32)
			big = true; /* keep scanning for junk first */
		else
			x = x * 10 + (uint64_t)(*p - '0');
	}
	if (big || x > U32)
		return opts_fail(err, errlen, opt, v,
			    "too large; must be at most %" PRIu64, U32);
	*out = x;
	return 0;
}

#define DEFAULT_TIME (2 * NS_PER_SEC)
#define DEFAULT_TIMEOUT (5 * NS_PER_SEC)
#define DEFAULT_RDMA_MTU 2048

/* Give one side's parameter its default unless the user set it. */
static void dflt(struct par_set *p, int side, enum par_id id, uint64_t v)
{
	if (!p->set[side][id])
		p->val[side][id] = v;
}

uint64_t param_spread_n(const struct test_desc *t, const struct par_set *p)
{
	uint64_t q = p->val[SIDE_LOC][PAR_QPS], c = p->val[SIDE_LOC][PAR_CONNS];

	if ((t->uses & PAR_BIT(PAR_CONNS)) && c > 1)
		return c;
	return (t->uses & PAR_BIT(PAR_QPS)) && q > 1 ? q : 1;
}

/*
 * --threads on a test whose QPs are spread over threads: the client
 * decides one T for both ends.  Not given: one thread per CPU of the
 * test's NUMA node (the -ca CPU's, else --numa_node's, else node 0; the
 * machine's without NUMA).  Never more than the QPs, nor than -n, so
 * every thread has at least one QP and one message.  reg_mr keeps the
 * value given (default 1); every other test runs one thread.
 */
static void threads_pick(const struct test_desc *t, struct par_set *p)
{
	uint64_t n = param_spread_n(t, p), msgs = p->val[SIDE_LOC][PAR_NO_MSGS];
	uint64_t pn = p->val[SIDE_LOC][PAR_AFFINITY], v;
	int node = 0;

	if (!(t->uses & PAR_BIT(PAR_THREADS)))
		return;
	if (t->kind == TK_LOCAL)
		return; /* reg_mr: as given, default 1 */
	if (p->cpus[SIDE_LOC].n)
		pn = p->cpus[SIDE_LOC].pn[0];
	if (pn)
		node = qnuma_cpu_node((unsigned)(pn - 1));
	else if (p->set[SIDE_LOC][PAR_NUMA_NODE])
		node = (int)p->val[SIDE_LOC][PAR_NUMA_NODE];
	v = p->set[SIDE_LOC][PAR_THREADS] ? p->val[SIDE_LOC][PAR_THREADS]
					   : (uint64_t)cpu_node_count(node);
	if (!p->set[SIDE_LOC][PAR_THREADS] && p->val[SIDE_LOC][PAR_STREAMS] > 1)
		v = 1; /* --streams runs threads of its own */
	if (v > n)
		v = n;
	if (msgs && v > msgs)
		v = msgs;
	p->val[SIDE_LOC][PAR_THREADS] = p->val[SIDE_REM][PAR_THREADS] = v;
}

void param_prepare(const struct test_desc *t, struct par_set *p)
{
	bool cm = (t->uses & PAR_BIT(PAR_USE_CM)) && p->val[SIDE_LOC][PAR_USE_CM];

	p->rows = param_table;
	p->nrows = param_count;
	memset(p->used, 0, sizeof(p->used));
	for (int i = 0; i < PAR_COUNT; i++)
		p->used[i] = (t->uses & PAR_BIT(i)) != 0;
	/* --rate is in use only where given: unpaced tests keep their
	 * parameter list (and JSON params) as they were. */
	for (int i = PAR_RATE; i <= PAR_MSG_RATE; i++)
		p->used[i] = p->used[i] &&
			     (p->set[SIDE_LOC][i] || p->set[SIDE_REM][i]);
	/* Through RDMA CM (-cm1) the CM picks device, port, path and GID:
	 * as in 0.4.11 these options are then unused, and the MTU has no
	 * default (spec §4.7, §2.2). */
	if (cm) {
		static const enum par_id by_cm[] = {
			PAR_ID, PAR_MTU_SIZE, PAR_SL, PAR_STATIC_RATE,
			PAR_SRC_PATH_BITS, PAR_GID_INDEX
		};

		for (size_t i = 0; i < sizeof(by_cm) / sizeof(by_cm[0]); i++)
			p->used[by_cm[i]] = false;
	}

	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		/*
		 * -n alone means "count, not time": no time limit.  Values
		 * the user did not set are overwritten every time, so one
		 * test's default never leaks into the next.
		 */
		dflt(p, side, PAR_TIME,
		     p->set[side][PAR_NO_MSGS] ? 0 : DEFAULT_TIME);
		dflt(p, side, PAR_TIMEOUT, DEFAULT_TIMEOUT);
		dflt(p, side, PAR_MSG_SIZE, t->msg_size);
		dflt(p, side, PAR_STREAMS, 1);
		dflt(p, side, PAR_QPS, 1);
		dflt(p, side, PAR_THREADS, 1);
		dflt(p, side, PAR_CONNS, 1);
		dflt(p, side, PAR_MTU_SIZE,
		     (t->uses & PAR_BIT(PAR_MTU_SIZE)) && !cm ? DEFAULT_RDMA_MTU
							     : 0);
	}
	/* --threads spreads several QPs or connections (reg_mr's are its
	 * own): over one of each it is not in use, and given, warned of. */
	if (t->kind != TK_LOCAL && param_spread_n(t, p) < 2)
		p->used[PAR_THREADS] = false;
	threads_pick(t, p);
}

/* Append "<spelling> set but not used in test <name>", clamped. */
static size_t add_line(char *buf, size_t buflen, size_t off, int nth,
		       const char *spelling, const char *test)
{
	int n;

	if (off >= buflen)
		return off;
	n = snprintf(buf + off, buflen - off, "%s%s set but not used in test %s",
		     nth ? "\n" : "", spelling, test);
	if (n < 0)
		return off;
	/* snprintf reports what it wanted to write; clamp to what fit. */
	return (size_t)n >= buflen - off ? buflen - 1 : off + (size_t)n;
}

int param_unused(const struct test_desc *t, const struct par_set *p,
		 char *buf, size_t buflen)
{
	size_t off = 0;
	int count = 0;

	if (buf && buflen)
		buf[0] = '\0';
	for (int i = 0; i < PAR_COUNT; i++) {
		const char *l = p->spelling[SIDE_LOC][i];
		const char *r = p->spelling[SIDE_REM][i];

		if (p->used[i])
			continue;
		if (!p->set[SIDE_LOC][i])
			l = NULL;
		if (!p->set[SIDE_REM][i])
			r = NULL;
		/* One option that set both sides gives one line. */
		if (l && r && strcmp(l, r) == 0)
			r = NULL;
		for (int k = 0; k < 2; k++) {
			const char *sp = k ? r : l;

			if (!sp)
				continue;
			if (buf && buflen)
				off = add_line(buf, buflen, off, count, sp,
					       t->name);
			count++;
		}
	}
	return count;
}

uint64_t param_msg_max(const struct test_desc *t)
{
	return t->tp ? t->tp->max_msg : 0;
}

int param_msg_check(const struct test_desc *t, uint64_t size, char *err,
		    size_t errlen)
{
	uint64_t max = param_msg_max(t);

	if (!max || size <= max)
		return 0;
	return seterr(err, errlen,
		      "message size %" PRIu64 " is larger than %s can carry (%" PRIu64 ")",
		      size, t->tp->label, max);
}

/* A 0.4.11 u32 field: par, report name and kind, its struct req field,
 * then its struct tparams field (TPF) and flags. */
#define LEGACY(p, n, k, q, ...)                                           \
	{ .par = (p), .name = (n), .kind = (k), .wire = PW_LEGACY,         \
	  .req_off = offsetof(struct req, q), __VA_ARGS__ }
#define TPF(f) .tp_off = offsetof(struct tparams, f),                     \
	       .tp_size = sizeof(((struct tparams *)0)->f)
/* A verbs knob: par, report name and kind, its struct tparams field, and
 * its "set" flag if any. */
#define VKNOB(p, n, k, f, ...)                                            \
	{ .par = (p), .name = (n), .kind = (k), .wire = PW_VK, TPF(f),    \
	  __VA_ARGS__ }
/* Carried by its own code: core/client.c fill_own() puts it in the
 * request, core/session.c session_own() into struct tparams. */
#define OWN(p, n, k, ...)                                                 \
	{ .par = (p), .name = (n), .kind = (k), .wire = PW_OWN, __VA_ARGS__ }

/*
 * Every parameter, one row each, in 0.4.11's show_used order (the -vu
 * lines and JSON's params follow it); static_rate, which show_used
 * leaves out, is last.  Defaults: param_prepare() above.  A row's range
 * is its options' (core/opt_table.c, opt_max()).
 */
const struct par_row param_table[] = {
	LEGACY(PAR_ACCESS_RECV, "access_recv", RPK_COUNT, access_recv,
	       TPF(access_recv)),
	/* A -ca list travels with streams: fill_own(), session_own(). */
	LEGACY(PAR_AFFINITY, "affinity", RPK_COUNT, affinity, TPF(affinity)),
	LEGACY(PAR_ALT_PORT, "alt_port", RPK_COUNT, alt_port, TPF(alt_port)),
	/* The server's part: core/server.c. */
	LEGACY(PAR_FLIP, "flip", RPK_COUNT, flip),
	/* 0.4.11's id string. */
	OWN(PAR_ID, "id", RPK_STR),
	LEGACY(PAR_MSG_SIZE, "msg_size", RPK_SIZE, msg_size, TPF(msg_size)),
	/* Whether it was given (mtu_explicit): fill_own(), session_own(). */
	LEGACY(PAR_MTU_SIZE, "mtu_size", RPK_SIZE, mtu_size, TPF(mtu_size)),
	LEGACY(PAR_NO_MSGS, "no_msgs", RPK_COUNT, no_msgs, TPF(no_msgs)),
	LEGACY(PAR_POLL_MODE, "poll_mode", RPK_COUNT, poll_mode,
	       TPF(poll_mode)),
	LEGACY(PAR_PORT, "port", RPK_COUNT, port, TPF(port)),
	LEGACY(PAR_RD_ATOMIC, "rd_atomic", RPK_COUNT, rd_atomic,
	       TPF(rd_atomic)),
	LEGACY(PAR_SL, "service_level", RPK_COUNT, sl, TPF(sl)),
	LEGACY(PAR_SOCK_BUF_SIZE, "sock_buf_size", RPK_SIZE, sock_buf_size,
	       TPF(sock_buf_size)),
	LEGACY(PAR_SRC_PATH_BITS, "src_path_bits", RPK_SIZE /* sic, 0.4.11 */,
	       src_path_bits, TPF(src_path_bits), .json_count = true),
	/* Whole seconds in 0.4.11's field, ns in the block. */
	OWN(PAR_TIME, "time", RPK_TIME),
	OWN(PAR_TIMEOUT, "timeout", RPK_TIME),
	/* 0 for an RDMA test that cannot use the CM: fill_own(). */
	LEGACY(PAR_USE_CM, "use_cm", RPK_COUNT, use_cm, TPF(use_cm),
	       .fill_own = true),
	/* Its own item, only when given (0.5 peers). */
	OWN(PAR_GID_INDEX, "gid_index", RPK_COUNT),
	VKNOB(PAR_SQ_DEPTH, "sq_depth", RPK_COUNT, sq_depth),
	VKNOB(PAR_RQ_DEPTH, "rq_depth", RPK_COUNT, rq_depth),
	VKNOB(PAR_INLINE, "inline_size", RPK_SIZE, inline_size,
	      .tp_set_off = offsetof(struct tparams, inline_set)),
	VKNOB(PAR_CQ_MOD, "cq_moderation", RPK_COUNT, cq_mod),
	VKNOB(PAR_POST_LIST, "post_list", RPK_COUNT, post_list),
	VKNOB(PAR_USE_SRQ, "use_srq", RPK_COUNT, use_srq),
	VKNOB(PAR_TCLASS, "traffic_class", RPK_COUNT, tclass),
	VKNOB(PAR_PKEY_INDEX, "pkey_index", RPK_COUNT, pkey_index),
	VKNOB(PAR_NUMA_NODE, "numa_node", RPK_COUNT, numa_node,
	      .tp_set_off = offsetof(struct tparams, numa_set)),
	VKNOB(PAR_CQ_PER_QP, "cq_per_qp", RPK_COUNT, cq_per_qp),
	/* Its own item, with the -ca list (0.5 peers); -vu lists it only
	 * when more than one stream runs, keeping 0.4.11's list. */
	OWN(PAR_STREAMS, "streams", RPK_COUNT, .list_above_one = true),
	/* Its own item (REQX_QPS, 0.5 peers with CAP_QPS), only above one;
	 * -vu lists it only then. */
	OWN(PAR_QPS, "qps", RPK_COUNT, .list_above_one = true),
	/* Its own item (REQX_THREADS, 0.5 peers with CAP_THREADS) on a
	 * --qps test, only above one; reg_mr's never travels.  Resolved by
	 * param_prepare(); -vu lists it only above one. */
	OWN(PAR_THREADS, "threads", RPK_COUNT, .list_above_one = true),
	/* Its own item (REQX_CONNS, 0.5 peers with CAP_CONNS), only above
	 * one; -vu lists it only then. */
	OWN(PAR_CONNS, "conns", RPK_COUNT, .list_above_one = true),
	/* --rate: its own items (0.5 peers with CAP_RATE); bytes/s or
	 * msgs/s, used only when given (param_prepare()).  Not in -vu's
	 * list: the report's offered_rate says it. */
	OWN(PAR_RATE, "rate", RPK_COUNT, .unlisted = true),
	OWN(PAR_MSG_RATE, "msg_rate", RPK_COUNT, .unlisted = true),
	/* 0.4.11's static_rate string. */
	OWN(PAR_STATIC_RATE, "static_rate", RPK_STR, .unlisted = true),
};
_Static_assert(ARRAY_SIZE(param_table) == PAR_COUNT,
	       "one parameter-table row per enum par_id");
const size_t param_count = ARRAY_SIZE(param_table);

/* The largest value loop lp reaches (it never passes lp->last). */
static uint64_t loop_top(const struct loop *lp)
{
	uint64_t v = lp->init, next;

	if (!lp->mult)
		return lp->init + (lp->last - lp->init) / lp->incr * lp->incr;
	while (!__builtin_mul_overflow(v, lp->incr, &next) && next <= lp->last)
		v = next;
	return v;
}

/* Is the parameter par a --loop variable of s? */
static bool looped(const struct settings *s, enum par_id par)
{
	for (int i = 0; i < s->nloops; i++)
		if (s->loops[i].opt->par == (int)par)
			return true;
	return false;
}

/* Is it set on either side, or looped over? */
static bool given(const struct settings *s, enum par_id par)
{
	return looped(s, par) || s->par.set[SIDE_LOC][par] ||
	       s->par.set[SIDE_REM][par];
}

/*
 * --qps: only on a test whose loop posts over several QPs, and, above
 * one, not with -cm1 (a CM connection per QP); with --streams, at least
 * a QP per stream.
 */
/* "rc_bi_bw, rc_bw, ... and xrc_bw": the tests that take --qps, those
 * that run over several QPs (storm false) or set up a storm of them (the
 * connection-setup tests), in the table's order (0.4.11's). */
static const char *qps_tests(bool storm)
{
	static char list[2][320];
	char *l = list[storm];
	size_t len = 0, n = 0, k = 0;

	for (size_t i = 0; i < test_count; i++)
		n += (test_table[i].uses & PAR_BIT(PAR_QPS)) &&
		     (test_table[i].loop == LOOP_CONN) == storm;
	l[0] = 0;
	for (size_t i = 0; i < test_count && len < sizeof(list[0]); i++) {
		if (!(test_table[i].uses & PAR_BIT(PAR_QPS)) ||
		    (test_table[i].loop == LOOP_CONN) != storm)
			continue;
		k++;
		len += (size_t)snprintf(l + len, sizeof(list[0]) - len, "%s%s",
					k == 1 ? "" : k == n ? " and " : ", ",
					test_table[i].name);
	}
	return l;
}

static int qps_check(const struct test_desc *t, const struct settings *s,
		     char *err, size_t errlen)
{
	const struct par_set *p = &s->par;
	const char *o = p->spelling[SIDE_LOC][PAR_QPS];
	char v[24];

	if (!given(s, PAR_QPS))
		return 0;
	if (!o)
		o = "--qps";
	snprintf(v, sizeof(v), "%" PRIu64, p->val[SIDE_LOC][PAR_QPS]);
	if (!(t->uses & PAR_BIT(PAR_QPS)))
		return opts_fail(err, errlen, o, v,
				 "not for %s: only %s run over several QPs, and %s set up a storm of them",
				 t->name, qps_tests(false), qps_tests(true));
	if (p->val[SIDE_LOC][PAR_QPS] < 2 && !looped(s, PAR_QPS))
		return 0;
	for (int i = -1; t->tp && t->tp->storm_max && i < s->nloops; i++) {
		uint64_t n = i < 0 ? p->val[SIDE_LOC][PAR_QPS] :
			     s->loops[i].opt->par == PAR_QPS ?
				     loop_top(&s->loops[i]) : 0;

		if (n > t->tp->storm_max)
			return opts_fail(err, errlen, o, i < 0 ? v : NULL,
					 "above the %u QPs %s sets up at once (a storm)",
					 t->tp->storm_max, t->name);
	}
	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		if (p->val[side][PAR_USE_CM])
			return opts_fail(err, errlen, o, v,
					 "not with %s (RDMA CM would connect each QP on its own)",
					 p->spelling[side][PAR_USE_CM] ?
						 p->spelling[side][PAR_USE_CM] :
						 "-cm1");
	}
	/* --streams T: T threads, each holding its share of the QPs */
	if (p->val[SIDE_LOC][PAR_STREAMS] > p->val[SIDE_LOC][PAR_QPS])
		return opts_fail(err, errlen, o, v,
				 "fewer QPs than the %" PRIu64 " streams of %s; each stream holds at least one",
				 p->val[SIDE_LOC][PAR_STREAMS],
				 p->spelling[SIDE_LOC][PAR_STREAMS] ?
					 p->spelling[SIDE_LOC][PAR_STREAMS] :
					 "--streams");
	return 0;
}

uint32_t param_qps_cap(const struct test_desc *t, const struct par_set *p,
		       char *what, size_t len)
{
	if (t->loop == LOOP_CONN) {
		snprintf(what, len, "sets up a storm of QPs at once");
		return CAP_STORM;
	}
	for (int side = SIDE_LOC; side <= SIDE_REM; side++)
		if (p->set[side][PAR_CQ_MOD] && p->val[side][PAR_CQ_MOD] > 1 &&
		    (t->uses & PAR_BIT(PAR_CQ_MOD))) {
			snprintf(what, len, "runs several QPs with %s",
				 p->spelling[side][PAR_CQ_MOD] ?
					 p->spelling[side][PAR_CQ_MOD] :
					 "--cq_moderation");
			return CAP_QPS | CAP_QPS2;
		}
	if (t->flags & TDF_QPS2) {
		snprintf(what, len, "runs %s over several QPs", t->name);
		return CAP_QPS | CAP_QPS2;
	}
	snprintf(what, len, "runs several QPs in one test");
	return CAP_QPS;
}

/* --conns: tcp_bw and udp_bw only; not with --streams (one way to run
 * several connections at a time). */
static int conns_check(const struct test_desc *t, const struct settings *s,
		       char *err, size_t errlen)
{
	const struct par_set *p = &s->par;
	const char *o = p->spelling[SIDE_LOC][PAR_CONNS];
	char v[24];

	if (!given(s, PAR_CONNS))
		return 0;
	snprintf(v, sizeof(v), "%" PRIu64, p->val[SIDE_LOC][PAR_CONNS]);
	if (!o)
		o = "--conns";
	if (!(t->uses & PAR_BIT(PAR_CONNS)))
		return opts_fail(err, errlen, o, v,
				 "not for %s: only tcp_bw and udp_bw run over several connections",
				 t->name);
	if (given(s, PAR_STREAMS))
		return opts_fail(err, errlen, o, v,
				 "not with %s: give --threads to spread the connections over threads",
				 p->spelling[SIDE_LOC][PAR_STREAMS] ?
					 p->spelling[SIDE_LOC][PAR_STREAMS] :
					 "--streams");
	return 0;
}

/*
 * --threads over QPs: not with --streams (each is a way to run threads;
 * together they would have no clear meaning), nor with -I (interval
 * records carry one thread's figures): a default of several threads
 * there is refused too, with the way out.
 */
static int threads_check(const struct test_desc *t, const struct settings *s,
			 char *err, size_t errlen)
{
	const struct par_set *p = &s->par;
	const char *o = p->spelling[SIDE_LOC][PAR_THREADS];
	struct par_set *x;
	uint64_t v;
	char b[24];

	if (!(t->uses & PAR_BIT(PAR_THREADS)) || t->kind == TK_LOCAL)
		return 0;
	snprintf(b, sizeof(b), "%" PRIu64, p->val[SIDE_LOC][PAR_THREADS]);
	if (given(s, PAR_THREADS) && given(s, PAR_STREAMS))
		return opts_fail(err, errlen, o ? o : "--threads", b,
				 "not with %s: give one of them (--threads spreads the QPs of one test over threads, --streams runs separate streams)",
				 p->spelling[SIDE_LOC][PAR_STREAMS] ?
					 p->spelling[SIDE_LOC][PAR_STREAMS] :
					 "--streams");
	if (!s->interval)
		return 0;
	x = xmalloc(sizeof(*x));
	*x = *p;
	param_prepare(t, x);
	v = x->val[SIDE_LOC][PAR_THREADS];
	free(x);
	if (v < 2 && !looped(s, PAR_THREADS))
		return 0;
	return opts_fail(err, errlen, s->interval_opt ? s->interval_opt : "-I",
			 NULL,
			 "interval reports are not available with %" PRIu64 " threads in test %s%s; give --threads 1",
			 v, t->name,
			 p->set[SIDE_LOC][PAR_THREADS] ? "" :
			 " (the default: one per CPU of the NUMA node)");
}

int param_check_test(const struct test_desc *t, const struct settings *s,
		     char *err, size_t errlen)
{
	uint64_t max = param_msg_max(t);
	const char *unit;
	const struct par_set *p = &s->par;

	if (qps_check(t, s, err, errlen) < 0 ||
	    conns_check(t, s, err, errlen) < 0 ||
	    threads_check(t, s, err, errlen) < 0)
		return -1;

	/* Interval records carry one stream's figures. */
	if (s->interval && (t->uses & PAR_BIT(PAR_STREAMS)) &&
	    (p->val[SIDE_LOC][PAR_STREAMS] > 1 || s->nloops))
		for (int i = -1; i < s->nloops; i++)
			if (i < 0 ? p->val[SIDE_LOC][PAR_STREAMS] > 1
				  : s->loops[i].opt->par == PAR_STREAMS)
				return opts_fail(err, errlen,
					    s->interval_opt ? s->interval_opt : "-I",
					    NULL,
					    "interval reports are not available with --streams in test %s",
					    t->name);
	/* What the transport's largest message is: tcp_conn's request. */
	unit = t->loop == LOOP_CONN ? "request" : "datagram";
	if (!max)
		return 0;
	for (int i = 0; i < s->nloops; i++) {
		const struct loop *lp = &s->loops[i];
		uint64_t top = loop_top(lp);

		if (lp->opt->par == PAR_MSG_SIZE && top > max)
			return opts_fail(err, errlen, "--loop", NULL,
				    "msg_size reaches %" PRIu64 ", larger than a %s %s can carry (%" PRIu64 " bytes)",
				    top, t->name, unit, max);
	}
	for (int side = SIDE_LOC; side <= SIDE_REM; side++) {
		char v[24];

		if (!p->set[side][PAR_MSG_SIZE] ||
		    p->val[side][PAR_MSG_SIZE] <= max)
			continue;
		snprintf(v, sizeof(v), "%" PRIu64, p->val[side][PAR_MSG_SIZE]);
		return opts_fail(err, errlen, p->spelling[side][PAR_MSG_SIZE],
			    v, "larger than a %s %s can carry (%" PRIu64 " bytes)",
			    t->name, unit, max);
	}
	return 0;
}

uint64_t loop_value(const struct settings *s, int i)
{
	const struct opt_desc *o = s->loops[i].opt;
	int side = (o->sides & (1u << SIDE_LOC)) ? SIDE_LOC : SIDE_REM;

	/* -e is the one loopable option that is not a parameter */
	if (o->par < 0)
		return (uint64_t)s->out.precision;
	if (o->type == OT_RATE && s->loops[i].msgs)
		return s->par.val[side][PAR_MSG_RATE];
	return s->par.val[side][o->par];
}

int loop_vals(const struct settings *s, struct loop_val out[LOOP_MAX])
{
	for (int i = 0; i < s->nloops; i++) {
		const struct loop *lp = &s->loops[i];

		out[i] = (struct loop_val){
			.key = lp->opt,
			.name = lp->opt->name + strspn(lp->opt->name, "-"),
			.unit = lp->opt->type == OT_TIME   ? LOOP_UNIT_TIME
				: lp->opt->type == OT_SIZE ? LOOP_UNIT_SIZE
				: lp->opt->type != OT_RATE ? LOOP_UNIT_COUNT
				: lp->msgs		   ? LOOP_UNIT_MSG_RATE
							   : LOOP_UNIT_BYTE_RATE,
			.value = loop_value(s, i),
			.incr = lp->incr,
			.mult = lp->mult,
		};
	}
	return s->nloops;
}

bool param_forever(const struct test_desc *t, const struct par_set *p)
{
	return (t->kind == TK_DATA || t->kind == TK_LOCAL) &&
	       p->set[SIDE_LOC][PAR_TIME] &&
	       p->val[SIDE_LOC][PAR_TIME] == 0 &&
	       !p->val[SIDE_LOC][PAR_NO_MSGS];
}

bool param_plan_forever(const struct plan *plan)
{
	for (size_t i = 0; i < plan->ntests; i++)
		if (param_forever(plan->tests[i].test, &plan->tests[i].s.par))
			return true;
	return false;
}

int param_forever_check(const struct plan *plan, char *err, size_t errlen)
{
	for (size_t i = 0; i < plan->ntests; i++) {
		const struct plan_item *it = &plan->tests[i];
		const char *o = it->s.par.spelling[SIDE_LOC][PAR_TIME];

		/* -t and -n set both ends: one end's values decide */
		if (!param_forever(it->test, &it->s.par))
			continue;
		if (plan->mode == RUN_CLUSTER)
			return opts_fail(err, errlen, o, "0",
					 "cannot run until interrupted in cluster mode; give a time");
		if (plan->ntests > 1 || it->s.nloops)
			return opts_fail(err, errlen, o, "0",
					 "runs one test until interrupted; name one test, without --loop");
		if (it->s.interval && plan->json == JSON_DOC)
			return opts_fail(err, errlen, o, "0",
					 "with -I and --json would keep every interval in one document; use --json_stream");
	}
	return 0;
}
