// SPDX-License-Identifier: MIT
/*
 * Transport and progress: QP sockets (abstract AF_UNIX datagram names
 * "softverbs/<fabric>/<node>/<qpn>"), the per-context progress thread
 * (epoll; sleeps when idle), inline progress from CQ polling, the
 * non-blocking responder path with its FIFO backlog, and fork handling.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sv_internal.h"

#define SV_BACKLOG_RETRY_NS 100000ull	/* 100 us */
#define SV_SNDBUF (2 * 1024 * 1024)	/* bytes */
#define SV_SEND_SPIN_NS 500000ull	/* yield-retry a full queue this long, */
#define SV_SEND_NAP_MIN_NS 20000ull	/* then sleep this long, doubling */
#define SV_SEND_NAP_MAX_NS 250000ull	/* up to this */
#define SV_POLLER_GRACE_NS 30000	/* app polled this recently: it drains */
#define SV_NAP_MIN_NS 20000		/* the thread then stays away this long, */
#define SV_NAP_MAX_NS 1000000		/* doubling while the app keeps polling */

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sv_context *registry;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* ---- addresses and sockets ------------------------------------------------------- */

void sv_addr_of(struct sockaddr_un *a, socklen_t *len, uint32_t node,
		uint32_t qpn)
{
	sv_abstract_addr(a, len, "softverbs/%s/%u/%u", sv_cfg.fabric, node, qpn);
}

/*
 * Each QP takes a descriptor: a program that makes thousands of QPs
 * meets its soft RLIMIT_NOFILE long before a device's max_qp.  Raise the
 * soft limit to the hard one (as any process may) when it is reached.
 * True if it was raised.
 */
static bool nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return false;
	SV_DBG("RLIMIT_NOFILE %llu reached: raised to the hard limit %llu",
	       (unsigned long long)rl.rlim_cur,
	       (unsigned long long)rl.rlim_max);
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

int sv_qp_socket(struct sv_context *ctx, uint32_t *qpn)
{
	static uint32_t next;
	int fd, sz = SV_SNDBUF, tries;

	(void)ctx;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && errno == EMFILE && nofile_raise())
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (!__atomic_load_n(&next, __ATOMIC_RELAXED))
		__atomic_store_n(&next,
				 ((uint32_t)getpid() * 2654435761u ^
				  (uint32_t)sv_now_ns()) & 0xffffff,
				 __ATOMIC_RELAXED);
	for (tries = 0; tries < 1 << 20; tries++) {
		struct sockaddr_un a;
		socklen_t len;
		uint32_t n = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) &
			     0xffffff;

		if (n < 16 || n == 0xffffff)
			continue;
		sv_addr_of(&a, &len, sv_cfg.node, n);
		if (bind(fd, (struct sockaddr *)&a, len) == 0) {
			*qpn = n;
			return fd;
		}
		if (errno != EADDRINUSE)
			break;
	}
	close(fd);
	return -1;
}

/*
 * A full receive queue would put us to sleep in the kernel, and the
 * receiver's wake-up is a "sync" one that can leave us waiting for its CPU
 * for a whole scheduler tick while it busy-polls.  So retry without
 * blocking: yield the CPU for a few microseconds, then sleep with a growing
 * timeout (20 us up to 250 us), which neither spins nor depends on that
 * wake-up.
 */
int sv_sendv_blocking(struct sv_context *ctx, int fd, uint32_t node,
		      uint32_t qpn, struct iovec *iov, int iovcnt)
{
	struct sockaddr_un a;
	struct msghdr m;
	uint64_t spin_until = 0, nap = SV_SEND_NAP_MIN_NS;

	sv_addr_of(&a, &m.msg_namelen, node, qpn);
	m.msg_name = &a;
	m.msg_iov = iov;
	m.msg_iovlen = (size_t)iovcnt;
	m.msg_control = NULL;
	m.msg_controllen = 0;
	m.msg_flags = 0;
	for (;;) {
		struct timespec ts;

		if (sendmsg(fd, &m, MSG_DONTWAIT) >= 0) {
			if (spin_until)	/* waited for credits since then */
				sv_cnt_add(SV_C_XMIT_WAIT,
					   (sv_now_ns() - spin_until +
					    SV_SEND_SPIN_NS) / 1000);
			return 0;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != ENOBUFS && errno != ENOMEM)
			return -errno;
		if (!spin_until) {
			spin_until = sv_now_ns() + SV_SEND_SPIN_NS;
			/* we will not poll for a while: hand over */
			if (ctx)
				sv_app_sleeps(ctx);
		}
		if (sv_now_ns() < spin_until) {
			sched_yield();
			continue;
		}
		ts.tv_sec = 0;
		ts.tv_nsec = (long)nap;
		nanosleep(&ts, NULL);
		if (nap < SV_SEND_NAP_MAX_NS)
			nap *= 2;
	}
}

