#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Shell completion (qperf --completion bash|zsh|fish, core/completion.c):
# bash's completion function is driven for real (an interactive bash with
# the script sourced, COMP_WORDS/COMP_CWORD set, COMPREPLY read back);
# fish's through `complete -C`; zsh's script is parsed (zsh -n) and its
# function run with compadd stubbed.  The lists must come from the tables:
# every option of --help opts and every test of --help tests is in the
# bash script.  No server.  Runs alone (bash tests/integration/completion.sh)
# or as tests/run.sh integration:completion.

. "$(dirname "$0")/common.sh"

# softverbs' libibverbs, whose softv0 device -i must offer (RDMA builds).
SV=$LIB_ROOT/softverbs/build
SOFTV0=
[ -f "$SV/libibverbs.so.1" ] && "$QPERF" --version | grep -q 'rdma: built' &&
	SOFTV0=1
FILES=$T/files
mkdir -p "$FILES"
touch "$FILES/sweep.svg" "$FILES/port.txt" "$FILES/my sweep.svg"

section bash
run "$QPERF" --completion bash
BASH_SCRIPT=$T/qperf.bash
cp "$OUT_FILE" "$BASH_SCRIPT"
expect "--completion bash prints a script with a completion function" 0 \
	'^complete -F _qperf qperf$' '^$'

# comp_bash WORD...: the sorted COMPREPLY, one line, for `qperf WORD...` with
# the last WORD the one being completed (run in $FILES); a space inside a
# candidate shows as "\ ".
comp_bash() {
	(cd "$FILES" && LD_LIBRARY_PATH=$SV bash --norc --noprofile -i -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_qperf
		printf "%s\n" "${COMPREPLY[@]}"' comp_bash "$BASH_SCRIPT" "$QPERF" \
		"$@" 2>/dev/null) | sed -e '/^$/d' -e 's/ /\\ /g' | sort | tr '\n' ' ' |
		sed 's/ $//'
}

# cexpect SHELL NAME WANT WORD...: comp_SHELL WORD... (the candidates for
# `qperf WORD...`, sorted, on one line) is exactly WANT.
cexpect() {
	local sh=$1 name=$2 want=$3 got
	shift 3
	got=$(comp_$sh "$@")
	if [ "$got" = "$want" ]; then
		pass "$sh: $name"
	else
		fail "$sh: $name" "qperf $*<TAB>" "wanted: $want" "got:    $got"
	fi
}
bexpect() { cexpect bash "$@"; }

bexpect "--js completes to the JSON options" "--json --json_stream" --js
bexpect "tcp_ completes to the TCP tests" "tcp_bw tcp_conn tcp_lat" tcp_
bexpect "a test after the host, by prefix" "rc_bi_bw rc_bw" localhost rc_b
bexpect "loc_ forms of long options" "--loc_sock_buf_size" -t 1 --loc_sock
bexpect "loc_ forms of short options" "-lca -lcp -lcp1 -lcqm" -lc
bexpect "an on/off option's values" "0 1" -cp ""
bexpect "--cluster patterns by prefix" "random: ring" --cluster r
bexpect "--loop variables" "msg_size: mtu_size:" -oo m
# bash splits "msg_size:" into msg_size and ":" (COMP_WORDBREAKS).
bexpect "nothing past a colon (-oo msg_size:)" "" -oo msg_size : ""
bexpect "--completion shells" "bash fish zsh" --completion ""
bexpect "--plot completes files" 'my\ sweep.svg port.txt sweep.svg' --plot ""
bexpect "-lpf completes files" "sweep.svg" -lpf sw
bexpect "a file name with a space stays one word" 'my\ sweep.svg' --plot my
# After -m (a size) nothing; after its value, tests again.
got="$(comp_bash -m "")|$(comp_bash -m 64 tcp_)"
[ "$got" = "|tcp_bw tcp_conn tcp_lat" ] &&
	pass "bash: nothing after -m, tests after its value" ||
	fail "bash: nothing after -m, tests after its value" "got: $got"
if [ -n "$SOFTV0" ]; then
	bexpect "-i offers the RDMA devices (softverbs: softv0)" "softv0" -i ""
	bexpect "--rem_id offers them too" "softv0" --rem_id so
else
	skip "bash: -i offers the RDMA devices (softverbs: softv0)" "no RDMA build or no softverbs"
fi

got=$(comp_bash --help "")
case " $got " in
*" main "*" tcp_bw "*) bad= ;;
*) bad=missing ;;
esac
for w in categories examples options opts tests rc_bw; do
	case " $got " in *" $w "*) ;; *) bad="$bad $w" ;; esac
done
case " $got " in *" optnames "*) bad="$bad optnames(hidden)" ;; esac
[ -z "$bad" ] && pass "bash: --help offers the topics and the tests" ||
	fail "bash: --help offers the topics and the tests" "bad: $bad" "got: $got"

got=$(comp_bash -)
n=$(echo "$got" | wc -w)
case " $got " in
*" --msg_size "*" -m "*) [ "$n" -ge 150 ] && ok=1 || ok= ;;
*) ok= ;;
esac
[ -n "$ok" ] && pass "bash: - offers every option ($n words)" ||
	fail "bash: - offers every option" "got $n: $got"

# From the tables: every spelling --help opts shows, every test --help
# tests lists, is in the script's lists.
opts=$(sed -n "s/^_qperf_opts='\(.*\)'$/ \1/p" "$BASH_SCRIPT")
tests=$(sed -n "s/^_qperf_tests='\(.*\)'$/ \1/p" "$BASH_SCRIPT")
missing=
for w in $("$QPERF" --help opts | grep -oE '^ *-[-a-z0-9_]+|\(-[a-zA-Z0-9]+\)' | tr -d ' ()'); do
	case "$opts " in *" $w "*) ;; *) missing="$missing $w" ;; esac
