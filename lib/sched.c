// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cluster schedule (see sched.h).  The circle method: with M positions
 * (M = N, or N + 1 with a dummy when N is odd), position M-1 stays put and
 * the others turn; in round r position M-1 meets position r and, for
 * k = 1 .. M/2-1, position (r+k) mod (M-1) meets (r-k) mod (M-1).  Over
 * the M-1 rounds every pair of positions meets exactly once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "lib/err.h"
#include "lib/alloc.h"

uint64_t sched_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias (rejection). */
static uint32_t rand_below(uint64_t *state, uint32_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t v;

	do
		v = sched_rand(state);
	while (v >= limit);
	return (uint32_t)(v % bound);
}

/* Fisher-Yates shuffle of 0..n-1 into p, from state. */
static void shuffle(uint32_t *p, uint32_t n, uint64_t state)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = rand_below(&state, i + 1);
		uint32_t t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
}

/* The patterns as typed, by enum sched_kind; K follows the colon. */
static const char *const sched_forms[] = { "all",     "ring",    "bisect",
					   "random:", "incast:", "fanout:" };

const char *sched_form(size_t i)
{
	return i < sizeof(sched_forms) / sizeof(sched_forms[0]) ?
		       sched_forms[i] :
		       NULL;
}

/* What K counts, by enum sched_kind (for the patterns that take one). */
static const char *const k_means[] = {
	[SCHED_RANDOM] = "rounds",
	[SCHED_INCAST] = "senders",
	[SCHED_FANOUT] = "receivers",
};

/* K of "word:K" s (d: after the colon), 1 to max, for kind. */
static int parse_k(const char *s, const char *d, enum sched_kind kind,
		   uint32_t max, struct sched_spec *sp, char *err,
		   size_t errlen)
{
	char *end;
	unsigned long long k;

	if (*d < '0' || *d > '9')
		return seterr(err, errlen,
			      "bad cluster pattern %s: %sK needs a number of %s",
			      s, sched_forms[kind], k_means[kind]);
	errno = 0;
	k = strtoull(d, &end, 10);
	if (*end || errno || k < 1 || k > max)
		return seterr(err, errlen,
			      "bad cluster pattern %s: K must be 1 to %u", s,
			      max);
	sp->kind = kind;
	sp->k = (uint32_t)k;
	return 0;
}

int sched_parse(const char *s, struct sched_spec *sp, char *err,
		size_t errlen)
{
	memset(sp, 0, sizeof(*sp));
	for (int kind = SCHED_ALL; kind <= SCHED_FANOUT; kind++) {
		const char *f = sched_forms[kind];
		size_t n = strlen(f);

		if (f[n - 1] != ':' && !strcmp(s, f)) {
			sp->kind = (enum sched_kind)kind;
			return 0;
		}
		if (f[n - 1] == ':' && !strncmp(s, f, n))
			return parse_k(s, s + n, (enum sched_kind)kind,
				       kind == SCHED_RANDOM ? SCHED_RANDOM_MAX :
							      SCHED_GROUP_MAX,
				       sp, err, errlen);
	}
	return seterr(err, errlen,
		      "bad cluster pattern %s (all, ring, bisect, random:K, incast:K or fanout:K)",
		      s);
}

void sched_name(const struct sched_spec *sp, char *buf, size_t len)
{
	if (sp->kind >= SCHED_RANDOM)
		xsnprintf(buf, len, "%s%u", sched_forms[sp->kind], sp->k);
	else
		xsnprintf(buf, len, "%s", sched_forms[sp->kind]);
}

bool sched_is_group(const struct sched_spec *sp)
{
	return sp->kind == SCHED_INCAST || sp->kind == SCHED_FANOUT;
}

int sched_check_size(const struct sched_spec *sp, uint32_t n, char *err,
		     size_t errlen)
{
	char name[32];

	if (!sched_is_group(sp) || sp->k < n)
		return 0;
	sched_name(sp, name, sizeof(name));
	return seterr(err, errlen,
		      "--cluster %s: K must be below the number of ranks (%u): a round's %u %s are among the %u other ranks",
		      name, n, sp->k, k_means[sp->kind], n - 1);
}

static uint32_t count_rounds(const struct sched_spec *sp, uint32_t n)
{
	switch (sp->kind) {
	case SCHED_ALL:
		return n % 2 ? n : n - 1;
	case SCHED_RING:
		return n == 2 ? 1 : n % 2 ? 3 : 2;
	case SCHED_BISECT:
		return 1;
	case SCHED_RANDOM:
		return sp->k;
	case SCHED_INCAST:
	case SCHED_FANOUT:
		return n; /* each rank the hub once */
	}
	return 0;
}

