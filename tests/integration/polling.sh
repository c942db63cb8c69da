#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests, -cp1 polling and udp_bw sendmmsg batching: our
# client against our server. Runs alone (bash tests/integration/polling.sh)
# or as tests/run.sh integration:polling; tests/integration/common.sh has
# the shared set-up and helpers.

. "$(dirname "$0")/common.sh"

integration_server

# --- -cp1: socket tests spin on non-blocking sockets ---------------------------
C -t $TT -cp1 tcp_lat
expect "-cp1 tcp_lat exit 0, reports latency" 0 "$(L latency "$TIME")" '^$'
# A spinning end on a loaded 2-CPU machine can be descheduled for longer
# than the loss wait (50 ms or more): that exchange is counted lost and
# restarted, which is said on stderr; nothing else may be.
C -t $TT -cp1 udp_lat
if [ "$RC" = 0 ] && has "^$(L latency "$TIME")\$" &&
	! grep -qv 'warning: udp_lat: [0-9,]* messages* lost' "$ERR_FILE"; then
	pass "-cp1 udp_lat exit 0, reports latency"
else
	fail "-cp1 udp_lat exit 0, reports latency" "$(ctx)"
fi
C -t $TT -cp1 tcp_bw
expect "-cp1 tcp_bw exit 0, reports bw" 0 "$(L bw "$BW")" '^$'
C -t $TT -cp1 udp_bw
expect "-cp1 udp_bw exit 0, reports recv_bw" 0 "$(L recv_bw "$BW")" '^$'
C -t $TT -cp1 -vu tcp_lat
expect "-cp1 -vu tcp_lat: poll_mode shown as a used parameter" 0 \
	"$(L poll_mode '1 ')" '^$'
C -t $TT -lcp1 -vu udp_lat
expect "-lcp1 -vu udp_lat: loc_poll_mode shown" 0 "$(L loc_poll_mode '1 ')" '^$'
C -cp1 -n 2000 -vvs tcp_lat
expect "-cp1 -n 2000 tcp_lat: count mode ends" 0 "$(L loc_send_msgs '2,000 ')\$"
C -cp1 -n 2000 -vvs udp_lat
expect "-cp1 -n 2000 udp_lat: count mode ends" 0 "$(L loc_send_msgs '2,000 ')\$"
C -cp1 -n 2000 -vvs tcp_bw
expect "-cp1 -n 2000 tcp_bw: count mode ends, every message received" 0 \
	"$(L recv_msgs '2,000 ')\$"

# --- udp_bw: sendmmsg batches of small messages between 0.5 peers ----------
# recv_msgs_ok NAME SENT: the last -vv udp_bw run sent exactly SENT
# messages and received at least one and at most SENT (UDP may drop).
recv_msgs_ok() {
	local r s
	s=$(awk '$1 == "send_msgs" { gsub(",", "", $3); print $3 }' "$OUT_FILE")
	r=$(awk '$1 == "recv_msgs" { gsub(",", "", $3); print $3 }' "$OUT_FILE")
	if [ "$RC" = 0 ] && [ "$s" = "$2" ] && [ -n "$r" ] &&
		[ "$r" -ge 1 ] && [ "$r" -le "$2" ]; then
		pass "$1 (received $r)"
	else
		fail "$1" "$(ctx)"
	fi
}
C -n 5000 -m 64 -vv udp_bw
recv_msgs_ok "udp_bw -n 5000 -m 64 (batched): 5,000 sent, 1..5,000 received" 5000
C -n 3001 -m 1K -cp1 -vv udp_bw
recv_msgs_ok "udp_bw -cp1 -n 3001 (batched, spinning): 3,001 sent" 3001
C -n 7 -m 1 -vv udp_bw
recv_msgs_ok "udp_bw -n 7 -m 1 (a count below one batch)" 7
C -t $TT -ar1 -m 1K udp_bw
expect "udp_bw -ar1 -m 1K (batched sender)" 0 "$(L recv_bw "$BW")" '^$'
# mmsg_seen NAME YES|NO ENV-WORD ARGS...: a -n 200 udp_bw client run with
# ARGS (env ENV-WORD; QPERF_X=0 sets nothing that matters) makes
# sendmmsg() calls of 16 datagrams (YES) or none (NO).
mmsg_seen() {
	local name=$1 want=$2 ev=$3 got=NO
	shift 3
	run env "$ev" strace -f -e trace=sendmmsg -o "$T/strace.udp" \
		"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -n 200 "$@" udp_bw
	grep -Eq 'sendmmsg\(.*, 16, MSG_NOSIGNAL\) = [0-9]+' "$T/strace.udp" && got=YES
	if [ "$RC" = 0 ] && [ "$got" = "$want" ]; then
		pass "$name"
	else
		fail "$name" "sendmmsg of 16 seen: $got" "$(ctx)" "$(head -5 "$T/strace.udp")"
	fi
}
if command -v strace >/dev/null; then
	mmsg_seen "udp_bw -m 64: the client sends 16 datagrams per sendmmsg" YES \
		QPERF_X=0 -m 64
	mmsg_seen "udp_bw -m 4K: still batched" YES QPERF_X=0 -m 4K
	mmsg_seen "udp_bw -m 32K: one datagram per call" NO QPERF_X=0 -m 32K
	mmsg_seen "QPERF_NO_MMSG=1: one datagram per call" NO QPERF_NO_MMSG=1 -m 64
