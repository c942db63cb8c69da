// SPDX-License-Identifier: GPL-2.0-only
/*
 * The server parent; see supervise.h.  Invariants:
 *  - every child is in slot[] from fork() until waitpid() reaps it, and
 *    only then are its slot, its share of the memory budget and the
 *    parent's copy of its control connection released;
 *  - the parent signals only its own children (by the pid fork()
 *    returned, before it was reaped), and only with SIGKILL;
 *  - nothing here blocks: sockets are non-blocking and error notices to
 *    clients are drained from the poll loop, never waited for.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transports/transport.h"
#include "acl.h"
#include "ctl.h"
#include "progress.h"
#include "supervise.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

#define TICK_MS 100 /* watchdog resolution */
#define IDLE_MS 1000 /* poll interval with no children */
#define STOP_GRACE (2 * NS_PER_SEC) /* running tests may finish */
#define DRAIN_MAX 64 /* error notices being drained at once */
#define DRAIN_TIME NS_PER_SEC
#define ADMIT_WAIT_MS 5000
#define BUDGET_MIN (64ULL << 20)
#define CELL 64 /* bytes per progress counter: one cache line each */
/*
 * With --secret_file a connection holds one of the SERVER_MAX_CHILDREN
 * slots only once it has proved the secret.  Until then it is one of at
 * most PREAUTH_MAX unauthenticated ones (--max_per_client per client
 * address, so whatever a client may run it may also authenticate at
 * once), each with PREAUTH_TIME to authenticate.  When they are all
 * taken, a newcomer displaces the oldest of the address that has most,
 * so a few addresses without the secret cannot keep others out.
 */
#define PREAUTH_MAX 32
#define PREAUTH_TIME (2 * NS_PER_SEC)
#define SHED_LOG_GAP (10 * NS_PER_SEC) /* one line per gap for dropped ones */
/* Slots: the served, the unauthenticated, and as many killed, not reaped. */
#define NSLOT (SERVER_MAX_CHILDREN + 2 * PREAUTH_MAX)
/* Out of descriptors (EMFILE, ENFILE): how long the listener rests. */
#define ACCEPT_PAUSE (250 * 1000000ULL)
#define ACCEPT_LOG_GAP (30 * NS_PER_SEC)

uint64_t *progress_counter;

/* Child side: its end of the channel (-1 when not supervised). */
static int child_chan = -1;

enum { CH_ADMIT = 1, CH_QUIT = 2 };

struct chan_msg {
	uint32_t type;
	struct admit a;
};

struct chan_reply {
	int32_t ok;
	char text[240];
};

struct slot {
	pid_t pid; /* 0: free */
	int chan; /* parent end of the channel, -1 once the child closed it */
	int ctl; /* parent's copy of the control connection, or -1 */
	uint8_t key[16]; /* client: IPv4 (mapped) address, or IPv6 /64 */
	char who[64]; /* client address as text */
	uint64_t start; /* ns: accepted */
	bool admitted;
	bool counted; /* holds one of the SERVER_MAX_CHILDREN slots */
	struct admit a;
	uint64_t progress, progress_at; /* last count seen, and when */
	bool killed;
};

struct drain {
	int fd;
	uint64_t deadline;
};

struct superv {
	const struct plan *p;
	int lfd;
	struct slot slot[NSLOT];
	uint8_t *cells; /* shared: one progress counter per slot */
	struct drain drain[DRAIN_MAX];
	uint64_t budget, used; /* bytes */
	bool stopping;
	uint64_t stop_at; /* ns: when the grace for running children ends */
	/* Unauthenticated connections dropped: one log line per gap. */
	uint64_t shed_log_at;
	unsigned shed_quiet; /* dropped since the last line */
	/* accept() failing: the listener rests until accept_at. */
	uint64_t accept_at, accept_log_at;
	int accept_err; /* errno of the episode that was logged, or 0 */
	unsigned accept_waits; /* pauses since that line */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* "2.5 s", "10 min" */
/* The hint of a memory refusal besides a smaller -m. */
static const char *fewer(const struct admit *a)
{
	return a->qps ? " or fewer --qps" : a->conns ? " or fewer --conns" : "";
}

static void fmt_time(char *buf, size_t len, uint64_t ns)
{
	double s = (double)ns / 1e9;

	if (ns >= 120 * NS_PER_SEC && ns % (60 * NS_PER_SEC) == 0)
		xsnprintf(buf, len, "%.0f min", s / 60);
	else
		xsnprintf(buf, len, "%.3g s", s);
}

uint64_t superv_default_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz
					    : 4ULL << 30;
	char line[512], path[600];
	FILE *f = fopen("/proc/self/cgroup", "r");

