#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# msgrate.sh: qperf's own cost per message against perftest's (issue 20
# item 5).  Part 1: the 2-byte message rate of rc_bw and rc_rdma_write_bw
# against ib_send_bw and ib_write_bw -s 2, over softverbs in its null mode
# (SOFTVERBS_NULL=1, docs/softverbs.md: every work request completes as it
# is posted and no data moves), so what is left is each tool's posting and
# polling loop and the verbs calls themselves: 1 QP, then --qps 16 on one
# and on two threads (--threads 2) against ib_write_bw -q 16.  Part 2: the
# aggregate 2-byte rc_rdma_write_bw rate at --qps 1, 64, 1024 and 4096
# against ib_write_bw -q at the same counts over softverbs in its normal
# mode (data moves; the emulator's cost per QP shows).  Each case runs PAIRS
# interleaved pairs (qperf/perftest, then perftest/qperf), T seconds each,
# a fresh perftest server and client per run, our one server throughout.
# The rate is the client's: messages posted and completed over its window
# (qperf: send msgs / real time of --json; perftest: its MsgRate).  In
# null mode the server's receives complete on their own, unrelated to the
# client's sends, so its count says nothing; and a server that receives
# (qperf's rc_rdma_write_bw, whose writes carry an immediate as 0.4.11's
# do, and both tools' send_bw) spins on receives that complete as they
# are posted, where perftest's write server posts none and sleeps.  So in
# part 1 every server, both tools', runs at nice 19: it takes only the CPU
# the clients leave, and a 2-CPU machine can give a second client thread
# a CPU of its own.  CPU cycles per message: the
# client process's whole CPU time (user + system, from the shell's times
# builtin, setup included, for both tools alike) times the CPU's clock
# (/proc/cpuinfo "cpu MHz") over its messages.  It measures; it asserts
# nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/msgrate.sh [> results-msgrate.md]
# Environment:
#   PAIRS=5       interleaved pairs per case
#   T=1           seconds per run (qperf -t, perftest -D)
#   PART=         1 or 2: that part only
#   OURS=./qperf  the binary (default: the one next to bench/)
#   SV_LIB=DIR    softverbs' build directory (default softverbs/build)
#   NOTE=TEXT     a line for the report, under its header (what else ran)
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
SERVER_WRAP=(nice -n 19) # part 1 (above); part 2's servers work

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

