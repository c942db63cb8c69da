/* SPDX-License-Identifier: MIT */
/*
 * softverbs' librdmacm: internal interfaces.
 *
 * The CM runs in each process over softverbs' own verbs (public API only).
 * Rendezvous: every bound rdma_cm_id reserves its port by binding an
 * abstract AF_UNIX SOCK_SEQPACKET socket "softverbs-cm/<fabric>/<ps>/<port>";
 * a listening id listen()s on it.  rdma_connect() connects a new seqpacket
 * socket to the listener's name; that socket carries the CM messages of the
 * connection (REQ, REP, RTU, REJ, DREQ, DREP, SIDR REQ/REP) and its end of
 * file tells a peer that the other side died or destroyed its id.
 *
 * Locking: one process-wide lock (cm.lock) guards every id and the protocol;
 * a channel's queue has its own lock, taken inside cm.lock.  A progress
 * thread (started with the first id) polls listeners, connection sockets
 * and timers.  Application threads never hold cm.lock while they block.
 *
 * The progress thread never touches an id's QP: the application owns it and
 * may free it at any time, even with ibv_destroy_qp() (perftest does, and
 * then exits while its peer's end of the connection goes away).  A QP
 * transition that a message calls for rides on the event it causes
 * (cm_event.work) and is done on the application's thread when it takes
 * that event (rdma_get_cm_event), as librdmacm does.
 */
#ifndef SOFTVERBS_CM_INTERNAL_H
#define SOFTVERBS_CM_INTERNAL_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "sv_internal.h"

#define CM_EXPORT __attribute__((visibility("default")))

/* private data sizes of the IB CM messages, and the rdma_cm header that
 * IP-addressed ids (every id here: AF_IB is not emulated) put in front of
 * REQ and SIDR REQ data: so the user gets 56 and 180 bytes */
enum {
	CM_REQ_PDATA = 92,
	CM_REP_PDATA = 196,
	CM_REJ_PDATA = 148,
	CM_SIDR_REQ_PDATA = 216,
	CM_SIDR_REP_PDATA = 136,
	CM_IP_HDR = 36,
	CM_PDATA_MAX = 256,
};

/* IB CM reject reasons and SIDR statuses that events carry */
enum {
	CM_REJ_INVALID_SERVICE_ID = 8,	/* no listener on the port */
	CM_REJ_CONSUMER_DEFINED = 28,	/* rdma_reject() */
	CM_SIDR_UNSUPPORTED = 1,	/* no listener (UD) */
	CM_SIDR_REJECT = 2,		/* rdma_reject() (UD) */
};

enum cm_msg_type {
	CM_MSG_REQ = 1,
	CM_MSG_REP,
	CM_MSG_RTU,
	CM_MSG_REJ,
	CM_MSG_DREQ,
	CM_MSG_DREP,
	CM_MSG_SIDR_REQ,
	CM_MSG_SIDR_REP,
};

/* one CM message on a connection socket (one seqpacket record) */
struct cm_msg {
	uint32_t type;			/* enum cm_msg_type */
	int32_t status;			/* REJ reason, SIDR status */
	uint32_t ps;			/* enum rdma_port_space */
	uint32_t qp_type;		/* enum ibv_qp_type */
	uint32_t qpn;
	uint32_t psn;
	uint32_t qkey;
	uint16_t lid;
	uint8_t mtu;			/* enum ibv_mtu */
	uint8_t resp_res;
	uint8_t init_depth;
	uint8_t flow_control;
	uint8_t retry;
	uint8_t rnr_retry;
	uint8_t srq;
	uint8_t gid[16];
	struct sockaddr_storage src;	/* the sender's address */
	struct sockaddr_storage dst;	/* the address the sender talks to */
	uint16_t pdlen;			/* bytes */
	uint8_t pdata[CM_PDATA_MAX];
};

struct cm_id;

/* a multicast group an id joined (rdma_join_multicast) */
struct cm_mc {
	struct cm_mc *next;
	struct sockaddr_storage addr;
	union ibv_gid mgid;
	uint16_t mlid;
	bool attached;			/* the id's QP is attached to it */
	void *context;
};

