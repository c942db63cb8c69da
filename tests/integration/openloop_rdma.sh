#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Open-loop latency on the RDMA latency tests and rs_lat, over softverbs
# on loopback (issue 19 item 2, docs/openloop.md): --rate on rc_lat sends
# on the schedule with many requests in flight, each receive in a slot of
# its own.  Checks: at 2k/s rc_lat's p50 is near the closed loop's (3x or
# +200 us, up to 3 tries); a SIGSTOP of the server's test process for
# 40-66 ms shows once per request it delayed (rate x (stall - 10 ms)
# above 10 ms, -20% to 2.5 times, up to 3 judged tries); ud_lat reports its requests and
# lost; uc_lat, xrc_lat, rc_rdma_write_lat (writes with immediate into
# the peer's slots), rs_lat, rc_lat -cm1 and rc_rdma_read_lat (each read
# answered by its completion) run open loop with every request answered;
# a larger message (fewer slots) too; the write-poll tests refuse --rate
# (one line, exit 2); a 0.4.11 server is refused with one line; the
# server survives a client killed mid open loop (ping-pong and reads).
#
# Usage: bash tests/integration/openloop_rdma.sh   (QPERF=... overrides)

. "$(dirname "$0")/common.sh"

T=$LIB_TMP
SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
FAB=qperf-olrdma-$$
OL_WRAP=(env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=$FAB"
	SOFTVERBS_NODE=2)
if ! "$QPERF" --version | grep -q 'rdma: built' ||
	[ ! -e "$SV_LIB/libibverbs.so.1" ]; then
	skip "open loop over softverbs" "softverbs or RDMA not built"
	finish
fi
if ! start_server env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=$FAB" \
	SOFTVERBS_NODE=1 --; then
	fail "a server over softverbs starts" "$(cat "$SERVER_LOG")"
	finish
fi

Q() {
	run "${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@"
}

# 1. rc_lat near the closed loop at a low rate: every open-loop request
# also waits for both ends to wake (the closed loop never sleeps long),
# over softverbs four threads (each end's progress thread, then its
# application), which a loaded 2-CPU machine can make long: within 3x or
# +200 us, up to three tries.
ol_near rc_lat
expect "rc_lat --rate 2k/s: exit 0, the open-loop lines" 0 \
	'^    arrivals +=  constant$'
sed -n '1,9p' "$OUT_FILE" >"$T/head"
match_lines "rc_lat --rate 2k/s: the latency, then the schedule's lines" \
	"$T/head" 'rc_lat:' \
	' +latency += +[0-9.]+ (ns|us|ms|sec)' \
	' +offered_rate += +2 K/sec' \
	' +achieved_rate += +[0-9.,]+ K?/sec' \
	' +arrivals += +constant' \
	' +requests += +[0-9,]+ ' \
	' +late_sends += +[0-9,]+ ' \
	' +lost += +0 ' \
	' +out_of_order += +0 '
if [ -n "$near" ]; then
	pass "rc_lat: open-loop p50 near the closed loop's (3x or +200 us):$tries"
else
	fail "rc_lat: open-loop p50 near the closed loop's (3x or +200 us)" \
		"$tries" "$(ctx)"
fi
n=$(vx_ns requests)
if [ "${n:-0}" -ge 3900 ] && [ "$n" -le 4100 ] &&
	[ "$(vx_ns latency_samples)" = "$n" ]; then
	pass "rc_lat: $n requests in 2 s at 2000/s, every one answered and timed"
else
	fail "rc_lat: ~4000 requests, each answered" "requests ${n:-none}" "$(ctx)"
fi

# 2. Coordinated omission (ol_co_check, common.sh), on rc_lat.  RC's
# transport timeout here is 4.096 us x 2^14 = 67 ms: a longer stall makes
# the client resend what is unacknowledged (go back N), which delays more
# than the stall (a 90 ms stall: ~450 requests above 10 ms, not 160), so
# the stall asked for is 40 ms (a loaded machine's sleep overshoots) and
# a try past 66 ms is not judged.  After the stall the server catches up
# with four thread wake-ups per message over softverbs (each end's
# progress thread, then its application), which beside a busy CPU delays
# more requests past 10 ms than the stall alone: 1.1-1.2 times rate x
# (stall - 10 ms) on an idle machine, 1.4-2 times beside one busy loop,
# 4-8 times in CI beside the ASan builds' compiles (3 tries of 3 there).
# So -20% to 10 times: the lower bound is the claim (coordinated omission
# would count one request); the upper one only catches a count gone wild
# (10 times is still under a sixth of the ~6000 requests).
if json_need; then
	OL_STALL_S=0.04 OL_STALL_MAX_MS=66 OL_CO_HIGH=10
	ol_co_check rc_lat
	OL_STALL_S=0.05 OL_STALL_MAX_MS= OL_CO_HIGH=1.2
	json_assert "rc_lat open loop --json: the schedule, nothing lost" \
		'R["open_loop"]["offered_per_s"] == 2000 and R["open_loop"]["lost"] == 0 and R["open_loop"]["answered"] == R["open_loop"]["requests"] and R["pace"]["pacing"] == "open_loop"'
fi

# 3. ud_lat: requests and lost (a datagram may be lost; none on loopback
# is expected, but the count is what is checked: the line and its sum).
Q -t 1 -vx --rate 2k/s --arrivals poisson ud_lat
expect "ud_lat --rate 2k/s --arrivals poisson: exit 0" 0 \
	'^    arrivals +=  poisson$'
