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
#   --no-build    do not run make (use what is built)
# Environment: SV_TIMEOUT=seconds per process (60).
# The last line is "N passed, N failed"; the exit status is 1 on any failure.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SV_BUILD=build
REPEAT=1
LIST=0
KEEP=0
BUILD=1
TMO=${SV_TIMEOUT:-60}
PATTERNS=()

while [ $# -gt 0 ]; do
	case $1 in
	--asan) SV_BUILD=build-san ;;
	--repeat)
		[ $# -ge 2 ] || { echo "run.sh: --repeat needs a count" >&2; exit 2; }
		REPEAT=$2
		shift ;;
	--list | -l) LIST=1 ;;
	--keep-logs) KEEP=1 ;;
	--no-build) BUILD=0 ;;
	-h | --help) sed -n '/^# usage:/,/^# The last line/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option '$1'; try --help" >&2; exit 2 ;;
	*) PATTERNS+=("$1") ;;
	esac
	shift
done
case $REPEAT in
'' | *[!0-9]*) echo "run.sh: bad --repeat count '$REPEAT'" >&2; exit 2 ;;
esac

if [ ! -e /usr/include/rdma/rdma_cma.h ] || [ "${NO_RDMA:-0}" = 1 ]; then
	echo "run.sh: softverbs-cm suite skipped (no rdma-core headers, or NO_RDMA set)"
	echo "0 passed, 0 failed"
	exit 0
fi

ASAN=0
[ "$SV_BUILD" = build-san ] && ASAN=1
LIB=$ROOT/softverbs/$SV_BUILD
CHKDIR=$HERE/$SV_BUILD
LOGROOT=$HERE/logs/run-$$
mkdir -p "$LOGROOT" "$CHKDIR" || exit 2

# ---------------------------------------------------------------- build

BUILD_OK=1
if [ $BUILD = 1 ]; then
	mk=(make -C "$ROOT/softverbs")
	cf="-O2 -g"
	if [ $ASAN = 1 ]; then
		mk+=('SANITIZE=address,undefined')
		cf="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined"
	fi
	if ! "${mk[@]}" >"$LOGROOT/build-softverbs.log" 2>&1; then
		echo "run.sh: building softverbs failed; see $LOGROOT/build-softverbs.log" >&2
		BUILD_OK=0
	elif ! make -C "$HERE" OUT="$CHKDIR" CFLAGS="$cf" \
		>"$LOGROOT/build-cmcheck.log" 2>&1; then
		echo "run.sh: building cmcheck or rscheck failed; see $LOGROOT/build-cmcheck.log" >&2
		BUILD_OK=0
	fi
fi

