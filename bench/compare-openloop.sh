#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-openloop.sh: open-loop latency against load (issue 19 item 7):
# tcp_lat --rate R against sockperf's under-load mode at the same rates on
# loopback, PAIRS interleaved pairs per rate (ours/sockperf, then
# sockperf/ours, ...), each with its own server, and the medians of p50,
# p99 and p99.9 side by side; then ours alone for rc_lat over softverbs
# (no other tool runs RDMA open loop), the same percentiles per rate.
#
# Both report half the round trip.  sockperf is run with --reply-every 1
# (every message answered and timed, as ours) and times each message from
# when it was actually sent; ours from when it was meant to be sent (so a
# sender's stall counts for every request it delayed: docs/openloop.md).
# sockperf leaves its first 400 ms out (warm-up); ours times everything.
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/compare-openloop.sh [> results-openloop.md]
# Environment:
#   PAIRS=5            interleaved pairs per rate
#   T=3                seconds per run
#   RATES="1000 10000 40000"   requests a second (tcp_lat and sockperf)
#   RDMA_RATES="1000 5000"     requests a second (rc_lat over softverbs;
#                      empty: none)
#   LAT_SIZE=14        message bytes (sockperf's smallest)
#   OURS=./qperf  SOCKPERF=sockperf  SV_LIB=softverbs/build
#
# Exit status: 0 when the table was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
T=${T:-3} # (lib.sh keeps it)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
RATES=${RATES:-1000 10000 40000}
RDMA_RATES=${RDMA_RATES-1000 5000}
LAT_SIZE=${LAT_SIZE:-14}
SOCKPERF=${SOCKPERF:-sockperf}
SV_LIB=${SV_LIB:-$here/../softverbs/build}
BENCH=compare-openloop
SERVER_ENV=()

check_common
command -v "$SOCKPERF" >/dev/null || die "sockperf not found (scripts/install-deps --test)"
command -v python3 >/dev/null || die "python3 is needed for the statistics"
for r in $RATES $RDMA_RATES; do
	case $r in '' | *[!0-9]* | 0) die "a rate must be a positive number of requests a second, got '$r'" ;; esac
done
case $LAT_SIZE in '' | *[!0-9]*) die "LAT_SIZE must be a number of bytes >= 14, got '$LAT_SIZE'" ;; esac
[ "$LAT_SIZE" -ge 14 ] || die "LAT_SIZE must be at least 14 (sockperf's smallest message), got '$LAT_SIZE'"

bench_setup qperf-bench-openloop
run_limit=$((T + 30))

sp_pid='' sp_port=''
start_sockperf() {
	sp_port=$(free_port)
	"$SOCKPERF" server --tcp -i 127.0.0.1 -p "$sp_port" >>"$work/sockperf-server.log" 2>&1 </dev/null &
	sp_pid=$!
	started_pids+=("$sp_pid")
	wait_listen "$sp_pid" "$sp_port" t
}

# record RATE TOOL PAIR P50 P99 P999 (microseconds) into raw.
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$raw"
}

