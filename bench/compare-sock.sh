#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-sock.sh: this qperf's socket tests against qperf 0.4.11, iperf3
# and sockperf on loopback, and the peak memory of each tool.
#
# Cases, each run interleaved (A B C ..., PAIRS rounds), each client against
# its own server:
#   bw SIZE     tcp_bw -m SIZE: ours, 0.4.11, iperf3 -l SIZE (SIZES)
#   tcp_lat     tcp_lat -m LAT_SIZE: ours, ours -cp1, 0.4.11, sockperf --tcp
#   udp_lat     udp_lat -m LAT_SIZE: ours, ours -cp1, 0.4.11, sockperf
#               (ours with -vx: its mean and p50 against sockperf's
#               average and p50, tcp_lat as well)
#   udp_bw SIZE udp_bw -m SIZE: ours, ours without sendmmsg batching
#               (QPERF_NO_MMSG=1 on the client, the sender), 0.4.11 (UDP_SIZES)
# then, once per tool, the peak RSS (GNU time's maximum resident set size,
# which for a server includes the per-request children it waited for) of
# each client and server for tcp_bw -m RSS_SIZE and tcp_lat, and ours over a
# long run (-t LONG_T) and over LOOPS --loop iterations.
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
#
# Usage: bench/compare-sock.sh [> results.md]
# Environment (besides lib.sh's PAIRS=5 T=1 OURS OLD):
#   SIZES="64K 128K 1M"   tcp_bw message sizes (qperf units; iperf3 gets bytes)
#   LAT_SIZE=14           latency message size (sockperf's smallest is 14)
#   UDP_SIZES="64 1K 4K 32K" udp_bw message sizes
#   CASES="bw tcp_lat udp_lat udp_bw rss"   subset
#   LONG_T=10  LOOPS=50   the long run and the --loop length of the RSS part
#   RAW=FILE              keep every parsed value (TSV)
#
# Exit status: 0 when the report was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
SIZES=${SIZES:-64K 128K 1M}
LAT_SIZE=${LAT_SIZE:-14}
UDP_SIZES=${UDP_SIZES:-64 1K 4K 32K}
CASES=${CASES:-bw tcp_lat udp_lat udp_bw rss}
LONG_T=${LONG_T:-10}
LOOPS=${LOOPS:-50}
RAW=${RAW:-}
IPERF3=${IPERF3:-iperf3}
SOCKPERF=${SOCKPERF:-sockperf}
GNU_TIME=${GNU_TIME:-/usr/bin/time}

BENCH=compare-sock
SERVER_ENV=()

check_common
check_tools "the 0.4.11 server listen"
command -v "$IPERF3" >/dev/null || die "iperf3 not found (scripts/install-deps --test)"
command -v "$SOCKPERF" >/dev/null || die "sockperf not found (scripts/install-deps --test)"
[ -x "$GNU_TIME" ] || die "GNU time not found at '$GNU_TIME' (apt-get install time)"
for c in $CASES; do
	case $c in bw|tcp_lat|udp_lat|udp_bw|rss) ;; *) die "unknown case '$c'" ;; esac
done
case $LONG_T in ''|*[!0-9]*|0) die "LONG_T must be a whole number of seconds >= 1, got '$LONG_T'" ;; esac
case $LOOPS in ''|*[!0-9]*|0) die "LOOPS must be a positive integer, got '$LOOPS'" ;; esac
case $LAT_SIZE in ''|*[!0-9]*) die "LAT_SIZE must be a number of bytes >= 14, got '$LAT_SIZE'" ;; esac
[ "$LAT_SIZE" -ge 14 ] || die "LAT_SIZE must be at least 14 (sockperf's smallest message), got '$LAT_SIZE'"

bench_setup qperf-sock-bench

record() { # case tool pair metric value
	printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$raw"
}
record_fail() { # case tool pair why
	record "$1" "$2" "$3" FAIL "$4"
	printf -- '- %s, %s, pair %s: %s\n' "$1" "$2" "$3" "$4" >>"$fails"
}

