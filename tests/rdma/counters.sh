# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests/rdma/run.sh (in each of its full passes): the port
# counters of both ends (issue 18 item 5) over softverbs, each end on its
# own planted sysfs tree (softverbs/sysfs-plant; SYSFS_PATH for qperf,
# SOFTVERBS_SYSFS for softverbs, which counts its traffic there).  uc_bw
# with SOFTVERBS_FAULT_DROP on the sender: the receiving server's
# port_rcv_errors rise, shown on the server's end (rem_) with one warning
# line naming it, while the data counters move on both ends; a clean
# rc_bw warns of nothing.  Uses run.sh's C and headline and lib.sh.
# RDMA_PASS=plain RDMA_COUNTERS=1 bash tests/rdma/run.sh runs only this.

PLANT=$LIB_ROOT/softverbs/sysfs-plant
CT_S=$T/cnt_tree_s
CT_C=$T/cnt_tree_c
if "$PLANT" "$CT_S" >/dev/null && "$PLANT" "$CT_C" >/dev/null &&
	start_server env SYSFS_PATH="$CT_S" SOFTVERBS_SYSFS="$CT_S" --; then
	PORT=$SERVER_PORT
	SPID=$SERVER_PID
	# the client on its own tree (C runs under these too)
	export SYSFS_PATH=$CT_C SOFTVERBS_SYSFS=$CT_C
	run env SOFTVERBS_NODE=2 SOFTVERBS_FAULT_DROP=0.2 "$QPERF" localhost \
		-lp "$PORT" -t "$TT" -vx uc_bw
	expect "counters: uc_bw, 20% dropped: the server's port_rcv_errors, with its warning" 0 \
		'^    rem_port_rcv_errors +=  +[1-9][0-9,]* $' \
		"^qperf: warning: uc_bw: server: softv0:1 port_rcv_errors rose by [1-9][0-9]* during the test \(a port counter: all traffic of the port, not only this test's\)$"
	has '^    loc_port_rcv_errors +=  +0 $' &&
		! grep -q 'warning: uc_bw: client: softv0:1 port_rcv_errors' "$ERR_FILE" &&
		pass "counters: uc_bw, 20% dropped: the sending client's port_rcv_errors stay 0" ||
		fail "counters: uc_bw, 20% dropped: the sending client's port_rcv_errors stay 0" "$(ctx)"
	has "^    loc_counters +=  softv0:1 \(port: all traffic of the port, not only this test's\)$" &&
		has '^    loc_port_xmit_packets +=  +[1-9][0-9,]* $' &&
		has '^    loc_port_xmit_bytes +=  +[1-9]' &&
		has '^    rem_port_rcv_packets +=  +[1-9][0-9,]* $' &&
		pass "counters: uc_bw: data counters move on both ends, scope said" ||
		fail "counters: uc_bw: data counters move on both ends, scope said" "$(ctx)"
	if json_need; then
		run env SOFTVERBS_NODE=2 SOFTVERBS_FAULT_DROP=0.2 "$QPERF" localhost \
			-lp "$PORT" -t "$TT" --json uc_bw
		json_valid "counters: uc_bw --json" doc
		json_assert "counters: uc_bw --json: port scope, the server's receive errors, the client's packets" \
			"(lambda c: c['scope'] == 'port' and c['server']['source'] == 'softv0:1' and c['server']['values']['port_rcv_errors'] > 0 and c['client']['values']['port_rcv_errors'] == 0 and c['client']['values']['port_xmit_packets'] > 0 and c['server']['values']['port_rcv_bytes'] > 0)(R['counters'])"
	fi
	C -t "$TT" -vx rc_bw
	expect "counters: a clean rc_bw: no counter warning" 0 \
		'^    rem_port_rcv_errors +=  +0 $' '^$'
	unset SYSFS_PATH SOFTVERBS_SYSFS
	stop_server "$PORT" "$SPID"
else
	fail "counters: two planted trees and a server on one" "$(cat "$SERVER_LOG" 2>/dev/null)"
fi
