// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster mode, the part every rank runs (see cluster.h): find rank and
 * size, start this rank's server, connect to rank 0 and serve its RUN
 * messages as a client.  Rank 0 also listens for the joins and runs the
 * coordinator in its main process; its own worker is a forked child that
 * joins like every other rank.
 *
 * Ports: the rank's server listens on -lp plus the local rank when -lp
 * is given (for sites whose firewalls open a port range), else on a port
 * the kernel chooses; either way the port travels in JOIN, so ranks that
 * share a host never collide.
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "cluster.h"
#include "cluster_coord.h"
#include "flow.h"
#include "core/auth.h"
#include "core/ctl.h"
#include "job_secret.h"
#include "core/engine.h"
#include "core/measure.h"
#include "core/pathrun.h"
#include "output/plot.h"
#include "pmix_boot.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/sched.h"
#include "lib/sockcall.h"

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* Port of a bound socket, 0 if unknown. */
static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Connect to rank 0, retrying until the join window closes. */
static int rv_connect(const char *host, uint16_t port, uint64_t window,
		      char *err, size_t errlen)
{
	uint64_t deadline = now_ns() + window;
	char ps[8];
	int last = ECONNREFUSED;

	xsnprintf(ps, sizeof(ps), "%u", port);
	while (now_ns() < deadline) {
		struct addrinfo hints, *res = NULL;
		int e;

		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_NUMERICSERV;
		e = getaddrinfo(host, ps, &hints, &res);
		if (e)
			return seterr(err, errlen,
				      "--rendezvous: \"%.100s\": %s", host,
				      gai_strerror(e));
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family,
					ai->ai_socktype | SOCK_CLOEXEC,
					ai->ai_protocol);
			uint64_t now = now_ns();

			if (fd < 0)
				continue;
			if (now < deadline &&
			    connect_bounded(fd, ai->ai_addr, ai->ai_addrlen,
					    deadline - now) == 0) {
				freeaddrinfo(res);
				ctl_nodelay(fd); /* messages go whole */
				return fd;
			}
			last = errno;
			close(fd);
		}
		freeaddrinfo(res);
		sleep_ns(100 * 1000000ULL);
	}
	return seterr(err, errlen,
		      "cannot reach rank 0 at %.100s port %u within %llu s: %s",
		      host, port, (unsigned long long)(window / NS_PER_SEC),
		      strerror(last));
}

