#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster mode (qperf --cluster) on one machine.
#
# A. Through a real launcher: Debian's Open MPI (mpirun --oversubscribe,
#    as root with --allow-run-as-root) starts 4 ranks on loopback, for a
#    socket test and, over softverbs with SOFTVERBS_NODE = rank + 1, for
#    rc_bw and ud_lat; --json under mpirun.
# B, the outlier search on shaped links, and C, a rank killed mid-run,
#    are the suite tests/outliers (their figures judge timing: it runs
#    alone).
# D. Usage errors.
# T. Trust (tests/cluster/trust.sh): the job secret, strangers on the
#    rendezvous port, a rank stalling in mid-message, figures that cannot
#    be, the ranks' servers.  It exports QPERF_SECRET_FILE, the job secret
#    of every run after it but those under mpirun, which use the key Open
#    MPI gives each job.
# Strangers' quits, a server gone, hostile host names, rank 0 short of
# open files, 32 ranks at once: tests/cluster/strangers.sh, sourced here.
# I. incast:K and fanout:K (tests/cluster/incast.sh, sourced here): 4
#    ranks on loopback, text, --json under mpirun, --json_stream, failed
#    rounds over softverbs, bad K.
# P. PMIx bootstrap: mpirun -n 4 without --rendezvous finds rank 0 through
#    the launcher's PMIx (libpmix opened at run time); with
#    QPERF_PMIX_LIB=/nonexistent, or a PMIx environment without a server,
#    one clear line; the binary does not link libpmix.
# S. Slurm: a one-node Slurm (munged, slurmctld, slurmd, config and state
#    in $T, started and stopped here) runs `srun -n 4 qperf --cluster all
#    tcp_lat` through PMIx (--mpi=pmix) and through --rendezvous; plain
#    srun without --rendezvous gives the usage line.
#
# Usage: bash tests/cluster/run.sh   (needs root, mpirun, and
# slurmctld, slurmd and munge)

. "$(dirname "$0")/../lib.sh"
. "$LIB_ROOT/tests/cluster/cl_lib.sh" # jq_is, json_valid, svg_ok, cl_ranks...

SV_LIB=$LIB_ROOT/softverbs/build

if [ "$(id -u)" != 0 ]; then
	fail "root (Slurm's daemons, rank 0's open files limit)"
	finish
fi
if ! command -v mpirun >/dev/null; then
	fail "mpirun is installed (openmpi-bin, scripts/install-deps --test)"
	finish
fi

# --- T. trust ------------------------------------------------------------------
. "$(dirname "$0")/trust.sh"
section ""

# --- D. usage errors -----------------------------------------------------
run "$QPERF" --cluster all tcp_bw
expect "no rank: one clear line, exit 2" 2 '^$' '^qperf: --cluster needs a rank: run it under mpirun or srun, or set QPERF_RANK and QPERF_SIZE$'
run env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" --cluster all tcp_bw
expect "no --rendezvous: exit 2" 2 '^$' '^qperf: --cluster needs --rendezvous HOST:PORT'
run env QPERF_RANK=2 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:1 tcp_bw
expect "rank beyond size: exit 2" 2 '^$' '^qperf: QPERF_RANK=2: must be below QPERF_SIZE=2$'
run "$QPERF" --cluster rung tcp_bw
expect "bad pattern: exit 2" 2 '^$' 'bad cluster pattern rung \(all, ring, bisect, random:K, incast:K or fanout:K\)'
run "$QPERF" --cluster random:0 tcp_bw
expect "random:0: exit 2" 2 '^$' 'K must be 1 to 1000000'
run "$QPERF" --cluster all localhost tcp_bw
expect "a host with --cluster: exit 2" 2 '^$' 'takes the place of the host'
run env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:1 \
	--loop msg_size:1:200:+1 tcp_bw
expect "--loop of 200 iterations with --cluster: exit 2" 2 '^$' \
	'^qperf: --loop: more than 128 tests and loop iterations in cluster mode$'
run env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:1 \
	--loop msg_size:32K:128K:*2 udp_lat
expect "--loop past udp's largest datagram with --cluster: exit 2" 2 '^$' \
	'^qperf: --loop: msg_size reaches 131072, larger than a udp_lat datagram can carry \(65507 bytes\)$'
run -t 30 env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:$(free_port) \
	--plot /nonexistent-dir/x.svg tcp_bw
