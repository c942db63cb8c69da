// SPDX-License-Identifier: MIT
/*
 * The port's GID table, GID queries, address vectors and the RoCE
 * delivery rule.
 *
 * InfiniBand mode: one GID, fe80::2c0:ffee:0:<node>, type IB.
 * RoCE mode: the table the kernel builds for a netdev (see
 * docs/softverbs.md): index 0/1 the link-local GID (EUI-64 of the emulated
 * MAC 02:c0:00:00:<node>) as RoCE v1/v2, then a v1 and a v2 entry for each
 * address of the emulated interface (SOFTVERBS_ADDRS, by default
 * 198.18.<node> and fd73:7665:7262::<node>).  The table is per process and
 * fixed once the configuration is read; it needs no lock.
 *
 * A GID names a node as a neighbour table would: link-local GIDs by the
 * MAC they encode, address GIDs through a registry of abstract socket
 * names "softverbs/<fabric>/g/<gid hex>/<node>/<pid>" that each process
 * binds for its own addresses (names vanish with the process) and that a
 * lookup finds in /proc/net/unix.
 *
 * Delivery rule (RoCE): a packet is accepted only if its destination GID
 * is an entry of the receiver's table of the sender's GID type and both
 * GIDs are of the same family (IPv4-mapped or IPv6).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sv_internal.h"

#define SV_GID_NAME_MAX 107	/* bytes of an abstract sun_path name */

static const uint8_t v4_mapped_prefix[12] = { 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0xff, 0xff };
/* default IPv6 address of a node: fd73:7665:7262::<node> ("sverb") */
static const uint8_t default_ula_prefix[6] = { 0xfd, 0x73, 0x76,
					       0x65, 0x72, 0x62 };
/* default IPv4 address of a node: 198.18.<node>, RFC 2544 benchmarking */
static const uint8_t default_v4_prefix[2] = { 198, 18 };

static bool gid_is_zero(const union ibv_gid *g)
{
	static const uint8_t zero[16];

	return !memcmp(g->raw, zero, 16);
}

