/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * conf's figures beyond 0.4.11 (struct conf_ext, lib/types.h) as text:
 * the -vx lines and the names the JSON uses.  Pure.
 */
#ifndef QPERF_OUTPUT_CONF_TEXT_H
#define QPERF_OUTPUT_CONF_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/types.h"

/* Names as ibstat prints them: "Active", "LinkUp", "InfiniBand", "RoCE v2". */
const char *fab_state_str(uint32_t state);
const char *fab_phys_state_str(uint32_t phys);
const char *fab_link_layer_str(uint32_t ll);
const char *fab_gid_type_str(uint32_t type);
/* "fe80::2c0:ffee:0:1" */
void fab_gid_str(const uint8_t gid[16], char *out, size_t len);

/*
 * Lines for the -vx conf report of one end: pref is "loc_" or "rem_".
 * Fills at most max entries of lines; returns the number filled.  Pure.
 */
#define CONF_LINES_MAX 72 /* per end: both fit 0.4.11's report table */
struct conf_line {
	char name[32];
	char value[128];
};
int conf_ext_lines(const struct conf_ext *x, const char *pref,
		   struct conf_line *lines, int max);

#endif
