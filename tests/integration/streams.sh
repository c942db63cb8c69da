#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --streams N (-st N) on loopback: tcp_bw and udp_bw with 1, 2 and 4
# streams (exit 0, the sum in 0.4.11's fields, -v shows each stream, JSON
# validates with N stream entries whose figures add up to the test's),
# one stream's layout equal to no --streams, -ca CPU lists pinning each
# stream, bad values, -I refused, the server's memory budget counting N
# buffers, and a server that survives clients killed mid-test.
#
# Usage: bash tests/integration/streams.sh   (QPERF=... overrides)

. "$(dirname "$0")/../lib.sh"
CHECK_JSON=$LIB_ROOT/tests/json_check.py
TT=${TT:-0.5}

start_server || { fail "our server starts"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
pass "server listens on $PORT"

Q() {
	run "$QPERF" 127.0.0.1 -lp "$PORT" "$@"
}

# The headline of each test (spec §3.5).
head_of() {
	case $1 in
	udp_bw) echo '^    send_bw +=  +[0-9.,]+ [KMGT]?B/sec$' ;;
	*) echo '^    bw +=  +[0-9.,]+ [KMGT]?B/sec$' ;;
	esac
}

# Each stream's first -v line: stream<i>_bw (tcp) or stream<i>_send_bw.
first_of() {
	case $1 in
	udp_bw) echo send_bw ;;
	*) echo bw ;;
	esac
}

# The sums of a --json document: streams, and whether the stream
# figures add up to the test's (counters exactly, bandwidth to 1e-9).
json_sums() {
	python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["tests"][0]["results"]
st = r.get("streams", [])
ok = True
if st:
    for end in ("loc", "rem"):
        for d in ("send", "recv"):
            for k in ("bytes_B", "msgs", "errors"):
                tot = r[end][d][k]
                got = sum(s[end][d][k] for s in st)
                ok = ok and tot == got
    for k in ("send_bw_Bps", "recv_bw_Bps"):
        tot, got = r[k], sum(s[k] for s in st)
        ok = ok and abs(tot - got) <= 1e-9 * max(tot, 1)
    ok = ok and [s["stream"] for s in st] == list(range(1, len(st) + 1))
print(len(st), "sum-ok" if ok else "sum-bad")
EOF
}

for t in tcp_bw udp_bw; do
	for n in 1 2 4; do
		Q -t "$TT" -st "$n" -v "$t"
		expect "$t -st $n -v: exit 0 and the sum" 0 "$(head_of "$t")"
		k=$(count_lines "^    stream[0-9]+_$(first_of "$t") +=  +[0-9.,]+ [KMGT]?B/sec$")
		want=$n
		[ "$n" = 1 ] && want=0
		[ "$k" = "$want" ] && pass "$t -st $n -v: $want stream lines" ||
			fail "$t -st $n -v: $want stream lines" "$k found" "$(ctx)"
		if [ "$n" -gt 1 ]; then
			has "^    streams += +$n $" &&
				pass "$t -st $n -v: streams = $n listed" ||
				fail "$t -st $n -v: streams = $n listed" "$(ctx)"
			has "^    stream$n""_msg_rate +=  +[0-9.,]+ [KMG]?/sec$" &&
				pass "$t -st $n -v: stream $n's msg_rate" ||
				fail "$t -st $n -v: stream $n's msg_rate" "$(ctx)"
		fi
		Q -t "$TT" -st "$n" --json "$t"
		cp "$OUT_FILE" "$T/st.json"
		expect "$t -st $n --json: exit 0" 0
		if python3 "$CHECK_JSON" doc "$T/st.json" >"$T/jc" 2>&1; then
			pass "$t -st $n --json: validates against the schema"
		else
			fail "$t -st $n --json: validates against the schema" "$(cat "$T/jc")"
		fi
		got=$(json_sums "$T/st.json" 2>&1)
		[ "$got" = "$want sum-ok" ] &&
			pass "$t -st $n --json: $want stream entries adding up to the test" ||
			fail "$t -st $n --json: $want stream entries adding up to the test" "$got"
	done
