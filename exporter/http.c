// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exporter's HTTP side (libmicrohttpd, a thread per connection):
 * /metrics, /probe and the bounds that keep it up.
 *
 *  - At most --exporter_max probes run at once; one more is answered 503
 *    at once (never queued, so a scrape never waits on others).
 *  - A probe's deadline is the scrape timeout Prometheus sends less
 *    PROBE_MARGIN, or PROBE_DEFAULT without the header; the child is
 *    killed then (exporter/probe.c), so an answer always comes in time.
 *  - A connection must deliver a whole request within REQUEST_LIMIT of
 *    connecting (or of its last answer): a watchdog shuts down the
 *    socket of one that does not (a client sending a byte a second is
 *    never idle long enough for libmicrohttpd's own timeout).  It holds
 *    its own duplicate of the socket, released when libmicrohttpd says
 *    the connection closed, so it never touches a reused descriptor.
 *  - Started as root, it binds and writes -lpf first, then runs as
 *    nobody.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "exporter.h"
#include "core/engine.h"
#include "core/plan.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/types.h"

#define PROBE_DEFAULT (10 * NS_PER_SEC) /* without a scrape timeout */
#define PROBE_MARGIN (NS_PER_SEC / 2)
#define PROBE_MIN (NS_PER_SEC / 2)
#define SCRAPE_TIMEOUT_MAX 3600.0 /* seconds we believe in the header */
#define REQUEST_LIMIT (5 * NS_PER_SEC)
#define CONN_MAX 200
#define ARGS_MAX 32
#define EXE "/proc/self/exe"

static const double buckets[] = { 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30 };
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

/* One open connection, as the watchdog sees it. */
struct conn {
	struct conn *prev, *next;
	int fd; /* our duplicate of the socket */
	uint64_t since; /* ns: connected, or last answered */
	bool busy; /* a request is being answered */
	bool served; /* at least one request answered */
	bool cut;
};

struct exporter {
	struct exp_allow allow;
	uint32_t max;
	pthread_mutex_t lock; /* everything below */
	struct conn *conns;
	uint32_t in_flight;
	uint64_t probes, failed, busy, bad, cut;
	uint64_t hist[NBUCKETS + 1];
	double dur_sum;
	bool stop;
};

static const char *ct(bool om)
{
	return om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		    "text/plain; version=0.0.4; charset=utf-8";
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code,
			      const char *type, char *body, size_t len)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

__attribute__((format(printf, 3, 4))) static enum MHD_Result
answer_text(struct MHD_Connection *c, unsigned code, const char *fmt, ...)
{
	char *body = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	return answer(c, code, "text/plain; charset=utf-8", body, (size_t)n);
}

static void peer_name(struct MHD_Connection *c, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	if (!ci || !ci->client_addr ||
	    getnameinfo(ci->client_addr,
			ci->client_addr->sa_family == AF_INET6 ?
				sizeof(struct sockaddr_in6) :
				sizeof(struct sockaddr_in),
			buf, (socklen_t)len, NULL, 0, NI_NUMERICHOST))
		xsnprintf(buf, len, "?");
}

static enum MHD_Result bad_probe(struct exporter *x, struct MHD_Connection *c,
				 const char *why)
{
	char peer[64];

	peer_name(c, peer, sizeof(peer));
	fprintf(stderr, "qperf: exporter: %s: bad probe: %s\n", peer, why);
	pthread_mutex_lock(&x->lock);
	x->bad++;
	pthread_mutex_unlock(&x->lock);
	return answer_text(c, MHD_HTTP_BAD_REQUEST, "bad probe: %s\n", why);
}

/* The exporter's own health, /metrics. */
static enum MHD_Result health(struct exporter *x, struct MHD_Connection *c,
			      bool om)
{
	char *body = NULL, lab[32];
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);
	uint64_t cum = 0;

	if (!f)
		return MHD_NO;
	pthread_mutex_lock(&x->lock);
	exp_one(f, om, "qperf_exporter_build_info", "gauge",
		"The qperf version of this exporter.",
		"version=\"" QPERF_VERSION "\"", 1);
	exp_one(f, om, "qperf_exporter_probes_total", "counter", "Probes run.",
		NULL, (double)x->probes);
	exp_one(f, om, "qperf_exporter_probes_failed_total", "counter",
		"Probes run that failed (qperf_probe_success 0).", NULL,
		(double)x->failed);
	exp_one(f, om, "qperf_exporter_probes_rejected_total", "counter",
		"Probes not run: busy (503, --exporter_max) or bad_request (400).",
		"reason=\"busy\"", (double)x->busy);
	exp_sample(f, "qperf_exporter_probes_rejected_total",
		   "reason=\"bad_request\"", (double)x->bad);
	exp_one(f, om, "qperf_exporter_probes_in_flight", "gauge",
		"Probes running now.", NULL, x->in_flight);
	exp_one(f, om, "qperf_exporter_probes_max", "gauge",
		"Probes allowed at once (--exporter_max).", NULL, x->max);
	exp_one(f, om, "qperf_exporter_slow_requests_total", "counter",
		"Connections cut for not sending a whole request in time.", NULL,
		(double)x->cut);
	exp_family(f, om, "qperf_exporter_probe_duration_seconds", "histogram",
		   "How long probes took.");
	for (size_t i = 0; i <= NBUCKETS; i++) {
		cum += x->hist[i];
		if (i < NBUCKETS)
			snprintf(lab, sizeof(lab), "le=\"%g\"", buckets[i]);
		else
			snprintf(lab, sizeof(lab), "le=\"+Inf\"");
		exp_sample(f, "qperf_exporter_probe_duration_seconds_bucket",
			   lab, (double)cum);
	}
	exp_sample(f, "qperf_exporter_probe_duration_seconds_sum", NULL,
		   x->dur_sum);
	exp_sample(f, "qperf_exporter_probe_duration_seconds_count", NULL,
		   (double)cum);
	pthread_mutex_unlock(&x->lock);
	if (om)
		fputs("# EOF\n", f);
	if (fclose(f)) {
		free(body);
		return MHD_NO;
	}
	return answer(c, MHD_HTTP_OK, ct(om), body, len);
}