done
nopts=$("$QPERF" --help opts | grep -c '^ *-')
[ -z "$missing" ] && [ "$nopts" -ge 100 ] &&
	pass "the bash script lists every option of --help opts ($nopts)" ||
	fail "the bash script lists every option of --help opts" \
		"options: $nopts; missing:$missing"
missing=
ntests=0
for w in $("$QPERF" --help tests | sed -n 's/^    \([a-z_]*\)  *[A-Z].*/\1/p'); do
	ntests=$((ntests + 1))
	case "$tests " in *" $w "*) ;; *) missing="$missing $w" ;; esac
done
[ -z "$missing" ] && [ "$ntests" -ge 30 ] &&
	pass "the bash script lists every test of --help tests ($ntests)" ||
	fail "the bash script lists every test of --help tests" \
		"tests: $ntests; missing:$missing"

section errors
run "$QPERF" --completion ksh
[ "$(grep -c . "$ERR_FILE")" = 1 ] || RC="$RC, not one stderr line"
expect "--completion ksh: exit 2, one line naming ksh and the shells" 2 '^$' \
	'^qperf: bad shell ksh for --completion; use bash, zsh or fish$'
run "$QPERF" --completion
expect "--completion with no shell: exit 2" 2 '^$' \
	'^qperf: missing shell for --completion; use bash, zsh or fish$'

section zsh
if command -v zsh >/dev/null 2>&1; then
	run "$QPERF" --completion zsh
	ZSH_SCRIPT=$T/_qperf
	cp "$OUT_FILE" "$ZSH_SCRIPT"
	run zsh -n "$ZSH_SCRIPT"
	[ "$(head -n 1 "$ZSH_SCRIPT")" = "#compdef qperf" ] || RC="$RC, no #compdef"
	expect "zsh -n parses the zsh script (#compdef qperf first)" 0 '^$' '^$'
	# Its function, with compadd and _files stubbed to print what
	# they are given: qperf WORD... PREV ''.
	comp_zsh() {
		LD_LIBRARY_PATH=$SV zsh -f -c '
			compdef() { :; }
			compadd() {
				local a
				while [[ $1 == -* ]]; do
					[[ $1 == -- ]] && { shift; break; }
					[[ $1 == -a ]] && { a=1; shift; continue; }
					[[ $1 == -S ]] && { print -r -- "suffix=$2"; shift 2; continue; }
					shift
				done
				if [[ -n $a ]]; then print -rl -- ${(P)1}; else print -rl -- "$@"; fi
			}
			_files() { print -r -- "<files>"; }
			source "$1"; shift
			words=("$@"); CURRENT=$#
			_qperf' comp_zsh "$ZSH_SCRIPT" "$QPERF" "$@" 2>&1 | sort | tr '\n' ' ' | sed 's/ $//'
	}
	zexpect() { cexpect zsh "$@"; }
	zexpect "--cluster offers the patterns, random:, incast:, fanout: without a space" \
		"all bisect fanout: incast: random: ring suffix=" --cluster ""
	zexpect "an on/off option's values" "0 1" -ar ""
	zexpect "--plot completes files" "<files>" --plot ""
	all_tests=$(sed -n "s/^_qperf_tests='\(.*\)'/\1/p" "$BASH_SCRIPT" |
		tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
	zexpect "every test after the host" "$all_tests" localhost ""
	if [ -n "$SOFTV0" ]; then
		zexpect "-li offers the RDMA devices (softv0)" "softv0" -li ""
	fi
else
	skip "zsh -n parses the zsh script" "no zsh (scripts/install-deps --test)"
fi

section fish
if command -v fish >/dev/null 2>&1; then
	run "$QPERF" --completion fish
	FISH_SCRIPT=$T/qperf.fish
	cp "$OUT_FILE" "$FISH_SCRIPT"
	run fish -n "$FISH_SCRIPT"
	grep -q '^complete -c qperf -l msg_size -o m -x ' "$FISH_SCRIPT" ||
		RC="$RC, no complete line for --msg_size"
	expect "fish -n parses the fish script" 0 '^$' '^$'
	# fish's own completion of the command line (complete -C).
	comp_fish() {
		(cd "$FILES" && HOME=$T PATH=$(dirname "$QPERF"):$PATH LD_LIBRARY_PATH=$SV \
			fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
			"$FISH_SCRIPT" "qperf $*" 2>&1) | cut -f1 | sort | tr '\n' ' ' | sed 's/ $//'
	}
	fexpect() { cexpect fish "$@"; }
	fexpect "--js completes to the JSON options" "--json --json_stream" --js
	fexpect "tcp_ completes to the TCP tests" "tcp_bw tcp_conn tcp_lat" tcp_
	fexpect "--cluster patterns" "random: ring" --cluster r
	fexpect "--help topics" "examples" --help ex
	got="$(comp_fish --plot sw)|$(comp_fish -m sw)"
	[ "$got" = "sweep.svg|" ] &&
		pass "fish: files after --plot, none after -m" ||
		fail "fish: files after --plot, none after -m" "got: $got"
	if [ -n "$SOFTV0" ]; then
		fexpect "-i offers the RDMA devices (softv0)" "softv0" -i ""
	fi
else
	skip "fish -n parses the fish script" "no fish (scripts/install-deps --test)"
fi

finish
