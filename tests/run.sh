#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run the test suites: the C unit tests, then each tests/*/run.sh.  Each
# suite's last line is "N passed, N failed"; this sums them.  The last
# line printed here is the total; the exit status is 1 if anything failed.
#
#   tests/run.sh [-j N] [SUITE | SUITE:PATTERN]...
#	e.g. tests/run.sh unit interop
#	     tests/run.sh unit:opts rdma:roce integration:json
#
# Suites (all of them, in this order, when none is named): unit docs smoke
# build sanitize fuzz integration interop compat robust netns exporter
# softverbs softverbs-cm rdma cluster package outliers.  (package installs
# the built Debian packages over Debian's qperf 0.4.11 only inside a
# private mount namespace, so it runs in a lane beside the suites that
# use 0.4.11.)
#
# -j N (or TEST_JOBS=N): run up to N suites side by side (see run_lanes);
# `make check` uses two lanes.
#
# Narrowing, SUITE:PATTERN: PATTERN is a substring (case-sensitive; several
# may be joined with "|") of the names to run:
#  - where a suite has several programs or files (unit: tests/unit/test_*;
#    integration: basic options polling memory errors interval_plot json
#    streams counters verdict completion forever conns, its files; softverbs-cm: its ASan pass; rdma: xport qperf
#    json), those whose name contains PATTERN run whole, and only they:
#    unit:test_opts runs that one binary, integration:json json.sh;
#  - otherwise every part of the suite runs with QPERF_CHECKS=PATTERN in
#    its environment, and only checks whose name (or section, or case)
#    contains PATTERN run or are counted.  The C harnesses
#    (tests/kit/check.h) skip the other test functions and cases, the
#    shell library (tests/lib.sh checks_match) the other checks, and the
#    softverbs suites (tests/softverbs/lib.sh selected) the other cases;
#    unit programs with no such test are not started at all.  Shell
#    suites may name sections (section NAME, e.g. tests/rdma/run.sh's
#    "RoCE ..."): a pattern in a section's name selects all its checks.
# A rerun of one failing check: tests/run.sh 'integration:tcp_bw layout'.
# Each program also takes --list (the names it would run) and patterns of
# its own; see tests/unit/harness.h, tests/softverbs/run.sh --help,
# tests/rdma/xport.sh --help.  A SUITE:PATTERN that matches no check is a
# failure (a typo is not a silent pass); so is an unknown SUITE.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh # checks_match

JOBS=${TEST_JOBS:-1}
if [ "${1-}" = -j ]; then
	JOBS=${2-}
	shift 2 || true
fi
case $JOBS in
'' | *[!0-9]* | 0) echo "tests/run.sh: -j takes a number of lanes, not '$JOBS'" >&2; exit 2 ;;
esac
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
	args=(unit docs smoke build sanitize fuzz integration interop compat robust netns exporter softverbs softverbs-cm rdma cluster package outliers)
	# In lanes, the longest suites first (so the lanes end together;
	# integration first, beside the shared ASan builds the next ones
	# need), and the ones that must run alone at the end.
	[ "$JOBS" -gt 1 ] &&
		args=(integration rdma softverbs package robust sanitize interop cluster softverbs-cm build exporter fuzz outliers compat netns smoke docs unit)
fi

# The integration suite's files, each a sub-suite (integration:NAME).
INTEGRATION=(basic options polling memory errors interval_plot json streams counters verdict completion forever pace openloop openloop_rdma clients load regmr conn conn_rdma conns)
# In CI (CI=true) the sanitize suite runs tests/integration/json.sh,
# streams.sh and tests/robust/harden.sh whole on the ASan+UBSan build;
# when it is part of this run, their plain runs are left out (the same
# checks of the same code; the ASan run is the one that can fail on more).
if [ "${CI:-}" = true ] && [[ " ${args[*]} " == *" sanitize "* ]]; then
	INTEGRATION=(basic options polling memory errors interval_plot counters verdict completion forever pace openloop openloop_rdma clients load regmr conn conn_rdma conns)
	export QPERF_HARDEN_IN_SANITIZE=1
fi

# The suites' own builds (scratch copies, sanitizer builds) use every CPU;
# each make started by a suite gets its own job slots.
MAKEFLAGS=-j$(nproc 2>/dev/null || echo 2)
export MAKEFLAGS

total_pass=0
total_fail=0
summary=()
arg_checks=0 # checks counted for the current argument

