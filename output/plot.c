// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sweep plots; see plot.h.  Layout of the SVG: one panel per quantity and
 * looped variable, stacked; in each, light grid lines at the ticks, the
 * axes with their labels and units, one polyline with markers per series
 * (a dashed one for send_bw), a translucent p50..p99 band for latency
 * with percentiles, and a legend on the right.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transports/transport.h"
#include "plot.h"
#include "sink.h"
#include "report.h"
#include "lib/err.h"
#include "lib/alloc.h"
#include "lib/outfile.h"

#define PLOT_PANELS 6
#define PLOT_SERIES 24 /* drawn; more are counted and reported */
#define PLOT_W 860
#define PLOT_H 380 /* one panel */
#define PLOT_L 90 /* margins of the plot area in a panel */
#define PLOT_R 240
#define PLOT_T 50
#define PLOT_B 60
#define PLOT_AW (PLOT_W - PLOT_L - PLOT_R)
#define PLOT_AH (PLOT_H - PLOT_T - PLOT_B)

enum plot_qty { PQ_BAND, PQ_RATE, PQ_LAT };

struct plot_pt {
	double x, y; /* y in the quantity's base unit (bytes/s, 1/s, ns) */
	double lo, hi; /* latency band (p50, p99) when band is set */
	bool band;
};

struct plot_panel {
	enum plot_qty q;
	char xvar[32]; /* the looped option, without dashes */
	bool xlog, k1024;
	double base;
	const char *xunit; /* "bytes", "s", "" */
};

struct plot_series {
	int panel;
	char name[128];
	bool dashed;
	size_t n, cap;
	struct plot_pt *pt;
};

struct plot {
	FILE *f;
	char path[256];
	int npanels, nseries;
	unsigned dropped; /* series beyond PLOT_SERIES */
	struct plot_panel panels[PLOT_PANELS];
	struct plot_series series[PLOT_SERIES];
};

static const char *const plot_colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

void plot_axis_lin(struct plot_axis *a, double lo, double hi, int target)
{
	double raw, mag, norm, step, t0;

	memset(a, 0, sizeof(*a));
	if (!(hi > lo))
		hi = lo + 1;
	if (target < 2)
		target = 2;
	raw = (hi - lo) / target;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
	t0 = floor(lo / step + 1e-9) * step;
	a->lo = t0;
	for (double t = t0; a->n < PLOT_TICKS_MAX; t += step) {
		a->ticks[a->n++] = fabs(t) < step * 1e-9 ? 0 : t;
		a->hi = t;
		if (t >= hi - step * 1e-9)
			break;
	}
}

void plot_axis_log(struct plot_axis *a, double lo, double hi, double base,
		   int max)
{
	int k0, k1, every;

	memset(a, 0, sizeof(*a));
	if (!(base > 1))
		base = 10;
	if (!(hi > 0))
		hi = 1;
	if (!(lo > 0) || lo > hi)
		lo = hi / base;
	if (max < 2)
		max = 2;
	if (max > PLOT_TICKS_MAX)
		max = PLOT_TICKS_MAX;
	a->log = true;
	a->base = base;
	/* small slack so that exact powers are not pushed out by rounding */
	k0 = (int)floor(log(lo) / log(base) + 1e-9);
	k1 = (int)ceil(log(hi) / log(base) - 1e-9);
	if (k1 <= k0)
		k1 = k0 + 1;
	every = (k1 - k0 + max - 1) / max;
	if (every < 1)
		every = 1;
	while ((k1 - k0) % every)
		k1++;
	a->lo = pow(base, k0);
	a->hi = pow(base, k1);
	for (int k = k0; k <= k1 && a->n < PLOT_TICKS_MAX; k += every)
		a->ticks[a->n++] = pow(base, k);
}

double plot_axis_pos(const struct plot_axis *a, double v)
{
	double p;

	if (a->log)
		p = v > 0 ? (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo))
			  : 0;
	else
		p = (v - a->lo) / (a->hi - a->lo);
	if (!(p > 0))
		return 0;
	return p > 1 ? 1 : p;
}

