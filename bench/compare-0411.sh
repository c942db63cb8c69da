#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-0411.sh: this qperf against Debian's qperf 0.4.11 on loopback.
#
# For each case (tcp_bw, tcp_lat, udp_bw, udp_lat at their default message
# size, at 1 KiB and at 1 MiB) it runs the two clients interleaved, A B A B,
# PAIRS times, each client against its own server (ours <-> ours,
# 0.4.11 <-> 0.4.11), and prints a markdown table of medians and ratios.
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/compare-0411.sh [> results.md]
# Environment:
#   PAIRS=5            A/B pairs per case (at least 1; 5 or more recommended)
#   T=1                whole seconds per run (qperf -t; 0.4.11 takes no fractions:
#                      "-t 0.3" makes its test run until killed)
#   OURS=./qperf       this project's binary (default: the one next to bench/)
#   OLD=/usr/bin/qperf qperf 0.4.11
#   TESTS="tcp_bw tcp_lat udp_bw udp_lat"   subset of the four tests
#   SIZES="default 1K 1M"                   message sizes (qperf units, 1K=1024)
#   RAW=FILE           also keep every run's parsed value (TSV) in FILE
#
# Exit status: 0 when the table was produced (even if some runs failed; they
# are counted and shown), 2 on a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
TESTS=${TESTS:-tcp_bw tcp_lat udp_bw udp_lat}
SIZES=${SIZES:-default 1K 1M}
RAW=${RAW:-}

BENCH=compare-0411
SERVER_ENV=()

check_common
check_tools "the 0.4.11 server listen"
for t in $TESTS; do
	case $t in tcp_bw|tcp_lat|udp_bw|udp_lat) ;; *) die "unknown test '$t'" ;; esac
done

bench_setup qperf-bench