struct args {
	size_t n;
	bool over;
	const char *k[ARGS_MAX], *v[ARGS_MAX];
};

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind,
			       const char *key, const char *value)
{
	struct args *a = cls;

	(void)kind;
	if (a->n >= ARGS_MAX) {
		a->over = true;
		return MHD_NO;
	}
	a->k[a->n] = key;
	a->v[a->n++] = value;
	return MHD_YES;
}

/* The probe's deadline from X-Prometheus-Scrape-Timeout-Seconds. */
static int probe_limit(struct MHD_Connection *c, uint64_t *limit, char *err,
		       size_t errlen)
{
	const char *h = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, "X-Prometheus-Scrape-Timeout-Seconds");
	char *e;
	double s;

	*limit = PROBE_DEFAULT;
	if (!h)
		return 0;
	errno = 0;
	s = strtod(h, &e);
	if (e == h || *e || errno || !isfinite(s) || s <= 0 ||
	    s > SCRAPE_TIMEOUT_MAX)
		return seterr(err, errlen,
			      "X-Prometheus-Scrape-Timeout-Seconds: %.40s: bad value; seconds, above 0 and at most 3600",
			      h);
	*limit = (uint64_t)(s * NS_PER_SEC);
	*limit = *limit > PROBE_MARGIN + PROBE_MIN ? *limit - PROBE_MARGIN :
						     PROBE_MIN;
	return 0;
}

static void account(struct exporter *x, const struct probe_outcome *o)
{
	size_t b = 0;

	pthread_mutex_lock(&x->lock);
	x->in_flight--;
	x->failed += !o->success;
	while (b < NBUCKETS && o->duration > buckets[b])
		b++;
	x->hist[b]++;
	x->dur_sum += o->duration;
	pthread_mutex_unlock(&x->lock);
}

