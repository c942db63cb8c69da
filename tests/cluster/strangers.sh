#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster mode against strangers and limits, on loopback (issue 17):
#  - a stranger's quit to every rank's server during a run is refused
#    (each rank's server serves no quit) and the run completes;
#  - a rank's server killed mid-run: the failed pairs say whose server
#    is gone;
#  - a rank whose host name holds ESC, 0x9b, 0xff and markup: the text
#    report carries none of those bytes, the --plot heat map is
#    well-formed XML, the --json document valid;
#  - rank 0 with too few open files exits at once (it waited 10 s for
#    its own worker);
#  - a latency test's pairs carry their percentiles (JSON, text -v);
#  - 32 ranks, patterns ring and random:2, a 0.1 s tcp_lat: every pair
#    measured (the CI-sized version of bench/cluster-scale.sh).
#
# Run by tests/cluster/run.sh (sourced), or alone:
#   bash tests/cluster/strangers.sh      (the host name check needs root)
# CLUSTER_ARGS: options every rank gets, e.g. "--secret_file FILE" where
# cluster mode takes a job secret.

if [ -z "${LIB_ROOT:-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	STRANGERS_ALONE=1
fi
. "$LIB_ROOT/tests/cluster/cl_lib.sh" # cl_ranks, cl_rank0, cl_wait, ...

# --- a stranger's quit ------------------------------------------------------
# 4 ranks, 3 rounds of 1 s: the stranger sends quit to every rank's server
# as soon as rank 0 has printed their ports.  Before, each server quit and
# pairs failed ("6 pair tests failed", exit 1).
P=$(free_port)
cl_ranks 4 1 all -t 1 tcp_bw
cl_rank0 4 all -t 1 tcp_bw
wait_for 30 grep -qs '^  rank 3: ' "$T/cl.out"
quits=0
for k in 0 1 2 3; do
	port=$(server_port $k)
	[ -n "$port" ] || continue
	"$QPERF" 127.0.0.1 -lp "$port" quit >"$T/quit.$k.out" 2>&1 && quits=$((quits + 1))
done
cl_wait
refused=$(cat "$T"/cl.[0-3].err | grep -c 'refused quit from 127\.0\.0\.1')
if [ "$RC" -le 1 ] && [ "$CL_RC" = 0 ] && [ "$quits" = 0 ] && [ "$refused" = 4 ] &&
	! has 'pair tests? failed|^gone: '; then
	pass "a stranger's quit to each rank's server: refused by all 4, logged, the run completes"
else
	fail "a stranger's quit to each rank's server: refused by all 4, logged, the run completes" \
		"quits accepted: $quits, refusals logged: $refused, others: $CL_RC" \
		"$(cat "$T"/quit.*.out)" "$(ctx)"
fi

# --- a rank's server killed: the failures say whose server is gone ---------
# Rank 1's server is killed before rank 0 starts: rank 0 -> rank 1 finds
# nothing listening (after rank 0's -ws 2, its --wait_server and join
# window: rank 1 is waiting already; the default 5 s took 16 s in all,
# with the retry), rank 1 -> rank 0 runs.
P=$(free_port)
cl_ranks 2 1 all -t 0.2 tcp_bw
wait_for 10 test -n "$(ps -o pid= --ppid "${CL_PIDS[0]}")"
srv=$(ps -o pid= --ppid "${CL_PIDS[0]}" | head -n 1)
[ -n "$srv" ] && kill -9 "$srv"
cl_rank0 2 all -t 0.2 -ws 2 tcp_bw
cl_wait
port=$(server_port 1)
expect "rank 1's server killed: the failed pair names it as gone, exit 1" 1 \
	"^tcp_bw: 1 pair test failed; the first: rank 0 against rank 1: the qperf server of rank 1 \(127\.0\.0\.1 port $port\) is gone: "

# --- hostile host names ------------------------------------------------------
# Rank 1 runs in a UTS namespace of its own, its host name set to bytes
# a terminal or an XML parser trips on.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	cat >"$T/evilhost.py" <<-'EOF'
		import os, socket, sys
		socket.sethostname(b"ev\x1b[31mil\xff\x9b2J<&>")
		os.execvp(sys.argv[1], sys.argv[1:])
	EOF
	evil_run() { # ARGS...: rank 0 with ARGS, rank 1 on the evil host
		P=$(free_port)
		CL_PIDS=()
		QPERF_RANK=1 QPERF_SIZE=2 unshare -u "$PY" "$T/evilhost.py" "$QPERF" "${CL_ARGS[@]}" \
			--rendezvous "127.0.0.1:$P" --cluster all -t 0.2 tcp_lat \
			>/dev/null 2>"$T/cl.1.err" </dev/null &
		CL_PIDS+=($!)
		track_pid $!
		cl_rank0 2 all -t 0.2 "$@" tcp_lat
		cl_wait
	}
	evil_run --plot "$T/evil.svg"
	if [ "$RC" -le 1 ] && has '^  rank 1: ev\?\[31mil\?\?2J<&> \(127\.0\.0\.1 port' &&
		! LC_ALL=C grep -q '[^[:print:]]' "$OUT_FILE" "$ERR_FILE"; then
		pass "host name with ESC, 0x9b and 0xff: the text report shows it printable ('?'), no other byte"
	else
		fail "host name with ESC, 0x9b and 0xff: the text report shows it printable" "$(cat -v "$OUT_FILE")"
	fi
	if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/evil.svg" 2>"$T/xml.err" &&
		grep -q '>ev?\[31mil??2J&lt;&amp;&gt;:1</text>' "$T/evil.svg"; then
		pass "host name with ESC, 0x9b and 0xff: the heat map is well-formed XML, the label escaped"
	else
		fail "host name with ESC, 0x9b and 0xff: the heat map is well-formed XML" "$(cat "$T/xml.err")"
	fi
	evil_run --json
	if python3 "$LIB_ROOT/tests/json_check.py" doc "$OUT_FILE" >"$T/jc.err" 2>&1 &&
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["cluster"]["ranks"][1]["host"] != "ev?[31mil??2J<&>")' "$OUT_FILE"; then
		pass "host name with ESC, 0x9b and 0xff: --json valid, the host printable"
	else
		fail "host name with ESC, 0x9b and 0xff: --json valid, the host printable" "$(cat "$T/jc.err")" "$(ctx)"
	fi
