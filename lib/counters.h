/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loss and error counters of one end over the measured window (issue 18
 * item 5): a small set of named values a transport reads (TCP_INFO of a
 * data socket, the UDP socket's drops and the host's UDP errors, an RDMA
 * port's sysfs counters), the deltas core computes from two readings,
 * and the codec that carries a server's set to the client in its STAT
 * block (STATX_COUNTERS, core/ctl.h).
 *
 * A name is 1..CNT_NAME-1 bytes of [a-z0-9_] and unique in its set; the
 * decoder refuses anything else, so a peer's names can be printed and
 * used as JSON keys as they are.  Pure functions: no I/O, no allocation.
 */
#ifndef QPERF_COUNTERS_H
#define QPERF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CNT_MAX 40 /* values in one set */
#define CNT_NAME 32 /* bytes of a name, NUL included */
#define CNT_SRC 48 /* bytes of a set's source, NUL included */
/* Largest encoding of one set (a TLV block, lib/tlv.h). */
#define CNT_ENC_MAX (8 + 4 + CNT_SRC + 8 + CNT_MAX * (4 + 10 + CNT_NAME))

enum cnt_kind {
	CNT_DELTA = 0, /* a counter: the window's rise; streams add up */
	CNT_GAUGE = 1, /* its value at the window's end; streams add up */
	CNT_GAUGE_MAX = 2 /* its value at the end; streams take the largest */
};

#define CNTF_ERROR 0x1u /* a rise is worth a warning */
#define CNTF_HOST 0x2u /* counts the whole host, not this test's socket */
#define CNTF_PORT 0x4u /* counts all traffic of the port */
#define CNTF_ALL (CNTF_ERROR | CNTF_HOST | CNTF_PORT)

struct cnt_val {
	char name[CNT_NAME]; /* "tcp_retrans", "port_rcv_errors" */
	uint8_t kind; /* enum cnt_kind */
	uint8_t flags; /* CNTF_* */
	uint64_t v; /* unit in the name where it has one (_us, _Bps) */
};

struct cnt_set {
	char src[CNT_SRC]; /* what was read: "tcp", "udp", "mlx5_0:1" */
	uint32_t n;
	struct cnt_val v[CNT_MAX];
};

/* One end's counters over the window; valid false: none were read. */
struct cnt_end {
	bool valid;
	struct cnt_set sum; /* every stream's, added up */
	struct cnt_set *streams; /* --streams: each one's (owner: core) */
	uint32_t nstreams;
};

/*
 * Both ends of one result (struct results.cnt).  rem_missing: why the
 * server's are not there ("the server does not send them"), or NULL.
 */
struct cnt_both {
	struct cnt_end loc, rem;
	const char *rem_missing;
};

/* Empty set named src (cut to CNT_SRC - 1 bytes). */
void cnt_init(struct cnt_set *c, const char *src);
/* Add (or, for an existing name, replace) a value; false when the name
 * is not a valid one or the set is full. */
bool cnt_add(struct cnt_set *c, const char *name, enum cnt_kind kind,
	     unsigned flags, uint64_t v);
/* The value called name, or NULL. */
const struct cnt_val *cnt_find(const struct cnt_set *c, const char *name);
/* Is name a valid counter name? */
bool cnt_name_ok(const char *name);

/*
 * The window from two readings: out gets end's values, each CNT_DELTA
 * one less its value in start (0 if it went backwards: a reset; left out
 * when start lacks it).  out may not be start or end.
 */
void cnt_delta(struct cnt_set *out, const struct cnt_set *start,
	       const struct cnt_set *end);
/* Add c into acc by kind (acc keeps its src; new names are appended). */
void cnt_sum(struct cnt_set *acc, const struct cnt_set *c);

/*
 * What the values of c count, as text and JSON say it: "port" when any
 * counts all traffic of a port (CNTF_PORT), "socket+host" when some
 * count the whole host (CNTF_HOST), else "socket" (this test's own).
 */
const char *cnt_scope(const struct cnt_set *c);

/*
 * Encode c as a TLV block with its stream index (-1: the sum) into out
 * (cap bytes; CNT_ENC_MAX always suffices).  Returns the size, 0 if cap
 * is too small.  decode takes a whole block; it fills c and *stream
 * (-1 when the block has no index) and returns 0, or -1 if the block is
 * malformed (framing, a bad name, kind or flag, a duplicate name, more
 * than CNT_MAX values, an index above 65535).
 */
size_t cnt_encode(const struct cnt_set *c, int32_t stream, uint8_t *out,
		  size_t cap);
int cnt_decode(const uint8_t *in, size_t len, struct cnt_set *c,
	       int32_t *stream);

#endif
