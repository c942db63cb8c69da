// SPDX-License-Identifier: MIT
/*
 * Devices, contexts, queries, protection domains, memory regions and
 * address handles.  One device (default "softv0") with one ACTIVE port; the
 * port's LID comes from SOFTVERBS_NODE, the emulated host; its GID table
 * is in sv_gid.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sv_internal.h"

#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct sv_config sv_cfg;
static pthread_once_t sv_cfg_once = PTHREAD_ONCE_INIT;
static struct sv_device sv_the_device;

static double env_rate(const char *name)
{
	const char *s = getenv(name);
	double v;

	if (!s || !*s)
		return 0;
	v = strtod(s, NULL);
	if (v > 1 && v <= 100)
		v /= 100;	/* "5" means 5 % */
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
	return sv_env_ulong(name, def, false);
}

static void config_load_once(void)
{
	const char *s;

	s = getenv("SOFTVERBS_DEV");
	snprintf(sv_cfg.dev_name, sizeof(sv_cfg.dev_name), "%s",
		 s && *s ? s : "softv0");
	s = getenv("SOFTVERBS_FABRIC");
	snprintf(sv_cfg.fabric, sizeof(sv_cfg.fabric), "%s",
		 s && *s ? s : "default");
	sv_cfg.node = env_ulong("SOFTVERBS_NODE", 1);
	if (sv_cfg.node == 0 || sv_cfg.node > 0xbfff)
		sv_cfg.node = 1;
	s = getenv("SOFTVERBS_LINK_LAYER");
	sv_cfg.roce = s && (!strcasecmp(s, "eth") || !strcasecmp(s, "roce") ||
			    !strcasecmp(s, "ethernet"));
	s = getenv("SOFTVERBS_SYSFS");
	snprintf(sv_cfg.sysfs, sizeof(sv_cfg.sysfs), "%s", s ? s : "");
	sv_port_config();
	sv_cfg.debug = (int)env_ulong("SOFTVERBS_DEBUG", 0);
	sv_cfg.drop = env_rate("SOFTVERBS_FAULT_DROP");
	sv_cfg.dup = env_rate("SOFTVERBS_FAULT_DUP");
	sv_cfg.reorder = env_rate("SOFTVERBS_FAULT_REORDER");
	sv_cfg.delay = env_rate("SOFTVERBS_FAULT_DELAY");
	sv_cfg.ecn = env_rate("SOFTVERBS_FAULT_ECN");
	sv_cfg.delay_us = env_ulong("SOFTVERBS_FAULT_DELAY_US", 1000);
	sv_cfg.seed = env_ulong("SOFTVERBS_FAULT_SEED", 0);
	sv_cfg.force_rnr = env_ulong("SOFTVERBS_FAULT_RNR", 0);
	sv_cfg.qp_fatal_after = env_ulong("SOFTVERBS_FAULT_QP_FATAL", 0);
	sv_cfg.null_mode = env_ulong("SOFTVERBS_NULL", 0) != 0;
	sv_cfg.max_qp = env_ulong("SOFTVERBS_MAX_QP", SV_MAX_QP);
	if (sv_cfg.max_qp < 1 || sv_cfg.max_qp > SV_MAX_QP)
		sv_cfg.max_qp = SV_MAX_QP;
	sv_cfg.max_cq = env_ulong("SOFTVERBS_MAX_CQ", SV_MAX_QP);
	if (sv_cfg.max_cq < 1 || sv_cfg.max_cq > SV_MAX_QP)
		sv_cfg.max_cq = SV_MAX_QP;
	s = getenv("SOFTVERBS_FAULT_PORT_DOWN");
	if (s && *s) {
		unsigned long ms = strtoul(s, NULL, 0);

		if (!strcmp(s, "0") || !strcasecmp(s, "now"))
			sv_cfg.port_down = true;
		else
			sv_cfg.port_down_ms = ms;
	}
	sv_gid_config();
}

void sv_config_load(void)
{
	pthread_once(&sv_cfg_once, config_load_once);
}

