// SPDX-License-Identifier: GPL-2.0-only
/*
 * qperf --completion bash|zsh|fish: the shell completion scripts.
 *
 * Every word a script offers comes from a table at run time: option
 * spellings (and what each one's value is) from opt_table, tests from
 * test_table, help topics from help.c's topic list, --cluster patterns
 * from lib/sched.c and --loop variables from the loopable options.  So a
 * new option or test is completed without touching this file.  What is
 * written here per shell is only the small fixed logic that reads those
 * lists.  The hidden "shell" devices prints the local RDMA device names
 * (libibverbs' list, through fabric_query()), which the scripts run at
 * completion time for -i and its loc_/rem_ forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/sched.h"
#include "lib/text.h"
#include "opts.h"
#include "transports/transport.h"

/* What the word after an option is, as far as completion cares. */
enum comp_kind {
	CK_FLAG, /* no value */
	CK_VALUE, /* a value nothing can guess (a size, a time ...) */
	CK_ONOFF, /* 0 or 1 */
	CK_FILE, /* a file name (arg "File") */
	CK_DEVICE, /* an RDMA device (--id and its forms) */
	CK_TOPIC, /* a help topic */
	CK_CLUSTER, /* a --cluster pattern */
	CK_LOOP, /* a --loop Var: */
	CK_SHELL, /* a --completion shell */
	CK_COUNT
};

/*
 * Each kind's list of option spellings in the scripts (_qperf_k_NAME) and
 * what each shell does for the word after one of them: bash sets w (the
 * words to offer) or returns, zsh calls compadd, fish's -a offers these
 * words (NULL: none).  A flag's word is an option or a test, as anywhere.
 */
static const struct kind {
	const char *name;
	const char *bash, *zsh, *fish;
} kinds[CK_COUNT] = {
	[CK_FLAG] = { "flag", NULL, NULL, NULL },
	[CK_VALUE] = { "value", "return 0", "return 1", NULL },
	[CK_ONOFF] = { "onoff", "w='0 1'", "compadd -- 0 1", "0 1" },
	[CK_FILE] = { "file",
		      "compopt -o filenames 2>/dev/null\n"
		      "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
		      "\t\treturn 0",
		      "_files", NULL },
	[CK_DEVICE] = { "device",
			"command -v \"$q\" >/dev/null 2>&1 || q=qperf\n"
			"\t\tw=$(\"$q\" --completion devices 2>/dev/null)",
			"devs=(${(f)\"$(${words[1]} --completion devices "
			"2>/dev/null)\"})\n"
			"\t\tcompadd -a devs",
			"(__qperf_devices)" },
	[CK_TOPIC] = { "topic", "w=$_qperf_topics",
		       "compadd -a _qperf_topics", "$_qperf_topics" },
	[CK_CLUSTER] = { "cluster", "w=$_qperf_patterns",
			 "compadd -S '' -- ${(M)_qperf_patterns:#*:}\n"
			 "\t\tcompadd -- ${_qperf_patterns:#*:}",
			 "$_qperf_patterns" },
	[CK_LOOP] = { "loop", "w=$_qperf_loopvars",
		      "compadd -S '' -a _qperf_loopvars", "$_qperf_loopvars" },
	[CK_SHELL] = { "shell", "w=$_qperf_shells", "compadd -a _qperf_shells",
		       "$_qperf_shells" },
};

static enum comp_kind opt_kind(const struct opt_desc *o)
{
	if (o->act == OA_HELP)
		return CK_TOPIC;
	if (o->act == OA_COMPLETION)
		return CK_SHELL;
	if (o->act == OA_CLUSTER)
		return CK_CLUSTER;
	if (o->act == OA_LOOP)
		return CK_LOOP;
	if (!opt_takes_value(o))
		return CK_FLAG;
	if (o->arg && !strcmp(o->arg, "OnOff"))
		return CK_ONOFF;
	if (o->arg && !strcmp(o->arg, "File"))
		return CK_FILE;
	if (o->par == PAR_ID)
		return CK_DEVICE;
	return CK_VALUE;
}

/* The i-th word of a list, or NULL past its end. */
typedef const char *(*word_fn)(size_t i);

static const char *word_test(size_t i)
{
	return i < test_count ? test_table[i].name : NULL;
}

/* --loop's variables: each loopable option's long name and a colon. */
static const char *word_loop(size_t i)
{
	static char buf[64];

	for (size_t k = 0; k < opt_count; k++) {
		const struct opt_desc *o = &opt_table[k];

		if (o->obsolete_for || !opt_loopable(o) || i-- > 0)
			continue;
		snprintf(buf, sizeof(buf), "%s:", o->name + strspn(o->name, "-"));
		return buf;
	}
	return NULL;
}

