// SPDX-License-Identifier: MIT
/*
 * softverbs' librdmacm: configuration, devices, event channels and events,
 * ids and their ports, and the progress thread.
 *
 * Invariants: an id is reachable from cm.ids until cm_id_free(); the
 * progress thread finds ids by handle (never by a pointer kept across an
 * unlock), so an id destroyed while its socket is in an epoll batch is
 * simply not found.  Events count against the id in cm_event.owner until
 * acked; rdma_destroy_id() waits for that count to reach zero.  An id
 * whose channel the application destroyed first has chan NULL, and its
 * events are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cm_internal.h"

struct cm_global cm = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.epfd = -1,
	.wakefd = -1,
	.next_handle = 1,
};

static pthread_once_t cm_once = PTHREAD_ONCE_INIT;
static int cm_init_err;

void cm_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sv_vlog("softverbs-cm", fmt, ap);
	va_end(ap);
}

static unsigned long env_ulong(const char *name, unsigned long def)
{
	return sv_env_ulong(name, def, true);
}

static void cm_init_once(void)
{
	struct ibv_device **list;
	const char *s;
	int i, n = 0;

	s = getenv("SOFTVERBS_FABRIC");
	snprintf(cm.fabric, sizeof(cm.fabric), "%s", s && *s ? s : "default");
	cm.connect_ms = (unsigned int)env_ulong("SOFTVERBS_CM_TIMEOUT_MS", 20000);
	cm.route_us = (unsigned int)env_ulong("SOFTVERBS_CM_ROUTE_US", 5000);
	cm.drain_ms = (unsigned int)env_ulong("SOFTVERBS_CM_DRAIN_MS", 50);
	cm.listen_delay_ms =
		(unsigned int)env_ulong("SOFTVERBS_FAULT_CM_LISTEN_MS", 0);
	cm.req_wait_ms = (unsigned int)env_ulong("SOFTVERBS_CM_REQ_WAIT_MS", 0);
	cm.debug = (unsigned int)env_ulong("SOFTVERBS_DEBUG", 0);
	list = ibv_get_device_list(&n);
	if (!list || n <= 0) {
		if (list)
			ibv_free_device_list(list);
		cm_init_err = ENODEV;
		return;
	}
	cm.devs = calloc((size_t)n + 1, sizeof(*cm.devs));
	cm.pds = calloc((size_t)n + 1, sizeof(*cm.pds));
	cm.xrcds = calloc((size_t)n + 1, sizeof(*cm.xrcds));
	if (!cm.devs || !cm.pds || !cm.xrcds) {
		cm_init_err = ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		cm.devs[cm.ndevs] = ibv_open_device(list[i]);
		if (cm.devs[cm.ndevs])
			cm.ndevs++;
	}
	if (!cm.ndevs)
		cm_init_err = ENODEV;
out:
	ibv_free_device_list(list);
}

int cm_init(void)
{
	pthread_once(&cm_once, cm_init_once);
	if (cm_init_err)
		return cm_fail(cm_init_err);
	return 0;
}

struct ibv_pd *cm_default_pd(struct ibv_context *ctx)
{
	int i;

	for (i = 0; i < cm.ndevs; i++) {
		if (cm.devs[i] != ctx)
			continue;
		if (!cm.pds[i])
			cm.pds[i] = ibv_alloc_pd(ctx);
		return cm.pds[i];
	}
	return NULL;
}

struct ibv_xrcd *cm_default_xrcd(struct ibv_context *ctx)
{
	struct ibv_xrcd_init_attr xa;
	int i;

	for (i = 0; i < cm.ndevs; i++) {
		if (cm.devs[i] != ctx)
			continue;
		if (!cm.xrcds[i]) {
			memset(&xa, 0, sizeof(xa));
			xa.comp_mask = IBV_XRCD_INIT_ATTR_FD |
				       IBV_XRCD_INIT_ATTR_OFLAGS;
			xa.fd = -1;
			xa.oflags = O_CREAT;
			cm.xrcds[i] = ibv_open_xrcd(ctx, &xa);
		}
		return cm.xrcds[i];
	}
	errno = ENODEV;
	return NULL;
}

CM_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **l;

	if (cm_init()) {
		if (num_devices)
			*num_devices = 0;
		return NULL;
	}
	l = calloc((size_t)cm.ndevs + 1, sizeof(*l));
	if (!l)
		return NULL;
	memcpy(l, cm.devs, (size_t)cm.ndevs * sizeof(*l));
	if (num_devices)
		*num_devices = cm.ndevs;
	return l;
}

CM_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

/* ---- progress thread -------------------------------------------------- */

