# SPDX-License-Identifier: GPL-2.0-only
# The verbs knobs of 0.5 peers (--sq_depth, --rq_depth, --inline_size,
# --cq_moderation, --post_list, --use_srq, --traffic_class, --pkey_index)
# and NUMA placement (--numa_node, the device's node, -ca), over
# softverbs.  Sourced by tests/rdma/run.sh (it uses its C, L, headline and
# the helpers of tests/lib.sh); starts and stops its own servers.  Every
# check asserts on the output; figures are only checked to be there.
#
# NUMA: this machine may have one node.  The device's node comes from
# SOFTVERBS_NUMA_NODE (softverbs makes <ibdev_path>/device/numa_node of
# it, the file qperf reads on real hardware), so node 0 exercises the
# placement path and a node that does not exist its error.

# bad RC "ARGS" STDERR-REGEX: our client with ARGS fails with exit RC
# (2: this side's value, before any test; 1: the server's) and one line.
bad() {
	C -t "$TT" $2
	expect "knobs: $2 refused" "$1" '' "$3"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "knobs: $2: one line" ||
		fail "knobs: $2: one line" "$(ctx)"
}

knobs_ib() {
	C -t "$TT" -sqd 16 -pl 8 -vu rc_bw
	expect "knobs: rc_bw -sqd 16 -pl 8" 0 "$(headline rc_bw)"
	has '^    sq_depth += +16 $' && has '^    post_list += +8 $' &&
		pass "knobs: -vu shows sq_depth 16 and post_list 8" ||
		fail "knobs: -vu shows sq_depth 16 and post_list 8" "$(ctx)"
	C -t "$TT" -sqd 16 -cqm 4 -pl 4 -vvs rc_bw
	expect "knobs: rc_bw -sqd 16 -cqm 4 -pl 4" 0 '^    send_max_cqe += +[1-9]'
	C -t "$TT" -cqm 8 -pl 8 rc_bi_bw
	expect "knobs: rc_bi_bw -cqm 8" 0 "$(headline rc_bi_bw)"
	C -t "$TT" -sqd 32 -cqm 16 rc_rdma_write_bw
	expect "knobs: rc_rdma_write_bw -cqm 16" 0 "$(headline rc_rdma_write_bw)"
	C -t "$TT" -cqm 16 rc_rdma_read_bw
	expect "knobs: rc_rdma_read_bw -cqm 16" 0 "$(headline rc_rdma_read_bw)"
	# Moderation and count: every message is counted once, and the tail
	# of a count that is no multiple of N still completes.
	C -n 1001 -cqm 7 -vvs rc_bw
	expect "knobs: -n 1001 -cqm 7 rc_bw: exactly 1,001 sent" 0 \
		'^    send_msgs += +1,001 $'
	C -n 999 -cqm 16 -vvs rc_rdma_read_bw
	expect "knobs: -n 999 -cqm 16 rc_rdma_read_bw: exactly 999 read" 0 \
		'^    recv_msgs += +999 $'
	C -t "$TT" -srq1 -rqd 64 -vu rc_bw
	expect "knobs: SRQ rc_bw -rqd 64" 0 '^    rq_depth += +64 $'
	has '^    use_srq += +1 $' && pass "knobs: -vu shows use_srq 1" ||
		fail "knobs: -vu shows use_srq 1" "$(ctx)"
	C -t "$TT" -srq1 uc_bw
	expect "knobs: SRQ uc_bw" 0 "$(headline uc_bw)"
	C -t "$TT" -srq1 ud_bw
	expect "knobs: SRQ ud_bw" 0 "$(headline ud_bw)"
	C -t "$TT" -lsqd 8 -rrqd 8 xrc_bw
	expect "knobs: xrc_bw -lsqd 8 -rrqd 8 (its own SRQ)" 0 "$(headline xrc_bw)"
	C -t "$TT" -sqd 4 ver_rc_fetch_add
	expect "knobs: ver_rc_fetch_add -sqd 4" 0 "$(headline ver_rc_fetch_add)"
	C -t "$TT" -il 64 -vv rc_lat
	expect "knobs: rc_lat -il 64: inline threshold in -vv" 0 \
		'^    inline_size += +64 bytes$'
	C -t "$TT" -il 0 rc_bw
	expect "knobs: -il 0 (never inline)" 0 "$(headline rc_bw)"
	C -t "$TT" -pk 0 rc_bw
	expect "knobs: -pk 0" 0 "$(headline rc_bw)"
	C -t "$TT" -sqd 5 rc_lat
	expect "knobs: -sqd in a latency test: set but not used" 0 \
		"$(headline rc_lat)" 'warning: -sqd set but not used in test rc_lat'

	# Bad values: this side's are usage errors (exit 2) before any test;
	# the server's fail the test (exit 1) with the server's line.
	local o
	for o in -sqd -rqd -cqm -pl; do
		bad 2 "$o 0 rc_bw" "$o: 0: must be greater than 0"
	done
	local lim="the limit of softv0 \(max_qp_wr 32768\)" sv="server: "
	bad 2 "-sqd 40000 rc_bw" "send queue depth 40000 is above $lim"
	bad 1 "-rsqd 40000 rc_bi_bw" "${sv}send queue depth 40000 is above"
	bad 2 "-rqd 40000 rc_bw" "receive queue depth 40000 is above $lim"
	bad 2 "-srq1 -rqd 40000 rc_bw" \
		'receive queue depth 40000 is above the SRQ limit of softv0 \(max_srq_wr 32768\)'
	bad 2 "-cqm 2048 rc_bw" \
		'CQ moderation 2048 is larger than the send queue depth 1024'
	bad 2 "-sqd 16 -pl 32 rc_bw" \
		'post list 32 is larger than the send queue depth 16'
	bad 2 "-il 4096 rc_lat" \
		'inline size 4096 is above what softv0 allows for RC QPs \(at least 1024 bytes'
	bad 1 "-ril 4096 rc_lat" "${sv}inline size 4096 is above what softv0 allows"
	bad 2 "-pk 1 rc_bw" \
		'P_Key index 1 does not exist on softv0:1 \(the table has 1 entry\)'
	bad 1 "-rpk 1 rc_bw" "${sv}P_Key index 1 does not exist on softv0:1"
	bad 2 "-tc 106 rc_bw" \
		'traffic class 106 needs a RoCE port \(a GRH\); softv0:1 is InfiniBand'
	bad 2 "-tc 256 rc_bw" '-tc: 256: '
}

