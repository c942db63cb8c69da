#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compatibility with an early qperf 0.5 build, whose extension was a fixed
# 24-byte "QPX1" block: this build must still serve its client exactly,
# and fall back to the legacy dialect against its server (which rejects a
# TLV block as "bad request extension").  The early build is made from
# this repository's history (commit EARLY below), never downloaded.
. "$(dirname "$0")/../lib.sh"

EARLY=${EARLY_COMMIT:-bad2cad}
ROOT=$LIB_ROOT
if ! git -C "$ROOT" rev-parse --verify -q "$EARLY^{commit}" >/dev/null; then
	fail "the early 0.5 build ($EARLY) is in this clone's history" \
		"fetch the full history (git fetch --unshallow) to run this suite"
	finish
fi
mkdir -p "$T/early"
git -C "$ROOT" archive "$EARLY" | tar -x -C "$T/early"
if make -C "$T/early" NO_RDMA=1 qperf >"$T/early.log" 2>&1; then
	pass "early 0.5 build ($EARLY) made"
else
	fail "early 0.5 build ($EARLY) made" "$(tail -20 "$T/early.log")"
	finish
fi
EARLYQ=$T/early/qperf

# Our server, the early client: the 24-byte block is accepted and its
# exact time and -n are honoured.
start_server || { fail "our server starts"; finish; }
run "$EARLYQ" localhost -lp "$SERVER_PORT" -t 0.3 -vu tcp_lat
expect "early client -> our server: tcp_lat -t 0.3 (exact time)" 0 \
	'^    time +=  +300 ms' '^$'
run "$EARLYQ" localhost -lp "$SERVER_PORT" -n 2000 -vvs udp_lat
expect "early client -> our server: udp_lat -n 2000 honoured" 0 \
	'loc_send_msgs +=  +2,000' '^$'
run "$EARLYQ" localhost -lp "$SERVER_PORT" -t 0.3 udp_bw
expect "early client -> our server: udp_bw" 0 'recv_bw' '^$'
run "$EARLYQ" localhost -lp "$SERVER_PORT" conf
expect "early client -> our server: conf" 0 'rem_qperf += +0\.5\.0' '^$'

# The early server, our client: the TLV request is refused, the client
# retries in 0.4.11's dialect and the test runs.
SERVER_N=$((SERVER_N + 1))
pf=$T/port.early
"$EARLYQ" -lp 0 -lpf "$pf" >"$T/server.early.log" 2>&1 </dev/null &
track_pid $!
wait_for 10 server_up "$pf" || { fail "early server starts"; finish; }
EP=$(cat "$pf")
run "$QPERF" localhost -lp "$EP" -t 1 tcp_lat udp_lat
expect "our client -> early server: falls back, tcp_lat and udp_lat run" 0 \
	'^    latency  = ' ''
[ "$(grep -c '^    latency' "$OUT_FILE")" = 2 ] &&
	pass "our client -> early server: two reports" ||
	fail "our client -> early server: two reports" "$(ctx)"
has 'bad request extension' "$T/server.early.log" &&
	pass "the early server saw our TLV block and refused it by name" ||
	fail "the early server saw our TLV block and refused it by name" \
		"$(cat "$T/server.early.log")"
run "$QPERF" localhost -lp "$EP" -n 100 udp_bw
expect "our client -> early server: -n udp_bw refused in the legacy dialect" 1 \
	'' 'udp_bw with -n needs a server running qperf'
run "$QPERF" localhost -lp "$EP" -t 1 -vu tcp_bw
expect "our client -> early server: tcp_bw" 0 '^    bw +=' ''
finish
