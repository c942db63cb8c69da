// SPDX-License-Identifier: MIT
/*
 * Helpers with no state: enum strings, rate conversions, the sysfs helpers
 * the tools call, fork-related calls, memory copies with a defined store
 * order, and the entry points providers import (no-ops: softverbs never
 * loads a provider, but perftest's libmlx5/libefa register at load time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sv_internal.h"

/* ---- strings ---------------------------------------------------------------- */

SV_EXPORT const char *ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const s[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return SV_STR_OF(s, t, "unknown");
}

SV_EXPORT const char *ibv_port_state_str(enum ibv_port_state st)
{
	static const char *const s[] = {
		"PORT_NOP", "PORT_DOWN", "PORT_INIT",
		"PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER",
	};

	return SV_STR_OF(s, st, "unknown");
}

SV_EXPORT const char *ibv_event_type_str(enum ibv_event_type ev)
{
	static const char *const s[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return SV_STR_OF(s, ev, "unknown");
}

SV_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status st)
{
	static const char *const s[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return SV_STR_OF(s, st, "unknown");
}

/* ---- rates ------------------------------------------------------------------------ */

struct sv_rate {
	enum ibv_rate rate;
	int mult;		/* multiple of 2.5 Gb/s */
	int mbps;
};

static const struct sv_rate sv_rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },	   { IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },	   { IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },   { IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },   { IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 }, { IBV_RATE_14_GBPS, 5, 14062 },
	{ IBV_RATE_56_GBPS, 22, 56250 },   { IBV_RATE_112_GBPS, 45, 112500 },
	{ IBV_RATE_168_GBPS, 67, 168750 }, { IBV_RATE_25_GBPS, 10, 25781 },
	{ IBV_RATE_100_GBPS, 40, 103125 }, { IBV_RATE_200_GBPS, 80, 206250 },
	{ IBV_RATE_300_GBPS, 120, 309375 }, { IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },   { IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
};

#define SV_NRATES (sizeof(sv_rates) / sizeof(sv_rates[0]))

/* The table entry of rate, or NULL. */
static const struct sv_rate *sv_rate_find(enum ibv_rate rate)
{
	for (size_t i = 0; i < SV_NRATES; i++)
		if (sv_rates[i].rate == rate)
			return &sv_rates[i];
	return NULL;
}

SV_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	const struct sv_rate *r = sv_rate_find(rate);

	return r ? r->mult : -1;
}

SV_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	size_t i;

	for (i = 0; i < SV_NRATES; i++)
		if (sv_rates[i].mult == mult)
			return sv_rates[i].rate;
	return IBV_RATE_MAX;
}

SV_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	const struct sv_rate *r = sv_rate_find(rate);

	return r ? r->mbps : -1;
}

SV_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	size_t i;

	for (i = 0; i < SV_NRATES; i++)
		if (sv_rates[i].mbps == mbps)
			return sv_rates[i].rate;
	return IBV_RATE_MAX;
}

/* ---- sysfs --------------------------------------------------------------------------- */

static char sysfs_path[256];
static pthread_once_t sysfs_once = PTHREAD_ONCE_INIT;

static void sysfs_path_init(void)
{
	const char *e = getuid() == geteuid() ? getenv("SYSFS_PATH") : NULL;
	size_t n;

	snprintf(sysfs_path, sizeof(sysfs_path), "%s", e && *e ? e : "/sys");
	n = strlen(sysfs_path);
	while (n > 1 && sysfs_path[n - 1] == '/')
		sysfs_path[--n] = '\0';
}

/* rdma-core's rule: $SYSFS_PATH (trailing slashes cut) unless setuid,
 * else /sys */
SV_EXPORT const char *ibv_get_sysfs_path(void)
{
	pthread_once(&sysfs_once, sysfs_path_init);
	return sysfs_path;
}

