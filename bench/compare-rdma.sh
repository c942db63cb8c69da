#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# compare-rdma.sh: this qperf's RDMA verbs tests against Debian's qperf
# 0.4.11 and against perftest, over softverbs (the project's user-space
# libibverbs.so.1), on one machine.
#
# Two emulated hosts: every server runs as SOFTVERBS_NODE=1, every client as
# SOFTVERBS_NODE=2, all on a private SOFTVERBS_FABRIC of this run.  Each
# qperf client talks to its own server (ours <-> ours, 0.4.11 <-> 0.4.11);
# perftest gets a fresh server/client pair per run.  For each case the runs
# are interleaved, A B A B (or A B C A B C where perftest has a matching
# program), PAIRS times, and a markdown table of medians and ratios is
# printed.  It measures; it asserts nothing (see DESIGN.md, "Testing tiers").
# Figures over softverbs measure the emulator (memory copies through the
# kernel, CPU scheduling), not an RDMA fabric.
#
# Usage: bench/compare-rdma.sh [> results-rdma.md]
# Environment:
#   PAIRS=5             interleaved rounds per case (at least 1; 5 or more)
#   T=1                 whole seconds per run (qperf -t, perftest -D; 0.4.11
#                       takes no fractions)
#   OURS=./qperf        this project's binary (default: the one next to bench/)
#   OLD=/usr/bin/qperf  qperf 0.4.11
#   SV_LIB=DIR          softverbs build (default: softverbs/build next to bench/)
#   PERFTEST=1          0 leaves perftest out
#   CASES="..."         subset of the case names (see the list below), e.g.
#                       CASES="rc_lat:default rc_lat:64K"
#   OPTS="..."          extra options for both qperf clients (e.g. -cp1:
#                       poll the CQ instead of waiting for events)
#   RAW=FILE            also keep every run's parsed values (TSV) in FILE
#   GNU_TIME=/usr/bin/time  measures each client's peak RSS (and perftest's
#                       server's, fresh per run)
#
# Exit status: 0 when the table was produced (even if some runs failed; they
# are counted and shown), 2 on a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
SV_LIB=${SV_LIB:-$here/../softverbs/build}
PERFTEST=${PERFTEST:-1}
RAW=${RAW:-}
OPTS=${OPTS:-}
GNU_TIME=${GNU_TIME:-/usr/bin/time}

# The cases: NAME QPERF-TEST QPERF-SIZE PERFTEST-PROGRAM PERFTEST-SIZE.
# "default" is the size each qperf picks itself (0.4.11's defaults: 64 KiB
# for the bandwidth tests, 1 byte for the latency tests); the report shows
# the msg_size both qperfs actually used.  ud_lat cannot go to 64 KiB: a UD
# message is at most one MTU (2048 bytes on softverbs), so its larger size
# is 2K.  rc_fetch_add_mr has no size (8-byte atomics).  "-" = no perftest
# counterpart.
ALL_CASES="
rc_bw:default           rc_bw             default ib_send_bw   65536
rc_bi_bw:default        rc_bi_bw          default -            -
rc_lat:default          rc_lat            default ib_send_lat  1
rc_lat:64K              rc_lat            64K     ib_send_lat  65536
ud_lat:default          ud_lat            default -            -
ud_lat:2K               ud_lat            2K      -            -
rc_rdma_write_lat:default rc_rdma_write_lat default ib_write_lat 1
rc_rdma_write_lat:64K   rc_rdma_write_lat 64K     ib_write_lat 65536
rc_rdma_write_bw:default rc_rdma_write_bw default ib_write_bw  65536
rc_rdma_read_bw:default rc_rdma_read_bw   default ib_read_bw   65536
rc_rdma_read_lat:default rc_rdma_read_lat default ib_read_lat  1
rc_rdma_read_lat:64K    rc_rdma_read_lat  64K     ib_read_lat  65536
rc_fetch_add_mr         rc_fetch_add_mr   default -            -
"
CASES=${CASES:-$(printf '%s\n' "$ALL_CASES" | awk 'NF { print $1 }' | tr '\n' ' ')}

BENCH=compare-rdma
SERVER_ENV=(SOFTVERBS_NODE=1)

