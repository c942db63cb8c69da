// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode's coordinator on rank 0 (see cluster.h): the joins, then
 * the run (cluster_report.c, in rounds: coord_round.c) and the end of
 * every rank.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster_coord.h"
#include "cluster_json.h"
#include "cluster_msg.h"
#include "cluster_report.h"
#include "coord_round.h"
#include "output/json.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/alloc.h"

/* Accept and read JOINs until every rank is in or the window closes. */
static void joins(struct coord *c, int lfd)
{
	uint64_t deadline = now_ns() + c->p->cluster.join_window;
	uint64_t next_ping = now_ns() + CLUSTER_PING_NS;
	uint32_t in = 0;
	bool said_nofile = false;

	while (in < c->n && now_ns() < deadline) {
		struct pollfd pf = { lfd, POLLIN, 0 };
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct cmsg m;
		char err[256];
		uint64_t now = now_ns(), wake = deadline;
		int fd;

		/* Those that joined wait for the rest: keep them sure that
		 * rank 0 is alive (they give up after CLUSTER_LOSS_NS). */
		if (now >= next_ping) {
			coord_ping_all(c);
			next_ping = now + CLUSTER_PING_NS;
		}
		if (next_ping < wake)
			wake = next_ping;
		if (poll(&pf, 1, wake > now ? (int)((wake - now) / 1000000 + 1)
					    : 0) <= 0)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (fd < 0) {
			/* Out of descriptors: say so once, do not spin. */
			if (errno == EMFILE || errno == ENFILE) {
				if (!said_nofile)
					fprintf(stderr,
						"qperf: rank 0: cannot accept a rank's JOIN: %s\n",
						strerror(errno));
				said_nofile = true;
				poll(NULL, 0, 100);
			}
			continue;
		}
		if (cluster_recv(fd, 5 * NS_PER_SEC, &m, err, sizeof(err)) < 0 ||
		    m.type != CMSG_JOIN || m.u.join.size != c->n ||
		    m.u.join.rank >= c->n || c->r[m.u.join.rank].joined) {
			/* A stranger, a rank of another run, or a second JOIN. */
			close(fd);
			continue;
		}
		{
			struct crank *r = &c->r[m.u.join.rank];

			r->fd = fd;
			r->joined = r->alive = true;
			r->port = m.u.join.port;
			r->local = m.u.join.local_rank;
			xsnprintf(r->host, sizeof(r->host), "%s", m.u.join.host);
			if (getnameinfo((struct sockaddr *)&ss, sl, r->addr,
					sizeof(r->addr), NULL, 0,
					NI_NUMERICHOST))
				xsnprintf(r->addr, sizeof(r->addr), "?");
			/* An IPv4 peer of a dual-stack socket: plain IPv4. */
			if (!strncmp(r->addr, "::ffff:", 7) &&
			    strchr(r->addr + 7, '.'))
				memmove(r->addr, r->addr + 7,
					strlen(r->addr + 7) + 1);
			in++;
		}
	}
	for (uint32_t k = 0; k < c->n; k++)
		if (!c->r[k].joined) {
			c->r[k].alive = true; /* so that coord_gone() reports */
			coord_gone(c, k, "never joined");
		}
}

/*
 * Rank 0 keeps a connection to every rank: n descriptors beside its own
 * few.  Raise the soft limit as far as that needs (never above the hard
 * one); if the hard limit is too low, say so before anyone waits.
 * 0, or 1 printed.
 */
#define NOFILE_SPARE 64

static int nofile_for(uint32_t n)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + NOFILE_SPARE;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		fprintf(stderr,
			"qperf: rank 0: %u ranks need %llu open files at rank 0, but its limit is %llu: raise it (ulimit -n, or LimitNOFILE= under systemd)\n",
			n, (unsigned long long)need,
			(unsigned long long)rl.rlim_max);
		return 1;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		fprintf(stderr,
			"qperf: rank 0: cannot raise the open files limit to %llu for %u ranks: %s\n",
			(unsigned long long)need, n, strerror(errno));
		return 1;
	}
	return 0;
}

int cluster_coord(const struct plan *p, const struct rank_info *ri,
		  int lfd, FILE *plot)
{
	struct coord c;
	int rc;

	if (nofile_for(ri->size)) {
		if (plot)
			fclose(plot);
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.n = ri->size;
	c.seed = p->cluster.seed;
	c.text = p->json == JSON_OFF;
	c.plot = plot;
	c.json = json_open(p->json, p->argc, p->argv, NULL);
	c.r = xcalloc(c.n, sizeof(*c.r));
	for (uint32_t k = 0; k < c.n; k++)
		c.r[k].fd = -1;
	joins(&c, lfd);
	rc = coord_run(&c);
	if (!c.text)
		coord_json(&c, rc);
	{
		struct cmsg m;
		char err[256];

		memset(&m, 0, sizeof(m));
		m.type = CMSG_DONE;
		for (uint32_t k = 0; k < c.n; k++)
			if (c.r[k].alive) {
				cluster_send(c.r[k].fd, &m, err, sizeof(err));
				close(c.r[k].fd);
			}
	}
	coord_free(&c);
	free(c.r);
	return rc;
}