# ours: qperf's JSON, parsed after the run (no python3 beside it).
run_ours() { # rate pair test
	local rate=$1 pair=$2 test=$3 vals env=()
	[ "$test" = rc_lat ] && env=(LD_LIBRARY_PATH="$SV_LIB" SOFTVERBS_FABRIC="olb-$$" SOFTVERBS_NODE=2)
	if ! ensure_server ours; then
		echo "- $test $rate/s ours, pair $pair: server would not start" >>"$fails"
		return
	fi
	env "${env[@]}" timeout "$run_limit" "$OURS" localhost -lp "$ours_port" -t "$T" \
		-m "$LAT_SIZE" --rate "$rate/s" --json "$test" >"$work/o.json" 2>"$work/o.err"
	vals=$(python3 -c '
import json, sys
l = json.load(sys.stdin)["tests"][0]["results"]["latency"]
print("%.3f %.3f %.3f" % (l["p50_s"] * 1e6, l["p99_s"] * 1e6, l["p99_9_s"] * 1e6))' <"$work/o.json" 2>/dev/null)
	if [ -z "$vals" ]; then
		echo "- $test $rate/s ours, pair $pair: $(tail -n 1 "$work/o.err")" >>"$fails"
		return
	fi
	# shellcheck disable=SC2086 # three numbers
	record "$test $rate" ours "$pair" $vals
}

run_sockperf() { # rate pair
	local rate=$1 pair=$2 out p50 p99 p999
	if ! kill -0 "${sp_pid:-0}" 2>/dev/null; then
		kill_tree "$sp_pid"
		start_sockperf || { echo "- tcp_lat $rate/s sockperf, pair $pair: server would not start" >>"$fails"; return; }
	fi
	out=$(timeout "$run_limit" "$SOCKPERF" under-load --tcp -i 127.0.0.1 -p "$sp_port" \
		--mps "$rate" --reply-every 1 -t "$T" -m "$LAT_SIZE" 2>&1)
	p50=$(printf '%s\n' "$out" | awk '/percentile 50.000 =/ { print $NF; exit }')
	p99=$(printf '%s\n' "$out" | awk '/percentile 99.000 =/ { print $NF; exit }')
	p999=$(printf '%s\n' "$out" | awk '/percentile 99.900 =/ { print $NF; exit }')
	if [ -z "$p50" ] || [ -z "$p99" ] || [ -z "$p999" ]; then
		echo "- tcp_lat $rate/s sockperf, pair $pair: $(printf '%s\n' "$out" | tail -n 1 | cut -c1-160)" >>"$fails"
		return
	fi
	record "tcp_lat $rate" sockperf "$pair" "$p50" "$p99" "$p999"
}

run_one() { # case tool pair
	local rate=${1#* }
	case $2 in
	ours) run_ours "$rate" "$3" "${1%% *}" ;;
	sockperf) run_sockperf "$rate" "$3" ;;
	esac
}

start_sockperf || die "the sockperf server would not start"
start_ours || die "our server would not start"
for r in $RATES; do
	bench_pairs "tcp_lat $r" ours sockperf
done
if [ -n "$RDMA_RATES" ]; then
	[ -e "$SV_LIB/libibverbs.so.1" ] || die "softverbs is not built in '$SV_LIB' (run make)"
	"$OURS" --version 2>&1 | grep -q 'rdma: built' || die "'$OURS' was built without the RDMA tests"
	# our server over softverbs from here on
	bench_stop "$ours_pid" "$OURS" "$ours_port"
	ours_pid=''
	SERVER_ENV=(LD_LIBRARY_PATH="$SV_LIB" SOFTVERBS_FABRIC="olb-$$" SOFTVERBS_NODE=1)
	start_ours || die "our server over softverbs would not start"
	for r in $RDMA_RATES; do
		for p in $(seq "$PAIRS"); do
			run_ours "$r" "$p" rc_lat
		done
	done
fi
bench_end

echo "# Open-loop latency against load: tcp_lat --rate against sockperf under-load"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(uname -r), load at the end" \
	"$load_end; $PAIRS pairs per rate, $T s each, $LAT_SIZE-byte messages, loopback;" \
	"$ours_ver; $("$SOCKPERF" --version 2>&1 | head -n 1)"
echo
echo "Half round trips in microseconds, medians over the pairs.  sockperf: under-load"
echo "--tcp --reply-every 1, timed from each actual send, first 400 ms left out;"
echo "qperf: --rate R/s, timed from each intended send (coordinated omission"
echo "counted), all of the run."
echo
python3 - "$raw" <<'PYEOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines() if l]
cases = []
for c, *_ in rows:
    if c not in cases:
        cases.append(c)
def med(c, tool, i):
    v = [float(r[3 + i]) for r in rows if r[0] == c and r[1] == tool]
    return (statistics.median(v), len(v)) if v else (None, 0)
def f(v):
    return "" if v is None else ("%.1f" % v if v < 1000 else "%.0f" % v)
print("| test | rate/s | qperf p50 | sockperf p50 | qperf p99 | sockperf p99 | qperf p99.9 | sockperf p99.9 | runs |")
print("|---|---|---|---|---|---|---|---|---|")
for c in cases:
    test, rate = c.split()
    q = [med(c, "ours", i) for i in range(3)]
    s = [med(c, "sockperf", i) for i in range(3)]
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %d/%d |" % (
        test, rate, f(q[0][0]), f(s[0][0]), f(q[1][0]), f(s[1][0]),
        f(q[2][0]), f(s[2][0]), q[0][1], s[0][1]))
PYEOF
print_fails
exit 0