BASE_ENV=(LD_LIBRARY_PATH="$LIB")
if [ $ASAN = 1 ]; then
	# the stock programs are not instrumented: preload the runtimes
	asan_rt=$(gcc -print-file-name=libasan.so)
	ubsan_rt=$(gcc -print-file-name=libubsan.so)
	BASE_ENV+=(LD_PRELOAD="$asan_rt $ubsan_rt"
		ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
fi

# ---------------------------------------------------------------- processes

OWN_PIDS=()
LAST_PID=
CASE_DIR=
FABRIC=

# spawn NAME [VAR=VAL...] -- CMD ARGS...: start in the background, log to
# $CASE_DIR/NAME.log, set LAST_PID.
spawn() {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	printf '%s\n' "${BASE_ENV[*]} SOFTVERBS_FABRIC=$FABRIC ${envs[*]} $*" >"$CASE_DIR/$name.cmd"
	timeout -k 5 "$TMO" env "${BASE_ENV[@]}" SOFTVERBS_FABRIC="$FABRIC" \
		"${envs[@]}" "$@" >"$CASE_DIR/$name.log" 2>&1 </dev/null &
	LAST_PID=$!
	OWN_PIDS+=("$LAST_PID")
}

# reap NAME PID: wait for it; records and returns its exit status.
reap() {
	local rc p keep=()

	wait "$2"
	rc=$?
	echo "$rc" >"$CASE_DIR/$1.rc"
	for p in "${OWN_PIDS[@]}"; do
		[ "$p" = "$2" ] || keep+=("$p")
	done
	OWN_PIDS=("${keep[@]}")
	return $rc
}

run() {
	spawn "$@"
	reap "$1" "$LAST_PID"
}

# stop NAME PID: a server that runs until killed (cmtime): it must still be
# running; then TERM it (our own PID) and reap it.
stop() {
	if kill -0 "$2" 2>/dev/null; then
		kill -TERM "$2" 2>/dev/null
		reap "$1" "$2"
		echo 0 >"$CASE_DIR/$1.rc"
	else
		reap "$1" "$2"
		fail "$1 ended before it was stopped (status $(cat "$CASE_DIR/$1.rc"))"
	fi
}

kill_own() {
	local p

	for p in "${OWN_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${OWN_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	OWN_PIDS=()
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

PORT_NEXT=$((20000 + ($$ * 7) % 20000))
PORT=
pick_port() {
	PORT=$PORT_NEXT
	PORT_NEXT=$((PORT_NEXT + 1))
}

# a free TCP port for a program's own control connection (fi_pingpong)
pick_tcp_port() {
	local p

	for _ in $(seq 1 200); do
		p=$PORT_NEXT
		PORT_NEXT=$((PORT_NEXT + 1))
		if [ -z "$(ss -Htan "( sport = :$p or dport = :$p )" 2>/dev/null)" ]; then
			PORT=$p
			return 0
		fi
	done
	fail "no free TCP port found"
	return 1
}

# wait_tcp PORT PID: poll until PORT is listening
wait_tcp() {
	local end=$((SECONDS + 20))

	while [ -z "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; do
		if ! kill -0 "$2" 2>/dev/null; then
			fail "server ended before listening on TCP port $1"
			return 1
		fi
		if [ $SECONDS -ge $end ]; then
			fail "server not listening on TCP port $1 after 20 s"
			return 1
		fi
		sleep 0.02
	done
}

# wait_cm PS PORT PID: poll until the CM listener (port space PS in hex,
# e.g. 106 for TCP, 111 for UDP) of this case's fabric exists.
wait_cm() {
	local end=$((SECONDS + 20)) name="@softverbs-cm/$FABRIC/$1/$2"

	while ! ss -Hxl 2>/dev/null | grep -qF -- "$name "; do
		if ! kill -0 "$3" 2>/dev/null; then
			fail "server ended before listening ($name)"
			return 1
		fi
		if [ $SECONDS -ge $end ]; then
			fail "server not listening ($name) after 20 s"
			return 1
		fi
		sleep 0.02
	done
}

# ---------------------------------------------------------------- assertions

CASE_ERRS=()
fail() { CASE_ERRS+=("$*"); }

expect_rc() {
	local rc

	rc=$(cat "$CASE_DIR/$1.rc" 2>/dev/null)
	[ "$rc" = "${2:-0}" ] || fail "$1 exited with status ${rc:-?}$([ "$rc" = 124 ] && echo ' (timeout)') (want ${2:-0})"
}

expect_log() {
	grep -qE -- "$2" "$CASE_DIR/$1.log" || fail "$1: no line matching '${3:-$2}'"
}

expect_nolog() {
	local hit

	hit=$(grep -E -- "$2" "$CASE_DIR/$1.log" | grep -vE -- "${3:-^\$^}" | head -1)
	[ -z "$hit" ] || fail "$1: unexpected '$hit'"
}

# expect_count NAME ERE N: exactly N lines match
expect_count() {
	local n

	n=$(grep -cE -- "$2" "$CASE_DIR/$1.log")
	[ "$n" = "$3" ] || fail "$1: $n lines match '$2' (want $3)"
}

expect_positive() {
	local n=0 bad=0 line v

	while read -r line; do
		n=$((n + 1))
		v=$(printf '%s\n' "$line" | grep -oE '[0-9][0-9,]*(\.[0-9]+)?' | tail -1 | tr -d ,)
		awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || bad=$((bad + 1))
	done < <(grep -oE -- "$2" "$CASE_DIR/$1.log")
	if [ $n = 0 ]; then
		fail "$1: no figure matching '$2'"
	elif [ $bad != 0 ]; then
		fail "$1: $bad of $n figures matching '$2' are zero"
	fi
}

# ---------------------------------------------------------------- case kinds
#
# A case is "NAME KIND ARGS...".  Leading VAR=VAL args set the environment
# of both processes.

ENVS=()
ARGV=()
split_args() {
	ENVS=()
	ARGV=()
	while [ $# -gt 0 ]; do
		case $1 in
		[A-Z]*=*) ENVS+=("$1") ;;
		*) break ;;
		esac
		shift
	done
	ARGV=("$@")
}

# rping ADDR COUNT SIZE: -v prints every ping on both sides
kind_rping() {
	local spid addr=$1 count=$2 size=$3 last

	pick_port
	spawn server -- rping -s -a "$addr" -p "$PORT" -v -C "$count" -S "$size"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	run client -- rping -c -a "$addr" -p "$PORT" -v -C "$count" -S "$size"
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
	run client -- "$prog" -s 127.0.0.1 "${port[@]}" "$@"
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
	run client -- cmtime -s "$addr" -p "$PORT" -c "$conns"
	stop server "$spid"
	expect_rc client
	for step in 'create id' 'resolve addr' 'resolve route' 'create qp' \
		connect disconnect destroy; do
		expect_positive client "^$step *:( +[0-9.]+){4}"
	done
	expect_nolog client 'failed|error'
}

# perftest -R: both ends get the same options; the client prints the table
kind_perftest() {
	local spid

	split_args "$@"
	pick_port
	spawn server "${ENVS[@]}" -- "${ARGV[@]}" -R -d softv0 -p "$PORT"
	spid=$LAST_PID
	wait_cm 106 "$PORT" "$spid" || { reap server "$spid"; return; }
	run client "${ENVS[@]}" -- "${ARGV[@]}" -R -d softv0 -p "$PORT" 127.0.0.1
	reap server "$spid"
	expect_rc client
	expect_rc server
	expect_log client 'Data ex. method : rdma_cm'
	expect_log client '^ *#bytes +#iterations' '#bytes #iterations ... (the result table)'
	expect_positive client '^[[:space:]]*[0-9]+[[:space:]]+[0-9]+([[:space:]]+[0-9]+\.[0-9]+)+'
	case " ${ENVS[*]} " in
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
	run client -- "$prog" -s 127.0.0.1 -p "$PORT" "$@"
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
		fail "$VETH_ERR"
		return
	fi
	pick_tcp_port || return
	spawn server FI_VERBS_IFACE="$VETH" -- fi_pingpong -p "$prov" -e "$ep" -B "$PORT" -c "$@"
	spid=$LAST_PID
	wait_tcp "$PORT" "$spid" || { reap server "$spid"; return; }
	run client FI_VERBS_IFACE="$VETH" -- fi_pingpong -p "$prov" -e "$ep" -P "$PORT" -c "$@" "$VETH_IP"
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
		fail "cannot create /dev/infiniband (needs root)"
		return
	fi
	pick_tcp_port || return
	spawn server "${envs[@]}" -- unshare -m sh -c "$UCX_NS" sh ucx_perftest -p "$PORT"
	spid=$LAST_PID
	wait_tcp "$PORT" "$spid" || { reap server "$spid"; return; }
	run client "${envs[@]}" UCX_LOG_LEVEL=info -- unshare -m sh -c "$UCX_NS" sh \
		ucx_perftest 127.0.0.1 -p "$PORT" -t "$test" -s "$size" -n 500
	reap server "$spid"
	expect_rc client
	expect_rc server
	expect_log client "ep_cfg\[[0-9]+\]: .*$want/softv0:1" "ep_cfg lanes on $want/softv0:1"
	expect_positive client '^Final: +[0-9]+( +[0-9.]+){7}'
	expect_nolog client 'UCX +ERROR'
	expect_nolog server 'UCX +ERROR'
}

# the project's cmcheck or rscheck program: one of its cases
kind_check() {
	local envs=() prog=$1

	shift
	[ $ASAN = 1 ] && envs+=(ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 LD_PRELOAD=)
	run out "${envs[@]}" -- "$CHKDIR/$prog" "$@"
	expect_rc out
	expect_log out '^[1-9][0-9]* passed, 0 failed$' 'N passed, 0 failed'
	expect_nolog out '^FAIL'
}

# ---------------------------------------------------------------- the cases

CASES=()
defcase() { CASES+=("$*"); }
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

selected() {
	local p

	[ ${#PATTERNS[@]} = 0 ] && return 0
	for p in "${PATTERNS[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}

if [ $LIST = 1 ]; then
	for c in "${CASES[@]}"; do
		# shellcheck disable=SC2086
		set -- $c
		selected "$1" && printf '%-28s %s\n' "$1" "${*:2}"
	done
	exit 0
fi
if [ $BUILD_OK = 0 ] || [ ! -e "$LIB/librdmacm.so.1" ]; then
	echo "run.sh: no $LIB/librdmacm.so.1" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

PASSED=0
FAILED=0
START=$SECONDS

run_case() {
	local name=$1 kind=$2 t0 dt bad

	shift 2
	CASE_DIR=$RUNDIR/$name
	mkdir -p "$CASE_DIR"
	FABRIC=svcm$$-$ITER-$CASENO
	CASE_ERRS=()
	t0=$(date +%s.%N)
	"kind_$kind" "$@"
	if [ ${#OWN_PIDS[@]} -gt 0 ]; then
		fail "processes still running after the case: ${OWN_PIDS[*]}"
		kill_own
	fi
	bad=$(grep -lE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
		"$CASE_DIR"/*.log 2>/dev/null | sed "s|^$RUNDIR/||" | tr '\n' ' ')
	[ -z "$bad" ] || fail "sanitizer report in: $bad"
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ ${#CASE_ERRS[@]} = 0 ]; then
		PASSED=$((PASSED + 1))
		echo "ok   $name (${dt}s)"
		[ $KEEP = 1 ] || rm -rf "$CASE_DIR"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name (${dt}s): $(printf '%s; ' "${CASE_ERRS[@]}")logs: $CASE_DIR"
	fi
}

ITER=0
while [ $ITER -lt "$REPEAT" ]; do
	ITER=$((ITER + 1))
	RUNDIR=$LOGROOT/iter$ITER
	mkdir -p "$RUNDIR"
	[ "$REPEAT" -gt 1 ] && echo "# iteration $ITER of $REPEAT"
	it_fail=$FAILED
	CASENO=0
	for c in "${CASES[@]}"; do
		# shellcheck disable=SC2086
		set -- $c
		selected "$1" || continue
		CASENO=$((CASENO + 1))
		run_case "$@"
	done
	[ "$REPEAT" -gt 1 ] && echo "# iteration $ITER: $((FAILED - it_fail)) failed ($((SECONDS - START)) s so far)"
	rmdir "$RUNDIR" 2>/dev/null
done
veth_down
[ $DEVIB_MADE = 1 ] && rmdir /dev/infiniband 2>/dev/null
[ $KEEP = 1 ] || rm -f "$LOGROOT/veth.err"
[ $KEEP = 1 ] || rmdir "$LOGROOT" 2>/dev/null
echo "# wall time $((SECONDS - START)) s; logs: $LOGROOT"
echo "$PASSED passed, $FAILED failed"
[ $FAILED = 0 ]
