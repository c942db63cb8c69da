// SPDX-License-Identifier: GPL-2.0-only
/*
 * The server: listen, accept, one forked child per request.
 *
 * Unlike 0.4.11 the parent never waits for a child: it goes back to
 * accept() at once, so a client that stalls cannot keep others out.  Each
 * child's waits are bounded by the timeout, and a watchdog kills a child
 * that outlives its test by far, whatever it is stuck in.  At most
 * SERVER_MAX_CHILDREN requests run at once; more are refused with an error
 * the client prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../transports/sock.h"
#include "../transports/transport.h"
#include "ctl.h"
#include "engine.h"
#include "measure.h"
#include "report.h"
#include "util.h"

#define SERVER_MAX_CHILDREN 16
#define SERVER_MAX_MSG (1u << 30) /* largest message a client may ask for */
#define SERVER_MAX_TIMEOUT (3600 * NS_PER_SEC)

static volatile sig_atomic_t quit_requested;

static void on_quit(int sig)
{
	(void)sig;
	quit_requested = 1;
}

/*
 * Kill this child with SIGKILL after ns, whatever it is doing: the last
 * line of defence against a wait we failed to bound.
 */
static void watchdog(timer_t *tid, bool *armed, uint64_t ns)
{
	struct itimerspec its;

	if (!*armed) {
		struct sigevent sev;

		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGKILL;
		if (timer_create(CLOCK_MONOTONIC, &sev, tid) < 0)
			return;
		*armed = true;
	}
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ns / NS_PER_SEC);
	its.it_value.tv_nsec = (long)(ns % NS_PER_SEC);
	timer_settime(*tid, 0, &its, NULL);
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

/* The server half of a socket test. */
static int serve_sock(struct ctl *c, const struct test_desc *t,
		      const struct req *q, char *err, size_t errlen)
{
	struct run r;
	uint8_t st[STAT_SIZE], ext[EXT_STAT_SIZE];
	char sync[sizeof(SYNC_AFTER)];
	bool lat = t->kind == TK_LAT;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.xp = t->xp;
	r.server = true;
	r.fd = -1;
	r.msg_size = q->msg_size;
	r.time = q->time_ns;
	/* Only this project's clients expect -n to be honoured here. */
	r.no_msgs = q->ext ? q->no_msgs : 0;
	r.idle = c->timeout;
	r.access_recv = q->access_recv != 0;
	if (!lat && r.xp->style != SS_STREAM && !r.time) {
		/* A count-based datagram test ends when the sender goes quiet. */
		r.count_dgram_idle_end = true;
		if (r.idle > NS_PER_SEC)
			r.idle = NS_PER_SEC;
	}
	if (sock_server_open(t->xp, c, q, lat, &r, err, errlen) < 0)
		return -1;
	if (measure_phase(&r, c, lat, err, errlen) < 0)
		goto out;
	stat_encode(&r.st, st);
	debugf(c->debug, "sending results");
	if (ctl_send(c, st, sizeof(st), "results", err, errlen) < 0)
		goto out;
	if (q->ext) {
		ext_stat_encode(&r.st, ext);
		if (ctl_send(c, ext, sizeof(ext), "results extension", err,
			     errlen) < 0)
			goto out;
	}
	if (ctl_recv(c, sync, strlen(SYNC_AFTER), SYNC_AFTER, err, errlen) < 0)
		goto out;
	if (memcmp(sync, SYNC_AFTER, strlen(SYNC_AFTER)) != 0) {
		seterr(err, errlen, "synchronize %s failure: data does not match",
		       SYNC_AFTER);
		goto out;
	}
	rc = 0;
out:
	if (r.fd >= 0)
		close(r.fd);
	free(r.buf);
	return rc;
}

/* Read and check one request; fills q. */
static int read_request(struct ctl *c, struct req *q, char *err,
			size_t errlen)
{
	uint8_t b[REQ_SIZE], ext[EXT_REQ_SIZE];

	if (ctl_recv(c, b, REQ_VER_SIZE, "request version", err, errlen) < 0)
		return -1;
	req_decode(b, q); /* the version fields only, for now */
	if (check_version(q, err, errlen) < 0)
		return -1;
	if (ctl_recv(c, b + REQ_VER_SIZE, REQ_SIZE - REQ_VER_SIZE,
		     "request data", err, errlen) < 0)
		return -1;
	req_decode(b, q);
	if (q->ver_min == QPERF_VER_MIN) {
		if (ctl_recv(c, ext, sizeof(ext), "request extension", err,
			     errlen) < 0)
			return -1;
		if (ext_req_decode(ext, q) < 0)
			return seterr(err, errlen, "bad request extension");
	}
	return 0;
}