bool sv_gid_is_v4(const uint8_t raw[16])
{
	return !memcmp(raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
}

/* ---- the IB GID and the emulated MAC ------------------------------------ */

void sv_gid_of_node(uint32_t node, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[8] = 0x02;
	gid->raw[9] = 0xc0;
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xee;
	gid->raw[12] = (uint8_t)(node >> 24);
	gid->raw[13] = (uint8_t)(node >> 16);
	gid->raw[14] = (uint8_t)(node >> 8);
	gid->raw[15] = (uint8_t)node;
}

uint32_t sv_node_of_gid(const union ibv_gid *gid)
{
	union ibv_gid ref;

	sv_gid_of_node(0, &ref);
	if (memcmp(gid->raw, ref.raw, 12))
		return 0;
	return (uint32_t)gid->raw[12] << 24 | (uint32_t)gid->raw[13] << 16 |
	       (uint32_t)gid->raw[14] << 8 | gid->raw[15];
}

void sv_mac_of_node(uint32_t node, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0xc0;
	mac[2] = (uint8_t)(node >> 24);
	mac[3] = (uint8_t)(node >> 16);
	mac[4] = (uint8_t)(node >> 8);
	mac[5] = (uint8_t)node;
}

/* fe80::<EUI-64 of the MAC>, as the kernel makes the default RoCE GID */
static void link_local_of_node(uint32_t node, union ibv_gid *gid)
{
	uint8_t mac[6];

	sv_mac_of_node(node, mac);
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->raw[8] = mac[0] ^ 0x02;
	gid->raw[9] = mac[1];
	gid->raw[10] = mac[2];
	gid->raw[11] = 0xff;
	gid->raw[12] = 0xfe;
	gid->raw[13] = mac[3];
	gid->raw[14] = mac[4];
	gid->raw[15] = mac[5];
}

static uint32_t node_of_link_local(const union ibv_gid *gid)
{
	union ibv_gid ref;
	uint32_t node;

	link_local_of_node(0, &ref);
	if (memcmp(gid->raw, ref.raw, 11) || gid->raw[11] != 0xff ||
	    gid->raw[12] != 0xfe || gid->raw[13])
		return 0;
	node = (uint32_t)gid->raw[14] << 8 | gid->raw[15];
	return node <= 0xbfff ? node : 0;
}

/* ---- building the table ----------------------------------------------- */

static void table_add(const union ibv_gid *g, enum ibv_gid_type type)
{
	uint32_t i;

	for (i = 0; i < sv_cfg.ngids; i++)
		if (sv_cfg.gids[i].type == type &&
		    !memcmp(sv_cfg.gids[i].gid.raw, g->raw, 16))
			return;		/* the kernel adds no duplicates */
	if (sv_cfg.ngids < SV_GID_TBL_LEN) {
		sv_cfg.gids[sv_cfg.ngids].gid = *g;
		sv_cfg.gids[sv_cfg.ngids].type = type;
		sv_cfg.ngids++;
	}
}

/* one entry per GID type the port supports (SOFTVERBS_GID_TYPES) */
static void add_address(const union ibv_gid *g)
{
	if (sv_cfg.gid_types & SV_GID_V1)
		table_add(g, IBV_GID_TYPE_ROCE_V1);
	if (sv_cfg.gid_types & SV_GID_V2)
		table_add(g, IBV_GID_TYPE_ROCE_V2);
}

static unsigned int parse_types(const char *s)
{
	unsigned int m = 0;

	if (!s || !*s)
		return SV_GID_V1 | SV_GID_V2;
	if (strstr(s, "1"))
		m |= SV_GID_V1;
	if (strstr(s, "2"))
		m |= SV_GID_V2;
	if (!m) {
		sv_log("SOFTVERBS_GID_TYPES: '%s' names neither v1 nor v2; "
		       "using v1,v2", s);
		m = SV_GID_V1 | SV_GID_V2;
	}
	return m;
}

/* one address of SOFTVERBS_ADDRS; false if it is neither IPv4 nor IPv6 */
static bool parse_address(const char *s, union ibv_gid *g)
{
	struct in_addr a4;

	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		memcpy(g->raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(g->raw + 12, &a4, 4);
		return true;
	}
	return inet_pton(AF_INET6, s, g->raw) == 1;
}

static void default_addresses(uint32_t node)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	memcpy(g.raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
	memcpy(g.raw + 12, default_v4_prefix, 2);
	g.raw[14] = (uint8_t)(node >> 8);
	g.raw[15] = (uint8_t)node;
	add_address(&g);
	memset(&g, 0, sizeof(g));
	memcpy(g.raw, default_ula_prefix, sizeof(default_ula_prefix));
	g.raw[14] = (uint8_t)(node >> 8);
	g.raw[15] = (uint8_t)node;
	add_address(&g);
}

static void parse_addresses(const char *list)
{
	char buf[1024], *save = NULL, *tok;
	int n;

	n = snprintf(buf, sizeof(buf), "%s", list);
	if (n < 0 || (size_t)n >= sizeof(buf))
		sv_log("SOFTVERBS_ADDRS: longer than %zu bytes; the rest is "
		       "ignored", sizeof(buf) - 1);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		union ibv_gid g;

		if (!strcasecmp(tok, "none"))
			continue;
		if (!parse_address(tok, &g)) {
			sv_log("SOFTVERBS_ADDRS: '%s' is not an IPv4 or IPv6 "
			       "address; ignored", tok);
			continue;
		}
		if (sv_cfg.ngids + 2 > SV_GID_TBL_LEN) {
			sv_log("SOFTVERBS_ADDRS: '%s' does not fit the "
			       "%d-entry GID table; ignored (at most %d "
			       "addresses)", tok, SV_GID_TBL_LEN, SV_MAX_ADDRS);
			continue;
		}
		add_address(&g);
	}
}

