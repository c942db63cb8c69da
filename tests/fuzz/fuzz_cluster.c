// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for cluster mode's message decoder: whatever bytes a
 * rank (or a stranger on the rendezvous port) sends, decoding must not
 * crash or read out of bounds, strings must end inside their buffers, and
 * what decodes must encode and decode again to the same message.
 *
 * Every message type (JOIN, RUN, RESULT, DONE, PING, HELLO, and a group's
 * READY, GO, STOP and CLOCK) is also built
 * from the input (its first byte picks the type, the rest fills the
 * fields, strings included) and must survive encode and decode field for
 * field, so each run covers every type whatever the fuzzer finds by
 * itself.
 *
 * Sealing (a MAC with the job secret, nonces, sequence numbers): the raw
 * input, opened as rank 0 opens a JOIN and as a rank opens rank 0's
 * messages, must be refused unless it is genuine (it cannot be: the
 * fuzzer does not know the key); the built message, sealed, must open
 * once, to the same message, and not a second time (a replay), nor with
 * one of its bytes changed (the one the input picks), nor at the end
 * that sent it (a reflection).
 */
#include <stdint.h>
#include <string.h>

#include "cluster/cluster_msg.h"
#include "core/auth.h"
#include "lib/text.h"
#include "lib/tlv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* take N bytes of the input (zeros once it is used up) */
static void take(const uint8_t **d, size_t *left, void *dst, size_t n)
{
	size_t k = *left < n ? *left : n;

	memset(dst, 0, n);
	memcpy(dst, *d, k);
	*d += k;
	*left -= k;
}

/* a string of the input's bytes (no NUL inside), at most cap - 1 long */
static void take_str(const uint8_t **d, size_t *left, char *s, size_t cap)
{
	uint8_t len = 0;
	size_t n = 0;

	take(d, left, &len, 1);
	memset(s, 0, cap);
	while (n < len && n < cap - 1 && *left) {
		s[n] = (char)(**d ? **d : 'x');
		n++;
		(*d)++;
		(*left)--;
	}
}

static struct auth_secret key = { 8, "fuzz key" };

/* Both ends of one connection after HELLO. */
static void ends(struct cchan *r0, struct cchan *rk)
{
	memset(r0, 0, sizeof(*r0));
	memset(rk, 0, sizeof(*rk));
	r0->key = rk->key = &key;
	r0->rank0 = true;
	memset(r0->n0, 0xa5, CMSG_NONCE);
	memset(rk->n0, 0xa5, CMSG_NONCE);
	memset(rk->nr, 0x5a, CMSG_NONCE);
	memset(r0->nr, 0x5a, CMSG_NONCE); /* as a JOIN would tell it */
}

/*
 * m sealed by the end that sends its type, opened by the other: once, to
 * the same message; not twice, not changed, not reflected.  d picks the
 * byte to change.
 */
static void sealed(const struct cmsg *m, const uint8_t *d, size_t left)
{
	struct cchan r0, rk, t;
	struct cchan *from, *to;
	struct cmsg o;
	uint8_t b[CMSG_WIRE_MAX], e[CMSG_WIRE_MAX];
	char why[256];
	size_t n;
	int rc;

	if (!auth_built() || m->type == CMSG_HELLO)
		return;
	ends(&r0, &rk);
	if (m->type == CMSG_JOIN || m->type == CMSG_RESULT ||
	    m->type == CMSG_READY) {
		from = &rk;
		to = &r0;
		if (m->type != CMSG_JOIN) { /* rank 0 takes a JOIN first */
			struct cmsg j;

			memset(&j, 0, sizeof(j));
			j.type = CMSG_JOIN;
			n = cmsg_seal(&rk, &j, b, sizeof(b));
			if (!n || cmsg_open(&r0, b, n, &o, why, sizeof(why)))
				__builtin_trap();
		}
	} else {
		from = &r0;
		to = &rk;
	}
	n = cmsg_seal(from, m, b, sizeof(b));
	if (!n)
		__builtin_trap();
	memcpy(e, b, n);
	e[(left ? d[0] | (size_t)d[left > 1] << 8 : 0) % n] ^=
		(uint8_t)(left > 2 ? d[2] | 1 : 1);
	t = *to;
	if (cmsg_open(&t, e, n, &o, why, sizeof(why)) >= 0)
		__builtin_trap(); /* changed, and still opened */
	t = *from;
	if (cmsg_open(&t, b, n, &o, why, sizeof(why)) >= 0)
		__builtin_trap(); /* reflected to its sender */
	rc = cmsg_open(to, b, n, &o, why, sizeof(why));
	/* A RESULT's figures may be refused (1), still decoded. */
	if (rc < 0 || o.type != m->type ||
	    (rc == 1 && m->type != CMSG_RESULT) ||
	    (m->type == CMSG_RESULT &&
	     (o.u.result.job != m->u.result.job ||
	      strcmp(o.u.result.err, m->u.result.err))))
		__builtin_trap();
	if (cmsg_open(to, b, n, &o, why, sizeof(why)) >= 0)
		__builtin_trap(); /* replayed */
}

