// SPDX-License-Identifier: GPL-2.0-only
/* Cluster schedule: every pair once, no rank twice in a round. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/sched.h"
#include "harness.h"

/* Bit (a,b), a < b, in an N x N upper triangle. */
static uint64_t tri(uint32_t n, uint32_t a, uint32_t b)
{
	return (uint64_t)a * n - (uint64_t)a * (a + 1) / 2 + (b - a - 1);
}

/*
 * Walk every round of pattern sp over n ranks: each rank at most once per
 * round, every pair of ranks valid; returns how many times pairs repeated
 * (for `all` every pair must then appear once).  Counts pairs in *total.
 */
static int walk(const struct sched_spec *sp, uint32_t n, uint64_t seed,
		uint64_t *total, int *bad, uint32_t *idle_sum)
{
	struct sched s;
	char err[128];
	uint64_t bits = (uint64_t)n * (n - 1) / 2;
	unsigned char *seen = calloc(bits / 8 + 1, 1);
	uint32_t *last = calloc(n, sizeof(*last));
	struct sched_pair *p = calloc(n / 2 + 1, sizeof(*p));
	uint32_t *idle = calloc(n, sizeof(*idle));
	int repeats = 0;

	*total = 0;
	*bad = 0;
	*idle_sum = 0;
	if (sched_init(&s, sp, n, seed, err, sizeof(err)) < 0) {
		*bad = 1;
		goto out;
	}
	for (uint32_t r = 0; r < s.rounds; r++) {
		uint32_t ni, np = sched_round(&s, r, p, idle, &ni);

		if (np > n / 2 || np * 2 + ni != n)
			(*bad)++;
		*idle_sum += ni;
		for (uint32_t i = 0; i < np; i++) {
			uint32_t a = p[i].a, b = p[i].b;
			uint64_t t;

			if (a >= b || b >= n) {
				(*bad)++;
				continue;
			}
			/* last[] holds round+1 of a rank's last pair. */
			if (last[a] == r + 1 || last[b] == r + 1)
				(*bad)++;
			last[a] = last[b] = r + 1;
			t = tri(n, a, b);
			if (seen[t / 8] & (1u << (t % 8)))
				repeats++;
			seen[t / 8] |= (unsigned char)(1u << (t % 8));
			(*total)++;
		}
	}
	sched_free(&s);
out:
	free(seen);
	free(last);
	free(p);
	free(idle);
	return repeats;
}

static void check_all(uint32_t n, uint64_t seed)
{
	struct sched_spec sp = { SCHED_ALL, 0 };
	uint64_t total;
	int bad;
	uint32_t idle;

	CHECK(walk(&sp, n, seed, &total, &bad, &idle) == 0);
	CHECK(bad == 0);
	CHECK(total == (uint64_t)n * (n - 1) / 2);
	/* N-1 rounds with nobody idle, or N rounds with one idle each. */
	CHECK(idle == (n % 2 ? n : 0));
}

TEST(all_small)
{
	for (uint32_t n = 2; n <= 130; n++)
		check_all(n, n * 7919u);
}

TEST(all_large)
{
	check_all(999, 1);
	check_all(1000, 2);
	check_all(10000, 3);
	check_all(9999, 4);
}

TEST(all_rounds)
{
	struct sched s;
	struct sched_spec sp = { SCHED_ALL, 0 };
	char err[128];

	CHECK(sched_init(&s, &sp, 64, 1, err, sizeof(err)) == 0);
	CHECK(s.rounds == 63);
	sched_free(&s);
	CHECK(sched_init(&s, &sp, 65, 1, err, sizeof(err)) == 0);
	CHECK(s.rounds == 65);
	sched_free(&s);
}

/* The seed moves pairs between rounds, never changes the set. */
TEST(all_seed)
{
	struct sched s1, s2;
	struct sched_spec sp = { SCHED_ALL, 0 };
	struct sched_pair a[8], b[8];
	char err[128];
	int differ = 0;

	CHECK(sched_init(&s1, &sp, 16, 11, err, sizeof(err)) == 0);
	CHECK(sched_init(&s2, &sp, 16, 12, err, sizeof(err)) == 0);
	for (uint32_t r = 0; r < s1.rounds; r++) {
		uint32_t n1 = sched_round(&s1, r, a, NULL, NULL);
		uint32_t n2 = sched_round(&s2, r, b, NULL, NULL);

		CHECK(n1 == 8 && n2 == 8);
		for (uint32_t i = 0; i < 8; i++)
			differ += a[i].a != b[i].a || a[i].b != b[i].b;
	}
	CHECK(differ > 0);
	/* Same seed, same schedule. */
	sched_free(&s2);
	CHECK(sched_init(&s2, &sp, 16, 11, err, sizeof(err)) == 0);
	for (uint32_t r = 0; r < s1.rounds; r++) {
		sched_round(&s1, r, a, NULL, NULL);
		sched_round(&s2, r, b, NULL, NULL);
		CHECK(memcmp(a, b, sizeof(a)) == 0);
	}
	sched_free(&s1);
	sched_free(&s2);
}