# The figures of one run: "metric value" lines (bw; send_bw and recv_bw;
# latency, and latency_p50 as p50 with -vx; with -vv -vx each end's
# process CPU per message it sent or received, send_cpu and recv_cpu, ns).
qperf_values() { # out
	printf '%s\n' "$1" | awk '$2 == "=" && ($1 == "bw" || $1 == "latency" ||
		$1 == "send_bw" || $1 == "recv_bw") { print $1, $3 }
		$2 == "=" && $1 == "latency_p50" { print "p50", $3 }
		$2 == "=" { v[$1] = $3 }
		END {
			if (v["send_msgs"] > 0 && v["loc_proc_sys"] != "")
				print "send_cpu", (v["loc_proc_user"] + v["loc_proc_sys"]) / v["send_msgs"]
			if (v["recv_msgs"] > 0 && v["rem_proc_sys"] != "")
				print "recv_cpu", (v["rem_proc_user"] + v["rem_proc_sys"]) / v["recv_msgs"]
		}'
}

# One qperf client run (ours, ours -cp1, ours without mmsg or 0.4.11)
# against its server.
run_qperf() { # tool case pair test size
	local tool=$1 case=$2 pair=$3 test=$4 size=$5 bin port out rc vals
	local args=() env=() m v
	if [ "$tool" = old ]; then bin=$OLD; else bin=$OURS; fi
	[ "$tool" = ours_cp1 ] && args+=(-cp1)
	[ "$tool" != old ] && [ "${test#*_}" = lat ] && args+=(-vx)
	[ "$tool" != old ] && [ "$test" = udp_bw ] && args+=(-vv -vx)
	[ "$tool" = ours_nommsg ] && env=(QPERF_NO_MMSG=1) # the sender decides
	if ! ensure_server "$([ "$tool" = old ] && echo old || echo ours)"; then
		record_fail "$case" "$tool" "$pair" "server would not start"
		return
	fi
	if [ "$tool" = old ]; then port=$old_port; else port=$ours_port; fi
	out=$(env "${env[@]}" timeout "$run_limit" "$bin" localhost -lp "$port" -t "$T" -uu \
		-m "$size" "${args[@]}" "$test" 2>&1; echo "__rc $?")
	rc=$(printf '%s\n' "$out" | awk '$1 == "__rc" { print $2 }')
	vals=$(qperf_values "$out")
	v=$(printf '%s\n' "$vals" | awk '$1 == "bw" || $1 == "latency" ||
		$1 == "recv_bw" { print $2; exit }')
	if [ "$rc" != 0 ] || [ -z "$v" ] || ! awk -v v="$v" 'BEGIN { exit !(v > 0) }'; then
		record_fail "$case" "$tool" "$pair" "exit $rc: $(qperf_why "$out" "$rc" 'bw|latency|recv_bw')"
		return
	fi
	while read -r m v; do
		record "$case" "$tool" "$pair" "$m" "$v"
	done <<<"$vals"
}

# Servers of the other tools (iperf3: bench/lib.sh), on free ports, polled
# with ss.
sp_tcp_pid='' sp_udp_pid='' sp_port=''
# sockperf serves TCP and UDP on the same port number with two servers.
start_sockperf() {
	sp_port=$(free_port)
	"$SOCKPERF" server -i 127.0.0.1 -p "$sp_port" --tcp >>"$work/sockperf-server.log" 2>&1 </dev/null &
	sp_tcp_pid=$!
	"$SOCKPERF" server -i 127.0.0.1 -p "$sp_port" >>"$work/sockperf-server.log" 2>&1 </dev/null &
	sp_udp_pid=$!
	started_pids+=("$sp_tcp_pid" "$sp_udp_pid")
	wait_listen "$sp_tcp_pid" "$sp_port" t && wait_listen "$sp_udp_pid" "$sp_port" u
}

run_sockperf() { # case pair proto(tcp|udp)
	local out avg p50 extra=()
	[ "$3" = tcp ] && extra=(--tcp)
	if ! kill -0 "${sp_tcp_pid:-0}" 2>/dev/null || ! kill -0 "${sp_udp_pid:-0}" 2>/dev/null; then
		kill_tree "$sp_tcp_pid"
		kill_tree "$sp_udp_pid"
		if ! start_sockperf; then
			record_fail "$1" sockperf "$2" "sockperf server would not start"
			return
		fi
	fi
	out=$(timeout "$run_limit" "$SOCKPERF" ping-pong -i 127.0.0.1 -p "$sp_port" \
		"${extra[@]}" -t "$T" -m "$LAT_SIZE" 2>&1)
	# sockperf reports half the round trip in usec, as qperf does.
	avg=$(printf '%s\n' "$out" | sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | head -1)
	p50=$(printf '%s\n' "$out" | awk '/percentile 50.000 =/ { print $NF }' | head -1)
	if [ -z "$avg" ] || [ -z "$p50" ]; then
		record_fail "$1" sockperf "$2" "$(printf '%s\n' "$out" | tail -1 | cut -c1-160)"
		return
	fi
	record "$1" sockperf "$2" latency "$(awk -v v="$avg" 'BEGIN { print v * 1000 }')"
	record "$1" sockperf "$2" p50 "$(awk -v v="$p50" 'BEGIN { print v * 1000 }')"
}

# --- peak memory (rss_pair: bench/lib.sh) ------------------------------
# Our server on a port file (rss_pair waits for it to listen).
ours_rss() { # case tool CLIENT-ARGS...
	local case=$1 tool=$2 port
	shift 2
	port=$(free_port)
	rss_pair "$case" "$tool" "timeout 10 $OURS localhost -lp $port quit" \
		"$OURS" -lp "$port" -- "$OURS" localhost -lp "$port" "$@"
}

run_rss() {
	local rs b port
	rs=$(bytes_of 1M)
	b=1M
	ours_rss "rss tcp_bw $b" ours -t "$T" -m "$b" tcp_bw
	port=$(free_port)
	rss_pair "rss tcp_bw $b" old "timeout 10 $OLD localhost -lp $port quit" \
		"$OLD" -lp "$port" -- "$OLD" localhost -lp "$port" -t "$T" -m "$b" tcp_bw
	port=$(free_port)
	rss_pair "rss tcp_bw $b" iperf3 "" "$IPERF3" -s -1 -p "$port" -- \
		"$IPERF3" -c 127.0.0.1 -p "$port" -t "$T" -l "$rs"
	ours_rss "rss tcp_lat" ours -t "$T" -m "$LAT_SIZE" tcp_lat
	port=$(free_port)
	rss_pair "rss tcp_lat" old "timeout 10 $OLD localhost -lp $port quit" \
		"$OLD" -lp "$port" -- "$OLD" localhost -lp "$port" -t "$T" -m "$LAT_SIZE" tcp_lat
	port=$(free_port)
	rss_pair "rss tcp_lat" sockperf "" "$SOCKPERF" server --tcp -i 127.0.0.1 -p "$port" -- \
		"$SOCKPERF" ping-pong --tcp -i 127.0.0.1 -p "$port" -t "$T" -m "$LAT_SIZE"
	# Point 7: ours over a long run and many --loop iterations.
	ours_rss "rss ours tcp_bw $b" "-t $T" -t "$T" -m "$b" tcp_bw
	ours_rss "rss ours tcp_bw $b" "-t $LONG_T" -t "$LONG_T" -m "$b" tcp_bw
	ours_rss "rss ours tcp_bw $b" "1 x -n $LOOPS" -n "$LOOPS" -m "$b" tcp_bw
	ours_rss "rss ours tcp_bw $b" "$LOOPS x -n 1..$LOOPS (--loop)" -m "$b" \
		--loop "no_msgs:1:$LOOPS:+1" tcp_bw
}

# size_rounds TEST SIZES TOOL...: PAIRS interleaved rounds of TEST at each
# of SIZES, one run of each TOOL per round; the load after each size.
size_rounds() {
	local test=$1 sizes=$2 s p t
	shift 2
	for s in $sizes; do
		for p in $(seq "$PAIRS"); do
			printf '\rcompare-sock: %s %-5s pair %s/%s ' "$test" "$s" "$p" "$PAIRS" >&2
			for t in "$@"; do
				if [ "$t" = iperf3 ]; then
					run_iperf "$test $s" "$p" "$s"
				else
					run_qperf "$t" "$test $s" "$p" "$test" "$s"
				fi
			done
		done
		loads+=("$(cut -d' ' -f1 /proc/loadavg)")
	done
}

start_ours || exit 2
start_old || exit 2
start_iperf || die "iperf3 server did not start: $(cat "$work/iperf3-server.log")"
start_sockperf || die "sockperf servers did not start: $(cat "$work/sockperf-server.log")"

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
loads=()
for c in $CASES; do
	case $c in
	bw) size_rounds tcp_bw "$SIZES" ours old iperf3 ;;
	udp_bw) size_rounds udp_bw "$UDP_SIZES" ours ours_nommsg old ;;
	tcp_lat|udp_lat)
		for p in $(seq "$PAIRS"); do
			printf '\rcompare-sock: %-12s pair %s/%s ' "$c" "$p" "$PAIRS" >&2
			run_qperf ours "$c" "$p" "$c" "$LAT_SIZE"
			run_qperf ours_cp1 "$c" "$p" "$c" "$LAT_SIZE"
			run_qperf old "$c" "$p" "$c" "$LAT_SIZE"
			run_sockperf "$c" "$p" "${c%_lat}"
		done
		loads+=("$(cut -d' ' -f1 /proc/loadavg)") ;;
	rss)
		printf '\rcompare-sock: peak memory                 ' >&2
		run_rss ;;
	esac