done

# One stream keeps 0.4.11's layout: -st 1 -vv lists the same lines as
# no --streams (the names of the lines; figures and units vary).  The CPU
# split lines (*_cpus_user, _intr, _kernel, _iowait) are left out of the
# comparison: as in 0.4.11 each shows only when its figure is not zero,
# which a short run may or may not reach.
shape() { sed -E 's/ *=.*//' "$1" | grep -Ev '_cpus_(user|intr|kernel|iowait)$'; }
for v in "" -v -vv; do
	Q -t "$TT" $v tcp_bw
	shape "$OUT_FILE" >"$T/shape0"
	Q -t "$TT" -st 1 $v tcp_bw
	shape "$OUT_FILE" >"$T/shape1"
	cmp -s "$T/shape0" "$T/shape1" &&
		pass "tcp_bw -st 1 ${v:-(default)}: same layout as without --streams" ||
		fail "tcp_bw -st 1 ${v:-(default)}: same layout as without --streams" \
			"$(diff "$T/shape0" "$T/shape1")"
done

# The long form, and --streams on a test without streams: a warning.
Q -t "$TT" --streams 2 tcp_bw
expect "--streams 2 tcp_bw" 0 "$(head_of tcp_bw)"
Q -t "$TT" -st 2 tcp_lat
expect "-st 2 tcp_lat: set but not used" 0 '^    latency' \
	'^qperf: warning: -st set but not used in test tcp_lat$'

# Bad values: exit 2, one line naming the value.
bad() {
	local val=$1 re=$2
	shift 2
	Q "$@" tcp_bw
	expect "bad value $val: exit 2 naming it" 2 '' "$re"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "bad value $val: one line" ||
		fail "bad value $val: one line" "$(ctx)"
}
bad "-st 0" '^qperf: -st: 0: must be greater than 0$' -st 0
bad "-st 65" '^qperf: -st: 65: too large; must be at most 64$' -st 65
bad "-st x" '^qperf: -st: x: bad number' -st x
bad "--streams -1" '^qperf: --streams: -1: must not be negative$' --streams -1
bad "-ca 1,x" '^qperf: -ca: 1,x: bad CPU list' -ca 1,x -st 2
bad "-ca 1,,2" '^qperf: -ca: 1,,2: bad CPU list' -ca 1,,2 -st 2
bad "-ca 1-" '^qperf: -ca: 1-: bad CPU list' -ca 1- -st 2
bad "-ca 1,9999" '^qperf: -ca: 1,9999: CPU list entry 9999 is too large' -ca 1,9999
bad "-I with -st" '^qperf: -I: interval reports are not available with --streams in test tcp_bw$' \
	-st 2 -I 0.2

