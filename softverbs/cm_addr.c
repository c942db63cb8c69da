// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: addresses.  rdma_bind_addr, rdma_resolve_addr,
 * rdma_resolve_route, rdma_getaddrinfo, rdma_create_ep, options.
 *
 * The emulated hosts are this machine's addresses: loopback and every
 * address of an interface that is up (so a dummy or veth interface a test
 * creates is a host).  Any other destination does not answer: ADDR_ERROR
 * with -ETIMEDOUT after the resolve timeout, as for a silent neighbour.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cm_internal.h"

socklen_t cm_addrlen(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	}
	return 0;
}

uint16_t cm_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

void cm_addr_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

bool cm_addr_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

bool cm_addr_loopback(const struct sockaddr *sa)
{
	const struct in6_addr *a6;

	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >>
			24) == 127;
	if (sa->sa_family != AF_INET6)
		return false;
	a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_LOOPBACK(a6))
		return true;
	return IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127;
}

static bool addr_ip_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return false;
}

bool cm_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	return addr_ip_equal(a, b);
}

bool cm_addr_local(const struct sockaddr *sa)
{
	struct ifaddrs *ifs, *i;
	bool found = false;

	if (cm_addr_loopback(sa))
		return true;
	if (getifaddrs(&ifs))
		return false;
	for (i = ifs; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || !(i->ifa_flags & IFF_UP))
			continue;
		found = addr_ip_equal(i->ifa_addr, sa);
	}
	freeifaddrs(ifs);
	return found;
}

/* the GID an address maps to in RoCE v2: IPv4-mapped or the IPv6 address */
static void gid_of_addr(const struct sockaddr *sa, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (sa->sa_family == AF_INET) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(gid->raw + 12,
		       &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		       16);
	}
}

int cm_gid_index(struct ibv_context *ctx, const struct sockaddr *src)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	union ibv_gid want;
	int i;

	if (!ctx || ibv_query_port(ctx, 1, &pa) ||
	    pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		return 0;
	/* RoCE: the RoCE v2 entry whose address is the source address */
	gid_of_addr(src, &want);
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, 1, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, want.raw, 16))
			return i;
	}
	return 0;	/* no address GIDs in the table: the default one */
}

void cm_route_fill(struct cm_id *p)
{
	struct ibv_sa_path_rec *r = &p->path;
	struct ibv_context *ctx = p->id.verbs;
	struct ibv_port_attr pa;
	union ibv_gid sgid;

	memset(r, 0, sizeof(*r));
	memset(&sgid, 0, sizeof(sgid));
	if (!ctx || ibv_query_port(ctx, 1, &pa))
		memset(&pa, 0, sizeof(pa));
	p->gid_index = cm_gid_index(ctx, &p->id.route.addr.src_addr);
	if (ctx)
		ibv_query_gid(ctx, 1, p->gid_index, &sgid);
	r->sgid = sgid;
	/* the peer's GID and LID are learnt from its REQ or REP; until then
	 * the path points at this node, as on a loopback route */
	r->dgid = sgid;
	if (p->peer.type)
		memcpy(r->dgid.raw, p->peer.gid, 16);
	r->slid = htobe16(pa.lid);
	r->dlid = p->peer.type ? htobe16(p->peer.lid) : r->slid;
	r->reversible = htobe32(1);
	r->numb_path = 1;
	r->pkey = htobe16(0xffff);
	r->mtu_selector = 2;
	r->mtu = pa.active_mtu ? pa.active_mtu : IBV_MTU_1024;
	r->rate_selector = 2;
	r->rate = 7;	/* 40 Gb/s, the 4X QDR-like port */
	r->packet_life_time_selector = 2;
	r->packet_life_time = 14;
	r->hop_limit = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? 64 : 0;
	r->traffic_class = p->tos;
	p->id.route.path_rec = r;
	p->id.route.num_paths = 1;
	p->id.route.addr.addr.ibaddr.sgid = r->sgid;
	p->id.route.addr.addr.ibaddr.dgid = r->dgid;
	p->id.route.addr.addr.ibaddr.pkey = r->pkey;
}

