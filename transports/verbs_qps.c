// SPDX-License-Identifier: GPL-2.0-only
/*
 * Several QPs in one verbs session (--qps N, issue 20): the plan of their
 * queues, the limits checked before any is made, the arrays the data
 * path walks, the exchange of the QPNs beyond NODE's one, and the figures
 * the report gets.
 *
 * QP i of one end is peered with QP i of the other.  verbs_data.c posts
 * send-queue WRs to the QPs in turn (round robin, past any whose queue is
 * full), carries the QP's index in the upper half of each wr_id and counts
 * every completion on its QP; a receive is posted again on the QP that
 * consumed it (rx_ring), or to the SRQ, where the completion's QPN names
 * the QP.  The test's depth is kept outstanding over all QPs together:
 * each QP's queues hold its share of it, rounded up.
 *
 * With one QP every array is the one field of struct verbs_priv it
 * names, nothing here sends anything and nothing is allocated: 0.4.11's
 * exchange and data path are unchanged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/fdlimit.h"
#include "lib/tlv.h"
#include "lib/wire.h"
#include "verbs_int.h"

/*
 * What a device pins for a QP's queues, by mlx5's layout (an estimate:
 * providers differ): 64 bytes a send WQE, 16 a receive WQE with one
 * scatter entry, 64 a CQE, each queue's buffer in whole pages.
 */
#define SWQE_B 64
#define RWQE_B 16
#define CQE_B 64
#define FD_SPARE 64 /* descriptors the process needs besides the QPs' */
#define SOFTVERBS_VENDOR 0x02c0ffu /* softverbs: a socket per QP */
#define CAP_IPC_LOCK_BIT 14 /* linux/capability.h */

void verbs_qps_init(struct verbs_priv *v)
{
	v->nqp = v->ncq = 1;
	v->qps = &v->qp;
	v->cqs = &v->cq;
	v->peer_qpns = &v->peer.qpn;
	v->tgts = &v->tgt;
	v->peer_tgts = &v->xpeer.xrc_tgt_qpn;
	v->qc = &v->qc1;
	v->turn = UINT32_MAX;
}

/* Each of n QPs' share of total WRs, rounded up (0 stays 0). */
static uint32_t share(uint32_t total, uint32_t n)
{
	return (uint32_t)(((uint64_t)total + n - 1) / n);
}

void verbs_qps_plan(struct tsess *s, struct verbs_priv *v)
{
	uint32_t n = s->p.qps > 1 ? s->p.qps : 1;

	uint32_t mod = verbs_mod_of(s);

	v->nqp = n;
	v->ncq = n > 1 && s->p.cq_per_qp ? n : 1;
	v->srq_wr = v->recv_wr;
	v->send_share = v->send_wr;
	if (n == 1)
		return;
	v->send_wr = v->send_share = share(v->send_wr, n);
	v->recv_wr = share(v->recv_wr, n);
	/* --cq_moderation K: each QP's queue holds a run of K */
	if (v->send_wr && v->send_wr < mod)
		v->send_wr = mod;
	/* one WR per QP in its turn (a run with moderation), unless
	 * --post_list asks for chains */
	v->turn = s->p.post_list ? s->p.post_list : mod ? mod : 1;
}

/* Does the session receive through an SRQ (verbs_srq_create(), or
 * XRC's own)? */
static bool srq_used(const struct tsess *s, const struct verbs_priv *v)
{
	return (s->p.use_srq || v->k->srq_own) && v->srq_wr;
}

/* XRC makes a send and a receive (TGT) QP for each index. */
static bool xrc(const struct verbs_priv *v)
{
	return v->k->qp_type == IBV_QPT_XRC_SEND;
}

uint64_t verbs_cq_size(const struct tsess *s, const struct verbs_priv *v)
{
	uint64_t qps = v->ncq > 1 ? 1 : v->nqp;

	if (v->nqp == 1) /* as 0.4.11 sizes its one CQ */
		return (uint64_t)v->send_wr + v->recv_wr;
	/* the loop keeps no more sends outstanding than the shares add up
	 * to, whatever moderation made each queue hold */
	return qps * (qps > 1 ? v->send_share : v->send_wr) +
	       (srq_used(s, v) ? v->srq_wr : qps * v->recv_wr);
}