# child_cpu VAR: set VAR to the CPU seconds (user + system) of this
# shell's waited-for children so far (bash's `times`, second line; run in
# this shell: a subshell would have children of its own).
child_cpu() {
	local u s f
	f=$(mktemp)
	times >"$f"
	{ read -r _; read -r u s; } <"$f"
	rm -f "$f"
	printf -v "$1" '%s' "$(awk -v u="$u" -v s="$s" 'function sec(t, m) {
		m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); sub(/s$/, "", t)
		return m * 60 + t } BEGIN { printf "%d", sec(u) + sec(s) }')"
}

run_suite() { # name, command...
	local name=$1 out last p f start cpu0 cpu1
	shift
	start=$(date +%s)
	child_cpu cpu0
	echo "=== $name${QPERF_CHECKS:+ (QPERF_CHECKS=$QPERF_CHECKS)}: $*"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$last" ]; then
		echo "=== $name: no summary line: counted as 1 failure"
		p=0 f=1
	else
		p=${last%% passed*}
		f=${last#*passed, }
		f=${f%% failed*}
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	arg_checks=$((arg_checks + p + f))
	child_cpu cpu1
	summary+=("$(printf '%-24s %4d passed, %3d failed  (%ds, cpu %ds)' "$name" "$p" "$f" \
		$(($(date +%s) - start)) $((cpu1 - cpu0)))")
}

# run_parts SUITE PATTERN NAME... : the parts of a suite whose NAME
# contains PATTERN (run whole), or, when none does, every part narrowed by
# QPERF_CHECKS=PATTERN.
run_parts() {
	local suite=$1 pat=$2 n whole=()
	shift 2
	if [ -n "$pat" ]; then
		for n in "$@"; do
			QPERF_CHECKS=$pat checks_match "$n" && whole+=("$n")
		done
	fi
	if [ -z "$pat" ] || [ ${#whole[@]} -gt 0 ]; then
		[ ${#whole[@]} -gt 0 ] && set -- "${whole[@]}"
		for n in "$@"; do
			part_cmd "$suite" "$n"
			run_suite "$PART_LABEL" "${PART[@]}"
		done
		return
	fi
	for n in "$@"; do
		part_cmd "$suite" "$n"
		# a unit program with no selected test is not started
		if [ "$suite" = unit ] &&
			[ -z "$(QPERF_CHECKS=$pat "${PART[@]}" --list 2>/dev/null)" ]; then
			continue
		fi
		QPERF_CHECKS=$pat run_suite "$PART_LABEL" "${PART[@]}"
	done
}

# part_cmd SUITE NAME: sets PART (the command of the part) and PART_LABEL.
part_cmd() {
	case $1 in
	unit)
		PART=("./tests/unit/$2")
		PART_LABEL=unit:$2 ;;
	integration)
		PART=(bash "tests/integration/$2.sh")
		PART_LABEL=integration:$2 ;;
	softverbs-cm)
		PART=(bash tests/softverbs-cm/run.sh)
		PART_LABEL=softverbs-cm
		[ "$2" = asan ] && PART+=(--asan) && PART_LABEL=softverbs-cm:asan
		# In CI the ASan pass runs every case; beside it the plain
		# pass is lean: one case of each kind (suite time).
		[ "$2" = plain ] && [ "${CI:-}" = true ] &&
			PART+=(rping_v4 ucmatose udaddy cmtime rdma_server rcopy
				mckey_v4 udpong_echo ib_send_bw_R rstream_b64
				riostream_b64 fi_pingpong_verbs ucx_rc_lat
				cm_rc_ipv4 rs_eof) ;;
	esac
}

run_arg() { # SUITE or SUITE:PATTERN
	local arg=$1 s pat fail_before units t parts
	s=${arg%%:*}
	pat=
	case $arg in *:*) pat=${arg#*:} ;; esac
	arg_checks=0
	fail_before=$total_fail
	case $s in
	unit)
		units=()
		for t in tests/unit/test_*.c; do
			units+=("$(basename "${t%.c}")")
		done
		run_parts unit "$pat" "${units[@]}" ;;
	integration)
		run_parts integration "$pat" "${INTEGRATION[@]}" ;;
	docs)
		QPERF_CHECKS=$pat run_suite docs bash tests/unit/test_docs.sh ;;
	softverbs-cm)
		# In CI the rdma_cm/rsockets suite also runs on the ASan build.
		parts=(plain)
		[ "${CI:-}" = true ] && parts+=(asan)
		run_parts softverbs-cm "$pat" "${parts[@]}" ;;
	*)
		if [ -f "tests/$s/run.sh" ]; then
			QPERF_CHECKS=$pat run_suite "$s" bash "tests/$s/run.sh"
		else
			echo "=== $s: no tests/$s/run.sh"; total_fail=$((total_fail + 1))
			summary+=("$(printf '%-24s unknown suite: 1 failure' "$s")")
			return
		fi ;;
	esac
	if [ -n "$pat" ] && [ "$arg_checks" -eq 0 ] && [ "$total_fail" -eq "$fail_before" ]; then
		echo "=== $arg: matched no check: counted as 1 failure"
		total_fail=$((total_fail + 1))
		summary+=("$(printf '%-24s matched no check: 1 failure' "$arg")")
	fi
}

