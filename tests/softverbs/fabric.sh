# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
#
# Cases of tests/softverbs/run.sh (sourced by it) for the planted fabric:
# the port's speed, width and MTU knobs (SOFTVERBS_SPEED, SOFTVERBS_WIDTH,
# SOFTVERBS_MTU, SOFTVERBS_MAX_MTU), the sysfs tree tool
# (softverbs/sysfs-plant) and the port counters softverbs keeps in such a
# tree (SOFTVERBS_SYSFS).  See docs/softverbs.md, "A planted fabric".

# ibv_devinfo -v: every ARG is an ERE that some line must match, or with a
# leading ! one that no line may match (no spaces: use [[:space:]]).
kind_devinfo_port() {
	local p

	devinfo_expect 'state:[[:space:]]+PORT_ACTIVE' "$@"
}

# portq (the port as a program built against rdma-core v48+ sees it, with
# active_speed_ex): its one line must be ARGV[0] exactly.
kind_portq() {
	split_args "$@"
	run_proc out "${ENV_BOTH[@]}" -- "$SEMDIR/portq"
	expect_rc out
	expect_log out "^${ARGV[0]}\$"
}

# A bad knob: one line naming it on stderr, and no device.
kind_knob_error() {
	split_args "$@"
	run_proc out "${ENV_BOTH[@]}" -- ibv_devinfo
	expect_log out "${ARGV[0]}"
	expect_log out '^No IB devices found'
	expect_count out '^softverbs\[[0-9]+\]: ' 1
}

S='[[:space:]]+'
defcase port_default devinfo_port "active_width:${S}4X${S}\\(2\\)" "active_speed:${S}25.0${S}Gbps${S}\\(32\\)" \
	"max_mtu:${S}4096${S}\\(5\\)" "active_mtu:${S}4096${S}\\(5\\)"
defcase port_sdr_1x devinfo_port SOFTVERBS_SPEED=SDR SOFTVERBS_WIDTH=1x \
	"active_width:${S}1X${S}\\(1\\)" "active_speed:${S}2.5${S}Gbps${S}\\(1\\)"
defcase port_fdr10_12x devinfo_port SOFTVERBS_SPEED=fdr10 SOFTVERBS_WIDTH=12X \
	"active_width:${S}12X${S}\\(8\\)" "active_speed:${S}10.0${S}Gbps${S}\\(8\\)"
defcase port_hdr_2x devinfo_port SOFTVERBS_SPEED=HDR SOFTVERBS_WIDTH=2 \
	"active_width:${S}2X${S}\\(16\\)" "active_speed:${S}50.0${S}Gbps${S}\\(64\\)"
defcase port_ndr_8x devinfo_port SOFTVERBS_SPEED=NDR SOFTVERBS_WIDTH=8x \
	"active_width:${S}8X${S}\\(4\\)" "active_speed:${S}100.0${S}Gbps${S}\\(128\\)"
# rdma-core 44's ibv_devinfo reads only the legacy field, where the kernel
# (and softverbs) says NDR for XDR; portq below sees active_speed_ex
defcase port_xdr_4x devinfo_port SOFTVERBS_SPEED=XDR SOFTVERBS_WIDTH=4x \
	"active_width:${S}4X${S}\\(2\\)" "active_speed:${S}100.0${S}Gbps${S}\\(128\\)"
defcase port_mtu devinfo_port SOFTVERBS_MTU=1024 SOFTVERBS_MAX_MTU=2048 \
	"max_mtu:${S}2048${S}\\(4\\)" "active_mtu:${S}1024${S}\\(3\\)"
defcase port_encoding devinfo_port SOFTVERBS_SPEED=16 "active_speed:${S}14.0${S}Gbps${S}\\(16\\)"
defcase port_per_node devinfo_port SOFTVERBS_NODE=3 SOFTVERBS_SPEED=EDR,3:QDR,4:HDR SOFTVERBS_WIDTH=3:1x,4x \
	"active_width:${S}1X${S}\\(1\\)" "active_speed:${S}10.0${S}Gbps${S}\\(4\\)"
