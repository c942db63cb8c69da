#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# softverbs librdmacm suite: unmodified rdma_cm and rsockets programs
# (rdmacm-utils, perftest -R, libfabric) as two processes over softverbs'
# librdmacm.so.1 and libibverbs.so.1, plus the project's cmcheck (rdma_cm
# error events, event fields, a peer dying mid-connect) and rscheck
# (rsockets: EOF, reset, non-blocking, half-close, flow control, a peer
# dying mid-stream).
# Every case asserts on the programs' output, not only on exit codes.
#
# Rules kept here: the client starts only once the server's CM listener
# exists (its abstract socket "@softverbs-cm/<fabric>/<ps>/<port>", polled
# with ss -xl); every process runs under timeout(1); each case has its own
# SOFTVERBS_FABRIC, so cases and parallel runs never meet; only PIDs this
# script started are ever signalled.
#
# usage: tests/softverbs-cm/run.sh [OPTIONS] [PATTERN...]
#   PATTERN       shell patterns on case names (default: all); see --list
#   --asan        use the ASan+UBSan build (softverbs/build-san)
#   --repeat N    run the selected cases N times in a row (no-flake check)
#   --list        list the cases and exit
#   --keep-logs   keep the logs of passing cases too
#   --logdir DIR  where logs go (default tests/softverbs-cm/logs/run-PID)
#   --no-build    do not run make (use what is built)
# Environment: SV_TIMEOUT=seconds per process (60).
# The last line is "N passed, N failed"; the exit status is 1 on any failure.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../softverbs/lib.sh
. "$ROOT/tests/softverbs/lib.sh"
SV_BUILD=build
TMO=${SV_TIMEOUT:-60}

local_opt() {
	case $1 in
	--asan) SV_BUILD=build-san ;;
	*) return 1 ;;
	esac
}
parse_opts "$@"
skip_unless /usr/include/rdma/rdma_cma.h softverbs-cm

ASAN=0
[ "$SV_BUILD" = build-san ] && ASAN=1
LIB=$ROOT/softverbs/$SV_BUILD
CHKDIR=$HERE/$SV_BUILD
LOGROOT=${LOGROOT:-$HERE/logs/run-$$}
mkdir -p "$LOGROOT" "$CHKDIR" || exit 2

# ---------------------------------------------------------------- build

BUILD_OK=1
if [ $BUILD = 1 ]; then
	build_softverbs && build_here "$CHKDIR" build-cmcheck "cmcheck or rscheck" || BUILD_OK=0
fi

# the stock programs are not instrumented: preload the runtimes
set_base_env libasan.so libubsan.so

# ---------------------------------------------------------------- processes

# stop NAME PID: a server that runs until killed (cmtime): it must still be
# running; then TERM it (our own PID) and reap it.
stop() {
	if kill -0 "$2" 2>/dev/null; then
		kill -TERM "$2" 2>/dev/null
		reap "$1" "$2"
		echo 0 >"$CASE_DIR/$1.rc"
	else
		reap "$1" "$2"
		case_fail "$1 ended before it was stopped (status $(cat "$CASE_DIR/$1.rc"))"
	fi
}

# libfabric's verbs provider skips loopback: its cases give the emulated
# host an address on a veth pair this script creates (as root) and deletes.
VETH=svcm$$a
VETH_PEER=svcm$$b
VETH_IP=10.$((200 + $$ % 50)).$(( ($$ / 50) % 250)).1
VETH_UP=0
VETH_ERR=
veth_up() {
	[ $VETH_UP = 1 ] && return 0
	[ -n "$VETH_ERR" ] && return 1
	if ! ip link add "$VETH" type veth peer name "$VETH_PEER" 2>"$LOGROOT/veth.err" ||
		! ip addr add "$VETH_IP/24" dev "$VETH" 2>>"$LOGROOT/veth.err" ||
		! ip link set "$VETH" up 2>>"$LOGROOT/veth.err" ||
		! ip link set "$VETH_PEER" up 2>>"$LOGROOT/veth.err"; then
		VETH_ERR="cannot create veth $VETH ($(head -1 "$LOGROOT/veth.err"); needs root)"
		ip link del "$VETH" 2>/dev/null
		return 1
	fi
	VETH_UP=1
}
veth_down() {
	[ $VETH_UP = 1 ] && ip link del "$VETH" 2>/dev/null
	VETH_UP=0
}
# UCX's ib module lists a verbs device only if /dev/infiniband/<dev_name>
# (softverbs: uverbs0) is a character device it may read and write, as on
# a host with the kernel's uverbs.  Each UCX process gets one in a private
# mount namespace: a tmpfs on /dev/infiniband holding a 1:3 node (the
# /dev/null driver; UCX never does I/O on it).  The mount point itself is
# created if missing and removed at the end.
DEVIB_MADE=0
UCX_NS='mount -t tmpfs softverbs-cm /dev/infiniband && mknod /dev/infiniband/uverbs0 c 1 3 && exec "$@"'
devib_dir() {
	[ -d /dev/infiniband ] && return 0
	mkdir /dev/infiniband 2>/dev/null || return 1
	DEVIB_MADE=1
}
trap 'kill_own; veth_down; [ $DEVIB_MADE = 1 ] && rmdir /dev/infiniband 2>/dev/null; exit 130' INT TERM

