/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ceiling and the host checks in a run (issue 18 items 1 and 2):
 * each side gathers its path facts when its data path is open (the
 * transport's, plus sysfs under $SYSFS_PATH), the server sends its own in
 * its STAT block when the client announced CAP_FACTS, and the client
 * computes the ceiling of each result and says each finding once per run.
 */
#ifndef QPERF_PATHRUN_H
#define QPERF_PATHRUN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/path.h"
#include "lib/types.h"
#include "transports/transport.h"

struct tside;
struct outputs;

/* The findings already said in this run (a hash of each text). */
#define PATH_SEEN_MAX 64
struct path_seen {
	uint32_t n;
	uint32_t hash[PATH_SEEN_MAX];
};

/*
 * This side's facts for the open session s into f: what the transport
 * says (transport.h facts) and what sysfs adds (port rate, PCIe link,
 * NUMA node, interface, governor).  Reads small files only.
 */
void pathrun_gather(const struct tsess *s, struct path_facts *f);

/*
 * Server: add a STATX_FACTS item with sd's facts to the STAT block blk
 * (n bytes, cap), when the client announced CAP_FACTS and the block is a
 * TLV one.  Returns the block's new size (n if nothing was added).
 */
size_t pathrun_stat_add(const struct tside *sd, uint8_t *blk, size_t n,
			size_t cap);
/* Client: take the server's facts from its STAT block, if it has them
 * (malformed facts are dropped, not an error: the test's figures stand). */
void pathrun_stat_take(struct tside *sd, const uint8_t *blk, size_t n);

/*
 * Client, after calc_results(): both ends' facts into r, res->ceil for a
 * bandwidth test, and each finding not yet said in this run as a warning
 * ("server: softv0: PCIe link at ...") to out.
 */
void pathrun_result(struct path_seen *seen, struct outputs *out,
		    const struct tside *sd, struct results *res,
		    struct path_report *r);

/*
 * The preflight: before the tests the client asks the server for its host
 * checks with a conf request that names the test they are for
 * (REQX_PREFLIGHT), and checks its own host the same way, so that the
 * findings of both ends are said before the first test's output.  What a
 * preflight checks for one end: an RDMA test's device only (-id's, else
 * the first device: the one verbs opens), the NUMA node of the CPU the
 * test will run on (-ca's; else the device's own node, where the test
 * places itself, or the CPU this process runs on); a sockets test only
 * the governor (its interface is known once its connection is made).
 */
struct path_pre {
	bool on; /* a preflight; false: a conf test (every device, no NUMA) */
	bool rdma; /* the test is an RDMA one */
	char dev[64]; /* its device ("" : the first) */
	uint32_t affinity; /* -ca: CPU + 1; 0 none */
	bool numa_set; /* --numa_node given: the test's own check says it */
};
struct req;
/* The preflight of request q of this end (q->preflight names the test),
 * or pre->on false when q is not one. */
void pathrun_pre_of(const struct req *q, struct path_pre *pre);

/*
 * conf's host checks (no test: no NUMA check), or a preflight's (pre).
 * Server: append one CONFX_FINDING item per finding of this host (x: its
 * conf extension) to the CONF extension block blk (n bytes, cap); returns
 * the new size.  Client: say this end's findings (lx, or this host
 * queried when NULL) and those of the server's block blk (n bytes; NULL:
 * none), each once per run.
 */
struct conf_ext;
/* This host's findings (queried now) for preflight pre, at most max into
 * f; returns how many (cluster mode: each rank's, for rank 0's report). */
uint32_t pathrun_host_check(const struct path_pre *pre,
			    struct path_finding *f, uint32_t max);
size_t pathrun_conf_add(const struct conf_ext *x, const struct path_pre *pre,
			uint8_t *blk, size_t n, size_t cap);
void pathrun_conf(struct path_seen *seen, struct outputs *out,
		  const struct conf_ext *lx, const struct path_pre *pre,
		  const uint8_t *blk, size_t n);

#endif
