#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The option table, `qperf --help` and docs/qperf.1 must agree (as git's
# t0450 checks its docs against -h):
#  - every option name of the table (long and short, obsolete included,
#    from the hidden `--help optnames`) is in `--help options` and in the
#    man page's OPTIONS section;
#  - every option the man page's OPTIONS section lists is in the table;
#  - every test is in the man page, and every help topic prints.
# Run from the top of the tree after `make`.  QPERF overrides ./qperf.
# The last line is "N passed, N failed"; the exit status is 1 on failure.

QPERF=${QPERF:-./qperf}
MAN=${MAN:-docs/qperf.1}
. "$(dirname "$0")/../lib.sh"
tmp=$T

# check_status NAME: the previous command's status says whether NAME passed.
check_status() { if [ "$?" -eq 0 ]; then pass "$1"; else fail "$1"; fi; }

if [ ! -x "$QPERF" ] || [ ! -f "$MAN" ]; then
	fail "need $QPERF (run make) and $MAN"
	finish
fi

"$QPERF" --help optnames >"$tmp/names"
test "$?" -eq 0 && test "$(wc -l <"$tmp/names")" -gt 100
check_status "--help optnames lists the table"

# Option names of --help options, one a line: those its headings and its
# obsolete list show (help_names), and any it mentions (help_words).
"$QPERF" --help options >"$tmp/options"
check_status "--help options"
words() { sed 's/[(),]/ /g' | tr ' ' '\n' | sed 's/[.;:]*$//' | grep '^-' | sort -u; }
{
	grep -E '^(  )?-' "$tmp/options"
	sed -n '/^Obsolete spellings/,$p' "$tmp/options"
} | words >"$tmp/help_names"
words <"$tmp/options" >"$tmp/help_words"

# The bold option names of the man page's OPTIONS section.
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$MAN" |
	grep -o '\\fB\(\\-\)\{1,2\}[A-Za-z0-9_]*\\fR' |
	sed 's/\\fB//; s/\\fR//; s/\\-/-/g' | sort -u >"$tmp/man_words"
test -s "$tmp/man_words"
check_status "man page has an OPTIONS section with option names"

