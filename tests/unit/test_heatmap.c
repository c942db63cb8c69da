// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster heat maps (cluster/heatmap.h): the colour scale's ends, and an SVG
 * of a 3-rank map written through the API: 9 cells (3 self, 1 missing
 * with its reason, 5 coloured), the marks of an outlier node and link,
 * escaped labels, the legend with its unit; a map beyond HEAT_MAX ranks
 * drawn as a note.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cluster/heatmap.h"
#include "lib/err.h"
#include "harness.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void why(const void *arg, uint32_t row, uint32_t col, char *buf,
		size_t len)
{
	xsnprintf(buf, len, "%s %u-%u", (const char *)arg, row, col);
}

/* Write maps m[0..nm-1] to a temporary file and read it into svg. */
static size_t draw(const struct heat_map *m, size_t nm, char *svg,
		   size_t cap)
{
	char path[] = "/tmp/qperf-heat-XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	size_t n = 0;

	if (!f)
		return 0;
	if (heat_write(f, path, m, nm, err, sizeof(err)) == 0) {
		f = fopen(path, "r");
		if (f) {
			n = fread(svg, 1, cap - 1, f);
			svg[n] = '\0';
			fclose(f);
		}
	}
	unlink(path);
	return n;
}

TEST(color_scale_ends)
{
	char b[16];

	heat_color(0, b, sizeof(b));
	CHECK_STR(b, "#440154"); /* worst: dark purple */
	heat_color(1, b, sizeof(b));
	CHECK_STR(b, "#fde725"); /* best: yellow */
	heat_color(-3, b, sizeof(b)); /* clamped */
	CHECK_STR(b, "#440154");
	heat_color(NAN, b, sizeof(b));
	CHECK_STR(b, "#440154");
	heat_color(0.5, b, sizeof(b)); /* the middle stop */
	CHECK_STR(b, "#21918c");
}

