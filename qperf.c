// SPDX-License-Identifier: GPL-2.0-only
/*
 * qperf: measure bandwidth and latency between two nodes.
 *
 * main() parses the whole command line into a plan, then runs the server
 * or the client.  It is the one place that turns errors into exit
 * statuses: 0 success, 1 a failed test or run, 2 a usage error, 3 every
 * test ran but a check (--expect, --baseline) failed, or --compare found
 * a regression.  --exporter runs the Prometheus exporter (exporter/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/cluster_plan.h"
#include "core/auth.h"
#include "core/checks.h"
#include "core/engine.h"
#include "lib/numa.h"
#include "cluster/pmix_boot.h"
#include "core/opts.h"
#include "exporter/exporter.h"
#include "lib/types.h"
#include "output/compare.h"
#include "output/out.h"
#include "transports/transport.h"

/*
 * Open /dev/null on any of fds 0-2 that is closed, so that no socket can
 * become "stdout" and receive the report.  Returns false if stdout was
 * closed.
 */
static bool std_fds_open(void)
{
	bool out_open = true;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == 1)
			out_open = false;
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			break;
	}
	return out_open;
}

int main(int argc, char **argv)
{
	struct plan plan;
	char err[512];
	bool out_open = std_fds_open();
	int rc = 0;

	if (opts_parse(argc, argv, &plan, err, sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		return 2;
	}
	for (int i = 0; i < plan.nwarn; i++)
		fprintf(stderr, "qperf: warning: %s\n", plan.warn[i]);
	if (!out_open && plan.mode != RUN_SERVER) {
		fprintf(stderr, "qperf: cannot write results: stdout is closed\n");
		plan_free(&plan);
		return 1;
	}
	/* Before anything runs: a bad secret file stops server and client. */
	if ((plan.mode == RUN_SERVER || plan.mode == RUN_CLIENT) &&
	    auth_from_plan(plan.secret_file, &plan.secret, err,
			   sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		plan_free(&plan);
		return 1;
	}
	/* A baseline that cannot be read is a usage error, before any test. */
	if (checks_load(&plan, err, sizeof(err)) < 0) {
		fprintf(stderr, "qperf: %s\n", err);
		auth_free(plan.secret);
		plan_free(&plan);
		return 2;
	}
	switch (plan.mode) {
	case RUN_HELP:
		if (help_print(stdout, plan.help_topic, err, sizeof(err)) < 0) {
			fprintf(stderr, "qperf: %s\n", err);
			rc = 2;
		}
		break;
	case RUN_COMPLETION:
		if (completion_print(stdout, plan.help_topic, err,
				     sizeof(err)) < 0) {
			fprintf(stderr, "qperf: %s\n", err);
			rc = 2;
		}
		break;
	case RUN_VERSION:
		printf("qperf %s (transports: %s; rdma: %s; numa: %s; secret: %s; pmix: %s)\n",
		       QPERF_VERSION, test_transports(), test_rdma_status(),
		       qnuma_status(),
		       auth_built() ? "hmac-sha256" : "not built",
		       pmix_boot_status());
		break;
	case RUN_SERVER:
		rc = server_main(&plan);
		break;
	case RUN_CLIENT:
		rc = plan.clients     ? clients_main(&plan) :
		     plan.load.test ? load_main(&plan) :
				      client_main(&plan);
		break;
	case RUN_COMPARE:
		rc = compare_files(stdout, plan.checks.compare[0],
				   plan.checks.compare[1],
				   plan.checks.tolerance, err, sizeof(err));
		if (rc)
			fprintf(stderr, "qperf: %s\n", err);
		if (rc < 0)
			rc = 2;
		break;
	case RUN_EXPORTER:
		rc = exporter_main(&plan);
		break;
	case RUN_CLUSTER:
		if (cluster_expand(&plan, err, sizeof(err)) < 0) {
			fprintf(stderr, "qperf: %s\n", err);
			rc = 2;
			break;
		}
		rc = cluster_main(&plan);
		break;
	}
	auth_free(plan.secret);
	checks_unload(&plan);
	plan_free(&plan);
	/* Results that could not be written are a failed run. */
	if (plan.mode != RUN_SERVER && out_flush() < 0) {
		fprintf(stderr, "qperf: cannot write results: %s\n",
			strerror(out_error()));
		rc = 1;
	}
	return rc;
}