defcase port_ex_xdr portq SOFTVERBS_SPEED=XDR SOFTVERBS_WIDTH=8x speed=128,speed_ex=256,width=4,mtu=5,max_mtu=5,flags2=0x420
defcase port_ex_ndr portq SOFTVERBS_SPEED=NDR speed=128,speed_ex=128,width=2,mtu=5,max_mtu=5,flags2=0x420
defcase port_ex_edr portq speed=32,speed_ex=32,width=2,mtu=5,max_mtu=5,flags2=0x0
defcase port_bad_speed knob_error SOFTVERBS_SPEED=PDR "SOFTVERBS_SPEED: 'PDR' is not a speed"
defcase port_bad_width knob_error SOFTVERBS_WIDTH=3x "SOFTVERBS_WIDTH: '3x' is not a width"
defcase port_bad_node knob_error SOFTVERBS_WIDTH=0:4x "SOFTVERBS_WIDTH: '0:4x': bad node"
defcase port_bad_mtu knob_error SOFTVERBS_MTU=1500 "SOFTVERBS_MTU: '1500' is not an MTU"
defcase port_mtu_above_max knob_error SOFTVERBS_MTU=4096 SOFTVERBS_MAX_MTU=1024 'SOFTVERBS_MTU: 4096 is above SOFTVERBS_MAX_MTU 1024'

# ---------------------------------------------------------------- sysfs-plant

PLANT=$ROOT/softverbs/sysfs-plant

# expect_file PATH TEXT: the file under the case's tree holds exactly TEXT
expect_file() {
	local f=$CASE_DIR/tree/$1 got

	if [ ! -f "$f" ]; then
		case_fail "tree: no file $1"
		return
	fi
	got=$(cat "$f")
	[ "$got" = "$2" ] || case_fail "tree: $1 is '$got' (want '$2')"
}

# The tree of a degraded host (Gen4 x8 of Gen5 x16, NUMA node 1 of two,
# governor powersave, 4X NDR, ib0 at 400 Gb/s), read through the same
# paths as on Linux (class/... symlinks into devices/...).
kind_plant_tree() {
	local t=$CASE_DIR/tree d

	split_args "$@"
	run_proc plant -- "$PLANT" "$t" --dev softv0 --pci 0000:3b:00.0 \
		--pcie 4,8 --pcie-max 5,16 --numa 1 --node 0=0-1 --node 1=2-3 \
		--governor powersave --speed NDR --width 4x --env
	expect_rc plant
	expect_log plant "^SYSFS_PATH=$t\$"
	expect_log plant "^SOFTVERBS_SYSFS=$t\$"
	expect_log plant '^SOFTVERBS_SPEED=NDR$'
	expect_log plant '^SOFTVERBS_WIDTH=4x$'
	d=class/infiniband/softv0
	[ "$(readlink "$t/$d")" = ../../devices/pci0000:00/0000:3b:00.0/infiniband/softv0 ] ||
		case_fail "tree: $d is not the link into devices/ ($(readlink "$t/$d"))"
	[ "$(readlink "$t/$d/device")" = ../../../0000:3b:00.0 ] ||
		case_fail "tree: $d/device is not ../../../0000:3b:00.0"
	expect_file $d/device/current_link_speed '16.0 GT/s PCIe'
	expect_file $d/device/current_link_width 8
	expect_file $d/device/max_link_speed '32.0 GT/s PCIe'
	expect_file $d/device/max_link_width 16
	expect_file $d/device/numa_node 1
	expect_file $d/device/local_cpulist 2-3
	expect_file $d/ports/1/rate '400 Gb/sec (4X NDR)'
	expect_file $d/ports/1/state '4: ACTIVE'
	expect_file $d/ports/1/phys_state '5: LinkUp'
	expect_file $d/ports/1/link_layer InfiniBand
	for c in port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets \
		port_xmit_wait symbol_error link_error_recovery link_downed \
		port_rcv_errors port_xmit_discards; do
		expect_file $d/ports/1/counters/$c 0
	done
	for c in out_of_sequence packet_seq_err local_ack_timeout_err \
		rnr_nak_retry_err np_cnp_sent rp_cnp_handled np_ecn_marked_roce_packets \
		out_of_buffer; do
		expect_file $d/ports/1/hw_counters/$c 0
	done
	expect_file class/net/ib0/speed 400000
	expect_file class/net/ib0/mtu 4092
	expect_file class/net/ib0/device/numa_node 1
	for c in 0 1 2 3; do
		expect_file devices/system/cpu/cpu$c/cpufreq/scaling_governor powersave
	done
	expect_file devices/system/node/node0/cpulist 0-1
	expect_file devices/system/node/node1/cpulist 2-3
	expect_file devices/system/cpu/online 0,1,2,3
}