done
printf '\n' >&2
bench_end
iperf_ver=$("$IPERF3" --version 2>&1 | head -1)
sp_ver=$("$SOCKPERF" --version 2>&1 | grep -m1 -i version)

cat <<EOF
# qperf socket tests vs qperf 0.4.11, iperf3 and sockperf on loopback

- Date: $started to $finished
- Machine: $(uname -n), nproc $(nproc), kernel $(uname -r)${cpu:+, $cpu}
- Load average (1/5/15 min): $load_start at start, $load_end at end; 1-minute
  load after each case: ${loads[*]:-—} (other work on the machine adds noise)
- Ours: $ours_ver (git $ours_rev, $OURS)
- 0.4.11: $old_ver ($OLD); iperf3: $iperf_ver; sockperf: ${sp_ver:-$SOCKPERF}
- Method: interleaved A B C ..., $PAIRS rounds per case, $T s per run, each
  client against its own server on localhost; medians; ratios of medians.
- Targets: tcp_bw ours >= 1.3x 0.4.11 and >= 1.3x iperf3; tcp_lat and
  udp_lat ours <= 1.0x 0.4.11 and within 5% of sockperf's p50; -cp1 <= 0.8x
  ours blocking.

EOF

PYTHONPATH=$here python3 -B - "$raw" "$PAIRS" "$SIZES" "$CASES" "$UDP_SIZES" <<'EOF'
import statistics, sys
from benchlib import read_raw, rss_cases