	/* cgroup v2 ("0::/path"): a container's limit is the machine. */
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lim;
		FILE *m;

		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		xsnprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max",
			  line + 3);
		m = fopen(path, "r");
		if (m && fscanf(m, "%llu", &lim) == 1 && lim < mem)
			mem = lim;
		if (m)
			fclose(m);
	}
	if (f)
		fclose(f);
	return mem / 4 > BUDGET_MIN ? mem / 4 : BUDGET_MIN;
}

/* --- child side --------------------------------------------------------- */

int superv_admit(const struct admit *a, char *err, size_t errlen)
{
	struct chan_msg m;
	struct chan_reply r;
	struct pollfd pfd = { child_chan, POLLIN, 0 };
	ssize_t n;

	if (child_chan < 0)
		return 0;
	memset(&m, 0, sizeof(m));
	m.type = CH_ADMIT;
	m.a = *a;
	if (send(child_chan, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
		return seterr(err, errlen, "the server is shutting down");
	if (poll(&pfd, 1, ADMIT_WAIT_MS) <= 0)
		return seterr(err, errlen, "the server is not admitting requests");
	n = recv(child_chan, &r, sizeof(r), 0);
	if (n != (ssize_t)sizeof(r))
		return seterr(err, errlen, "the server is shutting down");
	if (!r.ok)
		return seterr(err, errlen, "%.*s", (int)sizeof(r.text), r.text);
	return 0;
}

void superv_quit(void)
{
	struct chan_msg m;

	if (child_chan < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.type = CH_QUIT;
	/* If the parent is gone there is nobody to stop: ignore errors. */
	(void)send(child_chan, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* --- parent: error notices, drained from the loop ----------------------- */

/* 0.4.11's error notice (spec §2.8) without waiting: the drain follows. */
static void notice(struct superv *sv, int fd, const char *text)
{
	size_t n = strnlen(text, 240);

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	(void)ctl_urgent_notice(fd, text, n);
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < DRAIN_MAX; i++) {
		if (sv->drain[i].fd < 0) {
			sv->drain[i].fd = fd;
			sv->drain[i].deadline = now_ns() + DRAIN_TIME;
			return;
		}
	}
	close(fd); /* too many at once: this one may see a reset */
}

static void drain_step(struct drain *d, uint64_t now)
{
	char junk[4096];
	ssize_t r;

	if (d->fd < 0)
		return;
	while ((r = read(d->fd, junk, sizeof(junk))) > 0)
		;
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR) ||
	    now >= d->deadline) {
		close(d->fd);
		d->fd = -1;
	}
}

/* --- parent: slots ------------------------------------------------------- */

static uint64_t *cell(struct superv *sv, int i)
{
	return (uint64_t *)(void *)(sv->cells + (size_t)i * CELL);
}

/* Children that hold one of the SERVER_MAX_CHILDREN slots (of key). */
static int nlive(const struct superv *sv, const uint8_t *key)
{
	int n = 0;

	for (int i = 0; i < NSLOT; i++)
		if (sv->slot[i].pid && sv->slot[i].counted &&
		    (!key || memcmp(sv->slot[i].key, key, 16) == 0))
			n++;
	return n;
}

/* Unauthenticated connections (of key), not counting those killed. */
static int npreauth(const struct superv *sv, const uint8_t *key)
{
	int n = 0;

	for (int i = 0; i < NSLOT; i++)
		if (sv->slot[i].pid && !sv->slot[i].counted &&
		    !sv->slot[i].killed &&
		    (!key || memcmp(sv->slot[i].key, key, 16) == 0))
			n++;
	return n;
}

/* Every child not yet reaped. */
static int nchildren(const struct superv *sv)
{
	int n = 0;

	for (int i = 0; i < NSLOT; i++)
		n += sv->slot[i].pid != 0;
	return n;
}

/*
 * When slot s is free at the latest: the watchdog's deadline for it.
 * Also sets *why to the rule that deadline enforces.
 */
static uint64_t slot_deadline(const struct superv *sv, const struct slot *s,
			      const char **why)
{
	const struct server_limits *l = &sv->p->lim;

	*why = "setup";
	if (!s->counted) {
		*why = "auth";
		return s->start + (l->max_setup < PREAUTH_TIME ? l->max_setup
							 : PREAUTH_TIME);
	}
	if (!s->admitted || !s->a.data || s->progress == 0)
		return s->start + l->max_setup;
	if (s->a.time_ns) {
		*why = "time";
		return s->start + l->max_setup + s->a.time_ns + l->max_setup;
	}
	*why = "count";
	return s->start + l->max_setup + l->max_time;
}

static const char *slot_test(const struct slot *s)
{
	const struct test_desc *t = s->admitted ? test_by_index(s->a.req_index)
						: NULL;

	return t ? t->name : "request";
}

/*
 * The log line for an unauthenticated connection dropped: at most one per
 * SHED_LOG_GAP, which counts the others, so a flood cannot fill the log.
 */
static void log_shed(struct superv *sv, const struct slot *s, const char *why)
{
	uint64_t now = now_ns();

	if (now < sv->shed_log_at) {
		sv->shed_quiet++;
		return;
	}
	if (sv->shed_quiet)
		fprintf(stderr,
			"qperf: dropped unauthenticated connection from %s: %s (and %u more unauthenticated connections dropped since the last such line)\n",
			s->who, why, sv->shed_quiet);
	else
		fprintf(stderr,
			"qperf: dropped unauthenticated connection from %s: %s\n",
			s->who, why);
	sv->shed_quiet = 0;
	sv->shed_log_at = now + SHED_LOG_GAP;
}

/* SIGKILL our child in slot s, and say why in the log and to its client. */
static void kill_child(struct superv *sv, struct slot *s, const char *why)
{
	char msg[240];

	if (s->killed)
		return;
	kill(s->pid, SIGKILL);
	s->killed = true;
	if (s->counted)
		fprintf(stderr, "qperf: stopped %s from %s (pid %d): %s\n",
			slot_test(s), s->who, (int)s->pid, why);
	else
		log_shed(sv, s, why);
	xsnprintf(msg, sizeof(msg), "%s stopped by the server: %s",
		  slot_test(s), why);
	if (s->ctl >= 0) {
		notice(sv, s->ctl, msg);
		s->ctl = -1;
	}
}

static void watchdog(struct superv *sv, uint64_t now)
{
	const struct server_limits *l = &sv->p->lim;

	for (int i = 0; i < NSLOT; i++) {
		struct slot *s = &sv->slot[i];
		uint64_t p, idle;
		const char *rule;
		char why[200], t1[32], t2[32];

		if (!s->pid || s->killed)
			continue;
		p = __atomic_load_n(cell(sv, i), __ATOMIC_RELAXED);
		if (p != s->progress) {
			s->progress = p;
			s->progress_at = now;
		}
		if (sv->stopping && now >= sv->stop_at) {
			kill_child(sv, s, "the server is shutting down");
			continue;
		}
		if (now >= slot_deadline(sv, s, &rule)) {
			fmt_time(t1, sizeof(t1),
				 !strcmp(rule, "auth") &&
						 l->max_setup > PREAUTH_TIME
					 ? PREAUTH_TIME
					 : l->max_setup);
			fmt_time(t2, sizeof(t2), l->max_time);
			if (!strcmp(rule, "auth"))
				xsnprintf(why, sizeof(why),
					  "no proof of the shared secret within %s",
					  t1);
			else if (!strcmp(rule, "setup"))
				xsnprintf(why, sizeof(why),
					  s->admitted && s->a.data
						  ? "no data within %s of the request (the server's --max_setup)"
						  : "not done within %s (the server's --max_setup)",
					  t1);
			else if (!strcmp(rule, "time"))
				xsnprintf(why, sizeof(why),
					  "still running %s after its time (the server's --max_setup)",
					  t1);
			else if (!s->a.no_msgs)
				xsnprintf(why, sizeof(why),
					  "a test run until interrupted (-t 0) must end within %s (the server's --max_time)",
					  t2);
			else
				xsnprintf(why, sizeof(why),
					  "a test by count must end within %s (the server's --max_time); use -t or a smaller -n",
					  t2);
			kill_child(sv, s, why);
			continue;
		}
		/* Moving data, then nothing for longer than the loops allow. */
		idle = s->a.timeout_ns + l->max_setup;
		if (s->admitted && s->progress && now - s->progress_at > idle) {
			fmt_time(t1, sizeof(t1), now - s->progress_at);
			xsnprintf(why, sizeof(why), "no progress for %s", t1);
			kill_child(sv, s, why);
		}
	}
}

static void reap(struct superv *sv)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		for (int i = 0; i < NSLOT; i++) {
			struct slot *s = &sv->slot[i];

			if (s->pid != pid)
				continue;
			if (s->admitted)
				sv->used -= s->a.mem;
			if (s->chan >= 0)
				close(s->chan);
			if (s->ctl >= 0)
				close(s->ctl);
			memset(s, 0, sizeof(*s));
			s->chan = s->ctl = -1;
			break;
		}
	}
}