/* what taking an event does to its id's QP (see the locking rules above) */
enum cm_work {
	CM_WORK_NONE,
	CM_WORK_QP_ERR,		/* to ERR (REJECTED, DISCONNECTED, ...) */
	CM_WORK_REP,		/* active: RTR, RTS and RTU, or CONNECT_ERROR */
};

struct cm_event {
	struct rdma_cm_event ev;	/* first: what the application sees */
	struct cm_event *next;
	uint64_t owner;			/* handle of the id it counts against */
	enum cm_work work;		/* done when the application takes it */
	uint8_t pdata[CM_PDATA_MAX];
};

/*
 * An event channel: a queue and a socketpair.  The application's end
 * (ch.fd) holds one byte whenever the queue is not empty, so it polls
 * readable exactly then; rdma_get_cm_event() reads that byte (blocking or
 * not, as the application set the fd) and puts it back if events remain.
 */
struct cm_channel {
	struct rdma_event_channel ch;	/* first */
	int wfd;			/* the library's end */
	pthread_mutex_t lock;
	struct cm_event *head, *tail;
	bool armed;			/* the byte is in the socket */
};

enum cm_state {
	CM_IDLE,
	CM_BOUND,
	CM_ADDR_QUERY,		/* waiting for the resolve timeout (no host) */
	CM_ADDR_RESOLVED,
	CM_ROUTE_QUERY,		/* the emulated path query is under way */
	CM_ROUTE_RESOLVED,
	CM_LISTEN,
	CM_PENDING,		/* passive, connection accepted, no REQ yet */
	CM_REQ_WAIT,		/* active, no listener yet: REQ tried again */
	CM_REQ_SENT,		/* active, waiting for REP / SIDR REP */
	CM_REQ_RCVD,		/* passive, CONNECT_REQUEST reported */
	CM_REP_RCVD,		/* active: CONNECT_RESPONSE reported (no QP),
				 * or ESTABLISHED not taken yet (QP) */
	CM_REP_SENT,		/* passive, waiting for RTU */
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_DREQ_RCVD,		/* draining the data path, then DISCONNECTED */
	CM_DISCONNECTED,
	CM_DEAD,		/* the handshake failed */
};

struct cm_id {
	struct rdma_cm_id id;		/* first: what the application sees */
	struct cm_id *next;		/* cm.ids */
	uint64_t handle;		/* unique, never reused */
	struct cm_channel *chan;	/* NULL: destroyed under the id */
	bool sync;			/* chan is private (no channel given) */
	enum cm_state state;
	int port_fd;			/* reserves the port; listens */
	int conn_fd;			/* connection socket, or -1 */
	uint16_t port;			/* bound port, host order (0: none) */
	uint64_t deadline;		/* CLOCK_MONOTONIC ns, 0: no timer */
	int events_out;			/* reported, not yet acked */
	pthread_cond_t acked;
	uint64_t listener;		/* handle of the listening id */
	struct ibv_sa_path_rec path;
	int gid_index;			/* local GID used on the path */
	uint32_t psn;			/* our starting PSN */
	uint32_t qpn;			/* id.qp's number, for the messages */
	struct cm_msg peer;		/* the peer's REQ or REP */
	struct rdma_conn_param conn;	/* what we sent or accepted */
	struct ibv_qp_init_attr *ep_qp_attr; /* rdma_create_ep, passive */
	struct ibv_pd *ep_pd;
	uint8_t tos;
	uint8_t ack_timeout;
	int reuse;
	int afonly;
	bool own_scq, own_rcq;		/* the library made send_cq, recv_cq */
	bool drep_pending;		/* answer the DREQ when drained */
	bool dreq_early;		/* a DREQ came in CM_REP_RCVD */
	bool reported;			/* its CONNECT_REQUEST was handed out */
	struct cm_msg *req;		/* CM_REQ_WAIT: the REQ to send */
	uint64_t req_wait_end;		/* until then (ns), 0: no wait */
	struct cm_mc *mcs;		/* groups joined */
};