void cm_wake(void)
{
	uint64_t one = 1;

	if (cm.wakefd >= 0 && write(cm.wakefd, &one, sizeof(one)) < 0)
		CM_DBG("wake: %s", strerror(errno));
}

int cm_epoll_add(struct cm_id *p, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = p->handle };

	if (epoll_ctl(cm.epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	return 0;
}

void cm_epoll_del(int fd)
{
	if (fd >= 0 && cm.epfd >= 0)
		epoll_ctl(cm.epfd, EPOLL_CTL_DEL, fd, NULL);
}

void cm_fd_close(int *fd)
{
	if (*fd < 0)
		return;
	cm_epoll_del(*fd);
	close(*fd);
	*fd = -1;
}

void cm_enter(struct cm_id *p, enum cm_state st, enum rdma_cm_event_type type,
	      int status)
{
	p->deadline = 0;
	p->state = st;
	cm_event_simple(p, type, status);
}

void cm_enter_timed(struct cm_id *p, enum cm_state st, uint64_t ns)
{
	p->state = st;
	p->deadline = sv_now_ns() + ns;
	if (!p->deadline)
		p->deadline = 1;
	cm_wake();
}

const void *cm_event_pdata(struct cm_event *e, const struct cm_msg *m,
			   unsigned int n)
{
	memcpy(e->pdata, m->pdata, m->pdlen < n ? m->pdlen : n);
	return n ? e->pdata : NULL;
}

void cm_ack_last(struct rdma_cm_id *id)
{
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
}

uint32_t cm_new_psn(const struct cm_id *p)
{
	return (uint32_t)(sv_now_ns() ^ (uintptr_t)p) & 0xffffff;
}

struct cm_id *cm_id_find(uint64_t handle)
{
	struct cm_id *p;

	for (p = cm.ids; p; p = p->next)
		if (p->handle == handle)
			return p;
	return NULL;
}

/* the earliest timer, and fire those that are due; under cm.lock */
static int cm_timers(void)
{
	uint64_t now = sv_now_ns(), next = 0;
	struct cm_id *p, *n;

	for (p = cm.ids; p; p = n) {
		n = p->next;
		if (!p->deadline)
			continue;
		if (p->deadline <= now) {
			p->deadline = 0;
			cm_conn_timeout(p);	/* may free p */
			continue;
		}
		if (!next || p->deadline < next)
			next = p->deadline;
	}
	if (!next)
		return -1;
	return (int)((next - now) / 1000000ull) + 1;
}

static void *cm_thread_main(void *arg)
{
	struct epoll_event evs[32];
	int i, n, tmo;
	uint64_t v;

	(void)arg;
	pthread_mutex_lock(&cm.lock);
	for (;;) {
		tmo = cm_timers();
		pthread_mutex_unlock(&cm.lock);
		n = epoll_wait(cm.epfd, evs, 32, tmo);
		pthread_mutex_lock(&cm.lock);
		for (i = 0; i < n; i++) {
			struct cm_id *p;

			if (evs[i].data.u64 == 0) {
				if (read(cm.wakefd, &v, sizeof(v)) < 0)
					CM_DBG("wake read: %s", strerror(errno));
				continue;
			}
			p = cm_id_find(evs[i].data.u64);
			if (p)
				cm_conn_input(p);
		}
	}
	return NULL;
}

int cm_start_thread(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0 };
	pthread_attr_t at;
	int err;

	if (cm.thread_started)
		return 0;
	if (cm.epfd < 0) {
		cm.epfd = epoll_create1(EPOLL_CLOEXEC);
		if (cm.epfd < 0)
			return -errno;
	}
	if (cm.wakefd < 0) {
		cm.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (cm.wakefd < 0)
			return -errno;
		if (epoll_ctl(cm.epfd, EPOLL_CTL_ADD, cm.wakefd, &ev))
			return -errno;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&cm.thread, &at, cm_thread_main, NULL);
	pthread_attr_destroy(&at);
	if (err)
		return -err;
	cm.thread_started = true;
	return 0;
}

/* ---- event channels ------------------------------------------------- */

struct cm_channel *cm_channel_new(void)
{
	struct cm_channel *c;
	int sv[2];

	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(c);
		return NULL;
	}
	c->ch.fd = sv[0];
	c->wfd = sv[1];
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void events_free(struct cm_event *e)
{
	struct cm_event *n;

	for (; e; e = n) {
		n = e->next;
		free(e);
	}
}

/* keep_wfd: leave the library's end open, so that a thread still blocked
 * in rdma_get_cm_event() on this channel stays blocked, as on the kernel's
 * rdma_cm fd (rping's CM thread is one), instead of reading end of file */
