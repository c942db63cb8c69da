// SPDX-License-Identifier: GPL-2.0-only
/*
 * Heat maps of pair figures; see heatmap.h.  Geometry is computed for
 * every panel first (the SVG's size is in its head), then each panel is
 * drawn: title, axis titles, row and column labels, the cells, the marks,
 * and on the right the colour scale with its ticks and unit, a key for
 * the hatching and the outliers marked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"
#include "output/plot.h"
#include "lib/err.h"
#include "lib/alloc.h"
#include "lib/text.h"

#define HEAT_GRID 480 /* px: the grid of a large map */
#define HEAT_CELL_MAX 48 /* px: the cells of a small one */
#define HEAT_BAR_H 200 /* px: the colour scale, at least */
#define HEAT_LEGEND_W 260 /* px right of the grid */
#define HEAT_LABEL_MAX 220 /* px of a label, at most */
#define HEAT_NOTE_H 80 /* px: the panel of a map left out */

/* Viridis at five points, from worst (0) to best (1). */
static const unsigned char heat_stops[][3] = {
	{ 0x44, 0x01, 0x54 }, { 0x3b, 0x52, 0x8b }, { 0x21, 0x91, 0x8c },
	{ 0x5e, 0xc9, 0x62 }, { 0xfd, 0xe7, 0x25 },
};

struct heat_geom {
	int cs; /* px per cell */
	int fs; /* px: label font size */
	int every; /* label every k-th rank */
	int gx, gy; /* the grid's top left corner, in the panel */
	int w, h; /* the panel */
	double vmin, vmax; /* of the finite figures; vmax 0: none */
	bool drawn; /* else a note: too many ranks */
};

void heat_color(double t, char *buf, size_t len)
{
	size_t last = ARRAY_SIZE(heat_stops) - 1;
	double x;
	size_t k;
	int rgb[3];

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	x = t * (double)last;
	k = (size_t)x;
	if (k >= last)
		k = last - 1;
	x -= (double)k;
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)lround(heat_stops[k][i] +
				     x * (heat_stops[k + 1][i] -
					  heat_stops[k][i]));
	xsnprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/*
 * s, which may hold a peer's text (a host name in a label), as XML
 * character data: made printable (lib/text.h), then escaped.
 */
static void xml_text(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s) + 1;
	char *t = xmalloc(n);

	plot_xml_escape(buf, len, text_copy(t, n, s));
	free(t);
}

static void geometry(const struct heat_map *m, struct heat_geom *g)
{
	size_t lmax = 0;
	int lw, bar;

	memset(g, 0, sizeof(*g));
	g->drawn = m->n > 0 && m->n <= HEAT_MAX && m->v;
	if (!g->drawn) {
		g->w = 640;
		g->h = HEAT_NOTE_H;
		return;
	}
	g->cs = (int)(m->n * HEAT_CELL_MAX <= HEAT_GRID ? HEAT_CELL_MAX
							: HEAT_GRID / m->n);
	if (g->cs < 1)
		g->cs = 1;
	g->fs = g->cs - 1 < 11 ? g->cs - 1 : 11;
	if (g->fs < 6)
		g->fs = 6;
	g->every = g->cs >= 6 ? 1 : (6 + g->cs - 1) / g->cs;
	for (uint32_t k = 0; k < m->n; k++)
		if (strlen(m->label[k]) > lmax)
			lmax = strlen(m->label[k]);
	lw = (int)(lmax * (size_t)g->fs * 6 / 10) + 8;
	if (lw > HEAT_LABEL_MAX)
		lw = HEAT_LABEL_MAX;
	g->gx = 40 + lw;
	g->gy = 60 + lw;
	bar = (int)m->n * g->cs;
	if (bar < HEAT_BAR_H)
		bar = HEAT_BAR_H;
	g->w = g->gx + (int)m->n * g->cs + HEAT_LEGEND_W;
	g->h = g->gy + bar + 90;
	for (size_t i = 0; m->bad_cell && i < (size_t)m->n * m->n; i++)
		g->h += m->bad_cell[i] && i / m->n < i % m->n ? 20 : 0;
	for (uint32_t k = 0; k < m->n; k++)
		g->h += (m->bad_node && m->bad_node[k] ? 20 : 0) +
			(m->gone && m->gone[k] ? 20 : 0);
	for (size_t i = 0; i < (size_t)m->n * m->n; i++) {
		if (!isfinite(m->v[i]) || !(m->v[i] > 0))
			continue;
		if (m->v[i] > g->vmax)
			g->vmax = m->v[i];
		if (!(g->vmin > 0) || m->v[i] < g->vmin)
			g->vmin = m->v[i];
	}
}