# One client run; appends "case tool pair metric value" lines to $raw, or
# "case tool pair FAIL reason" when the run produced no usable number.
run_one() { # tool case test size pair
	local tool=$1 case=$2 test=$3 size=$4 pair=$5 bin port out rc vals why
	if [ "$tool" = ours ]; then bin=$OURS; else bin=$OLD; fi
	if ! ensure_server "$tool"; then
		printf '%s\t%s\t%s\tFAIL\tserver would not start\n' "$case" "$tool" "$pair" >>"$raw"
		return
	fi
	if [ "$tool" = ours ]; then port=$ours_port; else port=$old_port; fi
	local args=(localhost -lp "$port" -t "$T" -uu -vv)
	[ "$size" = default ] || args+=(-m "$size")
	# The subshell runs the client and then reports, with the times
	# builtin, the CPU its waited-for children (the client) used.
	out=$(timeout "$run_limit" "$bin" "${args[@]}" "$test" 2>&1
	      echo "__rc $?"
	      times)
	rc=$(printf '%s\n' "$out" | awk '$1 == "__rc" { print $2 }')
	# -uu prints raw base units: bytes/sec and ns.  -vv adds the message
	# counts (send_msgs for bw tests, loc_send_msgs = round trips for lat).
	vals=$(printf '%s\n' "$out" | awk '
		$2 == "=" && ($1 == "bw" || $1 == "send_bw" || $1 == "recv_bw" ||
		              $1 == "latency") { print $1 "\t" $3 }
		$2 == "=" && ($1 == "send_msgs" || $1 == "loc_send_msgs") { msgs = $3 }
		/^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ { cpu = $0 }  # last line: children
		END {
			split(cpu, t, /[ms ]+/)
			sec = t[1] * 60 + t[2] + t[3] * 60 + t[4]
			if (msgs > 0 && sec > 0)
				printf "client_cpu\t%.1f\n", sec * 1e9 / msgs
		}')
	# A zero result means nothing was measured (0.4.11 prints "0" when
	# every send failed); it is a failed run, not a data point.
	if [ "$rc" != 0 ] || ! printf '%s\n' "$vals" | grep -qv '^client_cpu' ||
	   printf '%s\n' "$vals" | awk -F'\t' '$2 + 0 <= 0 { bad = 1 } END { exit !bad }'; then
		# Say why: error lines, else the headline values.
		why=$(qperf_why "$out" "$rc" 'bw|send_bw|recv_bw|latency')
		printf '%s\t%s\t%s\tFAIL\trc=%s %s\n' "$case" "$tool" "$pair" "$rc" "$why" >>"$raw"
		printf -- '- %s, %s, pair %s: exit %s: %s\n' "$case" \
			"$([ "$tool" = ours ] && echo ours || echo 0.4.11)" "$pair" "$rc" "$why" >>"$fails"
		return
	fi
	printf '%s\n' "$vals" | while IFS=$'\t' read -r m v; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$case" "$tool" "$pair" "$m" "$v" >>"$raw"
	done
}

start_ours || exit 2
start_old || exit 2

ncases=0
for t in $TESTS; do for s in $SIZES; do ncases=$((ncases + 1)); done; done
echo "compare-0411: $ncases cases x $PAIRS pairs x 2 runs of ${T}s" \
	"(about $(python3 -c "print(round($ncases * $PAIRS * 2 * ($T + 0.1)))")s)" >&2

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for t in $TESTS; do
	for s in $SIZES; do
		c="$t $s"
		for p in $(seq "$PAIRS"); do
			printf '\rcompare-0411: %-18s pair %s/%s ' "$c" "$p" "$PAIRS" >&2
			run_one ours "$c" "$t" "$s" "$p"
			run_one old "$c" "$t" "$s" "$p"
		done
	done
done
printf '\n' >&2
bench_end

cat <<EOF
# qperf vs qperf 0.4.11 on loopback

- Date: $started to $finished
- Machine: $(uname -n), nproc $(nproc), kernel $(uname -r)${cpu:+, $cpu}
- Load average (1/5/15 min): $load_start at start, $load_end at end
  (other work on the machine adds noise; the per-pair ratio range shows it)
- Ours: $ours_ver (git $ours_rev, $OURS)
- 0.4.11: $old_ver ($OLD)
- Method: interleaved A B A B, $PAIRS pairs per case, -t $T s per run, each
  client against its own server on localhost; -uu -vv raw values; medians.
- Target: bandwidth ratio (ours/0.4.11) >= 1.0, latency ratio <= 1.0.

EOF

PYTHONPATH=$here python3 -B - "$raw" "$PAIRS" "$TESTS" "$SIZES" <<'EOF'
import statistics, sys
from benchlib import read_raw

raw, pairs, tests, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
vals, nfail = read_raw(raw)

def cpufmt(ns):
    return "%.2f us" % (ns / 1e3) if ns >= 1e3 else "%.0f ns" % ns

def fmt(metric, v):
    if v is None:
        return "—"
    if metric == "latency":
        return "%.2f us" % (v / 1e3)
    if v >= 1e9:
        return "%.3f GB/s" % (v / 1e9)
    return "%.1f MB/s" % (v / 1e6)

print("| case | metric | median ours | median 0.4.11 | ratio ours/0.4.11 "
      "| per-pair ratios (min–max) | pairs ours better | runs ok (ours, 0.4.11) "
      "| target | verdict | client CPU/msg ours/0.4.11 |")
print("|---|---|--:|--:|--:|--:|--:|--:|---|---|--:|")
for t in tests:
    metrics = {"tcp_bw": ["bw"], "tcp_lat": ["latency"],
               "udp_bw": ["recv_bw", "send_bw"], "udp_lat": ["latency"]}[t]
    for s in sizes:
        case = "%s %s" % (t, s)
        for i, m in enumerate(metrics):
            a = vals.get((case, m, "ours"), {})
            b = vals.get((case, m, "old"), {})
            ma = statistics.median(a.values()) if a else None
            mb = statistics.median(b.values()) if b else None
            lat = m == "latency"
            target = "≤ 1.0" if lat else "≥ 1.0"
            pr = [a[p] / b[p] for p in a if p in b and b[p] > 0]
            spread = "%.2f–%.2f" % (min(pr), max(pr)) if pr else "—"
            wins = sum(1 for x in pr if (x < 1.0 if lat else x > 1.0))
            better = "%d/%d" % (wins, len(pr)) if pr else "—"
            ok = "%d/%d, %d/%d" % (pairs - nfail[case, "ours"], pairs,
                                   pairs - nfail[case, "old"], pairs)
            if ma is None or mb is None:
                ratio, verdict = "—", "n/a (runs failed)"
            else:
                r = ma / mb
                ratio = "%.3f" % r
                good = r <= 1.0 if lat else r >= 1.0
                verdict = "meets" if good else "**misses**"
                # Did every pair agree?  If not, the miss may be noise.
                if not good and pr:
                    verdict += (" (every pair)" if wins == 0
                                else " (mixed pairs)")
            ca = vals.get((case, "client_cpu", "ours"), {})
            cb = vals.get((case, "client_cpu", "old"), {})
            cpu = ("%.3f (%s / %s)" % (statistics.median(ca.values()) /
                                       statistics.median(cb.values()),
                                       cpufmt(statistics.median(ca.values())),
                                       cpufmt(statistics.median(cb.values())))
                   if ca and cb else "—")
            if i > 0:   # secondary metric (udp send_bw): informational only
                target, verdict, cpu = "(info)", "", ""
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" %
                  (case, m, fmt(m, ma), fmt(m, mb), ratio, spread, better, ok,
                   target, verdict, cpu))
EOF

echo
echo "Sizes: \"default\" is each test's 0.4.11 default (tcp_bw 64 KiB, udp_bw 32 KiB,"
echo "tcp_lat and udp_lat 1 byte); 1K = 1024 bytes, 1M = 1048576 bytes."
echo "For udp_bw the verdict is on recv_bw (what arrived); send_bw is shown for information."
echo "Client CPU/msg: user+system CPU time of the client process (getrusage of the"
echo "waited-for child) per message sent (per round trip for *_lat), medians; lower"
echo "is cheaper.  It usually varies less with other load than bw and latency do, so"
echo "it helps tell a real per-message cost from scheduling noise.  Informational."
case " $SIZES " in *" 1M "*)
	case " $TESTS " in *" udp_"*)
		echo "udp at 1M cannot run: a UDP datagram carries at most 65507 bytes over IPv4,"
		echo "so every send fails with EMSGSIZE in both tools (0.4.11 reports 0, which is"
		echo "counted as a failed run; ours exits 1 with \"every send failed\")."
	esac
esac
print_fails 's/\([0-9]+ errors\)/(N errors)/'
exit 0