# RoCE on a 25G interface, PCIe Gen3 x16 at its maximum, no cpufreq, SDR
# 1X rate forms, no hw_counters
kind_plant_roce() {
	local t=$CASE_DIR/tree d=class/infiniband/mlx_x

	split_args "$@"
	run_proc plant -- "$PLANT" "$t" --dev mlx_x --pcie 3,16 --numa -1 \
		--governor none --link-layer eth --netdev ens1 --net-speed 25000 \
		--net-mtu 1500 --speed SDR --width 1x --no-hw-counters
	expect_rc plant
	expect_file $d/device/current_link_speed '8.0 GT/s PCIe'
	expect_file $d/device/max_link_speed '8.0 GT/s PCIe'
	expect_file $d/device/max_link_width 16
	expect_file $d/device/numa_node -1
	expect_file $d/ports/1/rate '2.5 Gb/sec (1X SDR)'
	expect_file $d/ports/1/link_layer Ethernet
	expect_file $d/ports/1/gid_attrs/ndevs/0 ens1
	expect_file class/net/ens1/speed 25000
	expect_file class/net/ens1/mtu 1500
	[ ! -e "$t/$d/ports/1/hw_counters" ] || case_fail "tree: hw_counters made despite --no-hw-counters"
	if [ ! -d "$t/devices/system/cpu/cpu0" ] || [ -e "$t/devices/system/cpu/cpu0/cpufreq" ]; then
		case_fail "tree: --governor none must leave cpu0 without cpufreq"
	fi
}

# softverbs on a tree: ibv_devinfo shows the tree's rate (no speed knobs)
# and its board_id, and ibdev_path leads into it (portq is not needed:
# ibv_devinfo -v reads board_id through ibv_read_sysfs_file there).
kind_plant_devinfo() {
	local t=$CASE_DIR/tree

	split_args "$@"
	run_proc plant -- "$PLANT" "$t" --speed HDR --width 2x
	expect_rc plant
	echo 'PLANTED' >"$t/class/infiniband/softv0/board_id"
	run_proc out SOFTVERBS_SYSFS="$t" -- ibv_devinfo -v
	expect_rc out
	expect_log out "active_width:${S}2X${S}\\(16\\)"
	expect_log out "active_speed:${S}50.0${S}Gbps${S}\\(64\\)"
	expect_log out "board_id:${S}PLANTED"
}

# A tree planted with its port down: softverbs's port is down too.
kind_plant_down() {
	local t=$CASE_DIR/tree

	split_args "$@"
	run_proc plant -- "$PLANT" "$t" --port-state down --env
	expect_rc plant
	expect_log plant '^SOFTVERBS_FAULT_PORT_DOWN=now$'
	expect_file class/infiniband/softv0/ports/1/state '1: DOWN'
	expect_file class/infiniband/softv0/ports/1/phys_state '3: Disabled'
	expect_file class/net/ib0/operstate down
	run_proc out SOFTVERBS_SYSFS="$t" -- ibv_devinfo
	expect_rc out
	expect_log out "state:${S}PORT_DOWN${S}\\(1\\)"
}

