#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The RDMA connection setup tests (issue 20 item 2) over softverbs on
# loopback: rc_qp_setup (an RC QP made, moved to INIT, NODE exchanged on
# the control connection, RTR, RTS, destroyed, per transaction) and
# rc_conn (through the RDMA CM: resolve address and route, create QP,
# connect, first message and its answer, disconnect, destroy).  Checks:
# the report's lines (a positive rate, every step's p50 <= p90 <= p99 <=
# max, -vx's min, mean and p99.9); -n exactly in JSON valid against the
# schema, each step counted as often, the steps' means adding up to the
# transaction's within 10%; softverbs' route query (SOFTVERBS_CM_ROUTE_US)
# and disconnect drain (SOFTVERBS_CM_DRAIN_MS) show in rc_conn's
# resolve_route and disconnect steps and not in the others; -m on
# rc_conn's message; RoCE (GIDs in NODE, a CM on RoCE); RDMA CM
# requests without the test's token refused while rc_conn goes on; a
# client killed mid-test, then the next one served; the server's test
# process killed: the client's one line; bad values; no RDMA device; a
# 0.4.11 server and an older 0.5 server (no CAP_RCCONN, CAP_QPSETUP)
# refused with one line.  A storm (--qps N, section 8): N setups per
# transaction, the steps' percentiles over the QPs, the storm's steps
# adding up to its time, storms and QPs per second, -n exact, the limits
# (the largest N, RLIMIT_NOFILE over softverbs), a client killed -9
# mid-storm, a 0.5 server without CAP_STORM refused.
#
# Usage: bash tests/integration/conn_rdma.sh   (QPERF=... overrides)

. "$(dirname "$0")/common.sh"

