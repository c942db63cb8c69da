#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-cm.sh: the RDMA connection manager paths (issue 8) against their
# counterparts, over softverbs, with this project's qperf on both ends:
# rc_bw and rc_lat connected through librdmacm (-cm1) against qperf's own
# NODE exchange, and the rsockets tests rs_bw and rs_lat against tcp_bw and
# tcp_lat (the same stream loops over kernel sockets on loopback) and
# against rc_bw and rc_lat (the verbs they run on).  Each comparison is
# interleaved, A B, B A, ... PAIRS times, every run T seconds; the table
# gives the medians and the per-pair ratios A/B.  One server of ours
# (SOFTVERBS_NODE=1) serves every run; clients run as SOFTVERBS_NODE=2, on
# a fabric of this run's own.  Over softverbs the figures measure the
# emulator (memory copies, CPU scheduling), not a fabric: read the ratios.
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/compare-cm.sh [> results-cm.md]
# Environment:
#   PAIRS=5       interleaved pairs per comparison
#   T=1           whole seconds per run
#   OURS=./qperf  the binary (default: the one next to bench/)
#   SV_LIB=DIR    softverbs build (default: softverbs/build next to bench/)
#   RAW=FILE      also keep every run's figure (TSV) in FILE
#
# Exit status: 0 when the table was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
PAIRS=${PAIRS:-5}
SV_LIB=${SV_LIB:-$here/../softverbs/build}
RAW=${RAW:-}
BENCH=compare-cm

# The comparisons: NAME, then A and B as "OPTIONS TEST" (words split).
COMPARISONS="
rc_bw:cm|-cm1 rc_bw|rc_bw
rc_lat:cm|-cm1 rc_lat|rc_lat
rs_bw:tcp|rs_bw|tcp_bw
rs_lat:tcp|rs_lat|tcp_lat
rs_bw:rc|rs_bw|rc_bw
rs_lat:rc|rs_lat|rc_lat
"

check_common
command -v python3 >/dev/null || die "python3 is needed for the statistics"
"$OURS" --version 2>&1 | grep -q 'rdma: built' ||
	die "'$OURS' was built without the RDMA tests"
[ -e "$SV_LIB/librdmacm.so.1" ] ||
	die "softverbs' librdmacm is not built in '$SV_LIB' (run make, or set SV_LIB=)"
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-cm-$$
unset SOFTVERBS_NODE

bench_setup qperf-bench-cm
SERVER_ENV=(SOFTVERBS_NODE=1)
start_ours || die "our server did not start"

# run_one NAME SIDE PAIR OPTIONS... TEST: the figure (bytes/s for a
# bandwidth test, ns for latency; -uu) or the failure.
run_one() {
	local name=$1 side=$2 pair=$3 out rc v
	shift 3
	out=$(env SOFTVERBS_NODE=2 timeout "$run_limit" "$OURS" localhost \
		-lp "$ours_port" -t "$T" -uu "$@" 2>&1 </dev/null)
	rc=$?
	v=$(printf '%s\n' "$out" | awk '($1 == "bw" || $1 == "latency") && $2 == "=" { print $3; exit }')
	if [ "$rc" != 0 ] || [ -z "$v" ]; then
		printf -- '- %s (%s), pair %s: exit %s: %s\n' "$name" "$*" "$pair" \
			"$rc" "$(printf '%s' "$out" | tr '\n' ' ' | cut -c1-160)" >>"$fails"
		return
	fi
	printf '%s\t%s\t%s\t%s\n' "$name" "$side" "$pair" "$v" >>"$raw"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
while IFS='|' read -r name a b; do
	[ -n "$name" ] || continue
	for p in $(seq "$PAIRS"); do
		echo "$BENCH: $name pair $p/$PAIRS" >&2
		# shellcheck disable=SC2086 # the options are words
		if [ $((p % 2)) = 1 ]; then
			run_one "$name" A "$p" $a
			run_one "$name" B "$p" $b
		else
			run_one "$name" B "$p" $b
			run_one "$name" A "$p" $a
		fi
	done
done <<<"$COMPARISONS"
bench_end

echo "# RDMA CM and rsockets against their counterparts, over softverbs ($finished)"
echo
echo "- machine: $(hostname), $(nproc) CPUs, $(uname -r), $cpu"
echo "- load average (1, 5, 15 min): before $load_before, after $load_end"
echo "- qperf: $ours_ver ($ours_rev) on both ends; $PAIRS interleaved pairs, $T s per run"
echo
python3 - "$raw" "$COMPARISONS" <<'EOF'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    name, side, pair, v = line.rstrip("\n").split("\t")
    vals.setdefault((name, side), {})[int(pair)] = float(v)

def show(name, v):
    if name.split(":")[0].endswith("_lat"):
        return "%.2f us" % (v / 1e3)
    return "%.3f GB/s" % (v / 1e9)

print("| comparison | A | B | median A | median B | median A/B "
      "| per-pair A/B (min, max) |")
print("|---|---|---|--:|--:|--:|--:|")
for row in sys.argv[2].strip().splitlines():
    name, a, b = row.split("|")
    va, vb = vals.get((name, "A"), {}), vals.get((name, "B"), {})
    pr = sorted(va[p] / vb[p] for p in va if p in vb and vb[p] > 0)
    if not pr:
        print("| %s | `%s` | `%s` | — | — | — | runs failed |" % (name, a, b))
        continue
    print("| %s | `%s` | `%s` | %s | %s | %.3f | %.3f, %.3f |"
          % (name, a, b, show(name, statistics.median(va.values())),
             show(name, statistics.median(vb.values())),
             statistics.median(pr), pr[0], pr[-1]))
EOF
echo
echo "For bandwidth a ratio above 1 means A moved more; for latency a ratio"
echo "below 1 means A was faster.  rs_* and tcp_* share the stream loops"
echo "(transports/sock.c); rs_* run over RC QPs that rsockets connects"
echo "through the CM."
print_fails
exit 0