# A bad option value: exit 2, one line naming it, nothing written.
kind_plant_bad() {
	split_args "$@"
	run_proc plant -- "$PLANT" "$CASE_DIR/tree" "${ARGV[@]:1}"
	expect_rc plant 2
	expect_log plant "^sysfs-plant: .*${ARGV[0]}"
	expect_count plant . 1
	[ ! -e "$CASE_DIR/tree" ] || case_fail "tree written despite the bad value"
}

defcase plant_tree plant_tree
defcase plant_roce plant_roce
defcase plant_devinfo plant_devinfo
defcase plant_down plant_down
defcase plant_bad_pcie plant_bad "'7,8'" --pcie 7,8
defcase plant_bad_width plant_bad "'3x'" --width 3x
defcase plant_bad_speed plant_bad "'PDR'" --speed PDR
defcase plant_bad_pci plant_bad "'17:00.0'" --pci 17:00.0
defcase plant_bad_node plant_bad "'1=x'" --node 1=x
defcase plant_bad_option plant_bad "'--bogus'" --bogus

# ---------------------------------------------------------------- port counters

# cnt TREE NAME: a counter of the tree's port (hw_counters/NAME if the
# name has no counters/ file)
cnt() {
	local p=$1/class/infiniband/softv0/ports/1

	if [ -f "$p/counters/$2" ]; then
		cat "$p/counters/$2"
	else
		cat "$p/hw_counters/$2" 2>/dev/null || echo missing
	fi
}

# expect_cnt TREE NAME OP VALUE [WHY]: the counter compares (OP -eq or -ge)
expect_cnt() {
	local v

	v=$(cnt "$1" "$2")
	if [[ $v =~ ^[0-9]+$ ]]; then
		case $3 in
		-eq) [ "$v" -eq "$4" ] && return ;;
		-ge) [ "$v" -ge "$4" ] && return ;;
		esac
	fi
	case_fail "${1##*/}: $2 is $v (want $3 $4${5:+: $5})"
}

# ibv_rc_pingpong between two hosts, each on its own tree (as each end of
# a test on one machine is): each end's port counted its own traffic.
# -n 30 -s 4096 at path MTU 1024: 120 data packets each way.
kind_cnt_pingpong_2trees() {
	local s=$CASE_DIR/tree_s c=$CASE_DIR/tree_c n=30 size=4096

	split_args "$@"
	if ! "$PLANT" "$s" >/dev/null || ! "$PLANT" "$c" >/dev/null; then
		case_fail "sysfs-plant failed"
		return
	fi
	kind_pingpong "${ENV_BOTH[@]}" @s:SOFTVERBS_SYSFS="$s" @s:SOFTVERBS_NODE=1 \
		@c:SOFTVERBS_SYSFS="$c" @c:SOFTVERBS_NODE=2 ibv_rc_pingpong -n $n -s $size
	for t in "$s" "$c"; do
		expect_cnt "$t" port_xmit_data -ge $((n * size / 4)) "4-byte words of $n x $size bytes"
		expect_cnt "$t" port_rcv_data -ge $((n * size / 4)) "4-byte words of $n x $size bytes"
		expect_cnt "$t" port_xmit_packets -ge $((n * size / 1024)) "$n x 4 packets at MTU 1024"
		expect_cnt "$t" port_rcv_packets -ge $((n * size / 1024))
		expect_cnt "$t" port_rcv_errors -eq 0
		expect_cnt "$t" port_xmit_discards -eq 0
		expect_cnt "$t" out_of_sequence -eq 0
	done
	# what one end sent the other received, to the word
	expect_cnt "$s" port_rcv_data -eq "$(cnt "$c" port_xmit_data)" "the client's port_xmit_data"
	expect_cnt "$c" port_rcv_packets -eq "$(cnt "$s" port_xmit_packets)" "the server's port_xmit_packets"
	expect_cnt "$s" unicast_xmit_packets -eq "$(cnt "$s" port_xmit_packets)"
}

