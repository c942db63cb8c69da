// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared-secret authentication; see auth.h.  The crypto is libcrypto's
 * (HMAC-SHA256 through EVP_MAC, CRYPTO_memcmp); nothing here hashes by
 * hand.  The secret lives in one heap block that auth_free() wipes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_AUTH
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#endif

#include "auth.h"
#include "lib/tlv.h"
#include "lib/err.h"
#include "lib/alloc.h"

#define AUTH_LABEL_CLIENT "qperf-0.5 auth client"
#define AUTH_LABEL_SERVER "qperf-0.5 auth server"
#define AUTHX_MAC 1 /* item of both proof blocks: AUTH_MAC bytes */
#define AUTH_BLOCK 64 /* a proof block: header + one item, with room */

bool auth_built(void)
{
#ifdef HAVE_AUTH
	return true;
#else
	return false;
#endif
}

void auth_free(struct auth_secret *s)
{
	if (!s)
		return;
	explicit_bzero(s, sizeof(*s));
	free(s);
}

/* Read at most cap bytes of fd into buf; returns the count or -1. */
static ssize_t read_all(int fd, uint8_t *buf, size_t cap)
{
	size_t n = 0;

	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

struct auth_secret *auth_load(const char *path, const char *from, char *err,
			      size_t errlen)
{
	struct auth_secret *s;
	struct stat st;
	ssize_t n;
	int fd;

	if (!auth_built()) {
		seterr(err, errlen,
		       "%s: this qperf was built without shared-secret support (NO_AUTH=1 or no libcrypto); rebuild it with libssl-dev installed",
		       from);
		return NULL;
	}
	/* O_NONBLOCK: a FIFO planted there must not hang us. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		seterr_errno(err, errlen, errno, "%s: cannot open \"%.200s\"",
			     from, path);
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		seterr_errno(err, errlen, errno, "%s: cannot read \"%.200s\"",
			     from, path);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen, "%s: \"%.200s\" is not a regular file",
		       from, path);
		close(fd);
		return NULL;
	}
	if (st.st_mode & 077) {
		seterr(err, errlen,
		       "%s: \"%.200s\" has mode %04o: group or others may access it; chmod 600 it",
		       from, path, (unsigned)(st.st_mode & 07777));
		close(fd);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	/* The whole file, newline included; a full buffer is too long. */
	n = read_all(fd, s->key, sizeof(s->key));
	if (n < 0) {
		seterr_errno(err, errlen, errno, "%s: cannot read \"%.200s\"",
			     from, path);
		goto fail;
	}
	s->len = (size_t)n;
	if (s->len && s->key[s->len - 1] == '\n') {
		s->len--;
		if (s->len && s->key[s->len - 1] == '\r')
			s->len--;
	}
	if (s->len > AUTH_SECRET_MAX) {
		seterr(err, errlen,
		       "%s: \"%.200s\" is longer than %d bytes, the most a secret may have (a trailing newline is not counted)",
		       from, path, AUTH_SECRET_MAX);
		goto fail;
	}
	if (s->len == 0) {
		seterr(err, errlen, "%s: \"%.200s\" is empty; put the secret in it (e.g. head -c 32 /dev/urandom | base64)",
		       from, path);
		goto fail;
	}
	close(fd);
	return s;
fail:
	close(fd);
	auth_free(s);
	return NULL;
}

int auth_from_plan(const char *path, struct auth_secret **out, char *err,
		   size_t errlen)
{
	const char *from = "--secret_file";

	*out = NULL;
	if (!path) {
		path = getenv(AUTH_ENV);
		from = AUTH_ENV;
		if (!path || !*path)
			return 0;
	}
	*out = auth_load(path, from, err, errlen);
	return *out ? 0 : -1;
}

#ifdef HAVE_AUTH
int auth_mac(const struct auth_secret *s, const char *label,
	     const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
	     const uint8_t *c, size_t clen, const uint8_t *d, size_t dlen,
	     uint8_t mac[AUTH_MAC])
{
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest,
						 0),
		OSSL_PARAM_construct_end()
	};
	EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
	size_t out = 0;
	int ok = ctx && EVP_MAC_init(ctx, s->key, s->len, params) &&
		 EVP_MAC_update(ctx, (const uint8_t *)label, strlen(label)) &&
		 (!alen || EVP_MAC_update(ctx, a, alen)) &&
		 (!blen || EVP_MAC_update(ctx, b, blen)) &&
		 (!clen || EVP_MAC_update(ctx, c, clen)) &&
		 (!dlen || EVP_MAC_update(ctx, d, dlen)) &&
		 EVP_MAC_final(ctx, mac, &out, AUTH_MAC) && out == AUTH_MAC;

	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(m);
	return ok ? 0 : -1;
}