/* the loopback address of family af (port 0) */
static void loopback_of(int af, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)af;
	if (af == AF_INET)
		((struct sockaddr_in *)ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else if (af == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
}

/* bind p to sa (port 0: ephemeral); under cm.lock; 0 or -errno */
static int addr_bind(struct cm_id *p, const struct sockaddr *sa)
{
	socklen_t len = cm_addrlen(sa);
	int err;

	if (!len)
		return -EAFNOSUPPORT;
	if (p->state != CM_IDLE)
		return -EINVAL;
	if (!cm_addr_any(sa) && !cm_addr_local(sa))
		return -EADDRNOTAVAIL;
	err = cm_port_reserve(p, cm_addr_port(sa));
	if (err)
		return err;
	memset(&p->id.route.addr.src_storage, 0,
	       sizeof(p->id.route.addr.src_storage));
	memcpy(&p->id.route.addr.src_storage, sa, len);
	cm_addr_set_port(&p->id.route.addr.src_addr, p->port);
	/* a specific (or loopback) address belongs to the device; a
	 * wildcard bind leaves verbs NULL, as the kernel does */
	if (!cm_addr_any(sa))
		p->id.verbs = cm.devs[0];
	p->id.port_num = p->id.verbs ? 1 : 0;
	p->state = CM_BOUND;
	return 0;
}

CM_EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cm_id *p = (struct cm_id *)id;
	int err;

	if (!id || !addr)
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	err = addr_bind(p, addr);
	return cm_unlock_ret(err);
}

CM_EXPORT int rdma_resolve_addr(struct rdma_cm_id *id,
				struct sockaddr *src_addr,
				struct sockaddr *dst_addr, int timeout_ms)
{
	struct cm_id *p = (struct cm_id *)id;
	struct sockaddr_storage src;
	socklen_t dlen;
	bool mc;
	int err = 0;

