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

PAIRS=${PAIRS:-5}
T=${T:-1}
here=$(cd "$(dirname "$0")" && pwd)
OURS=${OURS:-$here/../qperf}
OLD=${OLD:-/usr/bin/qperf}
TESTS=${TESTS:-tcp_bw tcp_lat udp_bw udp_lat}
SIZES=${SIZES:-default 1K 1M}
RAW=${RAW:-}

die() { echo "compare-0411: $*" >&2; exit 2; }

case $PAIRS in ''|*[!0-9]*|0) die "PAIRS must be a positive integer, got '$PAIRS'" ;; esac
case $T in ''|*[!0-9]*|0) die "T must be a whole number of seconds >= 1, got '$T'" ;; esac
[ -x "$OURS" ] || die "our qperf not found at '$OURS' (run make, or set OURS=)"
[ -x "$OLD" ] || die "qperf 0.4.11 not found at '$OLD' (apt-get install qperf, or set OLD=)"
command -v python3 >/dev/null || die "python3 is needed for the statistics"
command -v ss >/dev/null || die "ss (iproute2) is needed to see the 0.4.11 server listen"
for t in $TESTS; do
	case $t in tcp_bw|tcp_lat|udp_bw|udp_lat) ;; *) die "unknown test '$t'" ;; esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/qperf-bench.XXXXXX") || die "mktemp failed"
ours_pid='' old_pid='' ours_port='' old_port=''

# A run must never hang the benchmark: allow the test time plus setup.
run_limit=$((T + 20))
started_pids=()

# Servers are stopped with a quit test; if one is still alive after that
# (or the quit could not be sent), only the PID we started is killed.
stop_server() { # pid client port
	local pid=$1 client=$2 port=$3
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		timeout 10 "$client" localhost -lp "$port" quit >/dev/null 2>&1
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	kill_tree "$pid"
	return 0
}

# Kill a server we started and the per-request children it forked (a
# client killed by the run limit can leave one behind), by PID only.
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
	stop_server "$ours_pid" "$OURS" "$ours_port"
	stop_server "$old_pid" "$OLD" "$old_port"
	# Servers replaced after a failure, in case one lingers.
	for p in "${started_pids[@]}"; do
		kill_tree "$p"
	done
	ours_pid='' old_pid=''
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Our server binds port 0 and writes the real port to a file.
start_ours() {
	local pf=$work/ours.port
	rm -f "$pf"
	"$OURS" -lp 0 -lpf "$pf" >>"$work/ours-server.log" 2>&1 &
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
	echo "compare-0411: our server did not start:" >&2
	cat "$work/ours-server.log" >&2
	return 1
}

# 0.4.11 cannot bind port 0 and report it: pick a free port, start it,
# poll ss until it listens; retry with another port if it lost a race.
start_old() {
	local port
	for _ in 1 2 3 4 5; do
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])')
		"$OLD" -lp "$port" >>"$work/old-server.log" 2>&1 &
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
	echo "compare-0411: qperf 0.4.11 server did not start:" >&2
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

raw=$work/raw.tsv
fails=$work/fails.txt
: >"$raw"
: >"$fails"

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
		why=$(printf '%s\n' "$out" | grep -v -e '^[a-z_]*:$' -e '^__rc' \
			-e '^[0-9]*m[0-9.]*s ' -e '^ *[a-z_]* *= ' | tr '\n' ' ')
		[ -n "$why" ] || why=$(printf '%s\n' "$out" |
			grep -E '^ *(bw|send_bw|recv_bw|latency) *= ' | tr -s ' ' | tr '\n' ' ')
		why=$(printf '%s' "$why" | cut -c1-160)
		[ "$rc" = 124 ] && why="timed out after ${run_limit}s; $why"
		[ -n "$why" ] || why="no result"
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
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

[ -n "$RAW" ] && cp "$raw" "$RAW"

ours_ver=$("$OURS" --version 2>&1 | head -1)
ours_rev=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
old_ver=$(dpkg-query -W -f '${Package} ${Version}' qperf 2>/dev/null || echo "$OLD")
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)

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

python3 - "$raw" "$PAIRS" "$TESTS" "$SIZES" <<'EOF'
import statistics, sys
from collections import defaultdict

raw, pairs, tests, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
vals = defaultdict(dict)   # (case, metric, tool) -> {pair: value}
nfail = defaultdict(int)   # (case, tool) -> failed runs
for line in open(raw):
    case, tool, pair, metric, value = line.rstrip("\n").split("\t", 4)
    if metric == "FAIL":
        nfail[case, tool] += 1
    else:
        vals[case, metric, tool][int(pair)] = float(value)

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
if [ -s "$fails" ]; then
	echo
	echo "Failed runs (not counted in the medians):"
	echo
	# Identical failures are folded into one line with a count.
	sed -E -e 's/, pair [0-9]+:/:/' -e 's/\([0-9]+ errors\)/(N errors)/' "$fails" |
		sort | uniq -c |
		sed -E 's/^ *([0-9]+) - (.*)$/- \2 (x\1)/'
fi
exit 0
