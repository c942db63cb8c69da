// SPDX-License-Identifier: GPL-2.0-only
/*
 * The server: listen, then one forked child per request (the parent's
 * side, accepting, admitting and supervising, is core/supervise.c).
 *
 * Unlike 0.4.11 the parent never waits for a child, so a client that
 * stalls cannot keep others out.  Each child's waits are bounded by the
 * timeout, and the parent's watchdog kills a child that does not start,
 * stops making progress or outlives its test, whatever it is stuck in.
 * A child checks its request against the server's limits (validate())
 * and asks the parent for its share of the memory budget before it
 * allocates anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transports/transport.h"
#include "acl.h"
#include "auth.h"
#include "ctl.h"
#include "engine.h"
#include "fabric.h"
#include "measure.h"
#include "pathrun.h"
#include "session.h"
#include "lib/tlv.h"
#include "output/report.h"
#include "supervise.h"
#include "lib/err.h"
#include "lib/alloc.h"
#include "lib/outfile.h"
#include "lib/numa.h"
#include "lib/random.h"

#define SERVER_MAX_MSG (1u << 30) /* largest message a client may ask for */
/* What the memory budget counts for each QP of a --qps test: its queues
 * and its share of a provider's own (softverbs: a 64 KiB packet buffer). */
#define SERVER_QP_MEM (96u << 10)
/* ... and for each data connection of a --conns test: what its socket
 * buffers may hold at Linux's defaults (tcp_rmem's 128 KiB), memory the
 * kernel takes on this host for the test. */
#define SERVER_CONN_MEM (128u << 10)
#define SERVER_MAX_TIMEOUT (3600 * NS_PER_SEC)
#define LOW_PORTS 1024 /* data ports below this need --allow_low_ports */

/* "600 s", "10 min": a limit as the server's options set it. */
static const char *secs(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 120 * NS_PER_SEC && ns % (60 * NS_PER_SEC) == 0)
		xsnprintf(buf, len, "%llu min",
			  (unsigned long long)(ns / NS_PER_SEC / 60));
	else
		xsnprintf(buf, len, "%.9g s", (double)ns / 1e9);
	return buf;
}

/* Version check (spec §2.3): 0.4.x speaks legacy, 0.5.x extended. */
static int check_version(const struct req *q, char *err, size_t errlen)
{
	unsigned cm = q->ver_maj, cn = q->ver_min;
	unsigned long theirs = (unsigned long)cm << 16 | cn;
	unsigned long ours = (unsigned long)QPERF_VER_MAJ << 16 | QPERF_VER_MIN;

	if (cm == 0 && (cn == 4 || cn == QPERF_VER_MIN))
		return 0;
	if (theirs < ours)
		return seterr(err, errlen,
			      "upgrade qperf on client from %u.%u.%u to %s",
			      cm, cn, q->ver_inc, QPERF_VERSION);
	return seterr(err, errlen, "upgrade qperf on server from %s to %u.%u.%u",
		      QPERF_VERSION, cm, cn, q->ver_inc);
}

/* The server half of a data test. */
static int serve_data(struct ctl *c, const struct test_desc *t,
		      const struct req *q, char *err, size_t errlen)
{
	struct tside sd;
	int rc;

	memset(&sd, 0, sizeof(sd));
	sd.t = t;
	sd.server = true;
	sd.c = c;
	sd.ext = q->ext;
	sd.ext_ver = q->ext_ver;
	sd.peer_caps = q->caps;
	sd.interval = q->ext ? q->interval_ns : 0;
	session_params(q, &sd.p);
	/* Only this project's clients expect -n honoured everywhere. */
	if (!q->ext && !(t->flags & TDF_LEGACY_N))
		sd.p.no_msgs = 0;
	sd.forever = session_forever(&sd.p, sd.ext && sd.ext_ver >= 2,
				     q->caps);
	rc = session_run(&sd, err, errlen);
	session_release(&sd);
	return rc;
}

/*
 * The bytes a data test's buffer takes at the server: one message, or
 * for an open-loop test over a TF_SLOTS transport its slots (a receive
 * and a send slot per request in flight; the receive's offset, UD's GRH,
 * is below one TSLOT_ALIGN).
 */
static uint64_t test_mem(const struct test_desc *t, const struct req *q)
{
	struct tparams p;
	uint32_t slots;
	uint64_t len;

	session_params(q, &p);
	slots = loop_open_slots(t, &p);
	if (!slots || !(t->tp->flags & TF_SLOTS))
		return q->msg_size ? q->msg_size : 1;
	len = tslot_len((uint64_t)q->msg_size + TSLOT_ALIGN);
	return 2 * len * tslots_fit(len, slots);
}