# Both ends on one tree and node (two processes sharing one HCA): no count
# is lost between them; the port sent what it received.
kind_cnt_pingpong_shared() {
	local t=$CASE_DIR/tree n=50 size=1024

	split_args "$@"
	"$PLANT" "$t" >/dev/null || { case_fail "sysfs-plant failed"; return; }
	kind_pingpong "${ENV_BOTH[@]}" SOFTVERBS_SYSFS="$t" ibv_rc_pingpong -n $n -s $size
	expect_cnt "$t" port_xmit_data -ge $((2 * n * size / 4)) "both ends' $n x $size bytes"
	expect_cnt "$t" port_xmit_data -eq "$(cnt "$t" port_rcv_data)" "port_rcv_data"
	expect_cnt "$t" port_xmit_packets -eq "$(cnt "$t" port_rcv_packets)" "port_rcv_packets"
	expect_cnt "$t" port_xmit_packets -ge $((2 * n))
}

# A semantics case on a planted tree; then ARGV[1..] are checks
# NAME:OP:VALUE on the tree's counters (VALUE "dropped": the messages the
# case says were lost, 200 minus the "(N)" of its drop line).
kind_cnt_sem() {
	local t=$CASE_DIR/tree chk name op v got

	split_args "$@"
	"$PLANT" "$t" >/dev/null || { case_fail "sysfs-plant failed"; return; }
	kind_semantics "${ENV_BOTH[@]}" SOFTVERBS_SYSFS="$t" "${ARGV[0]}"
	for chk in "${ARGV[@]:1}"; do
		IFS=: read -r name op v <<<"$chk"
		if [ "$v" = dropped ]; then
			got=$(grep -oE 'some but not all of 200 arrive \([0-9]+\)' "$CASE_DIR/out.log" | grep -oE '[0-9]+\)$' | tr -d ')')
			[ -n "$got" ] || { case_fail "no drop line in the case's output"; continue; }
			v=$((200 - got))
		fi
		expect_cnt "$t" "$name" "$op" "$v"
	done
}

# Without SOFTVERBS_SYSFS softverbs writes nothing, not even into a tree
# that exists (SYSFS_PATH alone is for readers).
kind_cnt_none() {
	local t=$CASE_DIR/tree before after

	split_args "$@"
	"$PLANT" "$t" >/dev/null || { case_fail "sysfs-plant failed"; return; }
	before=$(cd "$t" && find . -printf '%p %s %T@\n' | sort)
	kind_pingpong SYSFS_PATH="$t" ibv_rc_pingpong -n 20
	after=$(cd "$t" && find . -printf '%p %s %T@\n' | sort)
	[ "$before" = "$after" ] || case_fail "the tree changed without SOFTVERBS_SYSFS: $(diff <(echo "$before") <(echo "$after") | head -3 | tr '\n' ' ')"
	expect_cnt "$t" port_xmit_data -eq 0
}

# SOFTVERBS_SYSFS at a directory that is no tree: one line, no counters,
# the program runs.
kind_cnt_no_tree() {
	split_args "$@"
	mkdir -p "$CASE_DIR/empty"
	kind_pingpong SOFTVERBS_SYSFS="$CASE_DIR/empty" ibv_rc_pingpong -n 20
	expect_log server 'SOFTVERBS_SYSFS: no directory .*/ports/1/counters'
	[ ! -e "$CASE_DIR/empty/.softverbs" ] || case_fail "wrote into a directory that is no tree"
}

