// SPDX-License-Identifier: GPL-2.0-only
/*
 * core/streams.c against the in-memory transport (loops_mem.h): N loops
 * of core/measure.c in N threads.  Counts add up per stream and in the
 * sum, no stream's window starts before the common one or ends after it,
 * the timer ends every stream, a failing stream ends the others with its
 * error named, and the common window's process CPU covers every thread
 * (not one thread's).
 */
#include <pthread.h>
#include <stdlib.h>

#include "core/streams.h"
#include "loops_mem.h"

#define NS 4

/* The streams' own sessions: a copy of the fixture per stream. */
static struct fix W[NS];
static struct lrun *LR[NS];

static void setup_streams(int n, uint32_t msg, uint64_t count, uint64_t time)
{
	for (int i = 0; i < n; i++) {
		setup(LOOP_STREAM_BW, OP_SEND, 16, false, false, msg, count);
		F.s.p.time = time;
		W[i] = F;
		W[i].s.t = &W[i].t;
		W[i].s.priv = &W[i].m;
		W[i].s.ch = &W[i].ch;
		W[i].s.stop = &timer_fired;
		W[i].lr.s = &W[i].s;
		W[i].s.buf = W[i].m.buf;
		LR[i] = &W[i].lr;
		CHECK(loop_prep(LR[i], W[i].err, sizeof(W[i].err)) == 0);
	}
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The same loop in this thread, as one stream runs it (the baseline). */
TEST(one_stream_in_this_thread)
{
	setup(LOOP_STREAM_BW, OP_SEND, 16, false, false, 1000, 5000);
	CHECK(prep_run() == 0);
	CHECK(ST->s.msgs == 5000 && ST->s.bytes == 5000ULL * 1000);
}

/* A count test: each stream sends its own count; the sum adds up. */
TEST(count_per_stream)
{
	struct node_stat agg;
	char err[256] = "";

	setup_streams(NS, 1000, 5000, 0);
	CHECK(streams_run(LR, NS, NULL, 0, &agg, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(agg.s.msgs == NS * 5000ULL && agg.s.bytes == NS * 5000ULL * 1000);
	for (int i = 0; i < NS; i++) {
		CHECK(LR[i]->st.s.msgs == 5000);
		CHECK(W[i].m.posted[OP_SEND] == 5000);
		/* No stream measured outside the common window. */
		CHECK(LR[i]->st.real_s >= agg.real_s);
		CHECK(LR[i]->st.real_e <= agg.real_e);
	}
	CHECK(agg.real_e > agg.real_s && agg.proc_valid);
}

/*
 * A timed test: every stream spins (the in-memory sends complete at once)
 * until the time is up; the window's process CPU is at least what the
 * stream threads used together (each thread's CPU clock, read at its last
 * poll), so it cannot be one thread's.
 */
static uint64_t cpu_at_end[NS];
static int mem_poll_timed(struct tsess *s, struct tcomp *c, int max,
			  uint64_t wait, char *err, size_t errlen)
{
	int k = mem_poll(s, c, max, wait, err, errlen);

	for (int i = 0; i < NS; i++)
		if (s == &W[i].s)
			cpu_at_end[i] = thread_cpu_ns();
	return k;
}

static const struct transport mem_timed = {
	.name = "memt",
	.label = "MEMT",
	.priv_size = sizeof(struct mem),
	.open = mem_open,
	.close = mem_close,
	.post = mem_post,
	.poll = mem_poll_timed,
};

TEST(timer_ends_all_and_cpu_covers_every_thread)
{
	struct node_stat agg;
	char err[256] = "";
	uint64_t threads = 0, proc;

	measure_init();
	setup_streams(2, 64, 0, 300 * MS);
	for (int i = 0; i < 2; i++) {
		W[i].t.tp = W[i].s.tp = &mem_timed;
		W[i].m.max_calls = UINT64_MAX;
		cpu_at_end[i] = 0;
	}
	CHECK(streams_run(LR, 2, NULL, 300 * MS, &agg, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(agg.real_e - agg.real_s >= 300 * MS);
	CHECK(agg.real_e - agg.real_s < 5 * NS_PER_SEC);
	for (int i = 0; i < 2; i++) {
		CHECK(LR[i]->st.s.msgs > 0);
		threads += cpu_at_end[i];
	}
	CHECK(agg.s.msgs == LR[0]->st.s.msgs + LR[1]->st.s.msgs);
	proc = (agg.proc_user_e - agg.proc_user_s) +
	       (agg.proc_sys_e - agg.proc_sys_s);
	/* The threads' clocks start at their creation, inside the window.
	 * getrusage's user+system is the kernel's tick-sampled split scaled
	 * to the precise runtime, and may lag it a little: allow 2 ms and 2%
	 * (CI under ASan saw 414.8 ms against the threads' 416.9 ms). */
	CHECK(threads > 0);
	CHECK(proc + 2 * MS + threads / 50 >= threads);
	if (!(proc + 2 * MS + threads / 50 >= threads))
		fprintf(stderr, "    process %llu ns, threads %llu ns\n",
			(unsigned long long)proc, (unsigned long long)threads);
}

/* One stream fails: the others end, the error names the stream. */
TEST(failing_stream_ends_the_others)
{
	struct node_stat agg;
	char err[256] = "";

	measure_init();
	setup_streams(3, 64, 0, 10 * NS_PER_SEC);
	for (int i = 0; i < 3; i++)
		W[i].m.max_calls = UINT64_MAX;
	W[1].m.ret_at = 1000;
	W[1].m.ret_val = TP_FATAL;
	CHECK(streams_run(LR, 3, NULL, 10 * NS_PER_SEC, &agg, err,
			  sizeof(err)) == -1);
	CHECK_STR(err, "stream 2: send failed: Broken pipe");
	/* Ended long before the 10 s the test asked for. */
	CHECK(agg.real_e == 0 || agg.real_e - agg.real_s < 5 * NS_PER_SEC);
	CHECK(W[1].m.op_posts == 1000);
}

int main(void)
{
	RUN(one_stream_in_this_thread);
	RUN(count_per_stream);
	RUN(timer_ends_all_and_cpu_covers_every_thread);
	RUN(failing_stream_ends_the_others);
	return harness_done();
}