expect "--plot to an unwritable path: rank 0 exits 1 at once" 1 '^$' \
	'^qperf: rank 0: --plot: /nonexistent-dir/x.svg: cannot write: No such file or directory$'
run "$QPERF" --cluster all conf
expect "conf with --cluster: exit 2" 2 '^$' 'conf: does not run in cluster mode'
run env QPERF_RANK=1 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous '[::1' tcp_bw
expect "bad --rendezvous: exit 2" 2 '^$' 'bad rendezvous address \[::1'
P=$(free_port)
run -t 30 env QPERF_RANK=1 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P -ws 1 tcp_bw
expect "rank 0 absent: the others end within the join window" 1 '^$' "^qperf: rank 1: lost rank 0 \(127.0.0.1 port $P\): cannot reach rank 0"

run env PMIX_RANK=1 "$QPERF" --cluster all --rendezvous 127.0.0.1:1 tcp_bw
expect "PMIX_RANK only, with --rendezvous: the size is asked for, exit 2" 2 '^$' \
	'^qperf: PMIX_RANK is set but not the number of ranks; set QPERF_SIZE or leave out --rendezvous \(PMIx then tells it\)$'

# --- rank 0's open files ------------------------------------------------------
# Rank 0 holds a connection to every rank.  With a hard limit too low it
# says so at once; with only the soft limit too low it raises it (before,
# 36 of 70 ranks "never joined" after a 30 s busy loop on EMFILE).
run -t 30 prlimit --nofile=80:80 -- env QPERF_RANK=0 QPERF_SIZE=100 "$QPERF" \
	--cluster all --rendezvous 127.0.0.1:$(free_port) tcp_lat
expect "100 ranks, open files limit 80: rank 0 says what it needs, exit 1" 1 '^$' \
	'^qperf: rank 0: 100 ranks need 164 open files at rank 0, but its limit is 80: raise it \(ulimit -n, or LimitNOFILE= under systemd\)$'
P=$(free_port)
many=()
for r in $(seq 1 69); do
	QPERF_RANK=$r QPERF_SIZE=70 timeout 60 "$QPERF" --cluster bisect \
		--rendezvous 127.0.0.1:$P -t 0.1 tcp_lat >/dev/null 2>&1 </dev/null &
	many+=($!)
	track_pid $!
done
run -t 60 prlimit --nofile=64:4096 -- env QPERF_RANK=0 QPERF_SIZE=70 "$QPERF" \
	--cluster bisect --rendezvous 127.0.0.1:$P -t 0.1 tcp_lat
many_rc=0
for pid in "${many[@]}"; do wait "$pid" || many_rc=$?; done
[ "$RC" = 0 ] && [ "$many_rc" = 0 ] && has '^cluster: 70 ranks, pattern bisect' &&
	has '^cluster: 0 outliers$' && ! has '^gone: ' &&
	pass "70 ranks, soft open files limit 64: rank 0 raises it, every rank joins, all exit 0" ||
	fail "70 ranks, soft open files limit 64: rank 0 raises it, every rank joins, all exit 0" \
		"other ranks: last failing exit $many_rc" "$(ctx)"

# --- strangers, hostile host names, limits, 32 ranks (tests/cluster/strangers.sh)
. "$(dirname "$0")/strangers.sh"
# --- verdicts: ceilings, efficiency, --expect per pair (tests/cluster/verdicts.sh)
. "$(dirname "$0")/verdicts.sh"
# --- incast:K and fanout:K on loopback (tests/cluster/incast.sh)
. "$(dirname "$0")/incast.sh"
# trust.sh's stalled rank has ended meanwhile
stall_check