void sv_gid_config(void)
{
	const char *s;
	union ibv_gid g;

	sv_cfg.ngids = 0;
	if (!sv_cfg.roce) {
		sv_gid_of_node(sv_cfg.node, &sv_cfg.gids[0].gid);
		sv_cfg.gids[0].type = IBV_GID_TYPE_IB;
		sv_cfg.ngids = 1;
		sv_cfg.gid_tbl_len = 1;
		return;
	}
	sv_cfg.gid_tbl_len = SV_GID_TBL_LEN;
	sv_cfg.gid_types = parse_types(getenv("SOFTVERBS_GID_TYPES"));
	s = getenv("SOFTVERBS_NETDEV");
	snprintf(sv_cfg.netdev, sizeof(sv_cfg.netdev), "%s",
		 s && *s ? s : "lo");
	sv_cfg.ifindex = if_nametoindex(sv_cfg.netdev);
	link_local_of_node(sv_cfg.node, &g);
	add_address(&g);
	s = getenv("SOFTVERBS_ADDRS");
	if (s && *s)
		parse_addresses(s);
	else
		default_addresses(sv_cfg.node);
}

const struct sv_gid *sv_gid_entry(uint32_t index)
{
	return index < sv_cfg.ngids ? &sv_cfg.gids[index] : NULL;
}

int sv_gid_find(const union ibv_gid *gid, enum ibv_gid_type type)
{
	uint32_t i;

	for (i = 0; i < sv_cfg.ngids; i++)
		if (sv_cfg.gids[i].type == type &&
		    !memcmp(sv_cfg.gids[i].gid.raw, gid->raw, 16))
			return (int)i;
	return -1;
}

/* ---- the registry of addresses ------------------------------------------ */

