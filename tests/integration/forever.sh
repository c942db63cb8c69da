#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests of -t 0, a test run until interrupted: our
# client against our server (sockets, and RC over softverbs), SIGINT and
# SIGTERM ending it well (exit 0, interval lines, the final report, JSON
# valid against the schema, the stream's last line the end record), the
# client's memory flat over a long run, the server's --max_time bounding
# it, and the refusals (a qperf 0.4.11 server, usage errors).  Runs alone
# (bash tests/integration/forever.sh) or as tests/run.sh
# integration:forever.
#
# When to signal is learnt from the output (interval lines, or -D's
# "synchronization complete": the window has started), never from a sleep.
# The long run goes on in the background while the other checks run.

. "$(dirname "$0")/common.sh"
integration_server

IVL='^    [0-9]+\.[0-9]{2}-[0-9]+\.[0-9]{2} +sec  '
# bg NAME ARGS...: start our client against SERVER_PORT in the background, stdout in $T/NAME.out, stderr in $T/NAME.err; sets
# BG (its PID).
bg() {
	local name=$1
	shift
	"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" </dev/null &
	BG=$!
	track_pid "$BG"
}
# stop SIG PID NAME: signal client NAME (bg), wait for it, load its
# status and output as run() does.
stop() {
	stop_bg "$1" "$2" "$T/$3.out" "$T/$3.err"
}
# abandon PID NAME: a client whose awaited output never came: say what it
# printed and end it (it would hold one of the server's slots).
abandon() {
	kill -KILL "$1"
	wait "$1" 2>/dev/null
	fail "$3" "$(cat "$T/$2.out" "$T/$2.err")"
}
# (The polled predicates below return 0 or 1, never 2: for wait_for, 2
# means "give up", and a file not yet created is not a reason to.)
# lines_at_least N FILE RE: FILE has at least N lines matching RE.
lines_at_least() {
	local n
	n=$(grep -Ec -- "$3" "$2" 2>/dev/null)
	[ "${n:-0}" -ge "$1" ] 2>/dev/null
}
# started NAME: client NAME's measured window has started (-D).
started() {
	grep -qs '^synchronization complete$' "$T/$1.err" || return 1
}
# waits PID: the times the process has blocked so far (its voluntary
# context switches: a latency client blocks once per round trip).
waits() {
	awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$1/status" 2>/dev/null
}
# moving NAME PID: client NAME's window has started and it has blocked
# 500 times since (its round trips: progress counted, not timed).  Set
# W0= before polling it.
moving() {
	local w
	started "$1" || return 1
	w=$(waits "$2")
	[ -n "$w" ] || return 1
	[ -n "$W0" ] || W0=$w
	[ "$w" -ge $((W0 + 500)) ]
}
# rss PID FIELD: the process's FIELD (VmRSS, RssAnon) in KiB.
rss() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# --- the long run: memory flat while intervals go by -----------------------
# -I 0.1 --json_stream tcp_bw: one JSON line per interval and side, none
# kept.  Its RssAnon (heap and stacks) after 10 intervals and after 200
# must not differ by more than 256 KiB, and its VmRSS by more than 2 MiB.
# A --json document that keeps its intervals (a timed run: -t 0 refuses
# it) grows about 2.7 KiB per record here, 1 MiB by the 200th interval;
# a leak of 1 KiB per record would show as about 400 KiB.  Under ASan the
# quarantine of freed memory grows by design: the bound is not checked.
section long
long=
if checks_match "long" "$SECTION"; then
	bg long -t 0 -I 0.1 --json_stream tcp_bw
	long=$BG
	if wait_for 30 lines_at_least 10 "$T/long.out" '"type":"interval".*"side":"loc"'; then
		anon0=$(rss "$long" RssAnon) rss0=$(rss "$long" VmRSS)
	else
		abandon "$long" long "-t 0 -I 0.1 --json_stream: 10 intervals"
		long=
	fi
fi

# --- tcp_bw, SIGINT: interval lines and the whole run's report, exit 0 -------
section text
bg bw -t 0 -I 0.5 -uu -vvs tcp_bw
if wait_for 30 lines_at_least 3 "$T/bw.out" "${IVL}loc send "; then
	stop INT "$BG" bw
	expect "-t 0 -I 0.5 tcp_bw, SIGINT: exit 0, the report, nothing on stderr" \
		0 "$(L bw "$POS bytes/sec")" '^$'
	n=$(count_lines "${IVL}loc send ")
	nr=$(count_lines "${IVL}rem recv ")
	[ "$n" -ge 3 ] && [ "$nr" -ge 3 ] &&
		pass "-t 0 -I 0.5 tcp_bw, SIGINT: loc send and rem recv interval lines" ||
		fail "-t 0 -I 0.5 tcp_bw, SIGINT: loc send and rem recv interval lines" "$(ctx)"
	# The last interval lines are the final ones, and each side's lines
	# add up to its totals (-uu: exact integers): the report covers the
	# whole run.
	sum=$(awk '/ loc send / && /sec/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "bytes") { s += $i; break } } END { printf "%.0f", s }' "$OUT_FILE")
	sent=$(awk '$1 == "send_bytes" && $2 == "=" { gsub(",", "", $3); print $3 }' "$OUT_FILE")
	[ -n "$sent" ] && [ "$sum" = "$sent" ] &&
		pass "-t 0 tcp_bw, SIGINT: the interval lines add up to the report's send_bytes" ||
		fail "-t 0 tcp_bw, SIGINT: the interval lines add up to the report's send_bytes" "sum $sum, send_bytes $sent" "$(ctx)"
