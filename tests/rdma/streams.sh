# SPDX-License-Identifier: GPL-2.0-only
# --streams over softverbs: each RDMA bandwidth test with -st 2 (two QPs,
# two threads on each end, one request), the sum and each stream with -v,
# a count test (-n counts per stream), a CPU list, and a client killed
# mid-test.  Sourced by tests/rdma/run.sh (it uses its C, headline and the
# helpers of tests/lib.sh); starts and stops its own server.

# The first -v line of each stream of test $1.
st_first() {
	case $1 in
	uc_*bw | ud_*bw) echo send_bw ;;
	*) echo bw ;;
	esac
}

start_server || fail "streams: our server"
PORT=$SERVER_PORT
SPID=$SERVER_PID
for t in rc_bw ud_bw uc_bw rc_bi_bw rc_rdma_write_bw rc_rdma_read_bw; do
	C -t "$TT" -st 2 -v "$t"
	expect "streams: $t -st 2: exit 0 and the sum" 0 "$(headline "$t")"
	[ "$(count_lines "^    stream[12]_$(st_first "$t") +=  +[0-9.,]+ [KMGT]?B/sec$")" = 2 ] &&
		has '^    streams += +2 $' &&
		pass "streams: $t -st 2 -v: both streams shown" ||
		fail "streams: $t -st 2 -v: both streams shown" "$(ctx)"
done
# -n counts per stream: two streams of 500 messages each.
C -n 500 -st 2 -vvs rc_bw
expect "streams: rc_bw -n 500 -st 2: 1,000 sent in all" 0 '^    send_msgs += +1,000 $'
C -n 300 -st 2 -vvs rc_rdma_read_bw
expect "streams: rc_rdma_read_bw -n 300 -st 2: 600 read in all" 0 '^    recv_msgs += +600 $'
C -t "$TT" -st 2 -ca 1,2 rc_rdma_write_bw
expect "streams: rc_rdma_write_bw -st 2 -ca 1,2" 0 "$(headline rc_rdma_write_bw)"
C -t "$TT" -st 2 -cp1 rc_bw
expect "streams: rc_bw -st 2 -cp1 (busy polling)" 0 "$(headline rc_bw)"
C -t "$TT" -st 2 rc_lat
expect "streams: -st 2 rc_lat: set but not used" 0 "$(headline rc_lat)" \
	'^qperf: warning: -st set but not used in test rc_lat$'
# A client killed mid-test: nothing of its streams stays on the server.
env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" -t 5 -st 4 rc_bw \
	>/dev/null 2>&1 </dev/null &
cpid=$!
st_running() { [ "$(ls /proc/$cpid/task 2>/dev/null | wc -l)" -ge 5 ]; }
wait_for 10 st_running
kill -9 "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
wait_for 20 test_children_gone &&
	pass "streams: a killed -st 4 client: no child of the server left" ||
	fail "streams: a killed -st 4 client: no child of the server left" "$(children) left"
C -t "$TT" -st 2 rc_bw
expect "streams: and the server runs the next -st 2 test" 0 "$(headline rc_bw)"
stop_server "$PORT" "$SPID"
# A QP that goes fatal in one stream ends the test with one line naming
# the stream; the server serves on.
start_server env SOFTVERBS_FAULT_QP_FATAL=200 -- || fail "streams: server, QP fatal"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -t 2 -to 3 -st 2 rc_bi_bw
expect "streams: a fatal QP in one stream: one clear line" 1 '' \
	'^qperf: (server: )?stream [12]: rc_bi_bw failed: '
[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "streams: a fatal QP: one line" ||
	fail "streams: a fatal QP: one line" "$(ctx)"
check_alive "streams: the server serves after the fatal QP" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"
