#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The RDMA verbs tests of this qperf over softverbs (after the verbs
# transports' own driver, tests/rdma/xport.sh) (our user-space
# libibverbs.so.1): two emulated hosts (SOFTVERBS_NODE 1 = server, 2 =
# client) on one private fabric.  Every test in event and polling mode,
# InfiniBand and RoCE link layers; count mode; the interop matrix with
# Debian's qperf 0.4.11 in both directions; bad input; injected faults;
# aborted clients.  Every check asserts on the output.  Figures measured
# here measure the emulator, not a fabric: only their presence is checked.
#   SV_LIB=DIR     softverbs library directory (default softverbs/build)
#   RDMA_QUICK=1   only the first section (for a fast look)
#   RDMA_KNOBS=1   only the verbs knobs and NUMA section (tests/rdma/knobs.sh)
#   RDMA_STREAMS=1 only --streams (tests/rdma/streams.sh)
#   RDMA_QPS=1     only --qps (tests/rdma/qps.sh)
#   RDMA_PACE=1    only --rate (tests/rdma/pace.sh)
#   RDMA_COUNTERS=1 only the port counters (tests/rdma/counters.sh; with
#                  RDMA_PASS=plain, one pass)
#   RDMA_CEILING=1 only the ceiling and host checks (tests/rdma/ceiling.sh)
#   RDMA_CM_ONLY=1 only -cm1 and rsockets (tests/rdma/cm.sh; with
#                  RDMA_PASS=plain, one pass)
#   RDMA_ASAN=1    the whole suite on ASan+UBSan builds of this qperf and
#                  of softverbs (the default when CI=true); the plain
#                  build's pass is then lean: every test once, and the
#                  delayed-UD median rule (ASan's timing cannot judge it)
#   RDMA_LEAN=1    (set by the above) that lean plain pass
#   QPERF_CHECKS   narrowing (tests/run.sh rdma:PATTERN): a PATTERN naming
#                  parts (xport, qperf, json) runs them alone and whole;
#                  any other narrows the checks and cases of every part

