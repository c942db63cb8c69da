# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# The harness shared by tests/softverbs/run.sh and tests/softverbs-cm/run.sh
# (sourced, not run), on top of tests/lib.sh (ports, polling, narrowing):
# option parsing, building, processes (spawn, reap, run_proc, kill_own),
# listeners, assertions (expect_*, case_fail), case selection and the main
# loop.  Only PIDs the sourcing script started are ever signalled.
#
# The sourcing script sets HERE, ROOT, SV_BUILD, TMO and may define
# local_opt (options of its own, without an argument: returns 0 if it took
# $1) before parse_opts; it then defines kind_* and the cases (defcase).

# Variables set here are read by the sourcing script:
# shellcheck disable=SC2034,SC2119,SC2120

# The common test library (narrowing: checks_match, QPERF_CHECKS).
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# The cases are selected here (selected); the programs a case runs get
# their own names to run and must not narrow again.
export -n QPERF_CHECKS

REPEAT=1
LIST=0
KEEP=0
BUILD=1
LOGROOT=
PATTERNS=()

usage() {
	sed -n '/^# usage:/,/^# The last line/s/^# \{0,1\}//p' "${BASH_SOURCE[-1]}"
}

# parse_opts "$@": the options both suites have; the script's local_opt
# gets the others first.
parse_opts() {
	while [ $# -gt 0 ]; do
		if declare -F local_opt >/dev/null && local_opt "$1"; then
			shift
			continue
		fi
		case $1 in
		--repeat)
			[ $# -ge 2 ] || { echo "run.sh: --repeat needs a count" >&2; exit 2; }
			REPEAT=$2
			shift ;;
		--list | -l) LIST=1 ;;
		--keep-logs) KEEP=1 ;;
		--logdir)
			[ $# -ge 2 ] || { echo "run.sh: --logdir needs a directory" >&2; exit 2; }
			LOGROOT=$2
			shift ;;
		--no-build) BUILD=0 ;;
		-h | --help) usage; exit 0 ;;
		-*) echo "run.sh: unknown option '$1'; try --help" >&2; exit 2 ;;
		*) PATTERNS+=("$1") ;;
		esac
		shift
	done
	case $REPEAT in
	'' | *[!0-9]*) echo "run.sh: bad --repeat count '$REPEAT'" >&2; exit 2 ;;
	esac
}

# skip_unless HEADER SUITE: without rdma-core's HEADER (or with NO_RDMA=1)
# the suite is skipped, as a pass of nothing.
skip_unless() {
	if [ ! -e "$1" ] || [ "${NO_RDMA:-0}" = 1 ]; then
		echo "run.sh: $2 suite skipped (no rdma-core headers, or NO_RDMA set)"
		echo "0 passed, 0 failed"
		exit 0
	fi
}

# ---------------------------------------------------------------- build

# build_softverbs: make softverbs (the ASan+UBSan build when ASAN=1).
build_softverbs() {
	local mk=(make -C "$ROOT/softverbs")

	[ "$ASAN" = 1 ] && mk+=('SANITIZE=address,undefined')
	if ! "${mk[@]}" >"$LOGROOT/build-softverbs.log" 2>&1; then
		echo "run.sh: building softverbs failed; see $LOGROOT/build-softverbs.log" >&2
		return 1
	fi
}

# build_here OUT LOGNAME WHAT: make the suite's own programs into OUT.
build_here() {
	local cf="-O2 -g"

	[ "$ASAN" = 1 ] && cf="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined"
	if ! make -C "$HERE" OUT="$1" CFLAGS="$cf" >"$LOGROOT/$2.log" 2>&1; then
		echo "run.sh: building $3 failed; see $LOGROOT/$2.log" >&2
		return 1
	fi
}