/* v with 3 significant digits and a k, M or G suffix: "8.8", "12.3k". */
static void fig3(char *buf, size_t len, double v)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T" };
	int i = 0;

	while (i < 4 && fabs(v) >= 999.5) {
		v /= 1000;
		i++;
	}
	xsnprintf(buf, len, "%.3g%s", v, sfx[i]);
}

/*
 * The colour scale: relative to the best figure, so that a uniform
 * fabric is uniformly good whatever its figures are, and a bad pair
 * stands out.  Its good end is the best figure; its bad end is half of
 * it (figures where bigger is better) or twice it (latency), or the worst
 * figure if that is further.  Ticks at round values inside, at least 8%
 * of the range from either end (the ends are labelled themselves).
 */
static void scale_axis(const struct heat_map *m, const struct heat_geom *g,
		       struct plot_axis *ax)
{
	double lo, hi, span;
	struct plot_axis nice;

	if (!(g->vmax > 0)) {
		lo = 0;
		hi = 1;
	} else if (m->low_good) {
		lo = g->vmin;
		hi = g->vmax > 2 * g->vmin ? g->vmax : 2 * g->vmin;
	} else {
		lo = g->vmin < g->vmax / 2 ? g->vmin : g->vmax / 2;
		hi = g->vmax;
	}
	span = hi - lo;
	plot_axis_lin(&nice, lo, hi, 5);
	memset(ax, 0, sizeof(*ax));
	ax->lo = lo;
	ax->hi = hi;
	ax->ticks[ax->n++] = lo;
	for (int i = 0; i < nice.n && ax->n < PLOT_TICKS_MAX - 1; i++)
		if (nice.ticks[i] > lo + 0.08 * span &&
		    nice.ticks[i] < hi - 0.08 * span)
			ax->ticks[ax->n++] = nice.ticks[i];
	ax->ticks[ax->n++] = hi;
}

/* Where t (0 worst .. 1 best) of the scale is: 0 at the top. */
static double scale_t(const struct heat_map *m, const struct plot_axis *ax,
		      double v)
{
	double pos = plot_axis_pos(ax, v);

	return m->low_good ? 1 - pos : pos;
}

static void draw_labels(FILE *f, const struct heat_map *m,
			const struct heat_geom *g, int y0)
{
	char esc[512];

	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">receiver (server)</text>\n"
		"<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">sender (client)</text>\n",
		g->gx + (int)m->n * g->cs / 2, y0 + 48,
		y0 + g->gy + (int)m->n * g->cs / 2);
	for (uint32_t k = 0; k < m->n; k += (uint32_t)g->every) {
		bool bad = m->bad_node && m->bad_node[k];
		const char *style = bad ? " fill=\"" HEAT_MARK
					  "\" font-weight=\"bold\"" :
					  "";
		double mid = (k + 0.5) * g->cs;

		xml_text(esc, sizeof(esc), m->label[k]);
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"end\"%s>%s</text>\n"
			"<text transform=\"translate(%.1f,%d) rotate(-90)\" font-size=\"%d\"%s>%s</text>\n",
			g->gx - 4, y0 + g->gy + mid + g->fs * 0.35, g->fs,
			style, esc, g->gx + mid + g->fs * 0.35, y0 + g->gy - 4,
			g->fs, style, esc);
	}
}