/* What a client that cannot authenticate is told (0.4.11 prints it). */
static const char *no_secret_reason(const struct req *q)
{
	if (q->ver_min != QPERF_VER_MIN)
		return "this server requires a shared secret, which qperf 0.4 clients cannot send; use a qperf " QPERF_VERSION " client with --secret_file";
	if (q->ext_ver < 2)
		return "this server requires a shared secret, which this early qperf 0.5 client cannot send; use qperf " QPERF_VERSION " or later with --secret_file";
	return "this server requires a shared secret: give the client --secret_file FILE (or QPERF_SECRET_FILE) holding the server's secret";
}

/*
 * Read and check one request; fills q.  Returns 0, -1 with err filled,
 * or 1 when the client is refused for want of the shared secret (err
 * says why, for it and for the log).
 */
static int read_request(struct ctl *c, const struct auth_secret *secret,
			struct req *q, char *err, size_t errlen)
{
	uint8_t b[REQ_SIZE], ext[EXT_BLOCK_MAX], rep[EXT_BLOCK_MAX];
	struct hello h = { session_caps(), QPERF_VERSION, false, { 0 } };
	struct auth_transcript tr;
	size_t n, hn;

	memset(b, 0, sizeof(b));
	if (ctl_recv(c, b, REQ_VER_SIZE, "request version", err, errlen) < 0)
		return -1;
	req_decode(b, q); /* the version fields only, for now */
	q->req_index = UINT16_MAX; /* not known yet: no test's index */
	if (check_version(q, err, errlen) < 0)
		return -1;
	if (secret && q->ver_min != QPERF_VER_MIN) {
		seterr(err, errlen, "%s", no_secret_reason(q));
		return 1;
	}
	if (ctl_recv(c, b + REQ_VER_SIZE, REQ_SIZE - REQ_VER_SIZE,
		     "request data", err, errlen) < 0)
		return -1;
	req_decode(b, q);
	if (q->ver_min != QPERF_VER_MIN)
		return 0;
	if (ctl_recv(c, ext, TLV_HDR, "request extension", err, errlen) < 0)
		return -1;
	n = ext_block_len(ext);
	if (n == 0 || n > sizeof(ext))
		return seterr(err, errlen, "bad request extension");
	if (ctl_recv(c, ext + TLV_HDR, n - TLV_HDR, "request extension", err,
		     errlen) < 0)
		return -1;
	if (ext_req_decode(ext, n, q) < 0)
		return seterr(err, errlen, "bad request extension");
	if (secret && !q->has_nonce) {
		seterr(err, errlen, "%s", no_secret_reason(q));
		return 1;
	}
	if (q->ext_ver < 2)
		return 0; /* an early 0.5 client expects no answer */
	h.auth = secret != NULL;
	if (h.auth && random_bytes(h.nonce, sizeof(h.nonce), err, errlen) < 0)
		return -1;
	hn = hello_encode(&h, rep, sizeof(rep));
	if (ctl_send_block(c, rep, hn, "server extension", err, errlen) < 0)
		return -1;
	if (!secret)
		return 0;
	tr = (struct auth_transcript){ b, ext, n, rep, hn };
	return auth_serve(c, secret, &tr, err, errlen);
}