void plot_tick_label(char *buf, size_t len, double v, bool k1024)
{
	static const char *const k2[] = { "", "K", "M", "G", "T" };
	static const char *const k10[] = { "", "k", "M", "G", "T" };
	int i = 0;

	if (k1024 && v >= 1024 && fmod(v, 1024) == 0) {
		while (i < 4 && v >= 1024 && fmod(v, 1024) == 0) {
			v /= 1024;
			i++;
		}
		xsnprintf(buf, len, "%g%s", v, k2[i]);
		return;
	}
	while (i < 4 && fabs(v) >= 1000) {
		v /= 1000;
		i++;
	}
	xsnprintf(buf, len, "%g%s", v, k10[i]);
}

void plot_xml_escape(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	if (!len)
		return;
	for (; *s; s++) {
		const char *rep = NULL;
		char one[2] = { *s, '\0' };
		size_t k;

		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				continue; /* not allowed in XML 1.0 */
			rep = one;
			break;
		}
		k = strlen(rep);
		if (n + k >= len)
			break;
		memcpy(buf + n, rep, k);
		n += k;
	}
	buf[n] = '\0';
}

/*
 * The files plot_fopen() opened and plot_svg_end() has not yet renamed
 * onto their paths (lib/outfile.h).  One closed with a bare fclose() (an
 * error path) is not renamed: its temporary file goes at exit.
 */
#define PLOT_FILES 4
static struct plot_file {
	FILE *f;
	struct outfile of;
} plot_files[PLOT_FILES];

static void plot_files_cleanup(void)
{
	for (int i = 0; i < PLOT_FILES; i++)
		if (plot_files[i].f) {
			plot_files[i].of.fd = -1; /* fclose()d, or exiting */
			outfile_abort(&plot_files[i].of);
			plot_files[i].f = NULL;
		}
}

FILE *plot_fopen(const char *path, char *err, size_t errlen)
{
	static bool hooked;
	struct plot_file *pf = NULL;
	char why[128] = "too many plot files";

	for (int i = 0; i < PLOT_FILES && !pf; i++)
		if (!plot_files[i].f)
			pf = &plot_files[i];
	if (pf && outfile_open(&pf->of, path, 0666, why, sizeof(why)) == 0) {
		pf->f = fdopen(pf->of.fd, "w");
		if (!pf->f) {
			xsnprintf(why, sizeof(why), "%s", strerror(errno));
			outfile_abort(&pf->of);
		}
	}
	if (!pf || !pf->f) {
		seterr(err, errlen, "--plot: %.200s: cannot write: %s", path,
		       why);
		return NULL;
	}
	if (!hooked)
		hooked = atexit(plot_files_cleanup) == 0;
	return pf->f;
}

void plot_svg_begin(FILE *f, int w, int h, const char *title)
{
	char esc[256];

	plot_xml_escape(esc, sizeof(esc), title);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<title>%s</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		w, h, w, h, esc);
}

int plot_svg_end(FILE *f, const char *path, char *err, size_t errlen)
{
	struct plot_file *pf = NULL;
	char why[128];
	int e;

	for (int i = 0; i < PLOT_FILES && !pf; i++)
		if (plot_files[i].f == f)
			pf = &plot_files[i];
	fprintf(f, "</svg>\n");
	errno = 0;
	if (ferror(f) | (fclose(f) != 0)) {
		e = errno ? errno : EIO;
		if (pf) {
			pf->of.fd = -1;
			outfile_abort(&pf->of);
			pf->f = NULL;
		}
		return seterr_errno(err, errlen, e,
				    "--plot: %.200s: write failed", path);
	}
	if (!pf)
		return 0;
	pf->f = NULL;
	pf->of.fd = -1; /* fclose()d */
	if (outfile_commit(&pf->of, why, sizeof(why)) < 0)
		return seterr(err, errlen, "--plot: %.200s: cannot write: %s",
			      path, why);
	return 0;
}

struct plot *plot_open(const char *path, char *err, size_t errlen)
{
	struct plot *pl;
	FILE *f = plot_fopen(path, err, errlen);

	if (!f)
		return NULL;
	pl = xcalloc(1, sizeof(*pl));
	pl->f = f;
	xsnprintf(pl->path, sizeof(pl->path), "%s", path);
	return pl;
}

int plot_check(const struct test_desc *t, int nloops, char *err,
	       size_t errlen)
{
	if (t->measure == MEAS_NONE || nloops > 0)
		return 0;
	return seterr(err, errlen,
		      "--plot: %s has no --loop; a plot draws each test's figure against a looped variable (put --loop before the test)",
		      t->name);
}