static void draw_cells(FILE *f, const struct heat_map *m,
		       const struct heat_geom *g, const struct plot_axis *ax,
		       int y0)
{
	char col[16], why[600], tip[1400], esc[1600];

	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t j = 0; j < m->n; j++) {
			double v = m->v[(size_t)i * m->n + j];
			int x = g->gx + (int)j * g->cs;
			int y = y0 + g->gy + (int)i * g->cs;

			if (i == j) {
				fprintf(f,
					"<rect class=\"cell self\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n",
					x, y, g->cs, g->cs);
				continue;
			}
			if (isfinite(v)) {
				heat_color(scale_t(m, ax, v), col, sizeof(col));
				xsnprintf(tip, sizeof(tip), "%s to %s: %.4g %s",
					  m->label[i], m->label[j], v, m->unit);
			} else {
				why[0] = '\0';
				if (m->why)
					m->why(m->arg, i, j, why, sizeof(why));
				xsnprintf(col, sizeof(col), "url(#qp-missing)");
				xsnprintf(tip, sizeof(tip), "%s to %s: no figure%s%s",
					  m->label[i], m->label[j],
					  why[0] ? ": " : "", why);
			}
			xml_text(esc, sizeof(esc), tip);
			fprintf(f,
				"<rect class=\"cell%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s</title></rect>\n",
				isfinite(v) ? "" : " missing", x, y, g->cs, g->cs,
				col, esc);
		}
}

static void draw_marks(FILE *f, const struct heat_map *m,
		       const struct heat_geom *g, int y0)
{
	int side = (int)m->n * g->cs;

	for (uint32_t k = 0; m->bad_node && k < m->n; k++)
		if (m->bad_node[k])
			fprintf(f,
				"<rect class=\"outlier-node\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" HEAT_MARK "\" stroke-width=\"2\"/>\n"
				"<rect class=\"outlier-node\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" HEAT_MARK "\" stroke-width=\"2\"/>\n",
				g->gx, y0 + g->gy + (int)k * g->cs, side, g->cs,
				g->gx + (int)k * g->cs, y0 + g->gy, g->cs, side);
	for (size_t i = 0; m->bad_cell && i < (size_t)m->n * m->n; i++)
		if (m->bad_cell[i])
			fprintf(f,
				"<rect class=\"outlier-link\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" HEAT_MARK "\" stroke-width=\"3\"/>\n",
				g->gx + (int)(i % m->n) * g->cs,
				y0 + g->gy + (int)(i / m->n) * g->cs, g->cs,
				g->cs);
}