static uint64_t page_up(uint64_t b)
{
	long p = sysconf(_SC_PAGESIZE);
	uint64_t ps = p > 0 ? (uint64_t)p : 4096;

	return (b + ps - 1) / ps * ps;
}

/* Bytes a device would pin for one QP's queues (its share of a shared
 * CQ and SRQ), by the estimate above. */
static uint64_t queue_bytes(const struct tsess *s, const struct verbs_priv *v)
{
	bool srq = srq_used(s, v);
	uint64_t n = v->nqp;
	uint64_t b = page_up((uint64_t)v->send_wr * SWQE_B +
			     (srq ? 0 : (uint64_t)v->recv_wr * RWQE_B));
	uint64_t cq = page_up(verbs_cq_size(s, v) * CQE_B);

	b += v->ncq > 1 ? cq : (cq + n - 1) / n;
	if (srq)
		b += (page_up((uint64_t)v->srq_wr * RWQE_B) + n - 1) / n;
	return b;
}

/* "64 KiB", "1.5 MiB": a size for a message. */
static void size_str(uint64_t b, char *out, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB",
					    "TiB" };
	double x = (double)b;
	int u = 0;

	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, len, "%" PRIu64 " bytes", b);
	else
		snprintf(out, len, "%.3g %s", x, unit[u]);
}

/* Does this process hold CAP_IPC_LOCK (the kernel then lets it pin past
 * RLIMIT_MEMLOCK)? */
static bool ipc_lock_held(void)
{
	char line[128];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "re");
	bool held = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			held = (eff >> CAP_IPC_LOCK_BIT) & 1;
			break;
		}
	fclose(f);
	return held;
}

/* RLIMIT_MEMLOCK: the buffer and every QP's queues, as a device pins
 * them, unless the process may pin past its limit. */
static int memlock_check(const struct tsess *s, const struct verbs_priv *v,
			 char *err, size_t errlen)
{
	struct rlimit rl;
	uint64_t q = queue_bytes(s, v), buf = page_up(v->reglen), need, fit;
	char a[32], b[32], c[32], f[48];

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    ipc_lock_held())
		return 0;
	need = buf + v->nqp * q;
	if (need <= rl.rlim_cur)
		return 0;
	fit = rl.rlim_cur > buf ? (rl.rlim_cur - buf) / q : 0;
	size_str(need, a, sizeof(a));
	size_str(q, b, sizeof(b));
	size_str(rl.rlim_cur, c, sizeof(c));
	if (fit)
		snprintf(f, sizeof(f), "at most %" PRIu64 " QPs fit", fit);
	else
		snprintf(f, sizeof(f), "the buffer alone fills it");
	return seterr(err, errlen,
		      "--qps %u needs about %s of locked memory (the buffer and %s of queues per QP, as a device pins them), above RLIMIT_MEMLOCK (%s; ulimit -l); %s",
		      v->nqp, a, b, c, f);
}

/* RLIMIT_NOFILE over softverbs, which gives each QP a socket (it raises
 * the soft limit to the hard one as it needs to). */
static int nofile_check(const struct verbs_priv *v, char *err, size_t errlen)
{
	struct rlimit rl;
	uint64_t open, need, per = xrc(v) ? 2 : 1;

	if (v->dattr.vendor_id != SOFTVERBS_VENDOR ||
	    getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY)
		return 0;
	open = fdlimit_open();
	need = open + FD_SPARE + (uint64_t)v->nqp * per;
	if (need <= rl.rlim_max)
		return 0;
	return seterr(err, errlen,
		      "--qps %u needs %" PRIu64 " file descriptors on %s (softverbs takes one per QP%s; %" PRIu64 " are open), above RLIMIT_NOFILE's hard limit (%llu; ulimit -Hn); at most %" PRIu64 " QPs fit",
		      v->nqp, need, v->info.device,
		      per > 1 ? ", and XRC makes two for each" : "", open,
		      (unsigned long long)rl.rlim_max,
		      rl.rlim_max > open + FD_SPARE ?
			      (rl.rlim_max - open - FD_SPARE) / per :
			      0);
}