static int gid_name(char *out, size_t size, const union ibv_gid *g)
{
	char hex[33];
	int i, n;

	for (i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", g->raw[i]);
	n = snprintf(out, size, "softverbs/%s/g/%s/", sv_cfg.fabric, hex);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

static void publish_once(void)
{
	uint32_t i;

	for (i = 0; i < sv_cfg.ngids; i++) {
		const union ibv_gid *g = &sv_cfg.gids[i].gid;
		struct sockaddr_un a;
		socklen_t len;
		char name[SV_GID_NAME_MAX + 1];
		int fd, n, m;

		/* link-local GIDs name their node; one name per address */
		if (node_of_link_local(g) || (i && !memcmp(g->raw,
				sv_cfg.gids[i - 1].gid.raw, 16)))
			continue;
		n = gid_name(name, sizeof(name), g);
		m = n < 0 ? -1 :
			    snprintf(name + n, sizeof(name) - (size_t)n,
				     "%u/%d", sv_cfg.node, (int)getpid());
		if (m < 0 || (size_t)m >= sizeof(name) - (size_t)n) {
			sv_log("GID registry: fabric name '%s' too long; "
			       "address GIDs of this process are unreachable",
			       sv_cfg.fabric);
			return;
		}
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		memcpy(a.sun_path + 1, name, strlen(name));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  strlen(name));
		if (bind(fd, (struct sockaddr *)&a, len) < 0) {
			SV_DBG("GID registry: bind %s: %s", name,
			       strerror(errno));
			close(fd);
		}
		/* the fd stays open for the life of the process */
	}
}

void sv_gid_publish(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (sv_cfg.roce)
		pthread_once(&once, publish_once);
}

/*
 * One scan of /proc/net/unix for the registry name of gid.  The kernel
 * gives at most a page per read and resumes the next read by position in
 * its hash table, so a socket closed meanwhile ahead of the resume point
 * (QP sockets of the same fabric hash nearby) hides one entry from that
 * scan (about 1 lookup in 1000 under heavy churn; tests/softverbs
 * gid_lookup_churn).
 */
static uint32_t registry_scan(const char *want, int n)
{
	char *line = NULL;
	size_t cap = 0;
	uint32_t node = 0;
	FILE *f;

	f = fopen("/proc/net/unix", "re");
	if (!f)
		return 0;
	while (!node && getline(&line, &cap, f) > 0) {
		char *p = strstr(line, want);
		unsigned long v;

		if (!p)
			continue;
		v = strtoul(p + 1 + n, NULL, 10);
		if (v && v <= 0xbfff)
			node = (uint32_t)v;
	}
	free(line);
	fclose(f);
	return node;
}

/* the node that registered gid, 0 if none (after up to 8 scans) */
static uint32_t registry_lookup(const union ibv_gid *gid)
{
	char want[SV_GID_NAME_MAX + 2];
	uint32_t node = 0;
	int n, i;

	want[0] = '@';
	n = gid_name(want + 1, sizeof(want) - 1, gid);
	if (n < 0)
		return 0;
	for (i = 0; i < 8 && !node; i++)
		node = registry_scan(want, n);
	return node;
}

/* ---- address vectors ---------------------------------------------------------- */

int sv_av_resolve(const struct ibv_ah_attr *ah, uint32_t *node)
{
	const union ibv_gid *d = &ah->grh.dgid;
	uint32_t n;

	if (ah->is_global && ah->grh.sgid_index >= sv_cfg.gid_tbl_len)
		return EINVAL;
	if (ah->is_global && !sv_gid_entry(ah->grh.sgid_index))
		return ENODATA;
	/* a multicast group: its members are looked up at each send */
	if ((ah->is_global && sv_gid_is_mcast(d)) ||
	    (!ah->is_global && !sv_cfg.roce && sv_lid_is_mcast(ah->dlid))) {
		*node = SV_NODE_MCAST;
		return 0;
	}
	if (!sv_cfg.roce) {
		n = ah->is_global ? sv_node_of_gid(d) : 0;
		if (!n)
			n = ah->dlid;
		if (!n)
			return EINVAL;
		*node = n;
		return 0;
	}
	if (!ah->is_global)
		return EINVAL;		/* RoCE needs a GRH */
	if (sv_gid_find(d, IBV_GID_TYPE_ROCE_V1) >= 0 ||
	    sv_gid_find(d, IBV_GID_TYPE_ROCE_V2) >= 0)
		n = sv_cfg.node;	/* one of ours: loopback */
	else
		n = node_of_link_local(d);
	if (!n && !gid_is_zero(d))
		n = registry_lookup(d);
	if (!n) {
		SV_DBG("no node has the GID of this address vector");
		return EINVAL;		/* no neighbour: no L2 address */
	}
	*node = n;
	return 0;
}

void sv_gid_stamp(struct sv_pkt *p, const struct ibv_ah_attr *ah)
{
	const struct sv_gid *e;

	if (!ah->is_global)
		return;
	e = sv_gid_entry(ah->grh.sgid_index);
	if (e) {
		memcpy(p->sgid, e->gid.raw, 16);
		p->gid_type = (uint8_t)e->type;
	}
	memcpy(p->dgid, ah->grh.dgid.raw, 16);
	p->flags |= SV_F_GRH;
}

bool sv_pkt_is_meta(const struct sv_pkt *p)
{
	return p->op == SV_OP_PING ||
	       (p->op == SV_OP_NAK && (p->syndrome == SV_NAK_DEAD ||
				       p->syndrome == SV_NAK_LOST ||
				       p->syndrome == SV_NAK_RETRY_EXC));
}

bool sv_gid_path_ok(const struct ibv_ah_attr *ah, const struct sv_pkt *p)
{
	const struct sv_gid *e;

	if (!sv_cfg.roce || !ah->is_global || sv_pkt_is_meta(p))
		return true;
	e = sv_gid_entry(ah->grh.sgid_index);
	return e && p->gid_type == e->type &&
	       !memcmp(p->sgid, ah->grh.dgid.raw, 16) &&
	       !memcmp(p->dgid, e->gid.raw, 16);
}

bool sv_gid_accept(const struct sv_pkt *p)
{
	union ibv_gid d;

	if (!(p->flags & SV_F_GRH))
		return false;
	if (sv_gid_is_v4(p->sgid) != sv_gid_is_v4(p->dgid))
		return false;
	memcpy(d.raw, p->dgid, 16);
	/* to a group: it came because this QP is attached (sv_mcast.c) */
	if (sv_gid_is_mcast(&d))
		return true;
	return sv_gid_find(&d, (enum ibv_gid_type)p->gid_type) >= 0;
}

/* ---- the GRH area of a UD receive ---------------------------------------------- */

static uint16_t ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void sv_gid_grh(const struct sv_pkt *p, uint8_t area[40])
{
	bool v2 = sv_cfg.roce && p->gid_type == IBV_GID_TYPE_ROCE_V2;
	struct ibv_grh g;

	memset(area, 0, 40);
	if (v2 && sv_gid_is_v4(p->sgid)) {
		/* RoCE v2 over IPv4: 20 undefined bytes, the IPv4 header */
		uint8_t *h = area + 20;
		uint16_t tot = (uint16_t)(20 + 8 + 12 + 8 + p->len + 4);
		uint16_t sum;

		h[0] = 0x45;
		h[1] = p->tclass;
		h[2] = (uint8_t)(tot >> 8);
		h[3] = (uint8_t)tot;
		h[6] = 0x40;			/* don't fragment */
		h[8] = p->hop_limit;
		h[9] = 17;			/* UDP */
		memcpy(h + 12, p->sgid + 12, 4);
		memcpy(h + 16, p->dgid + 12, 4);
		sum = ip_checksum(h, 20);
		h[10] = (uint8_t)(sum >> 8);
		h[11] = (uint8_t)sum;
		return;
	}
	memset(&g, 0, sizeof(g));
	g.version_tclass_flow = htobe32(6u << 28 | (uint32_t)p->tclass << 20 |
					(p->flow_label & 0xfffff));
	g.paylen = htobe16((uint16_t)(p->len + 8));
	g.next_hdr = v2 ? 17 : 0x1b;	/* UDP (RoCE v2) or BTH */
	g.hop_limit = p->hop_limit;
	memcpy(g.sgid.raw, p->sgid, 16);
	memcpy(g.dgid.raw, p->dgid, 16);
	memcpy(area, &g, sizeof(g));
}

/* ---- verbs ------------------------------------------------------------------------- */

SV_EXPORT int ibv_query_gid(struct ibv_context *c, uint8_t port, int index,
			    union ibv_gid *gid)
{
	const struct sv_gid *e;

	(void)c;
	sv_config_load();
	if (port != 1 || index < 0 || (uint32_t)index >= sv_cfg.gid_tbl_len)
		return -1;
	e = sv_gid_entry((uint32_t)index);
	if (e)
		*gid = e->gid;
	else
		memset(gid, 0, sizeof(*gid));	/* an empty entry */
	return 0;
}

SV_EXPORT int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port,
				uint32_t index, struct ibv_gid_entry *entry,
				uint32_t flags, size_t entry_size)
{
	const struct sv_gid *g;
	struct ibv_gid_entry e;

	(void)c;
	sv_config_load();
	if (flags || port != 1 || index >= sv_cfg.gid_tbl_len)
		return EINVAL;
	g = sv_gid_entry(index);
	if (!g)
		return ENODATA;
	memset(&e, 0, sizeof(e));
	e.gid = g->gid;
	e.gid_index = index;
	e.port_num = 1;
	e.gid_type = g->type;
	e.ndev_ifindex = sv_cfg.roce ? sv_cfg.ifindex : 0;
	memset(entry, 0, entry_size);
	memcpy(entry, &e, entry_size < sizeof(e) ? entry_size : sizeof(e));
	return 0;
}