PORT_START=20000
PORT_NEXT=$((PORT_START + ($$ * 7) % 20000))
pick_port() {
	PORT=$PORT_NEXT
	PORT_NEXT=$((PORT_NEXT + 1))
}

cm_listening() { ss -Hxl 2>/dev/null | grep -qF -- "$1 "; }

# wait_cm PS PORT PID: poll until the CM listener (port space PS in hex,
# e.g. 106 for TCP, 111 for UDP) of this case's fabric exists.
wait_cm() {
	local name="@softverbs-cm/$FABRIC/$1/$2"

	wait_until "($name)" "$3" cm_listening "$name"
}

# ---------------------------------------------------------------- case kinds
#
# A case is "NAME KIND ARGS..."; split_args (lib.sh): leading VAR=VAL args
# set the environment of both processes.

# rping ADDR COUNT SIZE: -v prints every ping on both sides
kind_rping() {
	local spid addr=$1 count=$2 size=$3 last

	pick_port
	spawn server -- rping -s -a "$addr" -p "$PORT" -v -C "$count" -S "$size"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client -- rping -c -a "$addr" -p "$PORT" -v -C "$count" -S "$size"
	reap server "$spid"
	expect_rc client
	expect_rc server
	last=$((count - 1))
	expect_count client '^ping data: rdma-ping-[0-9]+: ' "$count"
	expect_count server '^server ping data: rdma-ping-[0-9]+: ' "$count"
	expect_log client "^ping data: rdma-ping-$last: "
	# the payload is the rotating alphabet, size - 1 bytes and a NUL
	expect_log client "^ping data: rdma-ping-0: ABCDEFGHIJ"
	expect_nolog client 'error|failed|unhandled'
	expect_nolog server 'error|failed|unhandled'
}

# ucmatose / udaddy ARGS...: both print "data transfers complete" and
# "return status 0"
kind_cmatose() {
	local spid prog=$1 ps=106 port=()

	shift
	[ "$prog" = udaddy ] && ps=111
	pick_port
	if [ "$prog" = udaddy ]; then
		PORT=7174	# udaddy has no port option; fabrics keep cases apart
	else
		port=(-p "$PORT")
	fi
	spawn server -- "$prog" "${port[@]}" "$@"
	spid=$LAST_PID
	wait_cm $ps "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client -- "$prog" -s 127.0.0.1 "${port[@]}" "$@"
	reap server "$spid"
	expect_rc client
	expect_rc server
	for side in client server; do
		expect_log $side '^data transfers complete$'
		expect_log $side '^return status 0$'
		expect_nolog $side 'failed|error'
	done
}

# cmtime ADDR CONNECTIONS [SERVER ARGS]: the server runs until killed
kind_cmtime() {
	local spid step addr=$1 conns=$2

	shift 2
	pick_port
	spawn server -- cmtime -p "$PORT" "$@"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client -- cmtime -s "$addr" -p "$PORT" -c "$conns"
	stop server "$spid"
	expect_rc client
	for step in 'create id' 'resolve addr' 'resolve route' 'create qp' \
		connect disconnect destroy; do
		expect_positive client "^$step *:( +[0-9.]+){4}"
	done
	expect_nolog client 'failed|error'
}

