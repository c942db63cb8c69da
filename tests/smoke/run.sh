#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The quick tier's loopback smoke (make check-quick): one short run of each
# transport kind against our own server, each asserting its headline and
# exit status.  Sockets: tcp, udp.  RDMA over softverbs (two emulated
# hosts on a private fabric): rc, uc, ud, xrc, the one-sided and atomic
# operations, rdma_cm (-cm1) and rsockets (rs_*).  Then --json and a --loop
# sweep.  The full suites check the figures; this checks that every path
# still runs, in well under a minute.
. "$(dirname "$0")/../lib.sh"

TT=${TT:-0.2}
bw='^    (send_|recv_)?bw +=  +[0-9.,]+ [KMGT]?B/sec$'
lat='^    latency +=  +[0-9.,]+ (ns|us|ms|sec)$'
rate='^    msg_rate +=  +[0-9.,]+ [KMG]?/sec$'

# smoke TEST REGEX [OPTIONS...]: one run of TEST against the current server.
smoke() {
	local test=$1 re=$2
	shift 2
	run env SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
		-t "$TT" "$@" "$test"
	expect "$test${*:+ $*}: exit 0 and its headline" 0 "$re"
}

if ! start_server; then
	fail "server starts" "$(cat "$SERVER_LOG")"
	finish
fi
smoke tcp_bw "$bw"
smoke tcp_lat "$lat"
smoke udp_bw "$bw"
smoke udp_lat "$lat"
run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t "$TT" --json tcp_bw
expect "tcp_bw --json: exit 0" 0
json_need && json_valid "tcp_bw --json" doc
json_assert "tcp_bw --json: one test, status ok, bandwidth above 0" \
	"len(tests) == 1 and T0['status'] == 'ok' and R['send_bw_Bps'] > 0"
smoke tcp_lat "$lat" --loop msg_size:1:4:*4
check "--loop msg_size:1:4:*4: two reports" \
	test "$(count_lines "$lat")" -eq 2
stop_server "$SERVER_PORT" "$SERVER_PID" "socket server stops with quit"

SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
need_softverbs
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-smoke-$$
if ! SOFTVERBS_NODE=1 start_server; then
	fail "server over softverbs starts" "$(cat "$SERVER_LOG")"
	finish
fi
smoke rc_bw "$bw"
smoke rc_lat "$lat"
smoke uc_bw "$bw"
smoke ud_lat "$lat"
smoke xrc_bw "$bw"
smoke rc_rdma_write_lat "$lat"
smoke rc_rdma_read_bw "$bw"
smoke rc_fetch_add_mr "$rate"
smoke rc_lat "$lat" -cm1
smoke rs_bw "$bw"
stop_server "$SERVER_PORT" "$SERVER_PID" "softverbs server stops with quit"
finish
