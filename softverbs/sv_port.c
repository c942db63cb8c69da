// SPDX-License-Identifier: MIT
/*
 * The port's link: speed, width and MTUs, from the environment
 * (SOFTVERBS_SPEED, SOFTVERBS_WIDTH, SOFTVERBS_MTU, SOFTVERBS_MAX_MTU).
 *
 * A value is one setting for every node, or a comma-separated list whose
 * entries "N:VALUE" apply to node N only and whose plain entry to the
 * others: SOFTVERBS_WIDTH="4x,3:1x" gives node 3 a 1X port.  A bad value
 * is a configuration error: one line on stderr naming it, and the device
 * is not listed (sv_cfg.config_err), so no program runs on a port it did
 * not ask for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sv_internal.h"
#include "sv_knob.h"

/* "4096" -> IBV_MTU_4096; 0 if not an IB MTU */
static uint32_t parse_mtu(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end)
		return 0;
	switch (v) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}

/* The value of knob name for this node (sv_knob.h). */
static uint32_t knob(const char *name, uint32_t (*parse)(const char *),
		     const char *accepted, uint32_t def)
{
	return sv_knob(name, parse, accepted, def, sv_cfg.node, sv_log);
}

/*
 * A planted tree (SOFTVERBS_SYSFS) says the port's speed and width in
 * ports/1/rate, as the kernel writes it ("400 Gb/sec (4X NDR)"): they are
 * the defaults then, so the tree and the verbs agree; so is its state.
 */
static void rate_of_tree(uint32_t *speed, uint32_t *width)
{
	char path[sizeof(sv_cfg.sysfs) + 128], buf[64], name[16] = "SDR";
	const char *p;
	unsigned int lanes;
	FILE *f;

	if (!sv_cfg.sysfs[0])
		return;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/rate",
		 sv_cfg.sysfs, sv_cfg.dev_name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && (p = strchr(buf, '(')) &&
	    sscanf(p, "(%uX %15[A-Z0-9]", &lanes, name) >= 1) {
		char l[16];
		uint32_t w, sp = parse_speed(name);

		snprintf(l, sizeof(l), "%u", lanes);
		w = parse_width(l);
		if (sp && w) {
			*speed = sp;
			*width = w;
		}
	}
	fclose(f);
	/* and a port planted DOWN is down (SOFTVERBS_FAULT_PORT_DOWN aside) */
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/state",
		 sv_cfg.sysfs, sv_cfg.dev_name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "1: DOWN", 7))
		sv_cfg.port_down = true;
	fclose(f);
}

void sv_port_config(void)
{
	uint32_t v, speed = 32, width = 2;	/* 4X EDR */

	rate_of_tree(&speed, &width);
	v = knob("SOFTVERBS_SPEED", parse_speed, SV_SPEED_ACCEPTED, speed);
	sv_cfg.speed = v;
	v = knob("SOFTVERBS_WIDTH", parse_width, SV_WIDTH_ACCEPTED, width);
	sv_cfg.width = (uint8_t)v;
	v = knob("SOFTVERBS_MTU", parse_mtu,
		 "an MTU (256, 512, 1024, 2048, 4096)", IBV_MTU_4096);
	sv_cfg.mtu = (enum ibv_mtu)v;
	v = knob("SOFTVERBS_MAX_MTU", parse_mtu,
		 "an MTU (256, 512, 1024, 2048, 4096)", IBV_MTU_4096);
	sv_cfg.max_mtu = (enum ibv_mtu)v;
	if (!sv_cfg.speed || !sv_cfg.width || !sv_cfg.mtu || !sv_cfg.max_mtu) {
		sv_cfg.config_err = true;
		return;
	}
	if (sv_cfg.mtu > sv_cfg.max_mtu) {
		sv_log("SOFTVERBS_MTU: %u is above SOFTVERBS_MAX_MTU %u",
		       128u << sv_cfg.mtu, 128u << sv_cfg.max_mtu);
		sv_cfg.config_err = true;
	}
}

/* rdma-core v48+ appends active_speed_ex (u32) after port_cap_flags2 */
#define SV_SPEED_EX_OFF \
	((offsetof(struct ibv_port_attr, port_cap_flags2) + 2 + 3) & ~(size_t)3)

void sv_port_fill(struct ibv_port_attr *a)
{
	a->max_mtu = sv_cfg.max_mtu;
	a->active_mtu = sv_cfg.mtu;
	a->active_width = sv_cfg.width;
	/* the kernel's legacy field stops at NDR (XDR reads as NDR there) */
	a->active_speed = (uint8_t)(sv_cfg.speed > 128 ? 128 : sv_cfg.speed);
	if (sv_cfg.width == 16)
		a->port_cap_flags2 |= IBV_PORT_LINK_WIDTH_2X_SUP;
	if (sv_cfg.speed >= 64)
		a->port_cap_flags2 |= IBV_PORT_LINK_SPEED_HDR_SUP;
	if (sv_cfg.speed >= 128)
		a->port_cap_flags2 |= IBV_PORT_LINK_SPEED_NDR_SUP;
}

void sv_port_copy(void *attr, size_t len, const struct ibv_port_attr *a)
{
	uint32_t ex = sv_cfg.speed;

	memset(attr, 0, len);
	memcpy(attr, a, len < sizeof(*a) ? len : sizeof(*a));
	if (len >= SV_SPEED_EX_OFF + sizeof(ex))
		memcpy((char *)attr + SV_SPEED_EX_OFF, &ex, sizeof(ex));
}