/* Seconds until one of the slots that match key (all if NULL) is free. */
static unsigned retry_secs(const struct superv *sv, const uint8_t *key)
{
	uint64_t now = now_ns(), best = UINT64_MAX;

	for (int i = 0; i < NSLOT; i++) {
		const struct slot *s = &sv->slot[i];
		const char *why;
		uint64_t d;

		if (!s->pid || !s->counted ||
		    (key && memcmp(s->key, key, 16) != 0))
			continue;
		d = s->killed ? now : slot_deadline(sv, s, &why);
		if (d < best)
			best = d;
	}
	if (best == UINT64_MAX || best <= now)
		return 1;
	return (unsigned)((best - now + NS_PER_SEC - 1) / NS_PER_SEC);
}

/* A message from the child in slot s. */
static void on_message(struct superv *sv, struct slot *s,
		       const struct chan_msg *m)
{
	struct chan_reply r;
	char need[32], freeb[32], all[32];

	if (m->type == CH_QUIT) {
		/* Always in the log: who stopped the server. */
		fprintf(stderr, "qperf: quit from %s: %s\n", s->who,
			sv->stopping ? "already stopping" : "stopping the server");
		sv->stopping = true;
		sv->stop_at = now_ns() + STOP_GRACE;
		return;
	}
	if (m->type != CH_ADMIT || s->admitted)
		return;
	memset(&r, 0, sizeof(r));
	if (sv->stopping) {
		xsnprintf(r.text, sizeof(r.text), "the server is shutting down");
	} else if (!s->counted &&
		   nlive(sv, s->key) >= (int)sv->p->lim.max_per_client) {
		/* Authenticated (--secret_file): now it needs a slot. */
		xsnprintf(r.text, sizeof(r.text),
			  "server busy: %d tests from %s running (at most %u per client); try again in %u s",
			  nlive(sv, s->key), s->who, sv->p->lim.max_per_client,
			  retry_secs(sv, s->key));
	} else if (!s->counted && nlive(sv, NULL) >= SERVER_MAX_CHILDREN) {
		xsnprintf(r.text, sizeof(r.text),
			  "server busy: %d tests running (the most it runs at once); try again in %u s",
			  SERVER_MAX_CHILDREN, retry_secs(sv, NULL));
	} else if (m->a.mem > sv->budget - sv->used) {
		xsnprintf(need, sizeof(need), "%" PRIu64, m->a.mem);
		xsnprintf(freeb, sizeof(freeb), "%" PRIu64, sv->budget - sv->used);
		xsnprintf(all, sizeof(all), "%" PRIu64, sv->budget);
		if (m->a.mem > sv->budget)
			xsnprintf(r.text, sizeof(r.text),
				  "not enough memory: this test needs %s bytes, more than the server's whole budget of %s (--max_memory); use a smaller -m%s",
				  need, all, fewer(&m->a));
		else
			xsnprintf(r.text, sizeof(r.text),
				  "not enough memory: this test needs %s bytes and %s of the server's %s (--max_memory) are free; try again later or use a smaller -m%s",
				  need, freeb, all, fewer(&m->a));
	} else {
		r.ok = 1;
		s->counted = true;
		s->admitted = true;
		s->a = m->a;
		sv->used += m->a.mem;
	}
	(void)send(s->chan, &r, sizeof(r), MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void chan_read(struct superv *sv, struct slot *s)
{
	struct chan_msg m;
	ssize_t n;

	while ((n = recv(s->chan, &m, sizeof(m), MSG_DONTWAIT)) > 0)
		if (n == (ssize_t)sizeof(m))
			on_message(sv, s, &m);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(s->chan); /* the child is exiting */
		s->chan = -1;
	}
}

/* --- parent: accepting ---------------------------------------------------- */

static void child_setup(struct superv *sv, int me, int chan, int fd)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* Never outlive the server, however it ends. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (sv->lfd >= 0)
		close(sv->lfd);
	for (int i = 0; i < NSLOT; i++) {
		if (sv->slot[i].chan >= 0)
			close(sv->slot[i].chan);
		if (sv->slot[i].ctl >= 0 && sv->slot[i].ctl != fd)
			close(sv->slot[i].ctl);
	}
	for (int i = 0; i < DRAIN_MAX; i++)
		if (sv->drain[i].fd >= 0)
			close(sv->drain[i].fd);
	child_chan = chan;
	progress_counter = cell(sv, me);
}