# --- A. under mpirun on loopback -------------------------------------------
# expect_ran NAME REGEX: the run went to its end with REGEX in the report.
# On loopback the figures are this busy machine's noise, so an outlier may
# be found (exit 1 with outlier: lines); nothing may fail or be gone.
expect_ran() {
	if { [ "$RC" = 0 ] || { [ "$RC" = 1 ] && has '^outlier: '; }; } &&
		has "$2" && has '^cluster: [0-9]+ outliers?$' &&
		! has '^gone: |pair tests? failed'; then
		pass "$1"
	else
		fail "$1" "$(ctx)"
	fi
}
# cells_measured TEST: how many cells off the diagonal of TEST's matrix
# (rows holding the diagonal's '-') hold a figure.
cells_measured() {
	awk -v t="$1: " 'index($0, t) == 1 && !/: efficiency: / { on = 1; next } /^[a-z]/ { on = 0 }
		on && $1 ~ /^[0-9]+$/ && / -( |$)/ { for (i = 2; i <= NF; i++) if ($i != "-" && $i + 0 > 0) n++ }
		END { print n + 0 }' "$OUT_FILE"
}
# Under mpirun the job secret is the one Open MPI gives the job
# (OMPI_MCA_orte_precondition_transports), not QPERF_SECRET_FILE.
MPI=(env -u QPERF_SECRET_FILE mpirun --allow-run-as-root --oversubscribe)
# --- --loop: each iteration is a test of its own --------------------------------
# loop_ranks N ARGS...: ranks 1..N-1 of a loopback run in the background
# (LOOP_PIDS), rank 0 through run; LOOP_RC is the others' last failure.
loop_ranks() {
	local n=$1 r
	shift
	P=$(free_port)
	LOOP_PIDS=()
	for r in $(seq 1 $((n - 1))); do
		QPERF_RANK=$r QPERF_SIZE=$n timeout 60 "$QPERF" --cluster all \
			--rendezvous 127.0.0.1:$P "$@" >/dev/null 2>&1 </dev/null &
		LOOP_PIDS+=($!)
		track_pid $!
	done
	run -t 60 env QPERF_RANK=0 QPERF_SIZE=$n "$QPERF" --cluster all \
		--rendezvous 127.0.0.1:$P "$@"
	LOOP_RC=0
	for r in "${LOOP_PIDS[@]}"; do wait "$r" || LOOP_RC=$?; done
}
loop_ranks 3 --loop msg_size:1K:4K:*4 -t 0.1 tcp_bw tcp_lat
heads=$(grep -E '^tcp_(bw|lat)( msg_size=[0-9A-Za-z]+)?: ' "$OUT_FILE" | cut -d: -f1 | tr '\n' ,)
if { [ "$RC" = 0 ] || { [ "$RC" = 1 ] && has '^outlier: '; }; } && [ "$LOOP_RC" != 2 ] &&
	[ "$heads" = "tcp_bw msg_size=1KiB,tcp_bw msg_size=4KiB,tcp_lat msg_size=1KiB,tcp_lat msg_size=4KiB," ] &&
	! has 'pair tests? failed|^gone: '; then
	pass "--loop msg_size:1K:4K:*4 tcp_bw tcp_lat, 3 ranks: four matrices, one per test and size, in loop order"
else
	fail "--loop msg_size:1K:4K:*4 tcp_bw tcp_lat, 3 ranks: four matrices" "headers: $heads" "others: $LOOP_RC" "$(ctx)"
fi
cells=0
for t in "tcp_bw msg_size=1KiB" "tcp_bw msg_size=4KiB" "tcp_lat msg_size=1KiB" "tcp_lat msg_size=4KiB"; do
	cells=$((cells + $(cells_measured "$t")))
done
[ "$cells" = 24 ] && pass "--loop in cluster mode: every matrix has its 6 figures (24)" ||
	fail "--loop in cluster mode: every matrix has its 6 figures" "got $cells" "$(ctx)"
loop_ranks 2 --loop msg_size:1K:2K:*2 -t 0.1 --json tcp_bw
json_valid "--loop with --json in cluster mode: valid against the schema"
jq_is "--loop with --json: two tcp_bw tests, their loop values 1024 and 2048 B, 2 figures each" \
	'[t["test"] for t in c["tests"]] == ["tcp_bw", "tcp_bw"] and [t["loop"] for t in c["tests"]] == [[{"variable": "msg_size", "value": v, "unit": "B"}] for v in (1024, 2048)] and all(t["directed_figures"] == 2 for t in c["tests"])'

# --json_stream: a line per pair as it comes, then the cluster line.
stream_valid() { # NAME: OUT_FILE is --json_stream lines valid against the schema
	local why
	why=$(python3 "$LIB_ROOT/tests/json_check.py" stream "$OUT_FILE" 2>&1) &&
		pass "$1" || fail "$1" "$why" "$(head -c 600 "$OUT_FILE")"
}
# sq_is NAME EXPR: EXPR is true of the lines in OUT_FILE (L: all of them,
# P: the pair lines, c: the cluster line's "cluster").
sq_is() {
	if python3 -c 'import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
P = [l for l in L if l["type"] == "pair"]
c = [l for l in L if l["type"] == "cluster"][0]["cluster"]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$OUT_FILE" "$2" 2>"$T/jq.err"; then
		pass "$1"
	else
		fail "$1" "$2" "$(cat "$T/jq.err")" "$(head -c 1500 "$OUT_FILE")"
		return 1
	fi
}
loop_ranks 3 -t 0.1 --json_stream tcp_bw
stream_valid "--json_stream in cluster mode: every line valid against the schema"
sq_is "--json_stream: start, 6 pair lines (each directed pair once, rounds 1-3), the cluster line, end" \
	'[l["type"] for l in L][0] == "start" and [l["type"] for l in L][-2:] == ["cluster", "end"] and sorted((p["client"], p["server"]) for p in P) == [(i, j) for i in range(3) for j in range(3) if i != j] and sorted(set(p["round"] for p in P)) == [1, 2, 3] and all(p["test"] == "tcp_bw" and p["unit"] == "B/s" for p in P)'
