#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tcp_conn, the TCP connection setup rate (issue 20 item 2) on loopback:
# the report's lines (a positive rate, each step's percentiles present
# and ordered); -n 200 is exactly 200 transactions in JSON, valid against
# the schema, the steps' means adding up to the transaction's within 10%;
# a server whose accept4() strace delays by 20 ms shows it in the connect
# step's p50 while answer and close stay small; strangers on the data port
# (silent ones from the client's host, hasty ones from 127.0.0.2) and a
# client killed mid-test leave the server serving, and its own test
# process killed makes the client say so in one line; bad values and a
# server's --max_msgs (one line each); a 0.4.11 server refused with one
# line naming the test and the server.
#
# Usage: bash tests/integration/conn.sh   (QPERF=... overrides)

. "$(dirname "$0")/common.sh"

integration_server
PORT=$SERVER_PORT
T=$LIB_TMP

# ordered WHAT: WHAT_p50 <= WHAT_p90 <= WHAT_p99 <= WHAT_max, all > 0, in
# the last text report.
ordered() {
	local a b c d
	a=$(vx_ns "$1_p50") b=$(vx_ns "$1_p90") c=$(vx_ns "$1_p99")
	d=$(vx_ns "$1_max")
	if [ -n "$a" ] && [ -n "$d" ] && [ "$a" -gt 0 ] && [ "$a" -le "$b" ] &&
		[ "$b" -le "$c" ] && [ "$c" -le "$d" ]; then
		pass "tcp_conn: $1 p50 <= p90 <= p99 <= max ($a $b $c $d ns)"
	else
		fail "tcp_conn: $1 percentiles present and ordered" \
			"p50 ${a:-none} p90 ${b:-none} p99 ${c:-none} max ${d:-none}" "$(ctx)"
	fi
}

# 1. The report.
Q -t 1 tcp_conn
expect "tcp_conn -t 1: exit 0, no warning" 0 '^tcp_conn:$' '^$'
rate=$(awk '$1 == "conn_rate" { v = $3; gsub(",", "", v); print v; exit }' "$OUT_FILE")
if awk -v r="${rate:-0}" 'BEGIN { exit !(r > 0) }' &&
	has '^    conn_rate += +[0-9.,]+ K?/sec$' &&
	has '^    txn_latency += +[0-9.]+ (ns|us|ms)$' &&
	has '^    transactions += +[0-9,]+ *$'; then
	pass "tcp_conn: conn_rate ${rate} /sec (K when so scaled), txn_latency, transactions"
else
	fail "tcp_conn: positive conn_rate, txn_latency, transactions" "$(ctx)"
fi
for w in connect answer close txn; do
	ordered "$w"
done
Q -t 0.3 -vx tcp_conn
expect "tcp_conn -vx: min, mean and p99.9 of each step" 0 \
	'^    close_p99\.9 += '
for w in connect_min answer_mean txn_p99.9; do
	has "^    $w += " || fail "tcp_conn -vx: $w line" "$(ctx)"
done

# 2. -n 200: exactly 200 transactions, the steps adding up.
if json_need; then
	Q -n 200 --json tcp_conn
	json_valid "tcp_conn -n 200 --json" doc
	json_assert "tcp_conn -n 200: 200 transactions, each step 200 times, a positive rate" \
		'R["measure"] == "connection" and R["conn"]["transactions"] == 200 and all(R["conn"][k]["count"] == 200 for k in ("connect", "answer", "close", "transaction")) and R["conn"]["rate_per_s"] > 0 and R["conn"]["msg_size_B"] == 1'
	json_assert "tcp_conn -n 200: its steps named in order" \
		'R["conn"]["steps"] == ["connect", "answer", "close"]'
	json_assert "tcp_conn -n 200: the steps' means within 10% of the transaction's" \
		'abs(sum(R["conn"][k]["mean_s"] for k in ("connect", "answer", "close")) - R["conn"]["transaction"]["mean_s"]) <= 0.1 * R["conn"]["transaction"]["mean_s"]'
	json_assert "tcp_conn -n 200: p50 <= p90 <= p99 <= max in every step" \
		'all(0 < R["conn"][k]["p50_s"] <= R["conn"][k]["p90_s"] <= R["conn"][k]["p99_s"] <= R["conn"][k]["max_s"] for k in ("connect", "answer", "close", "transaction"))'
	Q -t 0.3 -m 1000 --json tcp_conn
	json_assert "tcp_conn -m 1000: requests and answers of 1000 bytes" \
		'R["conn"]["msg_size_B"] == 1000 and R["loc"]["send"]["bytes_B"] == 1000 * R["conn"]["transactions"]'
