// SPDX-License-Identifier: GPL-2.0-only
/*
 * qperf: measure bandwidth and latency between two nodes.
 *
 * main() parses the whole command line into a plan, then runs the server
 * or the client.  It is the one place that turns errors into exit
 * statuses: 0 success, 1 a failed test or run, 2 a usage error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/engine.h"
#include "core/opts.h"
#include "core/types.h"
#include "transports/transport.h"

int main(int argc, char **argv)
{
	struct plan plan;
	char err[512];
	int rc = 0;

	if (opts_parse(argc, argv, &plan, err, sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		return 2;
	}
	for (int i = 0; i < plan.nwarn; i++)
		fprintf(stderr, "qperf: warning: %s\n", plan.warn[i]);
	switch (plan.mode) {
	case RUN_HELP:
		if (help_print(stdout, plan.help_topic, err, sizeof(err)) < 0) {
			fprintf(stderr, "qperf: %s\n", err);
			rc = 2;
		}
		break;
	case RUN_VERSION:
		printf("qperf %s (transports: %s; rdma: %s)\n", QPERF_VERSION,
		       test_transports(),
		       test_rdma_status());
		break;
	case RUN_SERVER:
		rc = server_main(&plan);
		break;
	case RUN_CLIENT:
		rc = client_main(&plan);
		break;
	}
	plan_free(&plan);
	if (fflush(stdout) != 0 && rc == 0)
		rc = 1;
	return rc;
}