# -ca lists: each stream on its own CPU (the machine has at least 2).
if [ "$(nproc)" -ge 2 ]; then
	"$QPERF" 127.0.0.1 -lp "$PORT" -t 3 -st 2 -ca 1,2 tcp_bw \
		>"$T/ca.out" 2>"$T/ca.err" </dev/null &
	cpid=$!
	track_pid "$cpid"
	three_tasks() { [ "$(ls /proc/$cpid/task 2>/dev/null | wc -l)" -ge 3 ]; }
	if wait_for 5 three_tasks; then
		lists=$(for tk in /proc/$cpid/task/*; do
			sed -n 's/^Cpus_allowed_list:\t//p' "$tk/status"
		done | sort | tr '\n' ' ')
		[ "$lists" = "0 0 1 " ] &&
			pass "-st 2 -ca 1,2: the main thread and stream 1 on CPU 0, stream 2 on CPU 1" ||
			fail "-st 2 -ca 1,2: the main thread and stream 1 on CPU 0, stream 2 on CPU 1" "$lists"
	else
		fail "-st 2 -ca 1,2: the client runs two stream threads"
	fi
	wait "$cpid"
	RC=$? OUT=$(cat "$T/ca.out") ERR=$(cat "$T/ca.err")
	[ "$RC" = 0 ] && grep -Eq "$(head_of tcp_bw)" "$T/ca.out" &&
		pass "-st 2 -ca 1,2: exit 0 and the sum" ||
		fail "-st 2 -ca 1,2: exit 0 and the sum" "$(ctx)"
	Q -t "$TT" -st 4 -ca 0-1 -rca 2,1 udp_bw
	expect "-st 4 -ca 0-1 -rca 2,1 udp_bw (lists taken in turn)" 0 "$(head_of udp_bw)"
	# Each stream finds its CPU's NUMA node at the same moment; libnuma
	# fills its node cache without a lock, so before lib/numa.c held one
	# an ASan build leaked 8 KiB in 5 of 20 such runs (LeakSanitizer,
	# exit 1).  Every run: exit 0, nothing on stderr.
	bad=0
	for i in $(seq 20); do
		Q -t 0.1 -st 8 -ca 0-1 udp_bw
		if [ "$RC" != 0 ] || [ -n "$ERR" ]; then
			bad=$((bad + 1))
			first_bad=${first_bad:-$(ctx)}
		fi
	done
	[ "$bad" = 0 ] &&
		pass "20 runs of -t 0.1 -st 8 -ca 0-1 udp_bw: exit 0, stderr empty (streams look up NUMA nodes together)" ||
		fail "20 runs of -t 0.1 -st 8 -ca 0-1 udp_bw: exit 0, stderr empty ($bad failed)" "$first_bad"
else
	skip "-ca lists" "one CPU here"
fi

# Clients killed mid-test: the server goes on serving.
for t in tcp_bw udp_bw; do
	"$QPERF" 127.0.0.1 -lp "$PORT" -t 5 -st 4 "$t" >/dev/null 2>&1 </dev/null &
	cpid=$!
	started() { [ "$(ls /proc/$cpid/task 2>/dev/null | wc -l)" -ge 5 ]; }
	wait_for 5 started
	kill -9 "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
	Q -t "$TT" -st 2 "$t"
	expect "$t: after a -st 4 client was killed mid-test the server serves" 0 "$(head_of "$t")"
done
check_alive "server alive after the killed clients" "$PORT" "$SPID"
stop_server "$PORT" "$SPID" "server stops with quit"

# An earlier 0.5 server (no capability 0x200) would ignore the streams
# item: refused with one line naming the option and its version.  The
# request carried items 9 (streams) and 10 (the CPU list).
PEER=$LIB_ROOT/tests/robust/peer.py
pf=$T/caps.port
python3 "$PEER" caps-server "$pf" 0x1ff >"$T/caps.out" 2>&1 &
track_pid $!
wait_for 5 test -s "$pf"
run "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -t "$TT" -st 2 -ca 1,2 tcp_bw
expect "-st 2 to a 0.5 server without streams: refused" 1 '' \
	'^qperf: tcp_bw: -st needs a server that runs several streams \(qperf 0\.5\.0\); this server \(qperf 0\.5\.0\) lacks it$'
[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "-st 2 to a 0.5 server without streams: one line" ||
	fail "-st 2 to a 0.5 server without streams: one line" "$(ctx)"
wait_for 5 test -s "$pf.items"
grep -Eq '(^| )9( |$)' "$pf.items" && grep -Eq '(^| )10( |$)' "$pf.items" &&
	pass "the request carried items 9 and 10" ||
	fail "the request carried items 9 and 10" "items: $(cat "$pf.items" 2>/dev/null)"

# The memory budget counts one buffer per stream: 4 x 300,000 bytes is
# more than 1 MiB, 2 x 300,000 is not.
start_server -- --max_memory 1M || { fail "server with --max_memory 1M"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
Q -t "$TT" -m 300000 -st 4 tcp_bw
expect "-m 300000 -st 4 over a 1 MiB budget: refused" 1 '' \
	'not enough memory: this test needs 1200000 bytes, more than the server.s whole budget'
Q -t "$TT" -m 300000 -st 2 tcp_bw
expect "-m 300000 -st 2 within a 1 MiB budget: runs" 0 "$(head_of tcp_bw)"
stop_server "$PORT" "$SPID" "budget server stops with quit"
finish