SV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				  char *buf, size_t size)
{
	char path[512];
	const char *val = NULL;
	ssize_t n;
	int fd, len;

	sv_config_load();
	len = snprintf(path, sizeof(path), "/sys/class/infiniband/%s",
		       sv_cfg.dev_name);
	if (len > 0 && (size_t)len < sizeof(path) &&
	    !strncmp(dir, path, (size_t)len)) {
		if (!strcmp(file, "board_id"))
			val = "SOFTVERBS";
		else if (!strcmp(file, "fw_ver"))
			val = "1.0.0";
		else if (!strcmp(file, "hca_type"))
			val = "softverbs";
		else if (!strcmp(file, "hw_rev"))
			val = "1";
		else if (!strcmp(file, "node_desc"))
			val = "softverbs emulated HCA";
		if (!val)
			return -1;
		len = snprintf(buf, size, "%s", val);
		return len < 0 ? -1 : (size_t)len >= size ? (int)size - 1 : len;
	}
	len = snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	if (n <= 0)
		return -1;
	if ((size_t)n < size) {
		if (buf[n - 1] == '\n')
			buf[--n] = '\0';
		else
			buf[n] = '\0';
	}
	return (int)n;
}

/* ---- fork -------------------------------------------------------------------------------- */

SV_EXPORT int ibv_fork_init(void)
{
	return 0;	/* nothing is pinned: fork is always safe */
}

SV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

SV_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	(void)base, (void)size;
	return 0;
}

SV_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	(void)base, (void)size;
	return 0;
}

SV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *c,
					  struct ibv_ah_attr *attr,
					  uint8_t eth_mac[6],
					  uint16_t *vid)
{
	uint32_t node;

	(void)c;
	sv_config_load();
	if (!attr->is_global || sv_av_resolve(attr, &node) ||
	    node == SV_NODE_MCAST)
		return EINVAL;
	sv_mac_of_node(node, eth_mac);
	if (vid)
		*vid = 0xffff;	/* no VLAN */
	return 0;
}

/* ---- provider ABI (IBVERBS_PRIVATE_NN) ---------------------------------------------------- */

/* providers' constructors register themselves; softverbs never uses them */

SV_EXPORT void verbs_register_driver_34(const void *ops)
{
	(void)ops;
}

long sv_stub_unimplemented(const char *name);
long sv_stub_unimplemented(const char *name)
{
	SV_DBG("unimplemented entry point %s called", name);
	errno = EOPNOTSUPP;
	return 0;
}

/* ---- memory ------------------------------------------------------------------------------------ */

void sv_copy_ordered(void *dst, const void *src, size_t len)
{
	volatile uint8_t *last;

	if (!len)
		return;
	/* glibc memcpy may store the tail first: keep the last byte apart */
	if (len > 1)
		memcpy(dst, src, len - 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	last = (volatile uint8_t *)dst + len - 1;
	__atomic_store_n(last, ((const uint8_t *)src)[len - 1],
			 __ATOMIC_RELEASE);
}

uint64_t sv_sge_total(const struct ibv_sge *sge, uint32_t n)
{
	uint64_t t = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		t += sge[i].length;
	return t;
}

void sv_scatter(const struct ibv_sge *sge, uint32_t n, uint32_t off,
		const void *src, size_t len)
{
	const uint8_t *s = src;
	uint32_t i;

	for (i = 0; i < n && len; i++) {
		size_t take;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		take = sge[i].length - off;
		if (take > len)
			take = len;
		sv_copy_ordered((uint8_t *)(uintptr_t)sge[i].addr + off, s,
				take);
		s += take;
		len -= take;
		off = 0;
	}
}

void sv_gather(const struct ibv_sge *sge, uint32_t n, uint32_t off, void *dst,
	       size_t len)
{
	uint8_t *d = dst;
	uint32_t i;

	for (i = 0; i < n && len; i++) {
		size_t take;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		take = sge[i].length - off;
		if (take > len)
			take = len;
		memcpy(d, (const uint8_t *)(uintptr_t)sge[i].addr + off, take);
		d += take;
		len -= take;
		off = 0;
	}
}
