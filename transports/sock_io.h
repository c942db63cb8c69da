/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The socket transports' data path (sock_io.c: send, receive, post,
 * poll, the fast paths), and the per-session state it shares with the
 * data socket's setup (sock.c).  Private to the socket transports.
 */
#ifndef QPERF_SOCK_IO_H
#define QPERF_SOCK_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <errno.h>

#include "lib/err.h"
#include "sock.h"
#include "transport.h"

#define DATA_SECRET 16 /* bytes a 0.5 client sends first on its data link */

/* Per-session state. */
struct sock_priv {
	const struct xport *xp;
	int fd; /* data socket, -1 if none */
	struct sockaddr_storage peer; /* datagram peer */
	socklen_t peerlen;
	uint32_t credits; /* receives posted and not yet done */
	uint32_t ndone; /* completed sends not yet polled (msg_size each) */
	/* s->nowait: the bytes of a stream message sent before its send
	 * had to wait (TP_AGAIN); the next send goes on from there. */
	size_t tx_off;
	uint64_t idle; /* ns: SO_RCVTIMEO when the loop has no wait */
	uint64_t rcvtimeo; /* ns now set on fd (0 = none) */
	uint8_t secret[DATA_SECRET]; /* this test's, for the data link */
	bool dgram_peer; /* a datagram server knows its client (connected) */
	struct sockaddr_storage client; /* ... at this address */
	socklen_t clientlen;
	unsigned fast; /* SF_* in use on fd (sock_tune) */
	uint32_t batch; /* SF_MMSG: messages per sendmmsg, else 1 */
	struct mmsghdr *mm; /* SF_MMSG: batch headers, owned */
	struct iovec *iov; /* ... their buffers (all s->buf), owned */
	struct sock_conns *mc; /* --conns: the links, owned; NULL: one */
};

/*
 * --conns (sock_conns.c): one of a session's data connections.  The
 * link in use is loaded into struct sock_priv (fd, the datagram peer and
 * client, the receive timeout), so that the one send and receive path
 * serves every link; the others wait here.
 */
struct sock_link {
	int fd;
	struct sockaddr_storage peer, client;
	socklen_t peerlen, clientlen;
	bool dgram_peer;
	uint64_t rcvtimeo; /* ns */
	uint64_t msgs; /* messages it moved */
	bool gone; /* its peer closed it (EOF, reset) */
};

struct pollfd;
struct sock_conns {
	struct sock_link *l;
	uint32_t n, live; /* links, and those not gone */
	uint32_t made; /* links set up so far */
	uint32_t cur; /* the link loaded into sock_priv (with loaded) */
	bool loaded;
	uint32_t next; /* where the next scan for ready links starts */
	struct pollfd *pfd; /* n entries */
	uint32_t *ready, nready, at; /* links found ready, served in turn */
	uint64_t start_ns, setup_ns; /* setting them all up */
	uint64_t buf_B; /* SO_SNDBUF + SO_RCVBUF of one link, bytes */
};

/*
 * The session's links.  sock_conns_begin: before the first is made, for
 * a session of a --conns test (else nothing): RLIMIT_NOFILE checked for
 * the whole test (and the soft limit raised) at its first thread, the
 * table made; 0 or -1 with err filled.  sock_conns_made: link i is set
 * up in sock_priv: keep it (after the last, load link 0).  Neither
 * blocks.
 */
int sock_conns_begin(struct tsess *s, struct sock_priv *sp, char *err,
		     size_t errlen);
void sock_conns_made(struct sock_priv *sp, uint32_t i);
/*
 * Load the next link ready for ev (POLLOUT: to send, POLLIN: to read):
 * the links poll() found ready are served in turn, one message each,
 * before it is asked again.  Waits at most wait ns (UINT64_MAX: the idle
 * limit sp->idle, 0 there meaning no limit; the timer's SIGALRM ends it).
 * 1: loaded; 0: none ready in time (or the timer); -1: every link gone.
 */
int sock_conns_pick(struct tsess *s, struct sock_priv *sp, short ev,
		    uint64_t wait);