sq_is "--json_stream: each pair line's figure is its cell of the cluster line's matrix" \
	'len(P) == 6 and all(p["figure"] and c["tests"][0]["matrix"][p["client"]][p["server"]] == p["figure"] for p in P)'
# A rank lost mid-run: a gone line when it happens, before the cluster line.
P=$(free_port)
gone_pids=()
for r in 1 2; do # no timeout(1) in between: the PID is qperf's
	QPERF_RANK=$r QPERF_SIZE=3 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
		-t 1 --json_stream tcp_bw >/dev/null 2>"$T/gone.$r.err" </dev/null &
	gone_pids+=($!)
	track_pid $!
done
: >"$T/gone.out" # before the wait: grep fails at once on no file (wait_for)
QPERF_RANK=0 QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-t 1 --json_stream tcp_bw >"$T/gone.out" 2>"$T/gone.err" </dev/null &
g0=$!
track_pid $g0
wait_for 30 grep -qs '"type":"pair"' "$T/gone.out"
kill -9 "${gone_pids[1]}"
wait "$g0"
RC=$?
cp "$T/gone.out" "$OUT_FILE"
cp "$T/gone.err" "$ERR_FILE"
wait "${gone_pids[0]}" 2>/dev/null
stream_valid "--json_stream, rank 2 killed: every line valid"
sq_is "--json_stream, rank 2 killed: a gone line for rank 2 before the cluster line; exit status 1" \
	'[l["rank"] for l in L if l["type"] == "gone"] == [2] and [l["type"] for l in L].index("gone") < [l["type"] for l in L].index("cluster") and L[-1]["exit_status"] == 1 and '"$RC"' == 1 and [g["rank"] for g in c["gone"]] == [2]' ||
	{ echo "     | rank 0's stderr:"; sed 's/^/     | /' "$T/gone.err"; for r in 1 2; do
		echo "     | rank $r's stderr:"; sed 's/^/     | /' "$T/gone.$r.err"; done; }

# -I: each pair's lowest interval.  Rank 1 is stopped for 0.6 s every
# 1.2 s while the run lasts: when it sends, its receiver's interval that
# spans a stop holds at most 0.2 s of data in 0.6 s or more, so the
# pair 1 -> 0 has the lowest interval, well below that of 0 -> 1 (rank 1's
# server is its own process and never stopped).
P=$(free_port)
QPERF_RANK=1 QPERF_SIZE=2 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-t 2 -I 0.2 --json tcp_bw tcp_lat >/dev/null 2>"$T/ival1.err" </dev/null &
iv1=$!
track_pid $iv1
QPERF_RANK=0 QPERF_SIZE=2 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P \
	-t 2 -I 0.2 --json tcp_bw tcp_lat >"$T/ival.out" 2>"$T/ival.err" </dev/null &
iv0=$!
track_pid $iv0
sleep 0.5
while kill -0 "$iv0" 2>/dev/null && kill -0 "$iv1" 2>/dev/null; do
	kill -STOP "$iv1"
	sleep 0.6
	kill -CONT "$iv1"
	sleep 0.6
done
wait "$iv0"
RC=$?
wait "$iv1"
cp "$T/ival.out" "$OUT_FILE"
cp "$T/ival.err" "$ERR_FILE"
json_valid "-I in cluster mode, --json: valid against the schema"
jq_is "-I: tcp_bw has an interval_low_matrix, each cell at most its pair's figure; tcp_lat none" \
	'[("interval_low_matrix" in t) for t in c["tests"]] == [True, False] and all(l is not None and 0 < l <= 1.05 * f for lr, fr in zip(c["tests"][0]["interval_low_matrix"], c["tests"][0]["matrix"]) for l, f in zip(lr, fr) if f is not None)'
