#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# --json and --json_stream on loopback: every output is validated against
# docs/qperf-schema.json with python3-jsonschema (tests/json_check.py), and
# the checks assert on exit statuses and on field values: every socket
# test and conf in both modes, a --loop sweep, failing tests, a server
# that is not there, SIGINT in the middle of a test, usage errors, -vx
# conf, and a qperf 0.4.11 server.
#
# Usage: bash tests/integration/json.sh   (QPERF=path to test another binary)

. "$(dirname "$0")/../lib.sh"

TT=${TT:-0.3}
json_need || finish

if ! start_server; then
	fail "server starts"
	finish
fi
C=(127.0.0.1 -lp "$SERVER_PORT" -t "$TT")

# --- every socket test, both modes -----------------------------------------
for t in tcp_bw tcp_lat udp_bw udp_lat sdp_bw sdp_lat sctp_bw sctp_lat rds_bw rds_lat; do
	for mode in doc stream; do
		opt=--json
		[ $mode = stream ] && opt=--json_stream
		run "$QPERF" "${C[@]}" $opt $t
		json_valid "$t $opt" $mode
		# What the text report would say: 0 and results, or 1 and the
		# error, the same line as on stderr.
		if [ "$RC" = 0 ]; then
			json_assert "$t $opt: exit 0, one test, status ok, results" \
				"len(tests) == 1 and tests[0]['status'] == 'ok' and tests[0]['test'] == '$t' and 'results' in tests[0]"
		else
			msg=$(sed -n 's/^qperf: //p' "$ERR_FILE" | tail -n 1)
			MSG=$msg json_assert "$t $opt: exit $RC = exit_status, error as on stderr" \
				"tests[0]['status'] == 'failed' and tests[0]['error']['message'] == __import__('os').environ['MSG'] and tests[0]['error']['exit_status'] == $RC"
		fi
	done
done

# The tests that work here must work.
for t in tcp_bw udp_bw tcp_lat udp_lat; do
	before=$(date -u +%s)
	run "$QPERF" "${C[@]}" --json $t
	expect "$t --json exits 0" 0
	[ $t = tcp_bw ] && json_assert "the run's wall-clock start and end (UTC, ms), within this run" \
		"all(abs(__import__('calendar').timegm(__import__('time').strptime(d[k][:19], '%Y-%m-%dT%H:%M:%S')) - $before) <= 5 for k in ('start_time_utc', 'end_time_utc')) and d['start_time_utc'] <= d['end_time_utc'] and d['signal'] is None"
	case $t in
	*_bw)
		json_assert "$t: send_bw_Bps and recv_bw_Bps > 0, measure bandwidth" \
			"R['send_bw_Bps'] > 0 and R['recv_bw_Bps'] > 0 and R['measure'].startswith('bandwidth')"
		json_assert "$t: server's bytes received / its real time = recv_bw_Bps (1%)" \
			"abs(R['rem']['recv']['bytes_B'] / R['rem']['real_time_s'] / R['recv_bw_Bps'] - 1) < 0.01" ;;
	*)
		json_assert "$t: latency_s > 0 and below 1 s, msg_rate_per_s > 0" \
			"0 < R['latency_s'] < 1 and R['msg_rate_per_s'] > 0"
		json_assert "$t: params of both ends in SI units (msg_size_B 1, time_s $TT)" \
			"all(T0['params'][s]['msg_size_B'] == 1 and abs(T0['params'][s]['time_s'] - $TT) < 1e-9 and T0['params'][s]['timeout_s'] == 5 for s in ('loc', 'rem'))" ;;
	esac
done

# -ub and -uu change the text report only.
run "$QPERF" "${C[@]}" -ub -uu --json tcp_bw
json_assert "-ub -uu: still bytes per second (bw_Bps = recv_bw_Bps, bytes / s)" \
	"R['bw_Bps'] == R['recv_bw_Bps'] and abs(R['rem']['recv']['bytes_B'] / R['rem']['real_time_s'] / R['bw_Bps'] - 1) < 0.01"

