// SPDX-License-Identifier: GPL-2.0-only
/*
 * Path facts in a run (core/pathrun.h).  The sysfs layout read here is
 * Linux's (Documentation/ABI: sysfs-class-infiniband, sysfs-bus-pci,
 * sysfs-class-net, sysfs-devices-system-cpu), under $SYSFS_PATH when set.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathrun.h"
#include "session.h"
#include "ctl.h"
#include "fabric.h"
#include "lib/alloc.h"
#include "lib/ceiling.h"
#include "lib/err.h"
#include "lib/ethlink.h"
#include "lib/numa.h"
#include "lib/sysfs.h"
#include "lib/tlv.h"
#include "lib/wire.h"
#include "output/sink.h"

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/* The speed a port's rate file names ("400 Gb/sec (4X NDR)"): exact for
 * XDR, which the legacy active_speed field cannot say. */
static void port_rate(struct path_facts *f)
{
	char rate[64];
	const char *x;
	const struct ceil_ib_speed *sp;

	if (sysfs_read(rate, sizeof(rate), "class/infiniband/%s/ports/%u/rate",
		       f->dev, f->port) < 0)
		return;
	x = strchr(rate, '(');
	if (!x || !(x = strchr(x, 'X')))
		return;
	copy(rate, sizeof(rate), x + 1);
	rate[strcspn(rate, ")")] = '\0';
	sp = ceil_ib_speed_named(rate);
	if (sp)
		f->speed = sp->code;
}

/* The PCIe link and NUMA node of the PCI function behind dir ("class/
 * infiniband/mlx5_0/device", "class/net/eth0/device"). */
static void pci_facts(struct path_facts *f, const char *dir)
{
	char buf[64];
	long v;

	if (sysfs_link_name(f->pci, sizeof(f->pci), "%s", dir) < 0)
		f->pci[0] = '\0';
	if (sysfs_read(buf, sizeof(buf), "%s/current_link_speed", dir) == 0)
		f->pcie_gen = ceil_pcie_gen_of(buf);
	if (sysfs_read(buf, sizeof(buf), "%s/max_link_speed", dir) == 0)
		f->pcie_max_gen = ceil_pcie_gen_of(buf);
	if (sysfs_long(&v, "%s/current_link_width", dir) == 0 && v > 0 &&
	    v <= 32)
		f->pcie_width = (uint32_t)v;
	if (sysfs_long(&v, "%s/max_link_width", dir) == 0 && v > 0 && v <= 32)
		f->pcie_max_width = (uint32_t)v;
	if (sysfs_long(&v, "%s/numa_node", dir) == 0 && v >= 0 &&
	    v <= FACTS_NUMA_MAX)
		f->dev_numa = (int32_t)v;
}

static void netdev_facts(struct path_facts *f)
{
	long v;

	if (!f->netdev[0])
		return;
	if (sysfs_long(&v, "class/net/%s/speed", f->netdev) == 0 && v > 0 &&
	    v <= 100000000)
		f->net_speed = (uint32_t)v;
	f->net_speed_max = ethlink_advertised_max(f->netdev);
	if (sysfs_long(&v, "class/net/%s/mtu", f->netdev) == 0 && v > 0 &&
	    v <= (1 << 20))
		f->net_mtu = (uint32_t)v;
}

/* An RDMA port's interface: RoCE's GID netdev, else the PCI function's
 * first network interface (IPoIB). */
static void rdma_netdev(struct path_facts *f)
{
	if (sysfs_read(f->netdev, sizeof(f->netdev),
		       "class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
		       f->dev, f->port) == 0)
		return;
	if (sysfs_first_entry(f->netdev, sizeof(f->netdev),
			      "class/infiniband/%s/device/net", f->dev) < 0)
		f->netdev[0] = '\0';
}