# set_base_env RUNTIME...: BASE_ENV, the environment of every process; with
# ASAN=1 the sanitizer RUNTIMEs are preloaded (the stock programs are not
# instrumented) and leak checking is off (they leak by design).
set_base_env() {
	local rt=() r

	BASE_ENV=(LD_LIBRARY_PATH="$LIB")
	[ "$ASAN" = 1 ] || return 0
	for r in "$@"; do
		rt+=("$(gcc -print-file-name="$r")")
	done
	BASE_ENV+=(LD_PRELOAD="${rt[*]}"
		ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
}

# ---------------------------------------------------------------- processes

OWN_PIDS=()		# PIDs (of timeout(1)) this script started and not reaped
LAST_PID=
CASE_DIR=
FABRIC=

# spawn NAME [VAR=VAL...] -- CMD ARGS...: start in the background, log to
# $CASE_DIR/NAME.log, set LAST_PID.
spawn() {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	printf '%s\n' "${BASE_ENV[*]} SOFTVERBS_FABRIC=$FABRIC ${envs[*]} $*" >"$CASE_DIR/$name.cmd"
	timeout -k 5 "$TMO" env "${BASE_ENV[@]}" SOFTVERBS_FABRIC="$FABRIC" \
		"${envs[@]}" "$@" >"$CASE_DIR/$name.log" 2>&1 </dev/null &
	LAST_PID=$!
	OWN_PIDS+=("$LAST_PID")
}

# reap NAME PID: wait for it; returns (and records) its exit status.
reap() {
	local rc p keep=()

	wait "$2"
	rc=$?
	echo "$rc" >"$CASE_DIR/$1.rc"
	for p in "${OWN_PIDS[@]}"; do
		[ "$p" = "$2" ] || keep+=("$p")
	done
	OWN_PIDS=("${keep[@]}")
	return $rc
}

# run_proc NAME [VAR=VAL...] -- CMD...: spawn and wait; returns the exit
# status.
run_proc() {
	spawn "$@"
	reap "$1" "$LAST_PID"
}

# Kill what this script started and is still running (own PIDs only).
kill_own() {
	local p

	for p in "${OWN_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${OWN_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	OWN_PIDS=()
}

# pick_tcp_port: PORT, a free TCP port (free_port, tests/lib.sh), or a
# failure of the case.
PORT=
pick_tcp_port() {
	PORT=$(free_port) && return 0
	case_fail "no free TCP port found"
	return 1
}

# wait_until WHAT PID CMD...: poll (wait_for, tests/lib.sh) until CMD
# succeeds; a failure of the case if PID ends first or after 20 s (WHAT
# names the listener in the failure).
wait_until() {
	local what=$1 pid=$2 rc

	shift 2
	WAIT_PID=$pid wait_for 20 cmd_unless_gone "$@"
	rc=$?
	case $rc in
	0) return 0 ;;
	2) case_fail "server ended before listening $what" ;;
	*) case_fail "server not listening $what after 20 s" ;;
	esac
	return 1
}
# cmd_unless_gone CMD...: CMD's status, or 2 once WAIT_PID has ended.
cmd_unless_gone() {
	"$@" && return 0
	kill -0 "$WAIT_PID" 2>/dev/null || return 2
	return 1
}

# wait_tcp PORT PID: poll until TCP PORT is listening.
wait_tcp() { wait_until "on TCP port $1" "$2" port_listening "$1"; }

# ---------------------------------------------------------------- assertions

CASE_ERRS=()
# case_fail WHY: the current case fails (run_case prints why).
case_fail() { CASE_ERRS+=("$*"); }

# expect_rc NAME [STATUS]: the process NAME exited with STATUS (0).
expect_rc() {
	local rc

	rc=$(cat "$CASE_DIR/$1.rc" 2>/dev/null)
	[ "$rc" = "${2:-0}" ] || case_fail "$1 exited with status ${rc:-?}$([ "$rc" = 124 ] && echo ' (timeout)') (want ${2:-0})"
}

# expect_log NAME ERE [WHAT]: NAME's output has a line matching ERE.
expect_log() {
	grep -qE -- "$2" "$CASE_DIR/$1.log" || case_fail "$1: no line matching '${3:-$2}'"
}

# expect_nolog NAME ERE [EXCEPT_ERE]: no line matches ERE (but EXCEPT_ERE).
expect_nolog() {
	local hit

	hit=$(grep -E -- "$2" "$CASE_DIR/$1.log" | grep -vE -- "${3:-^\$^}" | head -1)
	[ -z "$hit" ] || case_fail "$1: unexpected '$hit'"
}

# expect_count NAME ERE N: exactly N lines match.
expect_count() {
	local n

	n=$(grep -cE -- "$2" "$CASE_DIR/$1.log")
	[ "$n" = "$3" ] || case_fail "$1: $n lines match '$2' (want $3)"
}

# expect_positive NAME ERE: every match of ERE (whose last number is the
# figure) carries a figure > 0, and there is at least one.
expect_positive() {
	local n=0 bad=0 line v

	while read -r line; do
		n=$((n + 1))
		v=$(printf '%s\n' "$line" | grep -oE '[0-9][0-9,]*(\.[0-9]+)?' | tail -1 | tr -d ,)
		awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || bad=$((bad + 1))
	done < <(grep -oE -- "$2" "$CASE_DIR/$1.log")
	if [ $n = 0 ]; then
		case_fail "$1: no figure matching '$2'"
	elif [ $bad != 0 ]; then
		case_fail "$1: $bad of $n figures matching '$2' are zero"
	fi
}

# ---------------------------------------------------------------- cases

