#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --load TEST (issue 19 item 3): a bandwidth test beside a latency test.
# Checks: tcp_lat --load tcp_bw's report (0.4.11's latency line, then the
# load's and the idle and loaded percentiles) and the load raising p99
# over the idle run; rc_lat --load rc_bw over softverbs likewise, and
# --load_dir both (rc_bw out, rc_rdma_read_bw in, both reported);
# --no_idle; --load_rate paces the load; the JSON's load object (valid
# against the schema); bad input (one usage error, exit 2); a 0.4.11
# server refused with one line.
#
# The p99 checks run server and client on one CPU (taskset -c 0): on
# loopback the load's only effect on the latency test is the CPU it
# takes, and with two CPUs the scheduler often hides it (a busy CPU even
# wakes faster than an idle one); on one, the ping-pong waits behind the
# load's time slices, and p99 rises from tens of microseconds to
# milliseconds.  Up to three tries each, printed.
#
# Usage: bash tests/integration/load.sh   (QPERF=... overrides)

. "$(dirname "$0")/common.sh"

integration_server
PORT=$SERVER_PORT
SPID=$SERVER_PID

Q() {
	run "$QPERF" 127.0.0.1 -lp "$PORT" "$@"
}

# p99_raised NAME CMD...: run CMD (its report in OUT_FILE) up to three
# times until loaded_latency_p99 > idle_latency_p99.
p99_raised() {
	local name=$1 tries= try idle loaded
	shift
	for try in 1 2 3; do
		run "$@"
		idle=$(vx_ns idle_latency_p99)
		loaded=$(vx_ns loaded_latency_p99)
		tries="$tries try $try: idle p99 ${idle:-none} ns, loaded ${loaded:-none} ns;"
		if [ "$RC" = 0 ] && [ -n "$idle" ] && [ -n "$loaded" ] &&
			[ "$loaded" -gt "$idle" ]; then
			pass "$name:$tries"
			return 0
		fi
	done
	fail "$name" "$tries" "$(ctx)"
}

# 1. The report: 0.4.11's line, then the load's block.
Q -t "$TT" --load tcp_bw tcp_lat
expect "tcp_lat --load tcp_bw: exit 0, quiet" 0 '' '^$'
match_lines "tcp_lat --load tcp_bw: the latency line, the load, idle and loaded" \
	"$OUT_FILE" 'tcp_lat:' \
	"$(L latency "$TIME")" \
	"$(L load_out tcp_bw)" \
	"$(L load_out_bw "$BW")" \
	"$(L idle_latency "$TIME")" \
	"$(L idle_latency_p50 "$TIME")" \
	"$(L idle_latency_p99 "$TIME")" \
	"$(L loaded_latency_p50 "$TIME")" \
	"$(L loaded_latency_p99 "$TIME")"

# 2. --no_idle: the run under load only.
Q -t "$TT" --load tcp_bw --no_idle tcp_lat
expect "--no_idle: exit 0, the loaded percentiles" 0 \
	"$(L loaded_latency_p99 "$TIME")" '^$'
has '^    idle_' && fail "--no_idle: no idle lines" "$(ctx)" ||
	pass "--no_idle: no idle lines"

# 3. The load raises p99, on one CPU (see above).
if command -v taskset >/dev/null; then
	if start_server taskset -c 0 --; then
		p99_raised "tcp_lat --load tcp_bw on one CPU: loaded p99 > idle p99" \
			taskset -c 0 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			-t 0.5 --load tcp_bw tcp_lat
		stop_server "$SERVER_PORT" "$SERVER_PID" "the one-CPU server stops"
	else
		fail "a server on CPU 0 starts"
	fi
else
	skip "p99 under load on one CPU" "no taskset"
fi

# 4. JSON: the load object, valid; --load_rate paces the load.
if json_need; then
	Q -t 1 --json --load tcp_bw --load_rate 200Mb tcp_lat
	json_valid "--load --json" doc
	json_assert "--load --json: the load, paced at 25 MB/s, and the idle run" \
		'T0["load"]["loads"][0]["test"] == "tcp_bw" and T0["load"]["loads"][0]["direction"] == "out" and T0["load"]["loads"][0]["rate"] == {"Bps": 25e6} and abs(T0["load"]["loads"][0]["recv_bw_Bps"] / 25e6 - 1) <= 0.2 and T0["load"]["idle"]["latency"]["p99_s"] > 0 and R["latency"]["p99_s"] > 0'
	Q -t "$TT" --json_stream --load udp_bw --no_idle tcp_lat
	json_valid "--load udp_bw --no_idle --json_stream" stream
	json_assert "--no_idle --json_stream: idle null, udp_bw's figures" \
		'T0["load"]["idle"] is None and T0["load"]["loads"][0]["test"] == "udp_bw" and T0["load"]["loads"][0]["recv_bw_Bps"] > 0 and T0["load"]["loads"][0]["rate"] is None'
