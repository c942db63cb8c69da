// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fabric state of this host for conf (-vx, JSON): every RDMA device
 * and port as ibstat / ibv_devinfo show them, the non-empty GID entries
 * with their type, and the NUMA node of each device from sysfs
 * (<ibdev_path>/device/numa_node; softverbs' ibdev_path is settable with
 * SOFTVERBS_IBDEV_PATH, docs/softverbs.md).  Queries only: opens each
 * device, reads, closes.  Never prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "lib/portinfo.h"
#include "verbs.h"
#include "verbs_int.h"

/* Signalling rate of one lane (Mb/s) for ibv_port_attr.active_speed, as
 * ibstat counts it (FDR10 as 10 Gb/s). */
static uint32_t speed_mbps(uint8_t s)
{
	switch (s) {
	case 1: return 2500; /* SDR */
	case 2: return 5000; /* DDR */
	case 4: return 10000; /* QDR */
	case 8: return 10000; /* FDR10 */
	case 16: return 14000; /* FDR */
	case 32: return 25000; /* EDR */
	case 64: return 50000; /* HDR */
	case 128: return 100000; /* NDR */
	default: return 0;
	}
}

/* The device's NUMA node from sysfs, or -1 (absent, or "-1"). */
static int32_t numa_node(const struct ibv_device *d)
{
	char path[IBV_SYSFS_PATH_MAX + 32], buf[32];
	ssize_t n;
	long v;
	char *end;
	int fd;

	if (snprintf(path, sizeof(path), "%s/device/numa_node",
		     d->ibdev_path) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < -1 || v > 65535)
		return -1;
	return (int32_t)v;
}

static uint32_t gid_type(enum ibv_gid_type t)
{
	return t == IBV_GID_TYPE_ROCE_V2 ? FAB_GID_ROCE_V2 :
	       t == IBV_GID_TYPE_ROCE_V1 ? FAB_GID_ROCE_V1 :
					   FAB_GID_IB;
}

static void port_fill(struct ibv_context *ctx, uint8_t num,
		      const struct ibv_port_attr *pa, struct fab_port *p,
		      bool *truncated)
{
	memset(p, 0, sizeof(*p));
	p->port = num;
	p->state = (uint32_t)pa->state;
	p->phys_state = pa->phys_state;
	p->width = pi_width_lanes(pa->active_width);
	p->speed_mbps = speed_mbps(pa->active_speed);
	p->link_layer = pa->link_layer == IBV_LINK_LAYER_ETHERNET ? 2 : 1;
	p->active_mtu = verbs_mtu_bytes(pa->active_mtu);
	p->lid = p->link_layer == 2 ? 0 : pa->lid;
	p->speed = pa->active_speed;
	if (p->link_layer == 1)
		verbs_umad_enabled(ibv_get_device_name(ctx->device), num,
				   &p->width_enabled, &p->speed_enabled);
	for (int i = 0; i < pa->gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		static const uint8_t zero[16];

		memset(&e, 0, sizeof(e));
		if (ibv_query_gid_ex(ctx, num, (uint32_t)i, &e, 0) ||
		    memcmp(e.gid.raw, zero, 16) == 0)
			continue; /* an empty entry */
		if (p->ngids == FAB_GID_MAX) {
			*truncated = true;
			break;
		}
		p->gids[p->ngids].index = (uint32_t)i;
		p->gids[p->ngids].type = p->link_layer == 2 ?
						 gid_type(e.gid_type) :
						 FAB_GID_IB;
		memcpy(p->gids[p->ngids].gid, e.gid.raw, 16);
		p->ngids++;
	}
}

static void dev_fill(struct ibv_device *d, struct fab_dev *fd,
		     bool *truncated)
{
	struct ibv_context *ctx;
	struct ibv_device_attr da;

	memset(fd, 0, sizeof(*fd));
	snprintf(fd->name, sizeof(fd->name), "%s", ibv_get_device_name(d));
	fd->numa_node = numa_node(d);
	ctx = ibv_open_device(d);
	if (!ctx)
		return; /* listed without ports */
	if (ibv_query_device(ctx, &da) == 0) {
		for (uint8_t i = 1; i <= da.phys_port_cnt; i++) {
			struct ibv_port_attr pa;

			if (fd->nports == FAB_PORT_MAX) {
				*truncated = true;
				break;
			}
			memset(&pa, 0, sizeof(pa));
			if (ibv_query_port(ctx, i, &pa))
				continue;
			port_fill(ctx, i, &pa, &fd->ports[fd->nports++],
				  truncated);
		}
	}
	ibv_close_device(ctx);
}

void verbs_fabric_query(struct fabric *f)
{
	struct ibv_device **list;
	int n = 0;

	memset(f, 0, sizeof(*f));
	list = ibv_get_device_list(&n);
	if (!list)
		return; /* no RDMA here: no devices */
	for (int i = 0; i < n; i++) {
		if (f->ndevs == FAB_DEV_MAX) {
			f->truncated = true;
			break;
		}
		dev_fill(list[i], &f->devs[f->ndevs++], &f->truncated);
	}
	ibv_free_device_list(list);
}

void verbs_facts(const struct tsess *s, struct path_facts *f)
{
	const struct verbs_priv *v = s->priv;
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					      0xff, 0xff };

	if (!v || !v->ctx)
		return;
	f->kind = FACTS_RDMA;
	snprintf(f->dev, sizeof(f->dev), "%s", v->info.device);
	f->port = v->info.port;
	f->link_layer = v->info.roce ? FACTS_LL_ETH : FACTS_LL_IB;
	f->speed = v->pattr.active_speed;
	f->width = pi_width_lanes(v->pattr.active_width);
	f->active_mtu = v->info.active_mtu;
	f->max_mtu = verbs_mtu_bytes(v->pattr.max_mtu);
	f->path_mtu = v->info.path_mtu;
	if (!v->info.roce) /* LinkWidthEnabled, LinkSpeedEnabled */
		verbs_umad_enabled(f->dev, f->port, &f->width_enabled,
				   &f->speed_enabled);
	f->pkt_extra = v->k && v->k->qp_type == IBV_QPT_UD ? 8 : 0; /* DETH */
	if (v->info.roce) {
		f->roce = v->info.gid_type == VG_ROCE_V1 ? FACTS_ROCE_V1 :
							  FACTS_ROCE_V2;
		f->ip6 = memcmp(v->info.gid, v4mapped, 12) != 0;
	}
}