/* ---- responder output ------------------------------------------------------------- */

static int try_send(struct sv_context *ctx, const struct sockaddr_un *a,
		    socklen_t alen, const struct sv_pkt *pkt, const void *data,
		    size_t len)
{
	struct iovec iov[2] = {
		{ (void *)pkt, sizeof(*pkt) },
		{ (void *)data, len },
	};
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_name = (void *)a;
	m.msg_namelen = alen;
	m.msg_iov = iov;
	m.msg_iovlen = len ? 2 : 1;
	for (;;) {
		if (sendmsg(ctx->resp_fd, &m, MSG_DONTWAIT) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == ENOBUFS || errno == ENOMEM)
			return 1;	/* try again later */
		return -1;		/* peer gone: drop */
	}
}

/* send what the backlog holds, in order, until the first would-block */
static void backlog_push_out(struct sv_context *ctx)
{
	while (ctx->bl_head) {
		struct sv_backlog *b = ctx->bl_head;

		if (try_send(ctx, &b->addr, b->alen, &b->pkt, b + 1, b->len) > 0)
			return;
		ctx->bl_head = b->next;
		if (!ctx->bl_head)
			ctx->bl_tail = NULL;
		free(b);
	}
}

void sv_respond(struct sv_context *ctx, const struct sv_qp *qp,
		uint32_t node, uint32_t qpn, struct sv_pkt *pkt,
		const void *data, size_t len)
{
	struct sockaddr_un a;
	socklen_t alen;
	struct sv_backlog *b;
	bool was_empty;

	/* responses travel along the responder's own address vector */
	if (qp && qp->qpx.qp_base.qp_type != IBV_QPT_UD)
		sv_gid_stamp(pkt, &qp->attr.ah_attr);
	pkt->magic = SV_PKT_MAGIC;
	pkt->src_node = sv_cfg.node;
	pkt->dst_qpn = qpn;
	pkt->chunk = (uint32_t)len;
	sv_cnt_wire(true, pkt, sv_qp_mtu(qp));
	sv_addr_of(&a, &alen, node, qpn);
	if (!ctx->bl_head && try_send(ctx, &a, alen, pkt, data, len) <= 0)
		return;
	b = malloc(sizeof(*b) + len);
	if (!b)
		return;		/* like a lost packet: the requester times out */
	b->next = NULL;
	b->addr = a;
	b->alen = alen;
	b->len = len;
	b->pkt = *pkt;
	if (len)
		memcpy(b + 1, data, len);
	was_empty = !ctx->bl_head;
	if (ctx->bl_tail)
		ctx->bl_tail->next = b;
	else
		ctx->bl_head = b;
	ctx->bl_tail = b;
	if (was_empty)
		sv_wake(ctx);
}

void sv_flush_backlog(struct sv_context *ctx, int wait_ms)
{
	uint64_t end = sv_now_ns() + (uint64_t)wait_ms * 1000000ull;

	for (;;) {
		bool empty;

		pthread_mutex_lock(&ctx->mu);
		backlog_push_out(ctx);
		empty = !ctx->bl_head;
		pthread_mutex_unlock(&ctx->mu);
		if (empty || sv_now_ns() >= end)
			return;
		usleep(100);
	}
}

/* ACKs are coalesced: one per QP after each batch of packets */
static void emit_acks(struct sv_context *ctx)
{
	struct sv_list *l;

	for (l = ctx->qps.next; l != &ctx->qps; l = l->next)
		sv_emit_ack(sv_container(l, struct sv_qp, link));
}

/* ---- progress ------------------------------------------------------------------------ */

void sv_wake(struct sv_context *ctx)
{
	uint64_t one = 1;
	ssize_t n = write(ctx->wake_fd, &one, sizeof(one));

	(void)n;
}

/* Process what arrived on QP qpn's socket: the QP, or NULL. */
static struct sv_qp *drain_fd(struct sv_context *ctx, uint32_t qpn)
{
	struct sv_qp *qp;
	int i;

