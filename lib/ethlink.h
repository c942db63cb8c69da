/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An Ethernet interface's link modes, through the kernel's ethtool
 * interface (SIOCETHTOOL): the fastest mode its port advertises, to set
 * beside the speed it trained at (class/net/IF/speed).  The names of the
 * modes come from the kernel (string set ETH_SS_LINK_MODES, such as
 * "100000baseCR4/Full"), so no table of link modes is kept here.
 */
#ifndef QPERF_ETHLINK_H
#define QPERF_ETHLINK_H

#include <stddef.h>
#include <stdint.h>

/* The Mb/s a mode's name begins with ("25000baseSR/Full": 25000), or 0
 * for a name that does not begin with digits and "base".  Pure. */
uint32_t ethlink_name_speed(const char *name);

/*
 * The fastest mode set in mask (nbits bits, 32 to a word) whose name is
 * at names + bit * stride (at most stride bytes, NUL-padded): Mb/s, or 0
 * if no set bit names a speed.  Pure.
 */
uint32_t ethlink_fastest(const uint32_t *mask, unsigned nbits,
			 const char *names, size_t stride);

/*
 * The fastest mode interface ifname advertises, in Mb/s: 0 when it
 * cannot be known (no ethtool link settings: loopback, a virtual
 * interface, autonegotiation off and nothing advertised), or when
 * $SYSFS_PATH is set (a planted machine's interfaces are not this
 * kernel's).  Never prints.
 */
uint32_t ethlink_advertised_max(const char *ifname);

#endif