struct cm_global {
	pthread_mutex_t lock;
	struct cm_id *ids;
	uint64_t next_handle;
	int epfd;
	int wakefd;			/* eventfd: wake the progress thread */
	bool thread_started;
	pthread_t thread;
	struct ibv_context **devs;	/* NULL-terminated, opened once */
	struct ibv_pd **pds;		/* default PD per device, lazily */
	struct ibv_xrcd **xrcds;	/* default XRC domain per device, lazily */
	int ndevs;
	char fabric[64];
	unsigned int connect_ms;	/* REQ without answer, then UNREACHABLE */
	unsigned int drain_ms;		/* DREQ received -> QP in ERR */
	unsigned int route_us;		/* rdma_resolve_route latency */
	unsigned int listen_delay_ms;	/* fault: rdma_listen sleeps first */
	unsigned int req_wait_ms;	/* a REQ waits this long for a listener */
	unsigned int debug;
};

extern struct cm_global cm;

#define CM_MS_NS(ms) ((uint64_t)(ms) * 1000000ull)

/* -1 with errno e: the failure return of the API calls */
static inline int cm_fail(int e)
{
	errno = e;
	return -1;
}

/* an API call's return for err (0 or -errno) */
static inline int cm_ret(int err)
{
	return err ? cm_fail(-err) : 0;
}

/* Take cm.lock for an API call on id that wants it in state st: 0, or
 * -EINVAL when there is no id or it is in another (the lock is taken all
 * the same). */
static inline int cm_lock_in(const struct rdma_cm_id *id, int st)
{
	pthread_mutex_lock(&cm.lock);
	return id && (int)((const struct cm_id *)id)->state == st ? 0 : -EINVAL;
}

/* drop cm.lock and return cm_ret(err) */
static inline int cm_unlock_ret(int err)
{
	pthread_mutex_unlock(&cm.lock);
	return cm_ret(err);
}

/* cm_core.c */
/* Load the configuration and open the devices once; 0 or -1 with errno. */
int cm_init(void);
void cm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define CM_DBG(...) SV_DBG_IF(cm.debug, cm_log, __VA_ARGS__)
/* Wake the progress thread (a timer or fd set changed); under cm.lock. */
void cm_wake(void);
/* Start the progress thread if needed; under cm.lock; 0 or -errno. */
int cm_start_thread(void);
int cm_epoll_add(struct cm_id *p, int fd);
void cm_epoll_del(int fd);
/* Stop polling *fd, close it and set it to -1 (nothing when it is < 0). */
void cm_fd_close(int *fd);
struct cm_id *cm_id_find(uint64_t handle);
/* Allocate an id on channel ch (NULL: a private, synchronous one). */
struct cm_id *cm_id_new(struct cm_channel *ch, void *context,
			enum rdma_port_space ps, enum ibv_qp_type qpt);
/* Unlink and free an id (its sockets closed, events dropped); cm.lock. */
void cm_id_free(struct cm_id *p);
struct cm_channel *cm_channel_new(void);
void cm_channel_free(struct cm_channel *c);
/* Queue an event for p (type, status); returns it so that the caller can
 * fill param, or NULL when out of memory.  Under cm.lock. */
struct cm_event *cm_event_new(struct cm_id *p, enum rdma_cm_event_type type,
			      int status);
void cm_event_post(struct cm_id *p, struct cm_event *e);
/* Post a parameterless event. */
void cm_event_simple(struct cm_id *p, enum rdma_cm_event_type type,
		     int status);
/* Stop p's timer, move it to st and post the parameterless event type. */
void cm_enter(struct cm_id *p, enum cm_state st, enum rdma_cm_event_type type,
	      int status);
/* Move p to st with its timer set to expire in ns nanoseconds. */
void cm_enter_timed(struct cm_id *p, enum cm_state st, uint64_t ns);
/* Copy up to n bytes of m's private data into e; e->pdata, or NULL if n
 * is 0 (what the event's private_data points to). */
const void *cm_event_pdata(struct cm_event *e, const struct cm_msg *m,
			   unsigned int n);
