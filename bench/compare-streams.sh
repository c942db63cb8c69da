#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-streams.sh: this qperf's --streams N against the tools people
# use for several streams or QPs, on one machine:
#   tcp N     tcp_bw -st N -m SIZE (loopback)  vs  iperf3 -P N -l SIZE
#   write N   rc_rdma_write_bw -st N -m SIZE   vs  ib_write_bw -q N -s SIZE
#             (perftest), both over softverbs (two emulated hosts)
# Each case runs interleaved A B A B, PAIRS rounds; medians, the ratio of
# medians and the per-pair ratios.  Then, once per tool, the peak RSS of
# each client and server (GNU time's maximum resident set size; a server's
# includes the per-request children it waited for) at the largest N.
# It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
# Figures over softverbs measure the emulator, not an RDMA fabric.
#
# Usage: bench/compare-streams.sh [> results-streams.md]
# Environment (besides lib.sh's PAIRS=5 T=1 OURS):
#   STREAMS="1 2 4"      stream counts of the tcp cases
#   RDMA_STREAMS="1 2"   stream (QP) counts of the write cases ("" = none)
#   SIZE=64K             message size (qperf units; the others get bytes)
#   SV_LIB=DIR           softverbs build (default softverbs/build)
#   RAW=FILE             keep every parsed value (TSV)
#
# Exit status: 0 when the report was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
STREAMS=${STREAMS:-1 2 4}
RDMA_STREAMS=${RDMA_STREAMS-1 2}
SIZE=${SIZE:-64K}
SV_LIB=${SV_LIB:-$here/../softverbs/build}
RAW=${RAW:-}
IPERF3=${IPERF3:-iperf3}
PERFTEST_WRITE=${PERFTEST_WRITE:-ib_write_bw}
GNU_TIME=${GNU_TIME:-/usr/bin/time}

BENCH=compare-streams
SERVER_ENV=(SOFTVERBS_NODE=1)

check_common
command -v python3 >/dev/null || die "python3 is needed for the statistics"
command -v ss >/dev/null || die "ss (iproute2) is needed to see the servers listen"
command -v "$IPERF3" >/dev/null || die "iperf3 not found (scripts/install-deps --test)"
[ -x "$GNU_TIME" ] || die "GNU time not found at '$GNU_TIME' (apt-get install time)"
for n in $STREAMS $RDMA_STREAMS; do
	case $n in ''|*[!0-9]*|0) die "stream counts must be 1 to 64, got '$n'" ;; esac
	[ "$n" -le 64 ] || die "stream counts must be 1 to 64, got '$n'"
done
if [ -n "$RDMA_STREAMS" ]; then
	[ -e "$SV_LIB/libibverbs.so.1" ] || die "softverbs is not built in '$SV_LIB' (run make, or set SV_LIB=, or RDMA_STREAMS=)"
	command -v "$PERFTEST_WRITE" >/dev/null || die "perftest's $PERFTEST_WRITE not found (apt-get install perftest, or RDMA_STREAMS=)"
fi
# Every process of this run: the socket tests too load softverbs (harmless:
# they make no verbs call); both emulated hosts on a fabric of this run.
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-streams-bench-$$
unset SOFTVERBS_NODE SOFTVERBS_LINK_LAYER

bench_setup qperf-streams-bench
size_b=$(bytes_of "$SIZE")

record() { # case tool pair metric value
	printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$raw"
}
record_fail() { # case tool pair why
	record "$1" "$2" "$3" FAIL "$4"
	printf -- '- %s, %s, pair %s: %s\n' "$1" "$2" "$3" "$4" >>"$fails"
}