# The two passes: this script runs itself once per pass and adds up.
if [ -z "${RDMA_PASS:-}" ]; then
	want_asan=${RDMA_ASAN:-$([ "${CI:-}" = true ] && echo 1 || echo 0)}
	HERE=$(cd "$(dirname "$0")" && pwd)
	ROOT=$(cd "$HERE/../.." && pwd)
	tp=0 tf=0
	add() { # add the counts of a pass's last line
		local l
		l=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
		if [ -z "$l" ]; then tf=$((tf + 1)); return; fi
		tp=$((tp + ${l%% passed*}))
		l=${l#*passed, }
		tf=$((tf + ${l%% failed*}))
	}
	# Narrowing (QPERF_CHECKS, tests/run.sh rdma:PATTERN): a pattern that
	# names parts (xport, qperf, json) runs them whole, and only them;
	# otherwise every part runs and narrows its own checks.
	. "$ROOT/tests/lib.sh" # checks_match
	parts=()
	for p in xport qperf json; do
		[ -n "${QPERF_CHECKS:-}" ] && checks_match "$p" && parts+=("$p")
	done
	[ ${#parts[@]} -gt 0 ] && unset QPERF_CHECKS
	part() { # NAME: does part NAME run?
		[ ${#parts[@]} -eq 0 ] || [[ " ${parts[*]} " == *" $1 "* ]]
	}
	log=$(mktemp)
	if part xport; then
		echo "=== the verbs transports' driver (tests/rdma/xport.sh)"
		# In CI on the ASan+UBSan build only: the same cases, and the
		# plain build runs each qperf RDMA test once below.
		bash "$HERE/xport.sh" $([ "$want_asan" = 1 ] && echo --asan) 2>&1 |
			tee "$log"
		add "$log"
	fi
	if part qperf; then
		echo "=== qperf's RDMA tests"
		# Beside the ASan pass, which runs every check, the plain
		# build's pass is lean (RDMA_LEAN: each test once, and the
		# timing rule the ASan pass cannot judge).
		RDMA_PASS=plain RDMA_LEAN=$([ "$want_asan" = 1 ] && echo 1) \
			bash "$0" 2>&1 | tee "$log"
		add "$log"
	fi
	if part json; then
		echo "=== --json over softverbs (tests/rdma/json.sh)"
		bash "$HERE/json.sh" 2>&1 | tee "$log"
		add "$log"
	fi
	if [ "$want_asan" = 1 ] && part qperf; then
		san=$(mktemp -d)
		echo "=== ASan+UBSan pass"
		# qperf's ASan build is tests/sanitize's (tests/san-build.sh),
		# softverbs' the tree's own (xport.sh made it)
		if bash "$ROOT/tests/san-build.sh" qperf >"$san/build.log" 2>&1 &&
			make -C "$ROOT/softverbs" -s SANITIZE=address,undefined \
			>>"$san/build.log" 2>&1; then
			RDMA_PASS=asan QPERF=$ROOT/tests/.san-build/qperf \
				SV_LIB=$ROOT/softverbs/build-san \
				SV_PRELOAD=$(gcc -print-file-name=libasan.so) \
				bash "$0" 2>&1 | tee "$log"
			add "$log"
		else
			echo "FAIL ASan+UBSan build"; tail -n 20 "$san/build.log"
			tf=$((tf + 1))
		fi
		rm -rf "$san"
	fi
	rm -f "$log"
	echo "$tp passed, $tf failed"
	[ "$tf" -eq 0 ]
	exit
fi
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
	# softverbs is instrumented, Debian's 0.4.11 is not: it needs the
	# ASan runtime loaded first (and leaks by design).
	export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	cat >"$T/legacy-qperf" <<EOS
#!/bin/sh
LD_PRELOAD=$SV_PRELOAD ASAN_OPTIONS=detect_leaks=0 exec $LEGACY_QPERF "\$@"
EOS
	chmod +x "$T/legacy-qperf"
	LEGACY_QPERF=$T/legacy-qperf
fi

ALL_TESTS="rc_bi_bw rc_bw rc_compare_swap_mr rc_fetch_add_mr rc_lat
rc_rdma_read_bw rc_rdma_read_lat rc_rdma_write_bw rc_rdma_write_lat
rc_rdma_write_poll_lat uc_bi_bw uc_bw uc_lat uc_rdma_write_bw
uc_rdma_write_lat uc_rdma_write_poll_lat ud_bi_bw ud_bw ud_lat
ver_rc_compare_swap ver_rc_fetch_add xrc_bi_bw xrc_bw xrc_lat"

# The headline a test must print (spec §3.5).
headline() {
	case $1 in
	*_mr | ver_*) echo '^    msg_rate +=  +[0-9.,]+ [KMG]?/sec$' ;;
	*_lat) echo '^    latency +=  +[0-9.,]+ (ns|us|ms|sec)$' ;;
	uc_*bw | ud_*bw) echo '^    recv_bw +=  +[0-9.,]+ [KMGT]?B/sec$' ;;
	*) echo '^    bw +=  +[0-9.,]+ [KMGT]?B/sec$' ;;
	esac
}

# commas N: 12345 -> 12,345 (the report's count format).
commas() {
	echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'
}

test_children_gone() { [ "$(children)" = 0 ]; }

# C ARGS...: our client (node 2) against the current server.
C() {
	run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" "$@"
}
# L ARGS...: Debian's 0.4.11 client (node 2) against the current server.
L() {
	run env SOFTVERBS_NODE=2 "$LEGACY_QPERF" localhost -lp "$PORT" "$@"
}


# Tolerated on stderr of our client: the loss notice of a lossy latency
# test (a loaded machine may stall past the loss wait; the exchange then
# restarts, which is the point of it).
quiet_stderr() {
	! grep -Ev 'warning: (ud|uc)_[a-z_]*lat: [0-9]+ messages? lost' "$ERR_FILE" |
		grep -q .
}

# matrix LABEL CLIENT-FUNCTION TIME TESTS [OPTIONS...]
matrix() {
	local label=$1 fn=$2 t=$3 tests=$4 test
	shift 4
	for test in $tests; do
		$fn -t "$t" "$@" "$test"
		if [ "$fn" = C ] && ! quiet_stderr; then
			fail "$label: $test${*:+ $*}" "unexpected stderr" "$(ctx)"
			continue
		fi
		expect "$label: $test${*:+ $*}" 0 "$(headline "$test")"
	done
}

# unix_endpoints NODE: softverbs endpoints of that emulated host on our
# fabric (abstract AF_UNIX names "@softverbs/<fabric>/<node>/<qpn>").
unix_endpoints() {
	grep -c "@softverbs/$SOFTVERBS_FABRIC/$1/" /proc/net/unix
}

# children PID: live child processes of PID.
children() {
	local n=0 c
	for c in /proc/[0-9]*/stat; do
		set -- $(sed 's/.*) //' "$c" 2>/dev/null)
		[ "${2-}" = "$SPID" ] && [ "$1" != Z ] && n=$((n + 1))
	done
	echo $n
}

# ud_delay_checks: percentiles against a known distribution of delays:
# each end holds back 5 % of its UD messages for 20 ms, so about 10 % of
# the round trips take 20 ms more.  The median must stay at the undelayed
# figure (UD_P50, measured by the caller on a plain server, within a
# loaded machine's noise), while p99 shows the delay.
ud_delay_checks() {
	export SOFTVERBS_FAULT_DELAY=0.05 SOFTVERBS_FAULT_DELAY_US=20000
	start_server || fail "server with 5% of messages delayed 20 ms"
	PORT=$SERVER_PORT
	SPID=$SERVER_PID
	C -t 2 -vx ud_lat
	check_vx "20 ms delays: ud_lat -vx lines" 2
	p50=$(vx_ns rtt_p50) p99=$(vx_ns rtt_p99) l99=$(vx_ns latency_p99)
	# Under ASan (second pass) timing is ASan's: one CI run saw the median at
	# 1.03 ms there (the undelayed one 115 us); that pass only asks that the
	# median stays a tenth of the delay, the plain pass the rule itself.
	p50_cap=$((4 * ${UD_P50:-0} + 200000))
	[ "$RDMA_PASS" = asan ] && p50_cap=2000000
	if [ -n "$p50" ] && [ -n "${UD_P50:-}" ] &&
		[ "$p50" -le "$p50_cap" ] && [ "$p50" -lt 2000000 ]; then
		pass "20 ms delays: ud_lat rtt_p50 $p50 ns stays at the undelayed $UD_P50 ns"
	else
		fail "20 ms delays: ud_lat rtt_p50 ${p50:-?} ns stays at the undelayed ${UD_P50:-?} ns" "$(ctx)"
	fi
	if [ -n "$p99" ] && [ "$p99" -ge 20000000 ] && [ "$l99" -ge 10000000 ]; then
		pass "20 ms delays: ud_lat rtt_p99 $p99 ns (latency_p99 $l99 ns) shows the delay"
	else
		fail "20 ms delays: ud_lat rtt_p99 ${p99:-?} ns shows the 20 ms delay" "$(ctx)"
	fi
	stop_server "$PORT" "$SPID"
	unset SOFTVERBS_FAULT_DELAY SOFTVERBS_FAULT_DELAY_US
}

if [ -n "${RDMA_KNOBS:-}" ]; then
	. "$(dirname "$0")/knobs.sh"
	finish
fi
if [ -n "${RDMA_CEILING:-}" ]; then # only tests/rdma/ceiling.sh
	. "$(dirname "$0")/ceiling.sh"
	finish
fi
if [ -n "${RDMA_PACE:-}" ]; then # only --rate (tests/rdma/pace.sh)
	. "$(dirname "$0")/pace.sh"
	finish
fi
if [ -n "${RDMA_STREAMS:-}" ]; then # only --streams (tests/rdma/streams.sh)
	. "$(dirname "$0")/streams.sh"
	finish
fi
if [ -n "${RDMA_QPS:-}" ]; then # only --qps (tests/rdma/qps.sh)
	. "$(dirname "$0")/qps.sh"
	finish
fi
if [ -n "${RDMA_COUNTERS:-}" ]; then # only port counters (tests/rdma/counters.sh)
	. "$(dirname "$0")/counters.sh"
	finish
fi
if [ -n "${RDMA_CM_ONLY:-}" ]; then # only -cm1 and rsockets (tests/rdma/cm.sh)
	. "$(dirname "$0")/cm.sh"
	finish
fi

# --- our client and server, InfiniBand ------------------------------------
section "our client and server, InfiniBand"
start_server || { fail "our server starts"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "IB events" C "$TT" "$ALL_TESTS"
[ -n "${RDMA_QUICK:-}" ] && finish
if [ -n "${RDMA_LEAN:-}" ]; then
	# The plain build's pass beside a full ASan+UBSan pass (CI): every
	# test once (above), and the rules the ASan pass cannot judge (its
	# timing is ASan's): the delayed-UD median stays at the undelayed
	# one, and the paced rates hold.
	C -t 1 -vx ud_lat
	UD_P50=$(vx_ns rtt_p50)
	stop_server "$PORT" "$SPID"
	ud_delay_checks
	section "--rate (pace.sh)"
	. "$(dirname "$0")/pace.sh"
	finish
fi
matrix "IB -cp1" C "$TT" "$(echo $ALL_TESTS | tr ' ' '\n' |
	grep -v '^rc_rdma_write_poll_lat$')" -cp1
C -t "$TT" -cp1 rc_rdma_write_poll_lat
expect "-cp1 rc_rdma_write_poll_lat: runs, and warns as 0.4.11 does" 0 \
	"$(headline rc_rdma_write_poll_lat)" \
	'warning: -cp1 set but not used in test rc_rdma_write_poll_lat'
check_alive "our server serves after the IB matrix" "$PORT" "$SPID"

# --- count mode (0.5 peers honour -n in every test) -------------------------
section "count mode (0.5 peers honour -n in every test)"
for tn in rc_bw:5000 uc_bw:3000 ud_bw:3000 rc_bi_bw:2000 rc_rdma_write_bw:3000 \
	rc_lat:2000 uc_rdma_write_lat:1000 rc_rdma_write_poll_lat:300 \
	xrc_bw:2000 xrc_lat:1000; do
	t=${tn%%:*} n=${tn#*:}
	C -n "$n" -vvs "$t"
	expect "-n $n $t: exactly $n sent" 0 \
		"^    (send|loc_send)_msgs += +$(commas "$n") $"
done
for tn in rc_rdma_read_bw:3000 rc_rdma_read_lat:500 rc_fetch_add_mr:3000 \
	rc_compare_swap_mr:3000 ver_rc_fetch_add:3000 ver_rc_compare_swap:3000; do
	t=${tn%%:*} n=${tn#*:}
	C -n "$n" -vvs "$t"
	case $t in
	*read*) want="^    (recv|loc_recv)_msgs += +$(commas "$n") $" ;;
	*) want="^    (recv|rem_recv)_msgs += +$(commas "$n") $" ;;
	esac
	expect "-n $n $t: exactly $n done (the idle server is told)" 0 "$want"
done
C -n 1000 -vvs ud_lat
expect "-n 1000 ud_lat: 1,000 round trips" 0 '^    loc_recv_msgs += +1,000 $'

# A lossy ping-pong by count whose initiator stalls (a busy CPU, here
# SIGSTOP) for longer than its longest loss wait (1 s): the responder
# must not take the quiet for the end of the test (it did, after 1 s,
# and then failed the end-of-test sync: BUGS-found 25).
env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" -n 30000 ud_lat \
	>"$OUT_FILE" 2>"$ERR_FILE" </dev/null &
cpid=$!
track_pid "$cpid"
sleep 0.3
stopped=0
kill -STOP "$cpid" && stopped=1
sleep 1.6
kill -CONT "$cpid"
wait "$cpid"
RC=$?
OUT=$(cat "$OUT_FILE") ERR=$(cat "$ERR_FILE")
if [ $stopped = 0 ] || ! quiet_stderr; then
	fail "-n 30000 ud_lat, client stopped 1.6 s mid-test: runs to the end" \
		"stopped mid-test: $stopped" "$(ctx)"
else
	expect "-n 30000 ud_lat, client stopped 1.6 s mid-test: runs to the end" 0 \
		"$(headline ud_lat)"
fi

# -vx: every round trip timed on both ends (2n - 1 merged for ping-pong;
# RDMA read: the client's n operations, latency = the whole operation).
C -n 1000 -vx rc_lat
check_vx "-vx -n 1000 rc_lat: percentiles of both ends (1,999), process CPU" 2 1999
C -n 500 -vx rc_rdma_read_lat
check_vx "-vx -n 500 rc_rdma_read_lat: 500 reads, latency = operation" 1 500
C -t 1 -vx ud_lat
check_vx "-vx -t 1 ud_lat: percentiles, rtt, process CPU" 2
UD_P50=$(vx_ns rtt_p50) # the undelayed figure for the delay check below
C -t "$TT" -vx rc_lat
check_vx "-vx -t $TT rc_lat" 2
# --- interval reports (-I) over RDMA ------------------------------------------
section "interval reports (-I) over RDMA"
# ival_sum SIDE FIELD: the bytes or msgs of the last stdout's SIDE lines
# (with -uu every figure is an exact integer); rep NAME: a report figure.
ival_sum() {
	awk -v side="$1" -v f="$2" '$0 ~ " " side " " && / msgs / {
		for (i = 1; i <= NF; i++) if ($(i + 1) == f) { s += $i; break } }
		END { printf "%.0f\n", s }' "$OUT_FILE"
}
rep() { awk -v n="$1" '$1 == n && $2 == "=" { print $3 }' "$OUT_FILE"; }
IVL='^    [0-9]+\.[0-9]{2}-[0-9]+\.[0-9]{2} +sec  '
C -uu -vvs -t 1.5 -I 0.5 rc_bw
expect "-I 0.5 -t 1.5 rc_bw: exit 0" 0 "${IVL}rem recv " '^$'
[ "$(count_lines "${IVL}loc send ")" = 3 ] && [ "$(count_lines "${IVL}rem recv ")" = 3 ] &&
	[ "$(ival_sum "loc send" bytes)" = "$(rep send_bytes)" ] &&
	[ "$(ival_sum "rem recv" bytes)" = "$(rep recv_bytes)" ] &&
	pass "-I rc_bw: 3 sender and 3 receiver lines adding up to the totals" ||
	fail "-I rc_bw: 3 sender and 3 receiver lines adding up to the totals" "$(ctx)"