/* Ack an id's last event of a synchronous call (id->event), if any. */
void cm_ack_last(struct rdma_cm_id *id);
/* A fresh starting PSN for p */
uint32_t cm_new_psn(const struct cm_id *p);
/* Drop p's queued, unreported events from its channel. */
void cm_channel_purge(struct cm_channel *c, uint64_t handle);
/* Drop p's queued, unreported events that carry work w. */
void cm_event_withdraw(struct cm_id *p, enum cm_work w);
/* Wait (without cm.lock) for p's next event on its private channel;
 * 0 when it is "want" with status 0, else -1 with errno. */
int cm_sync_wait(struct cm_id *p, enum rdma_cm_event_type want);
/* Drop cm.lock and end an API call on p: cm_ret(err) when err, else wait
 * for want when p is synchronous. */
int cm_unlock_sync(struct cm_id *p, int err, enum rdma_cm_event_type want);
/* Reserve port (0: pick an ephemeral one) for p; 0 or -errno. */
int cm_port_reserve(struct cm_id *p, uint16_t port);
void cm_port_name(struct sockaddr_un *sun, socklen_t *len, int ps,
		  uint16_t port);
int cm_ps_of(const struct cm_id *p);

/* cm_addr.c */
socklen_t cm_addrlen(const struct sockaddr *sa);
uint16_t cm_addr_port(const struct sockaddr *sa);
void cm_addr_set_port(struct sockaddr *sa, uint16_t port);
bool cm_addr_any(const struct sockaddr *sa);
bool cm_addr_loopback(const struct sockaddr *sa);
/* Is sa an address of this (emulated) host: loopback or an interface's? */
bool cm_addr_local(const struct sockaddr *sa);
bool cm_addr_equal(const struct sockaddr *a, const struct sockaddr *b);
/* Fill p->path and route.addr.addr.ibaddr from the device and addresses. */
void cm_route_fill(struct cm_id *p);
/* The local GID index for the id's source address (RoCE: the RoCE v2 GID
 * whose address matches, as the kernel does; IB: 0). */
int cm_gid_index(struct ibv_context *ctx, const struct sockaddr *src);
struct ibv_pd *cm_default_pd(struct ibv_context *ctx);
/* The device's XRC domain for ids that are given none (opened once, as
 * librdmacm does); NULL with errno on failure.  Under cm.lock. */
struct ibv_xrcd *cm_default_xrcd(struct ibv_context *ctx);
/* The path query ended: fill the route, report ROUTE_RESOLVED. */
void cm_route_resolved(struct cm_id *p);

/* cm_conn.c */
/* Handle readiness of p's socket (listener or connection); cm.lock. */
void cm_conn_input(struct cm_id *p);
/* A timer of p expired; cm.lock. */
void cm_conn_timeout(struct cm_id *p);
/* The application takes e, an event of p (rdma_get_cm_event, on its own
 * thread, cm.lock): do the QP work e carries; e may become a
 * CONNECT_ERROR. */
void cm_conn_taken(struct cm_id *p, struct cm_event *e);
/* The connection socket is gone (peer died or destroyed its id). */
void cm_conn_lost(struct cm_id *p);
/* Move p's QP to INIT (when created), RTR, RTS or ERR from what is known;
 * 0 or -errno. */
int cm_qp_attr(struct cm_id *p, struct ibv_qp_attr *a, int *mask);
int cm_qp_modify(struct cm_id *p, enum ibv_qp_state st);
/* Send a message on p's connection socket; 0 or -errno.  */
int cm_send(struct cm_id *p, struct cm_msg *m);
/* Fill the common fields of a message from p. */
void cm_msg_init(struct cm_id *p, struct cm_msg *m, enum cm_msg_type type);
/* Put len bytes of private data pd into m (as much as its type carries);
 * 0 or -EINVAL. */
int cm_msg_pdata(struct cm_id *p, struct cm_msg *m, const void *pd,
		 unsigned int len);

/* cm_ud.c */
void cm_ud_sidr_rep(struct cm_id *p, const struct cm_msg *m);
int cm_ud_accept(struct cm_id *p, struct rdma_conn_param *param);
int cm_ud_reject(struct cm_id *p, const void *pdata, uint8_t len);
/* Leave every group p joined (it is being destroyed); cm.lock. */
void cm_mc_leave_all(struct cm_id *p);
bool cm_addr_mcast(const struct sockaddr *sa);

#endif