	if (!id || !dst_addr || !(dlen = cm_addrlen(dst_addr)))
		return cm_fail(EINVAL);
	/* a multicast group resolves at once (rdma_join_multicast) */
	mc = cm_addr_mcast(dst_addr);
	pthread_mutex_lock(&cm.lock);
	if (p->state == CM_IDLE) {
		memset(&src, 0, sizeof(src));
		if (src_addr && cm_addrlen(src_addr)) {
			memcpy(&src, src_addr, cm_addrlen(src_addr));
		} else if (mc) {
			loopback_of(dst_addr->sa_family, &src);
		} else if (cm_addr_local(dst_addr)) {
			/* the route to a local address leaves from it */
			memcpy(&src, dst_addr, dlen);
			cm_addr_set_port((struct sockaddr *)&src, 0);
		} else {
			src.ss_family = dst_addr->sa_family;
		}
		err = addr_bind(p, (struct sockaddr *)&src);
	} else if (p->state != CM_BOUND) {
		err = -EINVAL;
	}
	if (err)
		goto out;
	if (p->id.route.addr.src_addr.sa_family != dst_addr->sa_family) {
		err = -EINVAL;
		goto out;
	}
	memset(&p->id.route.addr.dst_storage, 0,
	       sizeof(p->id.route.addr.dst_storage));
	memcpy(&p->id.route.addr.dst_storage, dst_addr, dlen);
	if (!mc && !cm_addr_local(dst_addr)) {
		/* nobody answers: the error comes when the timeout ends */
		cm_enter_timed(p, CM_ADDR_QUERY,
			       CM_MS_NS(timeout_ms > 0 ? timeout_ms : 1));
		goto out;
	}
	if (cm_addr_any(&p->id.route.addr.src_addr)) {
		/* the source of a local route is the destination address;
		 * a group is reached from loopback */
		uint16_t port = p->port;

		if (mc)
			loopback_of(dst_addr->sa_family,
				    &p->id.route.addr.src_storage);
		else
			memcpy(&p->id.route.addr.src_storage, dst_addr, dlen);
		cm_addr_set_port(&p->id.route.addr.src_addr, port);
	}
	p->id.verbs = cm.devs[0];
	p->id.port_num = 1;
	p->state = CM_ADDR_RESOLVED;
	cm_route_fill(p);
	p->id.route.num_paths = 0;	/* until rdma_resolve_route */
	cm_event_simple(p, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
out:
	return cm_unlock_sync(p, err, RDMA_CM_EVENT_ADDR_RESOLVED);
}

void cm_route_resolved(struct cm_id *p)
{
	cm_route_fill(p);
	p->state = CM_ROUTE_RESOLVED;
	cm_event_simple(p, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
}

CM_EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct cm_id *p = (struct cm_id *)id;
	int err = 0;

	(void)timeout_ms;	/* the route of an emulated host is known */
	if (!id)
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (p->state != CM_ADDR_RESOLVED && p->state != CM_ROUTE_RESOLVED) {
		err = -EINVAL;
	} else if (cm.route_us) {
		/* a path query (IB: the SA) takes a while on a real fabric;
		 * programs such as perftest -R rely on that time */
		cm_enter_timed(p, CM_ROUTE_QUERY, (uint64_t)cm.route_us * 1000ull);
	} else {
		cm_route_resolved(p);
	}
	return cm_unlock_sync(p, err, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

CM_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return htons(cm_addr_port(&id->route.addr.src_addr));
}

CM_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return htons(cm_addr_port(&id->route.addr.dst_addr));
}

/* the RDMA_OPTION_ID options: where they go in struct cm_id, their size */
#define ID_OPT(name, field)                                              \
	{ name, offsetof(struct cm_id, field),                           \
	  sizeof(((struct cm_id *)0)->field) }
static const struct {
	int name;
	size_t off, size;
} id_opts[] = {
	ID_OPT(RDMA_OPTION_ID_TOS, tos),
	ID_OPT(RDMA_OPTION_ID_REUSEADDR, reuse),
	ID_OPT(RDMA_OPTION_ID_AFONLY, afonly),
	ID_OPT(RDMA_OPTION_ID_ACK_TIMEOUT, ack_timeout),
};
#undef ID_OPT

CM_EXPORT int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
			      void *optval, size_t optlen)
{
	struct cm_id *p = (struct cm_id *)id;
	size_t i;

	if (!id || !optval)
		return cm_fail(EINVAL);
	if (level == RDMA_OPTION_ID) {
		for (i = 0; i < sizeof(id_opts) / sizeof(id_opts[0]); i++) {
			if (id_opts[i].name != optname)
				continue;
			if (optlen != id_opts[i].size)
				break;
			memcpy((char *)p + id_opts[i].off, optval, optlen);
			return 0;
		}
		return cm_fail(EINVAL);
	}
	if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH) {
		/* the path of an emulated host is fixed: accepted, unused */
		if (optlen < sizeof(struct ibv_path_data))
			return cm_fail(EINVAL);
		return 0;
	}
	return cm_fail(ENOSYS);
}

/* ---- rdma_getaddrinfo ----------------------------------------------------- */

static struct sockaddr *sa_dup(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr *d = calloc(1, sizeof(struct sockaddr_storage));

	if (d)
		memcpy(d, sa, len);
	return d;
}

CM_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *n;

	for (; res; res = n) {
		n = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}

/* no node nor service: the addresses come in hints (libfabric does so) */
static int addrinfo_of_hints(const struct rdma_addrinfo *hints,
			     struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *r;

	if (!hints || (!hints->ai_src_addr && !hints->ai_dst_addr))
		return cm_fail(EINVAL);
	r = calloc(1, sizeof(*r));
	if (!r)
		return EAI_MEMORY;
	r->ai_flags = hints->ai_flags;
	r->ai_qp_type = hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
	r->ai_port_space = hints->ai_port_space ? hints->ai_port_space :
				  r->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP :
								RDMA_PS_TCP;
	if (hints->ai_src_addr && cm_addrlen(hints->ai_src_addr)) {
		r->ai_src_len = cm_addrlen(hints->ai_src_addr);
		r->ai_src_addr = sa_dup(hints->ai_src_addr, r->ai_src_len);
		r->ai_family = hints->ai_src_addr->sa_family;
	}
	if (hints->ai_dst_addr && cm_addrlen(hints->ai_dst_addr)) {
		r->ai_dst_len = cm_addrlen(hints->ai_dst_addr);
		r->ai_dst_addr = sa_dup(hints->ai_dst_addr, r->ai_dst_len);
		r->ai_family = hints->ai_dst_addr->sa_family;
	}
	if ((r->ai_src_len && !r->ai_src_addr) ||
	    (r->ai_dst_len && !r->ai_dst_addr) || !r->ai_family) {
		rdma_freeaddrinfo(r);
		return cm_fail(EINVAL);
	}
	*res = r;
	return 0;
}