# rdma_server/rdma_client, rdma_xserver/rdma_xclient SERVER CLIENT [-c r|x]:
# synchronous endpoints (rdma_create_ep with no PD, no CQs, the QP type
# from rdma_getaddrinfo; rdma_get_request; rdma_get_send_comp and
# rdma_get_recv_comp on the CQs the library made; inline sends nobody
# asked room for); with -c x an XRC target QP and XRC SRQ in the default
# XRC domain (port space IB).  Each prints exactly "NAME: start" and
# "NAME: end 0" (any perror, or the server's "doesn't support
# IBV_SEND_INLINE", is a line more).
kind_rdmaex() {
	local spid srv=$1 cli=$2 ps=106

	shift 2
	[ "$*" = "-c x" ] && ps=13f
	pick_port
	spawn server -- "$srv" -p "$PORT" "$@"
	spid=$LAST_PID
	wait_cm $ps "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client -- "$cli" -s 127.0.0.1 -p "$PORT" "$@"
	reap server "$spid"
	expect_rc client
	expect_rc server
	expect_log client "^$cli: end 0\$"
	expect_log server "^$srv: end 0\$"
	expect_count client '' 2
	expect_count server '' 2
}

# rcopy SIZE...: one server (it serves until stopped) takes a copy of a
# file of SIZE random bytes for each SIZE, one connection after another;
# each copy must equal its source.
kind_rcopy() {
	local spid size src dst n=0

	pick_port
	spawn server -- rcopy -p "$PORT"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	for size in "$@"; do
		n=$((n + 1))
		src=$CASE_DIR/src$n.bin
		dst=$CASE_DIR/dst$n.bin
		head -c "$size" /dev/urandom >"$src"
		run_proc client$n -- rcopy "$src" "127.0.0.1:$dst" -p "$PORT"
		expect_rc client$n
		expect_log client$n "^opening\.\.\.transferring\.\.\.closing\.\.\.done\$"
		expect_log client$n "^$size bytes in [0-9.]+ seconds = [0-9.]+ Gb/sec\$"
		# The server says done after its own close, which may come
		# after the client has ended (seen in CI under ASan): wait.
		wait_for 10 grep -qE -- "^opening: $dst, transferring\.\.\.$size bytes\.\.\.closing\.\.\.done\$" "$CASE_DIR/server.log"
		expect_log server "^opening: $dst, transferring\.\.\.$size bytes\.\.\.closing\.\.\.done\$"
		cmp -s "$src" "$dst" || case_fail "copy $n ($size bytes) differs from its source"
	done
	stop server "$spid"
	expect_count server '^waiting for connection\.\.\.client: 127\.0\.0\.1$' $#
	rm -f "$CASE_DIR"/src*.bin "$CASE_DIR"/dst*.bin
}

# mckey [VAR=VAL...] GROUP MGID [ARGS...]: two receivers (one with two
# ids) join GROUP; once their three QPs are members (their names
# "@softverbs/<fabric>/m/..." in ss -xa: mckey's own output is buffered)
# a sender with two ids sends 10 messages from each to the group.  A
# receiver ends (status 0, "data transfers complete") only once each of
# its ids has received 10; every join reports the group's MGID, the
# kernel's mapping of GROUP.
mc_members() { [ "$(ss -Hxa 2>/dev/null | grep -cF -- "@softverbs/$FABRIC/m/")" -ge "$1" ]; }
kind_mckey() {
	local r1 r2 grp mgid side

	split_args "$@"
	grp=${ARGV[0]}
	mgid=${ARGV[1]}
	ARGV=("${ARGV[@]:2}")
	spawn recv1 "${ENV_BOTH[@]}" -- mckey -m "$grp" -C 10 -c 2 "${ARGV[@]}"
	r1=$LAST_PID
	spawn recv2 "${ENV_BOTH[@]}" -- mckey -m "$grp" -C 10 "${ARGV[@]}"
	r2=$LAST_PID
	if ! wait_until "(3 group members)" "$r1" mc_members 3; then
		reap recv1 "$r1"
		reap recv2 "$r2"
		return
	fi
	run_proc send "${ENV_BOTH[@]}" -- mckey -m "$grp" -C 10 -c 2 -s "${ARGV[@]}"
	reap recv1 "$r1"
	reap recv2 "$r2"
	for side in send recv1 recv2; do
		expect_rc $side
		expect_log $side '^data transfers complete$'
		expect_log $side '^return status 0$'
		expect_nolog $side 'fail|error|event:'
	done
	expect_count send "^mckey: joined dgid: $mgid mlid 0x[0-9a-f]+ sl 0\$" 2
	expect_count recv1 "^mckey: joined dgid: $mgid mlid 0x[0-9a-f]+ sl 0\$" 2
	expect_count recv2 "^mckey: joined dgid: $mgid mlid 0x[0-9a-f]+ sl 0\$" 1
	expect_log send '^initiating data transfers$'
	expect_log recv1 '^receiving data transfers$'
}

