// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fabric and host figures of conf as text (conf_text.h): ibstat's
 * names, GIDs, and the -vx lines of each end.  Pure.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conf_text.h"
#include "lib/err.h"

const char *fab_state_str(uint32_t state)
{
	static const char *const names[] = { "NOP", "Down", "Initializing",
					     "Armed", "Active",
					     "ActiveDefer" };

	return state < 6 ? names[state] : "Unknown";
}

const char *fab_phys_state_str(uint32_t phys)
{
	static const char *const names[] = {
		"NoStateChange", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
		"PhyTest"
	};

	return phys < 8 ? names[phys] : "Unknown";
}

const char *fab_link_layer_str(uint32_t ll)
{
	return ll == 2 ? "Ethernet" : "InfiniBand";
}

const char *fab_gid_type_str(uint32_t type)
{
	return type == FAB_GID_ROCE_V2 ? "RoCE v2" :
	       type == FAB_GID_ROCE_V1 ? "RoCE v1" :
					 "IB";
}

void fab_gid_str(const uint8_t gid[16], char *out, size_t len)
{
	char b[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, gid, b, sizeof(b)))
		b[0] = '\0';
	xsnprintf(out, len, "%s", b);
}

static int line(struct conf_line *lines, int n, int max, const char *pref,
		const char *name, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int line(struct conf_line *lines, int n, int max, const char *pref,
		const char *name, const char *fmt, ...)
{
	va_list ap;

	if (n >= max)
		return n;
	xsnprintf(lines[n].name, sizeof(lines[n].name), "%s%s", pref, name);
	va_start(ap, fmt);
	vsnprintf(lines[n].value, sizeof(lines[n].value), fmt, ap);
	va_end(ap);
	return n + 1;
}

int conf_ext_lines(const struct conf_ext *x, const char *pref,
		   struct conf_line *lines, int max)
{
	const struct fabric *f = &x->fab;
	char num[16];
	int n = 0;

	if (!x->valid)
		return line(lines, n, max, pref, "fabric", "%s",
			    "unknown (the peer runs qperf 0.4)");
	n = line(lines, n, max, pref, "kernel", "%s %s", x->kernel,
		 x->machine);
	xsnprintf(num, sizeof(num), "%d", x->numa_nodes);
	n = line(lines, n, max, pref, "numa_nodes", "%s",
		 x->numa_nodes < 0 ? "unknown" : num);
	if (!f->ndevs)
		n = line(lines, n, max, pref, "rdma_devs", "none");
	for (uint32_t d = 0; d < f->ndevs; d++) {
		const struct fab_dev *dv = &f->devs[d];

		xsnprintf(num, sizeof(num), "%d", dv->numa_node);
		n = line(lines, n, max, pref, "rdma_dev", "%s (numa_node %s)",
			 dv->name, dv->numa_node < 0 ? "unknown" : num);
		for (uint32_t p = 0; p < dv->nports; p++) {
			const struct fab_port *pt = &dv->ports[p];
			uint64_t rate = (uint64_t)pt->width * pt->speed_mbps;

			n = line(lines, n, max, pref, "rdma_port",
				 "%s:%u %s %s, rate %llu Gb/s (%uX), %s, active_mtu %u, lid %u",
				 dv->name, pt->port, fab_state_str(pt->state),
				 fab_phys_state_str(pt->phys_state),
				 (unsigned long long)(rate / 1000), pt->width,
				 fab_link_layer_str(pt->link_layer),
				 pt->active_mtu, pt->lid);
			for (uint32_t g = 0; g < pt->ngids; g++) {
				char gs[64];

				fab_gid_str(pt->gids[g].gid, gs, sizeof(gs));
				n = line(lines, n, max, pref, "rdma_gid",
					 "%s:%u[%u] %s (%s)", dv->name,
					 pt->port, pt->gids[g].index, gs,
					 fab_gid_type_str(pt->gids[g].type));
			}
		}
	}
	bool full = n == max && max > 0;

	if (full)
		n--; /* the last line says that the list is cut */
	if (f->truncated || full)
		n = line(lines, n, max, pref, "rdma_more", "%s",
			 "more entries than conf shows");
	return n;
}