/* The loaded link moved k messages. */
void sock_conns_count(struct sock_priv *sp, uint32_t k);
/* Its peer closed the loaded link: true when others remain (the test
 * goes on), false when it was the last or the timer ended the test. */
bool sock_conns_gone(struct tsess *s, struct sock_priv *sp);
/* Close every link and free the table (idempotent). */
void sock_conns_close(struct sock_priv *sp);
/* The check and qp_stats operations of the socket transports. */
int sock_conns_check(struct tsess *s, char *err, size_t errlen);
void sock_conns_stats(const struct tsess *s, struct qp_side *q,
		      uint64_t *counts);

/* Fast paths (sock_tune). */
#define SF_NODELAY 0x1u /* bulk sender: no Nagle stall on a message's tail */
#define SF_LOWAT 0x2u /* stream receiver wakes once per message */
#define SF_SPIN 0x4u /* -cp1: non-blocking socket, spin instead of sleep */
#define SF_MMSG 0x8u /* udp_bw sender: sendmmsg, sp->batch at a time */

#define SOCK_BATCH 16 /* messages per sendmmsg at most */
#define SOCK_BATCH_MSG 4096 /* bytes: larger messages go one per call */

/*
 * Choose and set this side's fast paths on the open data socket sp->fd
 * (see sock_io.c for what each does and when it applies), after s->buf is
 * allocated.  Never fails: a socket option the kernel refuses leaves that
 * fast path off.
 */
void sock_tune(struct tsess *s, struct sock_priv *sp);
/* The part of it for one data socket (sp->fd), before sock_tune(): with
 * --conns, once for each. */
void sock_tune_fd(struct tsess *s, struct sock_priv *sp);

/*
 * Data-socket setup that the connection test (sock_conn.c) shares with
 * the other socket tests (sock.c).  sock_listen: the server's data socket
 * of xp, bound to the control connection's local address and s->p.port,
 * listening with backlog (streams), its port sent to the client; returns
 * the fd, or -1 with err filled.  sock_server_addr: the client's half,
 * the port read into *peer (the control connection's peer); returns the
 * address length, or -1 with err filled.  sock_socket: a socket of xp's
 * kind in family with -sb's buffers, or -1 with err filled.  Each blocks
 * only on the control connection, within its timeout.
 */
int sock_listen(struct tsess *s, const struct xport *xp, int backlog,
		char *err, size_t errlen);
int sock_server_addr(struct tsess *s, struct sockaddr_storage *peer,
		     char *err, size_t errlen);
int sock_socket(const struct xport *xp, int family, uint32_t bufsize,
		char *err, size_t errlen);
extern const struct xport *const sock_xport_tcp;

/* Free what sock_tune allocated besides s->buf (idempotent). */
void sock_untune(struct sock_priv *sp);

/* The data path of every socket transport: post and poll (struct
 * transport's operations; errors into err). */
int sock_post(struct tsess *s, const struct twr *wr, uint32_t n, char *err,
	      size_t errlen);
int sock_poll(struct tsess *s, struct tcomp *c, int max, uint64_t wait,
	      char *err, size_t errlen);

/* Set SO_SNDTIMEO or SO_RCVTIMEO of fd to ns (0 = none); a no-op for
 * non-blocking calls (rsockets), whose every wait is a poll. */
void sock_set_timeo(const struct xport *xp, int fd, int opt, uint64_t ns);

static inline bool is_eagain(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK;
}

/*
 * Calls without socket timeouts (rsockets) are non-blocking: after
 * EAGAIN, wait up to ns (0: no limit) for ev.  True: try again; false
 * with errno EAGAIN: nothing for that long, or kernel calls (whose
 * timeouts already waited).
 */
bool sock_nb_ready(struct sock_priv *sp, short ev, uint64_t ns);


/*
 * The interface of the data socket's local address (the control
 * connection's when the data socket has none bound): name, loopback or
 * not, IPv6 or not (transports/sock_facts.c).
 */
void sock_facts(const struct tsess *s, struct path_facts *f);

#endif
