#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# conn.sh: tcp_conn against a bare C loop of the same transactions (issue
# 20 item 5; Debian 12 has no netperf for TCP_CRR), on loopback: what
# qperf's loop (its histograms, its server's session and watchdog) costs
# per connection.  bench/conn_bare.c is built here; it serves and runs the
# same transaction as tcp_conn (docs/conn.md, "One transaction": connect
# until a 1-byte greeting, 1-byte request and answer, shutdown, EOF,
# close).  The two run interleaved, qperf/bare then bare/qperf, PAIRS
# pairs of T seconds each, each client against its own server, and the
# report gives the medians of the transaction rate, of the transaction's
# p50 and of the connect step's p50, with the median of the per-pair
# ratios qperf/bare.  It measures; it asserts nothing (see DESIGN.md,
# "Testing tiers").
#
# Usage: bench/conn.sh [> results-conn.md]
# Environment:
#   PAIRS=5       interleaved pairs
#   T=2           seconds per run
#   OURS=./qperf  the binary (default: the one next to bench/)
#
# Exit status: 0 when the table was produced (failed runs are listed), 2 on
# a usage or setup error.

set -u

here=$(cd "$(dirname "$0")" && pwd)
T=${T:-2}
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
BENCH=conn
SERVER_ENV=()

check_common
command -v python3 >/dev/null || die "python3 is needed for the statistics"
bench_setup qperf-bench-conn
${CC:-cc} -O2 -o "$work/conn_bare" "$here/conn_bare.c" ||
	die "could not build bench/conn_bare.c"
start_ours || die "our server did not start"
"$work/conn_bare" server "$work/bare.port" >"$work/bare-server.log" 2>&1 </dev/null &
started_pids+=("$!")
wait_for 5 test -s "$work/bare.port" || die "the bare server did not start"
bare_port=$(cat "$work/bare.port")

# One run: "who pair rate txn_p50_ns connect_p50_ns" into raw, or a failure.
run_one() { # case who pair
	local who=$2 pair=$3 out rc
	if [ "$who" = qperf ]; then
		ensure_server ours || return 0
		timeout "$run_limit" "$OURS" 127.0.0.1 -lp "$ours_port" -t "$T" \
			--json tcp_conn >"$work/q.json" 2>&1
		rc=$?
		out=$(python3 -c '
import json, sys
c = json.load(sys.stdin)["tests"][0]["results"]["conn"]
print("%.1f %d %d" % (c["rate_per_s"], c["transaction"]["p50_s"] * 1e9,
      c["connect"]["p50_s"] * 1e9))' <"$work/q.json" 2>/dev/null) ||
			out="exit $rc: $(head -c 160 "$work/q.json")"
	else
		out=$(timeout "$run_limit" "$work/conn_bare" client "$bare_port" "$T" 2>&1 |
			awk '/^txns/ { print $4, $6, $8 }')
	fi
	case $out in
	[0-9]*' '[0-9]*' '[0-9]*) printf '%s\t%s\t%s\n' "$who" "$pair" "${out// /$'\t'}" >>"$raw" ;;
	*) echo "$who, pair $pair: ${out:-no output}" >>"$fails" ;;
	esac
}

bench_pairs tcp_conn qperf bare
bench_end

echo "# tcp_conn against a bare connect/request/close loop"
echo
echo "$finished, $(hostname), $(nproc) CPUs, $(uname -r), load at the end" \
	"$load_end; $PAIRS pairs of $T s on loopback; $ours_ver ($ours_rev)"
echo
python3 - "$raw" <<'PYEOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
by = {}
for who, pair, rate, txn, conn in rows:
    by.setdefault(pair, {})[who] = (float(rate), int(txn), int(conn))
pairs = [v for v in by.values() if "qperf" in v and "bare" in v]
if not pairs:
    print("No complete pair.")
    sys.exit(0)
med = lambda who, i: statistics.median(v[who][i] for v in pairs)
ratio = lambda i: statistics.median(v["qperf"][i] / v["bare"][i] for v in pairs)
print("| figure | qperf tcp_conn | bare loop | qperf/bare (median of pairs) |")
print("|---|---|---|---|")
print("| transactions/s | %.0f | %.0f | %.3f |" % (med("qperf", 0), med("bare", 0), ratio(0)))
print("| transaction p50 | %.1f us | %.1f us | %.3f |" % (med("qperf", 1) / 1e3, med("bare", 1) / 1e3, ratio(1)))
print("| connect p50 | %.1f us | %.1f us | %.3f |" % (med("qperf", 2) / 1e3, med("bare", 2) / 1e3, ratio(2)))
print()
print("%d complete pairs. A rate ratio below 1 (or a p50 ratio above 1) is what qperf's loop costs per connection." % len(pairs))
PYEOF
print_fails
exit 0