# udpong ARGS...: datagram rsockets (UD QPs); the same options on both
# ends, the server bound to 127.0.0.1.  The server logs the client's login;
# the client prints the result line, whose figures (transfers the server
# counted: datagrams may be lost, as with UDP) are > 0.
kind_udpong() {
	local spid

	pick_port
	spawn server -- udpong -b 127.0.0.1 -p "$PORT" "$@"
	spid=$LAST_PID
	wait_cm 111 "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client -- udpong -s 127.0.0.1 -p "$PORT" "$@"
	stop server "$spid"
	expect_rc client
	expect_log client '^name +bytes +xfers +total +time +Gb/sec +usec/xfer$'
	expect_positive client '^custom +[0-9.]+[kmg]? +[0-9.]+[kmg]?'
	expect_positive client '^custom( +[0-9.]+[kmg]?){3} +[0-9.]+s +[0-9.]+ +[0-9.]+'
	expect_nolog client 'rsend|rrecv|rsocket|rbind|rconnect|fail'
	expect_nolog server 'rsend|rrecv|rsocket|rbind|fail'
}

# perftest -R: both ends get the same options; the client prints the table.
# perftest connects twice to the port: the server listens again only after
# the handshake on the first connection, and the client connects right
# after it; a REJECTED there makes perftest 4.5 retry on freed ids and
# crash.  So the client's REQ waits for the second listener
# (SOFTVERBS_CM_REQ_WAIT_MS), as it waits for the first one here.
kind_perftest() {
	local spid

	split_args "$@"
	ENV_BOTH+=(SOFTVERBS_CM_REQ_WAIT_MS=$((TMO * 1000 / 2)))
	pick_port
	spawn server "${ENV_BOTH[@]}" -- "${ARGV[@]}" -R -d softv0 -p "$PORT"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client "${ENV_BOTH[@]}" -- "${ARGV[@]}" -R -d softv0 -p "$PORT" 127.0.0.1
	reap server "$spid"
	expect_rc client
	expect_rc server
	expect_log client 'Data ex. method : rdma_cm'
	expect_log client '^ *#bytes +#iterations' '#bytes #iterations ... (the result table)'
	expect_positive client '^[[:space:]]*[0-9]+[[:space:]]+[0-9]+([[:space:]]+[0-9]+\.[0-9]+)+'
	case " ${ENV_BOTH[*]} " in
	*LINK_LAYER=eth*) expect_log client 'Link type +: Ethernet' ;;
	*) expect_log client 'Link type +: IB' ;;
	esac
}

# rstream / riostream OPTIONS...: the same options on both ends; both print
# the result line (custom size) with a figure > 0
kind_rstream() {
	local spid prog=$1

	shift
	pick_port
	spawn server -- "$prog" -p "$PORT" "$@"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client -- "$prog" -s 127.0.0.1 -p "$PORT" "$@"
	reap server "$spid"
	expect_rc client
	expect_rc server
	for side in client server; do
		expect_log $side '^name +bytes +xfers +iters +total +time +Gb/sec +usec/xfer'
		expect_positive $side '^custom( +[0-9.]+[kmg]?){3} +[0-9.]+[kmg]? +[0-9.]+s +[0-9.]+ +[0-9.]+'
		expect_nolog $side 'rsend|rrecv|rpoll|riowrite|riomap|rconnect|raccept|failed|error'
	done
}