static const char *word_shell(size_t i);

/* The word lists every script carries, by the name it gives them. */
static const struct word_list {
	const char *name;
	word_fn word;
} word_lists[] = {
	{ "tests", word_test },
	{ "topics", help_topic },
	{ "patterns", sched_form },
	{ "loopvars", word_loop },
	{ "shells", word_shell },
};

#define NLISTS (sizeof(word_lists) / sizeof(word_lists[0]))

/* Print list to f, separated by sep. */
static void put_words(FILE *f, word_fn word, const char *sep)
{
	const char *w;

	for (size_t i = 0; (w = word(i)); i++)
		fprintf(f, "%s%s", i ? sep : "", w);
}

/* Print the spellings (name, abbr) of the current options of kind k
 * (CK_COUNT: all of them), separated by sep. */
static void put_opts(FILE *f, enum comp_kind k, const char *sep)
{
	bool first = true;

	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];

		if (o->obsolete_for || (k != CK_COUNT && opt_kind(o) != k))
			continue;
		fprintf(f, "%s%s", first ? "" : sep, o->name);
		first = false;
		if (o->abbr)
			fprintf(f, "%s%s", sep, o->abbr);
	}
}

/* The lists as shell variables: _qperf_NAME for the words, _qperf_opts
 * for every option, _qperf_k_KIND for the options of each kind.  bash
 * gets strings ('a b'), zsh arrays ((a b)). */
static void put_vars(FILE *f, const char *open, const char *close)
{
	for (size_t i = 0; i < NLISTS; i++) {
		fprintf(f, "_qperf_%s=%s", word_lists[i].name, open);
		put_words(f, word_lists[i].word, " ");
		fprintf(f, "%s\n", close);
	}
	fprintf(f, "_qperf_opts=%s", open);
	put_opts(f, CK_COUNT, " ");
	fprintf(f, "%s\n", close);
	for (int k = 0; k < CK_COUNT; k++) {
		fprintf(f, "_qperf_k_%s=%s", kinds[k].name, open);
		put_opts(f, (enum comp_kind)k, " ");
		fprintf(f, "%s\n", close);
	}
}

/* How bash or zsh spells the lists and the function that reads them. */
struct posix_sh {
	const char *open, *close; /* around a list: 'a b' or (a b) */
	const char *head; /* the function up to the if/elif chain */
	/* membership of $prev in a kind's list: test[0], the kind, test[1] */
	const char *test[2];
	bool zsh; /* take kinds[].zsh, not kinds[].bash */
	const char *opts, *tests; /* offer the options, the tests */
	const char *tail; /* after the chain */
};

static const struct posix_sh bash_sh = {
	.open = "'",
	.close = "'",
	.head = "_qperf_has() { case \" $1 \" in *\" $2 \"*) return 0 ;; esac; return 1; }\n"
		"\n"
		"_qperf()\n"
		"{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= q=${COMP_WORDS[0]} w=\n"
		"\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		"\tCOMPREPLY=()\n"
		"\t# bash splits words at colons: past one (random:K, Var:Init...,\n"
		"\t# Device:Port) nothing is offered.\n"
		"\t[ \"$prev\" = : ] || [ \"$cur\" = : ] && return 0\n",
	.test = { "_qperf_has \"$_qperf_k_", "\" \"$prev\"" },
	.zsh = false,
	.opts = "w=$_qperf_opts",
	.tests = "w=$_qperf_tests",
	.tail = "\tCOMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n"
		"\t[[ ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null\n"
		"\treturn 0\n"
		"}\n"
		"complete -F _qperf qperf\n",
};

static const struct posix_sh zsh_sh = {
	.open = "(",
	.close = ")",
	.head = "_qperf() {\n"
		"\tlocal cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n"
		"\tlocal -a devs\n",
	.test = { "(( ${_qperf_k_", "[(Ie)$prev]} ))" },
	.zsh = true,
	.opts = "compadd -a _qperf_opts",
	.tests = "compadd -a _qperf_tests",
	.tail = "}\n"
		"\n"
		"if [ \"$funcstack[1]\" = _qperf ]; then\n"
		"\t_qperf \"$@\"\n"
		"else\n"
		"\tcompdef _qperf qperf\n"
		"fi\n",
};

/*
 * The lists, then the function: an if/elif chain on the previous word,
 * one branch per kind with an action, then the options for a word that
 * starts with a dash and the tests for any other.
 */