jq_is "-I: with rank 1 stopped now and then, its sends (1 -> 0) have an interval below half the lowest of 0 -> 1" \
	'c["tests"][0]["interval_low_matrix"][1][0] < 0.5 * c["tests"][0]["interval_low_matrix"][0][1]'
grep -q '^qperf: warning: -I set but not used in test tcp_lat (interval reports are for bandwidth tests)$' "$T/ival.err" &&
	pass "-I in cluster mode: tcp_lat warns that -I is not used" ||
	fail "-I in cluster mode: tcp_lat warns that -I is not used" "$(cat "$T/ival.err")"
loop_ranks 2 -t 0.5 -I 0.1 tcp_bw
if [ "$RC" -le 1 ] && has '^tcp_bw: lowest 0\.1 s interval of the received bandwidth in MB/s; row = client \(sender\), column = server$' &&
	[ "$(cells_measured tcp_bw)" = 4 ]; then
	pass "-I in cluster mode, text: a second matrix of the lowest intervals"
else
	fail "-I in cluster mode, text: a second matrix of the lowest intervals" "$(ctx)"
fi
# A rank that joins 12 s after the others (launchers start ranks with
# skew): those that joined wait for it, rank 0 pinging them, instead of
# giving up after 10 s without a word from rank 0 (as they did before).
# Its ranks wait in the background while the mpirun and PMIx checks run
# (late_check, after them, waits for the ranks and judges).
LATE_P=$(free_port)
late_pids=()
for r in 1 2; do
	if [ $r = 2 ]; then # exec: the PID is timeout's
		(sleep 12 && exec env QPERF_RANK=$r QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$LATE_P \
			-t 0.1 tcp_lat) >/dev/null 2>"$T/late.$r.err" </dev/null &
	else
		QPERF_RANK=$r QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$LATE_P \
			-t 0.1 tcp_lat >/dev/null 2>"$T/late.$r.err" </dev/null &
	fi
	late_pids+=($!)
	track_pid $!
	[ $r = 1 ] && {
		QPERF_RANK=0 QPERF_SIZE=3 timeout 60 "$QPERF" --cluster all --rendezvous 127.0.0.1:$LATE_P \
			-t 0.1 tcp_lat >"$T/late.out" 2>"$T/late.err" </dev/null &
		late0=$!
		track_pid $late0
	}
done
late_check() {
	local r late_rc=0
	wait "$late0"
	RC=$?
	for r in "${late_pids[@]}"; do wait "$r" || late_rc=$?; done
	cp "$T/late.out" "$OUT_FILE"
	cp "$T/late.err" "$ERR_FILE"
	if [ "$RC" -le 1 ] && [ "$late_rc" = 0 ] && [ "$(cells_measured tcp_lat)" = 6 ] &&
		! has '^gone: ' && [ ! -s "$T/late.1.err" ] && [ ! -s "$T/late.2.err" ]; then
		pass "a rank 12 s late: every rank waits for it and runs (rank 0 pings during the joins)"
	else
		fail "a rank 12 s late: every rank waits for it and runs" "others' exit: $late_rc" \
			"$(cat "$T/late.1.err" "$T/late.2.err")" "$(ctx)"
	fi
}

P=$(free_port)
run -t 120 "${MPI[@]}" -n 4 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P -t 0.3 tcp_lat
expect_ran "mpirun -n 4 tcp_lat: header, 4 ranks" '^cluster: 4 ranks, pattern all, seed [0-9]+, 3 rounds$'
if [ "$(count_lines '^  rank [0-3]: .* \(127\.0\.0\.1 port [0-9]+\)$')" = 4 ]; then
	pass "mpirun: every rank joined from 127.0.0.1 with its own server port"
else
	fail "mpirun: every rank joined from 127.0.0.1 with its own server port" "$(ctx)"
fi
# Each row of the matrix: the rank, then '-' on the diagonal and a
# positive latency elsewhere (measured once per pair, shown both ways).
rows=0
for r in 0 1 2 3; do
	line=$(grep -E "^ +$r( +([0-9][0-9,.]*|-)){4}$" "$OUT_FILE")
	cells=$(echo "$line" | awk '{ n = 0; for (i = 2; i <= NF; i++) if ($i != "-" && $i + 0 > 0) n++; print n }')
	[ "$cells" = 3 ] && rows=$((rows + 1))