else
	fail "hostile host names: root and unshare(1) are available"
fi

# --- rank 0 without enough open files: at once ---------------------------------
start=$(date +%s%N)
run -t 30 prlimit --nofile=80:80 -- env QPERF_RANK=0 QPERF_SIZE=100 "$QPERF" \
	"${CL_ARGS[@]}" --cluster all --rendezvous "127.0.0.1:$(free_port)" tcp_lat
ms=$((($(date +%s%N) - start) / 1000000))
if [ "$RC" = 1 ] && [ "$ms" -lt 3000 ] && [ ! -s "$OUT_FILE" ] &&
	grep -Eq '^qperf: rank 0: 100 ranks need 164 open files at rank 0, but its limit is 80' "$ERR_FILE" &&
	[ "$(wc -l <"$ERR_FILE")" = 1 ]; then
	pass "rank 0 short of open files: one line, exit 1 at once ($ms ms; it waited 10 s for its worker)"
else
	fail "rank 0 short of open files: one line, exit 1 at once (took $ms ms)" "$(ctx)"
fi

# --- latency percentiles of each pair -------------------------------------------
P=$(free_port)
cl_ranks 2 1 all -t 0.2 tcp_lat
cl_rank0 2 all -t 0.2 --json_stream tcp_lat
cl_wait
if "$PY" - "$OUT_FILE" >"$T/pct.err" 2>&1 <<-'EOF'; then
	import json, sys
	L = [json.loads(l) for l in open(sys.argv[1])]
	p = [l for l in L if l["type"] == "pair"][0]
	t = [l for l in L if l["type"] == "cluster"][0]["cluster"]["tests"][0]
	lat = p["latency"]
	assert lat["count"] > 0 and 0 < lat["p50_s"] <= lat["p99_s"] <= lat["max_s"], lat
	assert abs(t["p50_matrix"][0][1] - lat["p50_s"]) <= 1e-6 * lat["p50_s"], t["p50_matrix"]
	assert t["p99_matrix"][1][0] == t["p99_matrix"][0][1] and t["p99_matrix"][0][0] is None
EOF
	pass "tcp_lat in cluster mode: the pair line carries the latency percentiles, the document p50_matrix and p99_matrix"
else
	fail "tcp_lat in cluster mode: the pair line carries the latency percentiles" "$(cat "$T/pct.err")" "$(ctx)"
fi
P=$(free_port)
cl_ranks 2 1 all -t 0.2 -v tcp_lat
cl_rank0 2 all -t 0.2 -v tcp_lat
cl_wait
expect "tcp_lat -v in cluster mode: a matrix of the 99th percentiles" 0 \
	'^tcp_lat: 99th percentile latency in us; row = client \(sender\), column = server \(measured once per pair\)$'

# --- 32 ranks, ring and random:2, 0.1 s tcp_lat ------------------------------
# Every pair of the schedule measured (a pair that failed under the load
# of this small machine is tried again, fewer at a time).
for pat in ring random:2; do
	P=$(free_port)
	cl_ranks 32 1 "$pat" -t 0.1 tcp_lat
	cl_rank0 32 "$pat" -t 0.1 --json tcp_lat
	SECONDS=0
	cl_wait
	secs=$SECONDS
	if python3 - "$OUT_FILE" "$pat" >"$T/scale.err" 2>&1 <<-'EOF'; then
		import json, sys
		d = json.load(open(sys.argv[1]))
		c = d["cluster"]
		t = c["tests"][0]
		sched = t["not_scheduled"]
		bad = t["missing"]
		want = 32 * 31 - sched
		print("figures", t["directed_figures"], "of", want, "; missing:", bad[:3])
		assert c["size"] == 32 and c["gone"] == [] and not bad, "pairs missing"
		assert t["directed_figures"] == want and want >= 56, "figures"
		assert t["failed_pairs"] == 0, "failed pairs"
	EOF
		pass "32 ranks, $pat, 0.1 s tcp_lat: every scheduled pair measured, no rank gone ($secs s; $(cat "$T/scale.err"))"
	else
		fail "32 ranks, $pat, 0.1 s tcp_lat: every scheduled pair measured" "rank 0 exit $RC, others $CL_RC, $secs s" \
			"$(cat "$T/scale.err")" "$(tail -n 5 "$ERR_FILE")"
	fi
done

[ -n "${STRANGERS_ALONE:-}" ] && finish