check_common
"$OURS" --version 2>&1 | grep -q 'rdma: built' ||
	die "'$OURS' was built without the RDMA tests ($("$OURS" --version 2>&1 | head -1))"
check_tools "the servers listen"
[ -x "$GNU_TIME" ] || die "GNU time not found at '$GNU_TIME' (apt-get install time)"
[ -e "$SV_LIB/libibverbs.so.1" ] || die "softverbs is not built in '$SV_LIB' (run make, or set SV_LIB=)"
if [ "$PERFTEST" = 1 ]; then
	for p in ib_send_bw ib_send_lat ib_write_bw ib_write_lat ib_read_bw ib_read_lat; do
		command -v "$p" >/dev/null || die "perftest's $p not found (apt-get install perftest, or PERFTEST=0)"
	done
fi
for c in $CASES; do
	printf '%s\n' "$ALL_CASES" | awk -v c="$c" '$1 == c { f = 1 } END { exit !f }' ||
		die "unknown case '$c' (cases: $(printf '%s\n' "$ALL_CASES" | awk 'NF { print $1 }' | tr '\n' ' '))"
done

# Both emulated hosts of this run live on a fabric of their own.
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-bench-$$
unset SOFTVERBS_NODE SOFTVERBS_LINK_LAYER

bench_setup qperf-bench-rdma
retries=$work/retries.txt
: >"$retries"

tool_name() {
	case $1 in ours) echo ours ;; old) echo 0.4.11 ;; *) echo perftest ;; esac
}

# record case tool pair "metric<TAB>value" lines, or a failure.
record_fail() { # case tool pair rc why
	printf '%s\t%s\t%s\tFAIL\trc=%s %s\n' "$1" "$2" "$3" "$4" "$5" >>"$raw"
	printf -- '- %s, %s, pair %s: exit %s: %s\n' "$1" "$(tool_name "$2")" "$3" "$4" "$5" >>"$fails"
}
record_vals() { # case tool pair vals
	printf '%s\n' "$4" | while IFS=$'\t' read -r m v; do
		[ -n "$m" ] && printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$m" "$v" >>"$raw"
	done
}

# The client's CPU: the subshell that runs it reports, with the times
# builtin, what its waited-for children used (the last output line).
# cpu_awk turns that and a message count into client_cpu (ns per message)
# and client_cpu_pct (CPU seconds per second of test, in % of one CPU).
# shellcheck disable=SC2016 # awk code, not shell
cpu_awk='
	/^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ { cpu = $0 }
	function cpu_out() {
		split(cpu, t, /[ms ]+/)
		sec = t[1] * 60 + t[2] + t[3] * 60 + t[4]
		if (msgs > 0 && sec > 0)
			printf "client_cpu\t%.1f\n", sec * 1e9 / msgs
		if (sec > 0)
			printf "client_cpu_pct\t%.1f\n", sec * 100 / T
	}'

# rss_val METRIC FILE: a newline and "METRIC<TAB>KiB" from GNU time's
# output file in $work (its last line), then removes the file; nothing if
# it holds no number.
rss_val() {
	local k
	k=$(tail -1 "$work/$2" 2>/dev/null)
	rm -f "$work/$2"
	case $k in ''|*[!0-9]*) return ;; esac
	printf '\n%s\t%s' "$1" "$k"
}