C -uu -vvs -n 20000 -I 0.1 rc_bw
[ "$RC" = 0 ] && [ "$(ival_sum "loc send" msgs)" = 20000 ] &&
	[ "$(ival_sum "rem recv" msgs)" = 20000 ] &&
	pass "-I rc_bw -n 20000 (count mode): the intervals' messages add up to 20000" ||
	fail "-I rc_bw -n 20000 (count mode): the intervals' messages add up to 20000" "$(ctx)"
C -uu -vvs -t 1 -I 0.5 rc_bi_bw
ok=1
for sd in "loc send" "loc recv" "rem send" "rem recv"; do
	[ "$(count_lines "${IVL}$sd ")" = 2 ] || ok=0
	f=${sd// /_}_bytes
	[ "$(ival_sum "$sd" bytes)" = "$(rep "$f")" ] || ok=0
done
[ "$RC" = 0 ] && [ $ok = 1 ] &&
	pass "-I rc_bi_bw: both sides' send and recv lines, adding up to the totals" ||
	fail "-I rc_bi_bw: both sides' send and recv lines, adding up to the totals" "$(ctx)"
for t in rc_rdma_write_bw uc_bw ud_bw; do
	C -t 1 -I 0.5 "$t"
	expect "-I $t: sender and receiver lines" 0 "${IVL}rem recv " '^$'
done
C -uu -vvs -t 1 -I 0.5 rc_rdma_read_bw
[ "$RC" = 0 ] && [ "$(count_lines "${IVL}loc recv ")" = 2 ] && ! has ' rem (send|recv) ' &&
	[ "$(ival_sum "loc recv" bytes)" = "$(rep recv_bytes)" ] && [ ! -s "$ERR_FILE" ] &&
	pass "-I rc_rdma_read_bw: the reader's lines only (the server is idle), no warning" ||
	fail "-I rc_rdma_read_bw: the reader's lines only (the server is idle), no warning" "$(ctx)"

# A stranger QP (node 3) sprays 1-byte datagrams at every QP of the
# server's node during ud_lat: UD hears anyone with the Q_Key, but the
# server must neither count nor answer them.
if make -s -C "$LIB_ROOT/tests/rdma" build/udspray >"$T/udspray.log" 2>&1; then
	(sleep 0.5
	 env SOFTVERBS_NODE=3 ${SV_PRELOAD:+LD_PRELOAD=$SV_PRELOAD ASAN_OPTIONS=detect_leaks=0} \
		"$LIB_ROOT/tests/rdma/build/udspray" 1 1.5 >"$T/spray.out" 2>&1) &
	spy=$!
	C -t 2 -vvs ud_lat
	wait "$spy"
	sent=$(sed -n 's/^    loc_send_msgs *= *\([0-9,]*\) *$/\1/p' "$OUT_FILE" | tr -d ,)
	heard=$(sed -n 's/^    rem_recv_msgs *= *\([0-9,]*\) *$/\1/p' "$OUT_FILE" | tr -d ,)
	grep -q 'sent=[1-9]' "$T/spray.out" &&
		[ -n "$sent" ] && [ -n "$heard" ] && [ "$heard" -le "$sent" ] &&
		pass "UD stranger: the server counts only its client ($heard <= $sent; $(cat "$T/spray.out"))" ||
		fail "UD stranger: the server counts only its client" \
			"$(cat "$T/spray.out")" "$(ctx)"
else
	fail "udspray builds" "$(cat "$T/udspray.log")"
fi

# --- report details ----------------------------------------------------------
section "report details"
C -t "$TT" -vv rc_bw
expect "-vv rc_bw: max_cqe of both ends" 0 '^    send_max_cqe += +[0-9]+ $'
has '^    recv_max_cqe += +[0-9]+ $' && pass "-vv rc_bw: recv_max_cqe" ||
	fail "-vv rc_bw: recv_max_cqe" "$(ctx)"
C -t "$TT" -vvu rc_lat
expect "-vvu rc_lat: mtu_size 2 KiB shown" 0 '^    mtu_size += +2 KiB \(2,048\)$'
C -t "$TT" -v rc_rdma_write_bw
expect "-v rc_rdma_write_bw: send_cost and recv_cost" 0 '^    send_cost += '
C -t "$TT" -m 4K -v ud_bw
expect "-m 4K ud_bw: refused (path MTU 2048)" 2 '' \
	'UD message size 4096 is larger than the path MTU 2048'
C -t "$TT" -mt 4096 -m 4K -vu ud_bw
expect "-mt 4096 -m 4K ud_bw runs" 0 '^    msg_size += +4 KiB \(4,096\)$'
C -t "$TT" -m 1 ver_rc_fetch_add
expect "ver_rc_fetch_add -m 1: message size must be at least 8" 1 '' \
	'message size must be at least 8'
check_alive "our server serves after the count and report checks" "$PORT" "$SPID"

# --- bad input -----------------------------------------------------------------
section "bad input"
C -t "$TT" -mt 3000 rc_lat
expect "-mt 3000: usage error naming -mt" 2 '^$' '^qperf: -mt: 3000: '
C -t "$TT" -sr 7xFDR rc_lat
expect "-sr 7xFDR: usage error naming the rate" 2 '^$' '7xFDR'
C -t "$TT" -i nodev rc_lat
expect "-i nodev: refused up front, the devices listed" 2 '^$' \
	'^qperf: rc_lat: no RDMA device nodev; devices: softv0$'
C -t "$TT" -i softv0:2 rc_lat
expect "-i softv0:2: no such port" 2 '^$' 'has no port 2 \(it has 1\)'
C -t "$TT" -nr 1000 rc_rdma_read_bw
expect "-nr 1000: above the device maximum" 2 '^$' \
	'device only supports [0-9]+ \(< 1000\) RDMA reads or atomics'
C -t "$TT" -ri nodev rc_lat
expect "-ri nodev: the server's one clear line, exit 1" 1 '' \
	'^qperf: server: no RDMA device nodev; devices: softv0$'
C -t "$TT" -rnr 1000 rc_rdma_read_bw
expect "-rnr 1000: the server refuses, exit 1" 1 '' \
	'server: device only supports [0-9]+ \(< 1000\)'
run env -u LD_LIBRARY_PATH SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" rc_bw
expect "no RDMA device on this host: one line, exit 1" 1 '^$' \
	'^qperf: rc_bw: failed to find any RDMA devices'
[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "no RDMA device: exactly one line" ||
	fail "no RDMA device: exactly one line" "$(ctx)"
check_alive "our server serves after the bad input" "$PORT" "$SPID"
stop_server "$PORT" "$SPID" "our server stops with quit"

# A server whose port allows less: explicit -mt above it names both ends.
start_server env SOFTVERBS_MTU=1024 -- || fail "server with MTU 1024"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -t "$TT" -vvu rc_lat
expect "MTU 1024 server, no -mt: path MTU 1024 (smaller of 2048 and both ports)" 0 \
	'^    rc_lat:|^    latency'
C -t "$TT" -mt 2048 rc_lat
expect "MTU 1024 server, -mt 2048: one line naming both ports" 1 '' \
	'active MTU'
C -t "$TT" ud_bw
expect "MTU 1024 server: ud_bw's 2048-byte default is refused clearly" 1 '' \
	'larger than the path MTU 1024'
stop_server "$PORT" "$SPID"

# --- RoCE (Ethernet link layer): GIDs travel in the NODE extension ---------
section "RoCE (Ethernet link layer): GIDs travel in the NODE extension"
export SOFTVERBS_LINK_LAYER=eth
start_server || fail "RoCE server"
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "RoCE" C "$TT" "$ALL_TESTS"
C -t "$TT" -v rc_lat
expect "RoCE -v: each end's GID, index and type" 0 \
	'^    loc_gid += +[0-9a-f:.]+ \(index [0-9]+, RoCE v[12]\)$'
has '^    rem_gid += +[0-9a-f:.]+ \(index [0-9]+, RoCE v[12]\)$' &&
	pass "RoCE -v: rem_gid" || fail "RoCE -v: rem_gid" "$(ctx)"
C -t "$TT" rc_lat
! has 'gid' && pass "RoCE without -v: the report has no GID lines" ||
	fail "RoCE without -v: the report has no GID lines" "$(ctx)"
# Polling on RoCE: one test of each loop kind and transport (every test
# polls on InfiniBand above, and runs on RoCE in the matrix before).
matrix "RoCE -cp1" C "$TT" "rc_bw ud_bi_bw rc_lat ud_lat uc_lat
rc_rdma_read_bw rc_rdma_write_lat rc_fetch_add_mr ver_rc_compare_swap
xrc_lat" -cp1
# The automatic choice: RoCE v2 and an IPv4 address (the control
# connection is IPv4), each node's own (softverbs: 198.18.0.<node>).
C -t "$TT" -v rc_lat
expect "RoCE auto: v2, IPv4, each end its own address" 0 \
	'^    loc_gid += +::ffff:198\.18\.0\.2 \(index 3, RoCE v2\)$'
has '^    rem_gid += +::ffff:198\.18\.0\.1 \(index 3, RoCE v2\)$' &&
	pass "RoCE auto: the server's GID" || fail "RoCE auto: the server's GID" "$(ctx)"
C -t "$TT" -v -gi 5 ud_lat
expect "RoCE -gi 5: both ends on their IPv6 v2 GID" 0 \
	'^    loc_gid += +fd73:7665:7262::2 \(index 5, RoCE v2\)$'
C -t "$TT" -v -rgi 5 rc_lat
expect "RoCE -rgi 5 only: this end follows the server's type and family" 0 \
	'^    loc_gid += +fd73:7665:7262::2 \(index 5, RoCE v2\)$'
for pair in "2 3 v1 against v2" "3 5 IPv4 against IPv6" "0 3 link-local v1 against IPv4 v2"; do
	set -- $pair
	l=$1 r=$2
	shift 2
	C -t "$TT" -lgi "$l" -rgi "$r" rc_lat
	# Both ends find the mismatch; whichever reports first is the line
	# the user sees (the server's says "this side" of itself).
	expect "RoCE -lgi $l -rgi $r ($*): one line naming both GIDs" 1 '' \
		"RoCE GIDs do not match: this side ($l .*, peer $r|$r .*, peer $l) .*; give both sides"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "RoCE -lgi $l -rgi $r: one line" ||
		fail "RoCE -lgi $l -rgi $r: one line" "$(ctx)"
done
C -t "$TT" -gi 99 rc_lat
expect "RoCE -gi 99: refused up front" 2 '^$' 'GID index 99 does not exist'
C -t "$TT" -gi 8 rc_lat
expect "RoCE -gi 8 (an empty entry): refused up front" 2 '^$' \
	'GID index 8 of softv0:1 is empty'
check_alive "RoCE server serves after the GID mismatches" "$PORT" "$SPID"
stop_server "$PORT" "$SPID" "RoCE server stops with quit"

# 0.4.11 on RoCE: its protocol cannot carry a GID.
start_legacy_server || fail "0.4.11 server (RoCE)"
PORT=$LEGACY_PORT
C -t 1 rc_lat
expect "RoCE, 0.4.11 server: one clear line that it cannot carry a GID" 1 '' \
	"needs a GID, which qperf 0.4.11's protocol cannot carry"
C -t 1 -gi 3 rc_lat
expect "RoCE, 0.4.11 server: -gi refused with the reason" 1 '' \
	'-gi needs a server running qperf .*cannot carry a GID'
start_server || fail "our RoCE server for the 0.4.11 client"
PORT=$SERVER_PORT
SPID=$SERVER_PID
run env SOFTVERBS_NODE=2 "$LEGACY_QPERF" localhost -lp "$PORT" -t 1 rc_lat
expect "RoCE, 0.4.11 client: our server's clear line reaches it" 1 '' \
	'server: '
check_alive "our RoCE server serves after the 0.4.11 client" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"
timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1
unset SOFTVERBS_LINK_LAYER

# --- interop with qperf 0.4.11 (InfiniBand) ---------------------------------
section "interop with qperf 0.4.11 (InfiniBand)"
# interop_opts RUN LABEL NOTE: -m, -n and -mt reach the other qperf
# (RUN is C or L; NOTE goes after the -n check's name).
interop_opts() {
	$1 -t 1 -m 4K -vu rc_bw
	expect "$2: -m 4K rc_bw" 0 '^    msg_size += +4 KiB \(4,096\)$'
	$1 -n 5000 -vvs rc_bw
	expect "$2: -n 5000 rc_bw$3" 0 '^    send_msgs += +5,000 $'
	$1 -t 1 -mt 1024 -vu rc_lat
	expect "$2: -mt 1024" 0 '^    mtu_size += +1 KiB \(1,024\)$'
}
# One test of each loop kind both ways (each takes 1 s: 0.4.11 counts
# whole seconds), in either pass: in CI the ASan pass is the one that runs
# this section.  Every one of 0.4.11's tests runs both ways, at three
# verbosities, in tests/interop/rdma.sh (suite time).
INTEROP_TESTS="rc_bw rc_bi_bw rc_lat ud_bi_bw ud_lat rc_rdma_read_lat
rc_rdma_write_bw uc_rdma_write_poll_lat rc_compare_swap_mr ver_rc_fetch_add"
start_legacy_server || { fail "0.4.11 server"; finish; }
PORT=$LEGACY_PORT
matrix "ours -> 0.4.11" C 1 "$INTEROP_TESTS"
matrix "ours -> 0.4.11 -cp1" C 1 "rc_lat ud_lat rc_bw rc_rdma_read_lat" -cp1
interop_opts C "ours -> 0.4.11" " (0.4.11 honours it)"
C -n 5000 rc_lat
expect "ours -> 0.4.11: -n rc_lat refused (0.4.11 would never end)" 1 '' \
	'rc_lat with -n needs a server running qperf'
C -t 1 -i softv0:1 -vu ud_lat
expect "ours -> 0.4.11: -i softv0:1" 0 '^    id += +softv0:1$'
C -t 1 -v rc_bw
expect "ours -> 0.4.11: -v rc_bw" 0 '^    recv_cost += '
# 0.4.11 records max_cqe only in its bandwidth and atomic loops: a
# latency test's report has none (tests/interop/rdma.sh compares all).
C -t 1 -vv rc_lat
expect "ours -> 0.4.11: -vv rc_lat" 0 '^    rem_recv_msgs += +[0-9,]+ $'
! has 'max_cqe' && pass "ours -> 0.4.11: -vv rc_lat: no max_cqe, as 0.4.11's" ||
	fail "ours -> 0.4.11: -vv rc_lat: no max_cqe, as 0.4.11's" "$(ctx)"
C -t 1 xrc_bw
expect "ours -> 0.4.11: xrc_bw says the peer lacks XRC" 1 '' \
	'xrc_bw: the server lacks XRC tests'
timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1

start_server || { fail "our server (interop)"; finish; }
PORT=$SERVER_PORT
SPID=$SERVER_PID
matrix "0.4.11 -> ours" L 1 "$INTEROP_TESTS"
matrix "0.4.11 -> ours -cp1" L 1 "rc_lat ud_lat rc_bw rc_rdma_read_lat" -cp1
interop_opts L "0.4.11 -> ours" ""
L -t 1 -i softv0:1 ud_lat
expect "0.4.11 -> ours: -i softv0:1" 0 "$(headline ud_lat)"
L -t 1 -vv rc_lat
expect "0.4.11 -> ours: -vv rc_lat" 0 '^    rem_recv_msgs += +[0-9,]+ $'
! has 'max_cqe' && pass "0.4.11 -> ours: -vv rc_lat: no rem_max_cqe, as 0.4.11's" ||
	fail "0.4.11 -> ours: -vv rc_lat: no rem_max_cqe, as 0.4.11's" "$(ctx)"
check_alive "our server serves after the 0.4.11 client" "$PORT" "$SPID"

# --- faults ---------------------------------------------------------------------
section "faults"
C -t 1 -vvs ud_bw
stop_server "$PORT" "$SPID"
export SOFTVERBS_FAULT_DROP=0.05 SOFTVERBS_FAULT_SEED=7
start_server || fail "server with 5% drops"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -t 1 -vvs ud_bw
expect "5% drops: ud_bw exit 0" 0 "$(headline ud_bw)"
sent=$(sed -n 's/^    send_msgs *= *\([0-9,]*\) *$/\1/p' "$OUT_FILE" | tr -d ,)
recv=$(sed -n 's/^    recv_msgs *= *\([0-9,]*\) *$/\1/p' "$OUT_FILE" | tr -d ,)
[ -n "$sent" ] && [ -n "$recv" ] && [ "$recv" -lt "$sent" ] &&
	pass "5% drops: ud_bw received fewer than sent ($recv < $sent)" ||
	fail "5% drops: ud_bw received fewer than sent" "$(ctx)"
C -n 200 -vvs ud_lat
expect "5% drops: ud_lat -n 200 finishes, losses counted" 0 \
	'^    loc_recv_errors += +[0-9]+ $' 'ud_lat: [0-9]+ messages? lost'
C -n 200 uc_lat
expect "5% drops: uc_lat -n 200 finishes" 0 "$(headline uc_lat)" \
	'uc_lat: [0-9]+ messages? lost'
stop_server "$PORT" "$SPID"
unset SOFTVERBS_FAULT_DROP SOFTVERBS_FAULT_SEED

ud_delay_checks

start_server env SOFTVERBS_FAULT_PORT_DOWN=now -- || fail "server, port down"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -t 1 -to 3 rc_lat
expect "server port down: one clear line within the timeout" 1 '' \
	'ACTIVE|port'
[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "port down: one line" ||
	fail "port down: one line" "$(ctx)"
check_alive "server with a down port still serves conf" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"
start_server env SOFTVERBS_FAULT_QP_FATAL=200 -- || fail "server, QP fatal"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -t 2 -to 3 rc_bi_bw
expect "QP goes fatal mid-test: one clear line" 1 '' 'rc_bi_bw failed: '
check_alive "server serves after the fatal QP" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"

section "verbs knobs and NUMA (knobs.sh)"
. "$(dirname "$0")/knobs.sh"
section "--streams (streams.sh)"
. "$(dirname "$0")/streams.sh"
section "--qps (qps.sh)"
. "$(dirname "$0")/qps.sh"
section "--rate (pace.sh)"
. "$(dirname "$0")/pace.sh"
section "ceiling and host checks (ceiling.sh)"
. "$(dirname "$0")/ceiling.sh"

# --- aborted clients: nothing of theirs stays -----------------------------------
section "aborted clients: nothing of theirs stays"
start_server || fail "server for aborts"
PORT=$SERVER_PORT
SPID=$SERVER_PID
for i in $(seq 25); do
	case $((i % 5)) in
	0) t=rc_bw ;; 1) t=ud_lat ;; 2) t=rc_rdma_read_bw ;; 3) t=xrc_bw ;;
	*) t=rc_rdma_write_poll_lat ;;
	esac
	env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$PORT" -t 5 "$t" \
		>/dev/null 2>&1 </dev/null &
	cpid=$!
	sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
	kill -9 "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
done
wait_for 20 test_children_gone && pass "25 aborted RDMA tests: no child of the server left" ||
	fail "25 aborted RDMA tests: no child of the server left" "$(children) left"
[ "$(unix_endpoints 1)" = 0 ] &&
	pass "25 aborted RDMA tests: softverbs holds no endpoint of the server's" ||
	fail "25 aborted RDMA tests: softverbs holds no endpoint of the server's" \
		"$(grep "@softverbs/$SOFTVERBS_FABRIC/1/" /proc/net/unix | head)"
check_alive "server serves after 25 aborted RDMA tests" "$PORT" "$SPID"
C -t "$TT" rc_lat
expect "and runs the next RDMA test" 0 "$(headline rc_lat)"
stop_server "$PORT" "$SPID" "server stops with quit after the aborts"

section "port counters of both ends (counters.sh)"
. "$(dirname "$0")/counters.sh"

# --- RDMA CM (-cm1) and rsockets --------------------------------------------------
section "RDMA CM (-cm1) and rsockets"
. "$(dirname "$0")/cm.sh"
finish