done
if [ $rows = 4 ]; then
	pass "mpirun: tcp_lat matrix has a positive latency for all 12 cells off the diagonal"
else
	fail "mpirun: tcp_lat matrix complete" "$(ctx)"
fi
has '^cluster: [0-9]+ outliers?$' && pass "mpirun: the report ends with the outlier count" ||
	fail "mpirun: the report ends with the outlier count" "$(ctx)"

# --json under mpirun: every rank's stdout is merged, so one valid
# document means rank 0 wrote it and the others wrote nothing.
P=$(free_port)
run -t 120 "${MPI[@]}" -n 4 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P -t 0.2 --json tcp_bw
json_valid "mpirun --json: one document, valid against the schema"
jq_is "mpirun --json: 4 ranks from 127.0.0.1, tcp_bw in both directions of all pairs (12 figures)" \
	'c["size"] == 4 and [r["rank"] for r in c["ranks"]] == [0, 1, 2, 3] and all(r["host"] and r["address"] == "127.0.0.1" for r in c["ranks"]) and c["tests"][0]["directed_figures"] == 12 and c["tests"][0]["missing"] == [] and c["gone"] == [] and d["exit_status"] == (1 if c["outliers"] else 0)'

# --- P. PMIx: rank 0 found without --rendezvous ------------------------------
if readelf -d "$QPERF" | grep -q 'NEEDED.*pmix' || ldd "$QPERF" | grep -q pmix; then
	fail "the binary does not link libpmix (ldd, readelf -d)" "$(ldd "$QPERF")"
else
	pass "the binary does not link libpmix (ldd, readelf -d)"
fi
if "$QPERF" --version | grep -q 'pmix: dlopen)$'; then
	run -t 120 "${MPI[@]}" -n 4 "$QPERF" --cluster all -t 0.3 tcp_lat
	expect_ran "PMIx: mpirun -n 4 tcp_lat without --rendezvous" '^cluster: 4 ranks, pattern all, seed [0-9]+, 3 rounds$'
	if [ "$(count_lines '^  rank [0-3]: .* \(127\.0\.0\.1 port [0-9]+\)$')" = 4 ] &&
		[ "$(cells_measured tcp_lat)" = 12 ]; then
		pass "PMIx: every rank joined rank 0 and all 12 cells were measured"
	else
		fail "PMIx: every rank joined rank 0 and all 12 cells were measured" "$(ctx)"
	fi
	# Only PMIX_RANK (the OMPI_* variables removed): the size and the
	# local rank come from PMIx (-lp BASE: servers on BASE + local rank).
	cat >"$T/pmixonly" <<-'EOF'
		#!/bin/sh
		exec env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_LOCAL_RANK "$@"
	EOF
	chmod +x "$T/pmixonly"
	B=$(free_port)
	while ! port_free $((B + 1)) || ! port_free $((B + 2)); do B=$(free_port); done
	run -t 60 "${MPI[@]}" -n 3 "$T/pmixonly" "$QPERF" --cluster all -t 0.2 -lp "$B" tcp_lat
	expect_ran "PMIx: only PMIX_RANK set: the size from PMIx" '^cluster: 3 ranks, pattern all, seed [0-9]+, 3 rounds$'
	[ "$(count_lines "^  rank ([0-2]): .* \(127\.0\.0\.1 port ($B|$((B + 1))|$((B + 2)))\)$")" = 3 ] &&
		[ "$(grep -Eo 'port [0-9]+\)$' "$OUT_FILE" | sort -u | wc -l)" = 3 ] &&
		pass "PMIx: only PMIX_RANK set: local ranks 0-2 from PMIx (ports $B-$((B + 2)))" ||
		fail "PMIx: only PMIX_RANK set: local ranks 0-2 from PMIx (ports $B-$((B + 2)))" "$(ctx)"
	# Hidden library: QPERF_PMIX_LIB names the one to open (mpirun ends
	# the job at the first rank's exit, so at least one line).
	run -t 60 "${MPI[@]}" -x QPERF_PMIX_LIB=/nonexistent -n 4 "$QPERF" --cluster all -t 0.3 tcp_lat
	expect "PMIx: libpmix hidden: one clear line, exit 1" 1 '^$' \
		'^qperf: rank [0-3]: PMIx: cannot load /nonexistent \(cannot open shared object file: No such file or directory\); pass --rendezvous HOST:PORT$'
	has '^cluster: ' && fail "PMIx: libpmix hidden: no rank ran a test" "$(ctx)" ||
		pass "PMIx: libpmix hidden: no rank ran a test"
	# QPERF_RANK overrides the launcher's rank: PMIx's must agree.
	run -t 60 "${MPI[@]}" -x QPERF_RANK=1 -x QPERF_SIZE=2 -n 2 "$QPERF" --cluster all -t 0.2 tcp_lat
	expect "PMIx: QPERF_RANK against PMIx's rank: named, exit 1" 1 '^$' \
		'^qperf: rank 1: PMIx: this process is PMIx rank 0, but the QPERF variables say rank 1; pass --rendezvous HOST:PORT$'
	# A PMIx environment with no server behind it.
	run -t 30 env PMIX_NAMESPACE=qperf-test PMIX_RANK=1 QPERF_SIZE=2 "$QPERF" --cluster all tcp_lat
	expect "PMIx: no server: PMIx_Init's failure named, exit 1" 1 '^$' \
		'^qperf: rank 1: PMIx: PMIx_Init failed: .*; pass --rendezvous HOST:PORT$'