static enum MHD_Result probe(struct exporter *x, struct MHD_Connection *c,
			     bool om)
{
	struct args a = { 0 };
	struct probe_req r;
	struct probe_outcome o;
	char err[256], *body = NULL;
	size_t len = 0;
	uint64_t limit;
	FILE *f;
	int rc;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, &a);
	if (a.over)
		return bad_probe(x, c, "too many query arguments");
	if (probe_req_parse(&x->allow, a.n, a.k, a.v, &r, err, sizeof(err)) ||
	    probe_limit(c, &limit, err, sizeof(err)))
		return bad_probe(x, c, err);
	if (r.time_ns >= limit) {
		xsnprintf(err, sizeof(err),
			  "time: %.3g s does not fit the probe's limit, %.3g s (the scrape timeout less 0.5 s, or 10 s)",
			  (double)r.time_ns / NS_PER_SEC,
			  (double)limit / NS_PER_SEC);
		return bad_probe(x, c, err);
	}
	pthread_mutex_lock(&x->lock);
	if (x->in_flight >= x->max) {
		x->busy++;
		pthread_mutex_unlock(&x->lock);
		return answer_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "busy: %u probes running (--exporter_max)\n",
				   x->max);
	}
	x->in_flight++;
	x->probes++;
	pthread_mutex_unlock(&x->lock);
	rc = probe_run(&r, EXE, now_ns() + limit, &o);
	account(x, &o);
	if (rc == 1) {
		json_decref(o.doc);
		return bad_probe(x, c, o.error);
	}
	f = open_memstream(&body, &len);
	rc = f ? exp_render_probe(f, om, &o) : -1;
	json_decref(o.doc);
	if (!f || fclose(f) || rc) {
		free(body);
		return MHD_NO;
	}
	return answer(c, MHD_HTTP_OK, ct(om), body, len);
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **req)
{
	struct exporter *x = cls;
	struct conn *k = conn_of(c);
	const char *acc =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	bool om = acc && strstr(acc, "application/openmetrics-text");

	(void)version;
	(void)upload;
	if (*req) { /* a body after a GET: already answered */
		*upload_size = 0;
		return MHD_YES;
	}
	*req = x;
	if (k) {
		pthread_mutex_lock(&x->lock);
		k->busy = true;
		pthread_mutex_unlock(&x->lock);
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				   "only GET and HEAD\n");
	if (!strcmp(url, "/metrics"))
		return health(x, c, om);
	if (!strcmp(url, "/probe"))
		return probe(x, c, om);
	if (!strcmp(url, "/"))
		return answer_text(c, MHD_HTTP_OK,
				   "qperf exporter\n/metrics: the exporter's own health\n"
				   "/probe?target=HOST[:PORT]&test=TEST[&option=value...]: one test against a qperf server\n");
	return answer_text(c, MHD_HTTP_NOT_FOUND,
			   "not found; try /metrics or /probe?target=HOST&test=TEST\n");
}

static void completed(void *cls, struct MHD_Connection *c, void **req,
		      enum MHD_RequestTerminationCode toe)
{
	struct exporter *x = cls;
	struct conn *k = conn_of(c);

	(void)req;
	(void)toe;
	if (!k)
		return;
	pthread_mutex_lock(&x->lock);
	k->busy = false;
	k->served = true;
	k->since = now_ns();
	pthread_mutex_unlock(&x->lock);
}

static void notify(void *cls, struct MHD_Connection *c, void **ctx,
		   enum MHD_ConnectionNotificationCode toe)
{
	struct exporter *x = cls;
	struct conn *k = *ctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
			c, MHD_CONNECTION_INFO_CONNECTION_FD);

		k = calloc(1, sizeof(*k));
		if (!k)
			return;
		k->fd = ci ? fcntl(ci->connect_fd, F_DUPFD_CLOEXEC, 0) : -1;
		k->since = now_ns();
		pthread_mutex_lock(&x->lock);
		k->next = x->conns;
		if (x->conns)
			x->conns->prev = k;
		x->conns = k;
		pthread_mutex_unlock(&x->lock);
		*ctx = k;
		return;
	}
	if (!k)
		return;
	pthread_mutex_lock(&x->lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		x->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&x->lock);
	if (k->fd >= 0)
		close(k->fd);
	free(k);
	*ctx = NULL;
}

/* Cut connections that hold no whole request past REQUEST_LIMIT. */
static void *watchdog(void *arg)
{
	struct exporter *x = arg;

	for (;;) {
		uint64_t now = now_ns();

		pthread_mutex_lock(&x->lock);
		if (x->stop) {
			pthread_mutex_unlock(&x->lock);
			return NULL;
		}
		for (struct conn *k = x->conns; k; k = k->next) {
			if (k->busy || k->cut || k->fd < 0 ||
			    now - k->since < REQUEST_LIMIT)
				continue;
			shutdown(k->fd, SHUT_RDWR);
			k->cut = true;
			x->cut += !k->served;
		}
		pthread_mutex_unlock(&x->lock);
		nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
	}
}

/* Bind [HOST]:PORT (HOST 127.0.0.1 when empty).  The socket, or -1
 * (the address cannot be had), or -2 (it is malformed: a usage error). */
