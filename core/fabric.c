// SPDX-License-Identifier: GPL-2.0-only
/*
 * conf beyond 0.4.11: this host's kernel, CPUs, NUMA nodes and fabric
 * state, the CONF extension codec and the -vx conf lines (fabric.h).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "transports/transport.h"
#include "fabric.h"
#include "output/report.h"
#include "lib/tlv.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/wire.h"

/* NUMA nodes of this host (sysfs), or -1 if it does not say. */
static int32_t numa_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int32_t n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "node", 4) == 0 &&
		    e->d_name[4] >= '0' && e->d_name[4] <= '9')
			n++;
	closedir(d);
	return n ? n : -1;
}

void conf_ext_local(struct conf_ext *x)
{
	struct utsname u;

	memset(x, 0, sizeof(*x));
	x->valid = true;
	if (uname(&u) == 0) {
		xsnprintf(x->kernel, sizeof(x->kernel), "%s", u.release);
		xsnprintf(x->machine, sizeof(x->machine), "%s", u.machine);
	}
	x->numa_nodes = numa_nodes();
	x->cpus = cpu_count();
	fabric_query(&x->fab);
}

/* Room for an item of len bytes plus the truncation mark after it. */
static bool room(const struct tlv_w *w, size_t len)
{
	return w->len + 4 + len + 8 <= w->cap;
}

static void put_str(struct tlv_w *w, uint16_t type, const char *s,
		    size_t cap)
{
	tlv_bytes(w, type, s, (uint16_t)strnlen(s, cap));
}

size_t conf_ext_encode(const struct conf_ext *x, uint8_t *out, size_t cap)
{
	const struct fabric *f = &x->fab;
	bool cut = f->truncated;
	struct tlv_w w;

	tlv_init(&w, out, cap);
	put_str(&w, CONFX_KERNEL, x->kernel, sizeof(x->kernel));
	put_str(&w, CONFX_MACHINE, x->machine, sizeof(x->machine));
	if (x->numa_nodes >= 0)
		tlv_u32(&w, CONFX_NUMA_NODES, (uint32_t)x->numa_nodes);
	tlv_u32(&w, CONFX_CPUS, x->cpus);
	for (uint32_t d = 0; d < f->ndevs && !cut; d++) {
		const struct fab_dev *dv = &f->devs[d];

		if (!room(&w, 64 + 8)) {
			cut = true;
			break;
		}
		put_str(&w, CONFX_DEV, dv->name, sizeof(dv->name));
		if (dv->numa_node >= 0)
			tlv_u32(&w, CONFX_DEV_NUMA, (uint32_t)dv->numa_node);
		for (uint32_t p = 0; p < dv->nports && !cut; p++) {
			const struct fab_port *pt = &dv->ports[p];
			uint32_t v[8] = { pt->port, pt->state, pt->phys_state,
					  pt->width, pt->speed_mbps,
					  pt->link_layer, pt->active_mtu,
					  pt->lid };
			uint8_t b[CONFX_PORT_LEN];

			if (!room(&w, CONFX_PORT_LEN)) {
				cut = true;
				break;
			}
			for (int i = 0; i < 8; i++)
				wire_put(b + 4 * i, v[i], 4);
			tlv_bytes(&w, CONFX_PORT, b, sizeof(b));
			for (uint32_t g = 0; g < pt->ngids; g++) {
				uint8_t gb[CONFX_GID_LEN];

				if (!room(&w, CONFX_GID_LEN)) {
					cut = true;
					break;
				}
				wire_put(gb, pt->gids[g].index, 4);
				wire_put(gb + 4, pt->gids[g].type, 4);
				memcpy(gb + 8, pt->gids[g].gid, 16);
				tlv_bytes(&w, CONFX_GID, gb, sizeof(gb));
			}
		}
	}
	if (cut)
		tlv_u32(&w, CONFX_TRUNCATED, 1);
	return tlv_finish(&w);
}

