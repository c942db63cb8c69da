#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# msgrate.sh: qperf's own cost per message against perftest's (issue 20
# item 5): the 2-byte message rate of rc_bw and rc_rdma_write_bw against
# ib_send_bw and ib_write_bw -s 2, over softverbs in its null mode
# (SOFTVERBS_NULL=1, docs/softverbs.md: every work request completes as it
# is posted and no data moves), so what is left is each tool's posting and
# polling loop and the verbs calls themselves.  Each case runs PAIRS
# interleaved pairs (qperf/perftest, then perftest/qperf), T seconds each,
# a fresh perftest server and client per run, our one server throughout.
# The rate is the client's: messages posted and completed over its window
# (qperf: send msgs / real time of --json; perftest: its MsgRate).  In
# null mode the server's receives complete on their own, unrelated to the
# client's sends, so its count says nothing.  CPU cycles per message: the
# client process's whole CPU time (user + system, from the shell's times
# builtin, setup included, for both tools alike) times the CPU's clock
# (/proc/cpuinfo "cpu MHz") over its messages.  It measures; it asserts
# nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/msgrate.sh [> results-msgrate.md]
# Environment:
#   PAIRS=5       interleaved pairs per case
#   T=1           seconds per run (qperf -t, perftest -D)
#   OURS=./qperf  the binary (default: the one next to bench/)
#   SV_LIB=DIR    softverbs' build directory (default softverbs/build)
#
# Exit status: 0 when the table was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
BENCH=msgrate
SV_LIB=${SV_LIB:-$here/../softverbs/build}
SERVER_ENV=(SOFTVERBS_NODE=1)

check_common
command -v python3 >/dev/null || die "python3 is needed for the statistics"
for p in ib_send_bw ib_write_bw; do
	command -v "$p" >/dev/null || die "perftest's $p not found (apt-get install perftest)"
done
[ -e "$SV_LIB/libibverbs.so.1" ] ||
	die "softverbs is not built in '$SV_LIB' (run make, or set SV_LIB=)"
export LD_LIBRARY_PATH=$SV_LIB SOFTVERBS_NULL=1
export SOFTVERBS_FABRIC=qperf-msgrate-bench-$$
mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
[ -n "$mhz" ] || die "no 'cpu MHz' in /proc/cpuinfo"

bench_setup qperf-bench-msgrate
start_ours || die "our server did not start"

# cpu_of FILE: user + system seconds of the children, from the second line
# of the times builtin ("0m0.687s 0m0.012s").
cpu_of() {
	awk '/^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ { l = $0 }
		END { split(l, f, " "); s = 0
			for (i = 1; i <= 2; i++) { split(f[i], m, "m"); s += m[1] * 60 + m[2] }
			print s }' "$1"
}

# One run: "case who pair rate cpu_s msgs" into raw, or a failure.
run_one() { # case who pair
	local case=$1 who=$2 pair=$3 test prog opts out rate msgs
	IFS=: read -r test prog opts <<<"$case"
	if [ "$who" = qperf ]; then
		ensure_server ours || return 0
		# shellcheck disable=SC2086 # opts: words, "-cqm_100" -> -cqm 100
		(SOFTVERBS_NODE=2 timeout "$run_limit" "$OURS" 127.0.0.1 \
			-lp "$ours_port" -m 2 -t "$T" ${opts//_/ } --json "$test" >"$work/q.json" 2>&1
		 times) >"$work/q.times"
		out=$(python3 -c '
import json, sys
l = json.load(sys.stdin)["tests"][0]["results"]["loc"]
print("%.1f %d" % (l["send"]["msgs"] / l["real_time_s"], l["send"]["msgs"]))' \
			<"$work/q.json" 2>/dev/null) ||
			out="no result: $(head -c 160 "$work/q.json")"
		cpu=$(cpu_of "$work/q.times")
	else
		for _ in 1 2 3; do # perftest's clock calibration may fail under load
			perftest_once "$prog" "$work/pt.out" "$work/pt-server.log" \
				-d softv0 -s 2 -D "$T"
			grep -q 'Correlation coefficient' "$work/pt.out" "$work/pt-server.log" || break
		done
		out=$(awk '/^ *#bytes/ { row = 1; next }
			row && $1 ~ /^[0-9]+$/ { printf "%.1f %d\n", $5 * 1e6, $2; exit }' "$work/pt.out")
		[ -n "$out" ] || out="no result: $(grep -iE 'error|fail|couldn' "$work/pt.out" | head -2 | tr '\n' ' ')"
		cpu=$(cpu_of "$work/pt.out")
	fi
	case $out in
	[0-9]*' '[0-9]*)
		rate=${out% *} msgs=${out#* }
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$who" "$pair" "$rate" "$cpu" "$msgs" >>"$raw" ;;
	*) echo "$case, $who, pair $pair: ${out:-no output}" >>"$fails" ;;
	esac
}

# test:perftest program:our options (with _ for spaces).  qperf signals
# every send by default (0.4.11's behaviour); perftest asks for a
# completion every 100 (its --cq-mod default), so each test runs both ways.
CASES="rc_bw:ib_send_bw: rc_bw:ib_send_bw:-cqm_100"
CASES+=" rc_rdma_write_bw:ib_write_bw: rc_rdma_write_bw:ib_write_bw:-cqm_100"
for c in $CASES; do
	bench_pairs "$c" qperf perftest
done
bench_end
pt_ver=$(dpkg-query -W -f '${Package} ${Version}' perftest 2>/dev/null || echo perftest)

echo "# Message rate at 2 bytes: qperf against perftest over softverbs' null mode"
echo
echo "$finished, $(hostname), $(nproc) CPUs ($cpu, $mhz MHz), $(uname -r)," \
	"load at the end $load_end; $PAIRS pairs of $T s per case, 1 QP on one" \
	"thread; $ours_ver ($ours_rev); $pt_ver"
echo
python3 - "$raw" "$mhz" "$CASES" <<'PYEOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
hz = float(sys.argv[2]) * 1e6
print("| qperf test | perftest | qperf msgs/s | perftest msgs/s | qperf/perftest (median of pairs) | qperf cycles/msg | perftest cycles/msg | pairs |")
print("|---|---|---|---|---|---|---|---|")
for case in sys.argv[3].split():
    by = {}
    for c, who, pair, rate, cpu, msgs in rows:
        if c == case:
            by.setdefault(pair, {})[who] = (float(rate), float(cpu) * hz / max(1, int(msgs)))
    pairs = [v for v in by.values() if "qperf" in v and "perftest" in v and v["perftest"][0] > 0]
    t, p, o = case.split(":")
    t += " " + o.replace("_", " ") if o else ""
    if not pairs:
        print("| %s | %s | | | | | | 0 |" % (t, p))
        continue
    med = lambda who, i: statistics.median(v[who][i] for v in pairs)
    print("| %s | %s -s 2 | %.2fM | %.2fM | %.2f | %.0f | %.0f | %d |" % (
        t, p, med("qperf", 0) / 1e6, med("perftest", 0) / 1e6,
        statistics.median(v["qperf"][0] / v["perftest"][0] for v in pairs),
        med("qperf", 1), med("perftest", 1), len(pairs)))
print()
print("Target: qperf/perftest at least 1.0 at one thread.  perftest asks for a completion every 100 sends (its --cq-mod default); qperf signals every send unless -cqm is given, so the -cqm 100 rows are the like-for-like ones.")
PYEOF
print_fails
exit 0
