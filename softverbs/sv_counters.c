// SPDX-License-Identifier: MIT
/*
 * Port counters in a planted sysfs tree (SOFTVERBS_SYSFS=DIR, made by
 * softverbs/sysfs-plant).
 *
 * The counts live in a file every process of the port maps shared,
 * DIR/.softverbs/<dev>.port1.counts, and are added to with atomics, so
 * processes of one node (or both ends of a test on one tree) lose nothing.
 * They are rendered into the files a kernel shows,
 * DIR/class/infiniband/<dev>/ports/1/counters/<name> and (when the tree
 * has that directory) hw_counters/<name>, each written whole to a
 * temporary file in DIR/.softverbs/ and renamed into place: a reader sees
 * the old number or the new one.  Renders are serialised by flock() on
 * the counts file and read the counts after taking it, so a file never
 * goes backwards.  A thread renders at most every 50 ms while counts
 * change; closing a QP or a context, and the process's exit, render at
 * once.  Without SOFTVERBS_SYSFS nothing here is active.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sv_internal.h"

#define RENDER_NS (50 * 1000000ull)

/* file names, by counter; hw: under hw_counters/ */
static const struct {
	const char *name;
	bool hw;
	bool words;	/* bytes, shown in units of 4 bytes */
} names[SV_C_N] = {
	[SV_C_XMIT_DATA] = { "port_xmit_data", false, true },
	[SV_C_RCV_DATA] = { "port_rcv_data", false, true },
	[SV_C_XMIT_PKTS] = { "port_xmit_packets", false, false },
	[SV_C_RCV_PKTS] = { "port_rcv_packets", false, false },
	[SV_C_UCAST_XMIT] = { "unicast_xmit_packets", false, false },
	[SV_C_UCAST_RCV] = { "unicast_rcv_packets", false, false },
	[SV_C_XMIT_WAIT] = { "port_xmit_wait", false, false },
	[SV_C_SYMBOL_ERR] = { "symbol_error", false, false },
	[SV_C_LINK_RECOVERY] = { "link_error_recovery", false, false },
	[SV_C_LINK_DOWNED] = { "link_downed", false, false },
	[SV_C_RCV_ERRORS] = { "port_rcv_errors", false, false },
	[SV_C_XMIT_DISCARDS] = { "port_xmit_discards", false, false },
	[SV_C_OUT_OF_SEQ] = { "out_of_sequence", true, false },
	[SV_C_PKT_SEQ_ERR] = { "packet_seq_err", true, false },
	[SV_C_ACK_TIMEOUT] = { "local_ack_timeout_err", true, false },
	[SV_C_RNR_NAK] = { "rnr_nak_retry_err", true, false },
	[SV_C_CNP_SENT] = { "np_cnp_sent", true, false },
	[SV_C_CNP_HANDLED] = { "rp_cnp_handled", true, false },
	[SV_C_ECN_MARKED] = { "np_ecn_marked_roce_packets", true, false },
	[SV_C_OUT_OF_BUFFER] = { "out_of_buffer", true, false },
};

struct shared {
	uint64_t gen;		/* bumped by every add */
	uint64_t rendered;	/* gen of the last render */
	uint64_t c[SV_C_N];
};

static struct shared *sh;
static int sh_fd = -1;
static bool has_hw;
static char port_dir[sizeof(sv_cfg.sysfs) + 128];
static char tmp_dir[sizeof(sv_cfg.sysfs) + 32];
static pid_t thread_pid;
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t render_mu = PTHREAD_MUTEX_INITIALIZER;

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* write DIR/<sub>/<name> = v, whole (temp + rename) */
static void put(const char *sub, const char *name, uint64_t v)
{
	char t[sizeof(tmp_dir) + 96], f[sizeof(port_dir) + 96], b[32];
	int fd, n;

	snprintf(t, sizeof(t), "%s/%s.%d", tmp_dir, name, (int)getpid());
	snprintf(f, sizeof(f), "%s/%s/%s", port_dir, sub, name);
	n = snprintf(b, sizeof(b), "%llu\n", (unsigned long long)v);
	fd = open(t, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, b, (size_t)n) != n || close(fd) || rename(t, f))
		unlink(t);
}

/*
 * render if anything changed; one render at a time in the process
 * (render_mu: flock does not exclude threads sharing the descriptor) and
 * on the port (flock); wait: block on the process's lock, else try it
 */
