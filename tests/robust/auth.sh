#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Shared-secret authentication (--secret_file, issue 7 point 9): the file's
# rules, the right, a wrong and no secret, quit, a replayed proof and a
# fake server (tests/robust/authpeer.py, which implements the exchange
# from docs/protocol.md with Python's hmac), the client's refusal of a
# server that does not check the secret, and the RDMA tests (softverbs)
# behind the same check.  0.4.11 in both directions: tests/interop.
#
# Run alone (bash tests/robust/auth.sh) or sourced by harden.sh.
if [ -z "${LIB_ROOT-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	AUTH_ALONE=1
fi
APEER=$LIB_ROOT/tests/robust/authpeer.py

# secret NAME TEXT MODE: a secret file in $T; prints its path.
secret() {
	printf '%s\n' "$2" >"$T/$1"
	chmod "$3" "$T/$1"
	echo "$T/$1"
}
KEY=$(secret key "$(head -c 32 /dev/urandom | base64)" 600)
OTHER=$(secret other "not the server's" 600)
OPEN=$(secret open "x" 644)
GROUP=$(secret group "x" 640)
EMPTY=$(secret empty "" 600)

# --- the secret file ---------------------------------------------------------
run "$QPERF" -lp 0 --secret_file "$OPEN"
expect "server, secret file mode 0644: refused, names the file and mode" 1 '^$' \
	"^qperf: --secret_file: \"$OPEN\" has mode 0644: group or others may access it; chmod 600 it\$"
run "$QPERF" -lp 0 -sf "$GROUP"
expect "server, secret file mode 0640: refused" 1 '^$' 'has mode 0640: group or others'
run "$QPERF" -lp 0 -sf "$EMPTY"
expect "server, empty secret file: refused" 1 '^$' \
	"^qperf: --secret_file: \"$EMPTY\" is empty; "
run "$QPERF" -lp 0 -sf "$T/none"
expect "server, missing secret file: refused" 1 '^$' \
	"^qperf: --secret_file: cannot open \"$T/none\": No such file or directory\$"
run env QPERF_SECRET_FILE="$OPEN" "$QPERF" 127.0.0.1 -lp 1 tcp_lat
expect "client, QPERF_SECRET_FILE mode 0644: refused before connecting, names it" \
	1 '^$' "^qperf: QPERF_SECRET_FILE: \"$OPEN\" has mode 0644"

# --- a server that requires the secret -------------------------------------
# auth_stop NAME: quit with the secret; the server must exit 0.
auth_stop() {
	local st=124
	timeout -k 2 15 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$KEY" quit \
		>/dev/null 2>&1 </dev/null
	if wait_for 10 pid_gone "$SERVER_PID"; then
		wait "$SERVER_PID"
		st=$?
	fi
	[ "$st" = 0 ] && pass "$1" || fail "$1" "status $st" "$(cat "$SERVER_LOG")"
}
if start_server -- -lto 2 --secret_file "$KEY"; then
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$KEY" -t 0.3 conf \
		tcp_bw tcp_lat udp_bw udp_lat
	[ "$RC" = 0 ] && [ "$(count_lines '^    (bw|send_bw|latency)  ')" = 4 ] &&
		has '^    rem_qperf' &&
		pass "the right secret (-sf): conf and the four socket tests" ||
		fail "the right secret (-sf): conf and the four socket tests" "$(ctx)"
	run env QPERF_SECRET_FILE="$KEY" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
		-t 0.3 tcp_lat
	expect "the right secret from QPERF_SECRET_FILE" 0 '^    latency'
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$OTHER" -t 0.3 tcp_lat
	expect "a wrong secret: one clear line, exit 1" 1 '' \
		"^qperf: server: authentication failed: wrong shared secret \(the client's --secret_file differs from the server's\)\$"
	[ "$(wc -l <"$ERR_FILE")" = 1 ] && pass "... and only that line" ||
		fail "... and only that line" "$(ctx)"
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 0.3 tcp_lat
	expect "no secret: told the server requires one, exit 1" 1 '' \
		'^qperf: server: this server requires a shared secret: give the client --secret_file FILE \(or QPERF_SECRET_FILE\)'
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" quit
	expect "quit without the secret: refused" 1 '' 'requires a shared secret'
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$OTHER" quit
	expect "quit with a wrong secret: refused" 1 '' 'wrong shared secret'
	check_running() { ! pid_gone "$SERVER_PID"; }
	check "... the server runs on" check_running

	# An independent implementation (Python's hmac) of docs/protocol.md.
	run python3 "$APEER" client 127.0.0.1 "$SERVER_PORT" "$KEY" conf
	expect "docs/protocol.md's exchange, done by authpeer.py: accepted, both proofs check" \
		0 '^auth ok$'
	run python3 "$APEER" client 127.0.0.1 "$SERVER_PORT" "$KEY" replay
	expect "a recorded proof replayed on a new connection (new server nonce): refused" \
		0 "^reply after .* urgent=\\? eof=yes .*text=.authentication failed: wrong shared secret"
	has '^replay nonce_differs=yes$' &&
		pass "... the server's nonce did differ" ||
		fail "... the server's nonce did differ" "$(ctx)"
	has '^fresh ok$' && pass "... while a fresh proof for the same request is accepted" ||
		fail "... while a fresh proof for the same request is accepted" "$(ctx)"
	run python3 "$APEER" client 127.0.0.1 "$SERVER_PORT" "$KEY" noproof
	expect "a proof block without the MAC: refused" 0 \
		"urgent=\\? eof=yes .*text='authentication failed: no proof of the shared secret'"
	run -t 30 python3 "$APEER" client 127.0.0.1 "$SERVER_PORT" "$KEY" stall
	t=$(sed -n 's/^reply after \([0-9.]*\) .*/\1/p' "$OUT_FILE")
	# -lto 2, or the 2 s the server gives a connection to authenticate:
	# whichever fires first is the text's start (when both fire at once,
	# on a loaded machine, the other's text follows it in the stream).
	[ -n "$t" ] && has "urgent=\\? .*text='(failed to receive authentication: timed out|request stopped by the server: no proof of the shared secret within 2 s)" &&
		awk -v t="$t" 'BEGIN { exit !(t <= 3.5) }' &&
		pass "a client that never sends its proof is dropped after -lto (${t}s)" ||
		fail "a client that never sends its proof is dropped after -lto" "$(ctx)"
	n=$(grep -Ec '^qperf: refused (quit from )?127\.0\.0\.1: ' "$SERVER_LOG")
	has '^qperf: refused 127\.0\.0\.1: authentication failed: wrong shared secret' "$SERVER_LOG" &&
		has '^qperf: refused 127\.0\.0\.1: this server requires a shared secret: ' "$SERVER_LOG" &&
		has '^qperf: refused quit from 127\.0\.0\.1: authentication failed: wrong shared secret' "$SERVER_LOG" &&
		[ "$n" = 6 ] &&
		pass "the server logs each refused client, with its address and why ($n)" ||
		fail "the server logs each refused client, with its address and why" \
			"$n lines" "$(cat "$SERVER_LOG")"
	check_alive_key() {
		run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$KEY" conf
		[ "$RC" = 0 ] && has '^    rem_qperf'
	}
	check "after every refusal the server still serves" check_alive_key

	# RDMA tests go through the same check (softverbs, when built).
	SV=$LIB_ROOT/softverbs/build
	if [ -e "$SV/libibverbs.so.1" ] && "$QPERF" --version | grep -q 'rdma: built'; then
		auth_stop "server with a secret: quit with the secret (exit 0)"
		AUTH_STOP_NAME="softverbs server with a secret: quit with the secret (exit 0)"
		if start_server env SOFTVERBS_NODE=1 LD_LIBRARY_PATH="$SV" -- \
			--secret_file "$KEY"; then
			run -t 40 env SOFTVERBS_NODE=2 LD_LIBRARY_PATH="$SV" "$QPERF" \
				127.0.0.1 -lp "$SERVER_PORT" -sf "$KEY" -t 0.3 rc_bw ud_lat
			expect "RDMA (softverbs) with the secret: rc_bw and ud_lat run" 0 \
				'^    latency'
			run -t 40 env SOFTVERBS_NODE=2 LD_LIBRARY_PATH="$SV" "$QPERF" \
				127.0.0.1 -lp "$SERVER_PORT" -t 0.3 rc_bw
			expect "RDMA (softverbs) without the secret: refused" 1 '' \
				'^qperf: server: this server requires a shared secret'
		else
			fail "softverbs server with a secret starts" "$(cat "$SERVER_LOG")"
		fi
	else
		skip "RDMA tests with a secret" "no softverbs build"
	fi
	auth_stop "${AUTH_STOP_NAME:-server with a secret: quit with the secret (exit 0)}"
else
	fail "server with --secret_file starts" "$(cat "$SERVER_LOG")"
fi

# --- a client with a secret refuses servers that do not check one ----------
if start_server; then
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$KEY" -t 0.3 tcp_lat
	expect "client with a secret, server without: refused, one line, exit 1" 1 '' \
		'^qperf: a shared secret was given, but the server \(qperf 0\.5\.[0-9]+\) does not check one: it was started without --secret_file; refusing to run tests with it$'
	run env QPERF_SECRET_FILE= "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 0.3 tcp_lat
	expect "... an empty QPERF_SECRET_FILE means no secret" 0 '^    latency'
	stop_server "$SERVER_PORT" "$SERVER_PID"
else
	fail "server without a secret starts"
fi
rm -f "$T/fake.port"
python3 "$APEER" fake-server "$T/fake.port" "$KEY" >/dev/null 2>&1 &
fpid=$!
track_pid $fpid
if wait_for 10 test -s "$T/fake.port"; then
	run "$QPERF" 127.0.0.1 -lp "$(cat "$T/fake.port")" -sf "$KEY" conf
	expect "a server that asks for the secret but cannot prove it: refused" 1 '' \
		'^qperf: the server failed to prove it has the shared secret'
else
	fail "fake server starts"
fi
kill $fpid 2>/dev/null
wait $fpid 2>/dev/null

[ -n "${AUTH_ALONE-}" ] && finish