static int listen_on(const char *spec, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char host[256];
	const char *colon = strrchr(spec, ':'), *h = host;
	size_t n;
	int fd = -1, one = 1, rc;

	if (!colon || !colon[1])
		return -1 + seterr(err, errlen,
			      "--exporter: %.80s: bad address; use [HOST]:PORT, such as :9671 or 127.0.0.1:0",
			      spec);
	n = (size_t)(colon - spec);
	if (n >= sizeof(host))
		return -1 + seterr(err, errlen, "--exporter: %.80s...: too long",
				   spec);
	memcpy(host, spec, n);
	host[n] = '\0';
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		h = host + 1;
	} else if (strchr(host, ':') || strchr(host, '[') ||
		   strchr(host, ']')) {
		return -1 + seterr(err, errlen,
			      "--exporter: %.80s: bad address; write an IPv6 address as [ADDR]:PORT",
			      spec);
	}
	if (!*h)
		h = "127.0.0.1";
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strlen(colon + 1) > 5 || atoi(colon + 1) > 65535)
		return -1 + seterr(err, errlen,
			      "--exporter: %.80s: bad port; use 0 to 65535",
			      spec);
	rc = getaddrinfo(h, colon + 1, &hints, &ai);
	if (rc)
		return -1 + seterr(err, errlen, "--exporter: %.80s: %s", spec,
				   gai_strerror(rc));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
		seterr_errno(err, errlen, errno, "--exporter: cannot listen on %.80s",
			     spec);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* Started as root: run as nobody from here on.  0 or -1 with err. */
static int drop_root(char *err, size_t errlen)
{
	const struct passwd *pw;

	if (geteuid() != 0)
		return 0;
	pw = getpwnam("nobody");
	if (!pw || !pw->pw_uid)
		return seterr(err, errlen,
			      "--exporter: started as root and there is no user nobody to run as; start it as an unprivileged user");
	if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0 || setuid(0) == 0)
		return seterr_errno(err, errlen, errno,
				    "--exporter: cannot switch from root to nobody");
	/* credentials changed: make /proc/self/exe ours again to exec */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	fprintf(stderr, "qperf: exporter: started as root: running as nobody\n");
	return 0;
}

static void print_addr(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char h[INET6_ADDRSTRLEN + 2], p[8];

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    getnameinfo((struct sockaddr *)&ss, len, h, sizeof(h), p, sizeof(p),
			NI_NUMERICHOST | NI_NUMERICSERV))
		return;
	printf(ss.ss_family == AF_INET6 ? "qperf exporter on http://[%s]:%s/\n" :
					  "qperf exporter on http://%s:%s/\n",
	       h, p);
	fflush(stdout);
}

int exporter_main(const struct plan *p)
{
	struct exporter *x = calloc(1, sizeof(*x));
	struct MHD_Daemon *d = NULL;
	pthread_t wd;
	bool wd_on = false;
	sigset_t stop;
	char err[256];
	int fd = -1, rc = 1, sig;

	if (!x)
		return 1;
	pthread_mutex_init(&x->lock, NULL);
	x->max = p->exporter.max ? p->exporter.max : EXP_DEFAULT_MAX;
	if (exp_allow_parse(p->exporter.allow ? p->exporter.allow :
						EXP_DEFAULT_ALLOW,
			    &x->allow, err, sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		rc = 2;
		goto out;
	}
	fd = listen_on(p->exporter.listen, err, sizeof(err));
	if (fd == -2)
		rc = 2;
	if (fd < 0 ||
	    (p->port_file && write_port_file(p->port_file, fd, err, sizeof(err))) ||
	    drop_root(err, sizeof(err))) {
		fprintf(stderr, "qperf: %s\n", err);
		goto out;
	}
	/* Every thread from here on leaves these to sigwait below. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
				     MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_USE_POLL,
			     0, NULL, NULL, handle, x,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_MAX,
			     MHD_OPTION_CONNECTION_TIMEOUT, 30u,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, x,
			     MHD_OPTION_NOTIFY_CONNECTION, notify, x,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "qperf: --exporter: cannot start the HTTP server\n");
		goto out;
	}
	fd = -1; /* the daemon's now */
	if (pthread_create(&wd, NULL, watchdog, x) == 0)
		wd_on = true;
	print_addr(MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD)->listen_fd);
	while (sigwait(&stop, &sig) == 0 && sig != SIGINT && sig != SIGTERM &&
	       sig != SIGHUP)
		;
	rc = 0;
out:
	if (d)
		MHD_stop_daemon(d);
	if (wd_on) {
		pthread_mutex_lock(&x->lock);
		x->stop = true;
		pthread_mutex_unlock(&x->lock);
		pthread_join(wd, NULL);
	}
	if (fd >= 0)
		close(fd);
	pthread_mutex_destroy(&x->lock);
	free(x);
	return rc;
}
