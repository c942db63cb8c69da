#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster mode trusts no one (issue 17, items 1-3; docs/cluster.md,
# "Trust"): the job secret, strangers on the rendezvous port
# (tests/cluster/stranger.py), a rank that stalls in mid-message, figures
# that cannot be, and the ranks' servers.  Part of tests/cluster/run.sh;
# alone: bash tests/cluster/trust.sh (about 30 s).
#
# Sets QPERF_SECRET_FILE (exported) to the job secret the rest of the
# suite's runs use.

if [ -z "${LIB_ROOT:-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	TRUST_ALONE=1
fi
section trust
STRANGER=$LIB_ROOT/tests/cluster/stranger.py
head -c 32 /dev/urandom | base64 >"$T/job.key" && chmod 600 "$T/job.key"
unset QPERF_SECRET_FILE

# --- no secret: no run -----------------------------------------------------
run -t 30 env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:$(free_port) -ws 2 tcp_lat
expect "trust: no job secret: one line saying how to give one, exit 2" 2 '^$' \
	"^qperf: --cluster needs a job secret, so that only this job's ranks join and test: give every rank --secret_file FILE \(the same file, mode 600\) or set QPERF_SECRET_FILE; Open MPI's mpirun gives one per job, Slurm and QPERF_RANK runs do not$"
chmod 644 "$T/job.key"
run -t 30 env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:$(free_port) \
	--secret_file "$T/job.key" tcp_lat
expect "trust: a secret file others may read: named, exit 1" 1 '^$' \
	'^qperf: rank 0: --secret_file: ".*/job.key" has mode 0644: group or others may access it; chmod 600 it$'
chmod 600 "$T/job.key"
export QPERF_SECRET_FILE=$T/job.key

# --- strangers during the joins ------------------------------------------------
# Rank 0 of 3 with a 12 s join window; rank 1 joins; a stranger then opens
# 6 silent connections (before, each held rank 0 for 5 s: 30 s) and tries
# its JOINs; rank 2 starts 2.5 s later, while the stranger still holds
# them open.  Every honest rank must join, every trick be refused with a
# line naming its port.
P=$(free_port)
# (the stranger first: Python may take seconds to start on a busy machine)
python3 "$STRANGER" 127.0.0.1 "$P" attack 3 "$T/job.key" "$T/go" >"$T/stranger.out" 2>&1 &
trs=$!
track_pid $trs
wait_for 30 grep -qs '^ready' "$T/stranger.out"
QPERF_RANK=0 QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-ws 12 -t 0.1 tcp_lat >"$T/tr0.out" 2>"$T/tr0.err" </dev/null &
tr0=$!
track_pid $tr0
QPERF_RANK=1 QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-ws 12 -t 0.1 tcp_lat >/dev/null 2>"$T/tr1.err" </dev/null &
tr1=$!
track_pid $tr1
# rank 0's own worker and rank 1 are connected (and say JOIN at once)
joined2() { [ "$(ss -tnH state established "( dport = :$P )" | wc -l)" -ge 2 ]; }
wait_for 10 joined2
sleep 0.3
touch "$T/go"
wait_for 10 grep -qs '^taken port' "$T/stranger.out"
sleep 2.5 # the silent connections are dropped meanwhile
QPERF_RANK=2 QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-ws 12 -t 0.1 tcp_lat >/dev/null 2>"$T/tr2.err" </dev/null &
tr2=$!
track_pid $tr2
wait $tr0
RC=$?
wait $tr1
r1=$?
wait $tr2
r2=$?
wait $trs
cp "$T/tr0.out" "$OUT_FILE"
cp "$T/tr0.err" "$ERR_FILE"
OUT=$(cat "$OUT_FILE")
ERR=$(cat "$ERR_FILE")
if [ "$RC" -le 1 ] && [ "$r1" = 0 ] && [ "$r2" = 0 ] && has '^  rank 2: .* \(127\.0\.0\.1 port [0-9]+\)$' &&
	! has '^gone: ' && ! has 'stranger'; then
	pass "trust: 6 silent connections and 6 false JOINs in a 12 s join window: every honest rank joins and runs"
else
	fail "trust: 6 silent connections and 6 false JOINs in a 12 s join window: every honest rank joins and runs" \
		"ranks 1, 2 exit $r1, $r2" "$(ctx)" "--- stranger:" "$(cat "$T/stranger.out")" "--- rank 2:" "$(cat "$T/tr2.err")"
fi
# refused TRICK NAME REGEX: rank 0's stderr has the line for TRICK's port.
refused() {
	local port
	port=$(awk -v t="$1" '$1 == t && $2 == "port" { print $3; exit }' "$T/stranger.out")
	if [ -n "$port" ] && grep -Eq "^qperf: rank 0: $3 from 127\.0\.0\.1 port $port: " "$T/tr0.err" &&
		grep -E "^qperf: rank 0: [A-Za-z ]+ from 127\.0\.0\.1 port $port: " "$T/tr0.err" | grep -Eq -- "$4"; then
		pass "trust: $2"
	else
		fail "trust: $2" "stranger's port: ${port:-none}" "$(cat "$T/stranger.out")" "--- rank 0's stderr:" "$(cat "$T/tr0.err")"
	fi
}
refused nomac "an unsealed JOIN: refused, named" "refused a JOIN" ': no MAC: not sealed with a job secret$'
refused badmac "a JOIN sealed with another secret: refused, named" "refused a JOIN" ": bad MAC: it does not hold this job's secret$"
refused replay "a JOIN sealed for another connection (a replay): refused, named" "refused a JOIN" ": bad MAC: it does not hold this job's secret$"
refused beyond "a JOIN for rank 8 of 3: refused, named" "refused a JOIN" ": rank 8 is beyond this job's ranks 0 to 2$"
refused taken "a second JOIN for rank 1: refused, named with the first's address" "refused a JOIN" ': rank 1 has joined already, from 127\.0\.0\.1$'
refused partial "12 bytes of a JOIN, then nothing: dropped after 2 s, named" "dropped a connection" ': it sent part of a JOIN and stopped within 2 s$'
n=$(grep -Ec '^qperf: rank 0: dropped a connection from 127\.0\.0\.1 port [0-9]+: it said nothing within 2 s$' "$T/tr0.err")
[ "$n" = 6 ] && pass "trust: 6 silent connections: each dropped after 2 s, named" ||
	fail "trust: 6 silent connections: each dropped after 2 s, named ($n lines)" "$(cat "$T/tr0.err")"

# --- a rank that stalls in mid-message; figures that cannot be; servers -------
# Ranks 0-2 honest, rank 3 a fake with the secret (stranger.py fake) whose
# "server" is a real qperf server with the secret.  Its first RESULT says
# recv_bw = inf: refused, named, not printed.  Its second stops after 12
# bytes for 12 s (more than the 10 s after which ranks give rank 0 up; -to
# 2 lets a job take 18 s): rank 0 must keep serving and pinging the
# others, and take the rest when it comes.  Meanwhile a client without
# the secret tries rank 1's server.
start_server -- --secret_file "$T/job.key"
FAKE_SRV=$SERVER_PORT
P=$(free_port)
QPERF_RANK=0 QPERF_SIZE=4 timeout 90 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-t 0.2 -to 2 tcp_bw >"$T/st0.out" 2>"$T/st0.err" </dev/null &
st0=$!
track_pid $st0
st=()
for r in 1 2; do
	QPERF_RANK=$r QPERF_SIZE=4 timeout 90 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
		-t 0.2 -to 2 tcp_bw >/dev/null 2>"$T/st$r.err" </dev/null &
	st+=($!)
	track_pid $!
done
python3 "$STRANGER" 127.0.0.1 "$P" fake 3 4 "$T/job.key" "$FAKE_SRV" 12 >"$T/fake.out" 2>&1 &
stf=$!
track_pid $stf
wait_for 60 grep -qs '^  rank 3:' "$T/st0.out" # at once when idle
port1=$(sed -n 's/^  rank 1: .* port \([0-9]*\))$/\1/p' "$T/st0.out")
run -t 20 env -u QPERF_SECRET_FILE "$QPERF" 127.0.0.1 -lp "${port1:-1}" -t 0.1 tcp_lat
expect "trust: a rank's server during the run: a client without the job secret is refused" 1 '' \
	'requires a shared secret'
# The rest of the stall takes 12 s: tests/cluster/run.sh runs its next
# checks meanwhile and calls stall_check after them (alone: at once).
FAKE_SRV_PID=$SERVER_PID
stall_check() {
	local pid SECTION=trust others=0
	wait $st0
	RC=$?
	for pid in "${st[@]}"; do wait "$pid" || others=$?; done
	wait $stf
	cp "$T/st0.out" "$OUT_FILE"
	cp "$T/st0.err" "$ERR_FILE"
	OUT=$(cat "$OUT_FILE")
	ERR=$(cat "$ERR_FILE")
	if grep -q '^stalled in a RESULT for 12' "$T/fake.out" && grep -q '^done$' "$T/fake.out" &&
		[ "$RC" -le 1 ] && [ "$others" = 0 ] && has '^cluster: [0-9]+ outliers?$' && ! has '^gone: ' &&
		! grep -q 'lost rank 0' "$T/st1.err" "$T/st2.err" && ! grep -Eq 'rank [0-3] .*(left|did not finish)' "$T/st0.err"; then
		pass "trust: a rank stalls 12 s in mid-RESULT: rank 0 serves and pings the others, no rank is lost, the run ends"
	else
		fail "trust: a rank stalls 12 s in mid-RESULT: rank 0 serves and pings the others, no rank is lost, the run ends" \
			"others' exit: $others" "$(ctx)" "--- fake:" "$(cat "$T/fake.out")" "--- ranks 1, 2:" "$(cat "$T/st1.err" "$T/st2.err")"
	fi
	if grep -Eq '^qperf: rank 0: refused a RESULT from rank 3 \(127\.0\.0\.1\): a figure that is not a finite number >= 0: recv_bw is inf$' "$T/st0.err" &&
		has '^tcp_bw: 1 pair test failed; the first: rank 3 against rank [0-2]: rank 0 refused rank 3.s RESULT: a figure that is not a finite number >= 0: recv_bw is inf$' &&
		! grep -E '^ +[0-9]+ ' "$T/st0.out" | grep -Eqiw 'inf|nan'; then
		pass "trust: a RESULT with recv_bw = inf: refused, named, its pair failed, no inf in the matrix"
	else
		fail "trust: a RESULT with recv_bw = inf: refused, named, its pair failed, no inf in the matrix" "$(ctx)"
	fi
	kill "$FAKE_SRV_PID" 2>/dev/null; wait "$FAKE_SRV_PID" 2>/dev/null
}

[ -n "${TRUST_ALONE:-}" ] && stall_check

[ -n "${TRUST_ALONE:-}" ] && finish