static bool render(bool wait)
{
	uint64_t g, v;
	int i;

	if (!sh)
		return true;
	g = __atomic_load_n(&sh->gen, __ATOMIC_ACQUIRE);
	if (g == __atomic_load_n(&sh->rendered, __ATOMIC_ACQUIRE))
		return true;
	if (wait)
		pthread_mutex_lock(&render_mu);
	else if (pthread_mutex_trylock(&render_mu))
		return false;
	if (flock(sh_fd, LOCK_EX)) {
		pthread_mutex_unlock(&render_mu);
		return true;
	}
	g = __atomic_load_n(&sh->gen, __ATOMIC_ACQUIRE);
	if (g != __atomic_load_n(&sh->rendered, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < SV_C_N; i++) {
			if (names[i].hw && !has_hw)
				continue;
			v = __atomic_load_n(&sh->c[i], __ATOMIC_RELAXED);
			put(names[i].hw ? "hw_counters" : "counters",
			    names[i].name, names[i].words ? v / 4 : v);
		}
		__atomic_store_n(&sh->rendered, g, __ATOMIC_RELEASE);
	}
	flock(sh_fd, LOCK_UN);
	pthread_mutex_unlock(&render_mu);
	return true;
}

static void *render_thread(void *arg)
{
	struct timespec ts = { 0, (long)RENDER_NS };

	(void)arg;
	for (;;) {
		nanosleep(&ts, NULL);
		(void)render(true);
	}
	return NULL;
}

/* fork: the child must not inherit a render lock held by another thread */
static void fork_prepare(void)
{
	pthread_mutex_lock(&render_mu);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&render_mu);
}

/* at the first context of a process (and of a forked child) */
void sv_cnt_init(void)
{
	char f[sizeof(port_dir) + 96];
	pthread_attr_t at;
	pthread_t t;
	void *m;

	if (!sv_cfg.sysfs[0])
		return;
	pthread_mutex_lock(&init_mu);
	if (sh && thread_pid == getpid())
		goto out;
	if (!sh) {
		snprintf(port_dir, sizeof(port_dir),
			 "%s/class/infiniband/%s/ports/1", sv_cfg.sysfs,
			 sv_cfg.dev_name);
		snprintf(f, sizeof(f), "%s/counters", port_dir);
		if (!is_dir(f)) {
			sv_log("SOFTVERBS_SYSFS: no directory %s (make the "
			       "tree with softverbs/sysfs-plant): no port "
			       "counters", f);
			goto out;
		}
		snprintf(f, sizeof(f), "%s/hw_counters", port_dir);
		has_hw = is_dir(f);
		snprintf(tmp_dir, sizeof(tmp_dir), "%s/.softverbs",
			 sv_cfg.sysfs);
		if (mkdir(tmp_dir, 0755) && errno != EEXIST) {
			sv_log("SOFTVERBS_SYSFS: cannot make %s: %s", tmp_dir,
			       strerror(errno));
			goto out;
		}
		snprintf(f, sizeof(f), "%s/%s.port1.counts", tmp_dir,
			 sv_cfg.dev_name);
		sh_fd = open(f, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (sh_fd < 0 || ftruncate(sh_fd, sizeof(*sh)) ||
		    (m = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			      MAP_SHARED, sh_fd, 0)) == MAP_FAILED) {
			sv_log("SOFTVERBS_SYSFS: cannot map %s: %s", f,
			       strerror(errno));
			if (sh_fd >= 0)
				close(sh_fd);
			sh_fd = -1;
			goto out;
		}
		sh = m;
		pthread_atfork(fork_prepare, fork_done, fork_done);
	}
	/* the render thread (again in a forked child, which has none) */
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, render_thread, NULL) == 0)
		thread_pid = getpid();
	pthread_attr_destroy(&at);
out:
	pthread_mutex_unlock(&init_mu);
}

void sv_cnt_add(enum sv_cnt c, uint64_t n)
{
	if (!sh || !n)
		return;
	__atomic_add_fetch(&sh->c[c], n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->gen, 1, __ATOMIC_RELEASE);
}

void sv_cnt_flush(void)
{
	(void)render(true);
}

/* the process ends: what it counted last is rendered.  The process's lock
 * is only tried (for up to 100 ms: the render thread may hold it; exit
 * may also come from a signal that interrupted a render of this thread) */
__attribute__((destructor)) static void sv_cnt_at_exit(void)
{
	int i;

	for (i = 0; i < 1000 && !render(false); i++)
		usleep(100);
}

/*
 * Wire bytes of one packet besides its payload, as a port counts them
 * (PortXmitData: from the LRH to the ICRC, VCRC excluded; RoCE: the
 * Ethernet frame with its FCS):
 *   IB:   LRH 8 + BTH 12 + ICRC 4 (+ GRH 40 when global)
 *   RoCE: Ethernet 14 + FCS 4 + BTH 12 + ICRC 4 + IPv4 20 + UDP 8 (v2 over
 *         IPv4), IPv6 40 + UDP 8 (v2 over IPv6), GRH 40 (v1)
 */