raw, pairs, sizes, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
udp_sizes = sys.argv[5].split()
vals, nfail = read_raw(raw)

def med(case, metric, tool):
    v = vals.get((case, metric, tool), {})
    return statistics.median(v.values()) if v else None

def fmt(metric, v):
    if v is None:
        return "—"
    if metric in ("latency", "p50"):
        return "%.2f us" % (v / 1e3)
    return "%.3f GB/s" % (v / 1e9) if v >= 1e9 else "%.1f MB/s" % (v / 1e6)

def ratio(case, ma, ta, mb, tb, lower_better, target):
    a, b = med(case, ma, ta), med(case, mb, tb)
    if a is None or b is None:
        return "—", "—", "n/a (runs failed)"
    va, vb = vals[case, ma, ta], vals[case, mb, tb]
    pr = [va[p] / vb[p] for p in va if p in vb and vb[p] > 0]
    wins = sum(1 for x in pr if (x < 1.0 if lower_better else x > 1.0))
    r = a / b
    good = r <= target if lower_better else r >= target
    verdict = "meets" if good else "**misses**"
    return ("%.3f" % r, "%.2f–%.2f, %d/%d better" % (min(pr), max(pr), wins, len(pr))
            if pr else "—", verdict)

def okruns(case, tool):
    return "%d/%d" % (pairs - nfail[case, tool], pairs)

if "bw" in cases:
    print("## tcp_bw\n")
    print("| size | ours | 0.4.11 | iperf3 | ours/0.4.11 | per pair | target ≥ 1.3 "
          "| ours/iperf3 | per pair | target ≥ 1.3 | runs ok (ours, 0.4.11, iperf3) |")
    print("|---|--:|--:|--:|--:|--:|---|--:|--:|---|---|")
    for s in sizes:
        c = "tcp_bw " + s
        r1 = ratio(c, "bw", "ours", "bw", "old", False, 1.3)
        r2 = ratio(c, "bw", "ours", "bw", "iperf3", False, 1.3)
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s |" % (
            s, fmt("bw", med(c, "bw", "ours")), fmt("bw", med(c, "bw", "old")),
            fmt("bw", med(c, "bw", "iperf3")), *r1, *r2,
            okruns(c, "ours"), okruns(c, "old"), okruns(c, "iperf3")))
    print()

