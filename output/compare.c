// SPDX-License-Identifier: GPL-2.0-only
/*
 * qperf --compare A.json B.json: one row per figure of each test both
 * files hold: test and loop values, figure, A, B, B/A, the noise band and
 * a "*" when the change leaves it.  The band is the larger of the
 * tolerance and the spread each file shows for that test: for a latency
 * (p90 - p50) / p50 of its distribution, for a bandwidth half the range
 * of its -I interval figures over their mean (when it has two or more
 * intervals); a message rate has only the tolerance.  B regresses when it
 * is worse than A by more than the band.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "compare.h"
#include "lib/err.h"
#include "lib/verdict.h"

#define ROW_TEST 96

struct row {
	char test[ROW_TEST];
	const char *fig;
	char a[24], b[24];
	double ratio, band;
	bool mark;
};

/* The spread entry e shows for figure f (a fraction), 0 if none. */
static double noise(json_t *e, enum vfig f)
{
	json_t *res = json_object_get(e, "results"), *iv;
	double lo = INFINITY, hi = 0, sum = 0;
	size_t i, n = 0;

	if (verdict_fig_kind(f) == VK_TIME) {
		json_t *l = json_object_get(res, "latency");
		double p50 = json_number_value(json_object_get(l, "p50_s"));
		double p90 = json_number_value(json_object_get(l, "p90_s"));

		return p50 > 0 && p90 > p50 ? (p90 - p50) / p50 : 0;
	}
	if (verdict_fig_kind(f) != VK_BAND)
		return 0;
	json_array_foreach(json_object_get(e, "intervals"), i, iv) {
		double bw = json_number_value(json_object_get(iv, "recv_bw_Bps"));

		if (json_is_true(json_object_get(iv, "last")) || !(bw > 0))
			continue;
		lo = bw < lo ? bw : lo;
		hi = bw > hi ? bw : hi;
		sum += bw;
		n++;
	}
	return n >= 2 ? (hi - lo) / 2 / (sum / n) : 0;
}

/* The rows of entry eb of B against ea of A; the regressions counted. */
static void rows_of(json_t *ea, json_t *eb, double tol, struct row *r,
		   int *nrows, int max, int *worse)
{
	const char *m = json_string_value(
		json_object_get(json_object_get(eb, "results"), "measure"));
	enum vfig f[2];
	int nf = baseline_figs(m, f);

	for (int i = 0; i < nf && *nrows < max; i++) {
		struct row *w = &r[*nrows];
		enum vkind k = verdict_fig_kind(f[i]);
		double a, b, na, nb;

		if (!baseline_value(ea, f[i], &a) ||
		    !baseline_value(eb, f[i], &b))
			continue;
		baseline_describe(eb, w->test, sizeof(w->test));
		w->fig = verdict_fig_name(f[i]);
		verdict_format(w->a, sizeof(w->a), k, a, false);
		verdict_format(w->b, sizeof(w->b), k, b, false);
		na = noise(ea, f[i]);
		nb = noise(eb, f[i]);
		w->band = fmax(tol, fmax(na, nb));
		w->ratio = a > 0 ? b / a : 0;
		w->mark = a > 0 && fabs(b - a) / a > w->band;
		if (w->mark && verdict_regression(k, a, b) > w->band)
			(*worse)++;
		(*nrows)++;
	}
}

static void print_rows(FILE *f, const struct row *r, int n, const char *a,
		       const char *b)
{
	int wt = 4, wa = 1, wb = 1;

	for (int i = 0; i < n; i++) {
		wt = (int)fmax(wt, strlen(r[i].test));
		wa = (int)fmax(wa, strlen(r[i].a));
		wb = (int)fmax(wb, strlen(r[i].b));
	}
	fprintf(f, "A = %s\nB = %s\n", a, b);
	fprintf(f, "%-*s  %-8s  %*s  %*s  %7s  %6s\n", wt, "test", "figure",
		wa, "A", wb, "B", "B/A", "band");
	for (int i = 0; i < n; i++)
		fprintf(f, "%-*s  %-8s  %*s  %*s  %7.3f  %5.1f%%%s\n", wt,
			r[i].test, r[i].fig, wa, r[i].a, wb, r[i].b,
			r[i].ratio, r[i].band * 100, r[i].mark ? "  *" : "");
}

int compare_files(FILE *f, const char *a, const char *b, double tol,
		  char *msg, size_t msglen)
{
	struct baseline *ba = baseline_load("--compare", a, msg, msglen);
	struct baseline *bb = ba ? baseline_load("--compare", b, msg, msglen)
				 : NULL;
	json_t *ea, *eb;
	size_t na, nb, i, j;
	struct row *r;
	bool *taken, *matched;
	int n = 0, max, worse = 0;
	char d[ROW_TEST];

	if (!bb) {
		baseline_free(ba);
		return -1;
	}
	na = json_array_size(baseline_entries(ba));
	nb = json_array_size(baseline_entries(bb));
	max = 2 * (int)nb;
	r = calloc((size_t)max, sizeof(*r));
	taken = calloc(na, sizeof(*taken));
	matched = calloc(nb, sizeof(*matched));
	if (!r || !taken || !matched) {
		free(r);
		free(taken);
		free(matched);
		baseline_free(ba);
		baseline_free(bb);
		return seterr(msg, msglen, "--compare: out of memory");
	}
	json_array_foreach(baseline_entries(bb), j, eb) {
		json_array_foreach(baseline_entries(ba), i, ea) {
			if (taken[i] || !baseline_same(ea, eb))
				continue;
			taken[i] = matched[j] = true;
			rows_of(ea, eb, tol, r, &n, max, &worse);
			break;
		}
	}
	print_rows(f, r, n, a, b);
	json_array_foreach(baseline_entries(ba), i, ea)
		if (!taken[i])
			fprintf(f, "only in A: %s\n",
				baseline_describe(ea, d, sizeof(d)));
	json_array_foreach(baseline_entries(bb), j, eb)
		if (!matched[j])
			fprintf(f, "only in B: %s\n",
				baseline_describe(eb, d, sizeof(d)));
	free(r);
	free(taken);
	free(matched);
	baseline_free(ba);
	baseline_free(bb);
	if (!worse)
		return 0;
	seterr(msg, msglen,
	       "%d of %d figure%s of %s regressed beyond the noise band (tolerance %g%%)",
	       worse, n, n == 1 ? "" : "s", b, tol * 100);
	return VERDICT_FAILED_STATUS;
}
