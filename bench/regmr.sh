#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# regmr.sh: reg_mr against a bare ibv_reg_mr/ibv_dereg_mr loop (issue 20
# item 5), to show what qperf's loop adds to the registration it times.
# bench/regmr_bare.c is built here: one device, one PD, mmap, (prefault),
# clock, ibv_reg_mr, clock, ibv_dereg_mr, clock, munmap, ROUNDS times.
# reg_mr does the same per round, and also adds each time to a histogram
# (outside the timed calls).  For each size the two run interleaved,
# qperf/bare then bare/qperf, ..., PAIRS pairs of ROUNDS regions each, over
# softverbs (or a real device: SV_LIB= empty), and the report gives both
# medians of reg p50 and mean and the median of the per-pair ratios
# qperf/bare (target: within 5%, i.e. between 0.95 and 1.05).
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/regmr.sh [> results-regmr.md]
# Environment:
#   PAIRS=5       interleaved pairs per size
#   ROUNDS=200    regions per run (-n)
#   SIZES="4K 64K 1M 16M"   region sizes (qperf's units; K and M only)
#   PREFAULT=     1: --prefault (pages written before registering)
#   OURS=./qperf  the binary (default: the one next to bench/)
#   SV_LIB=DIR    softverbs' libibverbs.so.1 (default softverbs/build);
#                 empty: the system's libibverbs and a real device
#
# Exit status: 0 when the table was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
ROUNDS=${ROUNDS:-200}
SIZES=${SIZES:-4K 64K 1M 16M}
PREFAULT=${PREFAULT:-}
SV_LIB=${SV_LIB-$here/../softverbs/build}
BENCH=regmr
T=1 # unused: reg_mr runs -n ROUNDS

check_common
case $ROUNDS in '' | *[!0-9]* | 0) die "ROUNDS must be a positive integer, got '$ROUNDS'" ;; esac
command -v python3 >/dev/null || die "python3 is needed for the statistics"
"$OURS" --version 2>&1 | grep -q 'rdma: built' ||
	die "'$OURS' was built without the RDMA tests"
if [ -n "$SV_LIB" ]; then
	[ -e "$SV_LIB/libibverbs.so.1" ] ||
		die "softverbs is not built in '$SV_LIB' (run make, or set SV_LIB=)"
	export LD_LIBRARY_PATH=$SV_LIB
	export SOFTVERBS_FABRIC=qperf-regmr-bench-$$
fi

bench_setup qperf-bench-regmr
${CC:-cc} -O2 -o "$work/regmr_bare" "$here/regmr_bare.c" -libverbs ||
	die "could not build bench/regmr_bare.c (libibverbs-dev)"

bytes() { # 4K -> 4096
	case $1 in
	*K) echo $((${1%K} * 1024)) ;;
	*M) echo $((${1%M} * 1048576)) ;;
	*[!0-9]*) die "bad size '$1' (K and M only)" ;;
	*) echo "$1" ;;
	esac
}

# One run: "size who pair reg_p50_ns reg_mean_ns" into raw, or a failure.
run_one() { # size who pair
	local size=$1 who=$2 pair=$3 b out
	b=$(bytes "$size")
	if [ "$who" = qperf ]; then
		# (parsed afterwards: no python3 beside the run)
		timeout 120 "$OURS" 127.0.0.1 -lp 1 -n "$ROUNDS" -m "$b" \
			${PREFAULT:+--prefault} --json reg_mr >"$work/q.json" 2>&1
		out=$(python3 -c '
import json, sys
r = json.load(sys.stdin)["tests"][0]["results"]["reg_mr"]["reg"]
print("%d %d" % (r["p50_s"] * 1e9, r["mean_s"] * 1e9))' <"$work/q.json" 2>&1)
	else
		out=$(timeout 120 "$work/regmr_bare" "$b" "$ROUNDS" \
			${PREFAULT:+prefault} 2>&1 | awk '{ print $2, $4 }')
	fi
	case $out in
	[0-9]*' '[0-9]*) printf '%s\t%s\t%s\t%s\n' "$size" "$who" "$pair" "${out/ /$'\t'}" >>"$raw" ;;
	*) echo "$size $who pair $pair: ${out:-no output}" >>"$fails" ;;
	esac
}

for size in $SIZES; do
	bytes "$size" >/dev/null
	bench_pairs "$size" qperf bare
done

echo "# reg_mr against a bare ibv_reg_mr loop"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname), $(nproc) CPUs, $(uname -r)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg); ${SV_LIB:+softverbs, }$PAIRS pairs of" \
	"$ROUNDS regions per size, ${PREFAULT:+prefaulted}${PREFAULT:-cold} pages;" \
	"$("$OURS" --version | head -1)"
echo
python3 - "$raw" "$SIZES" <<'PYEOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
def fmt(ns):
    return "%.3g us" % (ns / 1e3) if ns < 1e6 else "%.3g ms" % (ns / 1e6)
print("| size | qperf reg p50 | bare reg p50 | qperf/bare p50 | qperf/bare mean | pairs |")
print("|---|---|---|---|---|---|")
ratios = []
for size in sys.argv[2].split():
    by = {}
    for s, who, pair, p50, mean in rows:
        if s == size:
            by.setdefault(pair, {})[who] = (int(p50), int(mean))
    pairs = [v for v in by.values() if "qperf" in v and "bare" in v and v["bare"][0] > 0]
    if not pairs:
        print("| %s | | | | | 0 |" % size)
        continue
    rp = statistics.median(v["qperf"][0] / v["bare"][0] for v in pairs)
    rm = statistics.median(v["qperf"][1] / v["bare"][1] for v in pairs)
    ratios.append(rp)
    print("| %s | %s | %s | %.3f | %.3f | %d |" % (
        size, fmt(statistics.median(v["qperf"][0] for v in pairs)),
        fmt(statistics.median(v["bare"][0] for v in pairs)), rp, rm, len(pairs)))
print()
if ratios:
    print("qperf/bare p50 ratios from %.3f to %.3f; qperf's overhead (the largest ratio above 1): %.1f%% (target: within 5%%; below 1 is noise: qperf was faster)." % (
        min(ratios), max(ratios), max(0, max(ratios) - 1) * 100))
PYEOF
if [ -s "$fails" ]; then
	echo
	echo "Failed runs:"
	echo
	sed 's/^/    /' "$fails"
fi
exit 0
