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

int main(void)
{
	RUN(color_scale_ends);
	RUN(three_ranks);
	RUN(latency_scale_and_no_marks);
	RUN(too_many_ranks_is_a_note);
	return harness_done();
}