void sv_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sv_vlog("softverbs", fmt, ap);
	va_end(ap);
}

uint64_t sv_transport_timeout_ns(uint8_t timeout, uint8_t retry_cnt)
{
	if (timeout == 0)
		return UINT64_MAX;	/* IBTA: infinite */
	if (timeout > 31)
		timeout = 31;
	/* 4.096 us * 2^timeout per try */
	return (4096ull << timeout) * (uint64_t)(retry_cnt + 1);
}

uint64_t sv_rnr_timer_ns(uint8_t code)
{
	/* IBTA table 45, microseconds * 100 */
	static const uint32_t t[32] = {
		6553600, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128,
		192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144,
		8192, 12288, 16384, 24576, 32768, 49152,
	};
	return (uint64_t)t[code & 31] * 10000ull;
}

double sv_random(void)
{
	static __thread uint64_t s;

	if (!s)
		s = sv_cfg.seed ? sv_cfg.seed : (sv_now_ns() ^ (uint64_t)getpid());
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return (double)(s >> 11) / (double)(1ull << 53);
}

static uint64_t node_guid(void)
{
	return htobe64(0x02c0ffee00000000ull | sv_cfg.node);
}

/* ---- device list ---------------------------------------------------------- */

/*
 * SOFTVERBS_NUMA_NODE=N: the device reports NUMA node N the way a real
 * one does, through sysfs under ibdev_path (<ibdev_path>/device/numa_node,
 * as in /sys/class/infiniband/<dev>/device/numa_node).  softverbs has no
 * sysfs entry of its own, so it keeps a tree of that shape in $TMPDIR
 * (default /tmp), softverbs-sysfs-<uid>/node<N>/<dev>/device/numa_node,
 * and points ibdev_path at it.  The path depends only on uid, N and the
 * device name: every process shares it and it never grows (remove it with
 * the temporary directory).  Without the variable ibdev_path names the
 * usual sysfs path, which does not exist: no node, as on a platform that
 * does not say.
 */