fi

# 3. Strangers on the data port while a test runs: from the client's host
# (connect and say nothing, held; connect and close at once) and from
# 127.0.0.2 (refused unread).  They go on until the test is done with
# them (a stop file; at most 15 s).
DPORT=$(free_port)
cat >"$T/stranger.py" <<'EOF'
import os, socket, sys, time
port, stop = int(sys.argv[1]), sys.argv[2]
end, held, n = time.time() + 15, [], {"127.0.0.1": 0, "127.0.0.2": 0}
while time.time() < end and not os.path.exists(stop):
    for src in n:
        try:
            s = socket.socket()
            s.bind((src, 0))
            s.settimeout(0.2)
            s.connect(("127.0.0.1", port))
            n[src] += 1
            if src == "127.0.0.1" and len(held) < 20:
                held.append(s)
            else:
                s.close()
        except OSError:
            pass
    time.sleep(0.005)
print(n["127.0.0.1"], n["127.0.0.2"])
EOF
python3 "$T/stranger.py" "$DPORT" "$T/stop" >"$T/stranger.out" 2>&1 &
SP=$!
track_pid "$SP"
Q -t 2 -ip "$DPORT" tcp_conn
touch "$T/stop"
wait "$SP"
read -r same other <"$T/stranger.out"
if [ "$RC" = 0 ] && [ "$(vx_ns transactions)" -gt 0 ] 2>/dev/null &&
	[ "${same:-0}" -gt 0 ] && [ "${other:-0}" -gt 0 ]; then
	pass "tcp_conn beside strangers ($same from the client's host, $other from 127.0.0.2): runs"
else
	fail "tcp_conn beside strangers on its data port" \
		"strangers: ${same:-none} same host, ${other:-none} other" "$(ctx)"
fi
ordered connect

# 4. A client killed mid-test: the server serves the next one.
run -t 0.7 "$QPERF" 127.0.0.1 -lp "$PORT" -t 5 tcp_conn
[ "$RC" = 124 ] && pass "a client killed mid-test (timeout 0.7 s)" ||
	fail "the client was killed mid-test" "$(ctx)"
Q -t 0.3 tcp_conn
expect "after a client killed mid-test: the server runs the next" 0 \
	'^    conn_rate += '

# The server's test process killed mid-test (once its data port listens):
# the client says so in one line, exit 1; the server serves the next.
DPORT=$(free_port)
"$QPERF" 127.0.0.1 -lp "$PORT" -ip "$DPORT" -t 5 tcp_conn \
	>"$T/kill.out" 2>"$T/kill.err" </dev/null &
CP=$!
track_pid "$CP"
# listener_pid PORT: the process whose socket listens on PORT (ours).
listener_pid() {
	ss -Htlnp "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1
}
K=
if wait_for 5 port_listening "$DPORT" && K=$(listener_pid "$DPORT") &&
	[ -n "$K" ] && [ "$(ps -o ppid= -p "$K" | tr -d ' ')" = "$SERVER_PID" ]; then
	kill -9 "$K"
	wait "$CP"
	RC=$? OUT=$(cat "$T/kill.out") ERR=$(cat "$T/kill.err")
	cp "$T/kill.err" "$ERR_FILE"
	one_error "the server's test process killed: the client's one line, exit 1" 1 \
		'^qperf: transaction [0-9]+: ((the request and its answer|connect|the close) failed: |the server closed the connection during )|^qperf: failed to receive results: '
else
	fail "tcp_conn's data port listens in our server's child" \
		"listener ${K:-none}" "$(cat "$T/kill.err")"
fi
Q -t 0.3 tcp_conn
expect "after its test process was killed: the server runs the next" 0 \
	'^    conn_rate += '

# 5. Bad values: one line naming the value, exit 2, nothing run.
Q -m 2M tcp_conn
one_error "-m 2M: exit 2, one line" 2 \
	'^qperf: -m: 2097152: larger than a tcp_conn request can carry \(1048576 bytes\)$'
