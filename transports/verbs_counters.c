// SPDX-License-Identifier: GPL-2.0-only
/*
 * Port counters of the RDMA transports (struct transport's counters
 * operation, lib/counters.h): the files of
 * <root>/class/infiniband/<dev>/ports/<port>/counters and hw_counters,
 * where <root> is $SYSFS_PATH (rdma-core's convention; default /sys).
 * They count every packet of the port, not only this test's (CNTF_PORT).
 * A file the device lacks is left out; port_xmit_data and port_rcv_data
 * count 4-byte words and become bytes here.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/counters.h"
#include "verbs_int.h"

struct pcnt {
	const char *dir; /* "counters" or "hw_counters" */
	const char *file;
	const char *name; /* as reported; NULL: file */
	unsigned flags; /* CNTF_ERROR for error counters */
	uint64_t mult;
};

static const struct pcnt PORT_COUNTERS[] = {
	{ "counters", "port_xmit_data", "port_xmit_bytes", 0, 4 },
	{ "counters", "port_rcv_data", "port_rcv_bytes", 0, 4 },
	{ "counters", "port_xmit_packets", NULL, 0, 1 },
	{ "counters", "port_rcv_packets", NULL, 0, 1 },
	{ "counters", "port_xmit_wait", NULL, 0, 1 },
	{ "counters", "symbol_error", NULL, CNTF_ERROR, 1 },
	{ "counters", "link_error_recovery", NULL, CNTF_ERROR, 1 },
	{ "counters", "link_downed", NULL, CNTF_ERROR, 1 },
	{ "counters", "port_rcv_errors", NULL, CNTF_ERROR, 1 },
	{ "counters", "port_rcv_remote_physical_errors", "port_rcv_remote_phys_errors",
	  CNTF_ERROR, 1 },
	{ "counters", "port_xmit_discards", NULL, CNTF_ERROR, 1 },
	{ "counters", "local_link_integrity_errors", NULL, CNTF_ERROR, 1 },
	{ "counters", "excessive_buffer_overrun_errors", "buffer_overrun_errors",
	  CNTF_ERROR, 1 },
	{ "hw_counters", "out_of_sequence", NULL, CNTF_ERROR, 1 },
	{ "hw_counters", "packet_seq_err", NULL, CNTF_ERROR, 1 },
	{ "hw_counters", "local_ack_timeout_err", NULL, CNTF_ERROR, 1 },
	/* RNR NAKs received: the peer had no receive posted yet, flow
	 * control rather than an error (the retry limit was not hit) */
	{ "hw_counters", "rnr_nak_retry_err", NULL, 0, 1 },
	{ "hw_counters", "out_of_buffer", NULL, CNTF_ERROR, 1 },
	{ "hw_counters", "np_cnp_sent", NULL, 0, 1 },
	{ "hw_counters", "rp_cnp_handled", NULL, 0, 1 },
	{ "hw_counters", "np_ecn_marked_roce_packets", "np_ecn_marked_packets",
	  0, 1 },
};

/* rdma-core's sysfs root: $SYSFS_PATH, else /sys. */
static const char *sysfs_root(void)
{
	const char *r = getenv("SYSFS_PATH");

	return r && *r ? r : "/sys";
}

/* A file's unsigned number; false if absent or not a number. */
static bool read_u64(const char *path, uint64_t *out)
{
	char buf[32], *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	*out = strtoull(buf, &end, 10);
	return end != buf;
}

void verbs_counters(struct tsess *s, struct cnt_set *c)
{
	const struct verbs_priv *v = s->priv;
	const char *dev;
	char path[512];
	uint64_t x;

	if (!v || !v->ctx || !v->ctx->device)
		return;
	dev = ibv_get_device_name(v->ctx->device);
	if (!dev)
		return;
	snprintf(c->src, sizeof(c->src), "%s:%u", dev, (unsigned)v->port);
	for (size_t i = 0; i < sizeof(PORT_COUNTERS) / sizeof(PORT_COUNTERS[0]);
	     i++) {
		const struct pcnt *p = &PORT_COUNTERS[i];
		int n = snprintf(path, sizeof(path),
				 "%s/class/infiniband/%s/ports/%u/%s/%s",
				 sysfs_root(), dev, (unsigned)v->port, p->dir,
				 p->file);

		if (n < 0 || (size_t)n >= sizeof(path) || !read_u64(path, &x))
			continue;
		cnt_add(c, p->name ? p->name : p->file, CNT_DELTA,
			CNTF_PORT | p->flags, x * p->mult);
	}
}