static int validate(const struct test_desc *t, struct req *q, char *err,
		    size_t errlen)
{
	if (!t)
		return seterr(err, errlen, "bad request index: %u",
			      q->req_index);
	if (t->missing)
		return seterr(err, errlen, "%s: %s", t->name, t->missing);
	if (t->kind != TK_CONF && t->kind != TK_QUIT &&
	    q->msg_size > SERVER_MAX_MSG)
		return seterr(err, errlen,
			      "message size %u is larger than this server allows (%u)",
			      q->msg_size, SERVER_MAX_MSG);
	/* An empty stream message moves nothing and cannot detect a stall. */
	if (t->xp && t->xp->style == SS_STREAM && q->msg_size == 0)
		return seterr(err, errlen,
			      "%s: message size 0 has nothing to measure",
			      t->name);
	if (q->port > 65535)
		return seterr(err, errlen, "bad port: %u", q->port);
	/* Bound every wait, whatever the client asked for. */
	if (q->timeout_ns < NS_PER_SEC)
		q->timeout_ns = NS_PER_SEC;
	if (q->timeout_ns > SERVER_MAX_TIMEOUT)
		q->timeout_ns = SERVER_MAX_TIMEOUT;
	return 0;
}

/* Serve one connection in a child process.  Returns the exit status. */
static int serve_one(int fd, const struct plan *p)
{
	struct ctl c = { fd, true, p->server_timeout, p->debug, false };
	const struct test_desc *t = NULL;
	struct req q;
	char err[256];
	timer_t tid;
	bool armed = false;
	int rc = -1;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	watchdog(&tid, &armed, p->server_timeout * 3 + NS_PER_SEC);
	if (read_request(&c, &q, err, sizeof(err)) < 0)
		goto fail;
	t = test_by_index(q.req_index);
	debugf(p->debug, "received request: %s", t ? t->name : "?");
	if (validate(t, &q, err, sizeof(err)) < 0)
		goto fail;
	c.timeout = q.timeout_ns;
	watchdog(&tid, &armed, q.time_ns + 6 * q.timeout_ns + 10 * NS_PER_SEC);
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
		break;
	}
	case TK_QUIT:
		rc = ctl_sync(&c, SYNC_BEFORE, err, sizeof(err));
		if (rc == 0)
			kill(getppid(), SIGQUIT);
		break;
	case TK_BW:
	case TK_LAT:
		rc = serve_sock(&c, t, &q, err, sizeof(err));
		break;
	case TK_RDMA:
		rc = seterr(err, sizeof(err), "%s: %s", t->name, t->missing);
		break;
	}
	if (rc == 0) {
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
static int server_listen(uint16_t port, char *err, size_t errlen)
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

/*
 * Write the bound port to path atomically: a new temporary file in the
 * same directory, then rename.  mkstemp() creates the name with O_EXCL, so
 * a planted symlink or file (path.XXXXXX in /tmp) is never followed or
 * reused.  Errors name -lpf and path, never the temporary name.
 */
static int write_port_file(const char *path, int lfd, char *err,
			   size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char tmp[4096], line[16];
	unsigned port;
	size_t n;
	int fd, e = 0;

	if (getsockname(lfd, (struct sockaddr *)&ss, &len) < 0)
		return seterr_errno(err, errlen, errno, "getsockname failed");
	port = ntohs(ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port);
	if (strlen(path) + sizeof(".XXXXXX") > sizeof(tmp))
		return seterr(err, errlen, "-lpf: \"%.200s\": name too long",
			      path);
	xsnprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return seterr_errno(err, errlen, errno,
				    "-lpf: cannot write \"%.200s\"", path);
	n = xsnprintf(line, sizeof(line), "%u\n", port);
	/* mkstemp makes it 0600; the port is no secret. */
	if (fchmod(fd, 0644) < 0 || write(fd, line, n) != (ssize_t)n)
		e = errno ? errno : EIO;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) < 0)
		e = errno;
	if (e) {
		unlink(tmp);
		return seterr_errno(err, errlen, e,
				    "-lpf: cannot write \"%.200s\"", path);
	}
	return 0;
}

int server_main(const struct plan *p)
{
	struct sigaction sa;
	char err[256];
	int nchildren = 0;
	int lfd = server_listen(p->listen_port, err, sizeof(err));

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
	measure_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGQUIT, &sa, NULL);
	while (!quit_requested) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		pid_t pid;
		int fd;

		while (nchildren > 0 && waitpid(-1, NULL, WNOHANG) > 0)
			nchildren--;
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EINTR && errno != EAGAIN &&
			    errno != ECONNABORTED)
				fprintf(stderr, "qperf: accept failed: %s\n",
					strerror(errno));
			continue;
		}
		if (nchildren >= SERVER_MAX_CHILDREN) {
			struct ctl c = { fd, true, NS_PER_SEC, false, false };

			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			ctl_send_error(&c, "server busy: too many tests running; try again later");
			close(fd);
			continue;
		}
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid == 0) {
			close(lfd);
			sa.sa_handler = SIG_DFL;
			sigaction(SIGQUIT, &sa, NULL);
			_exit(serve_one(fd, p));
		}
		if (pid < 0)
			fprintf(stderr, "qperf: fork failed: %s\n",
				strerror(errno));
		else
			nchildren++;
		close(fd);
	}
	close(lfd);
	return 0;
}