	pthread_mutex_lock(&ctx->mu);
	qp = sv_qp_find(ctx, qpn);
	pthread_mutex_unlock(&ctx->mu);
	if (!qp)
		return NULL;
	/* rx_lock is held, so qp cannot be destroyed meanwhile */
	for (i = 0; i < 256; i++) {
		ssize_t n = recv(qp->fd, ctx->rxbuf, SV_PKT_MAX, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		pthread_mutex_lock(&ctx->mu);
		sv_handle_packet(ctx, qp, (struct sv_pkt *)ctx->rxbuf,
				 (size_t)n);
		pthread_mutex_unlock(&ctx->mu);
	}
	return qp;
}

/*
 * A batch of sockets, then one coalesced ACK for each QP of the batch (a
 * request sets ack_pending only on the QP it arrived at; rx_lock keeps
 * them alive meanwhile).
 */
static void process_events(struct sv_context *ctx, struct epoll_event *ev,
			   int n)
{
	struct sv_qp *qp[64];
	int i, k = 0;

	for (i = 0; i < n; i++) {
		struct sv_qp *q = drain_fd(ctx, (uint32_t)ev[i].data.u64);

		if (q && k < 64)
			qp[k++] = q;
	}
	pthread_mutex_lock(&ctx->mu);
	for (i = 0; i < k; i++)
		sv_emit_ack(qp[i]);
	backlog_push_out(ctx);
	pthread_mutex_unlock(&ctx->mu);
}

void sv_timers_changed(struct sv_context *ctx)
{
	__atomic_store_n(&ctx->timers_dirty, true, __ATOMIC_RELEASE);
}

void sv_timer_armed(struct sv_context *ctx, uint64_t when)
{
	/* a deadline after the earliest known one is found by the walk at
	 * that one: thousands of QPs arming theirs need no walk each */
	if (when < __atomic_load_n(&ctx->timer_next, __ATOMIC_RELAXED))
		sv_timers_changed(ctx);
	if (when < __atomic_load_n(&ctx->thread_wake_at, __ATOMIC_RELAXED))
		sv_wake(ctx);
}

void sv_app_sleeps(struct sv_context *ctx)
{
	__atomic_store_n(&ctx->inline_poll_ns, 0, __ATOMIC_RELAXED);
	if (__atomic_load_n(&ctx->thread_napping, __ATOMIC_RELAXED))
		sv_wake(ctx);
}

void sv_progress(struct sv_context *ctx, bool blocking)
{
	struct epoll_event ev[64];
	int n;

	if (blocking) {
		pthread_mutex_lock(&ctx->rx_lock);
	} else {
		__atomic_store_n(&ctx->inline_poll_ns, sv_now_ns(),
				 __ATOMIC_RELAXED);
		if (pthread_mutex_trylock(&ctx->rx_lock))
			return;
	}
	n = epoll_wait(ctx->epfd, ev, 64, 0);
	if (n > 0)
		process_events(ctx, ev, n);
	pthread_mutex_unlock(&ctx->rx_lock);
}

static bool app_is_polling(struct sv_context *ctx, uint64_t now)
{
	return now - __atomic_load_n(&ctx->inline_poll_ns, __ATOMIC_RELAXED) <
	       SV_POLLER_GRACE_NS;
}

/*
 * The progress thread sleeps in poll() on the epoll fd (QP sockets) and on
 * the wake eventfd.  While an application thread busy-polls a CQ it drains
 * the sockets itself, so the thread then waits on the eventfd only: being
 * woken for every packet, or preempted while holding rx_lock, would stall
 * the polling thread on small machines.
 */
static void *progress_thread(void *arg)
{
	struct sv_context *ctx = arg;
	struct epoll_event ev[64];
	uint64_t nap = SV_NAP_MIN_NS;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!ctx->stopping) {
		struct pollfd pfd[2];
		uint64_t next, now;
		struct timespec ts, *tsp = NULL;
		int n, npfd;

		/* timers need ctx->mu only: rx_lock stays free for pollers */
		pthread_mutex_lock(&ctx->mu);
		next = sv_run_timers(ctx);
		backlog_push_out(ctx);
		if (ctx->bl_head && next > SV_BACKLOG_RETRY_NS)
			next = SV_BACKLOG_RETRY_NS;
		now = sv_now_ns();
		pfd[0].fd = ctx->wake_fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = ctx->epfd;
		pfd[1].events = POLLIN;
		npfd = 2;
		if (app_is_polling(ctx, now)) {
			npfd = 1;
			if (next > nap)
				next = nap;
			nap = nap * 2 < SV_NAP_MAX_NS ? nap * 2 : SV_NAP_MAX_NS;
			__atomic_store_n(&ctx->thread_napping, true,
					 __ATOMIC_RELAXED);
		} else {
			nap = SV_NAP_MIN_NS;
		}
		if (next != UINT64_MAX) {
			ts.tv_sec = (time_t)(next / 1000000000ull);
			ts.tv_nsec = (long)(next % 1000000000ull);
			tsp = &ts;
		}
		/*
		 * Timers are armed under ctx->mu: one armed after this point and
		 * earlier than our wake-up writes the eventfd (sv_timer_armed).
		 */
		__atomic_store_n(&ctx->thread_wake_at,
				 next == UINT64_MAX ? UINT64_MAX : now + next,
				 __ATOMIC_RELAXED);
		pthread_mutex_unlock(&ctx->mu);
		n = ppoll(pfd, (nfds_t)npfd, tsp, NULL);
		__atomic_store_n(&ctx->thread_wake_at, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&ctx->thread_napping, false, __ATOMIC_RELAXED);
		if (n <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			uint64_t v;
			ssize_t r = read(ctx->wake_fd, &v, sizeof(v));

			(void)r;
		}
		if (npfd < 2 || !(pfd[1].revents & POLLIN) ||
		    app_is_polling(ctx, sv_now_ns()))
			continue;
		pthread_mutex_lock(&ctx->rx_lock);
		n = epoll_wait(ctx->epfd, ev, 64, 0);
		if (n > 0)
			process_events(ctx, ev, n);
		pthread_mutex_unlock(&ctx->rx_lock);
	}
	return NULL;
}

