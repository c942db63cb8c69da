// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the interval records a client reads from the
 * server (-I): ival_decode() (core/interval.c) takes whatever block a
 * hostile server sends.  Decoding must not crash or read out of bounds;
 * a record that decodes has end >= start, encodes and decodes again to
 * the same record, and prints (ival_format) as bounded, printable lines
 * (the test and the options that change the text picked from the input).
 */
#include <stdint.h>
#include <string.h>

#include "core/interval.h"
#include "output/report.h"
#include "transports/transport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *buf, size_t n, size_t cap)
{
	if (n >= cap || strlen(buf) != n)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((buf[i] < ' ' || buf[i] > '~') && buf[i] != '\n')
			__builtin_trap();
}

/* a decoded record: it round-trips and prints within bounds */
static void check_rec(struct ival_rec r)
{
	static const char *const tests[] = { "tcp_bw", "udp_bw", "rc_bi_bw",
					     "rc_rdma_read_bw", "ud_bw" };
	struct ival_rec r2;
	uint8_t b[1024];
	char text[512];
	size_t n;

	if (r.end < r.start)
		__builtin_trap();
	n = ival_encode(&r, false, b, sizeof(b));
	if (!n || ival_decode(b, n, &r2) != 1 || memcmp(&r, &r2, sizeof(r)))
		__builtin_trap();
	{
		/* the test and the options that change the text: from the
		 * record (one case per input keeps the runs fast) */
		const struct test_desc *t = test_find(tests[r.index % 5]);
		unsigned v = (r.index / 5) % 8;
		struct out_opts o = { .precision = 1 + (int)(r.index / 40 % 9),
				      .unify_units = v & 1, .bits = v & 2 };

		r.peer = v & 4;
		n = ival_format(text, sizeof(text), t, &o, &r);
		check_text(text, n, sizeof(text));
		/* a short buffer cuts, never overruns */
		n = ival_format(text, 40, t, &o, &r);
		check_text(text, n, 40);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ival_rec r, r2;
	uint8_t b[1024];
	size_t n;

	/* whatever block the server sends */
	if (ival_decode(data, size, &r) > 0)
		check_rec(r);
	/* a well-formed record with the input's figures (so every run
	 * reaches the formatting whatever the fuzzer found by itself) */
	memset(&r, 0, sizeof(r));
	memcpy(&r.index, data, size < 4 ? size : 4);
	if (size > 4)
		memcpy(&r.start, data + 4, size - 4 < 8 ? size - 4 : 8);
	if (size > 12)
		memcpy(&r.end, data + 12, size - 12 < 8 ? size - 12 : 8);
	if (size > 20)
		memcpy(&r.s, data + 20, size - 20 < 24 ? size - 20 : 24);
	if (size > 44)
		memcpy(&r.r, data + 44, size - 44 < 24 ? size - 44 : 24);
	r.last = size > 68 && (data[68] & 1);
	n = ival_encode(&r, false, b, sizeof(b));
	/* an interval that ends before it starts is refused */
	if (!n || ival_decode(b, n, &r2) != (r.end < r.start ? -1 : 1))
		__builtin_trap();
	if (r.end >= r.start)
		check_rec(r2);
	/* the end block */
	n = ival_encode(NULL, true, b, sizeof(b));
	if (!n || ival_decode(b, n, &r) != 0)
		__builtin_trap();
	return 0;
}