int verbs_qps_check(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	const char *dev = v->info.device;
	int max_qp = v->dattr.max_qp, max_cq = v->dattr.max_cq;
	uint32_t per = xrc(v) ? 2 : 1;
	/* --threads: each thread's share is made in turn; the device's
	 * limits are checked against them all at the first */
	uint32_t all = s->p.qps_test > v->nqp ? s->p.qps_test : v->nqp;
	uint32_t ncq = s->p.cq_per_qp && all > 1 ? all : 1;

	if (v->nqp < 2 && all < 2)
		return 0;
	if (s->p.use_cm)
		return seterr(err, errlen,
			      "--qps %u: several QPs are not connected through RDMA CM (-cm1)",
			      v->nqp);
	if (max_qp >= 0 && (uint64_t)all * per > (uint32_t)max_qp)
		return seterr(err, errlen,
			      "--qps %u is above the max_qp of %s (%d%s); at most %d QPs fit",
			      all, dev, max_qp,
			      per > 1 ? ", and XRC makes a send and a receive QP for each" : "",
			      max_qp / (int)per);
	if (max_cq >= 0 && ncq > (uint32_t)max_cq)
		return seterr(err, errlen,
			      "--qps %u with --cq_per_qp needs %u CQs, above the max_cq of %s (%d); at most %d QPs fit with a CQ each",
			      all, ncq, dev, max_cq, max_cq);
	if (v->dattr.max_mr < 1)
		return seterr(err, errlen,
			      "%s registers no memory (max_mr %d); all QPs share one region",
			      dev, v->dattr.max_mr);
	return memlock_check(s, v, err, errlen) ||
			       nofile_check(v, err, errlen) ?
		       -1 :
		       0;
}

/* n zeroed entries (NULL for none); *bad set when they cannot be had. */
static void *zalloc(size_t n, size_t size, bool *bad)
{
	void *p = n ? calloc(n, size) : NULL;

	if (n && !p)
		*bad = true;
	return p;
}