# fi_pingpong PROVIDER EP_TYPE ARGS...: over the veth address; -c checks
# the data; the client prints the table with a rate > 0
kind_fabric() {
	local spid prov=$1 ep=$2

	shift 2
	if ! veth_up; then
		case_fail "$VETH_ERR"
		return
	fi
	pick_tcp_port || return
	spawn server FI_VERBS_IFACE="$VETH" -- fi_pingpong -p "$prov" -e "$ep" -B "$PORT" -c "$@"
	spid=$LAST_PID
	wait_tcp "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client FI_VERBS_IFACE="$VETH" -- fi_pingpong -p "$prov" -e "$ep" -P "$PORT" -c "$@" "$VETH_IP"
	reap server "$spid"
	expect_rc client
	expect_rc server
	expect_log client '^bytes +#sent +#ack +total +time +MB/sec +usec/xfer'
	expect_positive client '^[0-9.]+[kmg]? +[0-9]+ +=[0-9]+ +[0-9.]+[kmg]? +[0-9.]+s +[0-9.]+ +[0-9.]+'
	expect_nolog client 'error|Error'
	expect_nolog server 'error|Error'
}

# ucx_perftest TLS TEST SIZE: UCX_TLS=TLS on the softverbs device; the
# client's lanes must use the first transport and print the Final row
kind_ucx() {
	local spid tls=$1 test=$2 size=$3 want=${1%%,*}
	local envs=(UCX_TLS="$tls" UCX_NET_DEVICES=softv0:1)

	if ! devib_dir; then
		case_fail "cannot create /dev/infiniband (needs root)"
		return
	fi
	pick_tcp_port || return
	spawn server "${envs[@]}" -- unshare -m sh -c "$UCX_NS" sh ucx_perftest -p "$PORT"
	spid=$LAST_PID
	wait_tcp "$PORT" "$spid" || { reap server "$spid"; return; }
	run_proc client "${envs[@]}" UCX_LOG_LEVEL=info -- unshare -m sh -c "$UCX_NS" sh \
		ucx_perftest 127.0.0.1 -p "$PORT" -t "$test" -s "$size" -n 500
	reap server "$spid"
	expect_rc client
	expect_rc server
	expect_log client "ep_cfg\[[0-9]+\]: .*$want/softv0:1" "ep_cfg lanes on $want/softv0:1"
	# Final: iterations, median, the last interval's average (inf when
	# that interval was empty: seen on a loaded machine), overall, then
	# bandwidth and message rate (interval, overall); the last, the
	# overall message rate, must be positive.
	expect_positive client '^Final: +[0-9]+ +[0-9.]+ +([0-9.]+|inf) +[0-9.]+( +[0-9.]+){2} +([0-9.]+|inf) +[0-9.]+'
	expect_nolog client 'UCX +ERROR'
	expect_nolog server 'UCX +ERROR'
}

# the project's cmcheck or rscheck program: one of its cases
kind_check() {
	local envs=() prog=$1

	shift
	[ $ASAN = 1 ] && envs+=(ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 LD_PRELOAD=)
	run_proc out "${envs[@]}" -- "$CHKDIR/$prog" "$@"
	expect_rc out
	expect_log out '^[1-9][0-9]* passed, 0 failed$' 'N passed, 0 failed'
	expect_nolog out '^FAIL'
}

# ---------------------------------------------------------------- the cases

ROCE=SOFTVERBS_LINK_LAYER=eth

