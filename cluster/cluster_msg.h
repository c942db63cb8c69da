/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cluster mode's messages between each rank and rank 0, over qperf's own
 * TCP connections (never through the launcher).  Each message is one TLV
 * block (tlv.h) whose first item is CM_TYPE.  The codecs are pure;
 * cluster_send() and cluster_recv() move one message over a connection.
 *
 *   JOIN    rank -> 0   rank, size, local rank, qperf server port, host
 *   RUN     0 -> rank   job, test (plan item), peer rank, address, port
 *   RESULT  rank -> 0   job, status (0 ok), error text, figures
 *   DONE    0 -> rank   the run is over: stop the server and exit
 *   PING    0 -> rank   rank 0 is alive (every CLUSTER_PING_NS)
 */
#ifndef QPERF_CLUSTER_MSG_H
#define QPERF_CLUSTER_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/types.h"

enum cmsg_type { CMSG_JOIN = 1, CMSG_RUN, CMSG_RESULT, CMSG_DONE, CMSG_PING };

#define CMSG_HOST_MAX 256 /* host names and addresses, NUL included */
#define CMSG_ERR_MAX 512

#define CLUSTER_PING_NS (2 * NS_PER_SEC) /* rank 0 -> idle ranks */
#define CLUSTER_LOSS_NS (10 * NS_PER_SEC) /* no word from rank 0: gone */

struct cmsg_join {
	uint32_t rank, size, local_rank;
	uint16_t port; /* this rank's qperf server */
	char host[CMSG_HOST_MAX]; /* its host name, for reports */
};

struct cmsg_run {
	uint32_t job, item; /* plan item: which test */
	uint32_t peer; /* rank of the server side */
	uint32_t peer_local; /* its local rank (for -i lists) */
	uint16_t port;
	char addr[CMSG_HOST_MAX]; /* the peer's address as rank 0 saw it */
};

/* What a pair's test measured: struct pair_res, lib/types.h. */

struct cmsg_result {
	uint32_t job;
	uint32_t status; /* 0 ok, else the exit status of the test */
	char err[CMSG_ERR_MAX];
	struct pair_res r;
};

struct cmsg {
	enum cmsg_type type;
	union {
		struct cmsg_join join;
		struct cmsg_run run;
		struct cmsg_result result;
	} u;
};

/* Encode m into buf (cap bytes); returns the size, 0 if it did not fit. */
size_t cmsg_encode(const struct cmsg *m, uint8_t *buf, size_t cap);

/*
 * Decode one block.  0, or -1 if malformed (unknown type, an item of the
 * wrong size, a missing item, a string without room for its NUL).
 */
int cmsg_decode(const uint8_t *buf, size_t len, struct cmsg *m);

/* One message to / from a rank; 0, or -1 with err filled. */
int cluster_send(int fd, const struct cmsg *m, char *err, size_t errlen);
int cluster_recv(int fd, uint64_t timeout, struct cmsg *m, char *err,
		 size_t errlen);

#endif
