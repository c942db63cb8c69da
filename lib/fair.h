/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --clients: the summary of K clients' figures of one test (docs/
 * clients.md).  For a bandwidth or a message rate the aggregate is the
 * sum and the slowest client is the one with the smallest figure,
 * measured against the fair share (aggregate / K); for a latency the
 * aggregate is the mean and the slowest is the one with the largest
 * latency, measured against the mean.  Jain's fairness index is
 * (sum x)^2 / (K * sum x^2) of the figures as given: 1 when all are
 * equal, 1/K when one client has everything.  Pure arithmetic.
 */
#ifndef QPERF_LIB_FAIR_H
#define QPERF_LIB_FAIR_H

#include <stdbool.h>
#include <stddef.h>

struct fair_sum {
	size_t n; /* clients */
	bool lower_better; /* latency: the largest figure is the slowest */
	double sum, mean, min, max; /* in the figures' unit */
	double aggregate; /* sum, or for a latency the mean */
	double jain; /* in (0, 1]; 0 when every figure is 0 */
	size_t slowest; /* index of the slowest client */
	double share; /* the fair share: aggregate / n (latency: mean) */
	double ratio; /* slowest's figure / share (< 1: below its share
		       * of a bandwidth; > 1: slower than the mean latency) */
};

/* Jain's fairness index of x[0..n): 0 if n is 0 or every x is 0. */
double fair_jain(const double *x, size_t n);

/* The summary of x[0..n) (n >= 1) into *f. */
void fair_summarize(const double *x, size_t n, bool lower_better,
		    struct fair_sum *f);

#endif