/*
 * accept() (or the socketpair or fork a connection needs) failed for want
 * of descriptors or memory: rest the listener for ACCEPT_PAUSE, so the
 * loop does not spin on a connection it cannot take, and say so once per
 * ACCEPT_LOG_GAP.  Waiting clients stay in the listen queue.
 */
static void accept_pause(struct superv *sv, int e)
{
	uint64_t now = now_ns();
	struct rlimit rl;
	char lim[64] = "";

	sv->accept_at = now + ACCEPT_PAUSE;
	if (now < sv->accept_log_at) {
		sv->accept_waits++;
		return;
	}
	if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY)
		xsnprintf(lim, sizeof(lim), " (ulimit -n is %llu)",
			  (unsigned long long)rl.rlim_cur);
	fprintf(stderr,
		"qperf: cannot take new connections: %s%s; until running tests end, new clients wait or are told the server is busy%s\n",
		strerror(e), lim,
		sv->accept_waits ? " (still so since the last such line)" : "");
	sv->accept_err = e;
	sv->accept_waits = 0;
	sv->accept_log_at = now + ACCEPT_LOG_GAP;
}

/* A connection was taken: end a logged episode of accept_pause(). */
static void accept_ok(struct superv *sv)
{
	if (!sv->accept_err)
		return;
	fprintf(stderr, "qperf: taking new connections again\n");
	sv->accept_err = 0;
}