SV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *c,
				       struct ibv_gid_entry *entries,
				       size_t max, uint32_t flags,
				       size_t entry_size)
{
	uint8_t *out = (uint8_t *)entries;
	uint32_t i;
	size_t n = 0;

	sv_config_load();
	if (flags)
		return -EINVAL;
	for (i = 0; i < sv_cfg.gid_tbl_len; i++) {
		if (!sv_gid_entry(i))
			continue;
		if (n == max)
			return -EINVAL;	/* as rdma-core: array too small */
		if (_ibv_query_gid_ex(c, 1, i,
				      (struct ibv_gid_entry *)(out +
							       n * entry_size),
				      0, entry_size))
			return -EINVAL;
		n++;
	}
	return (ssize_t)n;
}

/* IBVERBS_PRIVATE: ibv_devinfo asks for the GID type */
SV_EXPORT int ibv_query_gid_type(struct ibv_context *c, uint8_t port,
				 unsigned int index, int *type)
{
	const struct sv_gid *e;

	(void)c;
	sv_config_load();
	if (port != 1 || index >= sv_cfg.gid_tbl_len)
		return -1;
	e = sv_gid_entry(index);
	/* enum ibv_gid_type_sysfs: 0 = IB/RoCE v1 (also empty), 1 = v2 */
	*type = e && e->type == IBV_GID_TYPE_ROCE_V2 ? 1 : 0;
	return 0;
}