static uint32_t base_bytes(const struct sv_pkt *p)
{
	if (!sv_cfg.roce)
		return 24 + ((p->flags & SV_F_GRH) ? 40 : 0);
	if (p->gid_type == IBV_GID_TYPE_ROCE_V2)
		return 34 + (sv_gid_is_v4(p->sgid) ? 28 : 48);
	return 34 + 40;
}

/* the extended transport headers of a message, once (its first packet) */
static uint32_t ext_bytes(const struct sv_pkt *p)
{
	uint32_t b = (p->flags & SV_F_IMM) ? 4 : 0;	/* ImmDt */

	if (!(p->flags & SV_F_FIRST) && p->op <= SV_OP_FETCH_ADD)
		return 0;
	switch (p->op) {
	case SV_OP_WRITE:
	case SV_OP_READ_REQ:
		b += 16;		/* RETH */
		break;
	case SV_OP_CMP_SWAP:
	case SV_OP_FETCH_ADD:
		b += 28;		/* AtomicETH */
		break;
	case SV_OP_ACK:
	case SV_OP_NAK:
	case SV_OP_READ_RESP:
	case SV_OP_NOTE:
		b += 4;			/* AETH */
		break;
	case SV_OP_ATOMIC_RESP:
		b += 12;		/* AETH, AtomicAckETH */
		break;
	default:
		break;
	}
	if (p->qp_type == IBV_QPT_UD)
		b += 8;			/* DETH */
	return b;
}

/* packets of a chunk of chunk bytes at this MTU (1 for none) */
uint32_t sv_cnt_pkts(uint32_t chunk, uint32_t mtu)
{
	return chunk ? (chunk + mtu - 1) / mtu : 1;
}

void sv_cnt_wire(bool xmit, const struct sv_pkt *p, uint32_t mtu)
{
	uint32_t n;

	if (!sh || sv_pkt_is_meta(p))
		return;
	n = sv_cnt_pkts(p->chunk, mtu);
	sv_cnt_add(xmit ? SV_C_XMIT_DATA : SV_C_RCV_DATA,
		   (uint64_t)p->chunk + (uint64_t)n * base_bytes(p) +
			   ext_bytes(p));
	sv_cnt_add(xmit ? SV_C_XMIT_PKTS : SV_C_RCV_PKTS, n);
	sv_cnt_add(xmit ? SV_C_UCAST_XMIT : SV_C_UCAST_RCV, n);
}

uint32_t sv_qp_mtu(const struct sv_qp *qp)
{
	if (!qp || qp->qpx.qp_base.qp_type == IBV_QPT_UD ||
	    !qp->attr.path_mtu)
		return 128u << sv_cfg.mtu;
	return 128u << qp->attr.path_mtu;
}

bool sv_cnt_rx(struct sv_context *ctx, struct sv_qp *qp,
	       const struct sv_pkt *p)
{
	(void)ctx;
	if (p->op == SV_OP_NOTE) {
		sv_cnt_wire(false, p, sv_qp_mtu(qp));
		if (p->syndrome == SV_C_RNR_NAK ||
		    p->syndrome == SV_C_CNP_HANDLED)
			sv_cnt_add((enum sv_cnt)p->syndrome, 1);
		return true;
	}
	if (p->flags & SV_F_CORRUPT) {	/* a bad CRC: the port drops it */
		sv_cnt_add(SV_C_RCV_ERRORS, p->npkts ? p->npkts : 1);
		return true;
	}
	sv_cnt_wire(false, p, sv_qp_mtu(qp));
	/* an ECN-marked message: the notification point answers each with
	 * a CNP (the NIC rate-limits them; softverbs does not) */
	if ((p->flags & SV_F_ECN) && (p->flags & SV_F_FIRST)) {
		sv_cnt_add(SV_C_ECN_MARKED, p->npkts ? p->npkts : 1);
		sv_cnt_add(SV_C_CNP_SENT, 1);
		sv_cnt_note(qp, p, SV_C_CNP_HANDLED);
	}
	return false;
}

void sv_cnt_note(struct sv_qp *qp, const struct sv_pkt *pkt, enum sv_cnt c)
{
	struct sv_pkt r;

	memset(&r, 0, sizeof(r));
	r.op = SV_OP_NOTE;
	r.syndrome = (uint8_t)c;
	r.qp_type = (uint8_t)qp->qpx.qp_base.qp_type;
	r.src_qpn = qp->qpn;
	r.msn = pkt->msn;
	sv_respond(qp->ctx, qp, pkt->src_node, pkt->src_qpn, &r, NULL, 0);
}
