#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The verbs transports' driver (tests/rdma/xport_test) over softverbs:
# every case runs as two processes with their own SOFTVERBS_NODE; the
# "no RDMA device" case runs once more against the system's libibverbs
# (which finds no device on a machine without RDMA hardware), and the
# legacy_* cases play a 0.4.11 client against Debian's /usr/bin/qperf
# server, the legacy_srv_* cases serve its client (skipped when it is not
# installed).
#
# usage: tests/rdma/xport.sh [--asan] [--with-asan] [--no-build] [PATTERN...]
#   --asan       use the ASan+UBSan builds (driver and softverbs)
#   --with-asan  run the normal pass, then the same cases under ASan
#   --no-build   use what is built
#   PATTERN      shell patterns on case names (default: all; -l lists)
# The last line is "N passed, N failed"; the exit status is 1 on any
# failure.  Only processes this script starts are ever signalled.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PASSES=(plain)
BUILD=1
PATTERNS=()

while [ $# -gt 0 ]; do
	case $1 in
	--asan) PASSES=(asan) ;;
	--with-asan) PASSES=(plain asan) ;;
	--no-build) BUILD=0 ;;
	-h|--help) sed -n '/^# usage:/,/^# failure/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) PATTERNS+=("$1") ;;
	esac
	shift
done

# the common test library: checks_match (narrowing by QPERF_CHECKS),
# free_port
. "$ROOT/tests/lib.sh"

total_p=0
total_f=0
QPERF411=${QPERF411:-/usr/bin/qperf}

# want CASE: is CASE selected by the patterns?
want() {
	local pat
	checks_match "$1" || return 1
	[ ${#PATTERNS[@]} -eq 0 ] && return 0
	for pat in "${PATTERNS[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $pat ]] && return 0
	done
	return 1
}

# run_driver LABEL ENV... -- ARGS: one driver run, its counts added up.
run_driver() {
	local label=$1 out line p f
	shift
	out=$(mktemp)
	env "$@" >"$out" 2>&1
	cat "$out"
	line=$(tail -n 1 "$out")
	rm -f "$out"
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
	else
		echo "FAIL [$label] the driver ended without its summary line"
		p=0
		f=1
	fi
	total_p=$((total_p + p))
	total_f=$((total_f + f))
}

for pass in "${PASSES[@]}"; do
	if [ "$pass" = asan ]; then
		sv=build-san
		drv=$HERE/build-san/xport_test
		mk=(SANITIZE=address,undefined)
		# leaks are reported at each process's exit; softverbs' own
		# threads are still running then, so only the report counts
		san_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
			 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
	else
		sv=build
		drv=$HERE/build/xport_test
		mk=()
		san_env=()
	fi
	if [ $BUILD = 1 ]; then
		make -s -C "$ROOT/softverbs" "${mk[@]}" >/dev/null ||
			{ echo "FAIL [$pass] softverbs build"; total_f=$((total_f + 1)); continue; }
		make -s -C "$HERE" "${mk[@]}" >/dev/null ||
			{ echo "FAIL [$pass] driver build"; total_f=$((total_f + 1)); continue; }
	fi
	echo "# pass $pass: $drv over softverbs/$sv"
	run_driver "$pass" "${san_env[@]}" LD_LIBRARY_PATH="$ROOT/softverbs/$sv" \
		"$drv" "${PATTERNS[@]}"
	# no RDMA device at all: the system's libibverbs, no softverbs
	if want v_no_device; then
		if env -u LD_LIBRARY_PATH ibv_devices 2>/dev/null | grep -q '^ *[a-z]'; then
			echo "# v_no_device skipped: this machine has RDMA devices"
		else
			run_driver "$pass/nodev" -u LD_LIBRARY_PATH "${san_env[@]}" \
				XPORT_NO_RDMA=1 "$drv" v_no_device
		fi
	fi
	# wire compatibility: Debian's qperf 0.4.11 as the server
	lsel=()
	for c in $("$drv" -l | sed -n 's/^\(legacy_[a-z_]*\).*/\1/p'); do
		want "$c" && lsel+=("$c")
	done
	if [ ${#lsel[@]} -gt 0 ]; then
		if [ ! -x "$QPERF411" ]; then
			echo "# legacy cases skipped: no $QPERF411"
			continue
		fi
		port=$(free_port) || { echo "FAIL [$pass] no free port"; total_f=$((total_f + 1)); continue; }
		fab=xport-411-$$-$pass
		# a plain softverbs for it: 0.4.11 is not built with ASan
		LD_LIBRARY_PATH="$ROOT/softverbs/build" SOFTVERBS_NODE=2 \
			SOFTVERBS_FABRIC=$fab timeout 300 "$QPERF411" -lp "$port" \
			>/dev/null 2>&1 &
		qpid=$!
		for ((i = 0; i < 200; i++)); do
			[ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && break
			kill -0 $qpid 2>/dev/null || break
			sleep 0.05
		done
		run_driver "$pass/0.4.11" "${san_env[@]}" \
			LD_LIBRARY_PATH="$ROOT/softverbs/$sv" XPORT_FABRIC=$fab \
			XPORT_QPERF_PORT=$port XPORT_QPERF411="$QPERF411" \
			XPORT_411_LIBDIR="$ROOT/softverbs/build" \
			"$drv" "${lsel[@]}"
		kill $qpid 2>/dev/null
		wait $qpid 2>/dev/null
	fi
done
checks_none_note "$total_p" "$total_f"
echo "$total_p passed, $total_f failed"
[ "$total_f" = 0 ]