knobs_numa() {
	local nodes
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	if ! "$QPERF" --version | grep -q 'numa: built'; then
		skip "knobs: NUMA placement" "built without libnuma"
		return
	fi
	# The default path: softverbs says nothing to this client, which
	# places nothing; the server's device is on node 0 (its NODE
	# extension says so).
	C -t "$TT" -vx rc_bw
	expect "numa: the server placed on its device's node 0, and says so" 0 \
		'^    rem_numa_node += +0$'
	has loc_numa_node && fail "numa: no loc_numa_node line without a node" "$(ctx)" ||
		pass "numa: no loc_numa_node line without a node"
	run env SOFTVERBS_NODE=2 SOFTVERBS_NUMA_NODE=0 "$QPERF" localhost \
		-lp "$PORT" -t "$TT" -vx rc_bw
	expect "numa: device on node 0: placed there, and said" 0 \
		'^    loc_numa_node += +0 \(buffers and thread, the device.s node\)$'
	run env SOFTVERBS_NODE=2 SOFTVERBS_NUMA_NODE=0 "$QPERF" localhost \
		-lp "$PORT" -t "$TT" -vx -ca 1 rc_lat
	expect "numa: -ca: buffers on that CPU's node, -ca pins the thread" 0 \
		'^    loc_numa_node += +0 \(buffers; -ca pins the thread\)$'
	C -t "$TT" -nn 0 -vx rc_bw
	expect "numa: --numa_node 0" 0 \
		'^    loc_numa_node += +0 \(buffers and thread, --numa_node\)$'
	if [ "$nodes" -le 1 ]; then
		C -t "$TT" -nn 1 rc_bw
		expect "numa: --numa_node 1 does not exist here" 2 '' \
			'--numa_node: NUMA node 1 does not exist on this host \(nodes 0..0\)'
		C -t "$TT" -rnn 1 rc_bw
		expect "numa: the server's --numa_node 1: the server's line" 1 '' \
			'server: --numa_node: NUMA node 1 does not exist'
		run env SOFTVERBS_NODE=2 SOFTVERBS_NUMA_NODE=5 "$QPERF" localhost \
			-lp "$PORT" -t "$TT" rc_bw
		expect "numa: a device on a node this host lacks: one line" 1 '' \
			'device softv0: NUMA node 5 does not exist on this host'
	else
		skip "numa: missing-node errors" "this host has $nodes nodes"
	fi
	C -t "$TT" -nn 0 tcp_bw
	expect "numa: --numa_node is for RDMA tests" 0 "$(headline tcp_bw)" \
		'warning: -nn set but not used in test tcp_bw'
}

knobs_roce() {
	C -t "$TT" -tc 106 -vu rc_bw
	expect "knobs RoCE: -tc 106 accepted" 0 '^    traffic_class += +106 $'
	C -t "$TT" -tc 106 ud_lat
	expect "knobs RoCE: -tc 106 ud_lat (the AH's GRH)" 0 "$(headline ud_lat)"
}

# Each knob against Debian's qperf 0.4.11: one line naming the option.
knobs_legacy() {
	local a
	for a in "-sqd 16" "-lsqd 16" "-rqd 16" "-il 64" "-cqm 4" "-pl 8" \
		"-srq1" "-rtc 96" "-pk 0" "-nn 0"; do
		C -t 1 $a rc_bw
		expect "knobs vs 0.4.11: $a refused" 1 '' \
			"rc_bw: ${a%% *} needs a server running qperf 0.5.0 or later; this server runs 0.4"
	done
	C -t 1 -sqd 16 rc_lat
	expect "knobs vs 0.4.11: an unused knob only warns" 0 "$(headline rc_lat)" \
		'warning: -sqd set but not used in test rc_lat'
}

echo "=== verbs knobs and NUMA (tests/rdma/knobs.sh)"
export TMPDIR=$T # softverbs' sysfs tree for SOFTVERBS_NUMA_NODE goes there
start_server || fail "knobs: our server"
PORT=$SERVER_PORT
SPID=$SERVER_PID
knobs_ib
stop_server "$PORT" "$SPID"
export SOFTVERBS_NUMA_NODE=0
start_server || fail "knobs: our server, device on node 0"
unset SOFTVERBS_NUMA_NODE
PORT=$SERVER_PORT
SPID=$SERVER_PID
knobs_numa
check_alive "knobs: our server serves after the bad values" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"
export SOFTVERBS_LINK_LAYER=eth
start_server || fail "knobs: our RoCE server"
PORT=$SERVER_PORT
SPID=$SERVER_PID
knobs_roce
stop_server "$PORT" "$SPID"
unset SOFTVERBS_LINK_LAYER
start_legacy_server || fail "knobs: 0.4.11 server"
PORT=$LEGACY_PORT
knobs_legacy
timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1
