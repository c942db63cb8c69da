#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The server against strangers and its own limits (issue 17 items 7, 8, 9
# and two of 16): silent connections without the secret cannot hold a
# --secret_file server's slots, running out of descriptors does not make
# it spin, every quit (served or refused) is logged with the client's
# address, a 4096-byte secret with its newline is accepted, and -lh takes
# an IPv4-mapped IPv6 address.  Each case failed on the code before its fix.
#
# Run alone (bash tests/robust/server17.sh) or sourced by run.sh.
if [ -z "${LIB_ROOT-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	S17_ALONE=1
fi
HOLD=$LIB_ROOT/tests/robust/holdconn.py

# cpu_ticks PID: user + system CPU time of PID so far, in clock ticks.
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

# hold_start OUT ARGS...: holdconn.py ARGS in the background (HOLD_PID),
# output in OUT; returns once it has opened its connections.
hold_start() {
	local out=$1
	shift
	python3 "$HOLD" "$@" >"$out" 2>&1 &
	HOLD_PID=$!
	track_pid $HOLD_PID
	wait_for 30 in_file "$out" '^ready$'
}
# hold_stop: end it (SIGTERM: it prints its summary), and wait.
hold_stop() {
	kill -TERM "$HOLD_PID" 2>/dev/null
	wait "$HOLD_PID" 2>/dev/null
}
in_file() {
	[ -f "$1" ] && grep -Eq -- "$2" "$1"
}

# s17_stop KEY: quit with the secret in KEY; the server must exit 0.
s17_stop() {
	local st=124
	timeout -k 2 15 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$1" quit \
		>/dev/null 2>&1 </dev/null
	if wait_for 10 pid_gone "$SERVER_PID"; then
		wait "$SERVER_PID"
		st=$?
	fi
	[ "$st" = 0 ] || fail "server with a secret: quit with it (exit 0)" "status $st"
}

# --- 16. -lh with an IPv4-mapped IPv6 address -----------------------------------
# A v6-only socket cannot bind ::ffff:a.b.c.d (EINVAL): it is a.b.c.d.
if start_server -- -lh ::ffff:127.0.0.1; then
	on=$(ss -ltnH "sport = :$SERVER_PORT" | awk '{ print $4 }')
	[ "$on" = "127.0.0.1:$SERVER_PORT" ] &&
		pass "-lh ::ffff:127.0.0.1: listens on 127.0.0.1 ($on)" ||
		fail "-lh ::ffff:127.0.0.1: listens on 127.0.0.1" "$on"
	run -t 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 0.3 tcp_lat
	expect "-lh ::ffff:127.0.0.1: a client of 127.0.0.1 is served" 0 '^    latency'
	stop_server "$SERVER_PORT" "$SERVER_PID"
else
	fail "-lh ::ffff:127.0.0.1: the server starts" "$(cat "$SERVER_LOG")"
fi

# --- 16. the largest secret, followed by its newline -----------------------------
S17_KEY=$T/s17.key
{ head -c 4096 /dev/zero | tr '\0' k; echo; } >"$S17_KEY"
chmod 600 "$S17_KEY"
if start_server -- -sf "$S17_KEY"; then
	run -t 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$S17_KEY" conf
	expect "a 4096-byte secret and its newline: server and client use it" 0 \
		'^    rem_qperf'
	s17_stop "$S17_KEY"
else
	fail "a 4096-byte secret and its newline: the server starts" "$(cat "$SERVER_LOG")"
fi
{ head -c 4097 /dev/zero | tr '\0' k; echo; } >"$T/s17.long"
chmod 600 "$T/s17.long"
run "$QPERF" -lp 0 -sf "$T/s17.long"
expect "a 4097-byte secret: refused, naming the limit" 1 '^$' \
	"^qperf: --secret_file: \"$T/s17\\.long\" is longer than 4096 bytes, the most a secret may have"

# --- 9. every quit in the log, with the client's address -------------------------
if start_server; then
	run -t 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" quit
	expect "quit (default): served" 0
	if wait_for 10 pid_gone "$SERVER_PID" &&
		has '^qperf: quit from 127\.0\.0\.1: stopping the server$' "$SERVER_LOG"; then
		pass "quit served: the log says who stopped the server"
	else
		fail "quit served: the log says who stopped the server" "$(cat "$SERVER_LOG")"
	fi
else
	fail "server starts (quit log)"
fi
if start_server -- --no_quit; then
	run -t 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" quit
	expect "--no_quit: quit refused" 1 '' 'quit refused'
	has '^qperf: refused quit from 127\.0\.0\.1: the server runs with --no_quit$' "$SERVER_LOG" &&
		pass "quit refused: the log names the client" ||
		fail "quit refused: the log names the client" "$(cat "$SERVER_LOG")"
	kill -TERM "$SERVER_PID"
	wait_for 10 pid_gone "$SERVER_PID"
else
	fail "server with --no_quit starts (quit log)"
fi

# --- 8. out of descriptors: no spinning on accept() ----------------------------
# Under ulimit -n 32 the parent holds two descriptors per child; 20 idle
# connections (that never read what the server says) use them up.  The
# old server retried accept() at once, forever: 444,446 log lines and
# 3.1 s of CPU in 4 s.
if start_server sh -c 'ulimit -n 32 && exec "$@"' sh -- -lto 3 --max_per_client 16; then
	hold_start "$T/s17.idle" 127.0.0.1 "$SERVER_PORT" 127.0.0.1 20 60 deaf
	sleep 0.5 # the server takes what it can
	c0=$(cpu_ticks "$SERVER_PID")
	sleep 2
	c1=$(cpu_ticks "$SERVER_PID")
	hold_stop
	lines=$(wc -l <"$SERVER_LOG")
	used=$((c1 - c0))
	if has '^held 20 opened' "$T/s17.idle" && [ "$used" -le $((HZ / 4)) ]; then
		pass "ulimit -n 32, 20 idle connections for 2 s: the server used $used/$HZ s of CPU"
	else
		fail "ulimit -n 32, 20 idle connections for 2 s: at most 0.25 s of CPU" \
			"used $used ticks of $HZ/s" "$(cat "$T/s17.idle")" "$(head -n 5 "$SERVER_LOG")"
	fi
	# One line, and one per connection at most besides.
	n=$(grep -c '^qperf: cannot take new connections: Too many open files (ulimit -n is 32)' "$SERVER_LOG")
	if [ "$n" = 1 ] && [ "$lines" -le 25 ]; then
		pass "ulimit -n 32: said so once ($lines log lines)"
	else
		fail "ulimit -n 32: said so once" "$n such, $lines log lines" "$(head -n 5 "$SERVER_LOG")"
	fi
	# The idle ones are gone: a client is served again.
	s17_served() {
		timeout -k 2 10 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 0.3 tcp_lat \
			>"$T/s17.out" 2>&1 && grep -q '^    latency' "$T/s17.out"
	}
	if wait_for 10 s17_served; then
		pass "ulimit -n 32: after the idle connections, a client is served"
	else
		fail "ulimit -n 32: after the idle connections, a client is served" \
			"$(cat "$T/s17.out" "$SERVER_LOG")"
	fi
	stop_server "$SERVER_PORT" "$SERVER_PID"
else
	fail "server under ulimit -n 32 starts" "$(cat "$SERVER_LOG")"
fi

# --- 7. without the secret, no slot ------------------------------------------
# Eight addresses with no secret keep 48 silent connections open and
# reopen each one dropped; the old server gave each a slot until
# --max_setup, so all 16 were taken and real clients were told `server
# busy'.  Three tests by a client with the secret must run meanwhile.
S17_K2=$T/s17.k2
head -c 32 /dev/urandom | base64 >"$S17_K2"
chmod 600 "$S17_K2"
if start_server -- -sf "$S17_K2"; then
	srcs=$(seq -s, -f '127.0.0.%g' 2 9)
	hold_start "$T/s17.hold" 127.0.0.1 "$SERVER_PORT" "$srcs" 6 60 reopen
	sleep 1 # the server has taken them in
	ok=0
	for i in 1 2 3; do
		run -t 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$S17_K2" -t 0.3 tcp_lat
		[ "$RC" = 0 ] && has '^    latency' && ok=$((ok + 1))
		[ "$RC" = 0 ] || cp "$ERR_FILE" "$T/s17.err"
	done
	# The attack went on all along.
	pid_gone "$HOLD_PID" && ok="$ok (the holder ended early)"
	hold_stop
	if [ "$ok" = 3 ] && grep -Eq '^held [0-9]+ opened [1-9][0-9]* dropped' "$T/s17.hold"; then
		pass "48 silent connections from 8 addresses without the secret: 3 of 3 tests with it run ($(grep "^held" "$T/s17.hold"))"
	else
		fail "48 silent connections from 8 addresses without the secret: 3 of 3 tests with it run" \
			"$ok of 3" "$(cat "$T/s17.hold" "$T/s17.err" 2>/dev/null)" "$(tail -n 5 "$SERVER_LOG")"
	fi
	n=$(grep -c '^qperf: dropped unauthenticated connection from 127\.0\.0\.[2-9]: ' "$SERVER_LOG")
	[ "$n" -ge 1 ] && [ "$n" -le 3 ] &&
		pass "dropped unauthenticated connections: logged, at most one line per 10 s ($n)" ||
		fail "dropped unauthenticated connections: logged, at most one line per 10 s" \
			"$n lines" "$(head -n 5 "$SERVER_LOG")"
	s17_stop "$S17_K2"
else
	fail "server with a secret starts (slots)" "$(cat "$SERVER_LOG")"
fi

[ -n "${S17_ALONE-}" ] && finish
