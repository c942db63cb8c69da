# SPDX-License-Identifier: GPL-2.0-only
# --qps over softverbs (docs/qps.md): rc_bw, ud_bw and xrc_bw over 1, 64,
# 1024 and 4096 QPs with -n (a multiple of the QPs): every QP of both
# ends counted traffic in --json, the sender's total is exactly -n (and
# RC's and XRC's receiver's too), the document valid against the schema;
# the bidirectional tests and the atomics over 1, 64 and 1024 (each way
# exact over RC and XRC); --cq_moderation over 16 QPs with exact totals;
# uc_bw, rc_rdma_write_bw, uc_rdma_write_bw and rc_rdma_read_bw over 64;
# a CQ per QP; --use_srq; two threads (--streams 2); --threads (-n the
# total over them, the default one per CPU, a server without CAP_THREADS
# refused); the -vx lines; the
# limits checked before any QP is made (the device's max_qp and max_cq,
# RLIMIT_MEMLOCK, softverbs' RLIMIT_NOFILE), on the client and on the
# server; the server's memory budget; a 0.4.11 server and a 0.5 one
# without the capability (CAP_QPS, and CAP_QPS2 for the second
# landing's tests and -cqm) refused; --qps 1 sending nothing new; bad
# values.  Sourced by tests/rdma/run.sh (it uses its C, headline and the
# helpers of tests/lib.sh); starts and stops its own servers.  About
# 15-30 s.
#   RDMA_QPS=1 RDMA_PASS=plain bash tests/rdma/run.sh   this file alone

PEER=$LIB_ROOT/tests/robust/peer.py

# one_line NAME: the last run's stderr is one line.
one_line() {
	[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "$1: one line" ||
		fail "$1: one line" "$(ctx)"
}

# qps_json NAME Q N TEST: the last run's --json: valid; Q QPs on each end;
# each end's per_qp_msgs one positive count per QP (the first 4096);
# the sender's total exactly N, and an RC receiver's too.
qps_json() {
	local name=$1 q=$2 n=$3 t=$4 rc_recv=False
	case $t in rc_* | xrc_*) rc_recv=True ;; esac
	json_valid "$name" doc
	json_assert "$name: $q QPs, each counted on both ends, $n sent" \
		"(lambda Q: Q['count'] == $q and all(len(e['per_qp_msgs']) == min($q, 4096) and min(e['per_qp_msgs']) > 0 and e['msgs']['min'] > 0 and e['setup_s'] > 0 for e in (Q['loc'], Q['rem'])) and sum(Q['loc']['per_qp_msgs']) == Q['loc']['msgs']['total'] == $n == R['loc']['send']['msgs'] and (not $rc_recv or Q['rem']['msgs']['total'] == $n == R['rem']['recv']['msgs']))(R['qps'])"
}

start_server || fail "qps: our server"
PORT=$SERVER_PORT
SPID=$SERVER_PID

# 1, 64, 1024 and 4096 QPs: messages per QP 1000, 100, 4 and 2.
for t in rc_bw ud_bw xrc_bw; do
	for qn in 1:1000 64:6400 1024:4096 4096:8192; do
		q=${qn%%:*} n=${qn#*:}
		C -n "$n" --qps "$q" --json "$t"
		if [ "$q" = 1 ]; then
			json_valid "qps: $t --qps 1 -n $n" doc
			json_assert "qps: $t --qps 1: as without it (no qps object), $n sent" \
				"'qps' not in R and R['loc']['send']['msgs'] == $n and T0['params']['loc']['qps'] == 1"
			continue
		fi
		[ "$RC" = 0 ] && pass "qps: $t --qps $q -n $n: exit 0" ||
			fail "qps: $t --qps $q -n $n: exit 0" "$(ctx)"
		qps_json "qps: $t --qps $q -n $n" "$q" "$n" "$t"
	done
done

# qps_bi_json NAME Q N TEST: a bidirectional test's --json: valid; Q QPs
# each end, each counting the sends and receives of its QP, all positive;
# each end sent exactly N, and over RC and XRC received exactly N.
qps_bi_json() {
	local name=$1 q=$2 n=$3 t=$4 exact=False
	case $t in rc_* | xrc_*) exact=True ;; esac
	json_valid "$name" doc
	json_assert "$name: $q QPs, each counted on both ends, $n sent each way" \
		"(lambda Q: Q['count'] == $q and all(len(e['per_qp_msgs']) == $q and min(e['per_qp_msgs']) > 0 and sum(e['per_qp_msgs']) == e['msgs']['total'] == R[s]['send']['msgs'] + R[s]['recv']['msgs'] for e, s in ((Q['loc'], 'loc'), (Q['rem'], 'rem'))) and R['loc']['send']['msgs'] == R['rem']['send']['msgs'] == $n and (not $exact or R['loc']['recv']['msgs'] == R['rem']['recv']['msgs'] == $n))(R['qps'])"
}