static void put_posix(FILE *f, const struct posix_sh *sh)
{
	bool first = true;

	put_vars(f, sh->open, sh->close);
	fputs(sh->head, f);
	for (int k = 0; k < CK_COUNT; k++) {
		const char *act = sh->zsh ? kinds[k].zsh : kinds[k].bash;

		if (!act)
			continue;
		fprintf(f, "\t%s ", first ? "if" : "elif");
		fprintf(f, "%s%s%s", sh->test[0], kinds[k].name, sh->test[1]);
		fprintf(f, "; then\n\t\t%s\n", act);
		first = false;
	}
	fprintf(f, "\telif [[ $cur == -* ]]; then\n\t\t%s\n\telse\n\t\t%s\n\tfi\n",
		sh->opts, sh->tests);
	fputs(sh->tail, f);
}

static void put_bash(FILE *f)
{
	put_posix(f, &bash_sh);
}

static void put_zsh(FILE *f)
{
	put_posix(f, &zsh_sh);
}

/* s in fish single quotes. */
static void put_fish_quoted(FILE *f, const char *s, int len)
{
	fputc('\'', f);
	for (int i = 0; i < len && s[i]; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			fputc('\\', f);
		fputc(s[i], f);
	}
	fputc('\'', f);
}

/* One spelling as fish names it: -l for --long, -o for -old style. */
static void put_fish_name(FILE *f, const char *name)
{
	if (name[1] == '-')
		fprintf(f, " -l %s", name + 2);
	else
		fprintf(f, " -o %s", name + 1);
}

static const char fish_logic[] =
	"function __qperf_devices\n"
	"\tset -l q (commandline -opc)[1]\n"
	"\tcommand -q $q; or set q qperf\n"
	"\tcommand $q --completion devices 2>/dev/null\n"
	"end\n"
	"complete -c qperf -e\n";

static void put_fish(FILE *f)
{
	fputs(fish_logic, f);
	for (size_t i = 0; i < NLISTS; i++) {
		fprintf(f, "set -g _qperf_%s ", word_lists[i].name);
		put_words(f, word_lists[i].word, " ");
		fputc('\n', f);
	}
	fputs("complete -c qperf -f -a '$_qperf_tests'\n", f);
	for (size_t i = 0; i < opt_count; i++) {
		const struct opt_desc *o = &opt_table[i];
		enum comp_kind k = opt_kind(o);

		if (o->obsolete_for)
			continue;
		fputs("complete -c qperf", f);
		put_fish_name(f, o->name);
		if (o->abbr)
			put_fish_name(f, o->abbr);
		if (k == CK_FILE)
			fputs(" -r -F", f);
		else if (k != CK_FLAG)
			fprintf(f, " -x%s%s%s", kinds[k].fish ? " -a '" : "",
				kinds[k].fish ? kinds[k].fish : "",
				kinds[k].fish ? "'" : "");
		fputs(" -d ", f);
		put_fish_quoted(f, o->help, help_summary_len(o->help));
		fputc('\n', f);
	}
}

/* The local RDMA devices, one a line (none in a build without RDMA). */
static void put_devices(FILE *f)
{
	struct fabric *fab = calloc(1, sizeof(*fab));

	if (!fab)
		return;
	fabric_query(fab);
	for (uint32_t i = 0; i < fab->ndevs; i++)
		fprintf(f, "%s\n", text_clean(fab->devs[i].name));
	free(fab);
}

static const struct shell {
	const char *name;
	const char *first; /* a line the shell wants first, or "" */
	void (*put)(FILE *f);
} shells[] = {
	{ "bash", "", put_bash },
	{ "zsh", "#compdef qperf\n", put_zsh }, /* compinit reads line 1 */
	{ "fish", "", put_fish },
};

#define NSHELLS (sizeof(shells) / sizeof(shells[0]))

static const char *word_shell(size_t i)
{
	return i < NSHELLS ? shells[i].name : NULL;
}

int completion_print(FILE *f, const char *shell, char *err, size_t errlen)
{
	if (!strcmp(shell, "devices")) {
		put_devices(f);
		return 0;
	}
	for (size_t i = 0; i < NSHELLS; i++) {
		if (!strcmp(shell, shells[i].name)) {
			fprintf(f, "%s# qperf %s completion, generated by "
				   "`qperf --completion %s` from its tables\n",
				shells[i].first, shell, shell);
			shells[i].put(f);
			return 0;
		}
	}
	if (err && errlen) {
		size_t k = xsnprintf(err, errlen, "%s%.40s%s for --completion; use ",
				     *shell ? "bad shell " : "missing shell",
				     shell, strlen(shell) > 40 ? "..." : "");

		for (size_t i = 0; i < NSHELLS; i++)
			k += xsnprintf(err + k, errlen - k, "%s%s",
				       i == 0 ? "" : i + 1 < NSHELLS ? ", " : " or ",
				       shells[i].name);
	}
	return -1;
}