void pathrun_gather(const struct tsess *s, struct path_facts *f)
{
	char dir[96];
	int cpu = sched_getcpu();

	facts_init(f);
	if (s->tp && s->tp->facts)
		s->tp->facts(s, f);
	if (f->kind == FACTS_RDMA) {
		port_rate(f);
		snprintf(dir, sizeof(dir), "class/infiniband/%s/device", f->dev);
		pci_facts(f, dir);
		rdma_netdev(f);
		netdev_facts(f);
	} else if (f->kind == FACTS_SOCK && f->netdev[0] && !f->loopback) {
		snprintf(dir, sizeof(dir), "class/net/%s/device", f->netdev);
		pci_facts(f, dir);
		f->virt = !f->pci[0]; /* no device: veth, bridge, tun */
		netdev_facts(f);
	}
	if (s->numa_placed)
		f->test_numa = s->numa_node;
	else if (cpu >= 0)
		f->test_numa = sysfs_cpu_node((unsigned)cpu);
	if (cpu >= 0 &&
	    sysfs_read(f->governor, sizeof(f->governor),
		       "devices/system/cpu/cpu%d/cpufreq/scaling_governor",
		       cpu) < 0)
		f->governor[0] = '\0';
}

size_t pathrun_stat_add(const struct tside *sd, uint8_t *blk, size_t n,
			size_t cap)
{
	uint8_t v[FACTS_ENC_MAX];
	size_t k, m;

	if (!n || sd->ext_ver < 2 || !(sd->peer_caps & CAP_FACTS) ||
	    !sd->have_facts)
		return n;
	k = facts_encode(&sd->facts, v, sizeof(v));
	m = k ? tlv_append(blk, n, cap, STATX_FACTS, v, (uint16_t)k) : 0;
	return m ? m : n;
}

void pathrun_stat_take(struct tside *sd, const uint8_t *blk, size_t n)
{
	const uint8_t *val;
	uint16_t type, len;
	struct tlv_r r;

	if (sd->ext_ver < 2 || !(sd->peer_caps & CAP_FACTS))
		return;
	tlv_rinit(&r, blk, n);
	while (tlv_next(&r, &type, &val, &len) > 0)
		if (type == STATX_FACTS)
			sd->have_peer_facts =
				facts_decode(val, len, &sd->peer_facts) == 0;
}

static void say(struct path_seen *seen, struct outputs *out,
		const struct path_report *r);

