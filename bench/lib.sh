# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
# Variables set here are read by the sourcing script:
# shellcheck disable=SC2034
#
# bench/lib.sh: what compare-0411.sh and compare-rdma.sh share (sourced, not
# run): the checks of PAIRS/T/OURS/OLD, the work directory, our server and
# 0.4.11's (started, restarted, stopped; only PIDs this script started are
# ever signalled), the failure records and the report's version lines.
#
# The sourcing script sets here (its directory) first, and BENCH (its
# name, for messages) and SERVER_ENV (VAR=VAL words for every server, may
# be empty) before check_common; SERVER_WRAP (a command that runs every
# server, ours, 0.4.11's and perftest's: "nice -n 19") is empty unless it
# sets it.
#
# It stands on tests/lib.sh, the one shell library of the tests (ports:
# free_port, port_listening; polling: wait_for, pid_gone; stop_server);
# T here is the seconds of a run, not tests/lib.sh's temp dir (LIB_TMP).

bench_t=${T:-1}
SERVER_WRAP=()
# shellcheck source=../tests/lib.sh
. "$here/../tests/lib.sh"
PAIRS=${PAIRS:-5}
T=$bench_t
OURS=${OURS:-$here/../qperf}
OLD=${OLD:-/usr/bin/qperf}

die() { echo "$BENCH: $*" >&2; exit 2; }

# check_common SS_WHY: the settings and tools both benches need.
check_common() {
	case $PAIRS in ''|*[!0-9]*|0) die "PAIRS must be a positive integer, got '$PAIRS'" ;; esac
	case $T in ''|*[!0-9]*|0) die "T must be a whole number of seconds >= 1, got '$T'" ;; esac
	[ -x "$OURS" ] || die "our qperf not found at '$OURS' (run make, or set OURS=)"
}
check_tools() { # SS_WHY
	[ -x "$OLD" ] || die "qperf 0.4.11 not found at '$OLD' (apt-get install qperf, or set OLD=)"
	command -v python3 >/dev/null || die "python3 is needed for the statistics"
	command -v ss >/dev/null || die "ss (iproute2) is needed to see $1"
}

# bench_setup TEMPLATE: the work directory, the server state, the traps and
# the raw and fails files.
bench_setup() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || die "mktemp failed"
	ours_pid='' old_pid='' ours_port='' old_port=''
	# A run must never hang the benchmark: allow the test time plus setup.
	run_limit=$((T + 20))
	started_pids=()
	at_exit cleanup # (tests/lib.sh's EXIT trap runs it)
	raw=$work/raw.tsv
	fails=$work/fails.txt
	: >"$raw"
	: >"$fails"
}

# Servers are stopped with a quit test (tests/lib.sh stop_server); if one
# is still alive after that (or the quit could not be sent), only the PID
# we started is killed.
bench_stop() { # pid client port
	local pid=$1 client=$2 port=$3
	[ -n "$pid" ] || return 0
	kill -0 "$pid" 2>/dev/null &&
		STOP_CLIENT=$client stop_server "$port" "$pid"
	kill_tree "$pid"
	return 0
}

# Kill a process we started and the children it forked (a client killed by
# the run limit can leave a per-request child of a server behind), by PID.
kill_tree() { # pid
	local pid=$1 kids k
	# Only a live child of this script: never PID 0, never a reused PID.
	case $pid in ''|0|*[!0-9]*) return 0 ;; esac
	[ "$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')" = "$$" ] || {
		wait "$pid" 2>/dev/null
		return 0
	}
	kids=$(ps -o pid= --ppid "$pid" 2>/dev/null)
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null
		sleep 0.2
		kill -9 "$pid" 2>/dev/null
	fi
	for k in $kids; do
		kill -9 "$k" 2>/dev/null
	done
	wait "$pid" 2>/dev/null
}

cleanup() {
	local p
	bench_stop "$ours_pid" "$OURS" "$ours_port"
	bench_stop "$old_pid" "$OLD" "$old_port"
	# Servers replaced after a failure (and perftest's), in case one lingers.
	for p in "${started_pids[@]}"; do
		kill_tree "$p"
	done
	ours_pid='' old_pid=''
	rm -rf "$work"
}

# Our server binds port 0 and writes the real port to a file.
start_ours() {
	local pf=$work/ours.port
	rm -f "$pf"
	env "${SERVER_ENV[@]}" "${SERVER_WRAP[@]}" "$OURS" -lp 0 -lpf "$pf" >>"$work/ours-server.log" 2>&1 </dev/null &
	ours_pid=$!
	started_pids+=("$ours_pid")
	for _ in $(seq 100); do
		if [ -s "$pf" ]; then
			ours_port=$(cat "$pf")
			return 0
		fi
		kill -0 "$ours_pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "$BENCH: our server did not start:" >&2
	cat "$work/ours-server.log" >&2
	return 1
}

