// SPDX-License-Identifier: MIT
/*
 * Multicast: ibv_attach_mcast, ibv_detach_mcast, and the members a UD send
 * to a group reaches.
 *
 * A QP's membership of a group is an abstract socket name,
 * "softverbs/<fabric>/m/<MGID hex>/<MLID hex>/<node>/<qpn>", bound for as
 * long as the QP is attached (the process's death or the QP's destruction
 * ends it).  A send to a group (remote QPN 0xFFFFFF and an address vector
 * with a multicast GID, or in IB mode a multicast LID without GRH) looks the
 * members up in /proc/net/unix at that moment and goes as one UD datagram
 * to each, the sending QP included when it is attached itself (HCAs loop
 * multicast back).  Nothing here is a subnet manager: any QP may attach to
 * any multicast GID.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sv_internal.h"

/* one group a QP is attached to (sv_qp.mcast, under ctx->mu) */
struct sv_mcast {
	struct sv_mcast *next;
	union ibv_gid gid;
	uint16_t lid;
	int fd;			/* bound to the membership name */
};

bool sv_gid_is_mcast(const union ibv_gid *g)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (g->raw[0] == 0xff)
		return true;
	/* RoCE v2: an IPv4 multicast address, mapped */
	return !memcmp(g->raw, v4mapped, 12) && g->raw[12] >= 224 &&
	       g->raw[12] <= 239;
}

bool sv_lid_is_mcast(uint16_t lid)
{
	return lid >= 0xc000 && lid != 0xffff;
}

static void gid_hex(const union ibv_gid *g, char out[33])
{
	int i;

	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", g->raw[i]);
}

SV_EXPORT int ibv_attach_mcast(struct ibv_qp *q, const union ibv_gid *gid,
			       uint16_t lid)
{
	struct sv_qp *qp = sv_qp(q);
	struct sv_context *ctx = qp->ctx;
	struct sockaddr_un a;
	struct sv_mcast *m;
	socklen_t len;
	char hex[33];
	int n, err = 0;

	if (!sv_ctx_usable(ctx) || !gid)
		return EINVAL;
	if (q->qp_type != IBV_QPT_UD || !sv_gid_is_mcast(gid))
		return EINVAL;
	pthread_mutex_lock(&ctx->mu);
	for (m = qp->mcast; m; m = m->next) {
		if (!memcmp(m->gid.raw, gid->raw, 16) && m->lid == lid)
			goto out;	/* attached already */
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		err = ENOMEM;
		goto out;
	}
	gid_hex(gid, hex);
	sv_abstract_addr(&a, &len, "softverbs/%s/m/%s/%04x/%u/%u",
			 sv_cfg.fabric, hex, lid, sv_cfg.node, qp->qpn);
	n = snprintf(NULL, 0, "softverbs/%s/m/%s/%04x/%u/%u", sv_cfg.fabric,
		     hex, lid, sv_cfg.node, qp->qpn);
	m->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n < 0 || (size_t)n > sizeof(a.sun_path) - 2) {
		err = ENAMETOOLONG;	/* the fabric name is too long */
	} else if (m->fd < 0 ||
		   bind(m->fd, (struct sockaddr *)&a, len) < 0) {
		err = errno ? errno : ENOMEM;
	}
	if (err) {
		SV_DBG("qp %u: attach to a multicast group: %s", qp->qpn,
		       strerror(err));
		if (m->fd >= 0)
			close(m->fd);
		free(m);
		goto out;
	}
	m->gid = *gid;
	m->lid = lid;
	m->next = qp->mcast;
	qp->mcast = m;
	SV_DBG("qp %u: attached to multicast group %s lid 0x%x", qp->qpn, hex,
	       lid);
out:
	pthread_mutex_unlock(&ctx->mu);
	return err;
}

SV_EXPORT int ibv_detach_mcast(struct ibv_qp *q, const union ibv_gid *gid,
			       uint16_t lid)
{
	struct sv_qp *qp = sv_qp(q);
	struct sv_context *ctx = qp->ctx;
	struct sv_mcast **pp, *m;
	int err = EINVAL;

	if (!sv_ctx_usable(ctx) || !gid)
		return EINVAL;
	pthread_mutex_lock(&ctx->mu);
	for (pp = &qp->mcast; (m = *pp); pp = &m->next) {
		if (!memcmp(m->gid.raw, gid->raw, 16) && m->lid == lid) {
			*pp = m->next;
			close(m->fd);
			free(m);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->mu);
	return err;
}

void sv_mcast_detach_all(struct sv_qp *qp)
{
	struct sv_mcast *m;

	while ((m = qp->mcast)) {
		qp->mcast = m->next;
		close(m->fd);
		free(m);
	}
}

/*
 * The members of the group that address vector ah names: up to max
 * (node, QPN) pairs into out; their number.  With a GRH the group is its
 * MGID, without (IB) its MLID.
 */
int sv_mcast_members(const struct ibv_ah_attr *ah, struct sv_member *out,
		     int max)
{
	char want[128], hex[33], *line = NULL;
	size_t cap = 0;
	int n = 0, wl;
	FILE *f;

	if (ah->is_global) {
		gid_hex(&ah->grh.dgid, hex);
		wl = snprintf(want, sizeof(want), "@softverbs/%s/m/%s/",
			      sv_cfg.fabric, hex);
	} else {
		wl = snprintf(want, sizeof(want), "@softverbs/%s/m/", sv_cfg.fabric);
	}
	if (wl < 0 || (size_t)wl >= sizeof(want))
		return 0;
	f = fopen("/proc/net/unix", "re");
	if (!f)
		return 0;
	while (n < max && getline(&line, &cap, f) > 0) {
		char *p = strstr(line, want);
		unsigned int lid, node, qpn;
		int i;

		if (!p)
			continue;
		p += wl;
		if (!ah->is_global) {
			/* skip the MGID: the MLID names the group */
			p = strchr(p, '/');
			if (!p)
				continue;
			p++;
		}
		if (sscanf(p, "%x/%u/%u", &lid, &node, &qpn) != 3)
			continue;
		if (!ah->is_global && lid != ah->dlid)
			continue;
		for (i = 0; i < n; i++) {
			if (out[i].node == node && out[i].qpn == qpn)
				break;
		}
		if (i < n)
			continue;	/* attached twice (two MLIDs) */
		out[n].node = node;
		out[n].qpn = qpn;
		n++;
	}
	free(line);
	fclose(f);
	return n;
}
