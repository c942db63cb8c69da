#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The RDMA verbs tests of this qperf over softverbs (our user-space
# libibverbs.so.1): two emulated hosts (SOFTVERBS_NODE 1 = server, 2 =
# client) on one private fabric.  Every test in event and polling mode,
# InfiniBand and RoCE link layers; count mode; the interop matrix with
# Debian's qperf 0.4.11 in both directions; bad input; injected faults;
# aborted clients.  Every check asserts on the output.  Figures measured
# here measure the emulator, not a fabric: only their presence is checked.
#   SV_LIB=DIR     softverbs library directory (default softverbs/build)
#   RDMA_QUICK=1   only the first section (for a fast look)
. "$(dirname "$0")/../lib.sh"

SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
TT=${TT:-0.3}
if [ ! -e "$SV_LIB/libibverbs.so.1" ]; then
	fail "softverbs is built ($SV_LIB/libibverbs.so.1)" "run make first"
	finish
fi
if ! "$QPERF" --version | grep -q 'rdma: built'; then
	fail "this qperf has the RDMA tests" "$("$QPERF" --version)"
	finish
fi
export LD_LIBRARY_PATH=$SV_LIB
export SOFTVERBS_FABRIC=qperf-rdma-$$
export SOFTVERBS_NODE=1
if [ -n "${SV_PRELOAD:-}" ]; then
	export LD_PRELOAD=$SV_PRELOAD # the ASan runtime for 0.4.11
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
fi

ALL_TESTS="rc_bi_bw rc_bw rc_compare_swap_mr rc_fetch_add_mr rc_lat
rc_rdma_read_bw rc_rdma_read_lat rc_rdma_write_bw rc_rdma_write_lat
rc_rdma_write_poll_lat uc_bi_bw uc_bw uc_lat uc_rdma_write_bw
uc_rdma_write_lat uc_rdma_write_poll_lat ud_bi_bw ud_bw ud_lat
ver_rc_compare_swap ver_rc_fetch_add xrc_bi_bw xrc_bw xrc_lat"
LEGACY_TESTS=$(echo $ALL_TESTS | tr ' ' '\n' | grep -v '^xrc_')

# The headline a test must print (spec §3.5).
headline() {
	case $1 in
	*_mr | ver_*) echo '^    msg_rate  =  +[0-9.,]+ [KMG]?/sec$' ;;
	*_lat) echo '^    latency  =  +[0-9.,]+ (ns|us|ms|sec)$' ;;
	uc_*bw | ud_*bw) echo '^    recv_bw  =  +[0-9.,]+ [KMGT]?B/sec$' ;;
	*) echo '^    bw  =  +[0-9.,]+ [KMGT]?B/sec$' ;;
	esac
}

# C ARGS...: our client (node 2) against the current server.
C() {
	run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" "$@"
}
# L ARGS...: Debian's 0.4.11 client (node 2) against the current server.
L() {
	run env SOFTVERBS_NODE=2 "$LEGACY_QPERF" localhost -lp "$PORT" "$@"
}

# matrix LABEL CLIENT-FUNCTION TIME TESTS [OPTIONS...]
matrix() {
	local label=$1 fn=$2 t=$3 tests=$4 test
	shift 4
	for test in $tests; do
		$fn -t "$t" "$@" "$test"
		expect "$label: $test${*:+ $*}" 0 "$(headline "$test")" \
			"$( [ "$fn" = C ] && echo '^$')"
	done
}

# --- our client and server, InfiniBand ------------------------------------
start_server || { fail "our server starts"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "IB events" C "$TT" "$ALL_TESTS"
[ -n "${RDMA_QUICK:-}" ] && finish
matrix "IB -cp1" C "$TT" "$ALL_TESTS" -cp1
check_alive "our server serves after the IB matrix" "$PORT" "$SPID"
finish