# RoCE with every message ECN-marked: the receiving port counts the marks
# and sends a CNP for each message, the sending port handles them.
kind_cnt_ecn() {
	local t=$CASE_DIR/tree n=20

	split_args "$@"
	"$PLANT" "$t" --link-layer eth >/dev/null || { case_fail "sysfs-plant failed"; return; }
	kind_pingpong SOFTVERBS_LINK_LAYER=eth SOFTVERBS_FAULT_ECN=1 SOFTVERBS_SYSFS="$t" \
		ibv_rc_pingpong -n $n -s 4096 -g 0
	expect_cnt "$t" np_ecn_marked_roce_packets -ge $((2 * n * 4)) "4 packets of each of 2 x $n messages"
	expect_cnt "$t" np_cnp_sent -ge $((2 * n))
	expect_cnt "$t" rp_cnp_handled -eq "$(cnt "$t" np_cnp_sent)" "np_cnp_sent (one port)"
}

defcase cnt_pingpong_2trees cnt_pingpong_2trees
defcase cnt_pingpong_shared cnt_pingpong_shared
defcase cnt_none cnt_none
defcase cnt_no_tree cnt_no_tree
defcase cnt_ecn cnt_ecn
defcase cnt_ud_drop cnt_sem fault_ud_drop port_rcv_errors:-eq:dropped port_xmit_packets:-eq:200
defcase cnt_uc_drop cnt_sem fault_uc_drop port_rcv_errors:-eq:dropped port_xmit_packets:-ge:200
defcase cnt_psn cnt_sem psn_mismatch out_of_sequence:-ge:1 packet_seq_err:-ge:1
defcase cnt_rnr cnt_sem rnr_wait rnr_nak_retry_err:-ge:1
defcase cnt_rnr_forced cnt_sem fault_rnr rnr_nak_retry_err:-ge:1
defcase cnt_port_down cnt_sem fault_port_down_later link_downed:-ge:1 local_ack_timeout_err:-ge:1
defcase cnt_peer_gone cnt_sem peer_destroyed local_ack_timeout_err:-ge:1
defcase cnt_fork cnt_sem fork_child port_xmit_packets:-ge:1

# While traffic flows the files follow it (a render at most every 50 ms):
# sampled 8 times, 50 ms apart, during a long pingpong, port_xmit_data takes several
# values, never goes down, and every sample is a whole number.  The
# pingpong is then stopped (own PIDs only).
kind_cnt_live() {
	local t=$CASE_DIR/tree spid cpid n v prev=0 seen=0 bad=
	local f=$CASE_DIR/tree/class/infiniband/softv0/ports/1/counters/port_xmit_data

	split_args "$@"
	"$PLANT" "$t" >/dev/null || { case_fail "sysfs-plant failed"; return; }
	pick_port || return
	spawn server SOFTVERBS_SYSFS="$t" -- ibv_rc_pingpong -n 1000000 -s 64 -p "$PORT"
	spid=$LAST_PID
	if ! wait_tcp "$PORT" "$spid"; then
		reap server "$spid"
		return
	fi
	spawn client SOFTVERBS_SYSFS="$t" SOFTVERBS_NODE=2 -- ibv_rc_pingpong -n 1000000 -s 64 -p "$PORT" localhost
	cpid=$LAST_PID
	for ((n = 0; n < 8; n++)); do
		sleep 0.05
		read -r v <"$f" || v=unreadable
		[[ $v =~ ^[0-9]+$ ]] || bad="sample '$v' is not a number"
		[ "${v:-0}" -ge "$prev" ] 2>/dev/null || bad="went down from $prev to $v"
		[ "$v" != "$prev" ] && seen=$((seen + 1))
		prev=$v
	done
	kill -0 "$cpid" 2>/dev/null || case_fail "the client ended before the sampling did"
	kill -TERM "$cpid" "$spid" 2>/dev/null
	reap client "$cpid"
	reap server "$spid"
	[ -z "$bad" ] || case_fail "port_xmit_data: $bad"
	[ "$seen" -ge 3 ] || case_fail "port_xmit_data changed $seen times in 8 samples 50 ms apart (want >= 3)"
}
defcase cnt_live cnt_live
defcase cnt_ud_no_recv cnt_sem ud_no_recv_mtu out_of_buffer:-ge:1
defcase cnt_uc_no_recv cnt_sem uc_silent out_of_buffer:-ge:1