T=$LIB_TMP
SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
FAB=qperf-connrdma-$$
need_softverbs
# The server's disconnect drain 5 ms (softverbs' default, 50 ms, would
# make a transaction ~56 ms); the client's route query 0.5 ms.
SV=(env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=$FAB")
if ! start_server "${SV[@]}" SOFTVERBS_NODE=1 SOFTVERBS_CM_DRAIN_MS=5 --; then
	fail "a server over softverbs starts" "$(cat "$SERVER_LOG")"
	finish
fi
PORT=$SERVER_PORT
SPID=$SERVER_PID
CL=("${SV[@]}" SOFTVERBS_NODE=2 SOFTVERBS_CM_ROUTE_US=500)

Q() {
	run "${CL[@]}" "$QPERF" 127.0.0.1 -lp "$PORT" "$@"
}

QS_STEPS="create init exchange rtr rts destroy"
RC_STEPS="resolve_addr resolve_route create_qp connect first_msg disconnect destroy"

# ordered TEST WHAT...: WHAT_p50 <= WHAT_p90 <= WHAT_p99 <= WHAT_max, all
# > 0, in the last text report, for each WHAT.
ordered() {
	local t=$1 w a b c d why=()
	shift
	for w in "$@"; do
		a=$(vx_ns "${w}_p50") b=$(vx_ns "${w}_p90") c=$(vx_ns "${w}_p99")
		d=$(vx_ns "${w}_max")
		[ -n "$a" ] && [ -n "$d" ] && [ "$a" -gt 0 ] && [ "$a" -le "$b" ] &&
			[ "$b" -le "$c" ] && [ "$c" -le "$d" ] ||
			why+=("$w: p50 ${a:-none} p90 ${b:-none} p99 ${c:-none} max ${d:-none}")
	done
	if [ ${#why[@]} -eq 0 ]; then
		pass "$t: p50 <= p90 <= p99 <= max of $* ($(vx_ns txn_p50)$(vx_ns storm_p50) ns txn p50)"
	else
		fail "$t: every step's percentiles present and ordered" "${why[@]}" "$(ctx)"
	fi
}

# headline TEST: the rate, mean and count lines, a positive rate.
headline() {
	local rate
	rate=$(awk '$1 == "conn_rate" { v = $3; gsub(",", "", v); print v; exit }' "$OUT_FILE")
	if [ "$RC" = 0 ] && [ -z "$ERR" ] &&
		awk -v r="${rate:-0}" 'BEGIN { exit !(r > 0) }' &&
		has "^$1:\$" && has '^    conn_rate += +[0-9.,]+ K?/sec$' &&
		has '^    txn_latency += +[0-9.]+ (ns|us|ms)$' &&
		has '^    transactions += +[0-9,]+ *$'; then
		pass "$1: exit 0, conn_rate $rate (K when so scaled), txn_latency, transactions"
	else
		fail "$1: exit 0, positive conn_rate, txn_latency, transactions" "$(ctx)"
	fi
}

# exact TEST N STEPS MSG: the last --json run did exactly N transactions,
# each step and the transaction timed N times, the steps named in order,
# their means within 10% of the transaction's, every p50 <= p90 <= p99 <=
# max, both ends counting N messages each way; MSG: msg_size_B, or "none".
exact() {
	local t=$1 n=$2 steps=$3 m=$4 list
	list=$(printf '"%s", ' $steps)
	list="[${list%, }]"
	json_valid "$t -n $n --json" doc
	json_assert "$t -n $n: exactly $n transactions, each step $n times, in order" \
		"R['measure'] == 'connection' and R['conn']['transactions'] == $n and R['conn']['steps'] == $list and all(R['conn'][k]['count'] == $n for k in $list + ['transaction']) and R['conn']['rate_per_s'] > 0 and R['loc']['send']['msgs'] == $n and R['rem']['recv']['msgs'] == $n and R['rem']['send']['msgs'] == $n"
	json_assert "$t -n $n: the steps' means within 10% of the transaction's" \
		"abs(sum(R['conn'][k]['mean_s'] for k in $list) - R['conn']['transaction']['mean_s']) <= 0.1 * R['conn']['transaction']['mean_s']"
	json_assert "$t -n $n: p50 <= p90 <= p99 <= max in every step" \
		"all(0 < R['conn'][k]['p50_s'] <= R['conn'][k]['p90_s'] <= R['conn'][k]['p99_s'] <= R['conn'][k]['max_s'] for k in $list + ['transaction'])"
	if [ "$m" = none ]; then
		json_assert "$t: no message, no msg_size_B" "'msg_size_B' not in R['conn']"
	else
		json_assert "$t: msg_size_B $m, as many bytes sent per transaction" \
			"R['conn']['msg_size_B'] == $m and R['loc']['send']['bytes_B'] == $m * $n"
	fi
}

# 1. rc_qp_setup: the report, -vx, -n in JSON.
Q -t 0.5 rc_qp_setup
headline rc_qp_setup
ordered rc_qp_setup $QS_STEPS txn
Q -t 0.2 -vx rc_qp_setup
expect "rc_qp_setup -vx: min, mean and p99.9 of each step" 0 \
	'^    destroy_p99\.9 += '
for w in create_min exchange_mean rtr_p99.9 txn_min; do
	has "^    $w += " || fail "rc_qp_setup -vx: $w line" "$(ctx)"
done
if json_need; then
	Q -n 500 --json rc_qp_setup
	exact rc_qp_setup 500 "$QS_STEPS" none
fi

# 2. rc_conn: the report; where softverbs' delays show.  A route query of
# 20 ms (the client's SOFTVERBS_CM_ROUTE_US) shows in resolve_route only,
# the server's 5 ms disconnect drain in disconnect; the others stay small.
run "${SV[@]}" SOFTVERBS_NODE=2 SOFTVERBS_CM_ROUTE_US=20000 \
	"$QPERF" 127.0.0.1 -lp "$PORT" -n 10 -vx rc_conn
headline rc_conn
ordered rc_conn $RC_STEPS txn
r=$(vx_ns resolve_route_p50) d=$(vx_ns disconnect_p50)
small=
for w in resolve_addr create_qp destroy; do
	v=$(vx_ns "${w}_p50")
	[ -n "$v" ] && [ "$v" -lt 5000000 ] || small="$small $w ${v:-none}"
done
if [ "${r:-0}" -ge 20000000 ] && [ "${d:-0}" -ge 5000000 ] && [ -z "$small" ]; then
	pass "rc_conn: route query 20 ms in resolve_route ($r ns), drain 5 ms in disconnect ($d ns), resolve_addr, create_qp, destroy below 5 ms"
else
	fail "rc_conn: resolve_route p50 >= 20 ms, disconnect >= 5 ms, resolve_addr, create_qp, destroy < 5 ms" \
		"resolve_route ${r:-none} disconnect ${d:-none} large:${small:- none}" "$(ctx)"
fi
if json_need; then
	Q -n 100 --json rc_conn
	exact rc_conn 100 "$RC_STEPS" 1
	Q -n 20 -m 64K --json rc_conn
	exact rc_conn 20 "$RC_STEPS" 65536
fi

# 3. RoCE: rc_qp_setup's NODE carries the GIDs (both ends settle them
# every transaction), rc_conn's CM picks them.
FABR=$FAB-roce
if start_server env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=$FABR" \
	SOFTVERBS_NODE=1 SOFTVERBS_LINK_LAYER=eth SOFTVERBS_CM_DRAIN_MS=5 --; then
	for t in "rc_qp_setup 300" "rc_conn 10"; do
		set -- $t
		run env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=$FABR" \
			SOFTVERBS_NODE=2 SOFTVERBS_LINK_LAYER=eth \
			SOFTVERBS_CM_ROUTE_US=500 \
			"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -n "$2" "$1"
		expect "RoCE: $1 -n $2 runs exactly $2" 0 \
			"^    transactions += +$(commas "$2") *\$" '^$'
	done
	stop_server "$SERVER_PORT" "$SERVER_PID" "the RoCE server stops"
else
	fail "a RoCE server over softverbs starts"
fi
SERVER_PORT=$PORT SERVER_PID=$SPID

# 4. Strangers on rc_conn's RDMA CM port (rping from a third emulated
# host, without the test's token): each refused at once, the test goes
# on.  The port: the listener of our server's child on this fabric.
# (SV_PRELOAD: libasan, when SV_LIB is softverbs' ASan build.)
cm_port() {
	ss -xlp 2>/dev/null | grep "LISTEN.*@softverbs-cm/$FAB/106/" |
		grep -v "pid=$SPID," | sed -n 's|.*/\([0-9]*\) .*|\1|p' | head -n 1
}
cm_port_up() {
	[ -n "$(cm_port)" ]
}
if command -v rping >/dev/null; then
	"${CL[@]}" "$QPERF" 127.0.0.1 -lp "$PORT" -t 1.5 rc_conn \
		>"$T/st.out" 2>"$T/st.err" </dev/null &
	CP=$!
	track_pid "$CP"
	refused=0 cmp=
	if wait_for 5 cm_port_up && cmp=$(cm_port) && [ -n "$cmp" ]; then
		for i in 1 2 3; do
			timeout -k 1 5 "${SV[@]}" SOFTVERBS_NODE=3 \
				${SV_PRELOAD:+LD_PRELOAD=$SV_PRELOAD ASAN_OPTIONS=detect_leaks=0} rping -c \
				-a 127.0.0.1 -p "$cmp" -C 1 -v >"$T/rping.out" 2>&1
			grep -q 'REJECTED, error 28' "$T/rping.out" &&
				refused=$((refused + 1))
		done
	fi
	wait_bg "$CP" "$T/st.out" "$T/st.err"
	if [ "$refused" = 3 ] && [ "$RC" = 0 ] && [ -z "$ERR" ] &&
		[ "$(vx_ns transactions)" -gt 0 ] 2>/dev/null; then
		pass "rc_conn beside 3 RDMA CM requests without its token (port $cmp): each refused, the test runs"
	else
		fail "rc_conn beside RDMA CM strangers" \
			"port ${cmp:-none}, refused $refused of 3" "$(cat "$T/rping.out")" "$(ctx)"
	fi
else
	skip "RDMA CM strangers" "no rping (rdmacm-utils)"
fi

# 5. A client killed mid-test: the server serves the next one.
for t in rc_conn rc_qp_setup; do
	run -t 0.8 "${CL[@]}" "$QPERF" 127.0.0.1 -lp "$PORT" -t 5 "$t"
	[ "$RC" = 124 ] && pass "$t: a client killed mid-test (timeout 0.8 s)" ||
		fail "$t: the client was killed mid-test" "$(ctx)"
	Q -t 0.3 "$t"
	expect "$t after a client killed mid-test: the server runs the next" 0 \
		'^    conn_rate += ' '^$'
done

# The server's test process killed mid-test: the client says so in one
# line, exit 1; the server serves the next.  That process: the server's
# end of the client's control connection once the test has begun (its
# header printed: the preflight's connection, and its process, are done
# with), a child of our server.
test_child() {
	local cport k
	cport=$(ss -Htnp state established "dport = :$PORT" 2>/dev/null |
		grep "pid=$CP," | awk '{ n = split($3, a, ":"); print a[n] }' |
		head -n 1)
	[ -n "$cport" ] || return 1
	# (the server itself may hold it too, from before its fork)
	for k in $(ss -Htnp state established "sport = :$PORT and dport = :$cport" \
		2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2); do
		[ "$(ps -o ppid= -p "$k" | tr -d ' ')" = "$SPID" ] &&
			echo "$k" && return 0
	done
	return 1
}
test_child_up() {
	[ -n "$(test_child)" ]
}
for t in rc_conn rc_qp_setup; do
	"${CL[@]}" "$QPERF" 127.0.0.1 -lp "$PORT" -t 5 "$t" \
		>"$T/kill.out" 2>"$T/kill.err" </dev/null &
	CP=$!
	track_pid "$CP"
	K=
	if wait_for 5 has "^$t:\$" "$T/kill.out" &&
		wait_for 5 test_child_up && K=$(test_child) &&
		sleep 0.3 && kill -9 "$K"; then
		wait_bg "$CP" "$T/kill.out" "$T/kill.err"
		one_error "$t: the server's test process killed: the client's one line, exit 1" 1 \
			'^qperf: (transaction [0-9]+: |failed to receive |failed to resolve |server: )'
	else
		stop_bg KILL "$CP" "$T/kill.out" "$T/kill.err"
		fail "$t: the server's test process is found" "child ${K:-none}" "$(ctx)"
	fi
	Q -t 0.3 "$t"
	expect "$t after its test process was killed: the server runs the next" 0 \
		'^    conn_rate += ' '^$'
done

# 6. Bad values: one line, exit 2, nothing run; options the test does
# not use are set but not used.
Q -m 0 rc_conn
one_error "rc_conn -m 0: exit 2, one line" 2 '^qperf: -m: 0: must be greater than 0$'
Q -n 0 -t 0 rc_qp_setup
one_error "rc_qp_setup -t 0 -n 0: exit 2, one line" 2 '^qperf: -n: 0: must be greater than 0$'
Q --clients 2 rc_conn
one_error "--clients 2 rc_conn: exit 2, one line" 2 \
	'^qperf: --clients: not with rc_conn \(the clients'"'"' table has no connection rates yet\)$'
Q -t 0.2 -m 64 rc_qp_setup
expect "rc_qp_setup -m 64: set but not used (no message)" 0 '^    conn_rate += ' \
	'^qperf: warning: -m set but not used in test rc_qp_setup$'
Q -t 0.2 -cm1 rc_qp_setup
expect "rc_qp_setup -cm1: set but not used (no CM)" 0 '^    conn_rate += ' \
	'^qperf: warning: -cm1 set but not used in test rc_qp_setup$'

# No RDMA device here (no softverbs): one line, exit 1, before the test.
for t in rc_conn rc_qp_setup; do
	run env -u LD_LIBRARY_PATH "$QPERF" 127.0.0.1 -lp "$PORT" -t 0.3 "$t"
	one_error "$t without an RDMA device: one line, exit 1" 1 \
		"^qperf: $t: failed to find any RDMA devices"
done

# 7. A 0.4.11 server, and an older 0.5 server (its block announces the
# capabilities up to CAP_CONN but CAP_CONF_EXT, not CAP_RCCONN nor
# CAP_QPSETUP): refused with one line naming the test and the server.
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	for t in rc_conn rc_qp_setup; do
		run "${CL[@]}" "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 "$t"
		one_error "0.4.11 server: $t refused with one line" 1 \
			"^qperf: $t needs a server running qperf 0\\.5\\.[0-9]+ or later; the server at 127\\.0\\.0\\.1 runs qperf 0\\.4, which lacks it\$"
	done
	stop_legacy_server
else
	skip "0.4.11 server" "no $LEGACY_QPERF"
fi
cat >"$T/old05.py" <<'EOF'
import os, socket, struct, sys
# A qperf 0.5 server before rc_conn: its server block announces caps
# 0x1ff3f (up to CAP_CONN, no CONF extension); it answers a conf request
# (the client's preflight) with an empty CONF and serves nothing else.
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(4)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % ls.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def exact(c, n):
    b = b""
    while len(b) < n:
        x = c.recv(n - len(b))
        if not x:
            break
        b += x
    return b
ls.settimeout(10)
for _ in range(int(sys.argv[2])):
    c, _ = ls.accept()
    c.settimeout(5)
    req = exact(c, 200)
    h = exact(c, 8)
    exact(c, struct.unpack_from("<I", h, 4)[0] - 8)
    caps = int(sys.argv[3], 0) if len(sys.argv) > 3 else 0x1ff3f
    items = [(1, struct.pack("<I", caps)), (2, b"0.5.0")]
    body = b"".join(struct.pack("<HH", t, len(v)) + v for t, v in items)
    c.sendall(struct.pack("<II", 0x32585051, 8 + len(body)) + body)
    if struct.unpack_from("<H", req, 6)[0] == 0:
        c.sendall(b"\0" * 256)  # conf (the preflight)
    exact(c, 1)  # until the client closes
    c.close()
EOF
# old05 NAME CAPS WHAT ARGS REGEX: the scripted server announcing CAPS
# (as its log and port file NAME); rc_conn and rc_qp_setup with ARGS
# refused with one line matching REGEX (TEST in it: the test's name).
old05() {
	local name=$1 caps=$2 what=$3 args=$4 re=$5 op t
	python3 "$T/old05.py" "$T/$name.port" 4 "$caps" >"$T/$name.log" 2>&1 &
	op=$!
	track_pid "$op"
	if wait_for 5 test -s "$T/$name.port"; then
		for t in rc_conn rc_qp_setup; do
			# shellcheck disable=SC2086 # the options, split
			run "${CL[@]}" "$QPERF" 127.0.0.1 -lp "$(cat "$T/$name.port")" -t 1 $args "$t"
			one_error "$what: $t${args:+ $args} refused with one line" 1 "${re//TEST/$t}"
		done
	else
		fail "$what (a script) starts" "$(cat "$T/$name.log")"
	fi
	wait "$op" 2>/dev/null
}
old05 old05 0x1ff3f "an older 0.5 server" "" \
	"^qperf: TEST needs a server running qperf 0\\.5\\.[0-9]+ or later; the server at 127\\.0\\.0\\.1 runs qperf 0\\.5\\.0, which lacks it\$"
# A 0.5 server with rc_conn, rc_qp_setup and --qps for the bandwidth
# tests (caps 0xfff3f) but not CAP_STORM: --qps refused on both.
old05 old05s 0xfff3f "a 0.5 server without CAP_STORM" "--qps 16" \
	"^qperf: TEST: --qps needs a server that sets up a storm of QPs at once \\(qperf 0\\.5\\.[0-9]+\\); the server at 127\\.0\\.0\\.1 \\(qperf 0\\.5\\.0\\) lacks it\$"

# 8. A storm (--qps N): N setups per transaction, each step over all N.
# The report's storm lines; -n storms exactly in JSON valid against the
# schema, each step timed N times a storm, the storm's steps adding up to
# its time within 10%; the limits; a client killed mid-storm.
storm_head() {
	local t=$1 n=$2
	expect "$t --qps $n: storm_rate, qp_rate, storm_time, storms, qps" 0 \
		'^    qp_rate += +[0-9.,]+ K?/sec$' '^$'
	for w in storm_rate storm_time storms "qps += +$(commas "$n") *\$" \
		"${3}_storm" storm_p50; do
		has "^    $w" || fail "$t --qps $n: a $w line" "$(ctx)"
	done
}
storm_exact() {
	local t=$1 q=$2 n=$3 steps=$4 m=$5 list
	list=$(printf '"%s", ' $steps)
	list="[${list%, }]"
	json_valid "$t --qps $q -n $n --json" doc
	json_assert "$t --qps $q -n $n: exactly $n storms of $q, each step timed $q times a storm" \
		"R['conn']['transactions'] == $n and R['conn']['qps'] == $q and R['conn']['transaction']['count'] == $n and all(R['conn'][k]['count'] == $n * $q for k in $list) and R['loc']['send']['msgs'] == $n * $q and R['rem']['recv']['msgs'] == $n * $q and R['loc']['send']['bytes_B'] == $m * $n * $q"
	json_assert "$t --qps $q: storms/s and QPs/s positive, QPs/s = $q x storms/s" \
		"R['conn']['rate_per_s'] > 0 and abs(R['conn']['qp_rate_per_s'] - $q * R['conn']['rate_per_s']) <= 1e-6 * R['conn']['qp_rate_per_s']"
	json_assert "$t --qps $q: the storm's steps add up to its time within 10%" \
		"list(R['conn']['storm_steps_s']) == $list and abs(sum(R['conn']['storm_steps_s'].values()) - R['conn']['transaction']['mean_s']) <= 0.1 * R['conn']['transaction']['mean_s']"
	json_assert "$t --qps $q: each step's percentiles over the QPs, 0 < p50 <= p90 <= p99 <= max" \
		"all(0 < R['conn'][k]['p50_s'] <= R['conn'][k]['p90_s'] <= R['conn'][k]['p99_s'] <= R['conn'][k]['max_s'] for k in $list + ['transaction'])"
}
Q -t 0.5 --qps 256 rc_qp_setup
storm_head rc_qp_setup 256 exchange
ordered "rc_qp_setup --qps 256" $QS_STEPS storm
if json_need; then
	Q -n 4 --qps 256 --json rc_qp_setup
	storm_exact rc_qp_setup 256 4 "$QS_STEPS" 0
fi
Q -t 0.5 --qps 64 rc_conn
storm_head rc_conn 64 first_msg
ordered "rc_conn --qps 64" $RC_STEPS storm
if json_need; then
	Q -n 5 --qps 64 --json rc_conn
	storm_exact rc_conn 64 5 "$RC_STEPS" 1
	Q -n 3 --qps 16 -m 4K --json rc_conn
	storm_exact rc_conn 16 3 "$RC_STEPS" 4096
fi
Q --qps 4097 rc_qp_setup
one_error "rc_qp_setup --qps 4097: one line naming the limit, exit 2" 2 \
	'^qperf: --qps: 4097: above the 4096 QPs rc_qp_setup sets up at once \(a storm\)$'
Q --qps 1025 rc_conn
one_error "rc_conn --qps 1025: one line naming the limit, exit 2" 2 \
	'^qperf: --qps: 1025: above the 1024 QPs rc_conn sets up at once \(a storm\)$'
Q --qps 4 tcp_conn
one_error "tcp_conn --qps 4: not for it, one line, exit 2" 2 '^qperf: --qps: 4: not for tcp_conn: '
for t in rc_qp_setup rc_conn; do
	run bash -c 'ulimit -n 200 && exec "$@"' - "${CL[@]}" "$QPERF" \
		127.0.0.1 -lp "$PORT" -t 0.3 --qps 256 "$t"
	one_error "$t --qps 256 under ulimit -n 200: softverbs' descriptors, one line" 2 \
		"^qperf: $t: --qps 256 needs [0-9]+ file descriptors on .*RLIMIT_NOFILE's hard limit \\(200; ulimit -Hn\\); at most [0-9]+ QPs fit\$"
done
# A client killed (-9) mid-storm: the server serves the next test.
for t in "rc_qp_setup 4096" "rc_conn 1024"; do
	set -- $t
	"${CL[@]}" "$QPERF" 127.0.0.1 -lp "$PORT" -t 10 --qps "$2" "$1" \
		>"$T/kill.out" 2>"$T/kill.err" </dev/null &
	CP=$!
	track_pid "$CP"
	if wait_for 5 has "^$1:\$" "$T/kill.out" && sleep 1 &&
		kill -9 "$CP" 2>/dev/null; then
		wait_bg "$CP" "$T/kill.out" "$T/kill.err"
		[ "$RC" = 137 ] && pass "$1 --qps $2: a client killed (-9) mid-storm" ||
			fail "$1 --qps $2: the client was killed mid-storm" "$(ctx)"
	else
		stop_bg KILL "$CP" "$T/kill.out" "$T/kill.err"
		fail "$1 --qps $2: the client runs until killed" "$(ctx)"
	fi
	Q -t 0.3 "$1"
	expect "$1 after a client killed mid-storm: the server runs the next" 0 \
		'^    conn_rate += ' '^$'
	Q -t 0.3 --qps 8 "$1"
	expect "$1 --qps 8 after a client killed mid-storm: the server runs it" 0 \
		'^    qp_rate += ' '^$'
done
stop_server "$PORT" "$SPID" "our server stops"

finish
