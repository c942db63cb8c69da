// SPDX-License-Identifier: GPL-2.0-only
/* An Ethernet interface's advertised link modes (lib/ethlink.h). */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/ethlink.h"

uint32_t ethlink_name_speed(const char *name)
{
	uint64_t v = 0;
	const char *p = name;

	while (*p >= '0' && *p <= '9' && v <= UINT32_MAX)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (p == name || v > UINT32_MAX || strncmp(p, "base", 4) != 0)
		return 0;
	return (uint32_t)v;
}

uint32_t ethlink_fastest(const uint32_t *mask, unsigned nbits,
			 const char *names, size_t stride)
{
	uint32_t best = 0;
	char name[ETH_GSTRING_LEN + 1];

	size_t n = stride < ETH_GSTRING_LEN ? stride : ETH_GSTRING_LEN;

	for (unsigned b = 0; b < nbits; b++) {
		uint32_t s;

		if (!(mask[b / 32] & (1u << (b % 32))))
			continue;
		memcpy(name, names + (size_t)b * stride, n);
		name[n] = '\0';
		s = ethlink_name_speed(name);
		if (s > best)
			best = s;
	}
	return best;
}

static int ethtool(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* The kernel's link mode names (g->len of them, ETH_GSTRING_LEN apart;
 * the caller frees), or NULL. */
static struct ethtool_gstrings *mode_names(int fd, const char *ifname)
{
	union {
		struct ethtool_sset_info h;
		uint64_t raw[sizeof(struct ethtool_sset_info) / 8 + 1];
	} ss;
	struct ethtool_gstrings *g;
	uint32_t n;

	memset(&ss, 0, sizeof(ss));
	ss.h.cmd = ETHTOOL_GSSET_INFO;
	ss.h.sset_mask = 1ULL << ETH_SS_LINK_MODES;
	if (ethtool(fd, ifname, &ss) ||
	    !(ss.h.sset_mask & (1ULL << ETH_SS_LINK_MODES)))
		return NULL;
	n = ss.h.data[0];
	if (!n || n > 4096)
		return NULL;
	g = calloc(1, sizeof(*g) + (size_t)n * ETH_GSTRING_LEN);
	if (!g)
		return NULL;
	g->cmd = ETHTOOL_GSTRINGS;
	g->string_set = ETH_SS_LINK_MODES;
	g->len = n;
	if (ethtool(fd, ifname, g) || g->len > n) {
		free(g);
		return NULL;
	}
	return g;
}

/* Link settings: the kernel says how many mask words it has when asked
 * with none, then fills supported, advertising, lp_advertising. */
#define WORDS_MAX 127 /* link_mode_masks_nwords is an s8 */
union link_settings {
	struct ethtool_link_settings s;
	uint32_t raw[sizeof(struct ethtool_link_settings) / 4 + 3 * WORDS_MAX];
};

uint32_t ethlink_advertised_max(const char *ifname)
{
	union link_settings ls;
	const char *root = getenv("SYSFS_PATH");
	struct ethtool_gstrings *names = NULL;
	uint32_t best = 0;
	int fd, words;

	if ((root && *root) || !ifname[0])
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ls, 0, sizeof(ls));
	ls.s.cmd = ETHTOOL_GLINKSETTINGS;
	if (ethtool(fd, ifname, &ls) || ls.s.link_mode_masks_nwords >= 0)
		goto out;
	words = -ls.s.link_mode_masks_nwords;
	memset(&ls, 0, sizeof(ls));
	ls.s.cmd = ETHTOOL_GLINKSETTINGS;
	ls.s.link_mode_masks_nwords = (int8_t)words;
	if (ethtool(fd, ifname, &ls) || ls.s.link_mode_masks_nwords != words)
		goto out;
	names = mode_names(fd, ifname);
	if (names)
		best = ethlink_fastest(ls.s.link_mode_masks + words,
				       names->len < (uint32_t)words * 32
					       ? names->len
					       : (uint32_t)words * 32,
				       (const char *)names->data,
				       ETH_GSTRING_LEN);
	free(names);
out:
	close(fd);
	return best;
}
