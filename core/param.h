/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parameter values: the parsers of sizes, times and counts, the per-test
 * defaults and checks (the largest message a test carries), the values of
 * --loop iterations, and the parameter table (param_table[]: one row per
 * parameter).  No I/O.
 */
#ifndef QPERF_PARAM_H
#define QPERF_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opt_err.h"
#include "plan.h"

/*
 * The value the variable of s's loop i has in s (an iteration's settings):
 * bytes, a count, or nanoseconds for a time.
 */
uint64_t loop_value(const struct settings *s, int i);

/* s's loops as the outputs see them into out[0..s->nloops); the count. */
int loop_vals(const struct settings *s, struct loop_val out[LOOP_MAX]);

/* Parsers, exported for unit tests.  Return 0, or -1 with err filled. */
int parse_size(const char *opt, const char *v, uint64_t *out, char *err,
	       size_t errlen);
int parse_time(const char *opt, const char *v, uint64_t *ns, char *err,
	       size_t errlen);
int parse_int(const char *opt, const char *v, uint64_t *out, char *err,
	      size_t errlen);
/*
 * A --rate: a bandwidth, a number with an optional decimal prefix (k, K,
 * M, G, T) and b (bits/s) or B (bytes/s), "/s" or "ps" optional
 * ("10Gb", "1.25GB", "200Mbps"), into bytes/s with *msgs false; or a
 * message rate, a number with an optional prefix and "/s" ("2M/s"), into
 * messages/s with *msgs true.  At least 1, at most RATE_MAX.
 */
int parse_rate(const char *opt, const char *v, uint64_t *out, bool *msgs,
	       char *err, size_t errlen);
/* parse_size() with a larger limit (at most UINT64_MAX / 2). */
int parse_size_max(const char *opt, const char *v, uint64_t max,
		   uint64_t *out, char *err, size_t errlen);

/*
 * Checks of a test's settings that need the test (spec §4.7 runs them
 * per test): a message larger than the test's transport can carry (a UDP
 * datagram: 65,507 bytes), for the value set and for every value a
 * --loop over msg_size reaches.  Returns 0 or -1 with err filled
 * ("-m: 70000: ...").
 */
/*
 * What a server must announce to run --qps above one as p asks it for
 * test t: CAP_STORM on a connection-setup test (rc_conn, rc_qp_setup),
 * else CAP_QPS, and CAP_QPS2 too on a test flagged TDF_QPS2 or with
 * --cq_moderation above one on either end; what it does then, for the
 * client's refusal ("runs several QPs in one test", "runs xrc_bw over
 * several QPs", "runs several QPs with -cqm", "sets up a storm of QPs at
 * once"), into what (len bytes).
 */
uint32_t param_qps_cap(const struct test_desc *t, const struct par_set *p,
		       char *what, size_t len);
int param_check_test(const struct test_desc *t, const struct settings *s,
		     char *err, size_t errlen);

/* The QPs (--qps) test t spreads over its threads: 1 when none. */
uint64_t param_spread_n(const struct test_desc *t, const struct par_set *p);

/* The largest message test t can carry, or 0 for no limit. */
uint64_t param_msg_max(const struct test_desc *t);
/*
 * The same rule for a message size about to be used (the client's own
 * side before it connects, either side's session before it opens): 0, or
 * -1 with err "message size N is larger than LABEL can carry (MAX)".
 */
int param_msg_check(const struct test_desc *t, uint64_t size, char *err,
		    size_t errlen);

/*
 * The parameter table: one row (struct par_row, lib/types.h) for every
 * enum par_id, in 0.4.11's show_used order.  A row gives the name and
 * kind -vu and JSON show, how the parameter travels (a u32 field of
 * 0.4.11's 200-byte request; a verbs knob, item REQX_VK_BASE + (par -
 * PAR_VK_FIRST) of the 0.5 request block, sent only when given and used;
 * or by its own code) and the struct tparams field it fills.  The
 * client's fill_side(), the session's session_params(), the -vu lines
 * (output/report.c) and JSON's params (output/json.c) are loops over it;
 * the outputs get it through struct par_set (param_prepare() names it).
 *
 * What is not a plain copy is by hand in one pair of functions,
 * core/client.c fill_own() and core/session.c session_own(), each row
 * saying so (PW_OWN, fill_own): time and timeout (whole seconds in
 * 0.4.11's fields, ns in the block), use_cm (0 for an RDMA test that
 * cannot use the CM), id and static_rate (strings), gid_index and streams
 * with the -ca list (their own items, 0.5 peers only), and whether the
 * MTU was given.  Defaults are param_prepare()'s; ranges are the options'
 * (opt_max()).  param_count == PAR_COUNT.
 */
extern const struct par_row param_table[];
extern const size_t param_count;

/*
 * Per-test preparation (spec §4.7): mark the parameters the test uses,
 * fill test defaults (time 2 s unless -n, timeout 5 s, msg_size,
 * streams 1, the RDMA MTU) without marking them user-set, and name the
 * parameter table in p (p->rows) for the outputs.
 */
void param_prepare(const struct test_desc *t, struct par_set *p);

/*
 * Does test t with parameters p run until interrupted: a data test given
 * -t 0 (this side's time set to 0) without -n?
 */
bool param_forever(const struct test_desc *t, const struct par_set *p);

/* Does any test of plan run until interrupted? */
bool param_plan_forever(const struct plan *plan);

/*
 * A plan's rules for -t 0 (run until interrupted): one test without
 * --loop, no --cluster, and no -I into a --json document (which would
 * keep every interval).  Returns 0, or -1 with err filled (a usage
 * error).  -t 0 with -n is a count test, as -n alone.
 */
int param_forever_check(const struct plan *plan, char *err, size_t errlen);

/*
 * Write into buf one "<opt> set but not used in test <name>" line per
 * user-set, unused parameter, in enum par_id order (0.4.11's), separated by
 * '\n'.  Returns the number of warnings.
 */
int param_unused(const struct test_desc *t, const struct par_set *p,
		 char *buf, size_t buflen);

#endif
