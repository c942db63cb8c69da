#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build qperf with ASan+UBSan in a scratch copy and run its unit tests and
# every socket test (client and server both instrumented); any sanitizer
# report is a failure.  Last line: "N passed, N failed".  Narrowing
# (QPERF_CHECKS) skips the unit programs and the suites run under the
# sanitizers whose checks it does not select; a selected one runs whole.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
export -n QPERF_CHECKS # the suites run here run whole
tmp=$T
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

san=tests/.san-build # shared with the RDMA suite's ASan pass
if bash tests/san-build.sh qperf unit >"$tmp/build.log" 2>&1; then
	pass "ASan+UBSan build"
else
	fail "ASan+UBSan build" "$(tail -n 30 "$tmp/build.log")"
	finish
fi
for t in "$san"/tests/unit/test_*; do
	case $t in *.c|*.sh) continue ;; esac
	selected_check "sanitized $(basename "$t")" || continue
	if "$t" >"$tmp/unit.log" 2>&1; then pass "sanitized $(basename "$t")"
	else fail "sanitized $(basename "$t")" "$(tail -n 20 "$tmp/unit.log")"; fi
done

Q=$PWD/$san/qperf
"$Q" -lp 0 -lpf "$tmp/port" 2>"$tmp/server.err" &
server=$!
track_pid "$server"
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port" 2>/dev/null)
run_san() { # expected-status, args...
	local want=$1 rc
	shift
	timeout 60 "$Q" localhost -lp "$port" "$@" >>"$tmp/client.out" 2>>"$tmp/client.err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then pass "sanitized qperf $* (exit $rc)"
	else fail "sanitized qperf $* (exit $rc, wanted $want)" "$(tail -n 5 "$tmp/client.err")"; fi
}
run_san 0 conf
run_san 0 -t 0.3 -vv -D tcp_bw tcp_lat udp_bw udp_lat
run_san 0 -n 500 -vv tcp_bw tcp_lat udp_lat
run_san 0 -t 0.2 --loop msg_size:1:64K:*16 -vu tcp_lat
run_san 1 -t 0.2 sctp_bw
run_san 1 -t 0.2 sdp_lat
run_san 1 -t 0.2 rds_bw
run_san 1 -t 0.2 rc_bw
run_san 2 -m 5G tcp_bw
run_san 0 --json -vx -t 0.2 conf tcp_lat udp_bw
run_san 0 --json_stream -t 0.2 --loop msg_size:1:4:*2 tcp_bw conf
run_san 1 --json -t 0.2 tcp_lat sdp_bw
run_san 0 -t 0.3 -st 4 -v tcp_bw udp_bw
run_san 0 -n 300 -st 2 --json tcp_bw udp_bw
run_san 0 quit
wait "$server"
rc=$?
if [ "$rc" -eq 0 ]; then pass "server exited 0 after quit"; else fail "server exited 0 after quit" "server exit status $rc"; fi
if grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$tmp/server.err" "$tmp/client.err"; then
	fail "no sanitizer reports" "$(grep -E -A5 "runtime error|AddressSanitizer|LeakSanitizer" "$tmp/server.err" "$tmp/client.err" | head -40)"
else
	pass "no sanitizer reports"
fi
# The server's supervisor (watchdog kills, refusals, quit and SIGTERM,
# access control) under the sanitizers: tests/robust/harden.sh, whose
# own last check is that no server log holds a sanitizer report.
if ! checks_match "sanitized hardening cases"; then
	:
elif QPERF=$Q bash tests/robust/harden.sh >"$tmp/harden.log" 2>&1; then
	pass "sanitized hardening cases: $(tail -n 1 "$tmp/harden.log")"
else
	fail "sanitized hardening cases: $(tail -n 1 "$tmp/harden.log")" \
		"$(grep -E -A40 '^FAIL' "$tmp/harden.log" | head -80)"
fi
# --json and --json_stream under the sanitizers (a leak or a report fails
# the exit status and stderr checks there).
if ! checks_match "sanitized JSON cases"; then
	:
elif QPERF=$Q bash tests/integration/json.sh >"$tmp/json.log" 2>&1; then
	pass "sanitized JSON cases: $(tail -n 1 "$tmp/json.log")"
else
	fail "sanitized JSON cases: $(tail -n 1 "$tmp/json.log")" \
		"$(grep -E -A6 '^FAIL' "$tmp/json.log" | head -40)"
fi
# --streams: threads on both ends (tests/integration/streams.sh).
if ! checks_match "sanitized --streams cases"; then
	:
elif QPERF=$Q bash tests/integration/streams.sh >"$tmp/streams.log" 2>&1; then
	pass "sanitized --streams cases: $(tail -n 1 "$tmp/streams.log")"
else
	fail "sanitized --streams cases: $(tail -n 1 "$tmp/streams.log")" \
		"$(grep -E -A12 '^FAIL' "$tmp/streams.log" | head -80)"
fi
finish