/* FNV-1a of a finding's end and text. */
static uint32_t find_hash(const struct path_finding *f)
{
	uint32_t h = 2166136261u ^ (uint32_t)f->end;

	for (const char *p = f->text; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return h;
}

static bool seen_before(struct path_seen *seen, uint32_t h)
{
	for (uint32_t i = 0; i < seen->n; i++)
		if (seen->hash[i] == h)
			return true;
	if (seen->n < PATH_SEEN_MAX)
		seen->hash[seen->n++] = h;
	return false;
}

void pathrun_result(struct path_seen *seen, struct outputs *out,
		    const struct tside *sd, struct results *res,
		    struct path_report *r)
{
	const struct test_desc *t = sd->t;
	unsigned fl = t->tp ? t->tp->flags : 0;
	struct path_msg m = {
		.size = sd->p.msg_size,
		.per_msg = t->op == OP_WRITE || t->op == OP_WRITE_IMM ||
					   t->op == OP_READ ? CEIL_RETH : 0,
		.udp = (fl & TF_LOSSY) && !(fl & TF_RDMA),
		.stream = !(fl & (TF_LOSSY | TF_RDMA)),
		.bidir = t->loop == LOOP_BI_BW,
	};

	memset(r, 0, sizeof(*r));
	r->have[PATH_CLIENT] = sd->have_facts;
	r->f[PATH_CLIENT] = sd->facts;
	r->have[PATH_SERVER] = sd->have_peer_facts;
	r->f[PATH_SERVER] = sd->peer_facts;
	path_findings(r);
	if (t->measure == MEAS_BANDWIDTH || t->measure == MEAS_BANDWIDTH_SR) {
		path_ceiling(r, &m);
		res->ceil = r->ceil;
		if (!r->ceil.valid) /* what the report says instead */
			snprintf(res->ceil.what, sizeof(res->ceil.what), "%s",
				 r->note);
	}
	say(seen, out, r);
}

void pathrun_pre_of(const struct req *q, struct path_pre *pre)
{
	const struct test_desc *t =
		q->preflight ? test_by_index(q->preflight - 1) : NULL;

	memset(pre, 0, sizeof(*pre));
	if (!t)
		return;
	pre->on = true;
	pre->rdma = t->tp && (t->tp->flags & TF_RDMA);
	copy(pre->dev, sizeof(pre->dev), q->id);
	pre->dev[strcspn(pre->dev, ":")] = '\0';
	pre->affinity = q->affinity;
	pre->numa_set = (q->vk_set >> (PAR_NUMA_NODE - PAR_VK_FIRST)) & 1;
}

/* The node a preflight's test will run on for a device on node dev (as
 * verbs_numa_place() and pathrun_gather() see it), or -1 if unknown. */
static int pre_node(const struct path_pre *pre, int dev, int cpu)
{
	int n;

	if (pre->affinity) {
		n = qnuma_cpu_node(pre->affinity - 1);
		return n >= 0 ? n : sysfs_cpu_node(pre->affinity - 1);
	}
	if (dev >= 0 && qnuma_nodes_count() > 0)
		return dev < qnuma_nodes_count() ? dev : -1;
	return cpu >= 0 ? sysfs_cpu_node((unsigned)cpu) : -1;
}

/* Does a conf test (pre NULL or off) or a preflight check device d? */
static bool pre_wants(const struct path_pre *pre, const struct conf_ext *x,
		      uint32_t d)
{
	if (!pre || !pre->on)
		return true;
	if (!pre->rdma)
		return false;
	return pre->dev[0] ? strcmp(pre->dev, x->fab.devs[d].name) == 0 :
			     d == 0;
}

/*
 * The host checks of one end from its fabric (x) and sysfs: conf's, every
 * port of every RDMA device, and the governor, no NUMA check (no test
 * ran); a preflight's (pre on) as pathrun.h says.  Findings into r, each
 * once.
 */
static void conf_check(const struct conf_ext *x, const struct path_pre *pre,
		       int end, struct path_report *r)
{
	struct path_report one;
	struct path_facts *f = &one.f[end];
	char dir[96];
	int cpu = sched_getcpu();
	uint32_t ndev = x->fab.ndevs < FAB_DEV_MAX ? x->fab.ndevs : FAB_DEV_MAX;

	memset(r, 0, sizeof(*r));
	for (uint32_t d = 0; d <= ndev; d++) {
		const struct fab_dev *fd = d < ndev ? &x->fab.devs[d] : NULL;
		uint32_t np = fd ? (fd->nports < FAB_PORT_MAX ? fd->nports :
								 FAB_PORT_MAX) :
				   1;

		if (fd && (!np || !pre_wants(pre, x, d)))
			continue;
		for (uint32_t p = 0; p < np; p++) {
			memset(&one, 0, sizeof(one));
			one.have[end] = true;
			facts_init(f);
			if (cpu >= 0 &&
			    sysfs_read(f->governor, sizeof(f->governor),
				       "devices/system/cpu/cpu%d/cpufreq/scaling_governor",
				       cpu) < 0)
				f->governor[0] = '\0';
			if (fd) {
				f->kind = FACTS_RDMA;
				copy(f->dev, sizeof(f->dev), fd->name);
				f->port = fd->ports[p].port;
				f->link_layer = fd->ports[p].link_layer;
				f->active_mtu = fd->ports[p].active_mtu;
				f->width = fd->ports[p].width;
				f->speed = fd->ports[p].speed;
				f->width_enabled = fd->ports[p].width_enabled;
				f->speed_enabled = fd->ports[p].speed_enabled;
				snprintf(dir, sizeof(dir),
					 "class/infiniband/%s/device", f->dev);
				pci_facts(f, dir);
				if (pre && pre->on && !pre->numa_set)
					f->test_numa =
						pre_node(pre, f->dev_numa, cpu);
			}
			path_findings(&one);
			for (uint32_t i = 0; i < one.nfind; i++) {
				bool dup = false;

				for (uint32_t j = 0; j < r->nfind; j++)
					dup |= strcmp(r->find[j].text,
						      one.find[i].text) == 0;
				if (!dup && r->nfind < PATH_FINDINGS_MAX)
					r->find[r->nfind++] = one.find[i];
			}
		}
		if (!fd)
			break;
	}
}

/* Say each finding of r not yet said in this run. */
static void say(struct path_seen *seen, struct outputs *out,
		const struct path_report *r)
{
	for (uint32_t i = 0; i < r->nfind; i++)
		if (!seen_before(seen, find_hash(&r->find[i])))
			out_warning(out, "%s: %s", path_end_name(r->find[i].end),
				    r->find[i].text);
}

uint32_t pathrun_host_check(const struct path_pre *pre,
			    struct path_finding *f, uint32_t max)
{
	struct conf_ext *x = xcalloc(1, sizeof(*x));
	struct path_report *r = xmalloc(sizeof(*r));
	uint32_t n;

	conf_ext_local(x);
	conf_check(x, pre, PATH_CLIENT, r);
	n = r->nfind < max ? r->nfind : max;
	memcpy(f, r->find, n * sizeof(*f));
	free(r);
	free(x);
	return n;
}

size_t pathrun_conf_add(const struct conf_ext *x, const struct path_pre *pre,
			uint8_t *blk, size_t n, size_t cap)
{
	struct path_report *r = xmalloc(sizeof(*r));
	char v[256];

	conf_check(x, pre, PATH_SERVER, r);
	for (uint32_t i = 0; i < r->nfind && n; i++) {
		size_t k = xsnprintf(v, sizeof(v), "%s%c%s", r->find[i].check,
				     '\0', r->find[i].text);
		size_t m = tlv_append(blk, n, cap, CONFX_FINDING, v,
				      (uint16_t)k);

		if (m)
			n = m;
	}
	free(r);
	return n;
}

void pathrun_conf(struct path_seen *seen, struct outputs *out,
		  const struct conf_ext *lx, const struct path_pre *pre,
		  const uint8_t *blk, size_t n)
{
	struct path_report *r = xmalloc(sizeof(*r));
	struct conf_ext *own = NULL;
	const uint8_t *val;
	uint16_t type, len;
	struct tlv_r tr;

	if (!lx) {
		own = xcalloc(1, sizeof(*own));
		conf_ext_local(own);
		lx = own;
	}
	conf_check(lx, pre, PATH_CLIENT, r);
	say(seen, out, r);
	memset(r, 0, sizeof(*r));
	if (blk) {
		tlv_rinit(&tr, blk, n);
		while (tlv_next(&tr, &type, &val, &len) > 0 &&
		       r->nfind < PATH_FINDINGS_MAX) {
			struct path_finding *f = &r->find[r->nfind];
			char check[24];
			size_t c = strnlen((const char *)val, len);

			if (type != CONFX_FINDING || c >= len ||
			    tlv_val_str(check, sizeof(check), val, (uint16_t)c,
					TLVF_NONUL) < 0 ||
			    !(f->check = path_check_name(check)) ||
			    tlv_val_str(f->text, sizeof(f->text), val + c + 1,
					(uint16_t)(len - c - 1),
					TLVF_TRUNC | TLVF_PRINT) < 0)
				continue; /* not a finding we can show */
			f->end = PATH_SERVER;
			r->nfind++;
		}
	}
	say(seen, out, r);
	free(own);
	free(r);
}