static int validate(const struct test_desc *t, struct req *q,
		    const struct server_limits *l, char *err, size_t errlen)
{
	char a[32], b[32];

	if (!t)
		return seterr(err, errlen, "bad request index: %u",
			      q->req_index);
	if (t->missing)
		return seterr(err, errlen, "%s: %s", t->name, t->missing);
	if (t->tp && (t->tp->flags & TF_XRC) && !(q->ext && q->ext_ver >= 2))
		return seterr(err, errlen,
			      "%s needs a qperf %s client: 0.4.11's XRC tests use a verbs API that no longer exists",
			      t->name, QPERF_VERSION);
	if (t->tp && (t->tp->flags & TF_RDMA) && q->use_cm &&
	    !(t->uses & PAR_BIT(PAR_USE_CM)))
		return seterr(err, errlen,
			      "%s cannot connect through RDMA CM (-cm1)",
			      t->name);
	if (t->kind == TK_LOCAL)
		return seterr(err, errlen,
			      "%s runs on the client alone; a server has no part in it",
			      t->name);
	if (t->kind != TK_CONF && t->kind != TK_QUIT &&
	    q->msg_size > SERVER_MAX_MSG)
		return seterr(err, errlen,
			      "message size %u is larger than this server allows (%u)",
			      q->msg_size, SERVER_MAX_MSG);
	/* An empty stream message moves nothing and cannot detect a stall. */
	if (t->tp && ((t->tp->flags & TF_EOF_ENDS) ||
		      (t->loop == LOOP_CONN &&
		       (t->uses & PAR_BIT(PAR_MSG_SIZE)))) &&
	    q->msg_size == 0)
		return seterr(err, errlen,
			      "%s: message size 0 has nothing to measure",
			      t->name);
	if (q->streams > 1 && !(t->uses & PAR_BIT(PAR_STREAMS)))
		return seterr(err, errlen, "%s does not run several streams",
			      t->name);
	if (q->qps > 1 && !(t->uses & PAR_BIT(PAR_QPS)))
		return seterr(err, errlen, "%s does not run several QPs",
			      t->name);
	if (q->qps > 1 && t->loop == LOOP_CONN && t->tp &&
	    q->qps > t->tp->storm_max)
		return seterr(err, errlen,
			      "%s: a storm of %u QPs is above the %u this server sets up at once",
			      t->name, q->qps, t->tp->storm_max);
	if (q->conns > 1 && !(t->uses & PAR_BIT(PAR_CONNS)))
		return seterr(err, errlen, "%s does not run several connections",
			      t->name);
	if (q->threads > 1 &&
	    (q->streams > 1 || q->threads > (q->qps > q->conns ? q->qps
							       : q->conns)))
		return seterr(err, errlen,
			      "%s: %u threads need as many QPs or connections or more (%u) and no --streams",
			      t->name, q->threads,
			      q->qps > q->conns ? q->qps : q->conns);
	if (q->qps > 1 && q->streams > q->qps)
		return seterr(err, errlen,
			      "%s: %u QPs cannot be shared by %u streams",
			      t->name, q->qps, q->streams);
	if (q->port > 65535)
		return seterr(err, errlen, "bad port: %u", q->port);
	if ((t->uses & PAR_BIT(PAR_PORT)) && q->port && q->port < LOW_PORTS && !l->low_ports)
		return seterr(err, errlen,
			      "%s: data port %u is below %u, which this server does not allow (see its --allow_low_ports); use -ip 0 or a port from %u",
			      t->name, q->port, LOW_PORTS, LOW_PORTS);
	if (t->kind == TK_QUIT && l->no_quit)
		return seterr(err, errlen,
			      "quit refused: this server was started with --no_quit");
	if (t->kind == TK_DATA && q->time_ns > l->max_time)
		return seterr(err, errlen,
			      "%s: -t %s is longer than this server allows (%s, --max_time)",
			      t->name, secs(a, sizeof(a), q->time_ns),
			      secs(b, sizeof(b), l->max_time));
	if (t->kind == TK_DATA && q->no_msgs > l->max_msgs)
		return seterr(err, errlen,
			      "%s: -n %u is more than this server allows (%llu, --max_msgs)",
			      t->name, q->no_msgs,
			      (unsigned long long)l->max_msgs);
	/* Bound every wait, whatever the client asked for. */
	if (q->timeout_ns < NS_PER_SEC)
		q->timeout_ns = NS_PER_SEC;
	if (q->timeout_ns > SERVER_MAX_TIMEOUT)
		q->timeout_ns = SERVER_MAX_TIMEOUT;
	return 0;
}

/* The CONF extension for a 0.5 client (core/fabric.h). */
static int send_conf_ext(struct ctl *c, const struct req *q, char *err,
			 size_t errlen)
{
	struct conf_ext *x = xcalloc(1, sizeof(*x));
	uint8_t *b = xmalloc(TLV_MAX);
	struct path_pre pre;
	size_t n;
	int rc;

	conf_ext_local(x);
	n = conf_ext_encode(x, b, TLV_MAX);
	pathrun_pre_of(q, &pre);
	if (n && (q->caps & CAP_FACTS))
		n = pathrun_conf_add(x, &pre, b, n, TLV_MAX);
	rc = n ? ctl_send_block(c, b, n, "configuration extension", err,
				errlen) :
		 seterr(err, errlen, "internal error: configuration extension");
	free(b);
	free(x);
	return rc;
}

/*
 * The server's log line for a client refused before its request ran;
 * what names the request when it is known to be quit (every quit refused
 * is logged with the client's address, as every quit served is).
 */
static void log_refused(int fd, const char *what, const char *why)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char who[64] = "?";

	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0)
		acl_addr_str((struct sockaddr *)&ss, who, sizeof(who));
	fprintf(stderr, "qperf: refused %s%s: %s\n", what, who, why);
}