static int mkdir_ok(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

static void numa_sysfs(struct ibv_device *d)
{
	const char *v = getenv("SOFTVERBS_NUMA_NODE");
	const char *tmp = getenv("TMPDIR");
	char dir[128], f[sizeof(dir) + 96], path[sizeof(f)];
	char t[sizeof(f) + 32];
	long node;
	FILE *fp;
	int n;

	if (!v || !*v)
		return;
	node = strtol(v, NULL, 10);
	n = snprintf(dir, sizeof(dir), "%s/softverbs-sysfs-%u",
		     tmp && *tmp ? tmp : "/tmp", (unsigned)getuid());
	if (n < 0 || (size_t)n >= sizeof(dir) || mkdir_ok(dir))
		goto fail;
	snprintf(f, sizeof(f), "%s/node%ld", dir, node);
	if (mkdir_ok(f))
		goto fail;
	snprintf(f, sizeof(f), "%s/node%ld/%s", dir, node, sv_cfg.dev_name);
	if (mkdir_ok(f))
		goto fail;
	snprintf(path, sizeof(path), "%s", f);
	snprintf(f, sizeof(f), "%s/node%ld/%s/device", dir, node,
		 sv_cfg.dev_name);
	if (mkdir_ok(f))
		goto fail;
	/* Written whole and renamed into place: a reader never sees half. */
	snprintf(t, sizeof(t), "%s/numa_node.%d", f, (int)getpid());
	snprintf(f, sizeof(f), "%s/node%ld/%s/device/numa_node", dir, node,
		 sv_cfg.dev_name);
	fp = fopen(t, "w");
	if (!fp)
		goto fail;
	fprintf(fp, "%ld\n", node);
	if (fclose(fp) || rename(t, f))
		goto fail;
	snprintf(d->ibdev_path, sizeof(d->ibdev_path), "%s", path);
	return;
fail:
	/* ibdev_path keeps the usual sysfs path: no node */
	sv_log("SOFTVERBS_NUMA_NODE: cannot make the sysfs tree in %s: %s",
	       dir, strerror(errno));
}

static void device_init(void)
{
	struct ibv_device *d = &sv_the_device.dev;

	sv_config_load();
	memset(&sv_the_device, 0, sizeof(sv_the_device));
	d->node_type = IBV_NODE_CA;
	d->transport_type = IBV_TRANSPORT_IB;
	snprintf(d->name, sizeof(d->name), "%s", sv_cfg.dev_name);
	snprintf(d->dev_name, sizeof(d->dev_name), "uverbs0");
	snprintf(d->dev_path, sizeof(d->dev_path),
		 "/sys/class/infiniband_verbs/uverbs0");
	/* No sysfs entry exists; SOFTVERBS_IBDEV_PATH lets a test give one
	 * (programs read e.g. <ibdev_path>/device/numa_node there), else
	 * SOFTVERBS_NUMA_NODE makes one (numa_sysfs). */
	if (getenv("SOFTVERBS_IBDEV_PATH") && *getenv("SOFTVERBS_IBDEV_PATH")) {
		snprintf(d->ibdev_path, sizeof(d->ibdev_path), "%s",
			 getenv("SOFTVERBS_IBDEV_PATH"));
	} else if (sv_cfg.sysfs[0]) {	/* a planted tree (sysfs-plant) */
		char p[sizeof(sv_cfg.sysfs) + sizeof(sv_cfg.dev_name) + 32];

		snprintf(p, sizeof(p), "%s/class/infiniband/%s", sv_cfg.sysfs,
			 sv_cfg.dev_name);
		if (strlen(p) >= sizeof(d->ibdev_path))
			sv_log("SOFTVERBS_SYSFS: '%s' is too long", sv_cfg.sysfs);
		memcpy(d->ibdev_path, p, sizeof(d->ibdev_path) - 1);
	} else {
		snprintf(d->ibdev_path, sizeof(d->ibdev_path),
			 "/sys/class/infiniband/%s", sv_cfg.dev_name);
		numa_sysfs(d);
	}
}

static pthread_once_t dev_once = PTHREAD_ONCE_INIT;

SV_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **l;

	pthread_once(&dev_once, device_init);
	l = calloc(2, sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	if (sv_cfg.config_err) {	/* said on stderr: no device */
		if (num)
			*num = 0;
		return l;
	}
	l[0] = &sv_the_device.dev;
	if (num)
		*num = 1;
	return l;
}

SV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

SV_EXPORT const char *ibv_get_device_name(struct ibv_device *d)
{
	return d->name;
}

SV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *d)
{
	(void)d;
	sv_config_load();
	return node_guid();
}

SV_EXPORT int ibv_get_device_index(struct ibv_device *d)
{
	(void)d;
	return 0;
}

/* ---- contexts ------------------------------------------------------------- */

/* getpid() is a system call in current glibc: cache it, refreshed on fork */
pid_t sv_pid;

bool sv_ctx_usable(struct sv_context *ctx)
{
	return ctx->owner == sv_pid;
}

static int sv_query_port_ex(struct ibv_context *c, uint8_t port,
			    struct ibv_port_attr *attr, size_t len);
static int sv_query_device_ex(struct ibv_context *c,
			      const struct ibv_query_device_ex_input *in,
			      struct ibv_device_attr_ex *attr, size_t len);
static int sv_query_device_compat(struct ibv_context *c,
				  struct ibv_device_attr *attr);