fi

# 5. Bad input: one line naming it, exit 2.  Each case: its name, the
# error line's pattern, and the arguments, "|" apart.
while IFS='|' read -r name re args; do
	# shellcheck disable=SC2086 # the arguments are words
	set -f # (msg_size:1:4:*2 is no file pattern)
	Q $args
	set +f
	expect "$name: one usage error, exit 2" 2 '^$' "$re"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "$name: one line" "$(ctx)"
done <<'CASES'
a latency test as the load|^qperf: --load: tcp_lat: not a bandwidth test; the load must be one|--load tcp_lat tcp_lat
--load on a bandwidth test|^qperf: --load: tcp_bw is not a latency test; the load runs beside latency tests|--load udp_bw tcp_bw
--load of an unknown test|^qperf: --load: nosuch_bw: unknown test; try: qperf --help tests$|--load nosuch_bw tcp_lat
--load_dir without --load|^qperf: --load_dir: needs --load TEST$|--load_dir both tcp_lat
--load_dir bogus|^qperf: --load_dir: up: bad direction; give out, in or both$|--load tcp_bw --load_dir up tcp_lat
--load_dir both on tcp_bw|^qperf: --load_dir both: tcp_bw moves data from the client to the server only; |--load tcp_bw --load_dir both tcp_lat
--load_rate bogus|^qperf: --load_rate: fast: bad rate|--load tcp_bw --load_rate fast tcp_lat
--load with --clients|^qperf: --load: not with --clients$|--load tcp_bw --clients 2 tcp_lat
--load with --loop|^qperf: --load: not with --loop$|--load tcp_bw --loop msg_size:1:4:*2 tcp_lat
--load with -t 0|^qperf: --load: not with -t 0 |--load tcp_bw -t 0 tcp_lat
CASES

# 6. RDMA over softverbs, when built: rc_lat beside rc_bw (p99 raised on
# one CPU), and --load_dir both.
SV_LIB=$LIB_ROOT/softverbs/build
if [ -e "$SV_LIB/libibverbs.so.1" ] &&
	"$QPERF" --version | grep -q 'rdma: built' &&
	command -v taskset >/dev/null; then
	SV=(env LD_LIBRARY_PATH="$SV_LIB" SOFTVERBS_FABRIC=qperf-load-$$
		SOFTVERBS_NODE=1)
	if start_server "${SV[@]}" taskset -c 0 --; then
		p99_raised "rc_lat --load rc_bw over softverbs on one CPU: loaded p99 > idle p99" \
			"${SV[@]}" taskset -c 0 "$QPERF" 127.0.0.1 \
			-lp "$SERVER_PORT" -t 0.5 --load rc_bw rc_lat
		run "${SV[@]}" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t "$TT" \
			--load rc_bw --load_dir both --no_idle rc_lat
		expect "rc_lat --load rc_bw --load_dir both: exit 0" 0 '' '^$'
		match_lines "--load_dir both: rc_bw out, rc_rdma_read_bw in" \
			"$OUT_FILE" 'rc_lat:' \
			"$(L latency "$TIME")" \
			"$(L load_out rc_bw)" \
			"$(L load_out_bw "$BW")" \
			"$(L load_in rc_rdma_read_bw)" \
			"$(L load_in_bw "$BW")" \
			"$(L loaded_latency_p50 "$TIME")" \
			"$(L loaded_latency_p99 "$TIME")"
		stop_server "$SERVER_PORT" "$SERVER_PID" "the softverbs server stops"
	else
		fail "a server over softverbs starts"
	fi
else
	skip "--load over softverbs" "softverbs, RDMA or taskset missing"
fi

# 7. qperf 0.4.11 serves one test at a time and cannot stop a load: the
# idle run runs (-t 1: 0.4.11 counts whole seconds), then one line, exit 1.
if [ ! -x "$LEGACY_QPERF" ]; then
	skip "0.4.11 server" "no $LEGACY_QPERF"
elif start_legacy_server; then
	run -t 60 "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 \
		--load tcp_bw tcp_lat
	expect "0.4.11 server: --load refused" 1 '' \
		'^qperf: --load tcp_bw: needs a server running qperf 0\.5 or later, which runs tests at once and can stop a load; this server runs 0\.4$'
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "0.4.11 refusal: one line" "$(ctx)"
else
	fail "qperf 0.4.11 starts"
fi

# The server served every client and is still up.
Q -t "$TT" tcp_lat
expect "the server still serves" 0 "$(L latency "$TIME")" '^$'
kill -0 "$SPID" 2>/dev/null && pass "the server is still up" ||
	fail "the server is still up"
finish
