// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-test parameter preparation and the "set but not used" warnings
 * (spec §1.3, §4.7).  Pure functions of the test and the parameter set.
 *
 * Unlike 0.4.11, the "used" marks are reset for every test: 0.4.11 kept
 * them for the whole process, so a later test could miss warnings
 * (spec §7.16).
 */
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "../transports/transport.h"

#define DEFAULT_TIME (2 * NS_PER_SEC)
#define DEFAULT_TIMEOUT (5 * NS_PER_SEC)
#define DEFAULT_RDMA_MTU 2048

/* Give one side's parameter its default unless the user set it. */
static void dflt(struct par_set *p, int side, enum par_id id, uint64_t v)
{
	if (!p->set[side][id])
		p->val[side][id] = v;
}

void param_prepare(const struct test_desc *t, struct par_set *p)
{
	memset(p->used, 0, sizeof(p->used));
	for (int i = 0; i < PAR_COUNT; i++)
		p->used[i] = (t->uses & PAR_BIT(i)) != 0;

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
		dflt(p, side, PAR_MTU_SIZE,
		     t->kind == TK_RDMA ? DEFAULT_RDMA_MTU : 0);
	}
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
