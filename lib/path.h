/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ceiling of a test's path and the host checks, from both ends' facts
 * (lib/facts.h): each end's port (payload after the per-packet headers at
 * the path MTU), each end's PCIe link and, for sockets, each end's
 * interface speed; the lowest wins and is named.  The checks are findings
 * worded for a `warning:` line.  Pure: no I/O (docs/ceiling.md).
 */
#ifndef QPERF_PATH_H
#define QPERF_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/facts.h"
#include "lib/types.h"

enum path_end { PATH_CLIENT = 0, PATH_SERVER = 1, PATH_BOTH = 2 };

/* What the test moves, for the header arithmetic. */
struct path_msg {
	uint64_t size; /* bytes per message; 0: long messages */
	uint32_t per_msg; /* extra bytes once per message (RETH 16) */
	uint32_t per_pkt; /* extra bytes per packet (UD: DETH 8) */
	bool udp; /* sockets: UDP datagrams, not TCP */
	bool stream; /* a byte stream (TCP): its writes are not packets, so
		      * it has no message-rate ceiling */
	bool bidir; /* both directions at once: twice the one-way ceiling */
};

#define PATH_LIMITS_MAX 6
struct path_limit {
	int end; /* enum path_end */
	const char *kind; /* "port", "pcie", "interface" (JSON) */
	double Bps; /* payload bytes/s */
	char what[128]; /* "4x NDR port of the server (mlx5_0:1) at MTU 4096" */
};

#define PATH_FINDINGS_MAX 16
struct path_finding {
	int end; /* enum path_end */
	const char *check; /* one of path_check_name()'s (JSON's enum) */
	char text[224]; /* "softv0: PCIe link at Gen4 x8, below ..." */
};

struct path_report {
	bool have[2]; /* the facts of [PATH_CLIENT], [PATH_SERVER] are known */
	struct path_facts f[2];
	struct ceiling ceil; /* the lowest limit; valid false: none known */
	char note[128]; /* why no ceiling, or what was left out */
	uint32_t nlimits;
	struct path_limit limits[PATH_LIMITS_MAX];
	uint32_t nfind;
	struct path_finding find[PATH_FINDINGS_MAX];
};

/* "client", "server", "path". */
const char *path_end_name(int end);

/*
 * Fill r's limits, ceiling and note from r->have and r->f for messages m
 * (both ends' facts, or one end's: the note says which is missing), and
 * the message-rate ceiling of the same limit: ceil.bps / m->size (every
 * packet's headers are in ceil.bps), none for a stream or long messages.
 */
void path_ceiling(struct path_report *r, const struct path_msg *m);

/* Fill r's findings (the host checks) from r->have and r->f. */
void path_findings(struct path_report *r);

/* The known check name equal to s ("pcie_link", "numa", ...), or NULL. */
const char *path_check_name(const char *s);

#endif
