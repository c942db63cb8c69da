// SPDX-License-Identifier: GPL-2.0-only
/*
 * qperf --completion (core/completion.c): the scripts' word lists are the
 * tables' (every current option spelling, every test, every help topic,
 * every cluster pattern), each option that takes a value is in exactly one
 * list of value kinds, obsolete spellings are left out, and a bad shell is
 * one error naming it and the shells.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/opts.h"
#include "lib/sched.h"
#include "transports/transport.h"

/* The script for shell, in a malloc'd buffer ("" on failure). */
static char *script(const char *shell)
{
	char *buf = NULL, err[160];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return strdup("");
	CHECK(completion_print(f, shell, err, sizeof(err)) == 0, "%s", err);
	fclose(f);
	return buf;
}

/* The words of the bash variable name (" a b c "), malloc'd. */
static char *bash_var(const char *text, const char *name)
{
	char key[64];
	const char *p, *e;
	char *w;

	snprintf(key, sizeof(key), "\n%s='", name);
	p = strstr(text, key);
	CHECK(p != NULL, "no %s", name);
	if (!p)
		return strdup("");
	p += strlen(key);
	e = strchr(p, '\'');
	w = malloc((size_t)(e - p) + 3);
	sprintf(w, " %.*s ", (int)(e - p), p);
	return w;
}

static bool has_word(const char *list, const char *w)
{
	char k[128];

	snprintf(k, sizeof(k), " %s ", w);
	return strstr(list, k) != NULL;
}

TEST(bash_lists_every_option_once_not_obsolete)
{
	char *s = script("bash"), *opts = bash_var(s, "_qperf_opts");
	static const char *const kinds[] = {
		"_qperf_k_flag",  "_qperf_k_value",   "_qperf_k_onoff",
		"_qperf_k_file",  "_qperf_k_device",  "_qperf_k_topic",
		"_qperf_k_cluster", "_qperf_k_loop",  "_qperf_k_shell",
	};
	char *k[9];

	for (int i = 0; i < 9; i++)
		k[i] = bash_var(s, kinds[i]);
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];
		const char *names[2] = { o->name, o->abbr };

		for (int j = 0; j < 2 && names[j]; j++) {
			int in = 0;

			for (int m = 0; m < 9; m++)
				in += has_word(k[m], names[j]);
			if (o->obsolete_for) {
				CHECK(!has_word(opts, names[j]) && !in,
				      "obsolete %s offered", names[j]);
				continue;
			}
			CHECK(has_word(opts, names[j]), "%s missing", names[j]);
			CHECK(in == 1, "%s in %d kind lists", names[j], in);
		}
	}
	CHECK(has_word(k[3], "--plot") && has_word(k[3], "-lpf"));
	CHECK(has_word(k[4], "-i") && has_word(k[4], "--rem_id"));
	CHECK(has_word(k[2], "-cp") && has_word(k[2], "--use_cm"));
	CHECK(has_word(k[1], "-m") && !has_word(k[1], "-v"));
	for (int i = 0; i < 9; i++)
		free(k[i]);
	free(opts);
	free(s);
}

TEST(bash_lists_tests_topics_patterns)
{
	char *s = script("bash"), *t = bash_var(s, "_qperf_tests"),
	     *h = bash_var(s, "_qperf_topics"),
	     *p = bash_var(s, "_qperf_patterns"),
	     *l = bash_var(s, "_qperf_loopvars");
	FILE *null = fopen("/dev/null", "w");
	const char *w;

	CHECK(null != NULL);
	for (size_t i = 0; i < test_count; i++) {
		CHECK(has_word(t, test_table[i].name), "%s", test_table[i].name);
		CHECK(has_word(h, test_table[i].name), "%s", test_table[i].name);
	}
	for (size_t i = 0; (w = help_topic(i)); i++)
		CHECK(help_print(null, w, NULL, 0) == 0 &&
			      has_word(h, w),
		      "%s", w);
	CHECK(has_word(h, "examples") && !has_word(h, "optnames"));
	for (size_t i = 0; (w = sched_form(i)); i++)
		CHECK(has_word(p, w), "%s", w);
	CHECK(!strcmp(p, " all ring bisect random: incast: fanout: "), "%s", p);
	CHECK(has_word(l, "msg_size:") && has_word(l, "loc_sock_buf_size:") &&
		      !has_word(l, "static_rate:") && !has_word(l, "id:"),
	      "%s", l);
	fclose(null);
	free(t);
	free(h);
	free(p);
	free(l);
	free(s);
}

TEST(every_shell_prints)
{
	char *b = script("bash"), *z = script("zsh"), *f = script("fish");

	CHECK(strstr(b, "\ncomplete -F _qperf qperf\n") != NULL);
	CHECK(!strncmp(z, "#compdef qperf\n# qperf zsh completion", 37));
	CHECK(strstr(z, "compdef _qperf qperf") != NULL);
	CHECK(strstr(f, "\ncomplete -c qperf -l plot -r -F -d ") != NULL);
	CHECK(strstr(f, "\ncomplete -c qperf -l id -o i -x -a '(__qperf_devices)'") != NULL);
	free(b);
	free(z);
	free(f);
}

TEST(bad_shell)
{
	char err[160] = "";
	FILE *f = fopen("/dev/null", "w");

	CHECK(completion_print(f, "ksh", err, sizeof(err)) == -1);
	CHECK_STR(err, "bad shell ksh for --completion; use bash, zsh or fish");
	CHECK(completion_print(f, "", err, sizeof(err)) == -1);
	CHECK_STR(err, "missing shell for --completion; use bash, zsh or fish");
	fclose(f);
}

int main(void)
{
	RUN(bash_lists_every_option_once_not_obsolete);
	RUN(bash_lists_tests_topics_patterns);
	RUN(every_shell_prints);
	RUN(bad_shell);
	return harness_done();
}