static bool out_of_resources(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM ||
	       e == EAGAIN;
}

/*
 * With --secret_file: room for one more unauthenticated connection from
 * key, displacing the oldest of the address with most when all
 * PREAUTH_MAX are taken.  Returns false (msg says why) to refuse it.
 */
static bool preauth_room(struct superv *sv, const uint8_t *key,
			 const char *who, char *msg, size_t len)
{
	int per = (int)sv->p->lim.max_per_client, most = 0;
	struct slot *victim = NULL;

	if (npreauth(sv, key) >= per) {
		xsnprintf(msg, len,
			  "server busy: %d connections from %s are authenticating (at most %d per client, --max_per_client); try again in %u s",
			  npreauth(sv, key), who, per,
			  (unsigned)(PREAUTH_TIME / NS_PER_SEC));
		return false;
	}
	if (npreauth(sv, NULL) < PREAUTH_MAX)
		return true;
	for (int i = 0; i < NSLOT; i++) {
		struct slot *s = &sv->slot[i];
		int n;

		if (!s->pid || s->counted || s->killed)
			continue;
		n = npreauth(sv, s->key);
		if (n > most || (n == most && victim && s->start < victim->start)) {
			most = n;
			victim = s;
		}
	}
	if (!victim || most <= npreauth(sv, key)) {
		xsnprintf(msg, len,
			  "server busy: %d connections are authenticating; try again in %u s",
			  PREAUTH_MAX, (unsigned)(PREAUTH_TIME / NS_PER_SEC));
		return false;
	}
	kill_child(sv, victim,
		   "not authenticated while the server was full of connections that had not");
	return true;
}