# Interval reports (-I) are events of their test: both sides', adding up
# to the totals; in a stream, lines of type interval before the test line.
run "$QPERF" "${C[@]}" -t 1 -I 0.5 --json tcp_bw
json_valid "-I 0.5 tcp_bw --json" doc
json_assert "-I --json: 2 loc and 2 rem intervals whose bytes add up to the totals" \
	"[i['side'] for i in T0['intervals']].count('loc') == 2 and [i['side'] for i in T0['intervals']].count('rem') == 2 and sum(i['send']['bytes_B'] for i in T0['intervals'] if i['side'] == 'loc') == R['loc']['send']['bytes_B'] and sum(i['recv']['bytes_B'] for i in T0['intervals'] if i['side'] == 'rem') == R['rem']['recv']['bytes_B']"
run "$QPERF" "${C[@]}" -t 1 -I 0.5 --json_stream tcp_bw
json_valid "-I 0.5 tcp_bw --json_stream" stream
json_assert "-I --json_stream: 4 interval lines before the test line" \
	"[l['type'] for l in d].count('interval') == 4 and max(k for k, l in enumerate(d) if l['type'] == 'interval') < [l['type'] for l in d].index('test')"

# --- conf: the run's header and the conf test ------------------------------
for mode in doc stream; do
	opt=--json
	[ $mode = stream ] && opt=--json_stream
	run "$QPERF" "${C[@]}" $opt conf
	expect "conf $opt exits 0, nothing on stderr" 0 '' '^$'
	json_valid "conf $opt" $mode
done
run "$QPERF" "${C[@]}" --json conf
json_assert "conf --json: both ends extended (0.5), kernel, cpus, numa_nodes" \
	"all(d['conf'][s]['extended'] and d['conf'][s]['kernel'] and d['conf'][s]['cpus'] >= 1 and d['conf'][s]['qperf_version'] == '0.5.0' for s in ('loc', 'rem'))"
json_assert "conf --json: the conf test has the same conf as the header" \
	"T0['test'] == 'conf' and T0['conf']['rem']['node'] == d['conf']['rem']['node'] and T0['status'] == 'ok'"
run "$QPERF" "${C[@]}" --json_stream conf tcp_lat
json_assert "--json_stream: start, conf, test conf, test tcp_lat, end" \
	"[l['type'] for l in d] == ['start', 'conf', 'test', 'test', 'end'] and [t['test'] for t in tests] == ['conf', 'tcp_lat'] and d[-1]['exit_status'] == 0 and d[0]['command_line'][-1] == 'tcp_lat'"

# -vx: the text conf gains each end's kernel, NUMA nodes, RDMA devices.
run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -vx conf
expect "-vx conf: exit 0, loc_ and rem_ kernel, numa_nodes, rdma lines" 0 \
	'^    rem_numa_nodes  =  ' '^$'
has '^    loc_kernel +=  ' && has '^    rem_kernel +=  ' &&
	has '^    (loc|rem)_rdma_(devs|dev|port) +=  ' &&
	pass "-vx conf: loc_kernel, rem_kernel, rdma lines" ||
	fail "-vx conf: loc_kernel, rem_kernel, rdma lines" "$(ctx)"
run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" conf
[ "$RC" = 0 ] && [ "$(wc -l <"$OUT_FILE")" = 9 ] && ! has kernel &&
	pass "conf without -vx: 0.4.11's eight lines" ||
	fail "conf without -vx: 0.4.11's eight lines" "$(ctx)"

# --- --loop ------------------------------------------------------------------
for mode in doc stream; do
	opt=--json
	[ $mode = stream ] && opt=--json_stream
	run "$QPERF" "${C[@]}" $opt --loop msg_size:1K:4K:*2 tcp_bw
	expect "--loop $opt exits 0" 0
	json_valid "--loop $opt" $mode
	json_assert "--loop $opt: iterations 0 1 2 with msg_size_B 1024 2048 4096 on both ends" \
		"[t['iteration'] for t in tests] == [0, 1, 2] and [t['params'][s]['msg_size_B'] for t in tests for s in ('loc', 'rem')] == [1024, 1024, 2048, 2048, 4096, 4096] and [t['loop'][0]['value'] for t in tests] == [1024, 2048, 4096] and all(t['loop'][0]['variable'] == 'msg_size' and t['results']['bw_Bps'] > 0 for t in tests)"