static void channel_free(struct cm_channel *c, bool keep_wfd)
{
	if (!c)
		return;
	events_free(c->head);
	close(c->ch.fd);
	if (!keep_wfd)
		close(c->wfd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void cm_channel_free(struct cm_channel *c)
{
	channel_free(c, false);
}

CM_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct cm_channel *c;

	if (cm_init())
		return NULL;
	c = cm_channel_new();
	return c ? &c->ch : NULL;
}

/* a child id the application has not been told about (its listener's
 * CONNECT_REQUEST not taken yet) */
static bool child_unreported(const struct cm_id *q)
{
	return q->state == CM_PENDING ||
	       (q->state == CM_REQ_RCVD && !q->reported);
}

/*
 * The application should destroy a channel's ids first.  Ids it left on the
 * channel end as the kernel's do when their rdma_cm fd closes: their
 * connections and ports go (the peer sees the socket end), unreported
 * children are freed, and the others stay for rdma_destroy_id() but never
 * report again (chan NULL), so the progress thread never posts to the
 * freed channel.
 */
CM_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct cm_channel *c = (struct cm_channel *)channel;
	struct cm_id *p, *n;

	if (!c)
		return;
	pthread_mutex_lock(&cm.lock);
	for (p = cm.ids; p; p = n) {
		n = p->next;
		if (p->chan != c || p->sync)
			continue;
		if (p->listener && child_unreported(p)) {
			cm_id_free(p);
			continue;
		}
		cm_channel_purge(c, p->handle);
		p->deadline = 0;
		cm_fd_close(&p->conn_fd);
		cm_fd_close(&p->port_fd);
		p->state = CM_DEAD;
		p->chan = NULL;
	}
	pthread_mutex_unlock(&cm.lock);
	channel_free(c, true);
}

static void chan_arm(struct cm_channel *c)
{
	char b = 1;

	if (!c->armed && send(c->wfd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
		c->armed = true;
}

struct cm_event *cm_event_new(struct cm_id *p, enum rdma_cm_event_type type,
			      int status)
{
	struct cm_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->ev.id = &p->id;
	e->ev.event = type;
	e->ev.status = status;
	e->owner = p->handle;
	return e;
}

void cm_event_post(struct cm_id *p, struct cm_event *e)
{
	struct cm_channel *c = p->chan;

	CM_DBG("id %llu: event %s status %d", (unsigned long long)p->handle,
	       rdma_event_str(e->ev.event), e->ev.status);
	if (!c) {	/* its channel was destroyed */
		free(e);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (c->tail)
		c->tail->next = e;
	else
		c->head = e;
	c->tail = e;
	chan_arm(c);
	pthread_mutex_unlock(&c->lock);
}

void cm_event_simple(struct cm_id *p, enum rdma_cm_event_type type,
		     int status)
{
	struct cm_event *e = cm_event_new(p, type, status);

	if (e)
		cm_event_post(p, e);
}

/* Unlink c's queued events that count against handle and carry work w
 * (any work when w < 0); the list of them, in order (c may be NULL). */
static struct cm_event *channel_take(struct cm_channel *c, uint64_t handle,
				     int w)
{
	struct cm_event **pp, *e, *taken = NULL, **tt = &taken;
	char b;

	if (!c)
		return NULL;
	pthread_mutex_lock(&c->lock);
	for (pp = &c->head; (e = *pp);) {
		if (e->owner == handle && (w < 0 || (int)e->work == w)) {
			*pp = e->next;
			e->next = NULL;
			*tt = e;
			tt = &e->next;
		} else {
			pp = &e->next;
		}
	}
	c->tail = NULL;
	for (e = c->head; e; e = e->next)
		c->tail = e;
	if (!c->head && c->armed &&
	    recv(c->ch.fd, &b, 1, MSG_DONTWAIT) == 1)
		c->armed = false;
	pthread_mutex_unlock(&c->lock);
	return taken;
}

void cm_channel_purge(struct cm_channel *c, uint64_t handle)
{
	events_free(channel_take(c, handle, -1));
}

void cm_event_withdraw(struct cm_id *p, enum cm_work w)
{
	events_free(channel_take(p->chan, p->handle, (int)w));
}

CM_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				struct rdma_cm_event **event)
{
	struct cm_channel *c = (struct cm_channel *)channel;
	struct cm_event *e;
	struct cm_id *p;
	ssize_t n;
	char b;

	if (!c || !event)
		return cm_fail(EINVAL);
	for (;;) {
		n = read(c->ch.fd, &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return cm_fail(ENODEV);
		pthread_mutex_lock(&cm.lock);
		pthread_mutex_lock(&c->lock);
		c->armed = false;
		e = c->head;
		if (e) {
			c->head = e->next;
			if (!c->head)
				c->tail = NULL;
			e->next = NULL;
			if (c->head)
				chan_arm(c);
		}
		pthread_mutex_unlock(&c->lock);
		if (e) {
			p = cm_id_find(e->owner);
			if (p)
				p->events_out++;
			/* the QP work of an event runs here, on the
			 * application's thread (cm_internal.h) */
			if (p && e->work)
				cm_conn_taken(p, e);
			if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST)
				((struct cm_id *)e->ev.id)->reported = true;
		}
		pthread_mutex_unlock(&cm.lock);
		if (e)
			break;
	}
	*event = &e->ev;
	return 0;
}

CM_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cm_event *e = (struct cm_event *)event;
	struct cm_id *p;

	if (!event)
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	p = cm_id_find(e->owner);
	if (p && p->events_out > 0) {
		p->events_out--;
		pthread_cond_broadcast(&p->acked);
	}
	pthread_mutex_unlock(&cm.lock);
	free(e);
	return 0;
}

int cm_unlock_sync(struct cm_id *p, int err, enum rdma_cm_event_type want)
{
	pthread_mutex_unlock(&cm.lock);
	if (err)
		return cm_fail(-err);
	return p->sync ? cm_sync_wait(p, want) : 0;
}

int cm_sync_wait(struct cm_id *p, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int st;

	cm_ack_last(&p->id);
	if (rdma_get_cm_event(&p->chan->ch, &ev))
		return -1;
	p->id.event = ev;
	if (ev->event == want && !ev->status)
		return 0;
	st = ev->status;
	if (st < 0)
		errno = -st;
	else if (ev->event == RDMA_CM_EVENT_REJECTED)
		errno = ECONNREFUSED;
	else
		errno = st ? EIO : EINVAL;
	return -1;
}

/* ---- ids ----------------------------------------------------------------- */

int cm_ps_of(const struct cm_id *p)
{
	return (int)p->id.ps;
}

void cm_port_name(struct sockaddr_un *sun, socklen_t *len, int ps,
		  uint16_t port)
{
	sv_abstract_addr(sun, len, "softverbs-cm/%s/%x/%u", cm.fabric, ps, port);
}

static int port_try(struct cm_id *p, uint16_t port)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	cm_port_name(&sun, &len, cm_ps_of(p), port);
	if (bind(fd, (struct sockaddr *)&sun, len)) {
		int err = errno;

		close(fd);
		return -err;
	}
	p->port_fd = fd;
	p->port = port;
	return 0;
}

