// SPDX-License-Identifier: MIT
/*
 * softverbs' libibumad.so.3: the user MAD interface, as far as a program
 * needs it to ask its own port for its PortInfo (docs/softverbs.md,
 * "libibumad").  A port opened with umad_open_port() is a pipe: the
 * subnet management agent of the emulated port answers a SubnGet
 * (LID-routed or directed-route, to this port) at once, by writing the
 * GetResp into the pipe, where umad_recv() (or a poll() on umad_get_fd())
 * finds it.  It answers PortInfo only; any other attribute gets a GetResp
 * with the status "attribute not supported", a Set one with "method not
 * supported".  No MAD leaves the process: there is no subnet, no SM and no
 * GMP class (SA, PerfMgt) here.
 *
 * PortInfo says what ibv_query_port() says (LID, SM LID, state, physical
 * state, capability mask, MTUs, active width and speed) and what the
 * port enables: SOFTVERBS_WIDTH_ENABLED and SOFTVERBS_SPEED_ENABLED, per
 * node as the link knobs (sv_knob.h), by default the active ones.  So a
 * port trained below what it enables is planted with, e.g.,
 * SOFTVERBS_WIDTH=1x SOFTVERBS_WIDTH_ENABLED=4x.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/verbs.h>

#include "sv_internal.h"
#include "sv_knob.h"

#define UMAD_EXPORT __attribute__((visibility("default")))
#define PORTS_MAX 16
#define MAD_SIZE 256
#define SMP_DATA 64
#define CLASS_SMI 0x01
#define CLASS_SMI_DR 0x81
#define METHOD_GET 0x01
#define METHOD_SET 0x02
#define METHOD_GETRESP 0x81
#define ATTR_PORTINFO 0x0015
#define STATUS_BAD_METHOD 0x0008 /* method not supported */
#define STATUS_BAD_ATTR 0x000c /* attribute or modifier not supported */
#define CAP_EXT_SPEEDS (1u << 14)

/* An open port: its pipe (the read end is the port id) and its attributes. */
struct uport {
	int rd, wr; /* -1: free */
	uint8_t port;
	struct ibv_port_attr attr;
	union ibv_gid gid0;
	uint32_t agents; /* bit i: agent i registered (SMI or DR SMI) */
};

static struct uport ports[PORTS_MAX];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_ports(void)
{
	for (int i = 0; i < PORTS_MAX; i++)
		ports[i].rd = ports[i].wr = -1;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sv_vlog("softverbs-umad", fmt, ap);
	va_end(ap);
}

static struct uport *port_of(int portid)
{
	for (int i = 0; i < PORTS_MAX; i++)
		if (ports[i].rd >= 0 && ports[i].rd == portid)
			return &ports[i];
	return NULL;
}

UMAD_EXPORT int umad_init(void)
{
	pthread_once(&once, init_ports);
	return 0;
}

UMAD_EXPORT int umad_done(void)
{
	return 0;
}

/* Read the port's attributes from the verbs device; 0 or -errno. */
static int port_query(const char *ca, int portnum, struct uport *p)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int rc = -ENODEV;

	for (int i = 0; list && list[i] && !ctx; i++)
		if (!ca || !*ca || !strcmp(ibv_get_device_name(list[i]), ca))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		return rc;
	p->port = (uint8_t)(portnum ? portnum : 1);
	if (ibv_query_port(ctx, p->port, &p->attr) == 0 &&
	    ibv_query_gid(ctx, p->port, 0, &p->gid0) == 0)
		rc = p->attr.link_layer == IBV_LINK_LAYER_ETHERNET ? -ENXIO : 0;
	else
		rc = -EINVAL;
	ibv_close_device(ctx);
	return rc;
}

UMAD_EXPORT int umad_open_port(const char *ca_name, int portnum)
{
	struct uport p = { .rd = -1, .wr = -1 }, *slot = NULL;
	int fds[2], rc;

	umad_init();
	if (portnum < 0 || portnum > 255)
		return -EINVAL;
	rc = port_query(ca_name, portnum, &p);
	if (rc < 0)
		return rc;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < PORTS_MAX && !slot; i++)
		if (ports[i].rd < 0)
			slot = &ports[i];
	if (slot) {
		*slot = p;
		slot->rd = fds[0];
		slot->wr = fds[1];
	}
	pthread_mutex_unlock(&mu);
	if (!slot) {
		close(fds[0]);
		close(fds[1]);
		return -EMFILE;
	}
	return fds[0];
}

UMAD_EXPORT int umad_close_port(int portid)
{
	struct uport *p;

	pthread_mutex_lock(&mu);
	p = port_of(portid);
	if (p) {
		close(p->rd);
		close(p->wr);
		p->rd = p->wr = -1;
	}
	pthread_mutex_unlock(&mu);
	return p ? 0 : -EINVAL;
}