# Each option's entry opens with .TP (a name line right after a paragraph
# runs into it when rendered); the obsolete names' table pairs two name
# lines under one .TP 20.
untagged=$(awk '/^\.SH OPTIONS/ { o = 1; next } /^\.SH/ { o = 0 }
	o && /^\\fB\\-/ && prev !~ /^\.TP/ && prev !~ /^\\fB\\-/ { print NR }
	{ prev = $0 }' "$MAN" | tr '\n' ' ')
test -z "$untagged"
check_status "every option of the man page's OPTIONS opens with .TP${untagged:+ (not at line $untagged)}"

missing=0
while read -r name; do
	if ! grep -qxF -- "$name" "$tmp/help_names"; then
		echo "    $name is not in --help options"
		missing=1
	fi
done <"$tmp/names"
test "$missing" -eq 0
check_status "every table option is in --help options"

missing=0
while read -r name; do
	if ! grep -qxF -- "$name" "$tmp/man_words"; then
		echo "    $name is not in $MAN"
		missing=1
	fi
done <"$tmp/names"
test "$missing" -eq 0
check_status "every table option is in the man page"

unknown=0
while read -r name; do
	if ! grep -qxF -- "$name" "$tmp/names"; then
		echo "    $MAN lists $name, which qperf does not know"
		unknown=1
	fi
done <"$tmp/man_words"
test "$unknown" -eq 0
check_status "every man page option is in the table"

unknown=0
while read -r name; do
	if ! grep -qxF -- "$name" "$tmp/names"; then
		echo "    --help options shows $name, which qperf does not know"
		unknown=1
	fi
done <"$tmp/help_words"
test "$unknown" -eq 0
check_status "every option --help options names is in the table"

# Tests: the topics after "CATEGORY may also be one of the following tests".
"$QPERF" --help categories >"$tmp/cats"
check_status "--help categories"
sed -n '/following tests/,$p' "$tmp/cats" | sed 1d | awk '{print $1}' \
	>"$tmp/tests"
test "$(wc -l <"$tmp/tests")" -ge 12
check_status "--help categories lists the tests"

missing=0
sed -n '/^\.SH TESTS/,/^\.SH OPTIONS/p' "$MAN" | sed 's/\\-/-/g' \
	>"$tmp/man_tests"
while read -r t; do
	if ! grep -qw -- "$t" "$tmp/man_tests"; then
		echo "    test $t is not in $MAN"
		missing=1
	fi
	if ! "$QPERF" --help "$t" >/dev/null 2>&1; then
		echo "    qperf --help $t failed"
		missing=1
	fi
done <"$tmp/tests"
test "$missing" -eq 0
check_status "every test is in the man page and has help"

for topic in main categories examples opts options tests; do
	"$QPERF" --help "$topic" >/dev/null 2>&1
	check_status "--help $topic"
done

"$QPERF" --help nosuchtopic >/dev/null 2>"$tmp/err"
test "$?" -ne 0 && grep -q 'cannot find help category nosuchtopic' "$tmp/err"
check_status "--help of an unknown topic fails"

if command -v groff >/dev/null 2>&1; then
	test -z "$(groff -man -Tutf8 -ww -z "$MAN" 2>&1)"
	check_status "man page renders without groff warnings"
	GUIDE=${GUIDE:-docs/qperf-guide.7}
	test -z "$(groff -man -Tutf8 -ww -z "$GUIDE" 2>&1)" &&
		grep -q '^\.SH "CLUSTER MODE"' "$GUIDE" &&
		grep -q '^\.SH SERVER' "$GUIDE"
	check_status "qperf-guide(7) renders without groff warnings and has its sections"
fi

# The shipped systemd unit, as shipped and with its shared-secret lines
# (LoadCredential, --secret_file %d/...) in use, with this binary.
UNIT=${UNIT:-scripts/qperf.service}
if command -v systemd-analyze >/dev/null 2>&1; then
	bin=$(cd "$(dirname "$QPERF")" && pwd)/$(basename "$QPERF")
	# verify looks up the unit's Documentation= man pages: ours, as
	# `make install` puts them down (PREFIX in a scratch directory), not
	# Debian's 0.4.11 qperf(1).
	make -s -o qperf install PREFIX="$tmp/p" >"$tmp/i.err" 2>&1
	export MANPATH=$tmp/p/share/man
	mkdir -p "$tmp/u1" "$tmp/u2"
	sed "s|/usr/local/bin/qperf|$bin|" "$UNIT" >"$tmp/u1/qperf.service"
	systemd-analyze verify "$tmp/u1/qperf.service" >"$tmp/u.err" 2>&1 &&
		! grep -q . "$tmp/u.err"
	check_status "systemd-analyze verify $UNIT"
	grep -q '^#LoadCredential=qperf-secret:' "$UNIT" &&
		grep -q '^#ExecStart=.* --secret_file %d/qperf-secret' "$UNIT"
	check_status "$UNIT has the shared-secret lines"
	sed -e '0,/^ExecStart=/{/^ExecStart=/d}' -e 's/^#LoadCredential=/LoadCredential=/' \
		-e 's/^#ExecStart=/ExecStart=/' -e "s|/usr/local/bin/qperf|$bin|" \
		"$UNIT" >"$tmp/u2/qperf.service"
	systemd-analyze verify "$tmp/u2/qperf.service" >"$tmp/u.err" 2>&1 &&
		! grep -q . "$tmp/u.err"
	check_status "systemd-analyze verify $UNIT with the shared-secret lines"
	# What `make install` puts down works as installed: the unit's
	# ExecStart is the installed binary (PREFIX in a scratch directory).
	! grep . "$tmp/i.err" >&2 &&
		grep -qx "ExecStart=$tmp/p/bin/qperf --no_quit" "$tmp/p/lib/systemd/system/qperf.service" &&
		cmp -s qperf "$tmp/p/bin/qperf" &&
		test -f "$tmp/p/share/man/man7/qperf-guide.7" &&
		systemd-analyze verify "$tmp/p/lib/systemd/system/qperf.service" >"$tmp/u.err" 2>&1 &&
		! grep -q . "$tmp/u.err"
	check_status "make install: the unit runs the installed binary and verifies"
	# ... and the completion scripts, as the binary prints them.
	"$tmp/p/bin/qperf" --completion bash | cmp -s - "$tmp/p/share/bash-completion/completions/qperf" &&
		"$tmp/p/bin/qperf" --completion zsh | cmp -s - "$tmp/p/share/zsh/vendor-completions/_qperf" &&
		"$tmp/p/bin/qperf" --completion fish | cmp -s - "$tmp/p/share/fish/vendor_completions.d/qperf.fish" &&
		grep -q '^complete -F _qperf qperf$' "$tmp/p/share/bash-completion/completions/qperf"
	check_status "make install: the bash, zsh and fish completion scripts"
	# ... where each shell's own loader finds them.
	share=$tmp/p/share
	if [ -f /usr/share/bash-completion/bash_completion ] &&
		command -v zsh >/dev/null && command -v fish >/dev/null; then
		XDG_DATA_DIRS=$share bash --norc -i -c '. /usr/share/bash-completion/bash_completion
			_completion_loader qperf; complete -p qperf' 2>/dev/null |
			grep -qx 'complete -F _qperf qperf' &&
			zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit
				compinit -u -d "$2"; print -r -- $_comps[qperf]' \
				zsh "$share/zsh/vendor-completions" "$tmp/zcd" | grep -qx _qperf &&
			HOME=$tmp XDG_DATA_DIRS=$share fish -c 'complete -C "qperf --json_s"' |
			grep -q '^--json_stream'
		check_status "make install: bash-completion, zsh's compinit and fish load the scripts"
	else
		skip "make install: the shells load the scripts" "no bash-completion, zsh or fish"
	fi
	unset MANPATH
else
	skip "systemd-analyze verify" "no systemd-analyze"
fi

# docs/architecture.md's rooms: arrows point one way (qperf.c -> exporter
# -> cluster -> core -> output -> transports -> lib), softverbs includes none of
# them, and HAVE_* conditionals stand only in the files that wrap an
# optional library (and around table.c's entries).
floor() {
	case $1 in
	lib) echo 0 ;; transports) echo 1 ;; output) echo 2 ;;
	core) echo 3 ;; cluster) echo 4 ;; exporter) echo 5 ;; *) echo 9 ;;
	esac
}
up=
for f in lib/*.[ch] transports/*.[ch] output/*.[ch] core/*.[ch] cluster/*.[ch] exporter/*.[ch]; do
	mine=$(floor "${f%%/*}")
	for h in $(sed -n 's/^#include "\([a-z]*\)\/[^"]*"/\1/p' "$f"); do
		[ "$(floor "$h")" -gt "$mine" ] && up="$up $f->$h"
	done
done
test -z "$up"
check_status "architecture: no file includes a room above its own${up:+ ($up)}"
! grep -lE '#include "(\.\./)*(lib|core|output|cluster|transports)/' \
	softverbs/*.[ch] >/dev/null 2>&1
check_status "architecture: softverbs includes nothing of qperf"
have=$(grep -lE '^#(if|ifdef|ifndef|elif).*HAVE_' qperf.c lib/*.[ch] \
	transports/*.[ch] output/*.[ch] core/*.[ch] cluster/*.[ch] | sort | tr '\n' ' ')
test "$have" = "cluster/pmix_boot.c core/auth.c lib/numa.c transports/table.c "
check_status "architecture: HAVE_* only where an optional library is wrapped (have: $have)"

finish
