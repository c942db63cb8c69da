#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --conns N on loopback (docs/conns.md): tcp_bw and udp_bw over 1, 64 and
# 1024 connections with -n (every connection of both ends counted a
# message in --json; the sender's total exactly -n, and TCP's receiver's
# too; udp_bw may lose datagrams but every flow carries some), the
# document valid against the schema; -n split over --threads exactly; the
# -vx lines (conns, threads, conn_setup, the spread, socket buffers);
# RLIMIT_NOFILE too small (ulimit -n) refused with one line naming it, on
# the client and on the server; --conns on another test and with
# --streams refused; the server's memory budget; a 0.5 server without CAP_CONNS and Debian's qperf 0.4.11 refused
# with one line (the latter still serving); bad values.  The same spread
# over threads of --qps is tests/rdma/qps.sh's.
#
# Usage: bash tests/integration/conns.sh   (QPERF=... overrides)

. "$(dirname "$0")/../lib.sh"
TT=${TT:-0.5}
NUM='[0-9][0-9.,]*'

start_server || { fail "conns: our server starts"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID

Q() {
	run -t 120 "$QPERF" 127.0.0.1 -lp "$PORT" "$@"
}

# one_line NAME: the last run's stderr is one line.
one_line() {
	[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "$1: one line" ||
		fail "$1: one line" "$(ctx)"
}

# conns_json NAME C N TEST: the last --json run: exit 0, valid; C
# connections on each end, each end's per_conn_msgs one count per
# connection, every one positive; the sender's total exactly N (TCP's
# receiver's too; UDP's receiver at most N, its every flow carrying).
conns_json() {
	local name=$1 c=$2 n=$3 t=$4 tcp=False
	[ "$t" = tcp_bw ] && tcp=True
	[ "$RC" = 0 ] && pass "$name: exit 0" || fail "$name: exit 0" "$(ctx)"
	json_valid "$name" doc
	json_assert "$name: $c connections, each counted on both ends, $n sent" \
		"(lambda C: C['count'] == $c and C['threads'] >= 1 and all(len(e['per_conn_msgs']) == $c and min(e['per_conn_msgs']) > 0 and e['msgs']['min'] > 0 and e['setup_s'] > 0 and e['mem_per_conn']['sockbuf_B'] > 0 for e in (C['loc'], C['rem'])) and sum(C['loc']['per_conn_msgs']) == C['loc']['msgs']['total'] == $n == R['loc']['send']['msgs'] and sum(C['rem']['per_conn_msgs']) == C['rem']['msgs']['total'] == R['rem']['recv']['msgs'] and ($tcp and C['rem']['msgs']['total'] == $n or not $tcp and C['rem']['msgs']['total'] <= $n))(R['conns'])"
}

# 1, 64 and 1024 connections: 16 messages each (1 KiB: UDP keeps up).
for t in tcp_bw udp_bw; do
	for c in 1 64 1024; do
		n=$((c * 16))
		Q -n "$n" -m 1k --conns "$c" --json "$t"
		if [ "$c" = 1 ]; then
			json_valid "conns: $t --conns 1 -n $n" doc
			json_assert "conns: $t --conns 1: as without it (no conns object, threads not in use), $n sent" \
				"'conns' not in R and R['loc']['send']['msgs'] == $n and T0['params']['loc']['conns'] == 1 and 'threads' not in T0['params']['loc']"
			continue
		fi
		conns_json "conns: $t --conns $c -n $n" "$c" "$n" "$t"
	done
done

# -n the total over the threads: 1001 over 3 threads of 7 connections.
Q -n 1001 -m 1k --conns 7 --threads 3 --json tcp_bw
conns_json "conns: tcp_bw --conns 7 --threads 3 -n 1001" 7 1001 tcp_bw
json_assert "conns: --threads 3: three threads, their sends 334, 334, 333" \
	"R['conns']['threads'] == 3 and T0['params']['loc']['threads'] == 3 and [s['loc']['send']['msgs'] for s in R['streams']] == [334, 334, 333]"
# the default: one thread per CPU (of node 0), at most the connections
cpus=$(getconf _NPROCESSORS_ONLN)
want=$((cpus < 4 ? cpus : 4))
Q -n 400 -m 1k --conns 4 --json tcp_bw
json_assert "conns: the default --threads: $want (one per CPU, at most 4)" \
	"R['conns']['threads'] == $want == T0['params']['loc']['threads'] and R['loc']['send']['msgs'] == 400 == R['rem']['recv']['msgs']"
Q -n 3 -m 1k --conns 64 --json tcp_bw
json_assert "conns: -n 3: at most 3 threads, 3 messages" \
	"R['conns']['threads'] <= 3 and R['loc']['send']['msgs'] == 3 == R['rem']['recv']['msgs']"

# -vx: the aggregate, then conns, threads and each end's conn_ lines.
Q -t "$TT" --conns 64 --threads 2 -vx tcp_bw
expect "conns: tcp_bw --conns 64 -vx: the aggregate" 0 \
	'^    bw +=  +[0-9.,]+ [KMGT]?B/sec$'
for l in 'conns += +64 $' 'threads += +2 $' \
	"(loc|rem)_conn_setup += +$NUM (ns|us|ms|sec)$" \
	"loc_conn_msgs_min += +$NUM $" "rem_conn_msgs_median += +$NUM $" \
	"rem_conn_msgs_max += +$NUM $" "loc_conn_mem_sockbuf += +$NUM "; do
	has "^    $l" && pass "conns: -vx line /$l/" ||
		fail "conns: -vx line /$l/" "$(ctx)"
done
Q -t "$TT" --conns 64 udp_bw
[ "$RC" = 0 ] && has '^    send_bw ' && ! has 'conn' &&
	pass "conns: without -vx only the aggregate" ||
	fail "conns: without -vx only the aggregate" "$(ctx)"

# RLIMIT_NOFILE: the client refuses before any connection (exit 2).
run bash -c 'ulimit -n 256 && exec "$0" 127.0.0.1 -lp "$1" --conns 1024 -t 1 tcp_bw' \
	"$QPERF" "$PORT"
expect "conns: an fd limit too small: refused" 2 '^$' \
	"^qperf: tcp_bw: --conns 1024 needs [0-9]+ file descriptors \(one per connection; [0-9]+ are open\), above RLIMIT_NOFILE's hard limit \(256; ulimit -Hn\); at most [0-9]+ connections fit$"
one_line "conns: RLIMIT_NOFILE"
# ... and a soft limit below what is needed is raised (hard one room)
run bash -c 'ulimit -Sn 256 && exec "$0" 127.0.0.1 -lp "$1" --conns 400 -n 800 tcp_bw' \
	"$QPERF" "$PORT"
expect "conns: a soft fd limit below 400 connections: raised" 0 \
	'^    bw +=  +[0-9.,]+ [KMGT]?B/sec$' '^$'

# Refusals: another test, --streams, bad values.
for t in tcp_lat udp_lat rc_bw sctp_bw; do
	Q --conns 4 "$t"
	expect "conns: --conns on $t: refused" 2 '^$' \
		"^qperf: --conns: 4: not for $t: only tcp_bw and udp_bw run over several connections$"
	one_line "conns: --conns on $t"
done
Q --conns 4 -st 2 tcp_bw
expect "conns: --conns with --streams: refused" 2 '^$' \
	'^qperf: --conns: 4: not with -st: give --threads to spread the connections over threads$'
Q --threads 2 -st 2 tcp_bw
expect "conns: --threads with --streams: refused" 2 '^$' \
	'^qperf: --threads: 2: not with -st: '
# --threads over one connection spreads nothing: warned of, one thread.
Q -t "$TT" -vu --threads 2 tcp_bw
expect "conns: --threads 2 without --conns: runs, warned of" 0 \
	'^    bw +=  ' '^qperf: warning: --threads set but not used in test tcp_bw$'
grep -q 'threads' "$OUT_FILE" &&
	fail "conns: --threads 2 without --conns: not among the used options" "$(ctx)" ||
	pass "conns: --threads 2 without --conns: not among the used options"
for v in 0 16385 x; do
	Q --conns "$v" tcp_bw
	expect "conns: --conns $v: refused" 2 '^$' "^qperf: --conns: $v: "
done
Q -I 0.2 -t "$TT" --conns 4 tcp_bw
expect "conns: -I with several threads: refused, with the way out" 2 '^$' \
	'^qperf: -I: interval reports are not available with [0-9]+ threads in test tcp_bw.*; give --threads 1$'
Q -I 0.2 -t "$TT" --conns 4 --threads 1 tcp_bw
expect "conns: -I with --threads 1: runs" 0 '^    bw +=  '
check_alive "conns: the server serves after the refusals" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"

# The server's memory budget: 128 KiB per connection.
start_server -- --max_memory 8M || fail "conns: server with an 8 MiB budget"
PORT=$SERVER_PORT
SPID=$SERVER_PID
Q --conns 1024 -n 1024 tcp_bw
expect "conns: past the server's memory budget: refused" 1 '' \
	'^qperf: server: not enough memory: this test needs [0-9]+ bytes, more than .*--max_memory.*; use a smaller -m or fewer --conns$'
Q --conns 16 -n 160 tcp_bw
expect "conns: and that server runs 16" 0 '^    bw +=  '
stop_server "$PORT" "$SPID"

# The server's RLIMIT_NOFILE: its one line, before any connection; the
# test fails (exit 1) and the server serves on within its limit.
start_server prlimit --nofile=300:300 -- ||
	fail "conns: server with 300 descriptors"
PORT=$SERVER_PORT
SPID=$SERVER_PID
Q --conns 512 -n 1024 tcp_bw
expect "conns: above the server's RLIMIT_NOFILE: its one line" 1 '' \
	"^qperf: server: --conns 512 needs [0-9]+ file descriptors \(one per connection; [0-9]+ are open\), above RLIMIT_NOFILE's hard limit \(300; ulimit -Hn\); at most [0-9]+ connections fit$"
one_line "conns: the server's RLIMIT_NOFILE"
Q --conns 100 -n 1000 tcp_bw
expect "conns: and that server runs 100" 0 '^    bw +=  '
stop_server "$PORT" "$SPID"

# A 0.5 server without CAP_CONNS (0x400000): refused with one line after
# the request, which carried REQX_CONNS (17); --conns 1 sends none.
for c in 4 1; do
	pf=$T/ccaps.$c
	python3 "$LIB_ROOT/tests/robust/peer.py" caps-server "$pf" 0x3fffff \
		>"$T/ccaps.$c.out" 2>&1 &
	track_pid $!
	wait_for 5 test -s "$pf"
	run "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -to 1 -n 100 --conns "$c" \
		tcp_bw
	wait_for 5 test -s "$pf.items"
	if [ "$c" = 4 ]; then
		expect "conns: a 0.5 server without CAP_CONNS: refused" 1 '' \
			'^qperf: tcp_bw: --conns 4 needs a server that runs several connections in one test \(qperf 0\.5\.0\); the server at 127\.0\.0\.1 \(qperf 0\.5\.0\) lacks it$'
		one_line "conns: without CAP_CONNS"
		items_has "conns: --conns 4 sends item 17" "$pf.items" 17
	else
		items_lacks "conns: --conns 1 sends neither item 16 nor 17" \
			"$pf.items" '16|17'
	fi
done

# Debian's qperf 0.4.11: refused with one line; it serves on.
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	for t in tcp_bw udp_bw; do
		run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" --conns 4 -t 1 "$t"
		expect "conns: $t --conns against qperf 0.4.11: refused" 1 '' \
			"^qperf: $t: --conns 4 needs a server that runs several connections in one test \(qperf 0\.5\.0\); the server at 127\.0\.0\.1 \(qperf 0\.4\) lacks it$"
		one_line "conns: $t against 0.4.11"
	done
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 0.5 tcp_bw
	expect "conns: the 0.4.11 server serves on" 0 '^    bw +=  '
	stop_legacy_server
else
	skip "conns: qperf 0.4.11 refused" "no $LEGACY_QPERF"
fi

finish
