# SPDX-License-Identifier: GPL-2.0-only
# --rate over softverbs (issue 19 items 1 and 6): rc_bw and ud_bw at three
# rates each, rc_bi_bw (each end paces its direction: the server gets the
# rate, CAP_RATE) and rc_rdma_read_bw (the client paces the reads it
# posts), all well below softverbs' gigabytes a second (ud_bw lower: its
# 2 KiB messages cost softverbs a system call each), achieve within 5% of
# the rate, or fall below it with the warning that says so (never above
# it: a sender starved of CPU on this 2-CPU machine says it could not
# hold the rate).
# Sourced by tests/rdma/run.sh (its C and the helpers of tests/lib.sh);
# starts and stops its own server.  The ASan pass (whose timing is
# ASan's) asks only that each test runs paced; in CI the plain pass
# (RDMA_LEAN) judges the rates.

start_server || fail "pace: our server"
PORT=$SERVER_PORT
SPID=$SERVER_PID
for tr in rc_bw:100 rc_bw:400 rc_bw:1600 ud_bw:25 ud_bw:50 ud_bw:100 \
	rc_bi_bw:400 rc_rdma_read_bw:400; do
	t=${tr%%:*} mb=${tr#*:}
	bps=$((mb * 125000))
	C -t 1 --json --rate "${mb}Mb" "$t"
	# The lowest rates of rc_bw and ud_bw ask little: they must hold,
	# in one of three tries (a sender starved of CPU by the machine, not
	# by the pacing, falls short now and then).
	for _ in 1 2; do
		{ [ "$tr" = rc_bw:100 ] || [ "$tr" = ud_bw:25 ]; } &&
			[ "$RDMA_PASS" != asan ] && json_need &&
			grep -q "could not be held" "$ERR_FILE" || break
		C -t 1 --json --rate "${mb}Mb" "$t"
	done
	if [ "$RDMA_PASS" = asan ] || ! json_need; then
		expect "pace: $t --rate ${mb}Mb runs" 0 "\"offered_Bps\": $bps(\\.0)?[,}]?"
		continue
	fi
	if [ "$tr" != rc_bw:100 ] && [ "$tr" != ud_bw:25 ] &&
		grep -q "^qperf: warning: $t: the rate of .* could not be held: .* achieved, [0-9.]*% short$" "$ERR_FILE"; then
		json_assert "pace: $t --rate ${mb}Mb: below the rate, and the warning says it could not be held" \
			"R['pace']['offered_Bps'] == $bps and 0 < R['pace']['achieved_Bps'] < 0.95 * $bps and R['pace']['pacing'] == 'token_bucket'"
	else
		json_assert "pace: $t --rate ${mb}Mb: achieved within 5% of $bps B/s" \
			"R['pace']['offered_Bps'] == $bps and abs(R['pace']['achieved_Bps'] / $bps - 1) <= 0.05 and R['pace']['pacing'] == 'token_bucket'"
	fi
done
stop_server "$PORT" "$SPID"