static bool is_quit(const struct test_desc *t)
{
	return t && t->kind == TK_QUIT;
}

/* Serve one connection in a child process.  Returns the exit status. */
static int serve_one(int fd, const struct plan *p)
{
	struct ctl c = { fd, true, p->server_timeout, p->debug, false,
			 measure_interrupt_flag() };
	const struct test_desc *t = NULL;
	struct admit adm;
	struct req q;
	char err[256];
	int rc = -1;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ctl_nodelay(fd);
	rc = read_request(&c, p->secret, &q, err, sizeof(err));
	if (rc > 0) {
		log_refused(fd, is_quit(test_by_index(q.req_index)) ? "quit from "
								      : "",
			    err);
		ctl_send_error(&c, err);
		close(fd);
		return 1;
	}
	if (rc < 0)
		goto fail;
	t = test_by_index(q.req_index);
	debugf(p->debug, "received request: %s", t ? t->name : "?");
	if (validate(t, &q, &p->lim, err, sizeof(err)) < 0) {
		if (is_quit(t)) {
			log_refused(fd, "quit from ",
				    p->lim.no_quit ? "the server runs with --no_quit"
						   : err);
			ctl_send_error(&c, err);
			close(fd);
			return 1;
		}
		goto fail;
	}
	c.timeout = q.timeout_ns;
	/* The parent keeps the memory budget and the watchdog's figures. */
	memset(&adm, 0, sizeof(adm));
	adm.req_index = q.req_index;
	adm.data = t->kind == TK_DATA;
	adm.mem = adm.data ? test_mem(t, &q) : 0;
	if (q.streams > 1 || q.threads > 1) /* a buffer per thread, one slot */
		adm.mem *= q.streams > 1 ? q.streams : q.threads;
	if (q.conns > 1) /* each connection's socket buffers */
		adm.mem += (uint64_t)q.conns * SERVER_CONN_MEM, adm.conns = q.conns;
	if (q.qps > 1) { /* one buffer for all, and each QP's queues */
		adm.mem += (uint64_t)q.qps * SERVER_QP_MEM;
		adm.qps = q.qps;
	}
	adm.time_ns = q.time_ns;
	adm.timeout_ns = q.timeout_ns;
	adm.no_msgs = q.no_msgs;
	if (superv_admit(&adm, err, sizeof(err)) < 0)
		goto fail;
	if (set_cpu_affinity(q.affinity, err, sizeof(err)) < 0)
		goto fail;
	switch (t->kind) {
	case TK_CONF: {
		struct conf_info conf;
		uint8_t b[CONF_SIZE];

		conf_local(&conf);
		conf_encode(&conf, b);
		rc = ctl_send(&c, b, sizeof(b), "configuration", err,
			      sizeof(err));
		if (rc == 0 && q.ext && q.ext_ver >= 2 &&
		    (q.caps & CAP_CONF_EXT))
			rc = send_conf_ext(&c, &q, err, sizeof(err));
		break;
	}
	case TK_QUIT:
		/* Tell the parent, which owns the channel; signal nobody. */
		rc = ctl_sync(&c, SYNC_BEFORE, err, sizeof(err));
		if (rc == 0)
			superv_quit();
		break;
	case TK_DATA:
		rc = serve_data(&c, t, &q, err, sizeof(err));
		break;
	case TK_LOCAL: /* refused by validate() */
		rc = -1;
		break;
	}
	if (rc == 0) {
		/* FIN now: the parent still holds a copy until it reaps us. */
		shutdown(fd, SHUT_WR);
		close(fd);
		return 0;
	}
fail:
	/* The client already knows about its own failure. */
	if (!c.peer_failed)
		ctl_send_error(&c, err);
	if (p->debug || !c.peer_failed)
		fprintf(stderr, "qperf: %s\n", err);
	close(fd);
	return 1;
}