else
	skip "udp_bw sendmmsg checks" "no strace (scripts/install-deps --test)"
fi

# spin_peer_gone NAME SIGNAL WANT-STDERR ARGS...: a -cp1 client whose
# server's child gets SIGNAL mid-test must end within the timeout (-to 2)
# and a few seconds, exit 1, saying WANT-STDERR.
spin_peer_gone() {
	local name=$1 sig=$2 want=$3 cpid kid t0 el old
	shift 3
	old=$(ps -o pid= --ppid "$SERVER_PID" 2>/dev/null | tr '\n' ' ')
	"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -to 2 "$@" >"$T/spin.out" 2>"$T/spin.err" </dev/null &
	cpid=$!
	track_pid "$cpid"
	kid=
	for _ in $(seq 100); do
		kid=$(server_child "$old")
		[ -n "$kid" ] && grep -q 'State:.*[RS]' "/proc/$kid/status" 2>/dev/null && break
		sleep 0.05
	done
	sleep 0.5
	t0=$SECONDS
	[ -n "$kid" ] && kill -"$sig" "$kid" 2>/dev/null
	wait_for 12 pid_gone "$cpid"
	el=$((SECONDS - t0))
	if pid_gone "$cpid"; then
		wait "$cpid"
		RC=$?
	else
		RC=124
	fi
	[ -n "$kid" ] && kill -CONT "$kid" 2>/dev/null
	OUT=$(cat "$T/spin.out") ERR=$(cat "$T/spin.err")
	if [ -n "$kid" ] && [ "$RC" = 1 ] && [ "$el" -le 10 ] &&
		grep -Eq -- "$want" "$T/spin.err"; then
		pass "$name (${el}s)"
	else
		fail "$name" "server child '$kid', ended after ${el}s" \
			"rc=$RC" "--- stderr:" "$ERR"
	fi
}
spin_peer_gone "-cp1 tcp_lat, server child stopped: the idle limit ends the spin" \
	STOP 'stalled|timed out' -cp1 -n 100000000 tcp_lat
check_alive "server answers after a stopped -cp1 child" "$SERVER_PORT" "$SERVER_PID"
spin_peer_gone "-cp1 tcp_lat, server child killed: the client ends" \
	KILL '^qperf: ' -cp1 -t 30 tcp_lat
spin_peer_gone "-cp1 -t 3 udp_lat, server child stopped: the timer ends the spin" \
	STOP '^qperf: ' -cp1 -t 3 udp_lat
check_alive "server answers after the -cp1 peer tests" "$SERVER_PORT" "$SERVER_PID"


finish