# A case is "test:our options:perftest program:its options", spaces as _.
# One run: "case who pair rate cpu_s msgs" into raw, or a failure.
run_one() { # case who pair
	local case=$1 who=$2 pair=$3 test qo prog po out rate msgs
	IFS=: read -r test qo prog po <<<"$case"
	if [ "$who" = qperf ]; then
		ensure_server ours || return 0
		# shellcheck disable=SC2086 # qo: words, "-cqm_100" -> -cqm 100
		(SOFTVERBS_NODE=2 timeout "$run_limit" "$OURS" 127.0.0.1 \
			-lp "$ours_port" -m 2 -t "$T" ${qo//_/ } --json "$test" >"$work/q.json" 2>&1
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
			# shellcheck disable=SC2086 # po: words
			perftest_once "$prog" "$work/pt.out" "$work/pt-server.log" \
				-d softv0 -s 2 -D "$T" ${po//_/ }
			grep -q 'Correlation coefficient' "$work/pt.out" "$work/pt-server.log" || break
		done
		out=$(awk '/^ *#bytes/ { row = 1; next }
			row && $1 ~ /^[0-9]+$/ && $2 > 0 { printf "%.1f %d\n", $5 * 1e6, $2; exit }
			row && $1 ~ /^[0-9]+$/ { print "0 iterations reported"; exit }' "$work/pt.out")
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

# Part 1, null mode.  qperf signals every send by default (0.4.11's
# behaviour); perftest asks for a completion every 100 (its --cq-mod
# default): so 1 QP runs both ways, and -Q 1 (perftest signalling every
# send) is the like-for-like peer of qperf's default.  Over 16 QPs: one
# thread (--threads 1; the default is one per CPU), two threads, and
# moderated per QP (-cqm 100) against perftest's default.
CASES1="rc_bw::ib_send_bw: rc_bw:-cqm_100:ib_send_bw:"
CASES1+=" rc_rdma_write_bw::ib_write_bw: rc_rdma_write_bw:-cqm_100:ib_write_bw:"
CASES1+=" rc_rdma_write_bw::ib_write_bw:-Q_1"
CASES1+=" rc_rdma_write_bw:--qps_16_--threads_1:ib_write_bw:-q_16_-Q_1"
CASES1+=" rc_rdma_write_bw:--qps_16_--threads_2:ib_write_bw:-q_16_-Q_1"
CASES1+=" rc_rdma_write_bw:--qps_16_--threads_1_-cqm_100:ib_write_bw:-q_16"
# Part 2, normal mode: the aggregate at the same QP counts, on one thread
# as perftest's.
CASES2=""
for q in 1 64 1024 4096; do
	CASES2+=" rc_rdma_write_bw:--qps_${q}_--threads_1:ib_write_bw:-q_$q"
done
T1=$T
if [ "${PART:-1}" = 1 ]; then
	for c in $CASES1; do
		bench_pairs "$c" qperf perftest
	done
fi
if [ "${PART:-2}" = 2 ]; then
	# our server again, without the null mode
	bench_stop "$ours_pid" "$OURS" "$ours_port"
	ours_pid='' ours_port=''
	unset SOFTVERBS_NULL
	SERVER_WRAP=()
	start_ours || die "our server did not start"
	T2=$T
	[ "$T2" -ge 2 ] || T2=2 # setting up 4096 QPs takes a while
	T=$T2
	run_limit=$((T2 + 60))
	for c in $CASES2; do
		bench_pairs "$c" qperf perftest
	done
fi
bench_end
pt_ver=$(dpkg-query -W -f '${Package} ${Version}' perftest 2>/dev/null || echo perftest)

echo "# Message rate at 2 bytes: qperf against perftest over softverbs"
echo
echo "$finished, $(hostname), $(nproc) CPUs ($cpu, $mhz MHz), $(uname -r)," \
	"load at the end $load_end; $PAIRS pairs per case ($T1 s in part 1," \
	"${T2:-2} s in part 2); $ours_ver ($ours_rev); $pt_ver"
echo
if [ -n "${NOTE:-}" ]; then
	echo "$NOTE"
	echo
fi
python3 - "$raw" "$mhz" "$CASES1" "$CASES2" <<'PYEOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
hz = float(sys.argv[2]) * 1e6
def table(title, cases):
    print("## " + title)
    print()
    print("| qperf | perftest | qperf msgs/s | perftest msgs/s | qperf/perftest (median of pairs) | qperf cycles/msg | perftest cycles/msg | pairs |")
    print("|---|---|---|---|---|---|---|---|")
    for case in cases.split():
        by = {}
        for c, who, pair, rate, cpu, msgs in rows:
            if c == case:
                by.setdefault(pair, {})[who] = (float(rate), float(cpu) * hz / max(1, int(msgs)))
        pairs = [v for v in by.values() if "qperf" in v and "perftest" in v and v["perftest"][0] > 0]
        t, qo, p, po = case.split(":")
        q = (t + " " + qo.replace("_", " ")).strip()
        pt = (p + " -s 2 " + po.replace("_", " ")).strip()
        if not pairs:
            print("| %s | %s | | | | | | 0 |" % (q, pt))
            continue
        med = lambda who, i: statistics.median(v[who][i] for v in pairs)
        print("| %s | %s | %.3gM | %.3gM | %.2f | %.0f | %.0f | %d |" % (
            q, pt, med("qperf", 0) / 1e6, med("perftest", 0) / 1e6,
            statistics.median(v["qperf"][0] / v["perftest"][0] for v in pairs),
            med("qperf", 1), med("perftest", 1), len(pairs)))
    print()
table("Part 1: null mode (each tool's own cost)", sys.argv[3])
table("Part 2: normal mode, aggregate over many QPs", sys.argv[4])
print("In part 2 each figure is what the tool reports for its window: perftest's duration mode (-D) counts the iterations of its measured window only, which at thousands of QPs can be a small part of the run.")
print()
print("Target (part 1): qperf/perftest at least 1.0 at one thread, like for like.  perftest asks for a completion every 100 sends by default (--cq-mod 100); qperf signals every send unless -cqm is given, so the like-for-like rows are qperf's default against -Q 1, and -cqm 100 against perftest's default.  perftest runs its QPs on one thread whatever their number.  Cycles per message: the client process's whole CPU time (setup included) over its messages; with --threads 2 that is the two threads' average, so the same figure as one thread's means the threads do not slow each other.  In part 1 both tools' servers run at nice 19 (null mode completes a receive as it is posted, so a receiving server spins while perftest's write server sleeps).  --threads 2 (two client threads, each with its own device context and 8 of the QPs) is set against perftest's one thread: if the threads scale, its ratio is about twice the one-thread row's, as far as the machine has a second CPU free.  The pairs are interleaved, so both tools of a pair see the same load; other jobs on the machine (the load above) move the rates more than the cycles per message, which count CPU time, not wall time.")
PYEOF
print_fails
exit 0