int verbs_qps_alloc(struct tsess *s, struct verbs_priv *v, char *err,
		    size_t errlen)
{
	bool bad = false;
	uint32_t n = v->nqp;

	if (n < 2)
		return 0;
	v->qps = zalloc(n, sizeof(*v->qps), &bad);
	v->peer_qpns = zalloc(n, sizeof(*v->peer_qpns), &bad);
	v->qc = zalloc(n, sizeof(*v->qc), &bad);
	v->qpn_ix = zalloc(n, sizeof(*v->qpn_ix), &bad);
	if (xrc(v)) {
		v->tgts = zalloc(n, sizeof(*v->tgts), &bad);
		v->peer_tgts = zalloc(n, sizeof(*v->peer_tgts), &bad);
	}
	if (v->ncq > 1)
		v->cqs = zalloc(v->ncq, sizeof(*v->cqs), &bad);
	if (!srq_used(s, v)) {
		v->rx_cap = n * v->recv_wr;
		v->rx_ring = zalloc(v->rx_cap, sizeof(*v->rx_ring), &bad);
	}
	if (bad)
		return seterr(err, errlen, "out of memory for %u QPs", n);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void verbs_qps_made(struct tsess *s, struct verbs_priv *v)
{
	uint32_t k = 0;

	if (v->nqp < 2)
		return;
	/* an SRQ receive names the QP it came in on: XRC's TGT QP */
	for (uint32_t i = 0; i < v->nqp; i++)
		v->qpn_ix[i] = (uint64_t)(v->tgt ? v->tgts[i] : v->qps[i])
					->qp_num << 32 |
			       i;
	qsort(v->qpn_ix, v->nqp, sizeof(*v->qpn_ix), cmp_u64);
	/* the first receives: every QP its share, interleaved */
	for (uint32_t r = 0; r < v->recv_wr && v->rx_ring; r++)
		for (uint32_t i = 0; i < v->nqp; i++)
			v->rx_ring[k++] = i;
	v->rx_head = 0;
	v->rx_len = k;
	s->rx_posted = k;
}

void verbs_qps_free(struct verbs_priv *v)
{
	if (v->qps != &v->qp)
		free(v->qps);
	if (v->cqs != &v->cq)
		free(v->cqs);
	if (v->peer_qpns != &v->peer.qpn)
		free(v->peer_qpns);
	if (v->tgts != &v->tgt)
		free(v->tgts);
	if (v->peer_tgts != &v->xpeer.xrc_tgt_qpn)
		free(v->peer_tgts);
	if (v->qc != &v->qc1)
		free(v->qc);
	free(v->rx_ring);
	free(v->qpn_ix);
	v->rx_ring = NULL;
	v->qpn_ix = NULL;
	v->rx_cap = v->rx_len = 0;
	verbs_qps_init(v);
}

/* The QPNs of qps [first, first + n) as one block into b (cap bytes): its
 * size. */
static size_t qpn_block(struct ibv_qp *const *qps, uint32_t first,
			uint32_t n, uint8_t *b, size_t cap)
{
	struct tlv_w w;
	size_t room;
	uint8_t *p;

	tlv_init(&w, b, cap);
	p = tlv_begin(&w, &room);
	if (!p || room < 4 + 4 * (size_t)n)
		return 0;
	wire_put(p, first, 4);
	for (uint32_t i = 0; i < n; i++)
		wire_put(p + 4 + 4 * i, qps[first + i]->qp_num, 4);
	tlv_end(&w, VQ_QPNS, 4 + 4 * (size_t)n);
	return tlv_finish(&w);
}

/* The peer's block of QPNs [first, first + n) into to: 0, or -1 if it is
 * not. */
static int qpn_take(uint32_t *to, const uint8_t *b, size_t len,
		    uint32_t first, uint32_t n)
{
	struct tlv_r r;
	const uint8_t *val;
	uint16_t type, vl;
	bool got = false;
	int rc;

	tlv_rinit(&r, b, len);
	while ((rc = tlv_next(&r, &type, &val, &vl)) == 1) {
		if (type != VQ_QPNS)
			continue;
		if (got || vl != 4 + 4 * n || wire_get(val, 4) != first)
			return -1;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t q = (uint32_t)wire_get(val + 4 + 4 * i, 4);

			if (!q || q > 0xffffff)
				return -1;
			to[first + i] = q;
		}
		got = true;
	}
	return rc == 0 && got ? 0 : -1;
}

/* Our QPs' numbers for the peer's, block by block (what names them in
 * errors). */
static int qpn_swap(struct tsess *s, struct verbs_priv *v,
		    struct ibv_qp *const *qps, uint32_t *to, const char *what,
		    char *err, size_t errlen)
{
	struct chan *ch = s->ch;
	uint8_t b[TLV_MAX];
	size_t n;

	for (uint32_t first = 0; first < v->nqp; first += VERBS_QPN_CHUNK) {
		uint32_t k = v->nqp - first < VERBS_QPN_CHUNK ? v->nqp - first :
							       VERBS_QPN_CHUNK;

		n = qpn_block(qps, first, k, b, sizeof(b));
		if (!n)
			return seterr(err, errlen,
				      "internal error: QPN block too large");
		if (ch->send_ext(ch, b, n, what, err, errlen) ||
		    ch->recv_ext(ch, b, sizeof(b), &n, what, err, errlen))
			return -1;
		if (qpn_take(to, b, n, first, k))
			return seterr(err, errlen,
				      "peer sent a malformed block of %s (QPs %u to %u)",
				      what, first, first + k - 1);
	}
	return 0;
}

int verbs_qpn_exchange(struct tsess *s, struct verbs_priv *v, char *err,
		       size_t errlen)
{
	if (v->nqp < 2)
		return 0;
	/* XRC: the send QPs', then the receive (TGT) QPs' */
	if (qpn_swap(s, v, v->qps, v->peer_qpns, "QP numbers", err, errlen) ||
	    (v->tgt && qpn_swap(s, v, v->tgts, v->peer_tgts,
				"XRC receive QP numbers", err, errlen)))
		return -1;
	if (v->peer_qpns[0] != v->peer.qpn)
		return seterr(err, errlen,
			      "peer's QP numbers do not start at its NODE's QP %u",
			      v->peer.qpn);
	return 0;
}