else
	abandon "$BG" bw "-t 0 -I 0.5 tcp_bw: three intervals"
fi

# --- tcp_lat, SIGTERM: the latency of the whole run --------------------------
bg lat -t 0 -D -uu -vvs tcp_lat
W0=
if wait_for 30 moving lat "$BG"; then
	stop TERM "$BG" lat
	expect "-t 0 tcp_lat, SIGTERM: exit 0, the latency" 0 \
		"$(L latency "$TIME")" 'sending synchronization after test'
	msgs=$(awk '$1 == "loc_recv_msgs" && $2 == "=" { print $3 }' "$OUT_FILE")
	[ "${msgs:-0}" -gt 0 ] &&
		pass "-t 0 tcp_lat, SIGTERM: round trips counted" ||
		fail "-t 0 tcp_lat, SIGTERM: round trips counted" "$(ctx)"
else
	abandon "$BG" lat "-t 0 tcp_lat: the window starts, round trips go on"
fi

# --- JSON: a document, and stream lines ending with the end record -----------
section json
if json_need; then
	bg jdoc -t 0 -D --json tcp_lat
	W0=
	if wait_for 30 moving jdoc "$BG"; then
		stop INT "$BG" jdoc
		expect "-t 0 --json tcp_lat, SIGINT: exit 0" 0 '' ''
		json_valid "-t 0 --json tcp_lat, SIGINT" doc
		json_assert "-t 0 --json tcp_lat, SIGINT: status ok, not interrupted, signal SIGINT, a latency" \
			"E['exit_status'] == 0 and E['interrupted'] is False and E['signal'] == 'SIGINT' and E['error'] is None and [t['status'] for t in tests] == ['ok'] and R['latency']['count'] > 0 and T0['params']['loc']['time_s'] == 0"
	else
		abandon "$BG" jdoc "-t 0 --json tcp_lat: the window starts, round trips go on"
	fi
	bg jst -t 0 -I 0.2 --json_stream tcp_bw
	if wait_for 30 lines_at_least 2 "$T/jst.out" '"type":"interval".*"side":"rem"'; then
		stop TERM "$BG" jst
		expect "-t 0 -I 0.2 --json_stream tcp_bw, SIGTERM: exit 0" 0 '' '^$'
		json_valid "-t 0 --json_stream tcp_bw, SIGTERM" stream
		json_assert "-t 0 --json_stream tcp_bw, SIGTERM: intervals, then the test (ok, figures), the end record last" \
			"[l['type'] for l in d][-2:] == ['test', 'end'] and E['exit_status'] == 0 and E['signal'] == 'SIGTERM' and E['interrupted'] is False and T0['status'] == 'ok' and R['send_bw_Bps'] > 0 and len([l for l in d if l['type'] == 'interval' and l['side'] == 'loc']) >= 2 and [l for l in d if l['type'] == 'interval' and l['side'] == 'loc'][-1]['last'] is True"
	else
		abandon "$BG" jst "-t 0 --json_stream tcp_bw: two server intervals"
	fi
fi

# --- refusals -------------------------------------------------------------------
section refusals
C -t 0 tcp_bw tcp_lat
expect "-t 0 with two tests: exit 2, said" 2 '^$' '^qperf: -t: 0: runs one test until interrupted'
C -t 0 --json -I 1 tcp_bw
expect "-t 0 -I --json: exit 2, points to --json_stream" 2 '^$' 'json_stream'
if start_legacy_server; then
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 0 tcp_bw
	expect "-t 0 against qperf 0.4.11: exit 1, refused before the test" 1 '' \
		'tcp_bw: -t 0 \(run until interrupted\) needs a server running qperf .* this server runs 0.4'
	check_alive "0.4.11 server still answers" "$LEGACY_PORT" "$LEGACY_PID"
else
	fail "qperf 0.4.11 server starts (scripts/install-deps --test)"
fi

# A signal before the window cuts the run short (130), also while the
# client waits for a server (-ws 600: under the 20 s of timeout(1), only a
# wait that the signal ended can exit 130 with qperf's own line).  The
# client waits before the test's header (the preflight of the host checks
# is the first connection): it is given a second to be in that wait.
dead=$(free_port)
timeout -k 2 20 "$QPERF" 127.0.0.1 -lp "$dead" -ws 600 -t 0 tcp_bw \
	>"$T/dead.out" 2>"$T/dead.err" </dev/null &