n=$(vx_ns requests) l=$(vx_ns lost) s=$(vx_ns latency_samples)
if [ "${n:-0}" -ge 1500 ] && [ -n "$l" ] && [ "$((s + l))" = "$n" ]; then
	pass "ud_lat open loop: $n requests, $l lost, the rest timed"
else
	fail "ud_lat open loop: requests = timed + lost" \
		"requests ${n:-none} lost ${l:-none} timed ${s:-none}" "$(ctx)"
fi

# 4. The other ping-pong tests: every request answered (rs_lat: all but
# at most one; about one run in eight loses one request of 500 over
# rsockets, cause not yet found: docs/openloop.md); none lost on
# loopback for the reliable ones).
for args in uc_lat xrc_lat rc_rdma_write_lat "-m 20000 uc_rdma_write_lat" \
	rs_lat "-cm1 rc_lat" "-m 64K rc_lat" rc_rdma_read_lat; do
	set -- $args
	t=${*: -1}
	# Up to three tries for the 300 of 500 sent: beside busy CPUs a
	# run can fall short without a fault (rs_lat sent 50-280 of 500
	# there while its sends waited for rsockets' credits; sends no
	# longer wait, and 352 of 500 was the lowest seen since, once in 20).
	for try in 1 2 3; do
		Q -t 0.5 -vx --rate 1k/s "$@"
		n=$(vx_ns requests)
		[ "${n:-0}" -ge 300 ] && break
	done
	expect "$args --rate 1k/s: exit 0, open loop" 0 \
		'^    arrivals +=  constant$'
	n=$(vx_ns requests) l=$(vx_ns lost) s=$(vx_ns latency_samples)
	if [ "${n:-0}" -ge 300 ] && [ "$((s + l))" = "$n" ] &&
		{ [ "$l" = 0 ] || [ "$t" = uc_lat ] ||
			[ "$t" = uc_rdma_write_lat ] ||
			{ [ "$t" = rs_lat ] && [ "$l" -le 1 ]; }; }; then
		pass "$args open loop: $n requests, $l lost, the rest timed"
	else
		fail "$args open loop: every request answered" \
			"requests ${n:-none} lost ${l:-none} timed ${s:-none}" "$(ctx)"
	fi
done

# 5. The write-poll tests: no open loop, one usage error, exit 2.
for t in rc_rdma_write_poll_lat uc_rdma_write_poll_lat; do
	Q --rate 1k/s "$t"
	expect "$t --rate: one usage error, exit 2" 2 '^$' \
		"^qperf: $t: --rate: open-loop latency is not implemented for this test \\(ping-pong latency tests only: .*rc_lat, uc_lat, ud_lat, xrc_lat.*; and rc_rdma_read_lat\\)$"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "$t --rate: one line" "$(ctx)"
done

# 6. A client killed mid open loop: the server goes on serving (a
# ping-pong's responder, and a read loop's idle server).
for t in rc_lat rc_rdma_read_lat; do
	"${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 5 --rate 5k/s \
		"$t" >"$T/killed.out" 2>&1 </dev/null &
	K=$!
	track_pid "$K"
	sleep 1
	kill -KILL "$K"
	wait "$K" 2>/dev/null
	Q -t 0.5 --rate 1k/s "$t"
	expect "after a client killed mid $t open loop: the next runs" 0 \
		'^    requests += +[0-9,]+ $'
done

# 6b. The server's --max_memory counts an open-loop test's slots (a
# receive and a send slot per request in flight), not one message: 64 KiB
# requests take 127 x 2 x 65600 bytes of slots (a closed loop 64 KiB),
# 2 KiB UD ones 256 x 2 x 2112, 1-byte ones 256 x 2 x 128.
SP0=$SERVER_PORT
SPID0=$SERVER_PID
if start_server env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=$FAB" \
	SOFTVERBS_NODE=1 -- --max_memory 1M; then
	MP=$SERVER_PORT
	MPID=$SERVER_PID
	for tm in rc_rdma_read_lat:64K:16662400 ud_lat:2K:1081344; do
		IFS=: read -r t m need <<<"$tm"
		run "${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$MP" -t 0.5 \
			-m "$m" --rate 1k/s "$t"
		expect "--max_memory 1M, $t -m $m --rate: the slots refused" 1 \
			"^$t:\$" \
			"^qperf: server: not enough memory: this test needs $need bytes, more than the server.s whole budget of 1048576 \\(--max_memory\\); use a smaller -m\$"
		run "${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$MP" -t 0.5 \
			-m 1 --rate 1k/s "$t"
		expect "--max_memory 1M, $t -m 1 --rate: runs" 0 \
			'^    requests += +[0-9,]+ $'
	done
	run "${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$MP" -t 0.5 -m 64K \
		rc_rdma_read_lat
	expect "--max_memory 1M, closed loop -m 64K: runs" 0 \
		'^    latency += +[0-9.]+ us$'
	stop_server "$MP" "$MPID" "the budgeted server stops"
else
	fail "a server with --max_memory 1M starts" "$(cat "$SERVER_LOG")"
fi
SERVER_PORT=$SP0
SERVER_PID=$SPID0

# 7. A server without the capability (qperf 0.4.11): one line, before
# the test.
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	run "${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 \
		--rate 2k/s rc_lat
	expect "0.4.11 server: rc_lat --rate refused with one line" 1 '' \
		"^qperf: rc_lat --rate: the server at 127.0.0.1 does not run open-loop latency tests \\(qperf 0.4.11 or an older 0.5\\)$"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || fail "0.4.11 refusal: one line" "$(ctx)"
	stop_legacy_server
else
	skip "0.4.11 server" "no $LEGACY_QPERF"
fi
stop_server "$SERVER_PORT" "$SERVER_PID" "the softverbs server stops"
finish