# Our client: -st N of test against our server (node 2 to node 1).
run_ours() { # case pair test n
	local out rc v
	if ! ensure_server ours; then
		record_fail "$1" ours "$2" "server would not start"
		return
	fi
	out=$(SOFTVERBS_NODE=2 timeout "$run_limit" "$OURS" localhost -lp "$ours_port" \
		-t "$T" -uu -m "$SIZE" -st "$4" "$3" 2>&1 </dev/null; echo "__rc $?")
	rc=$(printf '%s\n' "$out" | awk '$1 == "__rc" { print $2 }')
	v=$(printf '%s\n' "$out" | awk '$2 == "=" && $1 == "bw" { print $3 }')
	if [ "$rc" != 0 ] || [ -z "$v" ] || ! awk -v v="$v" 'BEGIN { exit !(v > 0) }'; then
		record_fail "$1" ours "$2" "exit $rc: $(qperf_why "$out" "$rc" bw)"
		return
	fi
	record "$1" ours "$2" bw "$v"
}

# ib_write_bw -q N: a fresh server (node 1) and client (node 2).  perftest
# calibrates its clock against gettimeofday and can fail on a busy CPU
# ("Correlation coefficient r^2"): such a run is retried, 3 attempts.
run_perftest() { # case pair n
	local out v attempt srv=$work/pt-server.log
	for attempt in 1 2 3; do
		perftest_once "$PERFTEST_WRITE" "$work/pt-client.out" "$srv" -d softv0 \
			-s "$size_b" -D "$T" -q "$3"
		out=$(cat "$work/pt-client.out")
		cat "$srv" >>"$work/pt-servers.log"
		printf '%s\n' "$out" "$(cat "$srv")" | grep -q 'Correlation coefficient r^2' &&
			[ "$attempt" -lt 3 ] && continue
		break
	done
	# The row after "#bytes #iterations BW peak[MB/sec] BW average ...":
	# bytes, iterations, peak, average (MB = 2^20 bytes), Mpps.
	v=$(printf '%s\n' "$out" | awk '/^ *#bytes/ { row = 1; next }
		row && $1 ~ /^[0-9]+$/ { if ($4 + 0 > 0) print $4 * 1048576; exit }')
	if [ -z "$v" ]; then
		record_fail "$1" perftest "$2" "$( (printf '%s\n' "$out"; cat "$srv") |
			grep -iE 'error|fail|couldn|unable|r\^2' | sort -u | tr '\n' ' ' | cut -c1-160)"
		return
	fi
	record "$1" perftest "$2" bw "$v"
}

start_ours || exit 2
start_iperf || die "iperf3 server did not start: $(cat "$work/iperf3-server.log")"

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
loads=()
cases=()
# run_case KIND N TEST OTHER-FUNCTION: PAIRS rounds of ours then the other.
run_case() {
	cases+=("$1 $2")
	for p in $(seq "$PAIRS"); do
		printf '\rcompare-streams: %s -st %-2s pair %s/%s ' "$3" "$2" "$p" "$PAIRS" >&2
		run_ours "$1 $2" "$p" "$3" "$2"
		"$4" "$1 $2" "$p" "$2"
	done
	loads+=("$(cut -d' ' -f1 /proc/loadavg)")
}
iperf_n() { run_iperf "$1" "$2" "$SIZE" -P "$3"; } # case pair n
for n in $STREAMS; do
	run_case tcp "$n" tcp_bw iperf_n
done
for n in $RDMA_STREAMS; do
	run_case write "$n" rc_rdma_write_bw run_perftest
done

# Peak memory at the largest N of each kind.
printf '\rcompare-streams: peak memory                        ' >&2
ntop=$(printf '%s\n' $STREAMS | sort -n | tail -1)
port=$(free_port)
rss_pair "rss tcp_bw x$ntop" ours "timeout 10 $OURS localhost -lp $port quit" \
	"$OURS" -lp "$port" -- "$OURS" localhost -lp "$port" -t "$T" -m "$SIZE" -st "$ntop" tcp_bw
port=$(free_port)
rss_pair "rss tcp_bw x$ntop" iperf3 "" "$IPERF3" -s -1 -p "$port" -- \
	"$IPERF3" -c 127.0.0.1 -p "$port" -t "$T" -l "$size_b" -P "$ntop"