UMAD_EXPORT int umad_poll(int portid, int timeout_ms)
{
	struct pollfd pf = { portid, POLLIN, 0 };
	int n;

	if (!port_of(portid))
		return -EINVAL;
	n = poll(&pf, 1, timeout_ms);
	return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

UMAD_EXPORT int umad_get_fd(int portid)
{
	return port_of(portid) ? portid : -EINVAL;
}

UMAD_EXPORT int umad_register(int portid, int mgmt_class, int mgmt_version,
			      uint8_t rmpp_version,
			      long method_mask[16 / sizeof(long)])
{
	struct uport *p;
	int agent = -EINVAL;

	(void)rmpp_version;
	(void)method_mask;
	if ((mgmt_class != CLASS_SMI && mgmt_class != CLASS_SMI_DR) ||
	    mgmt_version != 1)
		return -EINVAL; /* only the subnet management agent is here */
	pthread_mutex_lock(&mu);
	p = port_of(portid);
	for (int i = 0; p && i < 32 && agent < 0; i++)
		if (!(p->agents & (1u << i))) {
			p->agents |= 1u << i;
			agent = i;
		}
	pthread_mutex_unlock(&mu);
	return agent;
}

UMAD_EXPORT int umad_unregister(int portid, int agentid)
{
	struct uport *p;
	int rc = -EINVAL;

	pthread_mutex_lock(&mu);
	p = port_of(portid);
	if (p && agentid >= 0 && agentid < 32 &&
	    (p->agents & (1u << agentid))) {
		p->agents &= ~(1u << agentid);
		rc = 0;
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

UMAD_EXPORT size_t umad_size(void)
{
	return sizeof(struct ib_user_mad);
}

UMAD_EXPORT void *umad_get_mad(void *umad)
{
	return ((struct ib_user_mad *)umad)->data;
}

UMAD_EXPORT int umad_status(void *umad)
{
	return (int)((struct ib_user_mad *)umad)->status;
}

UMAD_EXPORT int umad_set_addr(void *umad, int dlid, int dqp, int sl, int qkey)
{
	struct ib_user_mad *m = umad;

	m->addr.qpn = htobe32((uint32_t)dqp);
	m->addr.lid = htobe16((uint16_t)dlid);
	m->addr.qkey = htobe32((uint32_t)qkey);
	m->addr.sl = (uint8_t)sl;
	return 0;
}

UMAD_EXPORT int umad_set_addr_net(void *umad, __be16 dlid, __be32 dqp, int sl,
				  __be32 qkey)
{
	struct ib_user_mad *m = umad;

	m->addr.qpn = dqp;
	m->addr.lid = dlid;
	m->addr.qkey = qkey;
	m->addr.sl = (uint8_t)sl;
	return 0;
}

/* Big-endian fields of a MAD. */
static void be16_at(uint8_t *b, uint32_t v)
{
	uint16_t x = htobe16((uint16_t)v);

	memcpy(b, &x, sizeof(x));
}

static void be32_at(uint8_t *b, uint32_t v)
{
	uint32_t x = htobe32(v);

	memcpy(b, &x, sizeof(x));
}

/* PortInfo LinkWidthEnabled: every width up to (and with) code's lanes. */
static uint8_t width_mask(uint32_t code)
{
	static const uint8_t by_lanes[] = { 1, 16, 2, 4, 8 }; /* 1 2 4 8 12 */
	uint8_t m = 0;

	for (size_t i = 0; i < sizeof(by_lanes); i++) {
		m |= by_lanes[i];
		if (by_lanes[i] == code)
			return m;
	}
	return m;
}

/* A speed code's PortInfo LinkSpeed (SDR 1, DDR 2, QDR 4; above: QDR)
 * and LinkSpeedExt (FDR 1, EDR 2, HDR 4, NDR and XDR 8; below: 0). */
static uint8_t speed_legacy(uint32_t code)
{
	return (uint8_t)(code <= 4 ? code : 4);
}

static uint8_t speed_ext(uint32_t code)
{
	switch (code) {
	case 16: return 1;
	case 32: return 2;
	case 64: return 4;
	case 128: case 256: return 8;
	}
	return 0;
}

/* Every speed up to (and with) code, as PortInfo enable masks. */
static void speed_masks(uint32_t code, uint8_t *legacy, uint8_t *ext)
{
	uint8_t l = speed_legacy(code), x = speed_ext(code);

	*legacy = (uint8_t)(l | (l - 1));
	*ext = (uint8_t)(x ? x | (x - 1) : 0);
}

/* The 64 bytes of this port's PortInfo; -1 on a bad knob. */
static int portinfo(const struct uport *p, uint8_t *pi)
{
	const struct ibv_port_attr *a = &p->attr;
	const char *ns = getenv("SOFTVERBS_NODE");
	uint32_t node = ns && *ns ? (uint32_t)strtoul(ns, NULL, 0) : 1;
	uint32_t we = sv_knob("SOFTVERBS_WIDTH_ENABLED", parse_width,
			      SV_WIDTH_ACCEPTED, a->active_width, node, say);
	uint32_t se = sv_knob("SOFTVERBS_SPEED_ENABLED", parse_speed,
			      SV_SPEED_ACCEPTED, a->active_speed, node, say);
	uint8_t len, lx;

	if (!we || !se)
		return -1;
	memset(pi, 0, 64);
	memcpy(pi + 8, p->gid0.raw, 8); /* GidPrefix */
	be16_at(pi + 16, a->lid);
	be16_at(pi + 18, a->sm_lid);
	be32_at(pi + 20, a->port_cap_flags | CAP_EXT_SPEEDS);
	pi[28] = p->port;
	pi[29] = width_mask(we);
	pi[30] = width_mask(we > a->active_width ? we : a->active_width);
	pi[31] = a->active_width;
	speed_masks(se, &len, &lx);
	pi[32] = (uint8_t)(len << 4 | (a->state & 0x0f)); /* Supported, state */
	pi[33] = (uint8_t)(a->phys_state << 4);
	pi[34] = a->lmc & 0x07;
	pi[35] = (uint8_t)(speed_legacy(a->active_speed) << 4 | len);
	pi[36] = (uint8_t)(a->active_mtu << 4 | (a->sm_sl & 0x0f));
	pi[38] = (uint8_t)(a->max_mtu << 4); /* MTUCap */
	pi[62] = (uint8_t)(speed_ext(a->active_speed) << 4 | lx);
	pi[63] = lx;
	return 0;
}

/* The answer to a request MAD (MAD_SIZE bytes), in place. */
static void answer(const struct uport *p, uint8_t *mad)
{
	uint32_t status = 0;
	uint32_t attr = (uint32_t)mad[16] << 8 | mad[17];

	if (mad[3] != METHOD_GET)
		status = STATUS_BAD_METHOD;
	else if (attr != ATTR_PORTINFO ||
		 (mad[20] | mad[21] | mad[22]) || /* modifier: the port */
		 (mad[23] && mad[23] != p->port))
		status = STATUS_BAD_ATTR;
	else if (portinfo(p, mad + SMP_DATA) < 0)
		status = STATUS_BAD_ATTR;
	mad[3] = METHOD_GETRESP;
	if (mad[1] == CLASS_SMI_DR)
		status |= 0x8000; /* D: the return direction */
	be16_at(mad + 4, status);
}

UMAD_EXPORT int umad_send(int portid, int agentid, void *umad, int length,
			  int timeout_ms, int retries)
{
	struct ib_user_mad *m = umad;
	struct {
		struct ib_user_mad h;
		uint8_t mad[MAD_SIZE];
	} r;
	struct uport *p;
	ssize_t n;

	(void)timeout_ms;
	(void)retries;
	if (length < 24 || length > MAD_SIZE)
		return -EINVAL;
	pthread_mutex_lock(&mu);
	p = port_of(portid);
	if (!p || agentid < 0 || agentid >= 32 ||
	    !(p->agents & (1u << agentid))) {
		pthread_mutex_unlock(&mu);
		return -EINVAL;
	}
	memset(&r, 0, sizeof(r));
	memcpy(r.mad, m->data, (size_t)length);
	r.h.agent_id = (uint32_t)agentid;
	r.h.length = MAD_SIZE;
	r.h.addr = m->addr;
	if (r.mad[1] != CLASS_SMI && r.mad[1] != CLASS_SMI_DR) {
		pthread_mutex_unlock(&mu);
		return -EINVAL;
	}
	answer(p, r.mad);
	n = write(p->wr, &r, sizeof(r));
	pthread_mutex_unlock(&mu);
	return n == (ssize_t)sizeof(r) ? 0 : -EIO;
}

UMAD_EXPORT int umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
	struct ib_user_mad *m = umad;
	struct {
		struct ib_user_mad h;
		uint8_t mad[MAD_SIZE];
	} r;
	struct pollfd pf = { portid, POLLIN, 0 };
	ssize_t n;

	if (!port_of(portid) || !length || *length < 0)
		return -EINVAL;
	if (poll(&pf, 1, timeout_ms) <= 0)
		return -ETIMEDOUT;
	n = read(portid, &r, sizeof(r));
	if (n != (ssize_t)sizeof(r))
		return -EIO;
	*m = r.h;
	if (*length < MAD_SIZE) { /* as the kernel: the header only */
		*length = MAD_SIZE;
		return -ENOSPC;
	}
	memcpy(m->data, r.mad, MAD_SIZE);
	*length = MAD_SIZE;
	return (int)r.h.agent_id;
}

/* The stubs of the calls not emulated (gen_map.sh) end up here. */
long sv_stub_unimplemented(const char *name);
long sv_stub_unimplemented(const char *name)
{
	say("%s is not emulated", name);
	errno = EOPNOTSUPP;
	return -EOPNOTSUPP;
}