BG=$!
track_pid "$BG"
sleep 1
stop INT "$BG" dead
expect "-t 0, SIGINT while waiting for the server: exit 130, said" 130 '' \
	'^qperf: (interrupted by SIGINT|.*no qperf server at .*)$'

# --- the server's --max_time bounds a run until interrupted ---------------------
section max_time
keep_port=$SERVER_PORT keep_pid=$SERVER_PID
if start_server -- --max_time 1 --max_setup 1; then
	C -t 0 tcp_bw
	expect "-t 0 against --max_time 1: exit 1, the server's reason" 1 '' \
		'stopped by the server: a test run until interrupted \(-t 0\) must end within 1 s'
	has 'stopped tcp_bw from .* must end within 1 s' "$SERVER_LOG" &&
		pass "-t 0 against --max_time 1: the server logs it" ||
		fail "-t 0 against --max_time 1: the server logs it" "$(cat "$SERVER_LOG")"
else
	fail "a server with --max_time 1 starts"
fi
SERVER_PORT=$keep_port SERVER_PID=$keep_pid

# --- RDMA over softverbs: rc_bw with intervals, rc_lat ---------------------------
section rdma
SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
SV=(env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=qperf-forever-$$")
if ! "$QPERF" --version | grep -q 'rdma: built'; then
	fail "this qperf has the RDMA tests" "$("$QPERF" --version)"
elif [ ! -e "$SV_LIB/libibverbs.so.1" ]; then
	fail "softverbs is built ($SV_LIB/libibverbs.so.1)" "run make first"
elif ! start_server "${SV[@]}" SOFTVERBS_NODE=1 --; then
	fail "server over softverbs starts" "$(cat "$SERVER_LOG")"
else
	sv_bg() {
		local name=$1
		shift
		"${SV[@]}" SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			"$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null &
		BG=$!
		track_pid "$BG"
	}
	sv_bg rcbw -t 0 -I 0.5 rc_bw
	if wait_for 30 lines_at_least 2 "$T/rcbw.out" "${IVL}rem recv "; then
		stop INT "$BG" rcbw
		expect "-t 0 -I 0.5 rc_bw over softverbs, SIGINT: exit 0, intervals, the report" \
			0 "$(L bw "$BW")" '^$'
		has "${IVL}loc send " &&
			pass "-t 0 rc_bw over softverbs: loc send interval lines" ||
			fail "-t 0 rc_bw over softverbs: loc send interval lines" "$(ctx)"
	else
		abandon "$BG" rcbw "-t 0 rc_bw over softverbs: two server intervals"
	fi
	sv_bg rclat -t 0 -D rc_lat
	W0=
	if wait_for 30 moving rclat "$BG"; then
		stop TERM "$BG" rclat
		expect "-t 0 rc_lat over softverbs, SIGTERM: exit 0, the latency" \
			0 "$(L latency "$TIME")" ''
	else
		abandon "$BG" rclat "-t 0 rc_lat over softverbs: the window starts, round trips go on"
	fi
	stop_server "$SERVER_PORT" "$SERVER_PID" "softverbs server stops with quit"
	SERVER_PORT=$keep_port SERVER_PID=$keep_pid
fi

# --- the long run's end ------------------------------------------------------------
section long
if [ -n "$long" ] && [ -n "${anon0:-}" ]; then
	if wait_for 60 lines_at_least 200 "$T/long.out" '"type":"interval".*"side":"loc"'; then
		anon1=$(rss "$long" RssAnon) rss1=$(rss "$long" VmRSS)
		n=$(grep -c '"type":"interval"' "$T/long.out")
		stop INT "$long" long
		expect "-t 0 -I 0.1 --json_stream tcp_bw, after 200 intervals, SIGINT: exit 0" 0 '' '^$'
		if qperf_is_asan; then
			skip "-t 0 long run: memory flat" "an ASan build keeps freed memory in quarantine"
		else
			echo "# RssAnon $anon0 -> $anon1 KiB, VmRSS $rss0 -> $rss1 KiB over $n interval records"
		fi
		if qperf_is_asan; then
			:
		elif [ $((anon1 - anon0)) -le 256 ] && [ $((rss1 - rss0)) -le 2048 ]; then
			pass "-t 0 long run: memory flat (RssAnon +256 KiB, VmRSS +2 MiB at most)"
		else
			fail "-t 0 long run: memory flat (RssAnon +256 KiB, VmRSS +2 MiB at most)" \
				"RssAnon $anon0 -> $anon1 KiB, VmRSS $rss0 -> $rss1 KiB over $n interval records"
		fi
		json_need >/dev/null 2>&1 && json_valid "-t 0 long run" stream
	else
		abandon "$long" long "-t 0 -I 0.1 --json_stream: 200 intervals"
	fi
fi

check_alive "server still answers after the runs" "$SERVER_PORT" "$SERVER_PID"
finish