int verbs_qp_pick(struct verbs_priv *v, uint32_t *room)
{
	/* --cq_moderation: the QP with a run open takes the next ones */
	if (v->run_qp && v->qc[v->run_qp - 1].out < v->send_wr) {
		*room = v->send_wr - v->qc[v->run_qp - 1].out;
		return (int)v->run_qp - 1;
	}
	for (uint32_t k = 0; k < v->nqp; k++) {
		uint32_t i = v->qp_next;

		v->qp_next = v->qp_next + 1 < v->nqp ? v->qp_next + 1 : 0;
		if (v->nqp == 1) {
			*room = UINT32_MAX; /* the loop keeps it within */
			return 0;
		}
		if (v->qc[i].out < v->send_wr) {
			*room = v->send_wr - v->qc[i].out;
			return (int)i;
		}
	}
	return -1;
}

uint32_t verbs_qp_recv_next(struct verbs_priv *v)
{
	uint32_t i;

	if (!v->rx_len)
		return 0;
	i = v->rx_ring[v->rx_head];
	v->rx_head = v->rx_head + 1 < v->rx_cap ? v->rx_head + 1 : 0;
	v->rx_len--;
	return i;
}

uint32_t verbs_qp_of(const struct verbs_priv *v, const struct ibv_wc *wc)
{
	uint64_t key = (uint64_t)wc->qp_num << 32;
	uint32_t lo = 0, hi = v->nqp, i;

	if (v->nqp == 1)
		return 0;
	if (!(v->srq && (wc->opcode & IBV_WC_RECV))) {
		i = (uint32_t)(wc->wr_id >> 32);
		return i < v->nqp ? i : 0;
	}
	while (lo < hi) { /* the first entry at or above key */
		uint32_t m = lo + (hi - lo) / 2;

		if (v->qpn_ix[m] < key)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < v->nqp && v->qpn_ix[lo] >> 32 == wc->qp_num ?
		       (uint32_t)v->qpn_ix[lo] :
		       0;
}

void verbs_qp_posted(struct verbs_priv *v, uint32_t qi, uint32_t k,
		     enum op op)
{
	struct verbs_qpc *q = &v->qc[qi];

	q->out += k;
	if (op != OP_READ) /* sends, writes, atomics: counted when posted */
		q->msgs += k;
}

void verbs_qp_done(struct verbs_priv *v, uint32_t qi, enum op op, bool stray)
{
	struct verbs_qpc *q = &v->qc[qi];

	if (op == OP_RECV) {
		if (v->rx_ring && v->rx_len < v->rx_cap) { /* owed a repost */
			uint32_t at = v->rx_head + v->rx_len;

			v->rx_ring[at < v->rx_cap ? at : at - v->rx_cap] = qi;
			v->rx_len++;
		}
		if (!stray)
			q->msgs++;
		return;
	}
	if (q->out)
		q->out--;
	if (op == OP_READ)
		q->msgs++;
}

uint64_t verbs_proc_bytes(void)
{
	unsigned long long size, res;
	long p = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &res);
	fclose(f);
	return n == 2 && p > 0 ? (uint64_t)res * (uint64_t)p : 0;
}

void verbs_qp_stats(const struct tsess *s, struct qp_side *q,
		    uint64_t *counts)
{
	const struct verbs_priv *v = s->priv;
	uint32_t n = v->nqp;

	q->valid = true;
	q->n = n;
	q->cq_per_qp = v->ncq > 1;
	q->setup_ns = v->setup_ns;
	q->mr_B = (v->reglen + n - 1) / n;
	q->queue_B = queue_bytes(s, v);
	q->proc_B = (v->proc_B + n - 1) / n;
	for (uint32_t i = 0; i < n; i++)
		counts[i] = v->qc[i].msgs;
}
