/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parameter values: the parsers of sizes, times and counts, the per-test
 * defaults and checks (the largest message a test carries), the values of
 * --loop iterations, and the table of the parameters a request carries
 * (param_table[]).  No I/O.
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
int param_check_test(const struct test_desc *t, const struct settings *s,
		     char *err, size_t errlen);

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
 * The parameters the request carries and the transport receives, one row
 * each: how it travels (a u32 field of 0.4.11's 200-byte request, or a
 * verbs knob item REQX_VK_BASE + (par - PAR_VK_FIRST) of the 0.5 request
 * block, sent only when given and used) and the struct tparams field it
 * fills.  The client's fill_side(), the request block's codec and the
 * session's session_params() are loops over it.  What is not a plain copy
 * stays by hand beside those loops: time and timeout (whole seconds in
 * 0.4.11's fields, ns in the block), use_cm (0 for an RDMA test that
 * cannot use the CM), id and static_rate (strings), gid_index, streams
 * and the -ca list (their own items, 0.5 peers only).
 */
enum par_wire {
	PW_LEGACY, /* a uint32_t of struct req (0.4.11's field) */
	PW_VK /* a verbs knob: vk[par - PAR_VK_FIRST] of struct req */
};

struct par_row {
	int par; /* enum par_id */
	enum par_wire wire;
	size_t req_off; /* PW_LEGACY: its uint32_t in struct req */
	bool fill_own; /* fill_side() sets it by a rule of its own */
	size_t tp_off, tp_size; /* its field of struct tparams (a uint32_t
				 * or uint64_t; tp_size 0: none) */
	size_t tp_set_off; /* PW_VK: a bool of struct tparams, true when
			    * the knob was given (0: none) */
};
extern const struct par_row param_table[];
extern const size_t param_count;

/*
 * Per-test preparation (spec §4.7): mark the parameters the test uses,
 * fill test defaults (time 2 s unless -n, timeout 5 s, msg_size) without
 * marking them user-set.
 */
void param_prepare(const struct test_desc *t, struct par_set *p);

/*
 * Write into buf one "<opt> set but not used in test <name>" line per
 * user-set, unused parameter, in parameter-table order, separated by
 * '\n'.  Returns the number of warnings.
 */
int param_unused(const struct test_desc *t, const struct par_set *p,
		 char *buf, size_t buflen);

#endif
