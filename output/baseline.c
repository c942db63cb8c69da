// SPDX-License-Identifier: GPL-2.0-only
/*
 * Baselines: an earlier run's --json document and the lookups in it
 * (output/baseline.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "json.h"
#include "lib/err.h"

struct baseline {
	json_t *root;
	json_t *entries; /* the tests with results, borrowed from root */
	const char *path;
};

/* Marks an entry that a result already matched. */
#define TAKEN "qperf_baseline_taken"

struct baseline *baseline_load(const char *opt, const char *path, char *err,
			       size_t errlen)
{
	struct baseline *b;
	json_error_t je;
	json_t *root, *tests, *e;
	size_t i;
	FILE *f = fopen(path, "r");

	if (!f) {
		seterr(err, errlen, "%s: %.200s: cannot read it: %s", opt, path,
		       strerror(errno));
		return NULL;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!root) {
		seterr(err, errlen, "%s: %.200s: not JSON: line %d: %.100s",
		       opt, path, je.line, je.text);
		return NULL;
	}
	tests = json_object_get(root, "tests");
	if (!json_is_array(tests) || !json_is_string(json_object_get(
					     root, "qperf_version"))) {
		seterr(err, errlen,
		       "%s: %.200s: not the output of qperf --json (no \"tests\" array); make one with qperf HOST --json TEST... >FILE",
		       opt, path);
		json_decref(root);
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		json_decref(root);
		seterr(err, errlen, "%s: out of memory", opt);
		return NULL;
	}
	b->root = root;
	b->path = path;
	b->entries = json_array();
	json_array_foreach(tests, i, e) {
		if (json_is_object(json_object_get(e, "results")) &&
		    json_is_string(json_object_get(e, "test")))
			json_array_append(b->entries, e);
	}
	if (json_array_size(b->entries) == 0) {
		seterr(err, errlen, "%s: %.200s: holds no test with results",
		       opt, path);
		baseline_free(b);
		return NULL;
	}
	return b;
}

void baseline_free(struct baseline *b)
{
	if (!b)
		return;
	json_decref(b->entries);
	json_decref(b->root);
	free(b);
}

const char *baseline_path(const struct baseline *b)
{
	return b->path;
}

json_t *baseline_entries(const struct baseline *b)
{
	return b->entries;
}

/* One end's parameters without those that only set the run's length
 * (and src_path_bits_B, schema_version 1's copy of src_path_bits, so a
 * baseline written by that version still matches). */
static json_t *defining(json_t *side)
{
	static const char *const length[] = { "time_s", "timeout_s",
					      "no_msgs", "src_path_bits_B" };
	json_t *c = json_is_object(side) ? json_copy(side) : json_object();

	for (size_t i = 0; i < sizeof(length) / sizeof(length[0]); i++)
		json_object_del(c, length[i]);
	return c;
}

static bool same_side(json_t *a, json_t *b)
{
	json_t *x = defining(a), *y = defining(b);
	bool same = json_equal(x, y);

	json_decref(x);
	json_decref(y);
	return same;
}

/* The same loop values: both arrays equal, or neither has any. */
static bool same_loop(json_t *a, json_t *b)
{
	size_t na = json_array_size(a), nb = json_array_size(b);

	return na == nb && (na == 0 || json_equal(a, b));
}

bool baseline_same(json_t *a, json_t *b)
{
	json_t *pa = json_object_get(a, "params");
	json_t *pb = json_object_get(b, "params");

	return json_equal(json_object_get(a, "test"),
			  json_object_get(b, "test")) &&
	       same_loop(json_object_get(a, "loop"),
			 json_object_get(b, "loop")) &&
	       same_side(json_object_get(pa, "loc"),
			 json_object_get(pb, "loc")) &&
	       same_side(json_object_get(pa, "rem"),
			 json_object_get(pb, "rem"));
}

json_t *baseline_match(struct baseline *b, const char *test,
		       const struct loop_val *lv, int nloops,
		       const struct par_set *par)
{
	json_t *me = json_object(), *params = json_object(), *e, *found = NULL;
	size_t i;

	json_put(me, "test", json_string(test));
	json_put(me, "loop", json_loop(lv, nloops));
	json_put(params, "loc", json_params_side(par, SIDE_LOC));
	json_put(params, "rem", json_params_side(par, SIDE_REM));
	json_put(me, "params", params);
	json_array_foreach(b->entries, i, e) {
		if (!json_object_get(e, TAKEN) && baseline_same(me, e)) {
			json_object_set_new(e, TAKEN, json_true());
			found = e;
			break;
		}
	}
	json_decref(me);
	return found;
}

/* Where each figure is in a test's "results". */
static const char *const fig_keys[VF_COUNT][2] = {
	[VF_BW] = { "recv_bw_Bps", NULL },
	[VF_SEND_BW] = { "send_bw_Bps", NULL },
	[VF_RECV_BW] = { "recv_bw_Bps", NULL },
	[VF_LATENCY] = { "latency_s", NULL },
	[VF_LAT_P50] = { "latency", "p50_s" },
	[VF_LAT_P90] = { "latency", "p90_s" },
	[VF_LAT_P99] = { "latency", "p99_s" },
	[VF_LAT_P999] = { "latency", "p99_9_s" },
	[VF_MSG_RATE] = { "msg_rate_per_s", NULL },
};

bool baseline_value(json_t *e, enum vfig f, double *v)
{
	json_t *x;

	if ((unsigned)f >= VF_COUNT)
		return false;
	x = json_object_get(json_object_get(e, "results"), fig_keys[f][0]);
	if (fig_keys[f][1])
		x = json_object_get(x, fig_keys[f][1]);
	if (!json_is_number(x))
		return false;
	*v = json_number_value(x);
	return true;
}

int baseline_figs(const char *measure, enum vfig f[2])
{
	static const struct {
		const char *measure;
		int n;
		enum vfig f[2];
	} heads[] = {
		{ "latency", 1, { VF_LATENCY } },
		{ "msg_rate", 1, { VF_MSG_RATE } },
		{ "bandwidth", 1, { VF_BW } },
		{ "bandwidth_send_recv", 2, { VF_SEND_BW, VF_RECV_BW } },
	};

	for (size_t i = 0; measure && i < sizeof(heads) / sizeof(heads[0]);
	     i++)
		if (strcmp(measure, heads[i].measure) == 0) {
			f[0] = heads[i].f[0];
			f[1] = heads[i].f[1];
			return heads[i].n;
		}
	return 0;
}

char *baseline_describe(json_t *e, char *buf, size_t len)
{
	json_t *l;
	size_t i, at;

	at = xsnprintf(buf, len, "%s",
		       json_string_value(json_object_get(e, "test")) ?: "?");
	json_array_foreach(json_object_get(e, "loop"), i, l) {
		json_t *v = json_object_get(l, "value");
		const char *n = json_string_value(json_object_get(l, "variable"));

		if (json_is_integer(v))
			at += xsnprintf(buf + at, len - at, " %s=%lld",
					n ? n : "?",
					(long long)json_integer_value(v));
		else
			at += xsnprintf(buf + at, len - at, " %s=%g",
					n ? n : "?", json_number_value(v));
	}
	return buf;
}
