/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report table of output/report.c, shared with output/report_x.c (the -vx
 * lines): entries are formatted into a table, then printed with the name
 * and data columns sized to the widest entry (spec §5.2).  Internal to
 * the report; nothing outside output/report*.c includes this.
 */
#ifndef QPERF_REPORT_TAB_H
#define QPERF_REPORT_TAB_H

#include <stdio.h>

#include "lib/types.h"

#define REPORT_DATA_MAX 128
#define REPORT_ALT_MAX 48
/* Enough for every entry a test can produce (about 120 with -vv -D). */
#define REPORT_TABLE_MAX 192

#define REPORT_NUNITS(a) (sizeof(a) / sizeof((a)[0]))

struct report_entry {
	const char *pref; /* "", "loc_" or "rem_" */
	const char *name;
	const char *unit; /* NULL: a string entry, printed unpadded */
	char data[REPORT_DATA_MAX];
	char alt[REPORT_ALT_MAX]; /* "" when there is none */
};

struct report_table {
	const struct out_opts *o;
	size_t n;
	struct report_entry e[REPORT_TABLE_MAX];
};

/* Visibility classes (spec §5.3). */
enum report_class {
	RC_A, /* always */
	RC_S, /* stat verbosity >= 1 */
	RC_S2, /* stat verbosity >= 2 */
	RC_T, /* time verbosity >= 1 */
	RC_T2, /* time verbosity >= 2 */
	RC_U, /* parameter list */
	RC_D, /* -D */
	RC_X /* -vx: shown whenever measured, 0 included */
};

/* A new entry, or NULL if the table is full. */
struct report_entry *report_add(struct report_table *t, const char *pref,
				const char *name, const char *unit);

/* Divide by 1000 while v >= 1000 and a larger unit exists (spec §5.5). */
const char *report_scale(const struct out_opts *o, double *v,
			 const char *const *units, size_t nunits);

/* v formatted with -e's precision, in unit. */
void report_put_val(struct report_table *t, const char *pref,
		    const char *name, const char *unit, double v);

/* A time given in nanoseconds, scaled ns/us/ms/sec as latency is. */
void report_time(struct report_table *t, enum report_class c,
		 const char *pref, const char *name, double ns);

/* A count: scaled to thousand, million, ... only from 1,000,000 up. */
void report_count(struct report_table *t, enum report_class c,
		  const char *pref, const char *name, uint64_t v);

/* Add the --rate entries of a paced test (output/report_pace.c). */
void report_pace(struct report_table *t, const struct results *res);

/*
 * One distribution's lines (times in s): pref and names[] are its min,
 * mean, p50, p90, p99, p99.9 and max (DIST_NAMES, or a name in pref and
 * DIST_SUFFIXES; the table keeps the pointers); p50, p90, p99 and max
 * always, the others with -vx.
 */
#define DIST_NAMES(w)                                                    \
	{ w "_min", w "_mean", w "_p50", w "_p90", w "_p99", w "_p99.9",  \
	  w "_max" }
#define DIST_SUFFIXES DIST_NAMES("")
void report_dist(struct report_table *t, const char *pref,
		 const char *const names[7], const struct lat_summary *s);

/* Add reg_mr's entries (output/report_regmr.c). */
void report_regmr(struct report_table *t, const struct results *res);

/* Add --qps's -vx entries (output/report_qps.c). */
void report_qps(struct report_table *t, const struct results *res);

/* A size in bytes, scaled (output/report.c). */
void report_size(struct report_table *t, enum report_class c,
		 const char *pref, const char *name, uint64_t v);

/* Add a connection-setup test's entries (output/report_conn.c). */
void report_conn(struct report_table *t, const struct results *res);

/* Add the -vx entries (output/report_x.c) when o->v_extra is set. */
void report_extra(struct report_table *t, const struct results *res);

/* Add the -vx counter lines of both ends (output/report_cnt.c; b NULL:
 * none). */
struct cnt_both;
void report_cnt(struct report_table *t, const struct cnt_both *b);

/* Print the table (spec §5.2). */
void report_print(FILE *f, const struct report_table *t);

/* Is an entry of class c with value v shown with these options? */
bool report_visible(const struct out_opts *o, enum report_class c, double v);
/* A whole number, commified, with its unit. */
void report_put_u64(struct report_table *t, const char *pref,
		    const char *name, const char *unit, uint64_t v);
/* A size shown as "<n> KiB (<bytes>)" when it is an exact multiple of
 * 1024 at every step; false when that rule does not apply. */
bool report_size_1024(struct report_table *t, const char *pref,
		      const char *name, uint64_t v);

#endif
