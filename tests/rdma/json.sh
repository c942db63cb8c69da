#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --json over softverbs: conf's RDMA device and port entries of both ends
# (InfiniBand and RoCE), each device's NUMA node (softverbs has no sysfs:
# SOFTVERBS_IBDEV_PATH points each emulated host at a directory holding
# device/numa_node), -vx conf, and a few RDMA tests, every output
# validated against docs/qperf-schema.json.  Run by tests/rdma/run.sh.
#   SV_LIB=DIR  softverbs library directory (default softverbs/build)

. "$(dirname "$0")/../lib.sh"

SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
TT=${TT:-0.3}
json_need || finish
if [ ! -e "$SV_LIB/libibverbs.so.1" ] ||
	! "$QPERF" --version | grep -q 'rdma: built'; then
	fail "softverbs and a qperf with RDMA are built" "run make first"
	finish
fi
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-rdma-json-$$
for n in 1 2; do
	mkdir -p "$T/sys$n/device"
	echo $((n - 1)) >"$T/sys$n/device/numa_node"
done

# C ARGS...: our client as host 2 (NUMA node 1, or IBDEV's) against the
# server.  The data tests run with host 1's tree (node 0): an RDMA test
# places its buffers on the device's node, and node 1 does not exist on a
# one-node machine (that refusal is tests/rdma/knobs.sh's).
IBDEV=sys2
C() {
	run env SOFTVERBS_NODE=2 SOFTVERBS_IBDEV_PATH="$T/$IBDEV" "$QPERF" \
		localhost -lp "$SERVER_PORT" "$@"
}

for ll in ib eth; do
	IBDEV=sys2
	export SOFTVERBS_LINK_LAYER=$ll
	if ! SOFTVERBS_NODE=1 SOFTVERBS_IBDEV_PATH=$T/sys1 start_server; then
		fail "$ll: server starts"
		continue
	fi
	C --json conf
	expect "$ll: conf --json exits 0" 0
	json_valid "$ll: conf --json" doc
	if [ $ll = ib ]; then
		want="p['link_layer'] == 'InfiniBand' and p['lid'] == NODE and p['gids'][0] == {'index': 0, 'gid': 'fe80::2c0:ffee:0:NODE', 'type': 'IB'}"
	else
		want="p['link_layer'] == 'Ethernet' and p['lid'] == 0 and {'RoCE v1', 'RoCE v2'} <= {g['type'] for g in p['gids']} and any(g['gid'] == '::ffff:198.18.0.NODE' and g['type'] == 'RoCE v2' for g in p['gids'])"
	fi
	for side in loc:2 rem:1; do
		s=${side%:*} node=${side#*:}
		json_assert "$ll: $s (host $node): softv0, NUMA node $((node - 1)), port 1 Active LinkUp 4X EDR, MTU 4096, GIDs" \
			"(dv := d['conf']['$s']['rdma_devices']) and (p := dv[0]['ports'][0]) and len(dv) == 1 and dv[0]['name'] == 'softv0' and dv[0]['numa_node'] == $node - 1 and p['port'] == 1 and p['state'] == 'Active' and p['phys_state'] == 'LinkUp' and p['width_lanes'] == 4 and p['rate_Bps'] == 4 * 25e9 / 8 and p['active_mtu_B'] == 4096 and ${want//NODE/$node}"
	done
	C -vx conf
	expect "$ll: -vx conf shows each end's device, port and GIDs" 0 \
		'^    rem_rdma_port +=  softv0:1 Active LinkUp, rate 100 Gb/s \(4X\), ' '^$'
	has '^    loc_rdma_dev +=  softv0 \(numa_node 1\)$' &&
		has '^    rem_rdma_dev +=  softv0 \(numa_node 0\)$' &&
		has '^    loc_rdma_gid +=  softv0:1\[0\] ' &&
		pass "$ll: -vx conf: NUMA node and GID lines of both ends" ||
		fail "$ll: -vx conf: NUMA node and GID lines of both ends" "$(ctx)"
	IBDEV=sys1
	for t in rc_bw rc_lat ud_lat rc_rdma_read_lat rc_fetch_add_mr; do
		C -t "$TT" --json $t
		expect "$ll: $t --json exits 0" 0
		json_valid "$ll: $t --json" doc
		case $t in
		*_lat) e="R['latency_s'] > 0" ;;
		*_mr) e="R['msg_rate_per_s'] > 0" ;;
		*) e="R['bw_Bps'] > 0" ;;
		esac
		json_assert "$ll: $t: status ok, figures, the device in params" \
			"T0['status'] == 'ok' and $e and T0['params']['loc']['mtu_size_B'] == 2048"
	done
	C -t "$TT" --json_stream rc_bw ud_lat
	json_valid "$ll: rc_bw ud_lat --json_stream" stream
	stop_server "$SERVER_PORT" "$SERVER_PID"
done
unset SOFTVERBS_LINK_LAYER

# Without SOFTVERBS_IBDEV_PATH there is no sysfs entry: NUMA node null.
SOFTVERBS_NODE=1 start_server || fail "server starts"
run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$SERVER_PORT" --json conf
json_valid "no sysfs: conf --json" doc
json_assert "no sysfs: numa_node is null on both ends" \
	"all(d['conf'][s]['rdma_devices'][0]['numa_node'] is None for s in ('loc', 'rem'))"
# A bad device: the error recorded, exit 2 (checked before any test).
run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$SERVER_PORT" -i nosuch0 --json rc_bw
expect "-i nosuch0 --json: exit 2, the error on stderr" 2 '' 'no RDMA device nosuch0'
json_valid "-i nosuch0 --json" doc
json_assert "-i nosuch0: exit_status 2 and the error in the document" \
	"E['exit_status'] == 2 and 'nosuch0' in E['error']['message'] and tests == []"
stop_server "$SERVER_PORT" "$SERVER_PID"
finish