# 0.4.11 cannot bind port 0 and report it: pick a free port, start it,
# poll ss until it listens; retry with another port if it lost a race.
start_old() {
	local port
	for _ in 1 2 3 4 5; do
		port=$(free_port)
		env "${SERVER_ENV[@]}" "${SERVER_WRAP[@]}" "$OLD" -lp "$port" >>"$work/old-server.log" 2>&1 </dev/null &
		old_pid=$!
		started_pids+=("$old_pid")
		for _ in $(seq 100); do
			if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
				old_port=$port
				return 0
			fi
			kill -0 "$old_pid" 2>/dev/null || break
			sleep 0.05
		done
		kill_tree "$old_pid"
	done
	echo "$BENCH: qperf 0.4.11 server did not start:" >&2
	cat "$work/old-server.log" >&2
	return 1
}

# A server that died is restarted, so one bad run costs one run only.
ensure_server() { # ours|old
	if [ "$1" = ours ]; then
		kill -0 "${ours_pid:-0}" 2>/dev/null && return 0
		[ -n "$ours_pid" ] && echo "- our server died; restarted it" >>"$fails"
		[ -n "$ours_pid" ] && wait "$ours_pid" 2>/dev/null
		start_ours
	else
		kill -0 "${old_pid:-0}" 2>/dev/null && return 0
		[ -n "$old_pid" ] && echo "- 0.4.11 server died; restarted it" >>"$fails"
		[ -n "$old_pid" ] && wait "$old_pid" 2>/dev/null
		start_old
	fi
}

# qperf_why OUT RC METRICS: why a qperf run gave no usable number: its error
# lines, else its headline values (METRICS, an ERE of their names).
qperf_why() {
	local why
	why=$(printf '%s\n' "$1" | grep -v -e '^[a-z_]*:$' -e '^__rc' \
		-e '^[0-9]*m[0-9.]*s ' -e '^ *[a-z_]* *= ' | tr '\n' ' ')
	[ -n "$why" ] || why=$(printf '%s\n' "$1" |
		grep -E "^ *($3) *= " | tr -s ' ' | tr '\n' ' ')
	why=$(printf '%s' "$why" | cut -c1-160)
	[ "$2" = 124 ] && why="timed out after ${run_limit}s; $why"
	printf '%s\n' "${why:-no result}"
}

# version_info: ours_ver, ours_rev, old_ver, cpu for the report.
version_info() {
	ours_ver=$("$OURS" --version 2>&1 | head -1)
	ours_rev=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
	old_ver=$(dpkg-query -W -f '${Package} ${Version}' qperf 2>/dev/null || echo "$OLD")
	cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
}

# bench_end: the end time and load (finished, load_end), the raw values
# kept in $RAW when asked, and the version lines (version_info).
bench_end() {
	finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
	load_end=$(cut -d' ' -f1-3 /proc/loadavg)
	[ -n "${RAW:-}" ] && cp "$raw" "$RAW"
	version_info
}

# print_fails [SED-EXPR]: the failed runs, identical ones folded into one
# line with a count (SED-EXPR, if given, first folds what may differ).
# shellcheck disable=SC2120 # SED-EXPR is optional
print_fails() {
	[ -s "$fails" ] || return 0
	echo
	echo "Failed runs (not counted in the medians):"
	echo
	sed -E -e 's/, pair [0-9]+:/:/' -e "${1:-s/^//}" "$fails" | sort | uniq -c |
		sed -E 's/^ *([0-9]+) - (.*)$/- \2 (x\1)/'
}

# --- peak memory ------------------------------------------------------
# (compare-sock.sh, compare-streams.sh: they define record, record_fail
# and GNU_TIME.)
# rss_pair CASE TOOL SERVER-CMD -- CLIENT-CMD: run a fresh server under GNU
# time, one client under GNU time, stop the server, record both peaks (KiB).
# The server is stopped by STOP (a command) or, if it is still alive after
# that, by SIGINT to the server process (the child of GNU time).
rss_pair() {
	local case=$1 tool=$2 stop=$3
	shift 3
	local srv=() cli=() tpid spid ks kc
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	"$GNU_TIME" -f %M -o "$work/rss.srv" "${srv[@]}" >>"$work/rss-server.log" 2>&1 </dev/null &
	tpid=$!
	started_pids+=("$tpid")
	for _ in $(seq 100); do
		spid=$(ps -o pid= --ppid "$tpid" 2>/dev/null | tr -d ' ')
		[ -n "$spid" ] && ss -Hltnp 2>/dev/null | grep -q "pid=$spid," && break
		sleep 0.05
	done
	timeout "$run_limit" "$GNU_TIME" -f %M -o "$work/rss.cli" "${cli[@]}" >"$work/rss.out" 2>&1
	[ -n "$stop" ] && eval "$stop" >/dev/null 2>&1
	for _ in $(seq 40); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.05; done
	if kill -0 "$tpid" 2>/dev/null; then
		spid=$(ps -o pid= --ppid "$tpid" 2>/dev/null | tr -d ' ')
		[ -n "$spid" ] && kill -INT "$spid" 2>/dev/null
		for _ in $(seq 40); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.05; done
	fi
	kill_tree "$tpid"
	ks=$(tail -1 "$work/rss.srv" 2>/dev/null)
	kc=$(tail -1 "$work/rss.cli" 2>/dev/null)
	case $kc in ''|*[!0-9]*) record_fail "$case" "$tool" 1 "client RSS not measured: $(tail -1 "$work/rss.out")" ;;
	*) record "$case" "$tool" 1 client_kib "$kc" ;; esac
	case $ks in ''|*[!0-9]*) record_fail "$case" "$tool" 1 "server RSS not measured" ;;
	*) record "$case" "$tool" 1 server_kib "$ks" ;; esac
}