Q -m 0 tcp_conn
one_error "-m 0: exit 2, one line" 2 '^qperf: -m: 0: must be greater than 0$'
Q -m -1 tcp_conn
one_error "-m -1: exit 2, one line" 2 '^qperf: -m: -1: must not be negative$'
Q -t 0 -n 0 tcp_conn
one_error "-t 0 -n 0: exit 2, one line" 2 '^qperf: -n: 0: must be greater than 0$'
Q -n -5 tcp_conn
one_error "-n -5: exit 2, one line" 2 '^qperf: -n: -5: must not be negative$'
Q --clients 2 tcp_conn
one_error "--clients 2 tcp_conn: exit 2, one line" 2 \
	'^qperf: --clients: not with tcp_conn \(the clients'"'"' table has no connection rates yet\)$'
Q --expect 'msg_rate>=1' tcp_conn
one_error "--expect msg_rate on tcp_conn: exit 2, one line" 2 \
	'^qperf: --expect: msg_rate>=1: test tcp_conn does not produce msg_rate \(it reports no figure a check can take\)$'
Q -n 50 --json tcp_conn
cp "$OUT_FILE" "$T/base.json"
Q --baseline "$T/base.json" tcp_conn
one_error "--baseline on tcp_conn: exit 2, one line (no verdict with nothing checked)" 2 \
	'^qperf: --baseline: .*/base\.json: test tcp_conn has no figure a baseline can check$'
stop_server "$PORT" "$SERVER_PID" "our server stops"

# 6. A server's --max_msgs: one line; it serves on.
if start_server -- --max_msgs 100; then
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -n 200 tcp_conn
	one_error "-n 200 against --max_msgs 100: one line" 1 \
		'^qperf: server: tcp_conn: -n 200 is more than this server allows \(100, --max_msgs\)$'
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -n 100 tcp_conn
	expect "then -n 100 runs" 0 '^    transactions += +100 *$'
	stop_server "$SERVER_PORT" "$SERVER_PID" "the --max_msgs server stops"
else
	fail "a server with --max_msgs 100 starts"
fi

# 7. A server slow to accept: strace delays each accept4() by 20 ms.
if command -v strace >/dev/null; then
	# (LeakSanitizer cannot run under ptrace: an ASan build's leak
	# check is left to the other servers.)
	if start_server env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o /dev/null -e trace=accept4 \
		-e inject=accept4:delay_enter=20000 --; then
		# strace detaches from its tracee when killed: the cleanup
		# stops the server itself too.
		SQ=$(ps -o pid= --ppid "$SERVER_PID" | tr -d ' ')
		[ -n "$SQ" ] && at_exit "kill $SQ"
		run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 1 tcp_conn
		c=$(vx_ns connect_p50) a=$(vx_ns answer_p50) z=$(vx_ns close_p50)
		if [ "$RC" = 0 ] && [ "${c:-0}" -ge 20000000 ] &&
			[ "${a:-99999999}" -lt 5000000 ] &&
			[ "${z:-99999999}" -lt 5000000 ]; then
			pass "accept delayed 20 ms: connect p50 $c ns, answer $a ns, close $z ns"
		else
			fail "accept delayed 20 ms: connect p50 >= 20 ms, answer and close < 5 ms" \
				"connect ${c:-none} answer ${a:-none} close ${z:-none} ns" "$(ctx)"
		fi
		stop_server "$SERVER_PORT" "$SERVER_PID" "the strace'd server stops"
	else
		fail "a server under strace starts"
	fi
else
	skip "accept delayed by strace" "no strace (scripts/install-deps --test)"
fi

# 8. A 0.4.11 server lacks it: one line naming the test and the server.
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 tcp_conn
	one_error "0.4.11 server: tcp_conn refused with one line" 1 \
		'^qperf: tcp_conn needs a server running qperf 0\.5\.[0-9]+ or later; the server at 127\.0\.0\.1 runs qperf 0\.4, which lacks it$'
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 0.3 tcp_lat
	expect "0.4.11 server: tcp_lat still runs after it" 0 '^    latency += '
	stop_legacy_server
else
	skip "0.4.11 server" "no $LEGACY_QPERF"
fi

finish