/* A loop's value in its option's own unit (seconds for times). */
static double loop_x(const struct loop_val *lv)
{
	return lv->unit == LOOP_UNIT_TIME ? (double)lv->value / 1e9 :
					    (double)lv->value;
}

static int panel_for(struct plot *pl, enum plot_qty q,
		     const struct loop_val *lp)
{
	const char *var = lp->name;
	struct plot_panel *p;

	for (int i = 0; i < pl->npanels; i++)
		if (pl->panels[i].q == q && !strcmp(pl->panels[i].xvar, var))
			return i;
	if (pl->npanels == PLOT_PANELS)
		return -1;
	p = &pl->panels[pl->npanels];
	p->q = q;
	xsnprintf(p->xvar, sizeof(p->xvar), "%s", var);
	p->xlog = lp->mult;
	/* powers of two step by 2, 4, 8...: ticks at powers of 2 */
	p->base = lp->mult && !(lp->incr & (lp->incr - 1)) ? 2 : 10;
	p->k1024 = lp->unit == LOOP_UNIT_SIZE && p->base == 2;
	p->xunit = lp->unit == LOOP_UNIT_SIZE ? "bytes"
		   : lp->unit == LOOP_UNIT_TIME ? "s"
		   : lp->unit == LOOP_UNIT_BYTE_RATE ? "bytes/s"
		   : lp->unit == LOOP_UNIT_MSG_RATE ? "msgs/s" : "";
	return pl->npanels++;
}

static struct plot_series *series_for(struct plot *pl, int panel,
				      const char *name, bool dashed)
{
	struct plot_series *se;

	for (int i = 0; i < pl->nseries; i++)
		if (pl->series[i].panel == panel &&
		    !strcmp(pl->series[i].name, name))
			return &pl->series[i];
	if (pl->nseries == PLOT_SERIES) {
		pl->dropped++;
		return NULL;
	}
	se = &pl->series[pl->nseries++];
	se->panel = panel;
	se->dashed = dashed;
	xsnprintf(se->name, sizeof(se->name), "%s", name);
	return se;
}

static void add_point(struct plot *pl, int panel, const char *name,
		      bool dashed, const struct plot_pt *pt)
{
	struct plot_series *se = series_for(pl, panel, name, dashed);

	if (!se)
		return;
	se->pt = xgrow(se->pt, &se->cap, se->n + 1, sizeof(*se->pt));
	se->pt[se->n++] = *pt;
}

void plot_add(struct plot *pl, const struct test_desc *t,
	      const struct loop_val *lv, int nloops,
	      const struct results *res)
{
	const struct loop_val *lp;
	struct plot_pt pt;
	char name[128];
	size_t n;
	int panel;
	enum plot_qty q;

	if (!pl || t->measure == MEAS_NONE || nloops < 1)
		return;
	lp = &lv[nloops - 1];
	q = t->measure == MEAS_LATENCY ? PQ_LAT
	    : t->measure == MEAS_MSG_RATE ? PQ_RATE : PQ_BAND;
	panel = panel_for(pl, q, lp);
	if (panel < 0) {
		pl->dropped++;
		return;
	}
	/* the series: the test and the values of the outer loops */
	n = xsnprintf(name, sizeof(name), "%s", t->name);
	for (int i = 0; i < nloops - 1; i++)
		if (lv[i].key != lp->key) /* else overridden by lp */
			n += xsnprintf(name + n, sizeof(name) - n, " %s=%g",
				       lv[i].name, loop_x(&lv[i]));
	memset(&pt, 0, sizeof(pt));
	pt.x = loop_x(lp);
	switch (t->measure) {
	case MEAS_LATENCY:
		pt.band = res->lat.count > 0;
		pt.y = (pt.band ? res->lat.p50 : res->latency) * 1e9;
		pt.lo = res->lat.p50 * 1e9;
		pt.hi = res->lat.p99 * 1e9;
		break;
	case MEAS_MSG_RATE:
		pt.y = res->msg_rate;
		break;
	case MEAS_BANDWIDTH_SR:
		pt.y = res->send_bw;
		xsnprintf(name + n, sizeof(name) - n, " send_bw");
		add_point(pl, panel, name, true, &pt);
		xsnprintf(name + n, sizeof(name) - n, " recv_bw");
		pt.y = res->recv_bw;
		break;
	default:
		pt.y = res->recv_bw;
		break;
	}
	add_point(pl, panel, name, false, &pt);
}

