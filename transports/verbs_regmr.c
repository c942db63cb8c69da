// SPDX-License-Identifier: GPL-2.0-only
/*
 * reg_mr: the cost of registering memory, on this host alone (no peer,
 * no server).  Each of s->p.threads threads loops: map a region of
 * msg_size bytes (2 MiB pages with --hugepages), touch its pages with
 * --prefault (else they are cold: the registration faults them in),
 * time ibv_reg_mr(), with --odp prefetch time ibv_advise_mr(), time
 * ibv_dereg_mr(), unmap.  The times go into one histogram per phase and
 * thread, merged at the end.  With --odp the first-touch cost follows:
 * an RDMA write into a cold range of an ODP region, then into the same
 * (now warm) range, over a loopback RC connection on the same device
 * (two sessions of the ordinary verbs code joined by a socketpair).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/clock.h"
#include "lib/hist.h"
#include "verbs_int.h"
#include "verbs.h"

#define REGMR_ACCESS                                                    \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |              \
	 IBV_ACCESS_REMOTE_WRITE)
#define TOUCH_ROUNDS 3 /* first-touch writes: the median of these */

struct rm_run {
	const struct tparams *p;
	struct ibv_pd *pd;
	uint64_t deadline; /* now_ns(); 0: p->no_msgs rounds */
	const volatile sig_atomic_t *stop; /* the core's "time is up" */
};

struct rm_thread {
	pthread_t th;
	const struct rm_run *run;
	struct hist reg, dereg, adv;
	uint64_t regions, reg_ns;
	char err[256];
};

/* One round: map, (touch), register, (advise), deregister, unmap. */
static int rm_round(struct rm_thread *t)
{
	const struct tparams *p = t->run->p;
	uint64_t a, b, c, d;
	struct ibv_mr *mr;
	void *mem = verbs_map(p->msg_size, p->hugepages, t->err,
			      sizeof(t->err));
	int e = 0;

	if (!mem)
		return -1;
	if (p->prefault)
		verbs_touch(mem, p->msg_size, p->hugepages);
	a = now_ns();
	mr = verbs_reg(t->run->pd, mem, p->msg_size, REGMR_ACCESS, p->odp);
	b = c = now_ns();
	if (mr && p->odp == REGMR_ODP_PREFETCH) {
		e = verbs_prefetch(t->run->pd, mr, mem, p->msg_size);
		c = now_ns();
	}
	if (!mr || e) {
		e = mr ? e : errno;
		seterr(t->err, sizeof(t->err), "%s of %u bytes failed: %s",
		       mr ? "ibv_advise_mr" : "ibv_reg_mr", p->msg_size,
		       strerror(e));
		if (mr)
			ibv_dereg_mr(mr);
		verbs_unmap(mem, p->msg_size, p->hugepages);
		return -1;
	}
	e = ibv_dereg_mr(mr);
	d = now_ns();
	verbs_unmap(mem, p->msg_size, p->hugepages);
	if (e)
		return seterr(t->err, sizeof(t->err),
			      "ibv_dereg_mr failed: %s", strerror(e));
	hist_add(&t->reg, b - a);
	if (p->odp == REGMR_ODP_PREFETCH)
		hist_add(&t->adv, c - b);
	hist_add(&t->dereg, d - c);
	t->reg_ns += b - a;
	t->regions++;
	return 0;
}

static void *rm_thread_main(void *arg)
{
	struct rm_thread *t = arg;
	const struct rm_run *r = t->run;

	do {
		if (rm_round(t) < 0)
			break;
	} while (!(r->stop && *r->stop) &&
		 (r->deadline ? now_ns() < r->deadline
			      : t->regions < r->p->no_msgs));
	return NULL;
}

/* ---- first touch: a loopback RC connection ---- */

/* The control channel of two sessions in one process: a socketpair.
 * Blocks without a deadline: its peer is a thread of this function's. */
