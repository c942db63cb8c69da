/* SPDX-License-Identifier: MIT */
/*
 * softverbs' per-node knobs (docs/softverbs.md, "Per node"): a value for
 * every node, or a list whose "N:VALUE" entries apply to node N, and the
 * speed and width encodings they take.  Inline, because both
 * libibverbs.so.1 (sv_port.c) and libibumad.so.3 (sv_umad.c) read them.
 */
#ifndef SV_KNOB_H
#define SV_KNOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * A table of encodings: a value is its name (speeds), or its number
 * followed by an optional suffix ("4" or "4x" for widths; a speed's
 * number is its own encoding).
 */
struct enc {
	const char *name; /* NULL: by number only */
	uint32_t num;
	uint32_t code;
};

/* rdma-core's speed encodings (ibv_port_attr.active_speed, and
 * active_speed_ex from rdma-core v48 on, which alone can say XDR) */
static const struct enc speeds[] = {
	{ "SDR", 1, 1 },     { "DDR", 2, 2 },	{ "QDR", 4, 4 },
	{ "FDR10", 8, 8 },   { "FDR", 16, 16 }, { "EDR", 32, 32 },
	{ "HDR", 64, 64 },   { "NDR", 128, 128 }, { "XDR", 256, 256 },
};

/* width encodings: lanes -> active_width */
static const struct enc widths[] = {
	{ NULL, 1, 1 }, { NULL, 2, 16 }, { NULL, 4, 2 }, { NULL, 8, 4 }, { NULL, 12, 8 },
};

/* s's code in tab (by name, or by number with an optional suffix); 0 if none */
static inline uint32_t parse_enc(const char *s, const struct enc *tab, size_t n,
			  const char *suffix)
{
	size_t i;
	char *end;
	unsigned long v;

	for (i = 0; i < n; i++)
		if (tab[i].name && !strcasecmp(s, tab[i].name))
			return tab[i].code;
	v = strtoul(s, &end, 10);
	if (end == s || (*end && (!suffix || strcasecmp(end, suffix))))
		return 0;
	for (i = 0; i < n; i++)
		if (tab[i].num == v)
			return tab[i].code;
	return 0;
}

/* "HDR", "hdr" or the encoding "64"; 0 if it is neither */
static inline uint32_t parse_speed(const char *s)
{
	return parse_enc(s, speeds, sizeof(speeds) / sizeof(speeds[0]), NULL);
}

/* "4x", "4X" or the lane count "4"; 0 if it is neither */
static inline uint32_t parse_width(const char *s)
{
	return parse_enc(s, widths, sizeof(widths) / sizeof(widths[0]), "x");
}

#define SV_SPEED_ACCEPTED                                                   \
	"a speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR, or its "   \
	"encoding 1, 2, 4, 8, 16, 32, 64, 128, 256)"
#define SV_WIDTH_ACCEPTED "a width (1x, 2x, 4x, 8x, 12x, or the lane count)"

/*
 * The value of knob name for this node (node): the "N:VALUE" entry of this node,
 * else the plain entry, else def.  0 and a logged error for a bad entry.
 */
static inline uint32_t sv_knob(const char *name,
			       uint32_t (*parse)(const char *),
			       const char *accepted, uint32_t def,
			       uint32_t node,
			       void (*say)(const char *fmt, ...))
{
	const char *s = getenv(name);
	char buf[256], *save = NULL, *tok;
	uint32_t plain = def, mine = 0, v;

	if (!s || !*s)
		return def;
	if (strlen(s) >= sizeof(buf)) {
		say("%s: value too long", name);
		return 0;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		unsigned long n = 0;

		if (colon) {
			n = strtoul(tok, &end, 10);
			if (end != colon || n == 0 || n > 0xbfff) {
				say("%s: '%s': bad node before ':' "
				       "(want N:VALUE, N in 1..49151)",
				       name, tok);
				return 0;
			}
			tok = colon + 1;
		}
		v = parse(tok);
		if (!v) {
			say("%s: '%s' is not %s", name, tok, accepted);
			return 0;
		}
		if (!colon)
			plain = v;
		else if (n == node)
			mine = v;
	}
	return mine ? mine : plain;
}

#endif