/* Axis label of a panel's y axis, and the divisor of its values. */
static double y_scale(const struct plot_panel *p, double ymax, bool bits,
		      char *label, size_t len)
{
	static const char *const what[] = { "bandwidth", "message rate",
					    "latency" };
	static const enum report_qty rq[] = { RQ_BAND, RQ_RATE, RQ_TIME };
	struct out_opts o = { .precision = 3, .bits = bits };
	double v = ymax > 0 ? ymax : 1, orig = v;
	const char *unit = report_unit(&o, rq[p->q], &v);
	double div = orig / v;

	if (p->q == PQ_BAND && bits)
		div /= 8;
	xsnprintf(label, len, "%s (%s)", what[p->q], unit);
	return div;
}

static double px(const struct plot_axis *ax, double v)
{
	return PLOT_L + plot_axis_pos(ax, v) * PLOT_AW;
}

static double py(const struct plot_axis *ay, double v, double y0)
{
	return y0 + PLOT_T + (1 - plot_axis_pos(ay, v)) * PLOT_AH;
}

static void draw_axes(FILE *f, const struct plot_panel *p,
		      const struct plot_axis *ax, const struct plot_axis *ay,
		      double y0, const char *ylabel)
{
	char lab[64], esc[256], xl[96];
	double bot = y0 + PLOT_T + PLOT_AH;

	for (int i = 0; i < ax->n; i++) {
		double x = px(ax, ax->ticks[i]);

		plot_tick_label(lab, sizeof(lab), ax->ticks[i], p->k1024);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, y0 + PLOT_T, x, bot, x, bot + 18, lab);
	}
	for (int i = 0; i < ay->n; i++) {
		double y = py(ay, ay->ticks[i], y0);

		plot_tick_label(lab, sizeof(lab), ay->ticks[i], false);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			PLOT_L, y, PLOT_L + PLOT_AW, y, PLOT_L - 8, y + 4, lab);
	}
	fprintf(f,
		"<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		PLOT_L, y0 + PLOT_T, PLOT_AW, PLOT_AH);
	if (p->xunit[0])
		xsnprintf(xl, sizeof(xl), "%s (%s%s)", p->xvar, p->xunit,
			  p->xlog ? ", log scale" : "");
	else
		xsnprintf(xl, sizeof(xl), "%s%s", p->xvar,
			  p->xlog ? " (log scale)" : "");
	plot_xml_escape(esc, sizeof(esc), xl);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		PLOT_L + PLOT_AW / 2, bot + 40, esc);
	plot_xml_escape(esc, sizeof(esc), ylabel);
	fprintf(f,
		"<text transform=\"translate(%d,%.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		22, y0 + PLOT_T + PLOT_AH / 2.0, esc);
}

static void draw_series(FILE *f, const struct plot_series *se, int color,
			const struct plot_axis *ax, const struct plot_axis *ay,
			double div, double y0, int slot)
{
	const char *c = plot_colors[color % ARRAY_SIZE(plot_colors)];
	char esc[256];
	double ly = y0 + PLOT_T + 10 + slot * 20;

	if (se->n && se->pt[0].band) {
		fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.2\" stroke=\"none\" points=\"",
			c);
		for (size_t i = 0; i < se->n; i++)
			fprintf(f, "%.1f,%.1f ", px(ax, se->pt[i].x),
				py(ay, se->pt[i].hi / div, y0));
		for (size_t i = se->n; i-- > 0;)
			fprintf(f, "%.1f,%.1f ", px(ax, se->pt[i].x),
				py(ay, se->pt[i].lo / div, y0));
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
		c, se->dashed ? " stroke-dasharray=\"6,4\"" : "");
	for (size_t i = 0; i < se->n; i++)
		fprintf(f, "%.1f,%.1f ", px(ax, se->pt[i].x),
			py(ay, se->pt[i].y / div, y0));
	fprintf(f, "\"/>\n");
	for (size_t i = 0; i < se->n; i++)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
			px(ax, se->pt[i].x), py(ay, se->pt[i].y / div, y0), c);
	plot_xml_escape(esc, sizeof(esc), se->name);
	fprintf(f,
		"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n"
		"<text x=\"%d\" y=\"%.1f\">%s%s</text>\n",
		PLOT_L + PLOT_AW + 15, ly, PLOT_L + PLOT_AW + 40, ly, c,
		se->dashed ? " stroke-dasharray=\"6,4\"" : "",
		PLOT_L + PLOT_AW + 46, ly + 4, esc,
		se->n && se->pt[0].band ? " (p50, band to p99)" : "");
}

