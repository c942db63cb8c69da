// SPDX-License-Identifier: GPL-2.0-only
/* The two-process harness of xport_test; see xharness.h. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../core/tlv.h"
#include "xharness.h"
#define KIT_IMPLEMENTATION
#define KIT_OWN_CHECK
#include "../kit/check.h"

#define CASE_TIMEOUT_MS 60000

static int passed, failed;
static const char *cur_case = "";
static int cur_role;

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int check_at(const char *file, int line, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s [%s/%d] ", ok ? "ok  " : "FAIL", cur_case, cur_role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf("  (%s:%d)", file, line);
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
	return ok;
}

bool contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own fd */
}

/* ---- exact I/O with a deadline on the socketpair ---- */

static int io_full(int fd, void *p, size_t len, bool wr, uint64_t tmo,
		   const char **why)
{
	size_t done = 0;
	uint64_t end = now_ns() + tmo;

	while (done < len) {
		struct pollfd pf = { fd, wr ? POLLOUT : POLLIN, 0 };
		uint64_t t = now_ns();
		int ms = t >= end ? 0 : (int)((end - t) / MS) + 1;
		ssize_t n;

		if (t >= end) {
			*why = "timed out";
			return -1;
		}
		if (poll(&pf, 1, ms) <= 0)
			continue;
		n = wr ? send(fd, (char *)p + done, len - done, MSG_NOSIGNAL) :
			 recv(fd, (char *)p + done, len - done, 0);
		if (n == 0) {
			*why = "peer closed";
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*why = strerror(errno);
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static int ch_send(struct chan *ch, const void *buf, size_t len,
		   const char *item, char *err, size_t errlen)
{
	struct xside *sd = ch->ctx;
	const char *why = "";

	if (io_full(sd->fd, (void *)buf, len, true, ch->timeout, &why)) {
		snprintf(err, errlen, "failed to send %s: %s", item, why);
		return -1;
	}
	return 0;
}

static int ch_recv(struct chan *ch, void *buf, size_t len, const char *item,
		   char *err, size_t errlen)
{
	struct xside *sd = ch->ctx;
	const char *why = "";

	if (io_full(sd->fd, buf, len, false, ch->timeout, &why)) {
		snprintf(err, errlen, "failed to receive %s: %s", item, why);
		return -1;
	}
	return 0;
}

static int ch_send_ext(struct chan *ch, const uint8_t *blk, size_t len,
		       const char *item, char *err, size_t errlen)
{
	if (len < TLV_HDR || tlv_header(blk) != len) {
		snprintf(err, errlen, "internal error: bad %s block", item);
		return -1;
	}
	return ch_send(ch, blk, len, item, err, errlen);
}

static int ch_recv_ext(struct chan *ch, uint8_t *blk, size_t cap,
		       size_t *len, const char *item, char *err,
		       size_t errlen)
{
	size_t n;

	if (cap < TLV_HDR || ch_recv(ch, blk, TLV_HDR, item, err, errlen))
		return -1;
	n = tlv_header(blk);
	if (!n || n > cap) {
		snprintf(err, errlen, "bad %s from the peer", item);
		return -1;
	}
	if (ch_recv(ch, blk + TLV_HDR, n - TLV_HDR, item, err, errlen))
		return -1;
	*len = n;
	return 0;
}

void chan_mode(struct xside *sd, bool ext, uint32_t caps)
{
	sd->ch.ext = ext;
	sd->ch.peer_caps = ext ? caps : 0;
}

void barrier(struct xside *sd)
{
	char b = 'B';
	const char *why;

	if (io_full(sd->fd, &b, 1, true, 20000 * MS, &why) ||
	    io_full(sd->fd, &b, 1, false, 20000 * MS, &why))
		CHECK(false, "barrier: %s", why);
}

void oob_send(struct xside *sd, const void *p, size_t len)
{
	const char *why;

	if (io_full(sd->fd, (void *)p, len, true, 20000 * MS, &why))
		CHECK(false, "oob send: %s", why);
}

bool oob_recv(struct xside *sd, void *p, size_t len)
{
	const char *why;

	if (io_full(sd->fd, p, len, false, 20000 * MS, &why)) {
		CHECK(false, "oob receive: %s", why);
		return false;
	}
	return true;
}

/* ---- sessions ---- */

void tparams_default(struct tparams *p, uint32_t msg_size)
{
	memset(p, 0, sizeof(*p));
	p->msg_size = msg_size;
	p->mtu_size = 2048;
	p->gid_index = -1;
	p->time = 2000 * MS;
	p->timeout = 5000 * MS;
}

struct test_desc mkdesc(const char *name, enum loop_kind loop, enum op op,
			uint32_t depth, const struct transport *tp)
{
	struct test_desc t;

	memset(&t, 0, sizeof(t));
	t.name = name;
	t.kind = TK_DATA;
	t.loop = loop;
	t.op = op;
	t.depth = depth;
	t.tp = tp;
	return t;
}

int xs_open(struct xside *sd, struct tsess *s, const struct test_desc *t,
	    const struct tparams *p)
{
	memset(s, 0, sizeof(*s));
	s->tp = t->tp;
	s->t = t;
	s->server = sd->role == 1;
	s->p = *p;
	s->ch = &sd->ch;
	s->priv = calloc(1, t->tp->priv_size);
	sd->err[0] = '\0';
	sd->ch.timeout = p->timeout;
	return t->tp->open(s, sd->err, sizeof(sd->err));
}

void xs_close(struct tsess *s)
{
	if (!s->tp)
		return;
	s->tp->close(s);
	s->tp->close(s); /* idempotent */
	free(s->priv);
	s->priv = NULL;
	s->tp = NULL;
}

int collect(struct xside *sd, struct tsess *s, struct tcomp *c, int want,
	    uint64_t timeout)
{
	uint64_t end = now_ns() + timeout;
	int got = 0;

	while (got < want) {
		uint64_t t = now_ns();
		int n;

		if (t >= end)
			break;
		n = s->tp->poll(s, c + got, want - got, end - t, sd->err,
				sizeof(sd->err));
		if (n < 0)
			return -1;
		got += n;
	}
	return got;
}

/* ---- orchestration ---- */

static void set_env(const char *list)
{
	char buf[512], *save, *tok;

	if (!list)
		return;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq) {
			*eq = '\0';
			setenv(tok, eq + 1, 1);
		}
	}
}

static pid_t spawn(const struct xcase *c, int role, int fd, int other,
		   int res_fd, int res_other)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid != 0)
		return pid;
	{
		struct xside sd;
		char fab[96];
		int counts[2];

		if (other >= 0)
			close(other);
		close(res_other);
		cur_role = role;
		passed = failed = 0;
		snprintf(fab, sizeof(fab), "xport-%d-%s", (int)getppid(),
			 c->name);
		if (getenv("XPORT_FABRIC")) /* to meet a server of xport.sh */
			snprintf(fab, sizeof(fab), "%s", getenv("XPORT_FABRIC"));
		setenv("SOFTVERBS_FABRIC", fab, 1);
		setenv("SOFTVERBS_NODE", role ? "2" : "1", 1);
		set_env(role ? c->env1 : c->env0);
		memset(&sd, 0, sizeof(sd));
		sd.role = role;
		sd.fd = fd;
		sd.ch.send = ch_send;
		sd.ch.recv = ch_recv;
		sd.ch.send_ext = ch_send_ext;
		sd.ch.recv_ext = ch_recv_ext;
		sd.ch.watch_fd = -1;
		sd.ch.timeout = 5000 * MS;
		sd.ch.ctx = &sd;
		/* the control connection's local end, for the GID choice */
		sd.ch.local.ss_family = AF_UNSPEC;
		c->fn(&sd);
		counts[0] = passed;
		counts[1] = failed;
		if (write(res_fd, counts, sizeof(counts)) != sizeof(counts))
			counts[1]++;
		fflush(stdout);
		exit(0); /* exit(), not _exit(): LeakSanitizer runs at exit */
	}
}

