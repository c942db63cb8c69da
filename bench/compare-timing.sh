#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-timing.sh: what timing every round trip costs (the latency
# percentiles of -vx, issue 9).  The same binary runs with timing on (the
# default) and off (QPERF_NO_LAT_TIMING=1 on both ends: the latency loops
# then read no clock and fill no histogram), interleaved on/off, off/on,
# ... PAIRS times per case, each run T seconds, and the report gives the
# median latencies and the per-pair ratios on/off (target <= 1.02).
# tcp_lat runs over loopback; rc_lat over softverbs (two emulated hosts:
# servers SOFTVERBS_NODE=1, clients =2, on a fabric of this run's own).
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/compare-timing.sh [> results-timing.md]
# Environment:
#   PAIRS=10      interleaved on/off pairs per case
#   T=1           whole seconds per run
#   OURS=./qperf  the binary (default: the one next to bench/)
#   CASES="tcp_lat rc_lat"   (rc_lat needs softverbs: SV_LIB=DIR)
#   RAW=FILE      also keep every run's latency (TSV) in FILE
#
# Exit status: 0 when the table was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
PAIRS=${PAIRS:-10}
CASES=${CASES:-tcp_lat rc_lat}
SV_LIB=${SV_LIB:-$here/../softverbs/build}
RAW=${RAW:-}
BENCH=compare-timing

check_common
command -v python3 >/dev/null || die "python3 is needed for the statistics"
for c in $CASES; do
	case $c in
	tcp_lat | udp_lat) ;;
	rc_lat | ud_lat | rc_rdma_read_lat)
		"$OURS" --version 2>&1 | grep -q 'rdma: built' ||
			die "'$OURS' was built without the RDMA tests"
		[ -e "$SV_LIB/libibverbs.so.1" ] ||
			die "softverbs is not built in '$SV_LIB' (run make, or set SV_LIB=)" ;;
	*) die "unknown case '$c' (tcp_lat udp_lat rc_lat ud_lat rc_rdma_read_lat)" ;;
	esac
done
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-timing-$$
unset SOFTVERBS_NODE QPERF_NO_LAT_TIMING

bench_setup qperf-bench-timing

# Two servers of ours: timing on, and timing off.
SERVER_ENV=(SOFTVERBS_NODE=1)
start_ours || die "our server (timing on) did not start"
on_pid=$ours_pid on_port=$ours_port
SERVER_ENV=(SOFTVERBS_NODE=1 QPERF_NO_LAT_TIMING=1)
start_ours || die "our server (timing off) did not start"
off_pid=$ours_pid off_port=$ours_port
ours_pid='' # both are in started_pids; cleanup stops them by PID

# One run: record the latency (ns, -uu) or the failure.
run_one() { # case mode pair
	local case=$1 mode=$2 pair=$3 port=$on_port env=() out rc lat
	if [ "$mode" = off ]; then
		port=$off_port
		env=(QPERF_NO_LAT_TIMING=1)
	fi
	out=$(env SOFTVERBS_NODE=2 "${env[@]}" timeout "$run_limit" "$OURS" localhost \
		-lp "$port" -t "$T" -uu "$case" 2>&1 </dev/null)
	rc=$?
	lat=$(printf '%s\n' "$out" | awk '$1 == "latency" && $2 == "=" { print $3 }')
	if [ "$rc" != 0 ] || [ -z "$lat" ]; then
		printf -- '- %s, timing %s, pair %s: exit %s: %s\n' "$case" "$mode" \
			"$pair" "$rc" "$(printf '%s' "$out" | tr '\n' ' ' | cut -c1-160)" >>"$fails"
		return
	fi
	printf '%s\t%s\t%s\tlatency\t%s\n' "$case" "$mode" "$pair" "$lat" >>"$raw"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in $CASES; do
	for p in $(seq "$PAIRS"); do
		echo "$BENCH: $c pair $p/$PAIRS" >&2
		# Alternate the order so neither mode always runs first.
		if [ $((p % 2)) = 1 ]; then
			run_one "$c" on "$p"
			run_one "$c" off "$p"
		else
			run_one "$c" off "$p"
			run_one "$c" on "$p"
		fi
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[ -n "$RAW" ] && cp "$raw" "$RAW"
version_info

echo "# Cost of timing every round trip ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
echo "- machine: $(hostname), $(nproc) CPUs, $(uname -r), $cpu"
echo "- load average (1, 5, 15 min): before $load_before, after $load_after"
echo "- qperf: $ours_ver ($ours_rev); $PAIRS on/off pairs per case, $T s per run"
echo "- on = default; off = QPERF_NO_LAT_TIMING=1 on client and server"
echo
python3 - "$raw" "$CASES" <<'EOF'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    case, mode, pair, metric, v = line.rstrip("\n").split("\t")
    vals.setdefault((case, mode), {})[int(pair)] = float(v)
print("| case | median on | median off | median ratio on/off | per-pair ratios "
      "(min, median, max) | pairs on slower | cost | target | verdict |")
print("|---|--:|--:|--:|--:|--:|--:|---|---|")
for case in sys.argv[2].split():
    a, b = vals.get((case, "on"), {}), vals.get((case, "off"), {})
    if not a or not b:
        print("| %s | — | — | — | — | — | — | ≤ 1.02 | n/a (runs failed) |" % case)
        continue
    ma, mb = statistics.median(a.values()), statistics.median(b.values())
    pr = sorted(a[p] / b[p] for p in a if p in b and b[p] > 0)
    mr = statistics.median(pr)
    slower = sum(1 for r in pr if r > 1)
    # Noise: the spread of the off runs themselves (max/min - 1).
    noise = max(b.values()) / min(b.values()) - 1
    if mr <= 1.02:
        verdict = "meets"
    else:
        verdict = "**misses**"
    if abs(mr - 1) < noise / 2:
        verdict += " (within noise: off runs spread %.0f %%)" % (noise * 100)
    print("| %s | %.2f us | %.2f us | %.3f | %.3f, %.3f, %.3f | %d/%d | %+.1f %% | ≤ 1.02 | %s |"
          % (case, ma / 1e3, mb / 1e3, mr, pr[0], mr, pr[-1], slower, len(pr),
             (mr - 1) * 100, verdict))
EOF
echo
echo "Ratio on/off > 1 means the timed runs were slower.  A pair is one on and"
echo "one off run back to back (alternating which goes first); the per-pair"
echo "ratios show how much the machine's noise moves a single comparison."
if [ -s "$fails" ]; then
	echo
	echo "Failed runs (not counted):"
	echo
	cat "$fails"
fi
exit 0