# --- iperf3 and perftest (compare-sock.sh, compare-streams.sh,
# compare-rdma.sh; they define record and record_fail, and IPERF3) --------

# Bytes of a qperf size (64K = 65536, 1M = 1048576, plain numbers as is).
bytes_of() {
	case $1 in
	*[Kk]) echo $((${1%?} * 1024)) ;;
	*[Mm]) echo $((${1%?} * 1048576)) ;;
	*) echo "$1" ;;
	esac
}

iperf_pid='' iperf_port=''
# wait_listen PID PORT PROTO(t|u): until PORT listens (or PID died), at
# most 5 s.
wait_listen() {
	WAIT_PID=$1 wait_for 5 listening_unless_gone "$2" "$3"
}
listening_unless_gone() { # PORT PROTO
	port_listening "$1" "$2" && return 0
	kill -0 "$WAIT_PID" 2>/dev/null || return 2
	return 1
}
start_iperf() {
	iperf_port=$(free_port)
	"$IPERF3" -s -p "$iperf_port" >>"$work/iperf3-server.log" 2>&1 </dev/null &
	iperf_pid=$!
	started_pids+=("$iperf_pid")
	wait_listen "$iperf_pid" "$iperf_port" t
}

# run_iperf CASE PAIR SIZE [IPERF3-OPTIONS...]: one iperf3 client run (-l
# SIZE, its JSON summary's received bytes/s) against the iperf3 server.
run_iperf() {
	local case=$1 pair=$2 size=$3 out v
	shift 3
	if ! kill -0 "${iperf_pid:-0}" 2>/dev/null && ! start_iperf; then
		record_fail "$case" iperf3 "$pair" "iperf3 server would not start"
		return
	fi
	out=$(timeout "$run_limit" "$IPERF3" -c 127.0.0.1 -p "$iperf_port" -t "$T" \
		-l "$(bytes_of "$size")" -J "$@" 2>&1)
	v=$(printf '%s' "$out" | python3 -c '
import json, sys
try:
    print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8)
except Exception:
    pass' 2>/dev/null)
	if [ -z "$v" ]; then
		record_fail "$case" iperf3 "$pair" "$(printf '%s' "$out" | grep -m1 -i error | cut -c1-160)"
		return
	fi
	record "$case" iperf3 "$pair" bw "$v"
}

# perftest_once PROG OUT SRVLOG ARGS...: one perftest run: a fresh server
# (SOFTVERBS_NODE=1) and client (node 2), both with ARGS on a free port.
# The client's output goes to OUT, followed by "__rc RC" and its CPU time
# (the times builtin of the subshell that ran it); the server's to SRVLOG.
# With PT_RSS_DIR set, GNU time ($GNU_TIME) writes each one's peak RSS
# (KiB) to PT_RSS_DIR/rss.srv and rss.cli.
# The server ends by itself after the run, bounded by its timeout.
perftest_once() {
	local prog=$1 out=$2 srv=$3 port spid wsrv=() wcli=()
	shift 3
	if [ -n "${PT_RSS_DIR:-}" ]; then
		wsrv=("$GNU_TIME" -f %M -o "$PT_RSS_DIR/rss.srv")
		wcli=("$GNU_TIME" -f %M -o "$PT_RSS_DIR/rss.cli")
	fi
	port=$(free_port)
	SOFTVERBS_NODE=1 timeout -k 5 "$run_limit" "${SERVER_WRAP[@]}" \
		"${wsrv[@]}" "$prog" "$@" \
		-p "$port" >"$srv" 2>&1 </dev/null &
	spid=$!
	started_pids+=("$spid")
	for _ in $(seq 200); do
		ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.02
	done
	(SOFTVERBS_NODE=2 timeout -k 5 "$run_limit" "${wcli[@]}" "$prog" "$@" \
		-p "$port" localhost 2>&1 </dev/null
	 echo "__rc $?"
	 times) >"$out"
	for _ in $(seq 50); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill_tree "$spid"
}

# bench_pairs CASE A B: PAIRS interleaved pairs of the sourcing script's
# run_one CASE A|B PAIR, the order alternating so that neither side always
# runs first.
bench_pairs() {
	local c=$1 a=$2 b=$3 p
	for p in $(seq "$PAIRS"); do
		echo "$BENCH: $c pair $p/$PAIRS" >&2
		if [ $((p % 2)) = 1 ]; then
			run_one "$c" "$a" "$p"
			run_one "$c" "$b" "$p"
		else
			run_one "$c" "$b" "$p"
			run_one "$c" "$a" "$p"
		fi
	done
}