int cluster_pick_id(const char *list, uint32_t local, char *out,
		    size_t len)
{
	size_t count = 1, n;
	const char *p = list, *end;

	for (const char *q = list; *q; q++)
		count += *q == ',';
	for (size_t k = local % count; k; k--)
		p = strchr(p, ',') + 1;
	end = strchr(p, ',');
	n = end ? (size_t)(end - p) : strlen(p);
	if ((count > 1 && n == 0) || n >= len)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/*
 * This rank's host checks for its JOIN (rank 0 reports them, each under
 * its rank): as a preflight of the plan's first data test on this host
 * (core/pathrun.h), with this rank's -i entry and -ca.
 */
static void rank_findings(const struct plan *p, const struct rank_info *ri,
			  struct cmsg_join *j)
{
	struct path_finding f[CMSG_FIND_MAX];
	struct path_pre pre = { .on = true };
	const struct plan_item *it = NULL;

	for (size_t i = 0; i < p->ntests && !it; i++)
		if (p->tests[i].test->kind == TK_DATA)
			it = &p->tests[i];
	if (!it)
		return;
	pre.rdma = it->test->tp && (it->test->tp->flags & TF_RDMA);
	if (cluster_pick_id(it->s.par.str[SIDE_LOC][par_str_index(PAR_ID)],
			    ri->local_rank, pre.dev, sizeof(pre.dev)) < 0)
		pre.dev[0] = '\0';
	pre.dev[strcspn(pre.dev, ":")] = '\0';
	pre.affinity = (uint32_t)it->s.par.val[SIDE_LOC][PAR_AFFINITY];
	pre.numa_set = it->s.par.set[SIDE_LOC][PAR_NUMA_NODE];
	j->nfind = pathrun_host_check(&pre, f, CMSG_FIND_MAX);
	for (uint32_t i = 0; i < j->nfind; i++) {
		xsnprintf(j->find[i].check, sizeof(j->find[i].check), "%s",
			  f[i].check);
		xsnprintf(j->find[i].text, sizeof(j->find[i].text), "%s",
			  f[i].text);
	}
}

/* This rank as a client: JOIN, then RUN until DONE. */
static int worker(const struct plan *p, const struct rank_info *ri,
		  const char *rvhost, uint16_t rvport, uint16_t srvport)
{
	struct cmsg m;
	struct cchan ch = { .key = p->secret };
	char err[CMSG_ERR_MAX];
	int fd = rv_connect(rvhost, rvport, p->cluster.join_window, err,
			    sizeof(err));

	/* Rank 0's nonce first: the JOIN is sealed with it and ours. */
	if (fd < 0 ||
	    cluster_hello_recv(fd, &ch, CLUSTER_LOSS_NS, err, sizeof(err)) < 0)
		goto fail;
	memset(&m, 0, sizeof(m));
	m.type = CMSG_JOIN;
	m.u.join.rank = ri->rank;
	m.u.join.size = ri->size;
	m.u.join.local_rank = ri->local_rank;
	m.u.join.port = srvport;
	if (gethostname(m.u.join.host, sizeof(m.u.join.host) - 1) < 0)
		xsnprintf(m.u.join.host, sizeof(m.u.join.host), "?");
	rank_findings(p, ri, &m.u.join);
	if (cluster_send(fd, &ch, CLUSTER_LOSS_NS, &m, err, sizeof(err)) < 0)
		goto fail;
	for (;;) {
		struct cmsg r;

		if (cluster_recv(fd, &ch, CLUSTER_LOSS_NS, &m, err,
				 sizeof(err)) < 0)
			goto fail;
		if (m.type == CMSG_DONE)
			break;
		if (m.type == CMSG_CLOCK &&
		    flow_clock(fd, &ch, &m, err, sizeof(err)) < 0)
			goto fail;
		if (m.type != CMSG_RUN)
			continue; /* a ping */
		if (m.u.run.flow & CRUN_SYNC) { /* a group's flows */
			int g = flow_group(p, ri, fd, &ch, &m.u.run, err,
					   sizeof(err));

			if (g < 0)
				goto fail;
			if (g > 0)
				break;
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.type = CMSG_RESULT;
		r.u.result.job = m.u.run.job;
		flow_job(p, ri, &m.u.run, NULL, &r.u.result);
		if (cluster_send(fd, &ch, CLUSTER_LOSS_NS, &r, err,
				 sizeof(err)) < 0)
			goto fail;
	}
	close(fd);
	return 0;
fail:
	fprintf(stderr, "qperf: rank %u: lost rank 0 (%.100s port %u): %s\n",
		ri->rank, rvhost, rvport, err);
	if (fd >= 0)
		close(fd);
	return 1;
}

void cluster_die_with(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
}

/* Stop a child we started: SIGTERM, then wait for it (bounded). */
static int stop_child(pid_t pid, bool term)
{
	uint64_t deadline = now_ns() + 10 * NS_PER_SEC;
	int st = 0;

	if (pid <= 0)
		return 0;
	if (term)
		kill(pid, SIGTERM);
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		if (r < 0 && errno != EINTR)
			return 1;
		if (now_ns() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 1;
		}
		sleep_ns(20 * 1000000ULL);
	}
}

/* Fork this rank's server on its own port; returns its pid or -1. */
static pid_t start_server(const struct plan *p, const struct rank_info *ri,
			  uint16_t *port, char *err, size_t errlen)
{
	struct plan sp = *p;
	int lfd;
	pid_t pid, me;

	sp.mode = RUN_SERVER;
	sp.port_file = NULL;
	sp.listen_port = 0;
	/* The job needs every rank's server to the end: no stranger's quit
	 * may stop one (it is refused, with a line on this rank's stderr). */
	sp.lim.no_quit = true;
	/* incast:K: K clients at once, from one address when the ranks
	 * share a host; each proves the job secret. */
	if (sched_is_group(&p->cluster.pattern) &&
	    sp.lim.max_per_client < SCHED_GROUP_MAX)
		sp.lim.max_per_client = SCHED_GROUP_MAX;
	if (p->cluster.port_base) {
		if (p->cluster.port_base + ri->local_rank > 65535)
			return seterr(err, errlen,
				      "-lp %u plus local rank %u is beyond port 65535",
				      p->cluster.port_base, ri->local_rank);
		sp.listen_port = (uint16_t)(p->cluster.port_base +
					    ri->local_rank);
	}
	lfd = server_listen(&sp, err, errlen);
	if (lfd < 0)
		return -1;
	*port = bound_port(lfd);
	me = getpid();
	pid = fork();
	if (pid < 0) {
		close(lfd);
		return seterr_errno(err, errlen, errno, "fork failed");
	}
	if (pid == 0) {
		cluster_die_with(me);
		_exit(server_serve(&sp, lfd));
	}
	close(lfd);
	return pid;
}

/*
 * Rank 0 keeps a connection to every rank: n descriptors beside its own
 * few.  Raise the soft limit as far as that needs (never above the hard
 * one); if the hard limit is too low, say so before anything starts (its
 * own worker and server included: nobody waits).  0, or 1 printed.
 */
#define NOFILE_SPARE 64

static int rank0_nofile(uint32_t n)
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

/*
 * Rank, size and the rendezvous address (rvhost, rvport) from the
 * environment and --rendezvous; *pmix set if rank 0 is to be found
 * through PMIx instead.  0, or a usage error printed (2).
 */
static int cluster_where(const struct plan *p, struct rank_info *ri,
			 bool *pmix, char *rvhost, size_t hostlen,
			 uint16_t *rvport)
{
	char err[512];
	int rc = rank_from_env(env_get, ri, err, sizeof(err));

	*pmix = rc == 0 && !p->cluster.rendezvous &&
		pmix_env_present(env_get);
	if (rc == 1)
		xsnprintf(err, sizeof(err),
			  "--cluster needs a rank: run it under mpirun or srun, or set QPERF_RANK and QPERF_SIZE");
	else if (rc == 0 && !ri->size_known && !*pmix)
		xsnprintf(err, sizeof(err),
			  "PMIX_RANK is set but not the number of ranks; set QPERF_SIZE or leave out --rendezvous (PMIx then tells it)");
	else if (rc == 0 && !p->cluster.rendezvous && !*pmix)
		xsnprintf(err, sizeof(err),
			  "--cluster needs --rendezvous HOST:PORT (rank 0 listens there), or a launcher with PMIx (mpirun, srun --mpi=pmix)");
	else if (rc == 0 && !*pmix)
		rc = parse_rendezvous(p->cluster.rendezvous,
				      CLUSTER_DEFAULT_PORT, rvhost, hostlen,
				      rvport, err, sizeof(err));
	else if (rc == 0)
		*rvport = 0; /* rank 0 listens where the kernel chooses */
	if (rc != 0 || (!ri->size_known && !*pmix) ||
	    (!p->cluster.rendezvous && !*pmix)) {
		fprintf(stderr, "qperf: %s\n", err);
		return 2;
	}
	return 0;
}

/*
 * Without --rendezvous: rank 0 publishes its host name and the port of
 * lfd through PMIx, the others learn them.  0, or 1 printed.
 */
static int cluster_pmix(const struct plan *p, struct rank_info *ri,
			int lfd, char *rvhost, size_t hostlen,
			uint16_t *rvport)
{
	char rv[CMSG_HOST_MAX + 16], host[CMSG_HOST_MAX], err[512];
	int timeout_s = (int)(p->cluster.join_window / NS_PER_SEC);

	if (ri->rank == 0) {
		if (gethostname(host, sizeof(host) - 1) < 0)
			xsnprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		if (rendezvous_format(host, bound_port(lfd), rv, sizeof(rv)) <
		    0) {
			fprintf(stderr,
				"qperf: rank 0: host name %.100s is too long; pass --rendezvous HOST:PORT\n",
				host);
			return 1;
		}
	}
	if (pmix_boot(NULL, ri, rv, sizeof(rv), timeout_s, err,
		      sizeof(err)) < 0 ||
	    parse_rendezvous(rv, CLUSTER_DEFAULT_PORT, rvhost, hostlen, rvport,
			     err, sizeof(err)) < 0) {
		fprintf(stderr, "qperf: rank %u: %s; pass --rendezvous HOST:PORT\n",
			ri->rank, err);
		return 1;
	}
	return 0;
}

/*
 * The job secret into jp->secret (docs/cluster.md, "Trust"): it seals
 * every cluster message, and this rank's server requires it of every
 * client, as the rank's client pairs give it.  0, or printed: 2 for none
 * at all (a usage error), 1 for an unusable one.
 */
static int cluster_secret(struct plan *jp, const struct rank_info *ri)
{
	char err[512];
	const char *from;
	int rc = job_secret(jp->secret_file, env_get, &jp->secret, &from, err,
			    sizeof(err));

	if (rc == 0) {
		uint8_t mac[AUTH_MAC];

		/* libcrypto's first HMAC loads its provider (milliseconds of
		 * CPU): once here, not in every child the server forks. */
		auth_mac(jp->secret, "warm-up", NULL, 0, NULL, 0, NULL, 0,
			 NULL, 0, mac);
		return 0;
	}
	if (rc > 0)
		fprintf(stderr, "qperf: %s\n", err);
	else
		fprintf(stderr, "qperf: rank %u: %s\n", ri->rank, err);
	return rc > 0 ? 2 : 1;
}

/* Does the pattern fit the job's ranks (incast:K, fanout:K: K below
 * them)?  0, or a usage error printed (2). */
static int cluster_fits(const struct plan *p, const struct rank_info *ri)
{
	char err[256];

	if (sched_check_size(&p->cluster.pattern, ri->size, err,
			     sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "qperf: %s\n", err);
	return 2;
}

/* This rank's run, the rendezvous found and the job secret in p. */
static int cluster_run(const struct plan *p, struct rank_info ri, bool pmix,
		       char *rvhost, uint16_t rvport)
{
	char err[512];
	uint16_t srvport = 0;
	int rc, lfd = -1;
	pid_t srv, wrk = -1, me;
	FILE *plot = NULL;

	/* Before anything starts: an unwritable --plot path fails at once. */
	if (ri.rank == 0 && p->plot_file) {
		plot = plot_fopen(p->plot_file, err, sizeof(err));
		if (!plot) {
			fprintf(stderr, "qperf: rank 0: %s\n", err);
			return 1;
		}
	}
	if (ri.rank == 0) {
		struct plan lp = *p;

		lp.listen_port = rvport;
		lp.lim.listen_host = NULL;
		lfd = server_listen(&lp, err, sizeof(err));
		if (lfd < 0) {
			fprintf(stderr, "qperf: rank 0: %s: %s\n",
				pmix ? "rendezvous port" : "--rendezvous", err);
			if (plot)
				fclose(plot);
			return 1;
		}
	}
	if (pmix && cluster_pmix(p, &ri, lfd, rvhost, CMSG_HOST_MAX,
				 &rvport)) {
		if (lfd >= 0)
			close(lfd);
		return 1;
	}
	if (pmix && cluster_fits(p, &ri)) { /* the size came from PMIx */
		if (lfd >= 0)
			close(lfd);
		if (plot)
			fclose(plot);
		return 2;
	}
	srv = start_server(p, &ri, &srvport, err, sizeof(err));
	if (srv < 0) {
		fprintf(stderr, "qperf: rank %u: %s\n", ri.rank, err);
		if (lfd >= 0)
			close(lfd);
		if (plot)
			fclose(plot);
		return 1;
	}
	if (ri.rank != 0) {
		rc = worker(p, &ri, rvhost, rvport, srvport);
		stop_child(srv, true);
		return rc;
	}
	fflush(stdout);
	me = getpid();
	wrk = fork();
	if (wrk == 0) {
		cluster_die_with(me);
		close(lfd);
		_exit(worker(p, &ri, rvhost, rvport, srvport));
	}
	if (wrk < 0) {
		fprintf(stderr, "qperf: rank 0: fork failed: %s\n",
			strerror(errno));
		close(lfd);
		if (plot)
			fclose(plot);
		stop_child(srv, true);
		return 1;
	}
	rc = cluster_coord(p, &ri, lfd, plot);
	close(lfd);
	if (stop_child(wrk, false) && !rc)
		rc = 1;
	stop_child(srv, true);
	return rc;
}

int cluster_main(const struct plan *p)
{
	struct plan jp = *p;
	struct rank_info ri;
	char rvhost[CMSG_HOST_MAX];
	uint16_t rvport = 0;
	bool pmix;
	int rc;

	measure_init();
	rc = cluster_where(p, &ri, &pmix, rvhost, sizeof(rvhost), &rvport);
	if (rc)
		return rc;
	if (ri.size_known && cluster_fits(p, &ri))
		return 2;
	if (ri.rank == 0 && rank0_nofile(ri.size))
		return 1;
	jp.secret = NULL;
	rc = cluster_secret(&jp, &ri);
	if (rc)
		return rc;
	rc = cluster_run(&jp, ri, pmix, rvhost, rvport);
	auth_free(jp.secret);
	return rc;
}