if [ -n "$RDMA_STREAMS" ]; then
	rtop=$(printf '%s\n' $RDMA_STREAMS | sort -n | tail -1)
	port=$(free_port)
	rss_pair "rss rc_rdma_write_bw x$rtop" ours \
		"env SOFTVERBS_NODE=2 timeout 10 $OURS localhost -lp $port quit" \
		env SOFTVERBS_NODE=1 "$OURS" -lp "$port" -- \
		env SOFTVERBS_NODE=2 "$OURS" localhost -lp "$port" -t "$T" -m "$SIZE" \
		-st "$rtop" rc_rdma_write_bw
	port=$(free_port)
	rss_pair "rss rc_rdma_write_bw x$rtop" perftest "" \
		env SOFTVERBS_NODE=1 "$PERFTEST_WRITE" -d softv0 -s "$size_b" -D "$T" -q "$rtop" -p "$port" -- \
		env SOFTVERBS_NODE=2 "$PERFTEST_WRITE" -d softv0 -s "$size_b" -D "$T" -q "$rtop" -p "$port" localhost
fi
printf '\n' >&2
bench_end
iperf_ver=$("$IPERF3" --version 2>&1 | head -1)
pt_ver=$(dpkg-query -W -f '${Package} ${Version}' perftest 2>/dev/null || echo perftest)

cat <<EOF
# qperf --streams vs iperf3 -P and perftest -q

- Date: $started to $finished
- Machine: $(uname -n), nproc $(nproc), kernel $(uname -r)${cpu:+, $cpu}
- Load average (1/5/15 min): $load_start at start, $load_end at end; 1-minute
  load after each case: ${loads[*]:-—} (other work on the machine adds noise)
- Ours: $ours_ver (git $ours_rev, $OURS); iperf3: $iperf_ver; perftest: $pt_ver
- Method: interleaved A B, $PAIRS rounds per case, $T s per run, $SIZE
  messages; tcp on loopback, write over softverbs (the emulator, not a
  fabric); medians; ratio of medians; per-pair ratios.

EOF

PYTHONPATH=$here python3 -B - "$raw" "${cases[@]}" <<'EOF'
import statistics, sys
from benchlib import read_raw, rss_cases

raw, cases = sys.argv[1], sys.argv[2:]
vals, nfail = read_raw(raw)
other = {"tcp": ("iperf3", "tcp_bw -st N", "iperf3 -P N"),
         "write": ("perftest", "rc_rdma_write_bw -st N", "ib_write_bw -q N")}

def fmt(v):
    if v is None:
        return "—"
    return "%.3f GB/s" % (v / 1e9) if v >= 1e9 else "%.1f MB/s" % (v / 1e6)

def med(case, tool):
    v = vals.get((case, "bw", tool), {})
    return statistics.median(v.values()) if v else None

print("| case | N | ours | other | ours/other | per pair (ours better) | runs ok (ours, other) |")
print("|---|--:|--:|--:|--:|--:|---|")
for c in cases:
    kind, n = c.split()
    tool, ours_name, other_name = other[kind]
    a, b = med(c, "ours"), med(c, tool)
    va, vb = vals.get((c, "bw", "ours"), {}), vals.get((c, "bw", tool), {})
    pr = [va[p] / vb[p] for p in va if p in vb and vb[p] > 0]
    ratio = "%.3f" % (a / b) if a and b else "—"
    per = ("%.2f–%.2f (%d/%d)" % (min(pr), max(pr), sum(x > 1 for x in pr), len(pr))
           if pr else "—")
    runs = "%d, %d" % (len(va), len(vb))
    print("| %s vs %s | %s | %s | %s | %s | %s | %s |" % (
        ours_name, other_name, n, fmt(a), fmt(b), ratio, per, runs))
print()
print("## Peak memory (maximum RSS, KiB)\n")
print("| case | tool | client | server |")
print("|---|---|--:|--:|")
for case, tool in rss_cases(raw):
    cl = vals.get((case, "client_kib", tool), {})
    sv = vals.get((case, "server_kib", tool), {})
    print("| %s | %s | %s | %s |" % (case[4:], tool,
          "%d" % cl[1] if cl else "—", "%d" % sv[1] if sv else "—"))
print()
EOF
print_fails