/* Listen on [::]:port (dual stack), or 0.0.0.0:port without IPv6. */
static int listen_any(uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	int one = 1, zero = 0;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		memset(&s6, 0, sizeof(s6));
		s6.sin6_family = AF_INET6;
		s6.sin6_addr = in6addr_any;
		s6.sin6_port = htons(port);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, (struct sockaddr *)&s6, sizeof(s6)) == 0 &&
		    listen(fd, 64) == 0)
			return fd;
		if (errno == EADDRINUSE) {
			close(fd);
			return seterr(err, errlen,
				      "unable to bind to listen port %u: %s",
				      port, strerror(EADDRINUSE));
		}
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return seterr_errno(err, errlen, errno, "socket failed");
	memset(&s4, 0, sizeof(s4));
	s4.sin_family = AF_INET;
	s4.sin_addr.s_addr = htonl(INADDR_ANY);
	s4.sin_port = htons(port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&s4, sizeof(s4)) < 0) {
		seterr_errno(err, errlen, errno,
			     "unable to bind to listen port %u", port);
		close(fd);
		return -1;
	}
	if (listen(fd, 64) < 0) {
		seterr_errno(err, errlen, errno, "listen failed");
		close(fd);
		return -1;
	}
	return fd;
}

/* Listen on host (-lh) only: the first of its addresses that binds. */
static int listen_host(const char *host, uint16_t port, char *err,
		       size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	char ps[8];
	int e, one = 1, last = EADDRNOTAVAIL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	xsnprintf(ps, sizeof(ps), "%u", port);
	e = getaddrinfo(host, ps, &hints, &res);
	if (e)
		return seterr(err, errlen, "-lh: \"%.100s\": %s", host,
			      gai_strerror(e));
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		const struct sockaddr *sa = ai->ai_addr;
		socklen_t salen = ai->ai_addrlen;
		int family = ai->ai_family, fd;
		struct sockaddr_in s4;

		/*
		 * An IPv4-mapped address (::ffff:a.b.c.d) is IPv4: a v6-only
		 * socket cannot bind it (EINVAL), and a dual-stack one
		 * would serve exactly a.b.c.d anyway.  Bind that instead.
		 */
		if (family == AF_INET6) {
			const struct sockaddr_in6 *m =
				(const struct sockaddr_in6 *)(const void *)sa;

			if (IN6_IS_ADDR_V4MAPPED(&m->sin6_addr)) {
				memset(&s4, 0, sizeof(s4));
				s4.sin_family = AF_INET;
				s4.sin_port = m->sin6_port;
				memcpy(&s4.sin_addr, m->sin6_addr.s6_addr + 12,
				       4);
				family = AF_INET;
				sa = (const struct sockaddr *)&s4;
				salen = sizeof(s4);
			}
		}
		fd = socket(family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			last = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				   sizeof(one));
		if (bind(fd, sa, salen) == 0 && listen(fd, 64) == 0) {
			freeaddrinfo(res);
			return fd;
		}
		last = errno;
		close(fd);
	}
	freeaddrinfo(res);
	return seterr_errno(err, errlen, last,
			    "-lh: unable to listen on \"%.100s\" port %u", host,
			    port);
}

int server_listen(const struct plan *p, char *err, size_t errlen)
{
	if (p->lim.listen_host)
		return listen_host(p->lim.listen_host, p->listen_port, err,
				   errlen);
	return listen_any(p->listen_port, err, errlen);
}

/*
 * Write the bound port to path atomically and the safe way (lib/outfile.h:
 * a new temporary file in the same directory, then rename; a planted name
 * is never followed or reused, a path that is a link, FIFO or device is
 * refused).  Errors name -lpf and path, never the temporary name.
 */
int write_port_file(const char *path, int lfd, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct outfile *of;
	char why[128], line[16];
	unsigned port;
	size_t n;
	int rc = 0;

	if (getsockname(lfd, (struct sockaddr *)&ss, &len) < 0)
		return seterr_errno(err, errlen, errno, "getsockname failed");
	port = ntohs(ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port);
	of = xcalloc(1, sizeof(*of));
	n = xsnprintf(line, sizeof(line), "%u\n", port);
	if (outfile_open(of, path, 0644, why, sizeof(why)) < 0) {
		rc = -1;
	} else if (write(of->fd, line, n) != (ssize_t)n) {
		xsnprintf(why, sizeof(why), "%s",
			  strerror(errno ? errno : EIO));
		outfile_abort(of);
		rc = -1;
	} else {
		rc = outfile_commit(of, why, sizeof(why));
	}
	free(of);
	if (rc < 0)
		return seterr(err, errlen, "-lpf: cannot write \"%.200s\": %s",
			      path, why);
	return 0;
}

int server_main(const struct plan *p)
{
	char err[256];
	int lfd = server_listen(p, err, sizeof(err));

	if (lfd < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		return 1;
	}
	if (p->port_file && write_port_file(p->port_file, lfd, err,
					    sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		close(lfd);
		return 1;
	}
	return server_serve(p, lfd);
}

int server_serve(const struct plan *p, int lfd)
{
	measure_init();
	return superv_run(p, lfd, serve_one);
}
