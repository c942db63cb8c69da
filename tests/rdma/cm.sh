# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests/rdma/run.sh (in each of its passes, ASan too): -cm1
# (RDMA CM connections) and the rsockets tests, over softverbs' librdmacm.
# Uses run.sh's C, L, matrix, headline and lib.sh.  Every check asserts on
# the output.  RDMA_PASS=plain RDMA_CM_ONLY=1 bash tests/rdma/run.sh runs
# only this part.

# cm_listener: the CM port a server child of $SPID listens on now (its
# softverbs-cm socket, "@softverbs-cm/<fabric>/<port space>/<port>").
cm_listener() {
	ss -xlp 2>/dev/null | grep "LISTEN.*@softverbs-cm/$SOFTVERBS_FABRIC/" |
		grep -v "pid=$SPID," | sed -n 's|.*/\([0-9]*\) .*|\1|p' | head -n 1
}

CM_TESTS="rc_bw rc_lat rc_rdma_read_lat rc_bi_bw rc_rdma_write_bw
rc_rdma_write_poll_lat rc_fetch_add_mr ver_rc_compare_swap"
UCD_TESTS="uc_bw uc_lat uc_rdma_write_lat uc_bi_bw ud_bw ud_lat ud_bi_bw"

# --- between our peers, InfiniBand --------------------------------------------
start_server || { fail "CM: our server starts"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "CM IB" C "$TT" "$CM_TESTS $UCD_TESTS" -cm1
# 1 s: two busy-polling ends on a loaded 2-core machine once completed no
# UD round trip within 0.3 s (seen once in 4 runs, 0 in 20 by hand).
matrix "CM IB -cp1" C 1 "rc_lat ud_lat uc_bw" -cm1 -cp1
C -t "$TT" -cm1 -vvu rc_bw
expect "-cm1 -vvu rc_bw: use_cm shown, no mtu_size (the CM chooses it)" 0 \
	'^    use_cm += +1 $'
! has 'mtu_size' && pass "-cm1 -vvu rc_bw: mtu_size not in use" ||
	fail "-cm1 -vvu rc_bw: mtu_size not in use" "$(ctx)"
C -n 3000 -cm1 -vvs rc_bw
expect "-cm1 -n 3000 rc_bw: exactly 3000 sent" 0 '^    send_msgs += +3,000 $'
C -n 2000 -cm1 -vvs ud_lat
expect "-cm1 -n 2000 ud_lat: 2,000 round trips over the CM's UD path" 0 \
	'^    loc_recv_msgs += +2,000 $'
C -n 500 -cm1 -rnr 1 -vvs rc_rdma_read_bw
expect "-cm1 -rnr 1 rc_rdma_read_bw: -nr applies between 0.5 peers" 0 \
	'^    (recv|loc_recv)_msgs += +500 $'
# IPv6: the control connection and so the CM on ::1.
run env SOFTVERBS_NODE=2 "$QPERF" ::1 -lp "$PORT" -t "$TT" -cm1 rc_lat
expect "-cm1 over IPv6 (::1): rc_lat" 0 "$(headline rc_lat)"
run env SOFTVERBS_NODE=2 "$QPERF" ::1 -lp "$PORT" -t "$TT" -cm1 ud_lat
expect "-cm1 over IPv6 (::1): ud_lat" 0 "$(headline ud_lat)"
# Bad input.
C -t "$TT" -cm1 xrc_bw
expect "-cm1 xrc_bw: warns as for any unused option, runs its own exchange" 0 \
	"$(headline xrc_bw)" 'warning: -cm1 set but not used in test xrc_bw'
C -t "$TT" -cm1 tcp_lat
expect "-cm1 tcp_lat: set but not used" 0 "$(headline tcp_lat)" \
	'warning: -cm1 set but not used in test tcp_lat'
C -t "$TT" -cm1 -mt 1024 -i softv0 rc_lat
expect "-cm1 -mt -i: unused with the CM, as in 0.4.11" 0 "$(headline rc_lat)" \
	'warning: -i set but not used in test rc_lat'
run env -u LD_LIBRARY_PATH SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" \
	-t "$TT" -cm1 rc_lat
expect "-cm1 with no RDMA device (no softverbs): one line, exit 1" 1 '^$' \
	'^qperf: rc_lat: failed to find any RDMA devices'
[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "-cm1, no RDMA device: one line" ||
	fail "-cm1, no RDMA device: one line" "$(ctx)"
# The server with no device for the CM (it lacks softverbs), ours asking.
stop_server "$PORT" "$SPID"
start_server env -u LD_LIBRARY_PATH -- || fail "CM: a server without RDMA"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -t "$TT" -cm1 rc_lat
expect "-cm1, the server has no RDMA CM device: its one line, exit 1" 1 '' \
	'^qperf: server: .*(rdma_create_event_channel|RDMA CM|RDMA device)'
check_alive "CM: a server without RDMA still serves" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"

# A stranger (another address, node 3) connects to the announced CM port
# first: the server rejects it and still takes its own client.  The
# client's route query is made slow so that the stranger comes first.
start_server || fail "CM: server for the stranger"
PORT=$SERVER_PORT
SPID=$SERVER_PID
env SOFTVERBS_NODE=2 SOFTVERBS_CM_ROUTE_US=1500000 "$QPERF" localhost \
	-lp "$PORT" -t 1 -cm1 rc_lat >"$T/cm-client.out" 2>&1 </dev/null &
cpid=$!
cm_wait_listener() { [ -n "$(cm_listener)" ]; }
if wait_for 10 cm_wait_listener; then
	cport=$(cm_listener)
	env SOFTVERBS_NODE=3 ${SV_PRELOAD:+LD_PRELOAD=$SV_PRELOAD ASAN_OPTIONS=detect_leaks=0} \
		timeout 10 rping -c -a 127.0.0.1 -I 127.0.0.2 -p "$cport" -C 1 \
		>"$T/stranger.out" 2>&1
	src=$?
	grep -q 'RDMA_CM_EVENT_REJECTED, error 28' "$T/stranger.out" &&
		[ "$src" != 0 ] &&
		pass "CM stranger from 127.0.0.2: rejected (the peer's refusal, 28)" ||
		fail "CM stranger from 127.0.0.2: rejected" "exit $src" \
			"$(cat "$T/stranger.out")"
else
	fail "CM stranger: the server's CM listener appears" "$(ss -xl | grep softverbs-cm)"
fi
wait "$cpid"
crc=$?
[ "$crc" = 0 ] && grep -Eq "$(headline rc_lat)" "$T/cm-client.out" &&
	pass "CM stranger: the real client's rc_lat runs after the rejection" ||
	fail "CM stranger: the real client's rc_lat runs" "exit $crc" \
		"$(cat "$T/cm-client.out")"
check_alive "CM: the server serves after the stranger" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"

# --- RoCE: the CM resolves the GID ----------------------------------------------
export SOFTVERBS_LINK_LAYER=eth
start_server || fail "CM: RoCE server"
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "CM RoCE" C "$TT" "rc_bw rc_lat rc_rdma_read_lat uc_lat ud_lat ud_bw" -cm1
C -t "$TT" -cm1 -v rc_lat
expect "CM RoCE -v: this end's GID as the CM resolved it (node 2's)" 0 \
	'^    loc_gid += +fe80::c0:ff:fe00:2 \(index [0-9]+, RoCE v2\)$'
has '^    rem_gid += +fe80::c0:ff:fe00:1 \(index [0-9]+, RoCE v2\)$' &&
	pass "CM RoCE -v: the server's GID" || fail "CM RoCE -v: the server's GID" "$(ctx)"
L -t 1 -cm1 rc_lat
expect "CM RoCE: 0.4.11 client -> ours (0.4.11 works on RoCE only with -cm1)" 0 \
	"$(headline rc_lat)"
stop_server "$PORT" "$SPID"
start_legacy_server || fail "CM: 0.4.11 RoCE server"
PORT=$LEGACY_PORT
C -t 1 -cm1 rc_bw
expect "CM RoCE: ours -> 0.4.11 server" 0 "$(headline rc_bw)"
timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1
unset SOFTVERBS_LINK_LAYER

# --- interop with 0.4.11 (InfiniBand) -------------------------------------------
start_legacy_server || { fail "CM: 0.4.11 server"; finish; }
PORT=$LEGACY_PORT
matrix "CM ours -> 0.4.11" C 1 "rc_bw rc_lat rc_rdma_read_lat rc_bi_bw ver_rc_fetch_add" -cm1
C -t 1 -cm1 -vu rc_lat
expect "CM ours -> 0.4.11: -vu shows use_cm" 0 '^    use_cm += +1 $'
for t in uc_lat ud_bw; do
	C -t 1 -cm1 "$t"
	expect "CM ours -> 0.4.11 $t: as 0.4.11, a warning and its own exchange" 0 \
		"$(headline "$t")" "warning: -cm1 set but not used in test $t"
done
run env SOFTVERBS_NODE=2 "$QPERF" ::1 -lp "$PORT" -t 1 -cm1 rc_lat
expect "CM ours -> 0.4.11 over IPv6: its CM is IPv4-only, one line" 1 '' \
	"0.4, whose RDMA CM is IPv4-only"
C -t 1 rs_bw
expect "rs_bw against a 0.4.11 server: refused with one line" 1 '' \
	'^qperf: rs_bw needs a server running qperf 0\.5\.0 or later; the server at localhost runs qperf 0\.4, which lacks it$'
timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1

# 0.4.11's race made certain: its server announces the CM port, then
# listens late (softverbs' SOFTVERBS_FAULT_CM_LISTEN_MS); our client is
# refused (no listener yet) and connects again within the timeout.
export SOFTVERBS_FAULT_CM_LISTEN_MS=400
start_legacy_server || fail "CM: 0.4.11 server that listens late"
unset SOFTVERBS_FAULT_CM_LISTEN_MS
PORT=$LEGACY_PORT
run env SOFTVERBS_NODE=2 SOFTVERBS_DEBUG=1 "$QPERF" localhost -lp "$PORT" \
	-t 1 -cm1 rc_lat
expect "CM ours -> 0.4.11 listening late: refused first, then connected" 0 \
	"$(headline rc_lat)" 'event RDMA_CM_EVENT_REJECTED status 8'
grep -q 'event RDMA_CM_EVENT_ESTABLISHED' "$ERR_FILE" &&
	pass "CM ours -> 0.4.11 listening late: ESTABLISHED after the retry" ||
	fail "CM ours -> 0.4.11 listening late: ESTABLISHED after the retry" "$(ctx)"
timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1

start_server || { fail "CM: our server (interop)"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "CM 0.4.11 -> ours" L 1 "rc_bw rc_lat rc_rdma_read_lat rc_bi_bw rc_rdma_write_poll_lat ver_rc_compare_swap" -cm1
L -t 1 -cm1 uc_lat
expect "CM 0.4.11 -> ours uc_lat: 0.4.11 ignores -cm1 there (its warning on stdout)" 0 \
	'^warning: -cm1 set but not used in test uc_lat$'
has "$(headline uc_lat)" && pass "CM 0.4.11 -> ours uc_lat: measured" ||
	fail "CM 0.4.11 -> ours uc_lat: measured" "$(ctx)"
check_alive "CM: our server serves after the 0.4.11 clients" "$PORT" "$SPID"

# --- rsockets --------------------------------------------------------------------
matrix "rsockets" C "$TT" "rs_bw rs_lat"
C -n 3000 -vvs rs_lat
expect "rs_lat -n 3000: exactly 3000 round trips" 0 '^    loc_recv_msgs += +3,000 $'
C -n 2000 -vvs rs_bw
expect "rs_bw -n 2000: exactly 2000 received" 0 '^    recv_msgs += +2,000 $'
C -t "$TT" -m 1M rs_bw
expect "rs_bw -m 1M (larger than an rsocket buffer)" 0 "$(headline rs_bw)"
run env SOFTVERBS_NODE=2 "$QPERF" ::1 -lp "$PORT" -t "$TT" rs_lat
expect "rs_lat over IPv6 (::1)" 0 "$(headline rs_lat)"
run env -u LD_LIBRARY_PATH SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" rs_bw
expect "rs_bw with no RDMA device: one line, exit 1" 1 '^$' \
	'^qperf: rs_bw: unable to make an rsocket: .*no RDMA device'
C -t "$TT" sdp_bw
expect "sdp_bw on a kernel without SDP: the line names rs_bw" 1 '' \
	'lacks SDP support\); try rs_bw or rs_lat \(rsockets'
# A client that dies mid-stream leaves the server serving.
env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" -t 5 rs_bw \
	>/dev/null 2>&1 </dev/null &
cpid=$!
sleep 1
kill -9 "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
wait_for 20 test_children_gone && pass "rs_bw client killed mid-stream: no child left" ||
	fail "rs_bw client killed mid-stream: no child left" "$(children) left"
C -t "$TT" rs_lat
expect "rsockets: the next test runs after the killed client" 0 "$(headline rs_lat)"
stop_server "$PORT" "$SPID" "CM: our server stops with quit"
