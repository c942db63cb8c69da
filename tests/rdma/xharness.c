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

#include "lib/tlv.h"
#define KIT_IMPLEMENTATION
#include "xharness.h"

#define CASE_TIMEOUT_MS 60000

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

/* ---- exact I/O with a deadline on the socketpair (the kit's) ---- */

/* A chan timeout (ns) in ms for kit_send and kit_recv. */
static unsigned int tmo_ms(uint64_t ns)
{
	uint64_t ms = ns / MS;

	return ms > 86400000u ? 86400000u : (unsigned int)ms;
}

static int ch_send(struct chan *ch, const void *buf, size_t len,
		   const char *item, char *err, size_t errlen)
{
	struct xside *sd = ch->ctx;
	const char *why = "";

	if (kit_send(sd->fd, buf, len, tmo_ms(ch->timeout), &why)) {
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

	if (kit_recv(sd->fd, buf, len, tmo_ms(ch->timeout), &why)) {
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
	const char *why;

	if (kit_barrier(sd->fd, 20000, &why))
		CHECK(false, "barrier: %s", why);
}

void oob_send(struct xside *sd, const void *p, size_t len)
{
	const char *why;

	if (kit_send(sd->fd, p, len, 20000, &why))
		CHECK(false, "oob send: %s", why);
}

bool oob_recv(struct xside *sd, void *p, size_t len)
{
	const char *why;

	if (kit_recv(sd->fd, p, len, 20000, &why)) {
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

/* ---- orchestration (the kit's kit_run_roles) ---- */

/* In role r's forked child: its fabric, node and environment, then the
 * case's function; the kit reports the counts. */
static void role_run(const struct kit_roles *k, int role, int fd, int resfd)
{
	const struct xcase *c = k->arg;
	struct xside sd;
	char fab[96];

	(void)resfd;
	snprintf(fab, sizeof(fab), "xport-%d-%s", (int)getppid(), c->name);
	if (getenv("XPORT_FABRIC")) /* to meet a server of xport.sh */
		snprintf(fab, sizeof(fab), "%s", getenv("XPORT_FABRIC"));
	setenv("SOFTVERBS_FABRIC", fab, 1);
	setenv("SOFTVERBS_NODE", role ? "2" : "1", 1);
	kit_env_apply(role ? c->env1 : c->env0);
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
}

static void run_case(const struct xcase *c)
{
	struct kit_roles k = {
		.name = c->name,
		.roles = c->solo ? 1 : 2,
		.timeout_ms = CASE_TIMEOUT_MS,
		.tags = { "0", "1" },
		.child = role_run,
		.arg = c,
	};

	kit_run_roles(&k);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	kit.glob = 1; /* shell patterns, as xport.sh's */
	if (kit_args(argc, argv, 1) < 0)
		return 2;
	for (const struct xcase *c = xcases; c->name; c++) {
		bool want = kit_selected(c->name);

		if (c->only_env && !getenv(c->only_env))
			want = want && kit.list;
		if (!want)
			continue;
		if (kit.list) {
			printf("%s%s\n", c->name,
			       c->only_env ? " (needs the environment)" : "");
			continue;
		}
		run_case(c);
	}
	return kit_done();
}
