#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --clients K on loopback (issue 19 item 5, docs/clients.md): tcp_bw from
# 4 clients gives 4 figures, an aggregate equal to their sum, a fairness
# index in (0,1] and the slowest client; the server really ran the 4 at
# once (its children counted while the test ran, and the clients'
# windows began within 2 s of each other); udp_bw and tcp_lat work; the
# JSON is valid against the schema with the per-client entries; bad
# values and refused combinations are one usage error (exit 2); a K above
# the server's --max_per_client fails with the server's refusal naming
# the limit, no hang, and the server still answers; --max_memory counts
# the clients together; rc_bw and rc_lat
# over softverbs when it is built; a qperf 0.4.11
# server is refused.
#
# Usage: bash tests/integration/clients.sh   (QPERF=... overrides)

. "$(dirname "$0")/common.sh"

integration_server
PORT=$SERVER_PORT
SPID=$SERVER_PID

# The number of the server's children now.
server_children() {
	cat /proc/"$SPID"/task/*/children 2>/dev/null | wc -w
}

# --clients 4 tcp_bw: 4 lines, the sum, fairness, the slowest; meanwhile
# the server's children are counted (all 4 are up at the barrier).
out=$T/bw.out err=$T/bw.err
"$QPERF" 127.0.0.1 -lp "$PORT" --clients 4 -t 1.5 tcp_bw >"$out" 2>"$err" \
	</dev/null &
CPID=$!
track_pid "$CPID"
most=0
while ! pid_gone "$CPID"; do
	n=$(server_children)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.02
done
wait "$CPID"
RC=$?
cp "$out" "$OUT_FILE"
cp "$err" "$ERR_FILE"
OUT=$(cat "$OUT_FILE") ERR=$(cat "$ERR_FILE")
match_lines "--clients 4 tcp_bw: each client, the aggregate, fairness, slowest" \
	"$OUT_FILE" 'tcp_bw:' \
	' +client1_bw += +[0-9.,]+ [KMG]B/sec' \
	' +client2_bw += +[0-9.,]+ [KMG]B/sec' \
	' +client3_bw += +[0-9.,]+ [KMG]B/sec' \
	' +client4_bw += +[0-9.,]+ [KMG]B/sec' \
	' +aggregate_bw += +[0-9.,]+ [KMG]B/sec' \
	" +fairness += +(0\\.[0-9]{3}|1\\.000) \\(Jain's index\\)" \
	' +slowest += +client[1-4] at [0-9.]+ of the fair share' \
	' +start_spread += +[0-9.,]+ (ns|us|ms|sec)'
expect "--clients 4 tcp_bw: exit 0, quiet" 0 '' '^$'
[ "$most" -ge 4 ] && pass "--clients 4: the server ran 4 children at once" ||
	fail "--clients 4: the server ran 4 children at once" "most seen: $most" "$(ctx)"

if json_need; then
	C --clients 4 -t 1 --json tcp_bw
	expect "--clients 4 tcp_bw --json: exit 0" 0
	json_valid "--clients 4 tcp_bw --json" doc
	json_assert "tcp_bw: 4 per-client figures, all above 0" \
		'len(T0["clients"]["per_client"]) == 4 and all(c["status"] == "ok" and c["figure"] > 0 for c in T0["clients"]["per_client"])'
	json_assert "tcp_bw: the aggregate is the sum of the figures" \
		'abs(T0["clients"]["aggregate"]["value"] - sum(c["figure"] for c in T0["clients"]["per_client"])) <= 1e-6 * T0["clients"]["aggregate"]["value"]'
	json_assert "tcp_bw: fairness in (0,1] and Jain's formula" \
		'0 < T0["clients"]["fairness"] <= 1 and abs(T0["clients"]["fairness"] - sum(c["figure"] for c in T0["clients"]["per_client"])**2 / (4 * sum(c["figure"]**2 for c in T0["clients"]["per_client"]))) < 1e-9'
	json_assert "tcp_bw: the slowest client is the smallest figure, against aggregate/4" \
		'(lambda C: C["slowest"]["figure"] == min(c["figure"] for c in C["per_client"]) and abs(C["slowest"]["fair_share"] - C["aggregate"]["value"] / 4) < 1e-6 * C["aggregate"]["value"])(T0["clients"])'
	# A common start: every window began within 2 s of the first (a
	# loaded machine wakes the released clients late; on an idle one it
	# is milliseconds).
	json_assert "tcp_bw: the clients' windows began within 2 s" \
		'T0["clients"]["start_spread_s"] < 2 and all(c["start_s"] < 2 for c in T0["clients"]["per_client"])'

	C --clients 3 -t 1 --json udp_bw tcp_lat
	expect "--clients 3 udp_bw tcp_lat --json: exit 0" 0
	json_valid "--clients 3 udp_bw tcp_lat --json" doc
	json_assert "udp_bw: 3 received bandwidths and their sum" \
		'(lambda C: C["figure"] == "recv_bw_Bps" and len(C["per_client"]) == 3 and all(c["figure"] > 0 for c in C["per_client"]) and C["aggregate"]["kind"] == "sum")(tests[0]["clients"])'
	json_assert "tcp_lat: 3 latencies, their mean and max" \
		'(lambda C: C["figure"] == "latency_s" and C["aggregate"]["kind"] == "mean" and abs(C["aggregate"]["value"] - sum(c["figure"] for c in C["per_client"]) / 3) < 1e-12 and C["aggregate"]["max"] == max(c["figure"] for c in C["per_client"]) and C["slowest"]["figure"] == C["aggregate"]["max"])(tests[1]["clients"])'

	C --clients 2 -t 0.5 --json_stream tcp_bw
	json_valid "--clients 2 --json_stream" stream
fi

C --clients 2 -t 0.5 tcp_lat
match_lines "--clients 2 tcp_lat: each latency, the mean and max" \
	"$OUT_FILE" 'tcp_lat:' \
	' +client1_latency += +[0-9.,]+ (ns|us|ms)' \
	' +client2_latency += +[0-9.,]+ (ns|us|ms)' \
	' +mean_latency += +[0-9.,]+ (ns|us|ms)' \
	' +max_latency += +[0-9.,]+ (ns|us|ms)' \
	" +fairness += +(0\\.[0-9]{3}|1\\.000) \\(Jain's index\\)" \
	' +slowest += +client[12] at [0-9.]+ of the mean' \
	' +start_spread += +[0-9.,]+ (ns|us|ms|sec)'

# Bad values and combinations: one line naming it, exit 2, nothing run.
for bad in 0 abc 1000 17; do
	C --clients "$bad" tcp_bw
	expect "--clients $bad: one usage error, exit 2" 2 '^$' \
		"^qperf: --clients: $bad: "
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "--clients $bad: one line" "$(ctx)"
done
for combo in "--streams 2 tcp_bw" "--loop msg_size:1K:4K:*2 tcp_bw" \
	"-I 0.5 tcp_bw" "conf" "-t 0 tcp_bw" "--expect bw>=1MB/s tcp_bw"; do
	# shellcheck disable=SC2086
	C --clients 2 $combo
	expect "--clients 2 $combo: refused, exit 2" 2 '^$' '^qperf: --clients: '
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "--clients 2 $combo: one line" "$(ctx)"
done
run "$QPERF" --clients 2 --cluster ring tcp_bw
expect "--clients with --cluster: refused, exit 2" 2 '^$' \
	'^qperf: --clients: not with --cluster'

# Above the server's --max_per_client (4 by default): the server's
# refusal, named by client and naming the limit; no hang; exit 1.
C --clients 6 -t 1 tcp_bw
expect "--clients 6 against --max_per_client 4: fails, exit 1" 1 \
	'client[56]_bw += +failed' \
	'^qperf: [0-9] of 6 clients failed; client [0-9]: tcp_bw: server: server busy: .*at most 4 per client.*--max_per_client'
[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "--clients 6: one line on stderr" "$(ctx)"
check_alive "the server answers after the refused clients" "$PORT" "$SPID"
stop_server "$PORT" "$SPID" "our server stops"

# A server with --max_per_client 6 serves 6.
if start_server -- --max_per_client 6; then
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" --clients 6 -t 0.5 tcp_bw
	expect "--clients 6 against --max_per_client 6: exit 0" 0 \
		'^ +client6_bw += +[0-9.,]+ [KMG]B/sec$' '^$'
	stop_server "$SERVER_PORT" "$SERVER_PID" "the --max_per_client 6 server stops"
else
	fail "a server with --max_per_client 6 starts"
fi

# --max_memory counts the K clients' buffers together: 3 of 400 KiB do
# not fit in 1 MiB, and the one refused says so.
if start_server -- --max_memory 1M; then
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" --clients 3 -t 0.5 -m 400K tcp_bw
	expect "--clients 3 -m 400K against --max_memory 1M: the server's refusal" 1 \
		'client[1-3]_bw += +failed' \
		'^qperf: 1 of 3 clients failed; client [1-3]: tcp_bw: server: not enough memory: .*--max_memory'
	check_alive "the --max_memory server answers afterwards" "$SERVER_PORT" "$SERVER_PID"
	stop_server "$SERVER_PORT" "$SERVER_PID" "the --max_memory server stops"
else
	fail "a server with --max_memory 1M starts"
fi

# RDMA over softverbs, when built: rc_bw and rc_lat from 3 clients.
SV_LIB=$LIB_ROOT/softverbs/build
if [ -e "$SV_LIB/libibverbs.so.1" ] &&
	"$QPERF" --version | grep -q 'rdma: built'; then
	SV=(env LD_LIBRARY_PATH="$SV_LIB" SOFTVERBS_FABRIC=qperf-clients-$$
		SOFTVERBS_NODE=1)
	if start_server "${SV[@]}" --; then
		run "${SV[@]}" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" --clients 3 \
			-t 0.5 rc_bw rc_lat
		expect "--clients 3 rc_bw rc_lat over softverbs: exit 0" 0 \
			'^ +client3_latency += +[0-9.,]+ (ns|us|ms)$' '^$'
		[ "$(count_lines '^ +client[1-3]_bw += +[0-9.,]+ [KMG]B/sec$')" = 3 ] &&
			has '^ +aggregate_bw += ' &&
			pass "rc_bw over softverbs: 3 clients and the aggregate" ||
			fail "rc_bw over softverbs: 3 clients and the aggregate" "$(ctx)"
		stop_server "$SERVER_PORT" "$SERVER_PID" "the softverbs server stops"
	else
		fail "a server over softverbs starts"
	fi
else
	skip "--clients over softverbs" "softverbs or RDMA not built"
fi

# qperf 0.4.11 serves one test at a time: refused, with one line.  (The
# library's cleanup stops the 0.4.11 server, a tracked PID.)
if [ ! -x "$LEGACY_QPERF" ]; then
	skip "0.4.11 server" "no $LEGACY_QPERF"
elif start_legacy_server; then
	run -t 60 "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" --clients 2 -t 1 tcp_bw
	expect "0.4.11 server: --clients refused" 1 '' \
		'^qperf: 2 of 2 clients failed; client 1: tcp_bw: --clients needs a server running qperf 0\.5\.0 or later, which serves clients at once; this server runs 0\.4, which serves one test at a time$'
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "0.4.11 refusal: one line" "$(ctx)"
else
	fail "qperf 0.4.11 starts"
fi
finish