# The second landing (CAP_QPS2): the bidirectional tests and the atomics
# over 1, 64 and 1024 QPs.
for t in rc_bi_bw uc_bi_bw ud_bi_bw xrc_bi_bw rc_compare_swap_mr rc_fetch_add_mr; do
	for qn in 1:1000 64:6400 1024:4096; do
		q=${qn%%:*} n=${qn#*:}
		C -n "$n" --qps "$q" --json "$t"
		[ "$RC" = 0 ] && pass "qps: $t --qps $q -n $n: exit 0" ||
			fail "qps: $t --qps $q -n $n: exit 0" "$(ctx)"
		if [ "$q" = 1 ]; then
			json_valid "qps: $t --qps 1 -n $n" doc
			json_assert "qps: $t --qps 1: as without it, $n sent" \
				"'qps' not in R and R['loc']['send']['msgs'] == $n"
		elif [[ $t = *_mr ]]; then
			json_valid "qps: $t --qps $q -n $n" doc
			json_assert "qps: $t --qps $q: every QP posted atomics, $n in all; the server counts none" \
				"R['qps']['count'] == $q and min(R['qps']['loc']['per_qp_msgs']) > 0 and sum(R['qps']['loc']['per_qp_msgs']) == $n == R['loc']['send']['msgs'] == R['rem']['recv']['msgs'] and R['qps']['rem']['msgs']['total'] == 0"
		else
			qps_bi_json "qps: $t --qps $q -n $n" "$q" "$n" "$t"
		fi
	done
done

# --cq_moderation over 16 QPs: each QP's runs its own, the totals exact.
for t in rc_bw rc_rdma_write_bw xrc_bw uc_bw; do
	C -n 16000 --qps 16 -cqm 100 --json "$t"
	qps_json "qps: $t --qps 16 -cqm 100 -n 16000" 16 16000 "$t"
done
C -n 16000 --qps 16 -cqm 100 --json rc_rdma_read_bw
json_assert "qps: rc_rdma_read_bw --qps 16 -cqm 100: every QP read, 16000 in all" \
	"R['qps']['loc']['msgs']['min'] > 0 and sum(R['qps']['loc']['per_qp_msgs']) == 16000 == R['loc']['recv']['msgs']"
for t in rc_bi_bw xrc_bi_bw; do
	C -n 16000 --qps 16 -cqm 100 --json "$t"
	qps_bi_json "qps: $t --qps 16 -cqm 100 -n 16000" 16 16000 "$t"
done
# XRC with a CQ per send QP (the SRQ's receives complete on the first)
C -n 6400 --qps 64 --cq_per_qp --json xrc_bw
qps_json "qps: xrc_bw --qps 64 --cq_per_qp" 64 6400 xrc_bw
json_assert "qps: xrc_bw --cq_per_qp: a CQ per QP on both ends" \
	"R['qps']['loc']['cq_per_qp'] and R['qps']['rem']['cq_per_qp']"
# moderation above a QP's share of the depth (16 of 4: runs of 16 take
# the QPs in turn, two each), with a post list,
# a CQ per QP, and polling
C -n 8192 --qps 256 -cqm 16 --post_list 4 --cq_per_qp -cp1 --json rc_rdma_write_bw
qps_json "qps: rc_rdma_write_bw --qps 256 -cqm 16 --post_list 4 --cq_per_qp -cp1" 256 8192 rc_rdma_write_bw

# The other tests over 64 QPs; -vx's lines.
for t in uc_bw rc_rdma_write_bw uc_rdma_write_bw; do
	C -n 6400 --qps 64 --json "$t"
	qps_json "qps: $t --qps 64 -n 6400" 64 6400 "$t"
done
C -n 3200 --qps 64 --json rc_rdma_read_bw
json_valid "qps: rc_rdma_read_bw --qps 64 -n 3200" doc
json_assert "qps: rc_rdma_read_bw --qps 64: every QP read, 3200 in all; the server counts none" \
	"R['qps']['loc']['msgs']['min'] > 0 and sum(R['qps']['loc']['per_qp_msgs']) == 3200 == R['loc']['recv']['msgs'] and R['qps']['rem']['msgs']['total'] == 0"
C -t "$TT" --qps 64 -vx rc_bw
expect "qps: rc_bw --qps 64 -vx: the aggregate and each end's QP lines" 0 \
	"$(headline rc_bw)"
for l in 'qps += +64 $' 'loc_qp_cqs += +1 $' 'rem_qp_cqs += +1 $' \
	"(loc|rem)_qp_setup += +$POS (ns|us|ms|sec)$" \
	"loc_qp_msgs_min += +$POS $" "rem_qp_msgs_median += +$POS $" \
	"rem_qp_msgs_max += +$POS $" "loc_qp_mem_pinned += +$POS " \
	"rem_qp_mem_process += +$NUM "; do
	has "^    $l" && pass "qps: -vx line /$l/" ||
		fail "qps: -vx line /$l/" "$(ctx)"
done
C -t "$TT" --qps 64 rc_bw
[ "$RC" = 0 ] && ! has 'qp' &&
	pass "qps: without -vx only the aggregate" ||
	fail "qps: without -vx only the aggregate" "$(ctx)"

# A CQ per QP (both ends, then the server's alone); an SRQ.
C -n 6400 --qps 64 --cq_per_qp --json rc_bw
qps_json "qps: rc_bw --qps 64 --cq_per_qp" 64 6400 rc_bw
json_assert "qps: --cq_per_qp: a CQ per QP on both ends" \
	"R['qps']['loc']['cq_per_qp'] and R['qps']['rem']['cq_per_qp']"
C -n 6400 --qps 64 --rem_cq_per_qp -vx -cp1 ud_bw
expect "qps: ud_bw --rem_cq_per_qp -cp1: the server's 64 CQs" 0 \
	'^    rem_qp_cqs += +64 $'
has '^    loc_qp_cqs += +1 $' && pass "qps: --rem_cq_per_qp: one CQ here" ||
	fail "qps: --rem_cq_per_qp: one CQ here" "$(ctx)"
C -n 6400 --qps 64 --use_srq 1 --json rc_bw
qps_json "qps: rc_bw --qps 64 --use_srq 1" 64 6400 rc_bw
# Two threads (--streams 2), 32 QPs each; -n counts per stream.
C -n 3200 --qps 64 -st 2 --json rc_bw
qps_json "qps: rc_bw --qps 64 -st 2 -n 3200" 64 6400 rc_bw
json_assert "qps: -st 2: two streams of 3200" \
	"[s['loc']['send']['msgs'] for s in R['streams']] == [3200, 3200]"

# --threads T: the QPs spread over T threads, -n the total, split n/T
# (the first n mod T one more); the default one per CPU, at most the QPs
# and -n, shown by -vx and --json.
C -n 1001 --qps 64 --threads 3 --json rc_bw
qps_json "qps: rc_bw --qps 64 --threads 3 -n 1001" 64 1001 rc_bw
json_assert "qps: --threads 3: three threads, their sends 334, 334, 333" \
	"R['qps']['threads'] == 3 == T0['params']['loc']['threads'] and [s['loc']['send']['msgs'] for s in R['streams']] == [334, 334, 333] and [s['rem']['recv']['msgs'] for s in R['streams']] == [334, 334, 333]"
C -n 999 --qps 64 --threads 1 --json rc_bw
qps_json "qps: rc_bw --qps 64 --threads 1 -n 999" 64 999 rc_bw
json_assert "qps: --threads 1: one thread, no stream list" \
	"R['qps']['threads'] == 1 and 'streams' not in R"
cpus=$(getconf _NPROCESSORS_ONLN)
want=$((cpus < 64 ? cpus : 64))
C -n 6400 --qps 64 --json ud_bw
qps_json "qps: ud_bw --qps 64, the default threads" 64 6400 ud_bw
json_assert "qps: the default --threads: $want, one per CPU" \
	"R['qps']['threads'] == $want == T0['params']['loc']['threads']"
C -t "$TT" --qps 64 -vx rc_bw
has "^    threads += +$want \$" &&
	pass "qps: -vx shows the default threads ($want)" ||
	fail "qps: -vx shows the default threads ($want)" "$(ctx)"
C -n 2 --qps 64 --threads 8 --json rc_bw
json_assert "qps: -n 2: at most 2 threads, 2 messages" \
	"R['qps']['threads'] == 2 and R['loc']['send']['msgs'] == 2 == R['rem']['recv']['msgs']"
C --qps 64 --threads 2 -st 2 rc_bw
expect "qps: --threads with --streams: refused" 2 '^$' \
	'^qperf: --threads: 2: not with -st: give one of them'
one_line "qps: --threads with --streams"
C -I 0.2 -t "$TT" --qps 64 --threads 2 rc_bw
expect "qps: -I with 2 threads: refused" 2 '^$' \
	'^qperf: -I: interval reports are not available with 2 threads in test rc_bw; give --threads 1$'

# The limits, before any QP is made: the client's (exit 2, nothing sent)
# and the server's (its one line, exit 1).
SOFTVERBS_MAX_QP=1000 C -n 1024 --qps 1024 rc_bw
expect "qps: above the device's max_qp: refused" 2 '^$' \
	'^qperf: rc_bw: --qps 1024 is above the max_qp of softv0 \(1000\); at most 1000 QPs fit$'
one_line "qps: max_qp"
SOFTVERBS_MAX_CQ=100 C -n 1024 --qps 128 --cq_per_qp rc_bw
expect "qps: --cq_per_qp above the device's max_cq: refused" 2 '^$' \
	'^qperf: rc_bw: --qps 128 with --cq_per_qp needs 128 CQs, above the max_cq of softv0 \(100\); at most 100 QPs fit with a CQ each$'
# RLIMIT_MEMLOCK binds a process without CAP_IPC_LOCK (this one may run
# as root): the capability dropped, 1 MiB locked at most.
run env SOFTVERBS_NODE=2 setpriv --inh-caps -ipc_lock \
	--bounding-set -ipc_lock bash -c \
	'ulimit -l 1024 && exec "$0" localhost -lp "$1" -n 1024 --qps 1024 rc_bw' \
	"$QPERF" "$PORT"
expect "qps: a memlock limit too small: refused" 2 '^$' \
	'^qperf: rc_bw: --qps 1024 needs about 4\.1. MiB of locked memory \(.*\), above RLIMIT_MEMLOCK \(1 MiB; ulimit -l\); at most 2[0-9][0-9] QPs fit$'
one_line "qps: RLIMIT_MEMLOCK"
run env SOFTVERBS_NODE=2 bash -c \
	'ulimit -n 512 && exec "$0" localhost -lp "$1" -n 1024 --qps 1024 rc_bw' \
	"$QPERF" "$PORT"
expect "qps: an fd limit too small for softverbs: refused" 2 '^$' \
	"^qperf: rc_bw: --qps 1024 needs [0-9]+ file descriptors on softv0 \(softverbs takes one per QP; [0-9]+ are open\), above RLIMIT_NOFILE's hard limit \(512; ulimit -Hn\); at most [0-9]+ QPs fit$"
one_line "qps: RLIMIT_NOFILE"
check_alive "qps: the server serves after the refusals" "$PORT" "$SPID"
stop_server "$PORT" "$SPID"
start_server env SOFTVERBS_MAX_QP=100 -- --max_memory 64M ||
	fail "qps: server with max_qp 100 and a 64 MiB budget"
PORT=$SERVER_PORT
SPID=$SERVER_PID
C -n 128 --qps 128 rc_bw
expect "qps: above the server's max_qp: its one line" 1 '' \
	'^qperf: server: --qps 128 is above the max_qp of softv0 \(100\); at most 100 QPs fit$'
one_line "qps: the server's max_qp"
C -n 1024 --qps 1024 rc_bw
expect "qps: past the server's memory budget: refused" 1 '' \
	'^qperf: server: not enough memory: this test needs [0-9]+ bytes, more than .*--max_memory.*; use a smaller -m or fewer --qps$'
C -n 6400 --qps 64 rc_bw
expect "qps: and that server runs 64" 0 "$(headline rc_bw)"
stop_server "$PORT" "$SPID"

# A 0.5 server with CAP_QPS but without CAP_THREADS (0x200000): more
# than one thread refused with one line; one sends no REQX_THREADS (16).
for th in 2 1; do
	pf=$T/tcaps.$th
	python3 "$PEER" caps-server "$pf" 0xfffff >"$T/tcaps.$th.out" 2>&1 &
	track_pid $!
	wait_for 5 test -s "$pf"
	run env SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -to 1 \
		-n 100 --qps 4 --threads "$th" rc_bw
	wait_for 5 test -s "$pf.items"
	if [ "$th" = 2 ]; then
		expect "qps: a 0.5 server without CAP_THREADS: refused" 1 '' \
			'^qperf: rc_bw: 2 threads \(--threads\) need a server that spreads QPs over threads \(qperf 0\.5\.0\); the server at 127\.0\.0\.1 \(qperf 0\.5\.0\) lacks it: give --threads 1$'
		one_line "qps: without CAP_THREADS"
		items_has "qps: --threads 2 sends item 16" "$pf.items" 16
	else
		items_lacks "qps: --threads 1 sends no item 16" "$pf.items" 16
	fi
done

# A 0.4.11 server, and a 0.5 one without CAP_QPS (0x80000): one line.
# Only --qps above one sends REQX_QPS (15).
if start_legacy_server; then
	run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$LEGACY_PORT" -n 100 --qps 4 rc_bw
	expect "qps: a 0.4.11 server: refused" 1 '' \
		'^qperf: rc_bw: --qps needs a server running qperf 0\.5\.0 or later; the server at localhost runs qperf 0\.4, which holds one QP per test$'
	one_line "qps: 0.4.11"
	run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp "$LEGACY_PORT" -t "$TT" --qps 1 rc_bw
	expect "qps: --qps 1 with a 0.4.11 server: runs" 0 "$(headline rc_bw)"
	stop_legacy_server
else
	fail "qps: a 0.4.11 server starts"
fi
for q in 4 1; do
	pf=$T/qcaps.$q
	python3 "$PEER" caps-server "$pf" 0x7ffff >"$T/qcaps.$q.out" 2>&1 &
	track_pid $!
	wait_for 5 test -s "$pf"
	run env SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -to 1 \
		-n 100 --qps "$q" rc_bw
	wait_for 5 test -s "$pf.items"
	if [ "$q" = 4 ]; then
		expect "qps: a 0.5 server without CAP_QPS: refused" 1 '' \
			'^qperf: rc_bw: --qps needs a server that runs several QPs in one test \(qperf 0\.5\.0\); the server at 127\.0\.0\.1 \(qperf 0\.5\.0\) lacks it$'
		one_line "qps: without CAP_QPS"
		items_has "qps: --qps 4 sends item 15" "$pf.items" 15
	else
		items_lacks "qps: --qps 1 sends nothing new" "$pf.items" '15|41'
	fi
done

# A 0.5 server with CAP_QPS but without CAP_QPS2 (0x800000): the tests
# of the second landing, and -cqm, refused with one line.
for args in 'xrc_bw:xrc_bw over several QPs' 'rc_bi_bw:rc_bi_bw over several QPs' \
	'rc_fetch_add_mr:rc_fetch_add_mr over several QPs' \
	'-cqm 100 rc_bw:several QPs with -cqm'; do
	a=${args%%:*} what=${args#*:} t=${a##* }
	pf=$T/q2caps
	rm -f "$pf" "$pf.items"
	python3 "$PEER" caps-server "$pf" 0xfffff >"$T/q2caps.out" 2>&1 &
	track_pid $!
	wait_for 5 test -s "$pf"
	# shellcheck disable=SC2086 # the options, split
	run env SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -to 1 \
		-n 100 --qps 4 $a
	expect "qps: $a, a server without CAP_QPS2: refused" 1 '' \
		"^qperf: $t: --qps needs a server that runs $what \\(qperf 0\\.5\\.0\\); the server at 127\\.0\\.0\\.1 \\(qperf 0\\.5\\.0\\) lacks it$"
	one_line "qps: $a without CAP_QPS2"
done
# ... while rc_bw over several QPs, unmoderated, on one thread (it lacks
# CAP_THREADS too), is asked of it (item 15)
rm -f "$pf" "$pf.items"
python3 "$PEER" caps-server "$pf" 0xfffff >"$T/q2caps.out" 2>&1 &
track_pid $!
wait_for 5 test -s "$pf"
run env SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -to 1 \
	-n 100 --qps 4 --threads 1 rc_bw
wait_for 5 test -s "$pf.items"
! grep -q 'lacks it' "$ERR_FILE" && grep -Eq '(^| )15( |$)' "$pf.items" &&
	pass "qps: rc_bw --qps 4 is asked of a server with CAP_QPS alone" ||
	fail "qps: rc_bw --qps 4 is asked of a server with CAP_QPS alone" \
		"items: $(cat "$pf.items" 2>/dev/null)" "$(ctx)"

# Bad values: one line naming the value, exit 2.
for bad in '0:must be greater than 0' '-1:must not be negative' \
	'65537:too large; must be at most 65536' 'abc:bad number' \
	'1.5:bad number'; do
	v=${bad%%:*} why=${bad#*:}
	run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp 1 --qps "$v" rc_bw
	expect "qps: --qps $v: refused" 2 '^$' "^qperf: --qps: $v: $why"
	one_line "qps: --qps $v"
done
for bad in 'rc_lat:not for rc_lat: only rc_bi_bw, rc_bw, .* and xrc_bw run over several QPs, and rc_conn and rc_qp_setup set up a storm of them$' \
	'tcp_bw:not for tcp_bw' 'ver_rc_fetch_add:not for ver_rc_fetch_add' \
	'-cm1 rc_bw:not with -cm1' \
	'-st 16 rc_bw:fewer QPs than the 16 streams of -st'; do
	args=${bad%%:*} why=${bad#*:}
	# shellcheck disable=SC2086 # the options, split
	run env SOFTVERBS_NODE=2 "$QPERF" localhost -lp 1 --qps 8 $args
	expect "qps: --qps 8 $args: refused" 2 '^$' "^qperf: --qps: 8: $why"
	one_line "qps: --qps 8 $args"
done