int cm_port_reserve(struct cm_id *p, uint16_t port)
{
	unsigned int i, start;
	int err;

	if (p->port_fd >= 0)
		return -EINVAL;
	if (port)
		return port_try(p, port);
	/* ephemeral: Linux's default ip_local_port_range */
	start = (unsigned int)(sv_now_ns() ^ (uint64_t)getpid() * 2654435761u);
	for (i = 0; i < 28232; i++) {
		err = port_try(p, (uint16_t)(32768 + (start + i) % 28232));
		if (err != -EADDRINUSE)
			return err;
	}
	return -EADDRINUSE;
}

struct cm_id *cm_id_new(struct cm_channel *ch, void *context,
			enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct cm_id *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!ch) {
		ch = cm_channel_new();
		if (!ch) {
			free(p);
			return NULL;
		}
		p->sync = true;
	}
	p->chan = ch;
	p->id.channel = &ch->ch;
	p->id.context = context;
	p->id.ps = ps;
	p->id.qp_type = qpt;
	p->port_fd = -1;
	p->conn_fd = -1;
	p->gid_index = 0;
	p->afonly = 0;
	pthread_cond_init(&p->acked, NULL);
	p->handle = cm.next_handle++;
	p->next = cm.ids;
	cm.ids = p;
	return p;
}

void cm_id_free(struct cm_id *p)
{
	struct cm_id **pp;

	for (pp = &cm.ids; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	cm_channel_purge(p->chan, p->handle);
	cm_fd_close(&p->conn_fd);
	cm_fd_close(&p->port_fd);
	if (p->sync)
		cm_channel_free(p->chan);
	cm_mc_leave_all(p);
	free(p->ep_qp_attr);
	free(p->req);
	pthread_cond_destroy(&p->acked);
	free(p);
}

static int qpt_of_ps(enum rdma_port_space ps, enum ibv_qp_type *qpt)
{
	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_IB:
		*qpt = IBV_QPT_RC;
		return 0;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		*qpt = IBV_QPT_UD;
		return 0;
	}
	return -1;
}

