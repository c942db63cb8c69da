#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests, failures that must be clean (unsupported
# tests, usage errors, command-line order, server start-up errors): our
# client against our server. Runs alone (bash tests/integration/errors.sh)
# or as tests/run.sh integration:errors; tests/integration/common.sh has the
# shared set-up and helpers.

. "$(dirname "$0")/common.sh"

integration_server

# --- failures that must be clean -------------------------------------------
for t in sdp_bw sdp_lat sctp_bw sctp_lat rds_bw rds_lat; do
	fam=$(echo "${t%%_*}" | tr a-z A-Z)
	C -t $TT $t
	n=$(grep -c . "$ERR_FILE")
	if [ "$RC" = 1 ] && [ "$n" = 1 ] &&
		has "$fam.*(not supported|lacks)|lacks $fam" "$ERR_FILE" &&
		has '^qperf: ' "$ERR_FILE" && [ "$OUT" = "$t:" ]; then
		pass "$t fails: exit 1, one stderr line naming $fam"
	else
		fail "$t fails: exit 1, one stderr line naming $fam" "$(ctx)"
	fi
	check_alive "server answers conf after $t" "$SERVER_PORT" "$SERVER_PID"
done
C -t $TT rc_bw
if [ "$RC" = 1 ] && has RDMA "$ERR_FILE" && ! has 'bad test' "$ERR_FILE"; then
	pass "rc_bw fails with a message about RDMA support"
else
	fail "rc_bw fails with a message about RDMA support" "$(ctx)"
fi
C -t $TT foo
expect "unknown test: exit 2, bad test" 2 '' '^qperf: foo: bad test'
C -t $TT xrc_bw
[ "$RC" != 0 ] && [ "$RC" != 124 ] && pass "xrc_bw fails cleanly (exit $RC)" ||
	fail "xrc_bw fails cleanly" "$(ctx)"

# Usage errors: exit 2, the option and the value named.
usage() {
	local opt=$1 val=$2
	shift 2
	C "$@"
	if [ "$RC" = 2 ] && has "^qperf: .*$opt" "$ERR_FILE" &&
		grep -Fq -- "$val" "$ERR_FILE" && [ -z "$OUT" ]; then
		pass "usage error: $opt $val"
	else
		fail "usage error: $opt $val" "$(ctx)"
	fi
}
usage -m 5G -m 5G tcp_bw
usage -lp 70000 -lp 70000 tcp_bw
usage -t x -t x tcp_bw
usage --loop msg_size:1:4: --loop msg_size:1:4: tcp_lat
usage -oo msg_size:1:4:+0 -oo msg_size:1:4:+0 tcp_lat
usage -t -1 -t -1 tcp_lat
usage -x '' -x tcp_bw

# Command-line order (spec §1.1): a test runs with the options seen so
# far; -H names the host; a trailing option is parsed and ignored.
C -t $TT tcp_lat -v udp_lat -uu
[ "$RC" = 0 ] && [ "$(sed -n '2p' "$OUT_FILE" | grep -c '^    latency  =  ')" = 1 ] &&
	[ "$(sed -n '3p' "$OUT_FILE")" = 'udp_lat:' ] &&
	has "$(L loc_cpus_used "$CPUS")" && ! has ' ns$' &&
	pass "options apply to the tests after them: tcp_lat plain, udp_lat -v, -uu ignored" ||
	fail "options apply to the tests after them: tcp_lat plain, udp_lat -v, -uu ignored" "$(ctx)"
run "$QPERF" -t $TT -H 127.0.0.1 -lp "$SERVER_PORT" tcp_lat
expect "-H HOST before the options" 0 "$(L latency "$TIME")"
run "$QPERF" -t 1
expect "client option without a host: exit 2" 2 '^$' 'client-only option'
run "$QPERF" tcp_lat
expect "test name as host: 'must specify host name first', exit 2" 2 '^$' \
	'must specify host name first'
run "$QPERF" 127.0.0.1
expect "host without a test: 'must specify a test type', exit 2" 2 '^$' \
	'must specify a test type'

# Server start-up errors: the port is taken; the port file cannot be
# written.  Exit 1, a message on stderr.
run "$QPERF" -lp "$SERVER_PORT"
expect "second server on a busy -lp: exit 1, address in use" 1 '^$' \
	"^qperf: .*$SERVER_PORT.*[Aa]ddress already in use"
# -lpf is created the safe way too (lib/outfile.h): a FIFO there neither
# hangs the server nor is written to (issue 17 item 11).
mkfifo "$T/port.fifo"
run -t 10 "$QPERF" -lp 0 -lpf "$T/port.fifo"
expect "-lpf onto a FIFO: refused at once" 1 '^$' \
	"^qperf: -lpf: cannot write \"$T/port.fifo\": it is a FIFO, not a regular file\$"
run "$QPERF" -lp 0 -lpf /nonexistent-dir/port
expect "-lpf in a missing directory: exit 1, error on stderr" 1 '^$' \
	'^qperf: .*nonexistent-dir'

# A server that is not running, or not qperf: the error names host and
# port and says so (issue 17 item 15), not a protocol item.
dead=$(free_port)
run "$QPERF" 127.0.0.1 -lp "$dead" -ws 0 tcp_lat
expect "nothing on the port: 'no qperf server at HOST port N'" 1 'tcp_lat:' \
	"^qperf: no qperf server at 127\.0\.0\.1 port $dead: failed to connect: Connection refused\$"
PEER=$LIB_ROOT/tests/robust/peer.py
for mode in junk-server silent-server; do
	pf=$T/$mode.port
	python3 "$PEER" $mode "$pf" 64 >/dev/null 2>&1 &
	fpid=$!
	track_pid $fpid
	wait_for 10 test -s "$pf"
	run "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -to 1 tcp_lat
	case $mode in
	junk-server) why="its answer to the request is not qperf's" ;;
	*) why='no answer to the request \(timed out\)' ;;
	esac
	expect "$mode: 'no qperf server at HOST port N: ...'" 1 'tcp_lat:' \
		"^qperf: no qperf server at 127\.0\.0\.1 port $(cat "$pf"): $why\$"
	kill $fpid 2>/dev/null
done


finish