static void draw_panel(FILE *f, const struct plot *pl, int k, bool bits)
{
	const struct plot_panel *p = &pl->panels[k];
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0, div, y0 = k * PLOT_H;
	struct plot_axis ax, ay;
	char ylabel[64], title[128], esc[256];
	int slot = 0;

	for (int i = 0; i < pl->nseries; i++) {
		const struct plot_series *se = &pl->series[i];

		for (size_t j = 0; se->panel == k && j < se->n; j++) {
			const struct plot_pt *pt = &se->pt[j];

			xmin = fmin(xmin, pt->x);
			xmax = fmax(xmax, pt->x);
			ymax = fmax(ymax, fmax(pt->y, pt->band ? pt->hi : 0));
		}
	}
	if (p->xlog)
		plot_axis_log(&ax, xmin, xmax, p->base, 10);
	else
		plot_axis_lin(&ax, xmin, xmax, 8);
	div = y_scale(p, ymax, bits, ylabel, sizeof(ylabel));
	plot_axis_lin(&ay, 0, ymax / div, 6);
	xsnprintf(title, sizeof(title), "%s against %s", ylabel, p->xvar);
	plot_xml_escape(esc, sizeof(esc), title);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"16\" text-anchor=\"middle\">%s</text>\n",
		PLOT_L + PLOT_AW / 2, y0 + 28, esc);
	draw_axes(f, p, &ax, &ay, y0, ylabel);
	for (int i = 0; i < pl->nseries; i++)
		if (pl->series[i].panel == k)
			draw_series(f, &pl->series[i], i, &ax, &ay, div, y0,
				    slot++);
}

int plot_finish(struct plot *pl, bool bits, char *err, size_t errlen)
{
	FILE *f = pl->f;
	int panels = pl->npanels ? pl->npanels : 1, rc = 0;

	plot_svg_begin(f, PLOT_W, panels * PLOT_H, "qperf sweep");
	if (!pl->npanels)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no results</text>\n",
			PLOT_W / 2, PLOT_H / 2);
	for (int k = 0; k < pl->npanels; k++)
		draw_panel(f, pl, k, bits);
	rc = plot_svg_end(f, pl->path, err, errlen);
	if (!rc && pl->dropped)
		fprintf(stderr,
			"qperf: warning: --plot: %u result%s not drawn (at most %d series and %d panels)\n",
			pl->dropped, pl->dropped == 1 ? "" : "s", PLOT_SERIES,
			PLOT_PANELS);
	for (int i = 0; i < pl->nseries; i++)
		free(pl->series[i].pt);
	free(pl);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* The plot sink (sink.h)                                                  */
/* ---------------------------------------------------------------------- */

struct plot_sink {
	struct plot *pl;
	bool bits;
	struct out_test cur;
};

static void ps_test_start(void *self, const struct out_test *t)
{
	struct plot_sink *ps = self;

	ps->cur = *t;
}

static void ps_result(void *self, const struct out_result *r)
{
	struct plot_sink *ps = self;

	plot_add(ps->pl, ps->cur.t, ps->cur.loops, ps->cur.nloops, r->res);
}

/* What ran is drawn even when a later test failed. */
static int ps_finish(void *self, char *err, size_t errlen)
{
	struct plot_sink *ps = self;
	struct plot *pl = ps->pl;

	ps->pl = NULL;
	return pl ? plot_finish(pl, ps->bits, err, errlen) : 0;
}

static const struct sink_ops plot_ops = {
	.test_start = ps_test_start,
	.result = ps_result,
	.finish = ps_finish,
	.release = free,
};

int plot_sink(struct outputs *o, const char *path, bool bits, char *err,
	      size_t errlen)
{
	struct plot *pl = plot_open(path, err, errlen);
	struct plot_sink *ps;

	if (!pl)
		return -1;
	ps = xcalloc(1, sizeof(*ps));
	ps->pl = pl;
	ps->bits = bits;
	outputs_add(o, &plot_ops, ps);
	return 0;
}