if "udp_bw" in cases:
    print("## udp_bw (sendmmsg batching of messages up to 4 KiB against none)\n")
    print("| size | metric | ours | ours, no mmsg | 0.4.11 | ours/no mmsg | per pair "
          "| ours/0.4.11 | per pair | runs ok (ours, no mmsg, 0.4.11) |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|---|")
    for s in udp_sizes:
        c = "udp_bw " + s
        for m in ("recv_bw", "send_bw", "send_cpu", "recv_cpu"):
            cpu = m.endswith("_cpu")
            r1 = ratio(c, m, "ours", m, "ours_nommsg", cpu, 1.0)
            r2 = ratio(c, m, "ours", m, "old", cpu, 1.0) if not cpu else ("—", "—")
            f = (lambda v: "—" if v is None else "%.0f ns" % v) if cpu else \
                (lambda v: fmt("bw", v))
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s |" % (
                s, m, f(med(c, m, "ours")), f(med(c, m, "ours_nommsg")),
                "—" if cpu else f(med(c, m, "old")), r1[0], r1[1], r2[0], r2[1],
                okruns(c, "ours"), okruns(c, "ours_nommsg"), okruns(c, "old")))
    print()

lat = [c for c in cases if c.endswith("_lat")]
if lat:
    print("## Latency (one way, half the round trip)\n")
    print("Ours with -vx: mean (0.4.11's figure) and p50 from its histogram.\n")
    print("| test | ours mean | ours p50 | ours -cp1 mean | -cp1 p50 | 0.4.11 "
          "| sockperf avg | sockperf p50 | ours/0.4.11 (≤ 1.0) "
          "| ours p50/sockperf p50 (≤ 1.05) | ours mean/sockperf avg "
          "| -cp1/blocking (≤ 0.8) | -cp1 p50/sockperf p50 |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|---|---|--:|---|--:|")
    for c in lat:
        r1 = ratio(c, "latency", "ours", "latency", "old", True, 1.0)
        r2 = ratio(c, "p50", "ours", "p50", "sockperf", True, 1.05)
        r3 = ratio(c, "latency", "ours_cp1", "latency", "ours", True, 0.8)
        r4 = ratio(c, "p50", "ours_cp1", "p50", "sockperf", True, 1.05)
        r5 = ratio(c, "latency", "ours", "latency", "sockperf", True, 1.05)
        cell = lambda r: "%s %s (%s)" % (r[0], r[2], r[1])
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c, fmt("latency", med(c, "latency", "ours")),
            fmt("p50", med(c, "p50", "ours")),
            fmt("latency", med(c, "latency", "ours_cp1")),
            fmt("p50", med(c, "p50", "ours_cp1")),
            fmt("latency", med(c, "latency", "old")),
            fmt("latency", med(c, "latency", "sockperf")),
            fmt("p50", med(c, "p50", "sockperf")),
            cell(r1), cell(r2), r5[0], cell(r3), r4[0]))
    print()

if "rss" in cases:
    print("## Peak memory (maximum RSS, KiB; a server's includes its per-request children)\n")
    print("| case | tool | client | server |")
    print("|---|---|--:|--:|")
    name = {"ours": "ours", "old": "0.4.11"}
    for case, tool in rss_cases(raw):
        cl = med(case, "client_kib", tool)
        sv = med(case, "server_kib", tool)
        print("| %s | %s | %s | %s |" % (case[4:], name.get(tool, tool),
              "—" if cl is None else "%d" % cl, "—" if sv is None else "%d" % sv))
    print()
EOF

echo "Latency rows use -m $LAT_SIZE for every tool (sockperf's smallest message);"
echo "sockperf ping-pong reports half the round trip, as qperf does; its defaults"
echo "(blocking sockets, Nagle off) are used.  Our p50 is -vx's latency_p50 (a"
echo "histogram bucket's midpoint: within 0.4 %), sockperf's its percentile 50."
echo "udp_bw send_cpu and recv_cpu: each end's process CPU (user + system, -vx)"
echo "per message it sent or received (the receiver's includes its wake-ups)."
print_fails
exit 0