/* The scale with its ticks, the hatching's key, the outliers marked. */
static void draw_legend(FILE *f, const struct heat_map *m,
			const struct heat_geom *g, const struct plot_axis *ax,
			int y0, int panel)
{
	int lx = g->gx + (int)m->n * g->cs + 30, top = y0 + g->gy;
	int bh = (int)m->n * g->cs < HEAT_BAR_H ? HEAT_BAR_H :
						  (int)m->n * g->cs;
	int ky = top + bh + 24;
	char col[16], lab[64], esc[512];
	size_t last = ARRAY_SIZE(heat_stops) - 1;

	fprintf(f, "<defs><linearGradient id=\"qp-scale-%d\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">\n",
		panel);
	for (size_t k = 0; k <= last; k++) {
		heat_color(1 - (double)k / (double)last, col, sizeof(col));
		fprintf(f, "<stop offset=\"%.2f\" stop-color=\"%s\"/>\n",
			(double)k / (double)last, col);
	}
	xml_text(esc, sizeof(esc), m->unit);
	fprintf(f,
		"</linearGradient></defs>\n"
		"<text x=\"%d\" y=\"%d\">%s (%s)</text>\n"
		"<rect class=\"scale\" x=\"%d\" y=\"%d\" width=\"18\" height=\"%d\" fill=\"url(#qp-scale-%d)\" stroke=\"#000\"/>\n",
		lx, top - 10, m->low_good ? "latency" : "figure", esc, lx, top,
		bh, panel);
	for (int i = 0; i < ax->n; i++) {
		double y = top + (1 - scale_t(m, ax, ax->ticks[i])) * bh;

		if (i == 0 || i == ax->n - 1)
			fig3(lab, sizeof(lab), ax->ticks[i]);
		else
			plot_tick_label(lab, sizeof(lab), ax->ticks[i], false);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\"/>\n"
			"<text x=\"%d\" y=\"%.1f\">%s</text>\n",
			lx + 18, y, lx + 23, y, lx + 26, y + 4, lab);
	}
	{
		char lo[32], hi[32];
		double best = m->low_good ? ax->lo : ax->hi;
		double worst = m->low_good ? ax->hi : ax->lo;

		fig3(lo, sizeof(lo), best);
		fig3(hi, sizeof(hi), worst);
		fprintf(f,
			"<text class=\"scale-range\" x=\"%d\" y=\"%d\">scale: %s (best) to %s %s</text>\n",
			lx, ky + 11, lo, hi, esc);
		ky += 20;
	}
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"url(#qp-missing)\" stroke=\"#999\"/>\n"
		"<text x=\"%d\" y=\"%d\">no figure (hover for why)</text>\n",
		lx, ky, lx + 20, ky + 11);
	for (uint32_t k = 0; m->bad_node && k < m->n; k++)
		if (m->bad_node[k]) {
			ky += 20;
			xml_text(esc, sizeof(esc), m->label[k]);
			fprintf(f,
				"<text x=\"%d\" y=\"%d\" fill=\"" HEAT_MARK "\">outlier node %s</text>\n",
				lx, ky + 11, esc);
		}
	for (uint32_t k = 0; m->gone && k < m->n; k++)
		if (m->gone[k]) {
			ky += 20;
			xml_text(esc, sizeof(esc), m->label[k]);
			fprintf(f,
				"<text x=\"%d\" y=\"%d\" fill=\"#666666\">gone: %s</text>\n",
				lx, ky + 11, esc);
		}
	for (size_t i = 0; m->bad_cell && i < (size_t)m->n * m->n; i++) {
		char two[600];

		if (!m->bad_cell[i] || i / m->n > i % m->n)
			continue; /* each link once */
		ky += 20;
		xsnprintf(two, sizeof(two), "outlier link %s - %s",
			  m->label[i / m->n], m->label[i % m->n]);
		xml_text(esc, sizeof(esc), two);
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"" HEAT_MARK "\">%s</text>\n",
			lx, ky + 11, esc);
	}
}

static void draw_panel(FILE *f, const struct heat_map *m,
		       const struct heat_geom *g, int y0, int panel)
{
	struct plot_axis ax;
	char esc[512];

	xml_text(esc, sizeof(esc), m->title);
	fprintf(f, "<text x=\"20\" y=\"%d\" font-size=\"16\">%s</text>\n",
		y0 + 24, esc);
	if (!g->drawn) {
		fprintf(f,
			"<text x=\"20\" y=\"%d\">heat map of %u ranks left out (at most %d)</text>\n",
			y0 + 52, m->n, HEAT_MAX);
		return;
	}
	scale_axis(m, g, &ax);
	draw_labels(f, m, g, y0);
	draw_cells(f, m, g, &ax, y0);
	draw_marks(f, m, g, y0);
	draw_legend(f, m, g, &ax, y0, panel);
}

int heat_write(FILE *f, const char *path, const struct heat_map *m,
	       size_t nm, char *err, size_t errlen)
{
	struct heat_geom *g = xcalloc(nm ? nm : 1, sizeof(*g));
	int w = 640, h = 0, y0 = 0, rc;

	for (size_t i = 0; i < nm; i++) {
		geometry(&m[i], &g[i]);
		if (g[i].w > w)
			w = g[i].w;
		h += g[i].h;
	}
	plot_svg_begin(f, w, h ? h : HEAT_NOTE_H, "qperf cluster heat map");
	fprintf(f,
		"<defs><pattern id=\"qp-missing\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
		"<rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
		"<path d=\"M0,6 L6,0\" stroke=\"#999999\" stroke-width=\"1\"/></pattern></defs>\n");
	for (size_t i = 0; i < nm; i++) {
		draw_panel(f, &m[i], &g[i], y0, (int)i);
		y0 += g[i].h;
	}
	rc = plot_svg_end(f, path, err, errlen);
	free(g);
	return rc;
}