static void start_child(struct superv *sv, int fd, const struct sockaddr *sa,
			int (*serve)(int, const struct plan *))
{
	const struct server_limits *l = &sv->p->lim;
	bool preauth = sv->p->secret != NULL;
	uint8_t key[16];
	char who[64], msg[240];
	int me = -1, sp[2], pfd = -1, e;
	pid_t ppid = getpid(), pid;

	memset(key, 0, sizeof(key));
	acl_key(sa, key);
	/* One IPv6 host usually owns a whole /64: count it as one client. */
	if (!(key[10] == 0xff && key[11] == 0xff &&
	      !memcmp(key, "\0\0\0\0\0\0\0\0\0\0", 10)))
		memset(key + 8, 0, 8);
	acl_addr_str(sa, who, sizeof(who));
	if (!acl_allows(&l->allow, sa)) {
		fprintf(stderr, "qperf: refused %s: not in --allow\n", who);
		xsnprintf(msg, sizeof(msg),
			  "client %s is not allowed to use this server", who);
		notice(sv, fd, msg);
		return;
	}
	/* Without a secret a connection holds its slot from now on. */
	if (!preauth && nlive(sv, key) >= (int)l->max_per_client) {
		xsnprintf(msg, sizeof(msg),
			  "server busy: %d tests from %s running (at most %u per client); try again in %u s",
			  nlive(sv, key), who, l->max_per_client,
			  retry_secs(sv, key));
		debugf(sv->p->debug, "%s", msg);
		notice(sv, fd, msg);
		return;
	}
	if (!preauth && nlive(sv, NULL) >= SERVER_MAX_CHILDREN) {
		xsnprintf(msg, sizeof(msg),
			  "server busy: %d tests running (the most it runs at once); try again in %u s",
			  SERVER_MAX_CHILDREN, retry_secs(sv, NULL));
		debugf(sv->p->debug, "%s", msg);
		notice(sv, fd, msg);
		return;
	}
	if (preauth && !preauth_room(sv, key, who, msg, sizeof(msg))) {
		debugf(sv->p->debug, "%s", msg);
		notice(sv, fd, msg);
		return;
	}
	for (int i = 0; i < NSLOT && me < 0; i++)
		if (!sv->slot[i].pid)
			me = i;
	if (me < 0) { /* only while killed children are not yet reaped */
		notice(sv, fd, "server busy: try again in 1 s");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		e = errno;
		if (out_of_resources(e))
			accept_pause(sv, e);
		else
			fprintf(stderr, "qperf: socketpair failed: %s\n",
				strerror(e));
		notice(sv, fd, "server busy: out of resources to start a test; try again later");
		return;
	}
	__atomic_store_n(cell(sv, me), 0, __ATOMIC_RELAXED);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(sp[0]);
		child_setup(sv, me, sp[1], fd);
		if (getppid() != ppid)
			_exit(1); /* the server died before PDEATHSIG was set */
		_exit(serve(fd, sv->p));
	}
	close(sp[1]);
	if (pid < 0) {
		e = errno;
		if (out_of_resources(e))
			accept_pause(sv, e);
		else
			fprintf(stderr, "qperf: fork failed: %s\n", strerror(e));
		close(sp[0]);
		notice(sv, fd, "server busy: cannot start a test now; try again later");
		return;
	}
	accept_ok(sv);
	pfd = sp[0];
	fcntl(pfd, F_SETFL, fcntl(pfd, F_GETFL) | O_NONBLOCK);
	memset(&sv->slot[me], 0, sizeof(sv->slot[me]));
	sv->slot[me].pid = pid;
	sv->slot[me].chan = pfd;
	sv->slot[me].ctl = fd;
	sv->slot[me].counted = !preauth;
	memcpy(sv->slot[me].key, key, 16);
	xsnprintf(sv->slot[me].who, sizeof(sv->slot[me].who), "%s", who);
	sv->slot[me].start = now_ns();
}

static void accept_some(struct superv *sv,
			int (*serve)(int, const struct plan *))
{
	for (int n = 0; n < 16; n++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd = accept4(sv->lfd, (struct sockaddr *)&ss, &len,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			int e = errno;

			if (e == EAGAIN || e == EWOULDBLOCK)
				return;
			/* That connection's trouble (accept(2)): the next. */
			if (e == EINTR || e == ECONNABORTED || e == EPROTO ||
			    e == ENETDOWN || e == ENETUNREACH ||
			    e == EHOSTUNREACH || e == EHOSTDOWN ||
			    e == ENONET || e == ENOPROTOOPT || e == EOPNOTSUPP)
				continue;
			/* EMFILE, ENFILE, ENOBUFS, ENOMEM, or worse. */
			accept_pause(sv, e);
			return;
		}
		start_child(sv, fd, (struct sockaddr *)&ss, serve);
		if (now_ns() < sv->accept_at)
			return;
	}
}

