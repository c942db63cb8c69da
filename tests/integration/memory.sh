#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests, memory bounds (client RSS, server VmHWM): our
# client against our server. Runs alone (bash tests/integration/memory.sh)
# or as tests/run.sh integration:memory; tests/integration/common.sh has the
# shared set-up and helpers.

. "$(dirname "$0")/common.sh"

integration_server

# --- memory stays bounded (msg size x depth + a constant) ---------------------
# client_rss ARGS...: a client run under GNU time; RSS = its peak RSS
# (KiB), and RC, OUT, ERR as run sets them.
GNU_TIME=${GNU_TIME:-/usr/bin/time}
# glibc raises its mmap threshold after the first 1 MiB buffer is freed, so
# later buffers come from the heap and the peak varies by ~300 KiB from run
# to run (CI saw 50 --loop runs 376 KiB above 5); the fixed default
# threshold keeps every 1 MiB buffer an mmap and the peak within ~170 KiB.
# Small per-run leaks are LeakSanitizer's job (tests/sanitize, --loop).
client_rss() {
	run env MALLOC_MMAP_THRESHOLD_=131072 "$GNU_TIME" -f %M -o "$T/rss" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@"
	RSS=$(tail -1 "$T/rss")
}
hwm() { # PID: VmHWM in KiB
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status" 2>/dev/null
}
# bounded NAME VALUE LIMIT: VALUE (KiB) <= LIMIT (KiB).
bounded() {
	if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -le "$3" ]; then
		pass "$1 ($2 KiB <= $3 KiB)"
	else
		fail "$1" "got '$2' KiB, limit '$3' KiB" "$(ctx)"
	fi
}
# long_hwm NAME SECS LIMIT ARGS...: a -t SECS run of ARGS; the server's
# child serving it has a VmHWM within LIMIT KiB at 1 s and does not grow
# from 1 s to 2.5 s (+64 KiB).
long_hwm() {
	local name=$1 secs=$2 limit=$3 old lpid lrc kid h1 h2
	shift 3
	old=$(ps -o pid= --ppid "$SERVER_PID" 2>/dev/null | tr '\n' ' ')
	"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t "$secs" "$@" >"$T/long.out" 2>&1 </dev/null &
	lpid=$!
	track_pid "$lpid"
	# The test's child: a new child still there 0.1 s later (the
	# client's preflight is served by a short-lived child of its own).
	kid=
	for _ in $(seq 100); do
		kid=$(server_child "$old")
		if [ -n "$kid" ]; then
			sleep 0.1
			[ -d "/proc/$kid" ] && break
			old="$old $kid"
			kid=
			continue
		fi
		sleep 0.05
	done
	sleep 1
	h1=$(hwm "$kid")
	sleep 1.5
	h2=$(hwm "$kid")
	wait "$lpid"
	lrc=$?
	[ "$lrc" = 0 ] && grep -Eq '^    (bw|recv_bw)  =  ' "$T/long.out" &&
		pass "rss: -t $secs $name long run" ||
		fail "rss: -t $secs $name long run" "rc=$lrc" "$(cat "$T/long.out")"
	bounded "rss: server child of a long $name run within $limit KiB" "$h1" "$limit"
	bounded "rss: server child's VmHWM of $name does not grow from 1 s to 2.5 s (+64 KiB)" \
		"$h2" $((h1 + 64))
}
if [ -x "$GNU_TIME" ]; then
	MIB=1024
	client_rss conf
	base=$RSS
	client_rss -m 1M -n 50 tcp_bw
	one=$RSS
	[ "$RC" = 0 ] || fail "rss: one tcp_bw -m 1M -n 50 run" "$(ctx)"
	s0=$(hwm "$SERVER_PID")
	client_rss -m 1M --loop no_msgs:1:5:+1 tcp_bw
	five=$RSS
	[ "$RC" = 0 ] && [ "$(count_lines '^tcp_bw:$')" = 5 ] ||
		fail "rss: --loop of 5 tcp_bw runs" "$(ctx)"
	s5=$(hwm "$SERVER_PID")
	client_rss -m 1M --loop no_msgs:1:50:+1 tcp_bw
	fifty=$RSS
	[ "$RC" = 0 ] && [ "$(count_lines '^tcp_bw:$')" = 50 ] &&
		pass "rss: --loop of 50 tcp_bw -m 1M runs" ||
		fail "rss: --loop of 50 tcp_bw -m 1M runs" "$(ctx)"
	s50=$(hwm "$SERVER_PID")
	# One 1 MiB buffer, and malloc may keep a freed one: 2 x msg_size x
	# depth (1) over the conf run's footprint, plus 1 MiB.
	bounded "rss: client of one 1 MiB tcp_bw within conf + 2 MiB + 1 MiB" \
		"$one" $((base + 3 * MIB))
	bounded "rss: client of 50 --loop runs within conf + 2 MiB + 1 MiB" \
		"$fifty" $((base + 3 * MIB))
	bounded "rss: client of 50 --loop runs no more than 5 runs' + 512 KiB" \
		"$fifty" $((five + 512))
	bounded "rss: server parent (VmHWM) grows less than 256 KiB over 55 requests" \
		"$s50" $((s0 + 256))
	[ -n "$s5" ] || fail "rss: server VmHWM readable"
	long_hwm "tcp_bw -m 1M" 4 $((s50 + 3 * MIB)) -m 1M tcp_bw
	# udp_bw (depth 16, batched sends of small messages): one buffer.
	long_hwm "udp_bw -m 1K" 4 $((s50 + 2 * 16 + MIB)) -m 1K udp_bw
	long_hwm "udp_bw -m 32K" 4 $((s50 + 2 * 32 + MIB)) -m 32K udp_bw
else
	skip "rss checks" "no GNU time at $GNU_TIME (scripts/install-deps --test)"
fi


finish