/* ring: exactly the N links i - i+1 (mod N), each once. */
TEST(ring)
{
	struct sched_spec sp = { SCHED_RING, 0 };

	for (uint32_t n = 2; n <= 10000; n = n < 40 ? n + 1 : n * 3 + 1) {
		struct sched s;
		struct sched_pair *p = calloc(n / 2 + 1, sizeof(*p));
		unsigned char *link = calloc(n, 1);
		char err[128];
		uint64_t total;
		int bad;
		uint32_t idle;

		CHECK(walk(&sp, n, 5, &total, &bad, &idle) == 0);
		CHECK(bad == 0);
		CHECK(total == (n == 2 ? 1 : n));
		CHECK(sched_init(&s, &sp, n, 5, err, sizeof(err)) == 0);
		CHECK(s.rounds == (n == 2 ? 1u : n % 2 ? 3u : 2u));
		for (uint32_t r = 0; r < s.rounds; r++) {
			uint32_t np = sched_round(&s, r, p, NULL, NULL);

			for (uint32_t i = 0; i < np; i++) {
				uint32_t a = p[i].a, b = p[i].b;

				if (b == a + 1)
					link[a]++;
				else if (a == 0 && b == n - 1)
					link[n - 1]++;
				else
					CHECK(!"not a ring link");
			}
		}
		for (uint32_t i = 0; i < (n == 2 ? 1 : n); i++)
			CHECK(link[i] == 1);
		sched_free(&s);
		free(p);
		free(link);
	}
}

TEST(bisect)
{
	struct sched s;
	struct sched_spec sp = { SCHED_BISECT, 0 };
	struct sched_pair p[5];
	uint32_t idle[11], ni;
	char err[128];

	CHECK(sched_init(&s, &sp, 10, 0, err, sizeof(err)) == 0);
	CHECK(s.rounds == 1);
	CHECK(sched_round(&s, 0, p, idle, &ni) == 5);
	CHECK(ni == 0);
	for (uint32_t i = 0; i < 5; i++)
		CHECK(p[i].a == i && p[i].b == i + 5);
	sched_free(&s);
	CHECK(sched_init(&s, &sp, 11, 0, err, sizeof(err)) == 0);
	CHECK(sched_round(&s, 0, p, idle, &ni) == 5);
	CHECK(ni == 1 && idle[0] == 10); /* the odd one out, named */
	sched_free(&s);
}

TEST(random_rounds)
{
	struct sched_spec sp;
	char err[128];
	uint64_t total;
	int bad;
	uint32_t idle;

	CHECK(sched_parse("random:7", &sp, err, sizeof(err)) == 0);
	CHECK(sp.kind == SCHED_RANDOM && sp.k == 7);
	walk(&sp, 101, 9, &total, &bad, &idle);
	CHECK(bad == 0);
	CHECK(total == 7 * 50);
	CHECK(idle == 7);
	walk(&sp, 10000, 9, &total, &bad, &idle);
	CHECK(bad == 0 && total == 7 * 5000 && idle == 0);
}

TEST(parse)
{
	struct sched_spec sp;
	char err[128], name[32];

	CHECK(sched_parse("all", &sp, err, sizeof(err)) == 0 &&
	      sp.kind == SCHED_ALL);
	CHECK(sched_parse("ring", &sp, err, sizeof(err)) == 0 &&
	      sp.kind == SCHED_RING);
	CHECK(sched_parse("bisect", &sp, err, sizeof(err)) == 0);
	CHECK(sched_parse("random:3", &sp, err, sizeof(err)) == 0);
	sched_name(&sp, name, sizeof(name));
	CHECK_STR(name, "random:3");
	CHECK(sched_parse("random:0", &sp, err, sizeof(err)) < 0);
	CHECK_STR(err, "bad cluster pattern random:0: K must be 1 to 1000000");
	CHECK(sched_parse("random:", &sp, err, sizeof(err)) < 0);
	CHECK(sched_parse("random:-1", &sp, err, sizeof(err)) < 0);
	CHECK(sched_parse("random:99999999999999999999", &sp, err,
			  sizeof(err)) < 0);
	CHECK(sched_parse("random:4x", &sp, err, sizeof(err)) < 0);
	CHECK(sched_parse("Ring", &sp, err, sizeof(err)) < 0);
	CHECK_STR(err, "bad cluster pattern Ring (all, ring, bisect, random:K, incast:K or fanout:K)");
	CHECK(sched_parse("incast:3", &sp, err, sizeof(err)) == 0 &&
	      sp.kind == SCHED_INCAST && sp.k == 3 && sched_is_group(&sp));
	sched_name(&sp, name, sizeof(name));
	CHECK_STR(name, "incast:3");
	CHECK(sched_parse("fanout:16", &sp, err, sizeof(err)) == 0 &&
	      sp.kind == SCHED_FANOUT && sp.k == 16);
	CHECK(sched_parse("incast:0", &sp, err, sizeof(err)) < 0);
	CHECK_STR(err, "bad cluster pattern incast:0: K must be 1 to 16");
	CHECK(sched_parse("fanout:17", &sp, err, sizeof(err)) < 0);
	CHECK_STR(err, "bad cluster pattern fanout:17: K must be 1 to 16");
	CHECK(sched_parse("incast:x", &sp, err, sizeof(err)) < 0);
	CHECK_STR(err, "bad cluster pattern incast:x: incast:K needs a number of senders");
	CHECK(sched_parse("fanout:", &sp, err, sizeof(err)) < 0);
	CHECK_STR(err, "bad cluster pattern fanout:: fanout:K needs a number of receivers");
	CHECK(sched_parse("incast", &sp, err, sizeof(err)) < 0);
	CHECK(sched_parse("incast:2x", &sp, err, sizeof(err)) < 0);
	CHECK(sched_parse("random:3", &sp, err, sizeof(err)) == 0 &&
	      !sched_is_group(&sp));
}

