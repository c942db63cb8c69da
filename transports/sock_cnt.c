// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loss and error counters of the socket transports (struct transport's
 * counters operation, lib/counters.h).
 *
 * TCP: TCP_INFO of the data socket.  Debian 12's <netinet/tcp.h> has a
 * shorter struct tcp_info than the kernel's, so this file uses
 * <linux/tcp.h> alone, and takes a field only when the length the kernel
 * returned covers it (an older kernel fills less).
 *
 * UDP: the socket's own drops (sk_drops: datagrams the full receive
 * buffer refused, the count SO_RXQ_OVFL reports) from the "drops" column
 * of /proc/net/udp or udp6, found by the socket's inode, so the receive
 * path stays a plain recv(); and the host's RcvbufErrors and
 * InCsumErrors (IPv4 and IPv6 together) from /proc/net/snmp and snmp6,
 * which count every UDP socket of the host (CNTF_HOST).
 */
#include <linux/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "lib/counters.h"
#include "sock.h"
#include "sock_io.h"

#ifndef SOL_TCP
#define SOL_TCP 6
#endif

#define HAS(f) (len >= offsetof(struct tcp_info, f) + sizeof(ti.f))

static void tcp_counters(int fd, struct cnt_set *c)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, SOL_TCP, TCP_INFO, &ti, &len) < 0)
		return;
	if (HAS(tcpi_total_retrans))
		cnt_add(c, "tcp_retrans", CNT_DELTA, 0, ti.tcpi_total_retrans);
	if (HAS(tcpi_dsack_dups))
		cnt_add(c, "tcp_dsack_dups", CNT_DELTA, 0, ti.tcpi_dsack_dups);
	if (HAS(tcpi_lost))
		cnt_add(c, "tcp_lost", CNT_GAUGE, 0, ti.tcpi_lost);
	if (HAS(tcpi_rttvar)) {
		cnt_add(c, "tcp_rtt_us", CNT_GAUGE_MAX, 0, ti.tcpi_rtt);
		cnt_add(c, "tcp_rttvar_us", CNT_GAUGE_MAX, 0, ti.tcpi_rttvar);
	}
	if (HAS(tcpi_snd_cwnd))
		cnt_add(c, "tcp_snd_cwnd", CNT_GAUGE, 0, ti.tcpi_snd_cwnd);
	if (HAS(tcpi_delivery_rate))
		cnt_add(c, "tcp_delivery_rate", CNT_GAUGE, 0,
			ti.tcpi_delivery_rate);
	if (HAS(tcpi_busy_time))
		cnt_add(c, "tcp_busy_us", CNT_DELTA, 0, ti.tcpi_busy_time);
	if (HAS(tcpi_rwnd_limited))
		cnt_add(c, "tcp_rwnd_limited_us", CNT_DELTA, 0,
			ti.tcpi_rwnd_limited);
	if (HAS(tcpi_sndbuf_limited))
		cnt_add(c, "tcp_sndbuf_limited_us", CNT_DELTA, 0,
			ti.tcpi_sndbuf_limited);
}

/* The drops column of the socket with inode ino in path; true if found. */
static bool proc_drops(const char *path, unsigned long ino, uint64_t *out)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long i;
		unsigned long long drops;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode
		 * ref pointer drops */
		if (sscanf(line,
			   " %*s %*s %*s %*s %*s %*s %*s %*s %*s %lu %*s %*s %llu",
			   &i, &drops) == 2 && i == ino) {
			*out = drops;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Field name's value of the "Udp:" lines of /proc/net/snmp (a header
 * line, then a value line); false if absent. */
static bool snmp_udp(const char *name, uint64_t *out)
{
	FILE *f = fopen("/proc/net/snmp", "re");
	char hdr[1024], val[1024], *hs, *vs, *h, *v;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(hdr, sizeof(hdr), f)) {
		if (strncmp(hdr, "Udp: ", 5) != 0 || !fgets(val, sizeof(val), f))
			continue;
		h = strtok_r(hdr, " \n", &hs);
		v = strtok_r(val, " \n", &vs);
		while ((h = strtok_r(NULL, " \n", &hs)) &&
		       (v = strtok_r(NULL, " \n", &vs)))
			if (strcmp(h, name) == 0) {
				*out = strtoull(v, NULL, 10);
				found = true;
				break;
			}
		break;
	}
	fclose(f);
	return found;
}

/* The value of "name value" in /proc/net/snmp6; false if absent. */
static bool snmp6(const char *name, uint64_t *out)
{
	FILE *f = fopen("/proc/net/snmp6", "re");
	char line[256], k[128];
	unsigned long long v;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %llu", k, &v) == 2 &&
		    strcmp(k, name) == 0) {
			*out = v;
			found = true;
		}
	fclose(f);
	return found;
}

static void host_udp(struct cnt_set *c, const char *name, const char *v4,
		     const char *v6, unsigned flags)
{
	uint64_t a = 0, b = 0;
	bool ok4 = snmp_udp(v4, &a), ok6 = snmp6(v6, &b);

	if (ok4 || ok6)
		cnt_add(c, name, CNT_DELTA, CNTF_HOST | flags, a + b);
}

static void udp_counters(int fd, struct cnt_set *c)
{
	struct stat st;
	uint64_t drops;

	if (fstat(fd, &st) == 0 &&
	    (proc_drops("/proc/net/udp", (unsigned long)st.st_ino, &drops) ||
	     proc_drops("/proc/net/udp6", (unsigned long)st.st_ino, &drops)))
		cnt_add(c, "udp_sock_drops", CNT_DELTA, 0, drops);
	host_udp(c, "udp_rcvbuf_errors", "RcvbufErrors", "Udp6RcvbufErrors", 0);
	host_udp(c, "udp_csum_errors", "InCsumErrors", "Udp6InCsumErrors",
		 CNTF_ERROR);
}

void sock_counters(struct tsess *s, struct cnt_set *c)
{
	const struct sock_priv *sp = s->priv;

	if (!sp->xp || sp->fd < 0 || sp->xp->k != &sock_calls_kernel)
		return;
	if (sp->xp->style == SS_STREAM && sp->xp->protocol == 0 &&
	    sp->xp->family == 0) {
		snprintf(c->src, sizeof(c->src), "tcp");
		tcp_counters(sp->fd, c);
	} else if (sp->xp->style == SS_DGRAM) {
		snprintf(c->src, sizeof(c->src), "udp");
		udp_counters(sp->fd, c);
	}
}
