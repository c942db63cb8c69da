# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
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

	split_args "$@"
	run_proc out "${ENV_BOTH[@]}" -- ibv_devinfo -v
	expect_rc out
	expect_log out 'state:[[:space:]]+PORT_ACTIVE'
	for p in "${ARGV[@]}"; do
		case $p in
		!*) expect_nolog out "${p#!}" ;;
		*) expect_log out "$p" ;;
		esac
	done
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