# One qperf client run (ours or 0.4.11) against its own server.
run_qperf() { # tool case test size pair
	local tool=$1 case=$2 test=$3 size=$4 pair=$5 bin port out rc vals why
	if [ "$tool" = ours ]; then bin=$OURS; else bin=$OLD; fi
	if ! ensure_server "$tool"; then
		record_fail "$case" "$tool" "$pair" - "server would not start"
		return
	fi
	if [ "$tool" = ours ]; then port=$ours_port; else port=$old_port; fi
	local args=(localhost -lp "$port" -t "$T" -uu -vv)
	[ "$size" = default ] || args+=(-m "$size")
	# shellcheck disable=SC2206 # OPTS is a list of options
	[ -n "$OPTS" ] && args+=($OPTS)
	out=$(SOFTVERBS_NODE=2 timeout "$run_limit" "$GNU_TIME" -f %M -o "$work/rss.cli" \
		"$bin" "${args[@]}" "$test" 2>&1 </dev/null
	      echo "__rc $?"
	      times)
	rc=$(printf '%s\n' "$out" | awk '$1 == "__rc" { print $2 }')
	# -uu: raw bytes/sec, ns, bytes; -vv: message counts.  The count per
	# message is the first of send_msgs (bw, read, 0.4.11's atomics),
	# loc_send_msgs (round trips of *_lat), rem_recv_msgs (our atomics).
	vals=$(printf '%s\n' "$out" | awk -v T="$T" "$cpu_awk"'
		$2 == "=" && ($1 == "bw" || $1 == "latency" || $1 == "msg_rate" ||
		              $1 == "msg_size") { print $1 "\t" $3 }
		$2 == "=" && $1 == "send_msgs" && !sm { sm = $3 }
		$2 == "=" && $1 == "loc_send_msgs" && !lm { lm = $3 }
		$2 == "=" && $1 == "rem_recv_msgs" && !rm { rm = $3 }
		END { msgs = sm ? sm : (lm ? lm : rm); cpu_out() }')
	if [ "$rc" != 0 ] ||
	   ! printf '%s\n' "$vals" | grep -qE '^(bw|latency|msg_rate)'$'\t' ||
	   printf '%s\n' "$vals" | awk -F'\t' '$1 != "msg_size" && $2 + 0 <= 0 { bad = 1 } END { exit !bad }'; then
		why=$(qperf_why "$out" "$rc" 'bw|latency|msg_rate')
		record_fail "$case" "$tool" "$pair" "$rc" "$why"
		return
	fi
	record_vals "$case" "$tool" "$pair" "$vals$(rss_val client_kib rss.cli)"
}

# One perftest run: a fresh server (node 1) and client (node 2), both with
# -d softv0 -s SIZE -D T on a free port.  perftest calibrates its cycle
# counter against gettimeofday and, on a contended CPU, fails ("Correlation
# coefficient r^2 ... < 0.9", then no report or inf/nan latencies): such a
# run is retried, at most 3 attempts (as tests/softverbs/run.sh does), and
# the retry is listed.  Nothing else is retried.
run_perftest() { # case prog size pair
	local case=$1 prog=$2 size=$3 pair=$4 attempt out rc vals why srv
	for attempt in 1 2 3; do
		srv=$work/pt-server.log
		rm -f "$work/rss.srv" "$work/rss.cli"
		PT_RSS_DIR=$work perftest_once "$prog" "$work/pt-client.out" \
			"$srv" -d softv0 -s "$size" -D "$T"
		out=$(cat "$work/pt-client.out")
		rc=$(printf '%s\n' "$out" | awk '$1 == "__rc" { print $2 }')
		if grep -q 'Correlation coefficient r^2' "$srv" ||
		   printf '%s\n' "$out" | grep -q 'Correlation coefficient r^2'; then
			echo "- $case, perftest, pair $pair: clock calibration failed (attempt $attempt)" >>"$retries"
			[ "$attempt" -lt 3 ] && continue
		fi
		break
	done
	# The result row follows the "#bytes #iterations ..." header: bw
	# tests print bytes, iterations, BW peak, BW average [MB/sec, MB =
	# 2^20 bytes], MsgRate [Mpps]; latency tests with -D print bytes,
	# iterations, t_avg [usec], tps average.
	vals=$(printf '%s\n' "$out" | awk -v T="$T" "$cpu_awk"'
		/^ *#bytes/ { hdr = $0; row = 1; next }
		row && $1 ~ /^[0-9]+$/ {
			row = 0; msgs = $2
			print "msg_size\t" $1
			if (hdr ~ /BW average/) {
				if ($4 + 0 > 0) print "bw\t" $4 * 1048576
				if ($5 + 0 > 0) print "msg_rate\t" $5 * 1e6
			} else if (hdr ~ /t_avg/ && $3 ~ /^[0-9.]+$/ && $3 + 0 > 0)
				print "latency\t" $3 * 1000
		}
		END { cpu_out() }')
	if [ "$rc" != 0 ] || ! printf '%s\n' "$vals" | grep -qE '^(bw|latency)'$'\t'; then
		why=$( (printf '%s\n' "$out" | grep -v -e '^__rc' -e '^[0-9]*m[0-9.]*s ';
		        cat "$srv") | grep -iE 'error|fail|couldn|unable|can.t|r\^2|inf|nan' |
			sort -u | tr '\n' ' ' | tr -s ' ' | cut -c1-160)
		[ "$rc" = 124 ] && why="timed out after ${run_limit}s; $why"
		[ -n "$why" ] || why="no result"
		record_fail "$case" perftest "$pair" "$rc" "$why"
		return
	fi
	record_vals "$case" perftest "$pair" "$vals$(rss_val client_kib rss.cli)$(rss_val server_kib rss.srv)"
}

start_ours || exit 2
start_old || exit 2

nruns=0
for c in $CASES; do
	pt=$(printf '%s\n' "$ALL_CASES" | awk -v c="$c" '$1 == c { print $4 }')
	nruns=$((nruns + 2))
	[ "$PERFTEST" = 1 ] && [ "$pt" != - ] && nruns=$((nruns + 1))
done
echo "compare-rdma: $(echo "$CASES" | wc -w) cases x $PAIRS rounds, $((nruns * PAIRS)) runs of ${T}s" \
	"(about $(python3 -c "print(round($nruns * $PAIRS * ($T + 0.8)))")s)" >&2

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
loads=()
for c in $CASES; do
	loads+=("$(cut -d' ' -f1 /proc/loadavg)")
	read -r _ test size pt ptsize <<<"$(printf '%s\n' "$ALL_CASES" | awk -v c="$c" '$1 == c')"
	for p in $(seq "$PAIRS"); do
		printf '\rcompare-rdma: %-26s round %s/%s ' "$c" "$p" "$PAIRS" >&2
		run_qperf ours "$c" "$test" "$size" "$p"
		run_qperf old "$c" "$test" "$size" "$p"
		[ "$PERFTEST" = 1 ] && [ "$pt" != - ] && run_perftest "$c" "$pt" "$ptsize" "$p"
	done
done
printf '\n' >&2
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
load_range=$(printf '%s\n' "${loads[@]}" | sort -g | sed -n '1p;$p' | tr '\n' ' ' |
	awk '{ printf "%s to %s", $1, ($2 == "" ? $1 : $2) }')

[ -n "$RAW" ] && cp "$raw" "$RAW"

version_info
pt_ver=$(dpkg-query -W -f '${Package} ${Version}' perftest 2>/dev/null || echo perftest)
sv_rev=$(git -C "$here/.." log -1 --format=%h -- softverbs 2>/dev/null || echo unknown)

cat <<EOF
# qperf RDMA tests vs qperf 0.4.11 and perftest, over softverbs

**Figures over softverbs measure the emulator, not a fabric**: softverbs
carries every message through AF_UNIX sockets and memory copies in the
kernel, and on a 2-CPU machine both emulated hosts, their progress threads
and any other load share the same two CPUs.  What the ratios can show is how
each tool drives the verbs API (completion handling, queue depths, event vs
poll), not how fast an HCA is.

- Date: $started to $finished
- Machine: $(uname -n), nproc $(nproc), kernel $(uname -r)${cpu:+, $cpu}
- Load average (1/5/15 min): $load_start at start, $load_end at end; the
  1-min figure at the start of each case ranged $load_range
  (the machine is shared; other work adds noise, the per-pair ranges show it)
- Ours: $ours_ver (git $ours_rev, $OURS)
- 0.4.11: $old_ver ($OLD)
- perftest: $([ "$PERFTEST" = 1 ] && echo "$pt_ver (ib_send_bw, ib_send_lat, ib_write_bw, ib_write_lat, ib_read_bw, ib_read_lat; -d softv0 -s SIZE -D $T)" || echo "not run (PERFTEST=0)")
- softverbs: $SV_LIB (git $sv_rev), InfiniBand link layer, fabric $SOFTVERBS_FABRIC;
  servers SOFTVERBS_NODE=1, clients SOFTVERBS_NODE=2
- Method: interleaved ours, 0.4.11[, perftest], $PAIRS rounds per case, $T s
  per run; each qperf client against its own server ($([ -n "$OPTS" ] && echo "client options: $OPTS" || echo "default options, so
  completions by events")); a fresh perftest server/client pair per run
  (perftest's defaults: it busy-polls its CQ); -uu -vv raw values; medians.
- Target (against 0.4.11): bandwidth and message rate ratio (ours/0.4.11)
  >= 1.0, latency ratio <= 1.0.  The perftest columns are for information.

EOF

PYTHONPATH=$here python3 -B - "$raw" "$PAIRS" "$CASES" "$ALL_CASES" "$PERFTEST" <<'EOF'
import statistics, sys
from benchlib import read_raw

raw, pairs, cases, allcases, perftest = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], sys.argv[5] == "1"
spec = {}
for line in allcases.splitlines():
    f = line.split()
    if f:
        spec[f[0]] = f[1:]
vals, nfail = read_raw(raw)

def med(d):
    return statistics.median(d.values()) if d else None

def fmt(metric, v):
    if v is None:
        return "—"
    if metric == "latency":
        return "%.2f us" % (v / 1e3)
    if metric == "msg_rate":
        return "%.1f K/s" % (v / 1e3) if v < 1e6 else "%.3f M/s" % (v / 1e6)
    if v >= 1e9:
        return "%.3f GB/s" % (v / 1e9)
    return "%.1f MB/s" % (v / 1e6)

def sizes(case, tools):
    out = []
    for t in tools:
        s = vals.get((case, "msg_size", t), {})
        s = sorted(set(int(x) for x in s.values()))
        out.append("/".join(str(x) for x in s) if s else "n/a")
    return ", ".join(out)

def compare(a, b, lat):
    pr = [a[p] / b[p] for p in a if p in b and b[p] > 0]
    spread = "%.2f–%.2f" % (min(pr), max(pr)) if pr else "—"
    wins = sum(1 for x in pr if (x < 1.0 if lat else x > 1.0))
    better = "%d/%d" % (wins, len(pr)) if pr else "—"
    ma, mb = med(a), med(b)
    r = ma / mb if ma is not None and mb else None
    return r, spread, better, wins, pr

print("| case | metric | msg_size (ours, 0.4.11%s) | median ours | median 0.4.11 "
      "| ratio ours/0.4.11 | per-pair ratios (min–max) | pairs ours better "
      "| target | verdict | median perftest | ratio ours/perftest "
      "| per-round ratios (min–max) | rounds ours better "
      "| runs ok (ours, 0.4.11, perftest) | client CPU/msg ours / 0.4.11 / perftest "
      "| client CPU %% of one CPU ours / 0.4.11 / perftest |"
      % (", perftest" if perftest else ""))
print("|---|---|---|--:|--:|--:|--:|--:|---|---|--:|--:|--:|--:|--:|--:|--:|")

def cpufmt(ns):
    if ns is None:
        return "—"
    return "%.1f us" % (ns / 1e3) if ns >= 1e3 else "%.0f ns" % ns

for case in cases:
    test, size, pt, ptsize = spec[case]
    metric = "latency" if test.endswith("_lat") else ("msg_rate" if test.endswith("_mr") else "bw")
    lat = metric == "latency"
    has_pt = perftest and pt != "-"
    tools = ["ours", "old"] + (["perftest"] if has_pt else [])
    a = vals.get((case, metric, "ours"), {})
    b = vals.get((case, metric, "old"), {})
    c = vals.get((case, metric, "perftest"), {})
    target = "≤ 1.0" if lat else "≥ 1.0"
    r, spread, better, wins, pr = compare(a, b, lat)
    if r is None:
        ratio, verdict = "—", "n/a (runs failed)"
    else:
        ratio = "%.3f" % r
        good = r <= 1.0 if lat else r >= 1.0
        verdict = "meets" if good else "**misses**"
        if not good and pr:
            verdict += " (every pair)" if wins == 0 else " (mixed pairs)"
    if has_pt:
        rc, spc, betc, _, _ = compare(a, c, lat)
        ptcols = (fmt(metric, med(c)), "%.3f" % rc if rc is not None else "—", spc, betc)
        okc = "%d/%d" % (pairs - nfail[case, "perftest"], pairs)
    else:
        ptcols = ("—", "—", "—", "—")
        okc = "—"
    ok = "%d/%d, %d/%d, %s" % (pairs - nfail[case, "ours"], pairs,
                              pairs - nfail[case, "old"], pairs, okc)
    cpu = " / ".join(cpufmt(med(vals.get((case, "client_cpu", t), {}))) for t in tools)
    pct = " / ".join("%.0f" % med(vals[case, "client_cpu_pct", t])
                     if vals.get((case, "client_cpu_pct", t)) else "—" for t in tools)
    name = test if size == "default" else "%s %s" % (test, size)
    if test == "rc_fetch_add_mr":
        name = test
    elif size == "default":
        name = test + " default"
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" %
          ((name, metric, sizes(case, tools), fmt(metric, med(a)), fmt(metric, med(b)),
            ratio, spread, better, target, verdict) + ptcols + (ok, cpu, pct)))

print()
print("Peak memory (maximum RSS in KiB, GNU time; median over the runs): each")
print("client, and perftest's server (a fresh one per run).  Our and 0.4.11's")
print("servers serve every run of the benchmark from one process (a child per")
print("request) and are not measured here.\n")
print("| case | client ours | client 0.4.11 | client perftest | server perftest "
      "| client ours/0.4.11 | client ours/perftest |")
print("|---|--:|--:|--:|--:|--:|--:|")
for case in cases:
    k = {t: med(vals.get((case, "client_kib", t), {})) for t in ("ours", "old", "perftest")}
    ks = med(vals.get((case, "server_kib", "perftest"), {}))
    kf = lambda v: "—" if v is None else "%d" % v
    rf = lambda a, b: "%.2f" % (a / b) if a is not None and b else "—"
    print("| %s | %s | %s | %s | %s | %s | %s |" % (case, kf(k["ours"]), kf(k["old"]),
          kf(k["perftest"]), kf(ks), rf(k["ours"], k["old"]), rf(k["ours"], k["perftest"])))
EOF

cat <<EOF

Cases and their perftest counterparts: rc_bw ↔ ib_send_bw, rc_lat ↔
ib_send_lat, rc_rdma_write_bw ↔ ib_write_bw (one QP), rc_rdma_write_lat ↔
ib_write_lat, rc_rdma_read_bw ↔ ib_read_bw,
rc_rdma_read_lat ↔ ib_read_lat, at the same message size (perftest -s).
rc_bi_bw, ud_lat and rc_fetch_add_mr have no perftest row here.
"default" is the size the qperfs choose (64 KiB for the bandwidth tests,
1 byte for the latency tests; the msg_size column shows what each used).
ud_lat runs at 1 byte and at 2K only: a UD message is at most one path MTU
(2048 bytes on softverbs), so 64 KiB does not apply.  rc_fetch_add_mr has no
message size (8-byte atomics); its figure is msg_rate.
For the bandwidth tests msg_rate is bw / msg_size at a fixed size, so the bw
ratio is also the message-rate ratio.
Latency is what each tool reports: qperf's one-way latency (half a round
trip; a whole read for rc_rdma_read_lat), perftest's t_avg with -D.
perftest bandwidth is its "BW average" (MB = 2^20 bytes there), converted to
bytes/sec.  ib_write_lat, like qperf's *_poll_lat tests, spins on memory on
both sides, while qperf's rc_rdma_write_lat waits for a completion event.
Client CPU: user+system CPU time of the client process (getrusage of the
waited-for child, setup included) per message (per round trip for the
latency tests) and per second of test, in % of one CPU.  About 100% means
the client spins (busy-polls); much less means it sleeps in completion
events.  Informational.
EOF
if [ "$PERFTEST" = 1 ]; then
	echo
	if [ -s "$retries" ]; then
		echo "perftest clock-calibration retries (each run is tried at most 3 times):"
		echo
		cat "$retries"
	else
		echo "perftest clock-calibration retries: none."
	fi
fi
print_fails
exit 0
