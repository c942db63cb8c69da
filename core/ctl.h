/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control connection: codecs for 0.4.11's messages (pure functions on
 * bytes, spec §2) and deadline-bounded I/O that watches for the peer's
 * urgent-data error notices (spec §2.8).
 *
 * Dialects.  A legacy request carries version 0.4.x and is exactly 0.4.11's
 * 200 bytes.  An extended request carries version 0.5.x and is followed by
 * an extension block (EXT_REQ); the server then follows each STAT with an
 * EXT_STAT block.  A 0.4.11 server rejects version 0.5 with its "upgrade
 * qperf on server" error, and the client retries on a new connection in
 * the legacy dialect, so a 0.4.11 peer never sees an extension.
 */
#ifndef QPERF_CTL_H
#define QPERF_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#define REQ_SIZE 200
#define REQ_VER_SIZE 6
#define STAT_SIZE 256
#define CONF_SIZE 256
#define EXT_MAGIC 0x31585051u /* "QPX1" little-endian */
#define EXT_REQ_SIZE 24
#define EXT_STAT_SIZE 24

#define SYNC_BEFORE "synchronization before test"
#define SYNC_AFTER "synchronization after test"

/* REQ, spec §2.2, plus the extension fields. */
struct req {
	uint16_t ver_maj, ver_min, ver_inc, req_index;
	uint32_t access_recv, affinity, alt_port, flip, msg_size, mtu_size;
	uint32_t no_msgs, poll_mode, port, rd_atomic, sl, sock_buf_size;
	uint32_t src_path_bits, time, timeout, use_cm;
	char id[64], static_rate[64]; /* NUL-terminated after decoding */
	/* Extension (EXT_REQ), valid when ext is set. */
	bool ext;
	uint64_t time_ns, timeout_ns;
};

/* Encode into exactly REQ_SIZE bytes (string tails are zero). */
void req_encode(const struct req *q, uint8_t out[REQ_SIZE]);
/* Decode REQ_SIZE bytes; forces NUL termination of the two strings. */
void req_decode(const uint8_t in[REQ_SIZE], struct req *q);
void ext_req_encode(const struct req *q, uint8_t out[EXT_REQ_SIZE]);
/* Returns 0, or -1 if the magic or length is wrong. */
int ext_req_decode(const uint8_t in[EXT_REQ_SIZE], struct req *q);

/*
 * STAT: the real-time fields go out as ticks (real_ns * no_ticks / 1e9),
 * as 0.4.11 expects; the 4 padding bytes are zero.
 */
void stat_encode(const struct node_stat *s, uint8_t out[STAT_SIZE]);
/* Decode; converts the tick real times to ns in real_s/real_e. */
void stat_decode(const uint8_t in[STAT_SIZE], struct node_stat *s);
/* EXT_STAT: the exact ns window, replacing the tick-resolution one. */
void ext_stat_encode(const struct node_stat *s, uint8_t out[EXT_STAT_SIZE]);
int ext_stat_decode(const uint8_t in[EXT_STAT_SIZE], struct node_stat *s);

/* CONF: four zero-padded char[64]; decoding stops at the first NUL. */
void conf_encode(const struct conf_info *c, uint8_t out[CONF_SIZE]);
void conf_decode(const uint8_t in[CONF_SIZE], struct conf_info *c);

/* A control connection. */
struct ctl {
	int fd;
	bool server; /* errors from the peer are "client: ..." */
	uint64_t timeout; /* ns, per message */
	bool debug;
	bool peer_failed; /* the peer reported an error (text in err) */
};

/*
 * Send or receive exactly len bytes within c->timeout.  item names the
 * message in errors ("failed to receive port: timed out").  Return 0, or
 * -1 with err filled; if the peer sent an error notice, err holds
 * "server: <text>" (or "client: ...") and c->peer_failed is set.
 */
int ctl_send(struct ctl *c, const void *buf, size_t len, const char *item,
	     char *err, size_t errlen);
int ctl_recv(struct ctl *c, void *buf, size_t len, const char *item,
	     char *err, size_t errlen);

/* Exchange a sync string: send it, then receive and compare it. */
int ctl_sync(struct ctl *c, const char *text, char *err, size_t errlen);

/*
 * Tell the peer about a fatal error the 0.4.11 way: urgent byte '?', the
 * text (at most 240 bytes, so a 0.4.11 peer's 256-byte buffer holds it
 * after its "server: " prefix), then shutdown for writing and a bounded
 * drain.  Never blocks longer than about a second.
 */
void ctl_send_error(struct ctl *c, const char *text);

/* Prefix of the error a 0.4.11 server gives to a 0.5 request. */
#define LEGACY_UPGRADE_ERR "server: upgrade qperf on server from 0.4."

#endif