CM_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
			       const struct rdma_addrinfo *hints,
			       struct rdma_addrinfo **res)
{
	struct addrinfo ah, *ai = NULL;
	struct rdma_addrinfo *r;
	bool passive;
	int ret;

	if (!res)
		return cm_fail(EINVAL);
	if (cm_init())
		return -1;
	if (!node && !service)
		return addrinfo_of_hints(hints, res);
	memset(&ah, 0, sizeof(ah));
	passive = hints && (hints->ai_flags & RAI_PASSIVE);
	ah.ai_flags = passive ? AI_PASSIVE : 0;
	if (hints && (hints->ai_flags & RAI_NUMERICHOST))
		ah.ai_flags |= AI_NUMERICHOST;
	if (hints && (hints->ai_flags & RAI_FAMILY))
		ah.ai_family = hints->ai_family;
	else if (hints && (hints->ai_family == AF_INET ||
			   hints->ai_family == AF_INET6))
		ah.ai_family = hints->ai_family;
	ah.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(node, service, &ah, &ai);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r) {
		freeaddrinfo(ai);
		return EAI_MEMORY;
	}
	r->ai_flags = hints ? hints->ai_flags : 0;
	r->ai_family = ai->ai_family;
	r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type :
						     IBV_QPT_RC;
	if (hints && hints->ai_port_space)
		r->ai_port_space = hints->ai_port_space;
	else
		r->ai_port_space = r->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP :
								  RDMA_PS_TCP;
	if (passive) {
		r->ai_src_addr = sa_dup(ai->ai_addr, ai->ai_addrlen);
		r->ai_src_len = ai->ai_addrlen;
	} else {
		r->ai_dst_addr = sa_dup(ai->ai_addr, ai->ai_addrlen);
		r->ai_dst_len = ai->ai_addrlen;
		if (hints && hints->ai_src_addr && hints->ai_src_len) {
			r->ai_src_addr = sa_dup(hints->ai_src_addr,
						hints->ai_src_len);
			r->ai_src_len = hints->ai_src_len;
		}
	}
	freeaddrinfo(ai);
	if ((passive && !r->ai_src_addr) || (!passive && !r->ai_dst_addr)) {
		rdma_freeaddrinfo(r);
		return EAI_MEMORY;
	}
	*res = r;
	return 0;
}

/* ---- endpoints ------------------------------------------------------------ */

CM_EXPORT int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
			     struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cid;
	struct cm_id *p;

	if (!id || !res)
		return cm_fail(EINVAL);
	if (rdma_create_id(NULL, &cid, NULL,
			   (enum rdma_port_space)res->ai_port_space))
		return -1;
	p = (struct cm_id *)cid;
	/* the id and its QP are of the type the address info says (a QP
	 * attribute's own qp_type is ignored, as librdmacm does) */
	if (res->ai_qp_type)
		cid->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE) {
		if (rdma_bind_addr(cid, res->ai_src_addr))
			goto err;
		if (qp_init_attr) {
			p->ep_qp_attr = malloc(sizeof(*qp_init_attr));
			if (!p->ep_qp_attr)
				goto err;
			*p->ep_qp_attr = *qp_init_attr;
			p->ep_qp_attr->qp_type = cid->qp_type;
		}
		p->ep_pd = pd;
		*id = cid;
		return 0;
	}
	if (rdma_resolve_addr(cid, res->ai_src_addr, res->ai_dst_addr, 2000))
		goto err;
	if (rdma_resolve_route(cid, 2000))
		goto err;
	if (qp_init_attr) {
		qp_init_attr->qp_type = cid->qp_type;
		if (rdma_create_qp(cid, pd, qp_init_attr))
			goto err;
	}
	*id = cid;
	return 0;
err:
	{
		int e = errno;

		rdma_destroy_id(cid);
		errno = e;
	}
	return -1;
}

CM_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