SV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *c, uint8_t port,
				  struct ibv_wc *wc, struct ibv_grh *grh,
				  struct ibv_ah_attr *ah)
{
	const uint8_t *raw = (const uint8_t *)grh;
	uint32_t vtf;
	int idx;

	(void)c;
	memset(ah, 0, sizeof(*ah));
	ah->dlid = wc->slid;
	ah->sl = wc->sl;
	ah->src_path_bits = wc->dlid_path_bits;
	ah->port_num = port;
	if (!(wc->wc_flags & IBV_WC_GRH)) {
		if (sv_cfg.roce) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	}
	ah->is_global = 1;
	vtf = be32toh(grh->version_tclass_flow);
	ah->grh.flow_label = vtf & 0xfffff;
	if (!sv_cfg.roce) {
		ah->grh.dgid = grh->sgid;
		ah->grh.sgid_index = 0;
		ah->grh.hop_limit = 0xff;
		ah->grh.traffic_class = (uint8_t)((vtf >> 20) & 0xff);
		return 0;
	}
	if (vtf >> 28 != 6 && (raw[20] >> 4) == 4) {
		/* RoCE v2 over IPv4: the header is in the last 20 bytes */
		union ibv_gid local;

		memset(&local, 0, sizeof(local));
		memcpy(local.raw, v4_mapped_prefix, 12);
		memcpy(local.raw + 12, raw + 36, 4);	/* daddr */
		idx = sv_gid_find(&local, IBV_GID_TYPE_ROCE_V2);
		if (idx < 0) {
			errno = ENOENT;
			return -1;
		}
		memcpy(ah->grh.dgid.raw, v4_mapped_prefix, 12);
		memcpy(ah->grh.dgid.raw + 12, raw + 32, 4);	/* saddr */
		ah->grh.sgid_index = (uint8_t)idx;
		ah->grh.hop_limit = raw[20 + 8];
		ah->grh.traffic_class = raw[20 + 1];
		ah->grh.flow_label = 0;
		return 0;
	}
	if (vtf >> 28 != 6 || (grh->next_hdr != 17 && grh->next_hdr != 0x1b)) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	idx = sv_gid_find(&grh->dgid, grh->next_hdr == 17 ?
					      IBV_GID_TYPE_ROCE_V2 :
					      IBV_GID_TYPE_ROCE_V1);
	if (idx < 0) {
		errno = ENOENT;
		return -1;
	}
	ah->grh.dgid = grh->sgid;
	ah->grh.sgid_index = (uint8_t)idx;
	ah->grh.hop_limit = grh->hop_limit;
	ah->grh.traffic_class = (uint8_t)((vtf >> 20) & 0xff);
	return 0;
}