static void stop_accepting(struct superv *sv)
{
	if (sv->lfd >= 0)
		close(sv->lfd);
	sv->lfd = -1;
}

int superv_run(const struct plan *p, int lfd,
	       int (*serve)(int fd, const struct plan *p))
{
	struct superv *sv = xcalloc(1, sizeof(*sv));
	struct sigaction sa;
	struct pollfd pfd[1 + NSLOT + DRAIN_MAX];

	sv->p = p;
	sv->lfd = lfd;
	sv->budget = p->lim.max_memory ? p->lim.max_memory
				       : superv_default_budget();
	for (int i = 0; i < NSLOT; i++)
		sv->slot[i].chan = sv->slot[i].ctl = -1;
	for (int i = 0; i < DRAIN_MAX; i++)
		sv->drain[i].fd = -1;
	sv->cells = mmap(NULL, (size_t)NSLOT * CELL,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);
	if (sv->cells == MAP_FAILED) {
		fprintf(stderr, "qperf: mmap failed: %s\n", strerror(errno));
		free(sv);
		return 1;
	}
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	debugf(p->debug, "memory budget %" PRIu64 " bytes", sv->budget);

	for (;;) {
		int n = 0, nslot[NSLOT], ndrain[DRAIN_MAX], lidx = -1;
		uint64_t now;

		if (stop_signal && !sv->stopping) {
			debugf(p->debug, "signal %d: stopping", (int)stop_signal);
			sv->stopping = true;
			sv->stop_at = now_ns() + STOP_GRACE;
		}
		if (sv->stopping)
			stop_accepting(sv);
		reap(sv);
		if (sv->stopping && nchildren(sv) == 0)
			break;
		/* Resting after EMFILE and the like: see accept_pause(). */
		if (sv->lfd >= 0 && now_ns() >= sv->accept_at) {
			lidx = n;
			pfd[n++] = (struct pollfd){ sv->lfd, POLLIN, 0 };
		}
		for (int i = 0; i < NSLOT; i++) {
			nslot[i] = -1;
			if (sv->slot[i].pid && sv->slot[i].chan >= 0) {
				nslot[i] = n;
				pfd[n++] = (struct pollfd){ sv->slot[i].chan,
							    POLLIN, 0 };
			}
		}
		for (int i = 0; i < DRAIN_MAX; i++) {
			ndrain[i] = -1;
			if (sv->drain[i].fd >= 0) {
				ndrain[i] = n;
				pfd[n++] = (struct pollfd){ sv->drain[i].fd,
							    POLLIN, 0 };
			}
		}
		/*
		 * Idle, nothing to watch: wake once a second only (a stop
		 * signal that lands just before poll() waits that long).
		 */
		if (poll(pfd, (nfds_t)n,
			 nchildren(sv) || n > 1 || lidx < 0 || sv->stopping
				 ? TICK_MS
				 : IDLE_MS) < 0 &&
		    errno != EINTR)
			fprintf(stderr, "qperf: poll failed: %s\n",
				strerror(errno));
		now = now_ns();
		for (int i = 0; i < NSLOT; i++)
			if (nslot[i] >= 0 && pfd[nslot[i]].revents)
				chan_read(sv, &sv->slot[i]);
		for (int i = 0; i < DRAIN_MAX; i++)
			if (ndrain[i] >= 0 &&
			    (pfd[ndrain[i]].revents || now >= sv->drain[i].deadline))
				drain_step(&sv->drain[i], now);
		if (lidx >= 0 && sv->lfd >= 0 && !sv->stopping &&
		    (pfd[lidx].revents & POLLIN))
			accept_some(sv, serve);
		watchdog(sv, now);
	}
	/* Let the last error notices out: each ends within DRAIN_TIME. */
	for (bool left = true; left;) {
		left = false;
		for (int i = 0; i < DRAIN_MAX; i++) {
			drain_step(&sv->drain[i], now_ns());
			left |= sv->drain[i].fd >= 0;
		}
		if (left)
			sleep_ns(TICK_MS * 1000000ULL / 4);
	}
	munmap(sv->cells, (size_t)NSLOT * CELL);
	free(sv);
	return 0;
}