bool auth_equal(const uint8_t *x, const uint8_t *y, size_t n)
{
	return CRYPTO_memcmp(x, y, n) == 0;
}
#else
int auth_mac(const struct auth_secret *s, const char *label,
	     const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
	     const uint8_t *c, size_t clen, const uint8_t *d, size_t dlen,
	     uint8_t mac[AUTH_MAC])
{
	(void)s, (void)label, (void)a, (void)alen, (void)b, (void)blen;
	(void)c, (void)clen, (void)d, (void)dlen;
	memset(mac, 0, AUTH_MAC);
	return -1; /* no secret can be loaded in this build */
}

bool auth_equal(const uint8_t *x, const uint8_t *y, size_t n)
{
	(void)x, (void)y, (void)n;
	return false;
}
#endif

/* The MAC of one side over the transcript (the server's also covers the
 * client's MAC). */
static int side_mac(const struct auth_secret *s, bool server,
		    const struct auth_transcript *t, const uint8_t *client,
		    uint8_t mac[AUTH_MAC], char *err, size_t errlen)
{
	if (auth_mac(s, server ? AUTH_LABEL_SERVER : AUTH_LABEL_CLIENT, t->req,
		     REQ_SIZE, t->reqx, t->reqx_len, t->hello, t->hello_len,
		     client, server ? AUTH_MAC : 0, mac) < 0)
		return seterr(err, errlen, "internal error: HMAC failed");
	return 0;
}

static int send_proof(struct ctl *c, const uint8_t mac[AUTH_MAC],
		      const char *item, char *err, size_t errlen)
{
	uint8_t blk[AUTH_BLOCK];
	struct tlv_w w;
	size_t n;

	tlv_init(&w, blk, sizeof(blk));
	tlv_bytes(&w, AUTHX_MAC, mac, AUTH_MAC);
	n = tlv_finish(&w);
	return ctl_send_block(c, blk, n, item, err, errlen);
}

/* A proof block's MAC; one of another length is not a proof. */
static const struct tlv_field proof_tab[] = {
	{ .type = AUTHX_MAC, .kind = TLV_BLOB, .size = AUTH_MAC,
	  .flags = TLVF_LAX },
};

int auth_proof_decode(const uint8_t *blk, size_t len, uint8_t mac[AUTH_MAC])
{
	uint64_t seen;

	if (len < TLV_HDR || tlv_header(blk) != len)
		return 1; /* an early block shape: no proof in it */
	if (tlv_decode(blk, len, proof_tab, 1, mac, &seen) < 0)
		return 1;
	return seen & TLV_BIT(AUTHX_MAC) ? 0 : 1;
}

/* Receive a proof block; 0 and mac filled, 1 if it holds no MAC, -1. */
static int recv_proof(struct ctl *c, uint8_t mac[AUTH_MAC], const char *item,
		      char *err, size_t errlen)
{
	uint8_t blk[AUTH_BLOCK];
	size_t n;

	if (ctl_recv_block(c, blk, sizeof(blk), &n, item, err, errlen) < 0)
		return -1;
	return auth_proof_decode(blk, n, mac);
}

int auth_serve(struct ctl *c, const struct auth_secret *s,
	       const struct auth_transcript *t, char *err, size_t errlen)
{
	uint8_t got[AUTH_MAC], want[AUTH_MAC], mine[AUTH_MAC];
	int rc = recv_proof(c, got, "authentication", err, errlen);

	if (rc < 0)
		return -1;
	if (rc > 0) {
		seterr(err, errlen,
		       "authentication failed: no proof of the shared secret");
		return 1;
	}
	if (side_mac(s, false, t, NULL, want, err, errlen) < 0)
		return -1;
	if (!auth_equal(got, want, AUTH_MAC)) {
		seterr(err, errlen,
		       "authentication failed: wrong shared secret (the client's --secret_file differs from the server's)");
		return 1;
	}
	if (side_mac(s, true, t, got, mine, err, errlen) < 0)
		return -1;
	return send_proof(c, mine, "server authentication", err, errlen);
}

int auth_client(struct ctl *c, const struct auth_secret *s,
		const struct auth_transcript *t, char *err, size_t errlen)
{
	uint8_t mine[AUTH_MAC], got[AUTH_MAC], want[AUTH_MAC];
	int rc;

	if (side_mac(s, false, t, NULL, mine, err, errlen) < 0 ||
	    send_proof(c, mine, "authentication", err, errlen) < 0)
		return -1;
	rc = recv_proof(c, got, "server authentication", err, errlen);
	if (rc < 0)
		return -1;
	if (side_mac(s, true, t, mine, want, err, errlen) < 0)
		return -1;
	if (rc > 0 || !auth_equal(got, want, AUTH_MAC))
		return seterr(err, errlen,
			      "the server failed to prove it has the shared secret: it is not the server you meant, or its --secret_file differs");
	return 0;
}
