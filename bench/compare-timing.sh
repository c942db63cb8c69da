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
# Then it builds bench/timing_cost.c and times what the loops add per round
# trip on its own (one clock read and one histogram add per end, best of
# 20 rounds), which a loaded machine disturbs far less, and gives the
# share of each case's untimed round trip that it is.
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/compare-timing.sh [> results-timing.md]
# Environment:
#   PAIRS=10      interleaved on/off pairs per case
#   T=1           whole seconds per run
#   OURS=./qperf  the binary (default: the one next to bench/)
#   CASES="tcp_lat rc_lat"   (rc_lat needs softverbs: SV_LIB=DIR)
#   RAW=FILE      also keep every run's latency (TSV) in FILE
#   OPTS="..."    extra options for every client run (e.g. -cp1: busy
#                 polling, which takes the wake-up noise of blocking waits
#                 out of the round trip; the timing cost is the same)
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
OPTS=${OPTS:-}
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
on_port=$ours_port
SERVER_ENV=(SOFTVERBS_NODE=1 QPERF_NO_LAT_TIMING=1)
start_ours || die "our server (timing off) did not start"
off_port=$ours_port
ours_pid='' # both are in started_pids; cleanup stops them by PID

# One run: record the latency (ns, -uu) or the failure.
run_one() { # case mode pair
	local case=$1 mode=$2 pair=$3 port=$on_port env=() out rc lat
	if [ "$mode" = off ]; then
		port=$off_port
		env=(QPERF_NO_LAT_TIMING=1)
	fi
	# shellcheck disable=SC2086 # OPTS is words
	out=$(env SOFTVERBS_NODE=2 "${env[@]}" timeout "$run_limit" "$OURS" localhost \
		-lp "$port" -t "$T" -uu $OPTS "$case" 2>&1 </dev/null)
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
	bench_pairs "$c" on off
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
micro=''
if ${CC:-cc} -O2 -I"$here/.." -D_GNU_SOURCE -o "$work/timing_cost" \
	"$here/timing_cost.c" "$here/../lib/hist.c" "$here/../lib/clock.c" "$here/../lib/err.c" "$here/../lib/alloc.c" \
	2>"$work/cc.log"; then
	micro=$("$work/timing_cost" | awk '{ print $2 }')
else
	echo "- the micro-benchmark did not build: $(head -c 300 "$work/cc.log")" >>"$fails"
fi
[ -n "$RAW" ] && cp "$raw" "$RAW"
version_info

echo "# Cost of timing every round trip ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
echo "- machine: $(hostname), $(nproc) CPUs, $(uname -r), $cpu"
echo "- load average (1, 5, 15 min): before $load_before, after $load_after"
echo "- qperf: $ours_ver ($ours_rev); $PAIRS on/off pairs per case, $T s per run"
echo "- on = default; off = QPERF_NO_LAT_TIMING=1 on client and server"
echo "- client options: ${OPTS:-none}"
echo
python3 - "$raw" "$CASES" "$micro" <<'EOF'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    case, mode, pair, metric, v = line.rstrip("\n").split("\t")
    vals.setdefault((case, mode), {})[int(pair)] = float(v)
micro = float(sys.argv[3]) if sys.argv[3] else None
print("| case | median on | median off | median ratio on/off | per-pair ratios "
      "(min, median, max) | pairs on slower | cost | target | verdict "
      "| micro-benchmark estimate |")
print("|---|--:|--:|--:|--:|--:|--:|---|---|--:|")
for case in sys.argv[2].split():
    a, b = vals.get((case, "on"), {}), vals.get((case, "off"), {})
    if not a or not b:
        print("| %s | — | — | — | — | — | — | ≤ 1.02 | n/a (runs failed) | — |" % case)
        continue
    ma, mb = statistics.median(a.values()), statistics.median(b.values())
    pr = sorted(a[p] / b[p] for p in a if p in b and b[p] > 0)
    mr = statistics.median(pr)
    slower = sum(1 for r in pr if r > 1)
    # Noise: how far apart runs of the same mode are (max/min - 1, the
    # smaller of the two modes), and whether single pairs disagree.
    noise = min(max(x.values()) / min(x.values()) - 1 for x in (a, b))
    verdict = "meets" if mr <= 1.02 else "**misses**"
    notes = []
    if pr[0] < 1 < pr[-1]:
        notes.append("mixed pairs")
    if abs(mr - 1) < noise:
        notes.append("within noise: same-mode runs spread %.0f %%" % (noise * 100))
    if notes:
        verdict += " (" + "; ".join(notes) + ")"
    # Both ends add it to each round trip, which is twice the latency.
    est = ("+%.2f %%" % (100 * 2 * micro / (2 * mb))) if micro else "—"
    print("| %s | %.2f us | %.2f us | %.3f | %.3f, %.3f, %.3f | %d/%d | %+.1f %% | ≤ 1.02 | %s | %s |"
          % (case, ma / 1e3, mb / 1e3, mr, pr[0], mr, pr[-1], slower, len(pr),
             (mr - 1) * 100, verdict, est))
EOF
echo
echo "Ratio on/off > 1 means the timed runs were slower.  A pair is one on and"
echo "one off run back to back (alternating which goes first); the per-pair"
echo "ratios show how much the machine's noise moves a single comparison."
if [ -n "$micro" ]; then
	echo "Micro-benchmark: one clock read and one histogram add take ${micro} ns"
	echo "(best of 20 rounds of 10^6); each end does that once per round trip, so"
	echo "the estimate is 2 x ${micro} ns over the median untimed round trip."
fi
if [ -s "$fails" ]; then
	echo
	echo "Failed runs (not counted):"
	echo
	cat "$fails"
fi
exit 0