done
run "$QPERF" "${C[@]}" --json --loop time:0.1:0.3:+0.1 tcp_lat
json_valid "--loop time --json" doc
json_assert "--loop over time: values 0.1 0.2 0.3 in seconds, unit s" \
	"[round(t['loop'][0]['value'], 9) for t in tests] == [0.1, 0.2, 0.3] and all(t['loop'][0]['unit'] == 's' for t in tests)"
# -e is the one loop variable that is not a test parameter (it said 0)
run "$QPERF" "${C[@]}" -t 0.1 --json --loop precision:2:4:+1 tcp_lat
json_valid "--loop precision --json" doc
json_assert "--loop over -e: values 2 3 4, no unit" \
	"[t['loop'][0]['value'] for t in tests] == [2, 3, 4] and all(t['loop'][0]['variable'] == 'precision' and t['loop'][0]['unit'] == '' for t in tests)"

# --- failures ----------------------------------------------------------------
for mode in doc stream; do
	opt=--json
	[ $mode = stream ] && opt=--json_stream
	run "$QPERF" "${C[@]}" $opt tcp_lat sdp_bw tcp_bw
	expect "tcp_lat sdp_bw tcp_bw $opt: exit 1, the error on stderr" 1 '' 'SDP'
	json_valid "failing sdp_bw $opt" $mode
	json_assert "$opt: the run stops at sdp_bw; its error object and the run's" \
		"[t['test'] for t in tests] == ['tcp_lat', 'sdp_bw'] and [t['status'] for t in tests] == ['ok', 'failed'] and 'SDP' in tests[1]['error']['message'] and tests[1]['error']['exit_status'] == 1 and E['exit_status'] == 1 and E['error']['message'] == tests[1]['error']['message']"
done

# A UDP message too large: a usage error found while parsing, so no JSON.
run "$QPERF" "${C[@]}" --json -m 64K udp_lat
expect "udp_lat -m 64K --json: exit 2, stdout empty" 2 '^$' '65507'

dead=$(free_port)
for mode in doc stream; do
	opt=--json
	[ $mode = stream ] && opt=--json_stream
	run "$QPERF" 127.0.0.1 -lp "$dead" -ws 0 $opt tcp_lat
	expect "no server $opt: exit 1, failed to connect on stderr" 1 '' 'failed to connect'
	json_valid "no server $opt" $mode
	json_assert "no server $opt: no test ran, the run's error says failed to connect" \
		"tests == [] and 'failed to connect' in E['error']['message']"
done

# --- SIGINT in the middle of a test ----------------------------------------
# interrupt MODE-OPTION: start a 20 s tcp_bw, wait until the run's conf is
# out (stream) or the test is running, then SIGINT.
stream_has_conf() { grep -q '"type":"conf"' "$T/int.out"; }
# stop_client SIG: send SIG to the client $cpid (started with $opt, its
# output in $T/int.out and .err), wait for it and load its status and
# output as run() does; mode: doc or stream, for json_valid.
stop_client() {
	stop_bg "$1" "$cpid" "$T/int.out" "$T/int.err"
	mode=doc
	[ "$opt" = --json_stream ] && mode=stream
}

for opt in --json_stream --json; do
	"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 20 $opt tcp_bw >"$T/int.out" 2>"$T/int.err" &
	cpid=$!
	track_pid "$cpid"
	if [ $opt = --json_stream ]; then
		wait_for 10 stream_has_conf
	fi
	sleep 1 # into the measured phase (a 20 s test: not a race)
	start=$SECONDS
	stop_client INT
	expect "SIGINT $opt: exit 130, said on stderr" 130 '' 'interrupted by SIGINT'
	[ $((SECONDS - start)) -le 5 ] && pass "SIGINT $opt: ends within 5 s" ||
		fail "SIGINT $opt: ends within 5 s" "took $((SECONDS - start)) s"
	json_valid "SIGINT $opt" $mode
	json_assert "SIGINT $opt: interrupted true, tcp_bw status interrupted" \
		"E['interrupted'] is True and E['signal'] == 'SIGINT' and E['exit_status'] == 130 and [t['status'] for t in tests] == ['interrupted'] and tests[0]['error']['message'] == 'interrupted by SIGINT'"