static void atfork_child(void);

static void atfork_setup(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

int sv_engine_start(struct sv_context *ctx)
{
	int sz = SV_SNDBUF;

	pthread_once(&atfork_once, atfork_setup);
	ctx->rxbuf = malloc(SV_PKT_MAX);
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	ctx->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ctx->resp_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!ctx->rxbuf || ctx->epfd < 0 || ctx->wake_fd < 0 ||
	    ctx->resp_fd < 0)
		goto err;
	setsockopt(ctx->resp_fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (pthread_create(&ctx->thread, NULL, progress_thread, ctx))
		goto err;
	ctx->thread_started = true;
	return 0;
err:
	sv_engine_stop(ctx);
	return -1;
}

void sv_engine_stop(struct sv_context *ctx)
{
	if (ctx->thread_started) {
		ctx->stopping = true;
		sv_wake(ctx);
		pthread_join(ctx->thread, NULL);
		ctx->thread_started = false;
	}
	while (ctx->bl_head) {
		struct sv_backlog *b = ctx->bl_head;

		ctx->bl_head = b->next;
		free(b);
	}
	ctx->bl_tail = NULL;
	if (ctx->epfd >= 0)
		close(ctx->epfd);
	if (ctx->wake_fd >= 0)
		close(ctx->wake_fd);
	if (ctx->resp_fd >= 0)
		close(ctx->resp_fd);
	ctx->epfd = ctx->wake_fd = ctx->resp_fd = -1;
	free(ctx->rxbuf);
	ctx->rxbuf = NULL;
}

/* ---- registry: fork and exit ---------------------------------------------------------- */

void sv_registry_add(struct sv_context *ctx)
{
	pthread_mutex_lock(&registry_mu);
	ctx->next_ctx = registry;
	registry = ctx;
	pthread_mutex_unlock(&registry_mu);
}

void sv_registry_del(struct sv_context *ctx)
{
	struct sv_context **p;

	pthread_mutex_lock(&registry_mu);
	for (p = &registry; *p; p = &(*p)->next_ctx)
		if (*p == ctx) {
			*p = ctx->next_ctx;
			break;
		}
	pthread_mutex_unlock(&registry_mu);
}

/*
 * The child of a fork may not use the parent's contexts (as with hardware).
 * Close its copies of the sockets so that a long-lived child does not keep
 * the parent's QP names bound after the parent is gone.
 */
static void atfork_child(void)
{
	struct sv_context *ctx;

	sv_pid = getpid();
	pthread_mutex_init(&registry_mu, NULL);
	for (ctx = registry; ctx; ctx = ctx->next_ctx) {
		struct sv_list *l;

		for (l = ctx->qps.next; l != &ctx->qps; l = l->next) {
			struct sv_qp *qp = sv_container(l, struct sv_qp, link);

			if (qp->fd >= 0)
				close(qp->fd);
			qp->fd = -1;
		}
		if (ctx->resp_fd >= 0)
			close(ctx->resp_fd);
		if (ctx->epfd >= 0)
			close(ctx->epfd);
		ctx->resp_fd = ctx->epfd = -1;
		ctx->thread_started = false;
	}
	registry = NULL;
}

/*
 * At exit: pending ACKs and responses still go out (best effort).  exit()
 * may come from a signal handler that interrupted this very thread inside
 * the library, so locks are only tried.
 */
__attribute__((destructor)) static void sv_at_exit(void)
{
	struct sv_context *ctx;

	if (pthread_mutex_trylock(&registry_mu))
		return;
	for (ctx = registry; ctx; ctx = ctx->next_ctx) {
		uint64_t end = sv_now_ns() + 100000000ull;	/* 100 ms */

		if (!sv_ctx_usable(ctx) || pthread_mutex_trylock(&ctx->mu))
			continue;
		emit_acks(ctx);
		for (;;) {
			backlog_push_out(ctx);
			if (!ctx->bl_head || sv_now_ns() >= end)
				break;
			pthread_mutex_unlock(&ctx->mu);
			usleep(100);
			pthread_mutex_lock(&ctx->mu);
		}
		pthread_mutex_unlock(&ctx->mu);
	}
	pthread_mutex_unlock(&registry_mu);
}