TEST(three_ranks)
{
	static char svg[1 << 16];
	const char *lab[] = { "a&b:0", "n1:1", "n2:2" };
	/* row = sender; 0 -> 2 missing; rank 1 slow; link 0-2 marked */
	const double v[9] = { NAN, 2, NAN, 1, NAN, 1, 10, 2, NAN };
	const bool bn[3] = { false, true, false };
	const bool gone[3] = { false, false, true };
	const bool bc[9] = { false, false, true, false, false, false,
			     true, false, false };
	struct heat_map m = {
		.title = "tcp_bw: received bandwidth in MB/s",
		.unit = "MB/s",
		.n = 3,
		.v = v,
		.label = lab,
		.bad_node = bn,
		.bad_cell = bc,
		.gone = gone,
		.why = why,
		.arg = "failed:",
	};

	CHECK(draw(&m, 1, svg, sizeof(svg)) > 0);
	CHECK(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
	CHECK(count(svg, "<rect class=\"cell") == 9);
	CHECK(count(svg, "<rect class=\"cell self\"") == 3);
	CHECK(count(svg, "<rect class=\"cell missing\"") == 1);
	CHECK(strstr(svg, "a&amp;b:0 to n2:2: no figure: failed: 0-2</title>") != NULL);
	CHECK(strstr(svg, "n2:2 to a&amp;b:0: 10 MB/s</title>") != NULL);
	/* the best cell is yellow, the worst (1 of a 0..10 scale) dark */
	CHECK(strstr(svg, "fill=\"#fde725\"><title>n2:2 to a&amp;b:0") != NULL);
	CHECK(count(svg, "<rect class=\"outlier-node\"") == 2);
	CHECK(count(svg, "<rect class=\"outlier-link\"") == 2);
	CHECK(count(svg, "font-weight=\"bold\">n1:1</text>") == 2);
	CHECK(strstr(svg, ">outlier node n1:1</text>") != NULL);
	CHECK(strstr(svg, ">outlier link a&amp;b:0 - n2:2</text>") != NULL);
	CHECK(strstr(svg, ">gone: n2:2</text>") != NULL);
	CHECK(strstr(svg, ">figure (MB/s)</text>") != NULL);
	CHECK(strstr(svg, ">sender (client)</text>") != NULL);
	CHECK(strstr(svg, ">receiver (server)</text>") != NULL);
	CHECK(strstr(svg, "</svg>\n") != NULL);
}

TEST(latency_scale_and_no_marks)
{
	static char svg[1 << 16];
	const char *lab[] = { "h:0", "h:1" };
	const double v[4] = { NAN, 5, 20, NAN };
	struct heat_map m = {
		.title = "tcp_lat", .unit = "us", .low_good = true, .n = 2,
		.v = v, .label = lab,
	};

	CHECK(draw(&m, 1, svg, sizeof(svg)) > 0);
	CHECK(count(svg, "<rect class=\"cell") == 4);
	CHECK(strstr(svg, "outlier") == NULL);
	CHECK(strstr(svg, HEAT_MARK) == NULL);
	CHECK(strstr(svg, ">latency (us)</text>") != NULL);
	/* smaller is better: 20 us is the worst colour of a 0..20 scale */
	CHECK(strstr(svg, "fill=\"#440154\"><title>h:1 to h:0: 20 us") != NULL);
}

TEST(too_many_ranks_is_a_note)
{
	static char svg[1 << 14];
	struct heat_map m[2] = {
		{ .title = "big", .unit = "MB/s", .n = HEAT_MAX + 1 },
		{ .title = "none", .unit = "MB/s", .n = 0 },
	};

	CHECK(draw(m, 2, svg, sizeof(svg)) > 0);
	CHECK(strstr(svg, "heat map of 257 ranks left out (at most 256)") != NULL);
	CHECK(strstr(svg, "<rect class=\"cell") == NULL);
}

/*
 * The green of each cell's fill, in order ("#rrggbb": g of viridis rises
 * from the worst colour to the best; 0xc9 and up is its best quarter).
 */
static size_t cell_greens(const char *svg, int *g, size_t cap)
{
	size_t n = 0;

	for (const char *p = strstr(svg, "<rect class=\"cell\""); p && n < cap;
	     p = strstr(p + 1, "<rect class=\"cell\"")) {
		const char *f = strstr(p, "fill=\"#");
		unsigned int rgb;

		if (!f || sscanf(f + 7, "%6x", &rgb) != 1)
			return 0;
		g[n++] = (int)((rgb >> 8) & 0xff);
	}
	return n;
}

/* An 8 x 8 latency map, every pair 8.8-8.9 us; bad: pair 2-5 at bad us. */
static void lat8(double *v, double bad)
{
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			v[i * 8 + j] = i == j ? NAN : 8.8 + 0.1 * ((i + j) % 2);
	if (bad > 0)
		v[2 * 8 + 5] = v[5 * 8 + 2] = bad;
}

TEST(uniform_fabric_looks_uniform_and_good)
{
	static char svg[1 << 17];
	const char *lab[8] = { "n0:0", "n1:1", "n2:2", "n3:3",
			       "n4:4", "n5:5", "n6:6", "n7:7" };
	double v[64];
	int g[64];
	struct heat_map m = {
		.title = "tcp_lat", .unit = "us", .low_good = true, .n = 8,
		.v = v, .label = lab,
	};

	lat8(v, 0);
	CHECK(draw(&m, 1, svg, sizeof(svg)) > 0);
	CHECK(cell_greens(svg, g, 64) == 56);
	for (int k = 0; k < 56; k++)
		CHECK(g[k] >= 0xc9); /* every cell in the best quarter */
	/* the scale: from the best figure to twice it, printed */
	CHECK(strstr(svg, ">scale: 8.8 (best) to 17.6 us</text>") != NULL);
	CHECK(strstr(svg, ">8.8</text>") != NULL);
	CHECK(strstr(svg, ">17.6</text>") != NULL);

	/* bandwidth, 8.8-8.9 GB/s in MB/s: as good, scale down to half */
	for (int k = 0; k < 64; k++)
		v[k] *= 1000;
	m.unit = "MB/s";
	m.low_good = false;
	CHECK(draw(&m, 1, svg, sizeof(svg)) > 0);
	CHECK(cell_greens(svg, g, 64) == 56);
	for (int k = 0; k < 56; k++)
		CHECK(g[k] >= 0xc9);
	CHECK(strstr(svg, ">scale: 8.9k (best) to 4.45k MB/s</text>") != NULL);
}

TEST(one_bad_link_stands_out)
{
	static char svg[1 << 17];
	const char *lab[8] = { "n0:0", "n1:1", "n2:2", "n3:3",
			       "n4:4", "n5:5", "n6:6", "n7:7" };
	double v[64];
	int g[64];
	struct heat_map m = {
		.title = "tcp_lat", .unit = "us", .low_good = true, .n = 8,
		.v = v, .label = lab,
	};
	size_t bad = 0, good = 0;

	/* 40% slower: not the worst colour, but far from the rest */
	lat8(v, 12.5);
	CHECK(draw(&m, 1, svg, sizeof(svg)) > 0);
	CHECK(cell_greens(svg, g, 64) == 56);
	for (int k = 0; k < 56; k++) {
		bad += g[k] < 0xb0;
		good += g[k] >= 0xc9;
	}
	CHECK(bad == 2 && good == 54);
	CHECK(strstr(svg, "fill=\"#440154\"") == NULL);
	/* 3 times slower: the worst colour, and the scale reaches it */
	lat8(v, 30);
	CHECK(draw(&m, 1, svg, sizeof(svg)) > 0);
	CHECK(strstr(svg, "fill=\"#440154\"><title>n2:2 to n5:5: 30 us") != NULL);
	CHECK(strstr(svg, "fill=\"#440154\"><title>n5:5 to n2:2: 30 us") != NULL);
	CHECK(count(svg, "fill=\"#440154\"") == 2);
	CHECK(strstr(svg, ">scale: 8.8 (best) to 30 us</text>") != NULL);
}

/* A host name from a JOIN with ESC, 0xff and markup: printable, escaped. */
TEST(hostile_labels)
{
	static char svg[1 << 16];
	const char *lab[] = { "ev\x1b[31mil\xff\x9b<&>:0", "n1:1" };
	const double v[4] = { NAN, 5, 6, NAN };
	struct heat_map m = {
		.title = "tcp_lat \x1b]0;x\x07", .unit = "us", .low_good = true,
		.n = 2, .v = v, .label = lab,
	};
	size_t n = draw(&m, 1, svg, sizeof(svg)), bad = 0;

	CHECK(n > 0);
	for (size_t i = 0; i < n; i++)
		bad += ((unsigned char)svg[i] < 0x20 && svg[i] != '\n') ||
		       (unsigned char)svg[i] > 0x7e;
	CHECK(bad == 0);
	CHECK(count(svg, ">ev?[31mil??&lt;&amp;&gt;:0</text>") == 2);
	CHECK(strstr(svg, "ev?[31mil??&lt;&amp;&gt;:0 to n1:1: 5 us</title>") != NULL);
	CHECK(strstr(svg, ">tcp_lat ?]0;x?</text>") != NULL);
}

int main(void)
{
	RUN(color_scale_ends);
	RUN(three_ranks);
	RUN(uniform_fabric_looks_uniform_and_good);
	RUN(one_bad_link_stands_out);
	RUN(hostile_labels);
	RUN(latency_scale_and_no_marks);
	RUN(too_many_ranks_is_a_note);
	return harness_done();
}