defcase rping_v4 rping 127.0.0.1 10 64
defcase rping_v6 rping ::1 10 64
defcase rping_big rping 127.0.0.1 5 65000
defcase rping_many rping 127.0.0.1 200 100
defcase ucmatose cmatose ucmatose
defcase ucmatose_conns cmatose ucmatose -c 8 -C 20
defcase ucmatose_sizes cmatose ucmatose -c 2 -C 10 -S 4096
defcase udaddy cmatose udaddy
defcase udaddy_conns cmatose udaddy -c 4 -C 20
defcase cmtime cmtime 127.0.0.1 50
defcase cmtime_v6 cmtime ::1 20 -b ::1
defcase rdma_server rdmaex rdma_server rdma_client
defcase rdma_xserver_rc rdmaex rdma_xserver rdma_xclient -c r
defcase rdma_xserver_xrc rdmaex rdma_xserver rdma_xclient -c x
defcase rcopy rcopy 300000 4194304 1
defcase mckey_v4 mckey 239.1.1.1 ff12:4001:ffff::f01:101 -b 127.0.0.1
defcase mckey_v6_roce mckey $ROCE ff0e::1234 ff0e::1234
# udpong: echo (every datagram answered) async, and one-way blocking.
# udpong's echo client sends again whenever an answer takes over 1 ms or
# is a stale one, so on a loaded machine duplicates pile up and each
# round costs more: a short count keeps the case quick there too.
defcase udpong_echo udpong -C 100 -S 100 -T e -T a
defcase udpong_bw udpong -C 1000 -S 4000 -T b
for t in ib_send_bw ib_send_lat ib_write_bw ib_write_lat ib_read_bw ib_read_lat; do
	defcase "${t}_R" perftest "$t" -n 200
	defcase "${t}_R_roce" perftest $ROCE "$t" -n 200
done
# rstream: blocking, non-blocking and async (rpoll), verified data, sizes
# from 64 B to 1 MB; riostream: riowrite into the peer's iomapped buffer
defcase rstream_b64 rstream rstream -S 64 -C 1000 -T b -T v
defcase rstream_b1m rstream rstream -S 1000000 -C 20 -T b -T v
defcase rstream_n100 rstream rstream -S 100 -C 1000 -T n -T v
defcase rstream_n1m rstream rstream -S 1000000 -C 10 -T n -T v
defcase rstream_a64k rstream rstream -S 65536 -C 100 -T a -T v
defcase rstream_b4k rstream rstream -S 4096 -C 500 -T b -T v
defcase riostream_b64 rstream riostream -S 64 -C 1000 -T b
defcase riostream_b1m rstream riostream -S 1000000 -C 20 -T b
defcase riostream_a64k rstream riostream -S 65536 -C 100 -T a
defcase riostream_n4k rstream riostream -S 4096 -C 100 -T n
# libfabric: the verbs provider (MSG endpoints over rdma_cm) and RDM
# endpoints of ofi_rxm over verbs (fi_rdm_pingpong is in fabtests, which
# Debian does not package: fi_pingpong -e rdm is the same endpoint type)
defcase fi_pingpong_verbs fabric verbs msg -I 100 -S 1024
defcase fi_pingpong_verbs_sizes fabric verbs msg -I 20 -S all
defcase fi_pingpong_rxm fabric 'verbs;ofi_rxm' rdm -I 100 -S 1024
defcase fi_pingpong_rxm_64k fabric 'verbs;ofi_rxm' rdm -I 50 -S 65536
# UCX over softverbs' verbs (no rdma_cm): RC (wired up through UD, as UCX
# does) and UD, latency and bandwidth
defcase ucx_rc_lat ucx rc_verbs,ud_verbs:aux tag_lat 8
defcase ucx_rc_bw ucx rc_verbs,ud_verbs:aux tag_bw 65536
defcase ucx_ud_lat ucx ud_verbs tag_lat 8
defcase ucx_ud_bw ucx ud_verbs tag_bw 4096
for prog in cmcheck rscheck; do
	if [ -x "$CHKDIR/$prog" ]; then
		for t in $("$CHKDIR/$prog" -l | awk '{ print $1 }'); do
			defcase "${prog%check}_$t" check "$prog" "$t"
		done
	else
		defcase "$prog" check "$prog"
	fi
done


# ---------------------------------------------------------------- main loop

if [ $LIST = 1 ]; then
	list_cases
	exit 0
fi
if [ $BUILD_OK = 0 ] || [ ! -e "$LIB/librdmacm.so.1" ]; then
	echo "run.sh: no $LIB/librdmacm.so.1" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

START=$SECONDS
FABRIC_PREFIX=svcm$$
run_all
veth_down
[ $DEVIB_MADE = 1 ] && rmdir /dev/infiniband 2>/dev/null
[ $KEEP = 1 ] || rm -f "$LOGROOT/veth.err"
[ $KEEP = 1 ] || rmdir "$LOGROOT" 2>/dev/null
echo "# wall time $((SECONDS - START)) s; logs: $LOGROOT"
echo "$PASSED passed, $FAILED failed"
[ $FAILED = 0 ]