SV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct sv_context *ctx;
	struct verbs_context *v;
	int p[2] = { -1, -1 };

	sv_config_load();
	if (dev != &sv_the_device.dev) {
		errno = ENODEV;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->sdev = &sv_the_device;
	if (!sv_pid)
		sv_pid = getpid();
	ctx->owner = sv_pid;
	ctx->epfd = ctx->wake_fd = ctx->resp_fd = -1;
	{
		/* short critical sections: spin a little before sleeping */
		pthread_mutexattr_t ma;

		pthread_mutexattr_init(&ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
		pthread_mutex_init(&ctx->mu, &ma);
		pthread_mutex_init(&ctx->rx_lock, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	sv_list_init(&ctx->qps);
	sv_list_init(&ctx->srqs);
	ctx->next_srqn = 1;
	ctx->mr_gen = (uint32_t)(sv_now_ns() & 0xff);
	ctx->port_is_down = sv_cfg.port_down;
	sv_cnt_init();		/* port counters, with SOFTVERBS_SYSFS */
	if (sv_cfg.port_down_ms)
		ctx->port_down_at = sv_now_ns() +
				    sv_cfg.port_down_ms * 1000000ull;
	if (pipe2(p, O_CLOEXEC) < 0)
		goto err;
	v = &ctx->vctx;
	v->context.device = dev;
	v->context.async_fd = p[0];
	ctx->async_wfd = p[1];
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	v->context.cmd_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	v->context.num_comp_vectors = 1;
	pthread_mutex_init(&v->context.mutex, NULL);
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->sz = sizeof(*v);
	v->context.ops._compat_query_device = sv_query_device_compat;
	v->context.ops.poll_cq = sv_poll_cq;
	v->context.ops.req_notify_cq = sv_req_notify_cq;
	v->context.ops.post_send = sv_post_send;
	v->context.ops.post_recv = sv_post_recv;
	v->context.ops.post_srq_recv = sv_post_srq_recv;
	v->query_port = sv_query_port_ex;
	v->query_device_ex = sv_query_device_ex;
	v->advise_mr = sv_advise_mr;
	v->create_cq_ex = sv_create_cq_ex;
	v->create_qp_ex = sv_create_qp_ex;
	v->create_srq_ex = sv_create_srq_ex;
	v->open_xrcd = sv_open_xrcd;
	v->close_xrcd = sv_close_xrcd;
	v->get_srq_num = sv_get_srq_num;
	v->open_qp = sv_open_qp;
	if (sv_engine_start(ctx))
		goto err;
	sv_gid_publish();
	sv_registry_add(ctx);
	SV_DBG("opened %s node %u fabric %s%s", dev->name, sv_cfg.node,
	       sv_cfg.fabric, sv_cfg.roce ? " (RoCE)" : "");
	return &v->context;
err:
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	if (ctx->vctx.context.cmd_fd > 0)
		close(ctx->vctx.context.cmd_fd);
	free(ctx);
	return NULL;
}

SV_EXPORT int ibv_close_device(struct ibv_context *c)
{
	struct sv_context *ctx = sv_ctx(c);
	uint32_t i;

	if (!sv_ctx_usable(ctx))
		return EINVAL;
	sv_registry_del(ctx);
	sv_flush_backlog(ctx, 100);
	sv_cnt_flush();
	sv_engine_stop(ctx);
	close(c->async_fd);
	close(ctx->async_wfd);
	if (c->cmd_fd >= 0)
		close(c->cmd_fd);
	for (i = 0; i < ctx->nmrs; i++)
		free(ctx->mrs[i]);
	free(ctx->mrs);
	free(ctx->qp_hash);
	free(ctx);
	return 0;
}

SV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

/* ---- queries --------------------------------------------------------------- */

static void fill_device_attr(struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "1.0.0");
	a->node_guid = node_guid();
	a->sys_image_guid = node_guid();
	a->max_mr_size = ~0ull;
	a->page_size_cap = 0xfffff000;
	a->vendor_id = 0x02c0ff;	/* not a real vendor: no dv paths */
	a->vendor_part_id = 1;
	a->hw_ver = 1;
	a->max_qp = (int)sv_cfg.max_qp;
	a->max_qp_wr = SV_MAX_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN |
			      IBV_DEVICE_PORT_ACTIVE_EVENT |
			      IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_N_NOTIFY_CQ |
			      IBV_DEVICE_XRC | IBV_DEVICE_SYS_IMAGE_GUID |
			      IBV_DEVICE_CHANGE_PHY_PORT;
	a->max_sge = SV_MAX_SGE;
	a->max_sge_rd = SV_MAX_SGE;
	a->max_cq = (int)sv_cfg.max_cq;
	a->max_cqe = SV_MAX_CQE - 1;
	a->max_mr = SV_MAX_MR;
	a->max_pd = SV_MAX_QP;
	a->max_qp_rd_atom = SV_MAX_RD_ATOMIC;
	a->max_res_rd_atom = SV_MAX_RD_ATOMIC * SV_MAX_QP;
	a->max_qp_init_rd_atom = SV_MAX_RD_ATOMIC;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_ah = SV_MAX_QP;
	a->max_srq = SV_MAX_QP;
	a->max_srq_wr = SV_MAX_WR;
	a->max_srq_sge = SV_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 16;
	a->phys_port_cnt = 1;
}

static int sv_query_device_compat(struct ibv_context *c,
				  struct ibv_device_attr *attr)
{
	(void)c;
	fill_device_attr(attr);
	return 0;
}

SV_EXPORT int ibv_query_device(struct ibv_context *c,
			       struct ibv_device_attr *attr)
{
	return sv_query_device_compat(c, attr);
}

static int sv_query_device_ex(struct ibv_context *c,
			      const struct ibv_query_device_ex_input *in,
			      struct ibv_device_attr_ex *attr, size_t len)
{
	struct ibv_device_attr_ex ex;

	(void)c;
	if (in && in->comp_mask)
		return EINVAL;
	memset(&ex, 0, sizeof(ex));
	fill_device_attr(&ex.orig_attr);
	ex.completion_timestamp_mask = ~0ull;
	ex.hca_core_clock = 1000000;	/* kHz: timestamps are ns */
	ex.device_cap_flags_ex = ex.orig_attr.device_cap_flags;
	ex.max_dm_size = 0;
	ex.raw_packet_caps = 0;
	ex.pci_atomic_caps.fetch_add = 0;
	sv_odp_caps(&ex.odp_caps);
	ex.xrc_odp_caps = ex.odp_caps.per_transport_caps.rc_odp_caps;
	ex.phys_port_cnt_ex = 1;
	memset(attr, 0, len);
	memcpy(attr, &ex, len < sizeof(ex) ? len : sizeof(ex));
	return 0;
}

int sv_fill_port_attr(struct sv_context *ctx, struct ibv_port_attr *a)
{
	bool down = ctx->port_is_down;

	memset(a, 0, sizeof(*a));
	a->state = down ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
	a->gid_tbl_len = (int)sv_cfg.gid_tbl_len;
	a->port_cap_flags = sv_cfg.roce ? 0 : IBV_PORT_SM |
			    IBV_PORT_TRAP_SUP | IBV_PORT_SYS_IMAGE_GUID_SUP;
	a->max_msg_sz = 1u << 31;
	a->pkey_tbl_len = 1;
	a->lid = sv_cfg.roce ? 0 : (uint16_t)sv_cfg.node;
	a->sm_lid = sv_cfg.roce ? 0 : 1;
	a->lmc = 0;
	a->max_vl_num = 1;
	a->sm_sl = 0;
	a->subnet_timeout = 18;
	sv_port_fill(a);
	a->phys_state = down ? 3 : 5;	/* disabled / link up */
	a->link_layer = sv_cfg.roce ? IBV_LINK_LAYER_ETHERNET :
				      IBV_LINK_LAYER_INFINIBAND;
	return 0;
}

static int sv_query_port_ex(struct ibv_context *c, uint8_t port,
			    struct ibv_port_attr *attr, size_t len)
{
	struct ibv_port_attr a;

	if (port != 1)
		return EINVAL;
	sv_fill_port_attr(sv_ctx(c), &a);
	sv_port_copy(attr, len, &a);
	return 0;
}

/* the non-inline entry point, used by binaries built without vctx->query_port */
SV_EXPORT int ibv_query_port(struct ibv_context *c, uint8_t port,
			     struct _compat_ibv_port_attr *attr)
{
	return sv_query_port_ex(c, port, (struct ibv_port_attr *)attr,
				offsetof(struct ibv_port_attr, link_layer) + 1);
}

SV_EXPORT int ibv_query_pkey(struct ibv_context *c, uint8_t port, int index,
			     __be16 *pkey)
{
	(void)c;
	if (port != 1 || index != 0)
		return -1;
	*pkey = htobe16(0xffff);
	return 0;
}

SV_EXPORT int ibv_get_pkey_index(struct ibv_context *c, uint8_t port,
				 __be16 pkey)
{
	(void)c;
	if (port == 1 && (be16toh(pkey) & 0x7fff) == 0x7fff)
		return 0;
	return -ENOENT;
}

/* ---- protection domains ------------------------------------------------- */

SV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	struct sv_pd *pd;
	static uint32_t handles;

	if (!sv_ctx_usable(sv_ctx(c))) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->pd.context = c;
	pd->pd.handle = __atomic_add_fetch(&handles, 1, __ATOMIC_RELAXED);
	return &pd->pd;
}

SV_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct sv_context *ctx = sv_ctx(pd->context);
	uint32_t i;
	if (!sv_ctx_usable(ctx))
		return EINVAL;

	pthread_mutex_lock(&ctx->mu);
	for (i = 0; i < ctx->nmrs; i++) {
		if (ctx->mrs[i] && ctx->mrs[i]->mr.pd == pd) {
			pthread_mutex_unlock(&ctx->mu);
			return EBUSY;
		}
	}
	pthread_mutex_unlock(&ctx->mu);
	free(pd);
	return 0;
}

