// SPDX-License-Identifier: GPL-2.0-only
/* Outlier finding for cluster mode (see outlier.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outlier.h"

void outlier_defaults(struct outlier_opts *o)
{
	o->z_min = 3.5;
	o->min_drop = 0.2;
	o->strong_drop = 0.5;
}

static double lesser(double a, double b)
{
	return a < b ? a : b;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double median_of(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median and MAD of v (reordered; scratch has room for n). */
static void med_mad(double *v, size_t n, double *scratch, double *med,
		    double *mad)
{
	*med = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		scratch[i] = v[i] > *med ? v[i] - *med : *med - v[i];
	*mad = median_of(scratch, n);
}

/* Is x a low outlier against median m with spread mad?  Sets *z. */
static int is_low(double x, double m, double mad,
		  const struct outlier_opts *o, double *z)
{
	double drop = m - x;

	if (drop <= 0 || m <= 0) {
		*z = 0;
		return 0;
	}
	*z = mad > 0 ? 0.6745 * drop / mad : INFINITY;
	return (*z > o->z_min && drop >= o->min_drop * m) ||
	       drop >= o->strong_drop * m;
}

static void put(struct outlier *out, size_t max, size_t k,
		const struct outlier *x)
{
	if (k < max)
		out[k] = *x;
}

int outlier_low(const double *v, uint32_t n, const struct outlier_opts *o,
		struct outlier *out, size_t max, double *median,
		unsigned char *low)
{
	double *tmp = calloc(2 * (size_t)n + 1, sizeof(*tmp));
	double m, mad;
	size_t nv = 0, k = 0;

	if (!tmp)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (v[i] > 0)
			tmp[nv++] = v[i];
	med_mad(tmp, nv, tmp + nv, &m, &mad);
	for (uint32_t i = 0; i < n; i++) {
		struct outlier x = { OUTLIER_HUB, i, i, v[i], m, 0 };

		if (v[i] > 0 && is_low(v[i], m, mad, o, &x.z)) {
			if (low)
				low[i] = 1;
			put(out, max, k++, &x);
		}
	}
	free(tmp);
	*median = m;
	return (int)k;
}

int outlier_find(const struct pair_fig *f, size_t np, uint32_t n,
		 const struct outlier_opts *o, struct outlier *out,
		 size_t max, double *node_med)
{
	size_t *cnt = calloc((size_t)n + 1, sizeof(*cnt));
	double *vals = calloc(2 * np + 1, sizeof(*vals));
	double *med = calloc((size_t)n + 1, sizeof(*med));
	double *tmp = calloc(2 * np + (size_t)n + 1, sizeof(*tmp));
	double *ratio = calloc(np + 1, sizeof(*ratio));
	unsigned char *bad = calloc((size_t)n + 1, 1);
	double m, rm, rmad;
	size_t k = 0, nr = 0;
	int rc = -1;

	if (!cnt || !vals || !med || !tmp || !ratio || !bad)
		goto out;
	/* Each node's figures, grouped by node (offsets in cnt). */
	for (size_t i = 0; i < np; i++)
		if (f[i].v > 0 && f[i].a < n && f[i].b < n) {
			cnt[f[i].a + 1]++;
			cnt[f[i].b + 1]++;
		}
	for (uint32_t i = 0; i < n; i++)
		cnt[i + 1] += cnt[i];
	{
		size_t *fill = calloc((size_t)n + 1, sizeof(*fill));

		if (!fill)
			goto out;
		memcpy(fill, cnt, ((size_t)n + 1) * sizeof(*fill));
		for (size_t i = 0; i < np; i++)
			if (f[i].v > 0 && f[i].a < n && f[i].b < n) {
				vals[fill[f[i].a]++] = f[i].v;
				vals[fill[f[i].b]++] = f[i].v;
			}
		free(fill);
	}
	for (uint32_t i = 0; i < n; i++)
		med[i] = median_of(vals + cnt[i], cnt[i + 1] - cnt[i]);
	if (node_med)
		memcpy(node_med, med, (size_t)n * sizeof(*med));
	/* Nodes: the low ones among the node medians (out's first k). */
	rc = outlier_low(med, n, o, out, max, &m, bad);
	if (rc < 0)
		goto out;
	k = (size_t)rc;
	for (size_t i = 0; i < k && i < max; i++) {
		out[i].kind = OUTLIER_NODE;
		out[i].b = out[i].a;
	}
	rc = -1;
	/* Links: each figure against the weaker of its two nodes. */
	for (size_t i = 0; i < np; i++) {
		double base;

		if (!(f[i].v > 0 && f[i].a < n && f[i].b < n))
			continue;
		base = lesser(med[f[i].a], med[f[i].b]);
		ratio[i] = base > 0 ? f[i].v / base : 0;
		tmp[nr++] = ratio[i];
	}
	med_mad(tmp, nr, tmp + nr, &rm, &rmad);
	for (size_t i = 0; i < np; i++) {
		struct outlier x = { OUTLIER_LINK, 0, 0, f[i].v, 0, 0 };
		int dup = 0;

		if (!(f[i].v > 0 && f[i].a < n && f[i].b < n) ||
		    bad[f[i].a] || bad[f[i].b] ||
		    !is_low(ratio[i], rm, rmad, o, &x.z))
			continue;
		x.a = f[i].a < f[i].b ? f[i].a : f[i].b;
		x.b = f[i].a < f[i].b ? f[i].b : f[i].a;
		x.median = lesser(med[x.a], med[x.b]);
		/* The other direction of a link already listed: keep one. */
		for (size_t j = 0; j < k && j < max; j++)
			if (out[j].kind == OUTLIER_LINK && out[j].a == x.a &&
			    out[j].b == x.b) {
				dup = 1;
				if (x.figure < out[j].figure)
					out[j] = x;
			}
		if (!dup)
			put(out, max, k++, &x);
	}
	rc = (int)k;
out:
	free(cnt);
	free(vals);
	free(med);
	free(tmp);
	free(ratio);
	free(bad);
	return rc;
}
