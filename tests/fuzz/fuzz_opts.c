// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the command-line parser: the input is split at
 * NUL bytes into argv.  Parsing must return 0 or -1 with a terminated
 * message, never crash; an accepted plan's loops must terminate.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const struct settings *s, void *arg)
{
	(void)s;
	return ++*(long *)arg > 100000 ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[64];
	char err[256];
	struct plan plan;
	int argc = 1;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "qperf";
	for (char *p = buf; p < buf + size && argc < 63; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	memset(err, 'x', sizeof(err));
	if (opts_parse(argc, argv, &plan, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < plan.ntests; i++) {
			long n = 0;

			/* More than 100000 iterations counts as "forever". */
			if (loops_run(&plan.tests[i].s, count, &n, err,
				      sizeof(err)) > 0)
				__builtin_trap();
		}
		plan_free(&plan);
	} else if (!memchr(err, '\0', sizeof(err))) {
		__builtin_trap();
	}
	free(buf);
	return 0;
}
