// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of output/json.c that the loopback suites cannot reach yet:
 * json_event() (the interface for interval reports) in both modes, the
 * dropping of malformed events, and the error and interrupted fields.
 * stdout goes to a temporary file, read back and parsed with jansson.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/param.h"
#include "output/json.h"
#include "transports/transport.h"
#include "harness.h"

static char out_path[64];

/* Send stdout to a fresh temporary file. */
static void capture(void)
{
	int fd;

	strcpy(out_path, "/tmp/qperf-test-json.XXXXXX");
	fd = mkstemp(out_path);
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
}

/* What was written since capture(); stdout goes back to /dev/null. */
static char *captured(void)
{
	FILE *f;
	char *buf = calloc(1, 65536);
	size_t n;

	fflush(stdout);
	f = fopen(out_path, "r");
	n = f ? fread(buf, 1, 65535, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	unlink(out_path);
	freopen("/dev/null", "w", stdout);
	return buf;
}

static json_t *interval(double start)
{
	json_t *ev = json_object();

	json_object_set_new(ev, "type", json_string("interval"));
	json_object_set_new(ev, "start_s", json_real(start));
	return ev;
}

static void run(enum json_mode m)
{
	static char *argv[] = { "qperf", "h", "tcp_bw" };
	struct json_doc *d = json_open(m, 3, argv, "h");

	json_event(d, interval(-1)); /* between tests: the run's events */
	json_test_begin(d, test_find("tcp_bw"), 0, 0, NULL, 0);
	json_event(d, interval(0));
	json_event(d, interval(1));
	json_event(d, json_string("no object")); /* dropped */
	json_event(d, json_object()); /* no type: dropped */
	json_event(d, NULL);
	json_test_error(d, "server: boom", 1, false);
	json_finish(d, 1, false, "server: boom");
}

TEST(stream_events)
{
	char *text, *save = NULL, *l;
	const char *want[] = { "start", "interval", "interval", "interval",
			       "test", "end" };
	int n = 0;

	capture();
	run(JSON_STREAM);
	text = captured();
	for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(l, 0, NULL);

		CHECK(o && n < 6);
		if (!o || n >= 6)
			break;
		CHECK_STR(json_string_value(json_object_get(o, "type")), want[n]);
		if (n == 2)
			CHECK(json_real_value(json_object_get(o, "start_s")) == 0);
		if (n == 4) {
			CHECK_STR(json_string_value(json_object_get(o, "status")),
				  "failed");
			CHECK(json_array_size(json_object_get(o, "intervals")) == 0);
		}
		if (n == 5)
			CHECK(json_integer_value(json_object_get(o, "exit_status")) == 1);
		json_decref(o);
		n++;
	}
	CHECK(n == 6);
	free(text);
}

TEST(doc_events)
{
	char *text;
	json_t *d, *t, *iv;

	capture();
	run(JSON_DOC);
	text = captured();
	d = json_loads(text, 0, NULL);
	CHECK(d != NULL);
	if (!d) {
		free(text);
		return;
	}
	CHECK(json_array_size(json_object_get(d, "events")) == 1);
	t = json_array_get(json_object_get(d, "tests"), 0);
	iv = json_object_get(t, "intervals");
	CHECK(json_array_size(iv) == 2);
	CHECK(json_real_value(json_object_get(json_array_get(iv, 1), "start_s")) == 1);
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(t, "error"), "message")),
		  "server: boom");
	CHECK(json_is_false(json_object_get(d, "interrupted")));
	CHECK(json_integer_value(json_object_get(
		      json_object_get(d, "error"), "exit_status")) == 1);
	json_decref(d);
	free(text);
}

/*
 * src_path_bits is a count: under its plain name, and (schema_version 1)
 * its old "_B" name too; a real size keeps "_B" alone.  An interrupted
 * run names its signal (from the exit status, 128 + n).
 */
TEST(params_and_signal)
{
	static char *argv[] = { "qperf", "h", "rc_bw" };
	struct par_set p;
	struct json_doc *j;
	json_t *d, *loc;
	char *text;

	memset(&p, 0, sizeof(p));
	param_prepare(test_find("rc_bw"), &p);
	p.val[SIDE_LOC][PAR_SRC_PATH_BITS] = 3;
	capture();
	j = json_open(JSON_DOC, 3, argv, "h");
	json_test_begin(j, test_find("rc_bw"), 0, 0, NULL, 0);
	json_test_params(j, &p);
	json_finish(j, 143, true, "interrupted by SIGTERM");
	text = captured();
	d = json_loads(text, 0, NULL);
	CHECK(d != NULL);
	if (!d) {
		free(text);
		return;
	}
	loc = json_object_get(json_object_get(json_array_get(
		json_object_get(d, "tests"), 0), "params"), "loc");
	CHECK(json_integer_value(json_object_get(loc, "src_path_bits")) == 3);
	CHECK(json_object_get(loc, "src_path_bits_B") == NULL); /* gone in 2 */
	CHECK(json_object_get(loc, "msg_size_B") != NULL);
	CHECK(json_object_get(loc, "msg_size") == NULL);
	CHECK_STR(json_string_value(json_object_get(d, "signal")), "SIGTERM");
	json_decref(d);
	free(text);
}

/* JSON off: nothing is written, events are released (ASan checks). */
TEST(off)
{
	struct json_doc *d;
	char *text;

	capture();
	d = json_open(JSON_OFF, 0, NULL, NULL);
	CHECK(d == NULL);
	json_event(d, interval(0));
	json_finish(d, 0, false, NULL);
	text = captured();
	CHECK_STR(text, "");
	free(text);
}

int main(void)
{
	RUN(stream_events);
	RUN(doc_events);
	RUN(params_and_signal);
	RUN(off);
	return harness_done();
}