# Lanes (-j N): up to N suites at once, each writing to its own log, which
# is printed whole when the suite ends (so outputs never interleave), with
# the summary kept in the order the suites were named.  A suite in ALONE
# starts when everything before it has ended, and only QUIET suites (short,
# light on the CPU) run beside it: its checks judge timing on purpose
# (cluster's outlier search on shaped links, tests/outliers).
# interop runs in a lane: its cases of 0.4.11's error-text race (our
# server's sends at real-time priority) passed beside a busy CPU.
ALONE=" outliers "
QUIET=" compat netns smoke docs unit "
run_lanes() {
	local dir i n=${#args[@]} running=0 done_pid k
	local -a pid=()
	dir=$(mktemp -d)
	# The ASan builds that several suites share are made once, in a lane
	# of their own, before any suite that uses them starts (so no two
	# lanes build into the same directory at once; each suite's own make
	# then finds them up to date).  Other suites run beside it.
	local san_users=" sanitize rdma softverbs softverbs-cm " prebuild=
	case " ${args[*]%%:*} " in *" sanitize "* | *" rdma "* | *" softverbs "* | *" softverbs-cm "*)
		(
			echo "=== lanes: the shared ASan+UBSan builds (softverbs, tests/.san-build)"
			make -s -C softverbs SANITIZE=address,undefined >/dev/null &&
				bash tests/san-build.sh qperf unit >/dev/null ||
				echo "=== lanes: a shared ASan build failed; the suites will say more"
		) >"$dir/prebuild.log" 2>&1 &
		prebuild=$!
		running=1 ;;
	esac
	start_arg() { # index
		(
			total_pass=0 total_fail=0 summary=()
			run_arg "${args[$1]}" >"$dir/$1.log" 2>&1
			{
				echo "$total_pass $total_fail"
				printf '%s\n' "${summary[@]}"
			} >"$dir/$1.res"
		) &
		pid[$1]=$!
		running=$((running + 1))
	}
	reap() { # wait for one lane and print what it did
		wait -n -p done_pid
		running=$((running - 1))
		[ "$done_pid" = "${alone:-}" ] && alone=
		if [ "$done_pid" = "$prebuild" ]; then
			cat "$dir/prebuild.log"
			prebuild=
		fi
		for k in "${!pid[@]}"; do
			[ "${pid[$k]}" = "$done_pid" ] || continue
			cat "$dir/$k.log"
			unset "pid[$k]"
		done
	}
	local alone= # the PID of a running ALONE suite
	for ((i = 0; i < n; i++)); do
		case $ALONE in *" ${args[$i]%%:*} "*)
			while [ "$running" -gt 0 ]; do reap; done
			start_arg "$i"
			alone=${pid[$i]}
			continue ;;
		esac
		if [ -n "$alone" ]; then
			case $QUIET in *" ${args[$i]%%:*} "*) ;; *)
				while [ -n "${alone}" ]; do reap; done ;;
			esac
		fi
		case $san_users in *" ${args[$i]%%:*} "*)
			while [ -n "$prebuild" ]; do reap; done ;;
		esac
		while [ "$running" -ge "$JOBS" ]; do reap; done
		start_arg "$i"
	done
	while [ "$running" -gt 0 ]; do reap; done
	for ((i = 0; i < n; i++)); do
		if [ ! -s "$dir/$i.res" ]; then
			summary+=("$(printf '%-24s ended without a result: 1 failure' "${args[$i]}")")
			total_fail=$((total_fail + 1))
			continue
		fi
		{
			read -r k t
			total_pass=$((total_pass + k))
			total_fail=$((total_fail + t))
			while IFS= read -r t; do [ -n "$t" ] && summary+=("$t"); done
		} <"$dir/$i.res"
	done
	rm -rf "$dir"
}

if [ "$JOBS" -gt 1 ]; then
	run_lanes
else
	for arg in "${args[@]}"; do
		run_arg "$arg"
	done
fi

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "wall time $SECONDS s in $JOBS lane(s)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