CM_EXPORT int rdma_create_id(struct rdma_event_channel *channel,
			     struct rdma_cm_id **id, void *context,
			     enum rdma_port_space ps)
{
	enum ibv_qp_type qpt;
	struct cm_id *p;
	int err;

	if (cm_init())
		return -1;
	if (!id || qpt_of_ps(ps, &qpt))
		return cm_fail(EINVAL);
	pthread_mutex_lock(&cm.lock);
	err = cm_start_thread();
	p = err ? NULL : cm_id_new((struct cm_channel *)channel, context, ps,
				   qpt);
	pthread_mutex_unlock(&cm.lock);
	if (!p)
		return cm_fail(err ? -err : ENOMEM);
	*id = &p->id;
	return 0;
}

CM_EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cm_id *p = (struct cm_id *)id, *q;

	if (!id)
		return cm_fail(EINVAL);
	cm_ack_last(id);
	pthread_mutex_lock(&cm.lock);
	/* no more events: drop the queued ones, wait for reported ones */
	cm_channel_purge(p->chan, p->handle);
	p->deadline = 0;
	cm_fd_close(&p->conn_fd);
	cm_fd_close(&p->port_fd);
	/* connections a destroyed listener had not reported yet go away (the
	 * active side sees the socket end: REJECTED) */
	if (p->state == CM_LISTEN) {
		struct cm_id *n;

		for (q = cm.ids; q; q = n) {
			n = q->next;
			if (q->listener == p->handle && child_unreported(q))
				cm_id_free(q);
		}
	}
	while (p->events_out > 0)
		pthread_cond_wait(&p->acked, &cm.lock);
	cm_id_free(p);
	pthread_mutex_unlock(&cm.lock);
	return 0;
}

CM_EXPORT int rdma_migrate_id(struct rdma_cm_id *id,
			      struct rdma_event_channel *channel)
{
	struct cm_id *p = (struct cm_id *)id;
	struct cm_channel *nc = (struct cm_channel *)channel, *oc;
	struct cm_event *e, *moved;
	bool sync = false;

	if (!id)
		return cm_fail(EINVAL);
	/* a synchronous id's last event is acked here, as librdmacm does */
	if (p->sync)
		cm_ack_last(id);
	if (!nc) {
		nc = cm_channel_new();
		if (!nc)
			return -1;
		sync = true;
	}
	pthread_mutex_lock(&cm.lock);
	/* rdma-core waits for the reported events first, so do we */
	while (p->events_out > 0)
		pthread_cond_wait(&p->acked, &cm.lock);
	oc = p->chan;
	moved = channel_take(oc, p->handle, -1);
	p->chan = nc;
	p->id.channel = &nc->ch;
	for (e = moved; e; e = moved) {
		moved = e->next;
		e->next = NULL;
		cm_event_post(p, e);
	}
	if (p->sync)
		cm_channel_free(oc);
	p->sync = sync;
	pthread_mutex_unlock(&cm.lock);
	return 0;
}

#define CM_EVENT_NAME(e) [e] = #e
static const char *const cm_event_names[] = {
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDR_RESOLVED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDR_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_ROUTE_RESOLVED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ROUTE_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_CONNECT_REQUEST),
	CM_EVENT_NAME(RDMA_CM_EVENT_CONNECT_RESPONSE),
	CM_EVENT_NAME(RDMA_CM_EVENT_CONNECT_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_UNREACHABLE),
	CM_EVENT_NAME(RDMA_CM_EVENT_REJECTED),
	CM_EVENT_NAME(RDMA_CM_EVENT_ESTABLISHED),
	CM_EVENT_NAME(RDMA_CM_EVENT_DISCONNECTED),
	CM_EVENT_NAME(RDMA_CM_EVENT_DEVICE_REMOVAL),
	CM_EVENT_NAME(RDMA_CM_EVENT_MULTICAST_JOIN),
	CM_EVENT_NAME(RDMA_CM_EVENT_MULTICAST_ERROR),
	CM_EVENT_NAME(RDMA_CM_EVENT_ADDR_CHANGE),
	CM_EVENT_NAME(RDMA_CM_EVENT_TIMEWAIT_EXIT),
};
#undef CM_EVENT_NAME

CM_EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
	return SV_STR_OF(cm_event_names, (unsigned int)event, "UNKNOWN EVENT");
}

/* the gen_map.sh stubs report here */
long sv_stub_unimplemented(const char *name);
long sv_stub_unimplemented(const char *name)
{
	CM_DBG("unimplemented entry point %s called", name);
	return cm_fail(EOPNOTSUPP);
}