static int lb_io(struct chan *ch, void *buf, size_t len, bool out,
		 const char *item, char *err, size_t errlen)
{
	int fd = *(int *)ch->ctx;
	char *c = buf;

	while (len) {
		ssize_t n = out ? send(fd, c, len, MSG_NOSIGNAL)
				: recv(fd, c, len, 0);

		if (n <= 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return seterr(err, errlen, "loopback %s: %s", item,
				      n ? strerror(errno) : "peer gone");
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static int lb_send(struct chan *ch, const void *buf, size_t len,
		   const char *item, char *err, size_t errlen)
{
	return lb_io(ch, (void *)buf, len, true, item, err, errlen);
}

static int lb_recv(struct chan *ch, void *buf, size_t len, const char *item,
		   char *err, size_t errlen)
{
	return lb_io(ch, buf, len, false, item, err, errlen);
}

static int lb_send_ext(struct chan *ch, const uint8_t *blk, size_t len,
		       const char *item, char *err, size_t errlen)
{
	uint32_t n = (uint32_t)len;

	return lb_send(ch, &n, sizeof(n), item, err, errlen) ||
	       lb_send(ch, blk, len, item, err, errlen) ? -1 : 0;
}

static int lb_recv_ext(struct chan *ch, uint8_t *blk, size_t cap,
		       size_t *len, const char *item, char *err, size_t errlen)
{
	uint32_t n;

	if (lb_recv(ch, &n, sizeof(n), item, err, errlen))
		return -1;
	if (n > cap)
		return seterr(err, errlen, "loopback %s too large", item);
	*len = n;
	return lb_recv(ch, blk, n, item, err, errlen);
}

/* One end of the loopback connection. */
struct lb_end {
	struct tsess s;
	struct chan ch;
	int fd;
	pthread_t th;
	int rc;
	char err[256];
};

static void lb_end_init(struct lb_end *e, const struct tsess *like,
			const struct test_desc *t, bool target, int fd)
{
	memset(e, 0, sizeof(*e));
	e->fd = fd;
	e->ch = (struct chan){ .send = lb_send, .recv = lb_recv,
			       .send_ext = lb_send_ext,
			       .recv_ext = lb_recv_ext, .ext = true,
			       .peer_caps = CAP_NODE_EXT, .watch_fd = -1,
			       .timeout = 5 * NS_PER_SEC, .ctx = &e->fd };
	e->s.tp = &transport_rc;
	e->s.t = t;
	e->s.server = target;
	e->s.p = like->p;
	e->s.p.poll_mode = 1;
	e->s.p.mtu_size = 2048; /* 0.4.11's default: any port carries it */
	e->s.p.prefault = false;
	e->s.p.msg_size = (uint32_t)(like->p.msg_size > REGMR_TOUCH_MAX
					     ? REGMR_TOUCH_MAX
					     : like->p.msg_size);
	if (target) /* two halves: lb_warmup() */
		e->s.p.msg_size *= 2;
	else /* the source: an ordinary warm buffer */
		e->s.p.odp = REGMR_ODP_OFF, e->s.p.hugepages = false;
	e->s.ch = &e->ch;
	e->s.priv = xcalloc(1, sizeof(struct verbs_priv));
}

/* The target: open, then hold the connection until the source is done. */
static void *lb_target(void *arg)
{
	struct lb_end *e = arg;
	char done;

	e->rc = transport_rc.open(&e->s, e->err, sizeof(e->err));
	/* the source closing its end is the signal: no error */
	if (e->rc == 0 && lb_recv(&e->ch, &done, 1, "end", e->err,
				  sizeof(e->err)) == 0)
		e->err[0] = '\0';
	transport_rc.close(&e->s);
	close(e->fd);
	return NULL;
}

/* Post one RDMA write of the whole buffer and wait for it: ns, or 0. */
static uint64_t lb_write(struct lb_end *src, char *err, size_t errlen)
{
	struct twr wr = { .op = OP_WRITE };
	struct tcomp c;
	uint64_t a = now_ns();
	int n;

	if (transport_rc.post(&src->s, &wr, 1, err, errlen) != 1)
		return 0;
	do
		n = transport_rc.poll(&src->s, &c, 1, UINT64_MAX, err, errlen);
	while (n == 0 && now_ns() - a < 10 * NS_PER_SEC);
	if (n != 1 || c.status != TC_OK) {
		if (n >= 0)
			seterr(err, errlen, "first-touch write %s",
			       n ? "failed" : "timed out");
		return 0;
	}
	return now_ns() - a;
}

/* An untimed write of the same size into the first half of the target's
 * buffer pays for the connection's first large transfer (and faults that
 * half in); the timed writes then go to the second half, cold, then warm. */
static int lb_warmup(struct lb_end *src, char *err, size_t errlen)
{
	struct verbs_priv *v = src->s.priv;

	if (!lb_write(src, err, errlen))
		return -1;
	v->peer.vaddr += src->s.p.msg_size;
	return 0;
}

/* One round: a fresh connection, a warm-up, a cold write, a warm one. */
static int touch_round(struct tsess *s, uint64_t *cold, uint64_t *warm,
		       char *err, size_t errlen)
{
	const struct test_desc *t = test_find("rc_rdma_write_poll_lat");
	struct lb_end src, tgt;
	int sv[2], rc = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return seterr(err, errlen, "socketpair: %s", strerror(errno));
	lb_end_init(&src, s, t, false, sv[0]);
	lb_end_init(&tgt, s, t, true, sv[1]);
	err[0] = '\0';
	if (pthread_create(&tgt.th, NULL, lb_target, &tgt)) {
		close(sv[1]);
		seterr(err, errlen, "failed to start a thread");
	} else {
		if (transport_rc.open(&src.s, err, errlen) == 0 &&
		    lb_warmup(&src, err, errlen) == 0 &&
		    (*cold = lb_write(&src, err, errlen)) &&
		    (*warm = lb_write(&src, err, errlen)))
			rc = 0;
		close(sv[0]); /* ends the target's wait */
		sv[0] = -1;
		pthread_join(tgt.th, NULL);
		/* the target's own failure says more than the source's */
		if (tgt.rc)
			rc = seterr(err, errlen, "%s", tgt.err);
	}
	if (sv[0] >= 0)
		close(sv[0]);
	transport_rc.close(&src.s);
	free(src.s.priv);
	free(tgt.s.priv);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int first_touch(struct tsess *s, struct regmr_res *r, char *err,
		       size_t errlen)
{
	uint64_t cold[TOUCH_ROUNDS], warm[TOUCH_ROUNDS];

	err[0] = '\0';
	for (int i = 0; i < TOUCH_ROUNDS; i++)
		if (touch_round(s, &cold[i], &warm[i], err, errlen))
			return -1;
	qsort(cold, TOUCH_ROUNDS, sizeof(cold[0]), cmp_u64);
	qsort(warm, TOUCH_ROUNDS, sizeof(warm[0]), cmp_u64);
	r->touch_valid = true;
	r->touch_bytes = s->p.msg_size > REGMR_TOUCH_MAX ? REGMR_TOUCH_MAX
							  : s->p.msg_size;
	r->touch_cold = (double)cold[TOUCH_ROUNDS / 2] / 1e9;
	r->touch_warm = (double)warm[TOUCH_ROUNDS / 2] / 1e9;
	return 0;
}

/* ---- the test ---- */

static void rm_merge(struct regmr_res *r, struct rm_thread *th, uint32_t n)
{
	struct hist *reg = xmalloc(3 * sizeof(*reg));

	hist_init(&reg[0]);
	hist_init(&reg[1]);
	hist_init(&reg[2]);
	for (uint32_t i = 0; i < n; i++) {
		hist_merge(&reg[0], &th[i].reg);
		hist_merge(&reg[1], &th[i].dereg);
		hist_merge(&reg[2], &th[i].adv);
		r->regions += th[i].regions;
		/* implicit ODP registers the address space, not the size */
		if (th[i].reg_ns && r->odp != REGMR_ODP_IMPLICIT)
			r->reg_bw += (double)th[i].regions * r->size * 1e9 /
				     (double)th[i].reg_ns;
	}
	hist_summary(&reg[0], 1, &r->reg);
	hist_summary(&reg[1], 1, &r->dereg);
	hist_summary(&reg[2], 1, &r->advise);
	free(reg);
}

static int rm_threads(struct tsess *s, struct rm_run *run,
		      struct regmr_res *r, char *err, size_t errlen)
{
	uint32_t n = r->threads, started = 0;
	struct rm_thread *th = xcalloc(n, sizeof(*th));
	int rc = 0;

	run->deadline = s->p.no_msgs ? 0 : now_ns() + s->p.time;
	if (!s->p.no_msgs && !s->p.time) /* -t 0: until the core stops it */
		run->deadline = s->stop ? UINT64_MAX : now_ns();
	run->stop = s->stop;
	for (uint32_t i = 0; i < n; i++) {
		th[i].run = run;
		hist_init(&th[i].reg);
		hist_init(&th[i].dereg);
		hist_init(&th[i].adv);
	}
	for (; started < n; started++)
		if (pthread_create(&th[started].th, NULL, rm_thread_main,
				   &th[started])) {
			rc = seterr(err, errlen, "failed to start thread %u",
				    started + 1);
			break;
		}
	for (uint32_t i = 0; i < started; i++)
		pthread_join(th[i].th, NULL);
	for (uint32_t i = 0; i < started && rc == 0; i++)
		if (th[i].err[0])
			rc = seterr(err, errlen, "%s", th[i].err);
	if (rc == 0)
		rm_merge(r, th, n);
	free(th);
	return rc;
}

static int regmr_local(struct tsess *s, struct regmr_res *r, char *err,
		       size_t errlen)
{
	struct verbs_priv *v = s->priv;
	uint32_t n = s->p.threads ? s->p.threads : 1;
	struct rm_run run = { .p = &s->p };
	int rc;

	memset(r, 0, sizeof(*r));
	r->size = s->p.msg_size;
	r->threads = n;
	r->hugepages = s->p.hugepages;
	r->prefault = s->p.prefault;
	r->odp = s->p.odp;
	memset(v, 0, sizeof(*v));
	v->opened_once = true;
	rc = verbs_device(s, v, err, errlen);
	if (rc == 0 && s->p.hugepages)
		rc = verbs_huge_check(n * (verbs_map_len(s->p.msg_size, true) /
					   VERBS_HUGE_PAGE),
				      err, errlen);
	if (rc == 0)
		rc = verbs_odp_check(v->ctx, v->info.device, s->p.odp, err,
				     errlen);
	if (rc == 0 && !(run.pd = v->pd = ibv_alloc_pd(v->ctx)))
		rc = seterr(err, errlen,
			    "failed to allocate protection domain: %s",
			    strerror(errno));
	if (rc == 0)
		rc = rm_threads(s, &run, r, err, errlen);
	if (rc < 0 && v->no_device)
		rc = TP_NOT_HERE;
	verbs_close(s);
	if (rc == 0 && s->p.odp)
		rc = first_touch(s, r, err, errlen);
	return rc;
}

/* Not a data transport: no open, post or poll (test_transports() leaves
 * it out of --version's list). */
const struct transport transport_regmr = {
	.name = "regmr",
	.label = "reg_mr",
	.flags = TF_RDMA,
	.priv_size = sizeof(struct verbs_priv),
	.local = regmr_local,
};
