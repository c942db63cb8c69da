// SPDX-License-Identifier: GPL-2.0-only
/* --clients' summary of K figures (fair.h). */
#include <string.h>

#include "fair.h"

double fair_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n && s2 > 0 ? s * s / ((double)n * s2) : 0;
}

void fair_summarize(const double *x, size_t n, bool lower_better,
		    struct fair_sum *f)
{
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->lower_better = lower_better;
	if (!n)
		return;
	f->min = f->max = x[0];
	for (size_t i = 0; i < n; i++) {
		f->sum += x[i];
		if (x[i] < f->min)
			f->min = x[i];
		if (x[i] > f->max)
			f->max = x[i];
		/* the first of equal figures is the slowest */
		if (lower_better ? x[i] > x[f->slowest] :
				   x[i] < x[f->slowest])
			f->slowest = i;
	}
	f->mean = f->sum / (double)n;
	f->aggregate = lower_better ? f->mean : f->sum;
	f->share = f->mean;
	f->ratio = f->share > 0 ? x[f->slowest] / f->share : 0;
	f->jain = fair_jain(x, n);
}
