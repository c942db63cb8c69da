#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests, the basics (the four socket tests, conf, help,
# errors to stderr, quit): our client against our server. Runs alone (bash
# tests/integration/basic.sh) or as tests/run.sh integration:basic;
# tests/integration/common.sh has the shared set-up and helpers.

. "$(dirname "$0")/common.sh"

integration_server
pass "server starts and publishes its port ($SERVER_PORT)"

# --- the four socket tests, default layout --------------------------------
C -t $TT tcp_bw
expect "tcp_bw exit 0, nothing on stderr" 0 '' '^$'
match_lines "tcp_bw layout" "$OUT_FILE" 'tcp_bw:' "$(L bw "$BW")"
C -t $TT tcp_lat
expect "tcp_lat exit 0" 0 '' '^$'
match_lines "tcp_lat layout" "$OUT_FILE" 'tcp_lat:' "$(L latency "$TIME")"
C -t $TT udp_bw
expect "udp_bw exit 0" 0 '' '^$'
match_lines "udp_bw layout" "$OUT_FILE" 'udp_bw:' \
	"$(L send_bw "$BW")" "$(L recv_bw "$BW")"
aligned "udp_bw aligned"
C -t $TT udp_lat
expect "udp_lat exit 0" 0 '' '^$'
match_lines "udp_lat layout" "$OUT_FILE" 'udp_lat:' "$(L latency "$TIME")"

# Several tests on one command line, one header each, no blank lines.
C -t $TT tcp_bw tcp_lat udp_bw udp_lat
expect "four tests in one run exit 0" 0
match_lines "four tests in one run layout" "$OUT_FILE" \
	'tcp_bw:' "$(L bw "$BW")" 'tcp_lat:' "$(L latency "$TIME")" \
	'udp_bw:' "$(L send_bw "$BW")" "$(L recv_bw "$BW")" \
	'udp_lat:' "$(L latency "$TIME")"

# --- conf ----------------------------------------------------------------
C conf
expect "conf exit 0" 0 '' '^$'
match_lines "conf prints the 8 lines" "$OUT_FILE" 'conf:' \
	'    loc_node   =  .+' '    loc_cpu    =  .+' '    loc_os     =  .+' \
	'    loc_qperf  =  0\.5\.[0-9]+' \
	'    rem_node   =  .+' '    rem_cpu    =  .+' '    rem_os     =  .+' \
	'    rem_qperf  =  0\.5\.[0-9]+'
if has "^    rem_os     =  $(uname -s) $(uname -r | sed 's/[.]/[.]/g')\$"; then
	pass "conf rem_os is uname"
else
	fail "conf rem_os is uname" "$(ctx)"
fi

# --- help and version -----------------------------------------------------
run "$QPERF" --version
expect "--version names 0.5 and the transports" 0 \
	'^qperf 0\.5\.[0-9]+.*tcp.*udp' '^$'
run "$QPERF" -V
expect "-V" 0 '^qperf 0\.5' '^$'
run "$QPERF" --help
expect "--help prints the synopsis" 0 'qperf SERVERNODE \[OPTIONS\] TESTS' '^$'
run "$QPERF" --help tests
expect "--help tests lists the tests" 0 'tcp_bw' '^$'
has udp_lat && has rds_bw && has sctp_lat && has conf && has quit &&
	pass "--help tests lists conf quit tcp/udp/rds/sctp" ||
	fail "--help tests lists conf quit tcp/udp/rds/sctp" "$(ctx)"
run "$QPERF" --help nosuchtopic
[ "$RC" != 0 ] && [ -s "$ERR_FILE" ] &&
	pass "--help unknown topic fails on stderr" ||
	fail "--help unknown topic fails on stderr" "$(ctx)"

# --- errors to stderr, results to stdout -------------------------------------
run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t $TT sctp_bw tcp_lat
[ "$RC" = 1 ] && has '^sctp_bw:$' && ! has '^qperf' && has '^qperf' "$ERR_FILE" &&
	pass "errors on stderr, headers and results on stdout" ||
	fail "errors on stderr, headers and results on stdout" "$(ctx)"

# A client option with no server named.
run "$QPERF" -t 1 tcp_bw
[ "$RC" != 0 ] && [ -s "$ERR_FILE" ] && [ -z "$OUT" ] &&
	pass "test without a host: error on stderr" ||
	fail "test without a host: error on stderr" "$(ctx)"

# No server: quick failure with -ws 0, exit 1.
dead=$(free_port)
run "$QPERF" 127.0.0.1 -lp "$dead" -ws 0 tcp_lat
expect "no server, -ws 0: exit 1, failed to connect" 1 '' 'failed to connect'

# --- quit --------------------------------------------------------------------
run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" quit
expect "quit exit 0" 0 '^quit:$'
if wait_for 10 pid_gone "$SERVER_PID"; then
	wait "$SERVER_PID"
	st=$?
	[ "$st" = 0 ] && pass "quit stops the server (exit 0)" ||
		fail "quit stops the server (exit 0)" "server exit $st"
else
	fail "quit stops the server (exit 0)" "server still running"
fi

finish