/* Wait for pid until the deadline; kills it (our own child) after. */
static bool reap(pid_t pid, uint64_t deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0)
			return false;
		if (now_ns() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return false;
		}
		usleep(5000);
	}
}

static void run_case(const struct xcase *c)
{
	int sp[2] = { -1, -1 }, res[2][2];
	pid_t pid[2] = { 0, 0 };
	int roles = c->solo ? 1 : 2;
	uint64_t deadline = now_ns() + CASE_TIMEOUT_MS * MS;

	cur_case = c->name;
	cur_role = 9;
	if (!c->solo && socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
		CHECK(false, "socketpair: %s", strerror(errno));
		return;
	}
	for (int r = 0; r < roles; r++) {
		if (pipe(res[r])) {
			CHECK(false, "pipe: %s", strerror(errno));
			return;
		}
		pid[r] = spawn(c, r, c->solo ? -1 : sp[r],
			       c->solo ? -1 : sp[1 - r], res[r][1], res[r][0]);
		close(res[r][1]);
		if (!c->solo)
			close(sp[r]);
	}
	for (int r = 0; r < roles; r++) {
		int st = 0, counts[2];
		bool done = reap(pid[r], deadline, &st);
		ssize_t n = read(res[r][0], counts, sizeof(counts));

		close(res[r][0]);
		cur_role = r;
		if (n == (ssize_t)sizeof(counts)) {
			passed += counts[0];
			failed += counts[1];
		}
		if (!done)
			CHECK(false, "role %d hung (killed after %d ms)", r,
			      CASE_TIMEOUT_MS);
		else if (n != (ssize_t)sizeof(counts) || !WIFEXITED(st) ||
			 WEXITSTATUS(st) != 0)
			CHECK(false,
			      "role %d ended badly (%s %d; sanitizer report or crash?)",
			      r, WIFSIGNALED(st) ? "signal" : "exit status",
			      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
}

int main(int argc, char **argv)
{
	bool list = argc > 1 && strcmp(argv[1], "-l") == 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	int ran = 0;

	if (list) { /* -l or --list, then patterns */
		argc--;
		argv++;
	} else if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		list = true;
		argc--;
		argv++;
	}
	for (const struct xcase *c = xcases; c->name; c++) {
		bool want = argc < 2;

		for (int i = 1; i < argc && !want; i++)
			want = fnmatch(argv[i], c->name, 0) == 0;
		want = want && kit_env_selected(c->name);
		if (c->only_env && !getenv(c->only_env))
			want = want && list;
		if (!want)
			continue;
		if (list) {
			printf("%s%s\n", c->name,
			       c->only_env ? " (needs the environment)" : "");
			continue;
		}
		run_case(c);
		ran++;
	}
	if (!list) {
		kit_none_note(ran);
		printf("%d passed, %d failed\n", passed, failed);
	}
	return failed ? 1 : 0;
}
