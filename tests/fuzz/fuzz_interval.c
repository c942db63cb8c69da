// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the interval records a client reads from the
 * server (-I): ival_decode() (core/interval.c) takes whatever block a
 * hostile server sends.  Decoding must not crash or read out of bounds;
 * a record that decodes has end >= start, encodes and decodes again to
 * the same record, and prints (ival_format) as bounded, printable lines,
 * under every combination of the options that change its text.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tests[] = { "tcp_bw", "udp_bw", "rc_bi_bw",
					     "rc_rdma_read_bw", "ud_bw" };
	struct ival_rec r, r2;
	uint8_t b[1024];
	char text[512];
	size_t n;
	int k;

	k = ival_decode(data, size, &r);
	if (k <= 0)
		return 0;
	if (r.end < r.start)
		__builtin_trap();
	n = ival_encode(&r, false, b, sizeof(b));
	if (!n || ival_decode(b, n, &r2) != 1 || memcmp(&r, &r2, sizeof(r)))
		__builtin_trap();
	for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		for (int v = 0; v < 8; v++) {
			struct out_opts o = { .precision = 1 + (int)(r.index % 9),
					      .unify_units = v & 1,
					      .bits = v & 2 };

			r.peer = v & 4;
			n = ival_format(text, sizeof(text), test_find(tests[t]),
					&o, &r);
			check_text(text, n, sizeof(text));
			/* a short buffer cuts, never overruns */
			n = ival_format(text, 40, test_find(tests[t]), &o, &r);
			check_text(text, n, 40);
		}
	}
	return 0;
}