SV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *c, uint32_t h)
{
	(void)c;
	(void)h;
	errno = EOPNOTSUPP;
	return NULL;
}

SV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

/* ---- memory regions --------------------------------------------------------- */

#define SV_ACCESS_OK                                                       \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |               \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND | \
	 IBV_ACCESS_HUGETLB | IBV_ACCESS_RELAXED_ORDERING)

struct sv_mr *sv_mr_lookup(struct sv_context *ctx, uint32_t key)
{
	uint32_t idx = key >> 8;
	struct sv_mr *mr;

	if (idx >= ctx->nmrs)
		return NULL;
	mr = ctx->mrs[idx];
	if (!mr || mr->mr.lkey != key)
		return NULL;
	return mr;
}

enum ibv_wc_status sv_check_sges(struct sv_context *ctx, struct ibv_pd *pd,
				 const struct ibv_sge *sge, uint32_t n,
				 bool need_write)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct sv_mr *mr;
		uint64_t start, end;

		if (!sge[i].length)
			continue;
		mr = sv_mr_lookup(ctx, sge[i].lkey);
		if (!mr || mr->mr.pd != pd)
			return IBV_WC_LOC_PROT_ERR;
		if (need_write && !(mr->access & IBV_ACCESS_LOCAL_WRITE))
			return IBV_WC_LOC_PROT_ERR;
		start = (uint64_t)(uintptr_t)mr->mr.addr;
		end = start + mr->mr.length;
		if (sge[i].addr < start || sge[i].addr + sge[i].length > end ||
		    sge[i].addr + sge[i].length < sge[i].addr)
			return IBV_WC_LOC_PROT_ERR;
	}
	return IBV_WC_SUCCESS;
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  unsigned int access)
{
	struct sv_context *ctx = sv_ctx(pd->context);
	struct sv_mr *mr, **tab;
	uint32_t idx;

	if ((access & ~SV_ACCESS_OK) ||
	    (((access & IBV_ACCESS_REMOTE_WRITE) ||
	      (access & IBV_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	if (!sv_ctx_usable(ctx)) {
		errno = EINVAL;
		return NULL;
	}
	/* NULL: only the implicit ODP region, the whole address space */
	if (!addr && length &&
	    (length != SIZE_MAX || !(access & IBV_ACCESS_ON_DEMAND))) {
		errno = EINVAL;
		return NULL;
	}
	/* what a driver's pinning costs: the pages faulted in (sv_odp.c) */
	if (!(access & IBV_ACCESS_ON_DEMAND))
		sv_populate((uintptr_t)addr, length,
			    access & (IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE));
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	pthread_mutex_lock(&ctx->mu);
	for (idx = 1; idx < ctx->nmrs; idx++)
		if (!ctx->mrs[idx])
			break;
	if (idx >= ctx->nmrs) {
		uint32_t n = ctx->nmrs ? ctx->nmrs * 2 : 64;

		if (n > SV_MAX_MR ||
		    !(tab = realloc(ctx->mrs, n * sizeof(*tab)))) {
			pthread_mutex_unlock(&ctx->mu);
			free(mr);
			errno = ENOMEM;
			return NULL;
		}
		memset(tab + ctx->nmrs, 0, (n - ctx->nmrs) * sizeof(*tab));
		ctx->mrs = tab;
		idx = ctx->nmrs ? ctx->nmrs : 1;
		ctx->nmrs = n;
	}
	ctx->mr_gen++;
	mr->mr.context = pd->context;
	mr->mr.pd = pd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	mr->mr.handle = idx;
	mr->mr.lkey = idx << 8 | (ctx->mr_gen & 0xff);
	mr->mr.rkey = mr->mr.lkey;
	mr->iova = (access & IBV_ACCESS_ZERO_BASED) ? 0 : iova;
	mr->index = idx;
	mr->access = access;
	ctx->mrs[idx] = mr;
	pthread_mutex_unlock(&ctx->mu);
	return &mr->mr;
}

SV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
				(unsigned int)access);
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova,
					 int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

SV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off,
					   size_t len, uint64_t iova, int fd,
					   int access)
{
	(void)pd, (void)off, (void)len, (void)iova, (void)fd, (void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

SV_EXPORT int ibv_dereg_mr(struct ibv_mr *m)
{
	struct sv_mr *mr = (struct sv_mr *)m;
	struct sv_context *ctx = sv_ctx(m->context);

	if (!sv_ctx_usable(ctx))
		return EINVAL;
	/* responders copy under ctx->mu: none is using the region after this */
	pthread_mutex_lock(&ctx->mu);
	if (mr->index < ctx->nmrs && ctx->mrs[mr->index] == mr)
		ctx->mrs[mr->index] = NULL;
	pthread_mutex_unlock(&ctx->mu);
	free(mr);
	return 0;
}

SV_EXPORT int ibv_rereg_mr(struct ibv_mr *m, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	struct sv_mr *mr = (struct sv_mr *)m;
	struct sv_context *ctx = sv_ctx(m->context);

	if (flags & ~(IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD |
		      IBV_REREG_MR_CHANGE_ACCESS))
		return IBV_REREG_MR_ERR_INPUT;
	if ((flags & IBV_REREG_MR_CHANGE_ACCESS) &&
	    ((unsigned int)access & ~SV_ACCESS_OK))
		return IBV_REREG_MR_ERR_INPUT;
	pthread_mutex_lock(&ctx->mu);
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		m->addr = addr;
		m->length = length;
		mr->iova = (uintptr_t)addr;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		m->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		mr->access = (unsigned int)access;
	pthread_mutex_unlock(&ctx->mu);
	return 0;
}

SV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t h)
{
	(void)pd, (void)h;
	errno = EOPNOTSUPP;
	return NULL;
}

SV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

SV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *c, uint32_t h)
{
	(void)c, (void)h;
	errno = EOPNOTSUPP;
	return NULL;
}

SV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* ---- address handles ------------------------------------------------------ */

SV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
				       struct ibv_ah_attr *attr)
{
	struct sv_ah *ah;
	uint32_t node;
	int err;

	if (attr->port_num != 1) {
		errno = EINVAL;
		return NULL;
	}
	err = sv_av_resolve(attr, &node);
	if (err) {
		errno = err;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ah->ah.context = pd->context;
	ah->ah.pd = pd;
	ah->attr = *attr;
	ah->node = node;
	return &ah->ah;
}

SV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

SV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
					       struct ibv_wc *wc,
					       struct ibv_grh *grh,
					       uint8_t port)
{
	struct ibv_ah_attr a;

	if (ibv_init_ah_from_wc(pd->context, port, wc, grh, &a)) {
		errno = EINVAL;
		return NULL;
	}
	return ibv_create_ah(pd, &a);
}