else
	fail "PMIx: this qperf is built with PMIx support (libpmix-dev, scripts/install-deps)" "$("$QPERF" --version)"
fi
late_check

cat >"$T/svrank" <<'EOF'
#!/bin/sh
# One softverbs host per rank.
SOFTVERBS_NODE=$((OMPI_COMM_WORLD_RANK + 1)) exec "$@"
EOF
chmod +x "$T/svrank"
P=$(free_port)
run -t 180 env LD_LIBRARY_PATH="$SV_LIB" "${MPI[@]}" -x LD_LIBRARY_PATH -n 4 \
	"$T/svrank" "$QPERF" --cluster all --rendezvous 127.0.0.1:$P -t 0.3 rc_bw ud_lat
expect_ran "mpirun over softverbs: rc_bw and ud_lat" '^ud_lat: latency in us; row = client \(sender\), column = server \(measured once per pair\)$'
has '^rc_bw: received bandwidth in MB/s; row = client \(sender\), column = server$' &&
	! has 'pair tests? failed' && pass "mpirun over softverbs: no pair test failed" ||
	fail "mpirun over softverbs: no pair test failed" "$(ctx)"
bw=$(cells_measured rc_bw)
[ "$bw" = 12 ] && pass "mpirun over softverbs: rc_bw measured in both directions of all 6 pairs" ||
	fail "mpirun over softverbs: rc_bw in both directions of all pairs ($bw of 12)" "$(ctx)"

# -i with a list: one device per local rank (local rank 1 gets a device
# that does not exist, so exactly its pairs fail, named).
P=$(free_port)
run -t 180 env LD_LIBRARY_PATH="$SV_LIB" "${MPI[@]}" -x LD_LIBRARY_PATH -n 3 \
	"$T/svrank" "$QPERF" --cluster all --rendezvous 127.0.0.1:$P -t 0.2 -i softv0,nodev rc_lat
expect "-i softv0,nodev: local rank 1's pairs fail, named; exit 1" 1 \
	'^rc_lat: 2 pair tests failed; the first: rank ([02] against rank 1: rc_lat: server: |1 against rank [02]: rc_lat: )no RDMA device nodev; devices: softv0$'
cell=$(awk '$1 == "0" && NF == 4 { print $4 }' "$OUT_FILE")
case $cell in
[0-9]*) pass "-i list: ranks 0 and 2 (local ranks 0 and 2: softv0) measured ($cell us)" ;;
*) fail "-i list: ranks 0 and 2 measured" "$(ctx)" ;;
esac