# split_args ARGS...: a case's ARGS.  Leading ARGS of the form VAR=VAL set
# the environment of both processes (ENV_BOTH); @s:VAR=VAL only the
# server's (ENV_SRV), @c:VAR=VAL only the client's (ENV_CLI); @sa:ARG and
# @ca:ARG add one argument to the server's or the client's command line
# only (ARGS_SRV, ARGS_CLI); @want:ERE is a line the client's output must
# have (WANT).  The rest, the program and its arguments, is ARGV.
split_args() {
	ENV_BOTH=()
	ENV_SRV=()
	ENV_CLI=()
	ARGS_SRV=()
	ARGS_CLI=()
	WANT=()
	ARGV=()
	while [ $# -gt 0 ]; do
		case $1 in
		@s:*) ENV_SRV+=("${1#@s:}") ;;
		@c:*) ENV_CLI+=("${1#@c:}") ;;
		@sa:*) ARGS_SRV+=("${1#@sa:}") ;;
		@ca:*) ARGS_CLI+=("${1#@ca:}") ;;
		@want:*) WANT+=("${1#@want:}") ;;
		[A-Z]*=*) ENV_BOTH+=("$1") ;;
		*) break ;;
		esac
		shift
	done
	ARGV=("$@")
}
split_args		# (the arrays are set, empty, from the start)


CASES=()
defcase() { CASES+=("$*"); }

# selected NAME: is case NAME selected, by the command line's shell
# PATTERNs and by the narrowing of QPERF_CHECKS (tests/lib.sh)?
selected() {
	local p

	checks_match "$1" || return 1
	[ ${#PATTERNS[@]} = 0 ] && return 0
	for p in "${PATTERNS[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# list_cases: print the selected cases (--list).
list_cases() {
	local c

	for c in "${CASES[@]}"; do
		set -f
		# shellcheck disable=SC2086 # the case line is split into words
		set -- $c
		set +f
		selected "$1" && printf '%-32s %s\n' "$1" "${*:2}"
	done
}

# ---------------------------------------------------------------- main loop

PASSED=0
FAILED=0
SUMMARY=		# a file for "ok|FAIL NAME SECONDS" lines, if set
CASE_TRIES=1		# attempts a case may have; the script's case_retry
			# NAME ATTEMPT says (0) whether a failed one is retried

# run_case NAME KIND ARGS...: kind_KIND ARGS in $RUNDIR/NAME, on its own
# fabric ($FABRIC_PREFIX-ITER-CASENO).
run_case() {
	local name=$1 kind=$2 t0 dt bad attempt

	shift 2
	CASE_DIR=$RUNDIR/$name
	mkdir -p "$CASE_DIR"
	FABRIC=$FABRIC_PREFIX-$ITER-$CASENO
	t0=$(date +%s.%N)
	for ((attempt = 1; ; attempt++)); do
		CASE_ERRS=()
		"kind_$kind" "$@"
		if [ ${#OWN_PIDS[@]} -gt 0 ]; then
			case_fail "processes still running after the case: ${OWN_PIDS[*]}"
			kill_own
		fi
		if [ "$attempt" -ge "$CASE_TRIES" ] || [ ${#CASE_ERRS[@]} = 0 ] ||
			! case_retry "$name" "$attempt"; then
			break
		fi
		mkdir -p "$CASE_DIR.try$attempt" && mv "$CASE_DIR"/* "$CASE_DIR.try$attempt"/
		FABRIC=$FABRIC_PREFIX-$ITER-$CASENO-r$attempt
	done
	bad=$(grep -lE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
		"$CASE_DIR"/*.log "$CASE_DIR".try*/*.log 2>/dev/null |
		sed "s|^$RUNDIR/||" | tr '\n' ' ')
	[ -z "$bad" ] || case_fail "sanitizer report in: $bad"
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ ${#CASE_ERRS[@]} = 0 ]; then
		PASSED=$((PASSED + 1))
		echo "ok   $name (${dt}s)"
		[ -z "$SUMMARY" ] || echo "ok $name $dt" >>"$SUMMARY"
		[ $KEEP = 1 ] || rm -rf "$CASE_DIR" "$CASE_DIR".try*
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name (${dt}s): $(printf '%s; ' "${CASE_ERRS[@]}")logs: $CASE_DIR"
		[ -z "$SUMMARY" ] || echo "FAIL $name $dt" >>"$SUMMARY"
	fi
}

# run_all: the selected cases, REPEAT times.
run_all() {
	local c it_fail

	ITER=0
	while [ $ITER -lt "$REPEAT" ]; do
		ITER=$((ITER + 1))
		RUNDIR=$LOGROOT/iter$ITER
		mkdir -p "$RUNDIR"
		[ "$REPEAT" -gt 1 ] && echo "# iteration $ITER of $REPEAT"
		it_fail=$FAILED
		CASENO=0
		for c in "${CASES[@]}"; do
			set -f
			# shellcheck disable=SC2086 # the case line is split into words
			set -- $c
			set +f
			selected "$1" || continue
			CASENO=$((CASENO + 1))
			run_case "$@"
		done
		[ "$REPEAT" -gt 1 ] && echo "# iteration $ITER: $((FAILED - it_fail)) failed ($((SECONDS - START)) s so far)"
		rmdir "$RUNDIR" 2>/dev/null
	done
	checks_none_note "$PASSED" "$FAILED"
}