/* One item of a device, port or GID; false if malformed. */
static bool fab_item(struct fabric *f, uint16_t type, const uint8_t *val,
		     uint16_t len)
{
	struct fab_dev *dv = f->ndevs ? &f->devs[f->ndevs - 1] : NULL;
	struct fab_port *pt = dv && dv->nports ? &dv->ports[dv->nports - 1] :
						 NULL;
	uint32_t u, v[8];

	switch (type) {
	case CONFX_DEV:
		if (f->ndevs == FAB_DEV_MAX) {
			f->truncated = true;
			return true;
		}
		dv = &f->devs[f->ndevs++];
		memset(dv, 0, sizeof(*dv));
		dv->numa_node = -1;
		(void)tlv_val_str(dv->name, sizeof(dv->name), val, len,
				  TLVF_TRUNC | TLVF_PRINT);
		return true;
	case CONFX_DEV_NUMA:
		if (!tlv_val_u32(val, len, &u) || u > 65535)
			return false;
		if (dv)
			dv->numa_node = (int32_t)u;
		return true;
	case CONFX_PORT:
		if (len != CONFX_PORT_LEN)
			return false;
		if (!dv)
			return true;
		if (dv->nports == FAB_PORT_MAX) {
			f->truncated = true;
			return true;
		}
		for (int i = 0; i < 8; i++)
			v[i] = (uint32_t)wire_get(val + 4 * i, 4);
		dv->ports[dv->nports++] = (struct fab_port){
			.port = v[0], .state = v[1], .phys_state = v[2],
			.width = v[3], .speed_mbps = v[4], .link_layer = v[5],
			.active_mtu = v[6], .lid = v[7]
		};
		return true;
	case CONFX_GID:
		if (len != CONFX_GID_LEN)
			return false;
		if (!pt)
			return true;
		if (pt->ngids == FAB_GID_MAX) {
			f->truncated = true;
			return true;
		}
		pt->gids[pt->ngids].index = (uint32_t)wire_get(val, 4);
		pt->gids[pt->ngids].type = (uint32_t)wire_get(val + 4, 4);
		memcpy(pt->gids[pt->ngids].gid, val + 8, 16);
		pt->ngids++;
		return true;
	default:
		return true;
	}
}

/* The device, port and GID items (CONFX_DEV .. CONFX_GID). */
static int fab_item_fn(void *dst, const struct tlv_field *f, uint16_t type,
		       const uint8_t *val, uint16_t len)
{
	(void)f;
	return fab_item(&((struct conf_ext *)dst)->fab, type, val, len) ? 0
									: -1;
}

#define CONFX_F(t, k, field, ...)                                         \
	{ .type = (t), .kind = (k), .off = offsetof(struct conf_ext, field), \
	  .size = sizeof(((struct conf_ext *)0)->field), __VA_ARGS__ }

static const struct tlv_field confx_tab[] = {
	CONFX_F(CONFX_KERNEL, TLV_STR, kernel,
		.flags = TLVF_TRUNC | TLVF_PRINT),
	CONFX_F(CONFX_MACHINE, TLV_STR, machine,
		.flags = TLVF_TRUNC | TLVF_PRINT),
	CONFX_F(CONFX_NUMA_NODES, TLV_U32, numa_nodes, .max = 65535),
	CONFX_F(CONFX_CPUS, TLV_U32, cpus),
	CONFX_F(CONFX_TRUNCATED, TLV_FLAG, fab.truncated),
	{ .type = CONFX_DEV, .count = CONFX_GID - CONFX_DEV + 1,
	  .kind = TLV_FN, .fn = fab_item_fn },
};

int conf_ext_decode(const uint8_t *in, size_t len, struct conf_ext *x)
{
	memset(x, 0, sizeof(*x));
	x->valid = true;
	x->numa_nodes = -1;
	return tlv_decode(in, len, confx_tab, ARRAY_SIZE(confx_tab), x,
			  NULL) < 0
		       ? -1
		       : 0;
}