# --- S. srun under a one-node Slurm started here ------------------------------
# slurm_up: munged and both Slurm daemons in the foreground as our
# children (tracked, so they end with the test), ports free ones, every
# path in $T; returns 1 unless the node is idle within 30 s.
SLURM_PIDS=()
slurm_up() {
	local d=$T/slurm h
	h=$(hostname -s)
	mkdir -p "$d/state" "$d/spool" "$d/tmp" || return 1
	head -c 1024 /dev/urandom >"$d/munge.key" && chmod 400 "$d/munge.key" || return 1
	munged -f -F --key-file="$d/munge.key" --socket="$d/munge.sock" \
		--log-file="$d/munged.log" --pid-file="$d/munged.pid" \
		--seed-file="$d/munged.seed" >"$d/munged.out" 2>&1 </dev/null &
	track_pid $!
	SLURM_PIDS=($!)
	cat >"$d/slurm.conf" <<-EOF || return 1
		ClusterName=qperftest
		SlurmctldHost=$h(127.0.0.1)
		SlurmUser=root
		SlurmdUser=root
		SlurmctldPort=$(free_port)
		SlurmdPort=$(free_port)
		AuthType=auth/munge
		AuthInfo=socket=$d/munge.sock
		CredType=cred/munge
		StateSaveLocation=$d/state
		SlurmdSpoolDir=$d/spool
		TmpFS=$d/tmp
		SlurmctldPidFile=$d/slurmctld.pid
		SlurmdPidFile=$d/slurmd.pid
		SlurmctldLogFile=$d/slurmctld.log
		SlurmdLogFile=$d/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core
		MpiDefault=none
		ReturnToService=2
		SchedulerType=sched/builtin
		JobCompType=jobcomp/none
		AccountingStorageType=accounting_storage/none
		SlurmdParameters=config_overrides
		NodeName=$h NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
		PartitionName=q Nodes=$h Default=YES MaxTime=5 State=UP OverSubscribe=FORCE
	EOF
	export SLURM_CONF=$d/slurm.conf
	wait_for 10 test -S "$d/munge.sock" || return 1
	slurmctld -D -f "$SLURM_CONF" >"$d/ctld.out" 2>&1 </dev/null &
	track_pid $!
	SLURM_PIDS+=($!)
	slurmd -D -f "$SLURM_CONF" -N "$h" >"$d/slurmd.out" 2>&1 </dev/null &
	track_pid $!
	SLURM_PIDS+=($!)
	wait_for 30 sh -c 'sinfo -h -o %T 2>/dev/null | grep -qx idle'
}
# slurm_down: cancel what is left, stop our daemons (slurmd first).
slurm_down() {
	local i pid
	[ -n "${SLURM_CONF:-}" ] && scancel --quiet -u root 2>/dev/null
	for ((i = ${#SLURM_PIDS[@]} - 1; i >= 0; i--)); do
		pid=${SLURM_PIDS[$i]}
		our_child "$pid" && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	SLURM_PIDS=()
	unset SLURM_CONF
}
slurm_logs() {
	tail -n 5 "$T"/slurm/*.out "$T"/slurm/*.log 2>/dev/null
}
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
	! command -v munged >/dev/null; then
	fail "slurmctld, slurmd and munged are installed (slurm-wlm, munge: scripts/install-deps --test)"
elif slurm_up; then
	pass "one-node Slurm up (munged, slurmctld, slurmd in $T)"
	# -O: 4 tasks on this machine's 2 CPUs.
	run -t 60 srun --mpi=pmix -O -n 4 "$QPERF" --cluster all -t 0.3 tcp_lat
	expect_ran "srun --mpi=pmix -n 4 tcp_lat (PMIx, no --rendezvous)" '^cluster: 4 ranks, pattern all, seed [0-9]+, 3 rounds$'
	[ "$(count_lines '^  rank [0-3]: .* \(127\.0\.0\.1 port [0-9]+\)$')" = 4 ] &&
		[ "$(cells_measured tcp_lat)" = 12 ] &&
		pass "srun --mpi=pmix: 4 ranks joined, 12 cells measured" ||
		fail "srun --mpi=pmix: 4 ranks joined, 12 cells measured" "$(ctx)" "$(slurm_logs)"
	P=$(free_port)
	run -t 60 srun -O -n 4 "$QPERF" --cluster all --rendezvous 127.0.0.1:$P -t 0.3 tcp_lat
	expect_ran "srun -n 4 tcp_lat with --rendezvous (SLURM_PROCID, SLURM_NTASKS)" '^cluster: 4 ranks, pattern all, seed [0-9]+, 3 rounds$'
	[ "$(cells_measured tcp_lat)" = 12 ] && pass "srun --rendezvous: 12 cells measured" ||
		fail "srun --rendezvous: 12 cells measured" "$(ctx)" "$(slurm_logs)"
	run -t 60 srun -O -n 2 "$QPERF" --cluster all -t 0.3 tcp_lat
	expect "srun without PMIx or --rendezvous: the usage line, exit 2" 2 '^$' \
		'^qperf: --cluster needs --rendezvous HOST:PORT \(rank 0 listens there\), or a launcher with PMIx \(mpirun, srun --mpi=pmix\)$'
	slurm_down
else
	fail "one-node Slurm up within 30 s" "$(slurm_logs)"
	slurm_down
fi

finish
