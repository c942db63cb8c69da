/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared-secret authentication of the control connection (--secret_file),
 * between qperf 0.5 peers only (docs/protocol.md, "Authentication").
 *
 * Both sides read the same secret from a file that only its owner may
 * read.  The client's request block carries a random client nonce, the
 * server's reply block a random server nonce; the client then proves it
 * knows the secret with HMAC-SHA256(secret, label || transcript), the
 * transcript being every byte of the request, its block and the server's
 * block, and the server proves it too with a MAC that also covers the
 * client's.  A captured answer is worthless for another connection: the
 * server's nonce differs.  The MACs come from libcrypto (OpenSSL) and
 * are compared in constant time; nonces come from getrandom(2).
 *
 * Built without libcrypto (NO_AUTH=1), auth_load() refuses every secret
 * file, so neither side ever runs without the check it was asked for.
 */
#ifndef QPERF_AUTH_H
#define QPERF_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"

#define AUTH_NONCE 32 /* bytes of each side's nonce */
#define AUTH_MAC 32 /* bytes of HMAC-SHA256 */
#define AUTH_SECRET_MAX 4096 /* longest secret file, bytes */
#define AUTH_ENV "QPERF_SECRET_FILE" /* used when --secret_file is absent */

struct auth_secret {
	size_t len; /* bytes of key, 1 to AUTH_SECRET_MAX */
	/* Room for the trailing "\r\n" and one byte more, to tell a file
	 * that is too long: the whole file is read into the wiped block. */
	uint8_t key[AUTH_SECRET_MAX + 3];
};

/* Is shared-secret support compiled in? */
bool auth_built(void);

/*
 * Read the secret from path (named in errors as given by from:
 * "--secret_file" or AUTH_ENV).  The file must be a regular file with no
 * permission bits for group or others, hold 1 to AUTH_SECRET_MAX bytes;
 * one trailing newline ("\n" or "\r\n") is not part of the secret.
 * Returns a secret to release with auth_free(), or NULL with err filled.
 */
struct auth_secret *auth_load(const char *path, const char *from, char *err,
			      size_t errlen);

/* Wipe and free (NULL is fine). */
void auth_free(struct auth_secret *s);

/*
 * The secret a run uses: --secret_file if given (path non-NULL), else
 * $QPERF_SECRET_FILE if set and not empty, else none (*out = NULL).
 * Returns 0, or -1 with err filled (the file is unusable).
 */
int auth_from_plan(const char *path, struct auth_secret **out, char *err,
		   size_t errlen);

/*
 * HMAC-SHA256(secret, label || a || b || c || d) into mac; any part may
 * be empty (NULL, 0).  Returns 0, or -1 if libcrypto failed.  Pure.
 */
int auth_mac(const struct auth_secret *s, const char *label,
	     const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
	     const uint8_t *c, size_t clen, const uint8_t *d, size_t dlen,
	     uint8_t mac[AUTH_MAC]);

/* Constant-time comparison of two n-byte strings. */
bool auth_equal(const uint8_t *x, const uint8_t *y, size_t n);

/*
 * A proof block (header and items, len bytes): 0 with mac filled, or 1
 * if it is not a TLV block or holds no AUTH_MAC-byte MAC item.  Pure.
 */
int auth_proof_decode(const uint8_t *blk, size_t len, uint8_t mac[AUTH_MAC]);

/*
 * The bytes both MACs cover: the 200-byte request, its extension block
 * and the server's reply block, exactly as sent.
 */
struct auth_transcript {
	const uint8_t *req; /* REQ_SIZE bytes */
	const uint8_t *reqx; /* the request block */
	size_t reqx_len;
	const uint8_t *hello; /* the server's block */
	size_t hello_len;
};

/*
 * Server: receive the client's proof, check it, send ours.  Returns 0,
 * 1 if the proof is wrong or missing (err says so, for the client and
 * the log), or -1 on any other failure with err filled.  Blocks within
 * c->timeout per message.
 */
int auth_serve(struct ctl *c, const struct auth_secret *s,
	       const struct auth_transcript *t, char *err, size_t errlen);

/*
 * Client: send our proof, receive and check the server's.  Returns 0 or
 * -1 with err filled.  Blocks within c->timeout per message.
 */
int auth_client(struct ctl *c, const struct auth_secret *s,
		const struct auth_transcript *t, char *err, size_t errlen);

#endif