int sched_init(struct sched *s, const struct sched_spec *sp, uint32_t n,
	       uint64_t seed, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (n < 2 || n > SCHED_N_MAX)
		return seterr(err, errlen,
			      "cluster of %u ranks: need 2 to %u", n,
			      SCHED_N_MAX);
	if (sched_check_size(sp, n, err, errlen) < 0)
		return -1;
	s->spec = *sp;
	s->n = n;
	s->seed = seed;
	s->rounds = count_rounds(sp, n);
	if (sp->kind == SCHED_ALL) {
		s->perm = xcalloc(n, sizeof(*s->perm));
		shuffle(s->perm, n, seed);
	}
	return 0;
}

void sched_free(struct sched *s)
{
	free(s->perm);
	s->perm = NULL;
}

static uint32_t round_all(const struct sched *s, uint32_t r,
			  struct sched_pair *out)
{
	uint32_t m = s->n + s->n % 2, turn = m - 1, np = 0;

	for (uint32_t k = 0; k < m / 2; k++) {
		uint32_t x = k ? (r + k) % turn : m - 1;
		uint32_t y = k ? (r + turn - k) % turn : r;

		if (x >= s->n || y >= s->n)
			continue; /* the dummy of an odd N: y sits out */
		x = s->perm[x];
		y = s->perm[y];
		out[np].a = x < y ? x : y;
		out[np].b = x < y ? y : x;
		np++;
	}
	return np;
}

static uint32_t round_ring(const struct sched *s, uint32_t r,
			   struct sched_pair *out)
{
	uint32_t n = s->n, np = 0;

	if (r == 2) { /* odd N: the closing link */
		out[0].a = 0;
		out[0].b = n - 1;
		return 1;
	}
	for (uint32_t i = r; i + 1 < n; i += 2) {
		out[np].a = i;
		out[np].b = i + 1;
		np++;
	}
	if (n % 2 == 0 && r == 1 && n > 2) { /* even N: n-1 with 0 */
		out[np].a = 0;
		out[np].b = n - 1;
		np++;
	}
	return np;
}

static uint32_t round_random(const struct sched *s, uint32_t r,
			     struct sched_pair *out)
{
	uint32_t *p = xcalloc(s->n, sizeof(*p)), np = 0;
	uint64_t st = s->seed ^ (0xd1b54a32d192ed03ULL * ((uint64_t)r + 1));

	shuffle(p, s->n, st);
	for (uint32_t i = 0; i + 1 < s->n; i += 2) {
		out[np].a = p[i] < p[i + 1] ? p[i] : p[i + 1];
		out[np].b = p[i] < p[i + 1] ? p[i + 1] : p[i];
		np++;
	}
	free(p);
	return np;
}

uint32_t sched_group(const struct sched *s, uint32_t r, uint32_t *hub,
		     uint32_t *out)
{
	uint64_t st = s->seed ^ (0x8cb92ba72f3d8dd7ULL * ((uint64_t)r + 1));
	uint32_t k = 0;

	*hub = r;
	if (!sched_is_group(&s->spec) || r >= s->rounds || s->spec.k >= s->n)
		return 0;
	/* K distinct draws from the N-1 others (K <= 16: the rejections of
	 * a repeat cost little). */
	while (k < s->spec.k) {
		uint32_t v = rand_below(&st, s->n - 1);
		bool dup = false;

		v += v >= r; /* skip the hub */
		for (uint32_t i = 0; i < k; i++)
			dup |= out[i] == v;
		if (!dup)
			out[k++] = v;
	}
	return k;
}

uint32_t sched_round(const struct sched *s, uint32_t r,
		     struct sched_pair *out, uint32_t *idle, uint32_t *nidle)
{
	uint32_t np = 0;

	if (r < s->rounds) {
		switch (s->spec.kind) {
		case SCHED_ALL:
			np = round_all(s, r, out);
			break;
		case SCHED_RING:
			np = round_ring(s, r, out);
			break;
		case SCHED_BISECT:
			for (; np < s->n / 2; np++) {
				out[np].a = np;
				out[np].b = np + s->n / 2;
			}
			break;
		case SCHED_RANDOM:
			np = round_random(s, r, out);
			break;
		case SCHED_INCAST:
		case SCHED_FANOUT:
			break; /* sched_group() */
		}
	}
	if (idle) {
		unsigned char *busy = xcalloc(s->n, 1);
		uint32_t ni = 0;

		for (uint32_t i = 0; i < np; i++)
			busy[out[i].a] = busy[out[i].b] = 1;
		for (uint32_t i = 0; i < s->n; i++)
			if (!busy[i])
				idle[ni++] = i;
		free(busy);
		*nidle = ni;
	}
	return np;
}