static void built(const uint8_t *d, size_t left)
{
	struct cmsg m, m2;
	uint8_t b[TLV_MAX], b2[TLV_MAX];
	uint8_t t = 0;
	size_t n;

	memset(&m, 0, sizeof(m));
	take(&d, &left, &t, 1);
	m.type = (enum cmsg_type)(CMSG_JOIN + t % 10);
	switch (m.type) {
	case CMSG_JOIN:
		take(&d, &left, &m.u.join.rank, 12);
		take(&d, &left, &m.u.join.port, 2);
		take_str(&d, &left, m.u.join.host, CMSG_HOST_MAX);
		/* peer text decodes cleaned (lib/text.h): the round trip
		 * below holds for what the decoder can give back */
		text_clean(m.u.join.host);
		break;
	case CMSG_RUN:
		take(&d, &left, &m.u.run.job, 16);
		take(&d, &left, &m.u.run.port, 2);
		take_str(&d, &left, m.u.run.addr, CMSG_HOST_MAX);
		take(&d, &left, &t, 1);
		m.u.run.flow = t % (CRUN_ALL + 1);
		break;
	case CMSG_READY:
	case CMSG_STOP:
		take(&d, &left, &m.u.go.job, 4);
		break;
	case CMSG_GO:
		take(&d, &left, &m.u.go.job, 4);
		take(&d, &left, &m.u.go.start, 8);
		break;
	case CMSG_CLOCK:
		take(&d, &left, &m.u.clock.probe, 4);
		take(&d, &left, &m.u.clock.now, 8);
		break;
	case CMSG_RESULT:
		take(&d, &left, &m.u.result.job, 8);
		take_str(&d, &left, m.u.result.err, CMSG_ERR_MAX);
		text_clean(m.u.result.err);
		take(&d, &left, &m.u.result.r, sizeof(m.u.result.r));
		take(&d, &left, &m.u.result.late, 8);
		{ /* raw bytes: a bool must be 0 or 1, the limit's text a
		   * printable string, as the product makes them */
			uint8_t v;
			struct ceiling *ce = &m.u.result.r.ceil;

			memcpy(&v, &ce->valid, 1);
			ce->valid = v & 1;
			ce->what[sizeof(ce->what) - 1] = '\0';
			text_clean(ce->what);
		}
		break;
	case CMSG_HELLO:
		take(&d, &left, m.u.nonce, CMSG_NONCE);
		break;
	case CMSG_DONE:
	case CMSG_PING:
		break;
	}
	sealed(&m, d, left);
	n = cmsg_encode(&m, b, sizeof(b));
	if (!n || cmsg_decode(b, n, &m2) < 0 || m2.type != m.type)
		__builtin_trap();
	switch (m.type) {
	case CMSG_JOIN:
		if (m2.u.join.rank != m.u.join.rank ||
		    m2.u.join.size != m.u.join.size ||
		    m2.u.join.local_rank != m.u.join.local_rank ||
		    m2.u.join.port != m.u.join.port ||
		    strcmp(m2.u.join.host, m.u.join.host))
			__builtin_trap();
		break;
	case CMSG_RUN:
		if (memcmp(&m2.u.run, &m.u.run, sizeof(m.u.run)))
			__builtin_trap();
		break;
	case CMSG_RESULT:
		if (m2.u.result.job != m.u.result.job ||
		    m2.u.result.status != m.u.result.status ||
		    m2.u.result.late != m.u.result.late ||
		    strcmp(m2.u.result.err, m.u.result.err))
			__builtin_trap();
		break;
	case CMSG_HELLO:
		if (memcmp(m2.u.nonce, m.u.nonce, CMSG_NONCE))
			__builtin_trap();
		break;
	case CMSG_READY:
	case CMSG_STOP:
	case CMSG_GO:
	case CMSG_CLOCK: /* a u32 and a u64 (READY, STOP: 0), zero padded */
		if (memcmp(&m2.u.go, &m.u.go, sizeof(m.u.go)))
			__builtin_trap();
		break;
	case CMSG_DONE:
	case CMSG_PING:
		break;
	}
	/* what decoded encodes to the same bytes again */
	if (cmsg_encode(&m2, b2, sizeof(b2)) != n || memcmp(b, b2, n))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmsg m, m2;
	uint8_t b[TLV_MAX], b2[TLV_MAX];
	size_t n;

	built(data, size);
	/* The raw input is not genuine, whoever opens it. */
	if (auth_built()) {
		struct cchan r0, rk;
		char why[256];

		ends(&r0, &rk);
		if (cmsg_open(&r0, data, size, &m, why, sizeof(why)) >= 0 ||
		    cmsg_open(&rk, data, size, &m, why, sizeof(why)) >= 0)
			__builtin_trap();
	}
	if (cmsg_decode(data, size, &m) < 0)
		return 0;
	if (strnlen(m.u.join.host, CMSG_HOST_MAX) >= CMSG_HOST_MAX ||
	    strnlen(m.u.result.err, CMSG_ERR_MAX) >= CMSG_ERR_MAX)
		__builtin_trap();
	/* whatever a peer sent, its host name and error text are printable */
	if (m.type == CMSG_JOIN || m.type == CMSG_RESULT) {
		const char *s = m.type == CMSG_JOIN ? m.u.join.host
						    : m.u.result.err;

		for (; *s; s++)
			if (!text_ok((unsigned char)*s))
				__builtin_trap();
	}
	n = cmsg_encode(&m, b, sizeof(b));
	if (!n || cmsg_decode(b, n, &m2) < 0 || m2.type != m.type ||
	    cmsg_encode(&m2, b2, sizeof(b2)) != n || memcmp(b, b2, n))
		__builtin_trap();
	return 0;
}