/*
 * incast:K and fanout:K: N rounds, the hub of round r is rank r, its K
 * members distinct others; the same seed gives the same members, another
 * seed other ones; every rank is a member about K times over the run.
 */
TEST(group)
{
	struct sched s, s2;
	struct sched_spec sp = { SCHED_INCAST, 4 };
	uint32_t m[SCHED_GROUP_MAX], m2[SCHED_GROUP_MAX], hub, *times;
	char err[160];
	int differ = 0;
	uint32_t n = 1000;

	CHECK(sched_init(&s, &sp, 5, 7, err, sizeof(err)) == 0);
	CHECK(s.rounds == 5);
	for (uint32_t r = 0; r < 5; r++) {
		uint32_t seen = 0;

		CHECK(sched_group(&s, r, &hub, m) == 4 && hub == r);
		for (int i = 0; i < 4; i++)
			seen |= 1u << m[i];
		CHECK(seen == (0x1fu & ~(1u << r))); /* all the others */
	}
	CHECK(sched_round(&s, 0, NULL, NULL, NULL) == 0);
	sched_free(&s);
	sp.kind = SCHED_FANOUT;
	sp.k = 16;
	times = calloc(n, sizeof(*times));
	CHECK(sched_init(&s, &sp, n, 1, err, sizeof(err)) == 0);
	CHECK(sched_init(&s2, &sp, n, 2, err, sizeof(err)) == 0);
	for (uint32_t r = 0; r < n; r++) {
		uint32_t k = sched_group(&s, r, &hub, m);

		CHECK(k == 16 && hub == r);
		sched_group(&s2, r, &hub, m2);
		for (uint32_t i = 0; i < k; i++) {
			CHECK(m[i] != r && m[i] < n);
			for (uint32_t j = 0; j < i; j++)
				CHECK(m[i] != m[j]);
			times[m[i]]++;
			differ += m[i] != m2[i];
		}
		sched_group(&s, r, &hub, m2); /* the same again */
		for (uint32_t i = 0; i < k; i++)
			CHECK(m[i] == m2[i]);
	}
	CHECK(differ > 15000);
	for (uint32_t i = 0; i < n; i++)
		CHECK(times[i] >= 2 && times[i] <= 40); /* 16 on average */
	free(times);
	sched_free(&s);
	sched_free(&s2);
}

TEST(group_size)
{
	struct sched s;
	struct sched_spec sp = { SCHED_INCAST, 4 };
	char err[160];

	CHECK(sched_check_size(&sp, 5, err, sizeof(err)) == 0);
	CHECK(sched_check_size(&sp, 4, err, sizeof(err)) < 0);
	CHECK_STR(err, "--cluster incast:4: K must be below the number of ranks (4): a round's 4 senders are among the 3 other ranks");
	CHECK(sched_init(&s, &sp, 4, 0, err, sizeof(err)) < 0);
	sp.kind = SCHED_FANOUT;
	sp.k = 2;
	CHECK(sched_check_size(&sp, 2, err, sizeof(err)) < 0);
	CHECK_STR(err, "--cluster fanout:2: K must be below the number of ranks (2): a round's 2 receivers are among the 1 other ranks");
	sp.kind = SCHED_RANDOM;
	sp.k = 50;
	CHECK(sched_check_size(&sp, 2, err, sizeof(err)) == 0);
}

TEST(bad_n)
{
	struct sched s;
	struct sched_spec sp = { SCHED_ALL, 0 };
	char err[128];

	CHECK(sched_init(&s, &sp, 1, 0, err, sizeof(err)) < 0);
	CHECK_STR(err, "cluster of 1 ranks: need 2 to 1000000");
	CHECK(sched_init(&s, &sp, 0, 0, err, sizeof(err)) < 0);
}

int main(void)
{
	RUN(all_small);
	RUN(all_large);
	RUN(all_rounds);
	RUN(all_seed);
	RUN(ring);
	RUN(bisect);
	RUN(random_rounds);
	RUN(parse);
	RUN(bad_n);
	RUN(group);
	RUN(group_size);
	return harness_done();
}
