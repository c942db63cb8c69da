// SPDX-License-Identifier: GPL-2.0-only
/*
 * rsockets: the rs_bw and rs_lat tests, "SDP's successor".  librdmacm's
 * rsocket API is a socket API over RDMA (an RC QP set up through the
 * CM), so this transport is the stream code of transports/sock.c run
 * through a table of rsocket calls.  rsockets have no SO_RCVTIMEO, and
 * their blocking calls do not return on a signal, so every descriptor is
 * non-blocking and every wait is an rpoll() (which also watches the
 * control connection, an ordinary descriptor).
 */
#include <errno.h>
#include <string.h>

#include <rdma/rsocket.h>

#include "sock.h"
#include "sock_io.h"
#include "lib/err.h"

static int rs_socket(int domain, int type, int protocol)
{
	return rsocket(domain, type, protocol);
}

static const struct sock_calls rsock_calls = {
	.socket = rs_socket, .bind = rbind, .listen = rlisten,
	.accept = raccept, .connect = rconnect, .close = rclose,
	.send = rsend, .recv = rrecv, .setsockopt = rsetsockopt,
	.getsockopt = rgetsockopt, .getsockname = rgetsockname,
	.poll = rpoll, .fcntl = rfcntl, .nonblock = true,
};

static const struct xport xport_rs = { "rsockets", SS_STREAM, 0, SOCK_STREAM,
				       0, &rsock_calls };

/* Can this host make an rsocket at all (an RDMA device)? */
static int rs_check(struct tsess *s, char *err, size_t errlen)
{
	int fd = rsocket(AF_INET, SOCK_STREAM, 0);

	(void)s;
	if (fd < 0) {
		seterr(err, errlen,
		       "unable to make an rsocket: %s (no RDMA device? see ibv_devices)",
		       strerror(errno));
		return TP_NOT_HERE;
	}
	rclose(fd);
	return 0;
}

static int rs_open(struct tsess *s, char *err, size_t errlen)
{
	return sock_open(s, &xport_rs, err, errlen);
}

const struct transport transport_rs = {
	.name = "rs", .label = "rsockets",
	.flags = TF_EOF_ENDS | TF_CLOSE_EARLY, .max_msg = 0,
	.priv_size = SOCK_PRIV_MAX, .check = rs_check, .open = rs_open,
	.close = sock_close, .post = sock_post, .poll = sock_poll,
};