done
# SIGTERM and SIGHUP (kill, timeout, scancel, systemd) as SIGINT: a
# --loop run stopped after its first iterations keeps them (issue 17 #10).
stream_has_test() { [ "$(grep -c '"type":"test"' "$T/int.out")" -ge 1 ]; }
# --json writes nothing until the end: -D's debug lines on stderr say when
# an iteration has finished (the second's: the first is surely recorded).
doc_has_test() { [ "$(grep -c '^sending synchronization after test$' "$T/int.err")" -ge 2 ]; }
for sig in TERM HUP; do
	for opt in --json --json_stream; do
		dbg=()
		[ $opt = --json ] && dbg=(-D)
		"$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 0.3 "${dbg[@]}" $opt -oo msg_size:1:64K:*2 tcp_bw >"$T/int.out" 2>"$T/int.err" &
		cpid=$!
		track_pid "$cpid"
		if [ $opt = --json_stream ]; then
			wait_for 10 stream_has_test
		else
			wait_for 10 doc_has_test
		fi
		stop_client $sig
		st=143
		[ $sig = HUP ] && st=129
		expect "SIG$sig $opt --loop: exit $st, said on stderr" $st '' "^qperf: interrupted by SIG$sig\$"
		json_valid "SIG$sig $opt --loop" $mode
		json_assert "SIG$sig $opt --loop: the iterations done kept, the signal named" \
			"E['interrupted'] is True and E['signal'] == 'SIG$sig' and E['exit_status'] == $st and tests[0]['status'] == 'ok' and set(t['status'] for t in tests[1:]) <= {'ok', 'interrupted'} and len(tests) < 17 and E['end_time_utc'] >= S['start_time_utc']"
	done
done
check_alive "server still answers after the interrupted clients" "$SERVER_PORT" "$SERVER_PID"

# --- usage errors --------------------------------------------------------------
run "$QPERF" "${C[@]}" --json --json_stream tcp_lat
expect "--json --json_stream: exit 2, one line naming both, stdout empty" 2 '^$' 'json_stream.*--json|--json.*json_stream'
run "$QPERF" "${C[@]}" --json_stream -J tcp_lat
expect "--json_stream -J: exit 2, stdout empty" 2 '^$' 'json'
run "$QPERF" --json
expect "--json without a host: exit 2, stdout empty" 2 '^$' 'server name'
run "$QPERF" "${C[@]}" --json -m 0x tcp_lat
expect "--json with a bad value: exit 2, stdout empty" 2 '^$' '0x'
# (cluster mode's --json_stream itself: tests/cluster/run.sh)
run "$QPERF" --cluster all --json_stream tcp_lat
expect "--cluster --json_stream without a rank: the usage line, no JSON on stdout, exit 2" 2 '^$' \
	'^qperf: --cluster needs a rank: run it under mpirun or srun, or set QPERF_RANK and QPERF_SIZE$'
run "$QPERF" "${C[@]}" -J tcp_lat
expect "-J is --json" 0
json_valid "-J" doc

# --- a qperf 0.4.11 server ---------------------------------------------------
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 --json conf tcp_lat
	expect "0.4.11 server --json: exit 0" 0
	json_valid "0.4.11 server --json" doc
	json_assert "0.4.11 server: rem not extended (kernel, devices null), tcp_lat ok" \
		"d['conf']['rem']['extended'] is False and d['conf']['rem']['rdma_devices'] is None and d['conf']['rem']['qperf_version'].startswith('0.4') and tests[1]['results']['latency_s'] > 0"
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -vx conf
	expect "0.4.11 server -vx conf: the peer's fabric unknown" 0 '^    rem_fabric +=  unknown'
	run "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" conf
	[ "$RC" = 0 ] && [ "$(wc -l <"$OUT_FILE")" = 9 ] && has '^    rem_qperf  =  0.5.0$' &&
		pass "0.4.11 client: our server's conf is 0.4.11's (no extension)" ||
		fail "0.4.11 client: our server's conf is 0.4.11's (no extension)" "$(ctx)"
else
	skip "0.4.11 server checks" "no $LEGACY_QPERF"
fi

finish
