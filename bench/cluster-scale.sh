#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run from the EXIT trap look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# bench/cluster-scale.sh: cluster mode at scale on one machine.  For each
# size in SIZES and each pattern in PATTERNS, N ranks on loopback
# (QPERF_RANK/QPERF_SIZE, --rendezvous 127.0.0.1:PORT) run a TT-second
# tcp_lat; rank 0 writes --json_stream, each line stamped as it arrives.
# The ranks share a job secret (a file made here unless QPERF_SECRET_FILE
# names one).
# Recorded per run: whether it completed with every scheduled pair
# measured, rank 0's peak resident memory (VmHWM of /proc/PID/status,
# sampled until it exits), the time of each round (from the end of the
# previous round, or of the joins, to its last pair line), the retries
# and retests after the schedule, the whole run.  The report (markdown)
# goes to stdout, progress to stderr.
#
#   make && bench/cluster-scale.sh > bench/results-cluster-scale.md
#   SIZES=32 PATTERNS=ring bench/cluster-scale.sh     (a quick look)
#
# Knobs: SIZES ("2 64 128 256"), PATTERNS ("ring random:2"), TT (0.1 s),
# JOIN_S (120: -ws of every rank), OURS (the qperf to run).
#
# Exit 1 if a run did not complete with every scheduled pair measured, 2
# on a setup error.  CLUSTER_ARGS: options every rank gets (e.g.
# "--secret_file FILE" where cluster mode takes a job secret).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/lib.sh
. "$here/../tests/lib.sh"
SIZES=${SIZES:-"2 64 128 256"}
PATTERNS=${PATTERNS:-"ring random:2"}
TT=${TT:-0.1}
# -ws: the join window of every rank.  Starting 256 processes on a small
# machine that other work loads can take longer than the default 30 s.
JOIN_S=${JOIN_S:-120}
QPERF=${OURS:-$QPERF}
read -ra CL_ARGS <<<"${CLUSTER_ARGS:-}"
PY=$(command -v /usr/bin/python3 || command -v python3)

die() { echo "cluster-scale: $*" >&2; exit 2; }
[ -x "$QPERF" ] || die "our qperf not found at '$QPERF' (run make, or set OURS=)"
[ -n "$PY" ] || die "python3 is needed for the figures"
for n in $SIZES; do
	case $n in '' | *[!0-9]* | 0 | 1) die "SIZES: whole numbers of ranks >= 2, got '$n'" ;; esac
done
# The other ranks are not tracked (track_pid): tests/lib.sh's cleanup
# looks at each tracked PID in turn, minutes for thousands of them; they
# end by themselves when rank 0 does (or their join window closes).
# Each rank holds a few descriptors, rank 0 one per rank; each rank is
# two processes (the rank and its server) and more during a test.
need=$((4 * ${SIZES##* } + 64))
[ "$(ulimit -n)" -ge "$need" ] 2>/dev/null || ulimit -n "$need" 2>/dev/null ||
	die "open files limit $(ulimit -n) is below $need (ulimit -n)"

work=$LIB_TMP
# Cluster mode needs a job secret (docs/cluster.md, Trust): one for the
# whole bench unless the caller gives QPERF_SECRET_FILE.
if [ -z "${QPERF_SECRET_FILE:-}" ]; then
	export QPERF_SECRET_FILE=$work/job.key
	(umask 077 && head -c 32 /dev/urandom | base64 >"$QPERF_SECRET_FILE")
fi
fail=0
rows=()
notes=()

# start_others N PATTERN PORT ERRFILE: ranks 1 to N-1 in the background,
# their PIDs appended to the caller's pids (waited for, not tracked: see
# above), their stderr appended to ERRFILE.
start_others() {
	local r
	for r in $(seq 1 $(($1 - 1))); do
		QPERF_RANK=$r QPERF_SIZE=$1 "$QPERF" "${CL_ARGS[@]}" --rendezvous "127.0.0.1:$3" \
			--cluster "$2" -ws "$JOIN_S" -t "$TT" tcp_lat >/dev/null 2>>"$4" </dev/null &
		pids+=($!)
	done
}

# sample_hwm PID: until PID exits, the caller's hwm follows its VmHWM.
sample_hwm() {
	local k v
	while kill -0 "$1" 2>/dev/null; do
		while read -r k v _; do
			[ "$k" = VmHWM: ] && hwm=$v
		done <"/proc/$1/status" 2>/dev/null
		sleep 0.02
	done
}

# one_run N PATTERN: one run; appends its row to rows.
one_run() {
	local n=$1 pat=$2 p r pid hwm=0 v start end rc others=0 pids=()
	p=$(free_port) || die "no free port"
	echo "cluster-scale: $n ranks, $pat ..." >&2
	rm -f "$work/fifo" && mkfifo "$work/fifo"
	# The stamper: each line of rank 0's stream with the time it came
	# (a reader as fast as a file: a slow one stalls rank 0's last write).
	"$PY" -c 'import sys, time
for l in sys.stdin:
    sys.stdout.write("%.6f %s" % (time.time(), l))' <"$work/fifo" >"$work/stream" &
	track_pid $!
	start=$EPOCHREALTIME
	QPERF_RANK=0 QPERF_SIZE=$n "$QPERF" "${CL_ARGS[@]}" --rendezvous "127.0.0.1:$p" \
		--cluster "$pat" -ws "$JOIN_S" -t "$TT" --json_stream tcp_lat >"$work/fifo" 2>"$work/rank0.err" </dev/null &
	pid=$!
	track_pid $pid
	# the others after rank 0: starting hundreds of processes on a loaded
	# machine can take longer than the first one's join window
	start_others "$n" "$pat" "$p" "$work/others.err"
	sample_hwm "$pid"
	wait "$pid"
	rc=$?
	end=$EPOCHREALTIME
	for r in "${pids[@]}"; do wait "$r" || others=$((others + 1)); done
	wait # the stamper
	if ! "$PY" - "$work/stream" "$n" "$pat" "$rc" "$others" "$hwm" "$start" "$end" \
		>"$work/row" 2>"$work/py.err" <<-'EOF'; then
		import json, sys
		path, n, pat, rc, others, hwm, start, end = sys.argv[1:]
		n, rc, others, hwm = int(n), int(rc), int(others), int(hwm)
		start, end = float(start), float(end)
		lines = []
		for l in open(path):
		    t, _, j = l.partition(" ")
		    lines.append((float(t), json.loads(j)))
		c = [d for _, d in lines if d["type"] == "cluster"][0]["cluster"]
		t = c["tests"][0]
		sched = t["not_scheduled"]
		other = t["missing"]
		want = n * (n - 1) - sched
		ok = (rc in (0, 1) and others == 0 and not c["gone"] and not other
		      and t["directed_figures"] == want and t["failed_pairs"] == 0)
		pairs = [(tt, d) for tt, d in lines if d["type"] == "pair"]
		rounds = sorted({d["round"] for _, d in pairs})
		t0 = lines[0][0]  # the start line: rank 0 is up, the joins begin
		first = min(tt for tt, _ in pairs)
		ends = [max(tt for tt, d in pairs if d["round"] == r) for r in rounds]
		# a round: from the end of the one before it to its last result;
		# the first from its first result (before that: the joins)
		per = [e - b for b, e in zip([first] + ends[:-1], ends)]
		after = [tt for tt, d in lines if d["type"] in ("retry", "retest")]
		retries = sum(1 for _, d in lines if d["type"] == "retry")
		retests = sum(1 for _, d in lines if d["type"] == "retest")
		row = {
		    "n": n, "pattern": pat, "ok": ok, "rc": rc, "others": others,
		    "figures": t["directed_figures"], "want": want,
		    "retried": t["retried_pairs"], "retried_ok": t["retried_measured"],
		    "retests": retests, "hwm_kb": hwm, "rounds": len(rounds),
		    "first_s": first - t0, "round_s": per,
		    "after_s": (max(after) - ends[-1]) if after else 0.0,
		    "total_s": end - start,
		}
		print(json.dumps(row))
	EOF
		echo "{\"n\": $n, \"pattern\": \"$pat\", \"ok\": false, \"error\": $(tail -n 1 "$work/py.err" | "$PY" -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}" >"$work/row"
	fi
	rows+=("$(cat "$work/row")")
	grep -q '"ok": true' "$work/row" || {
		fail=1
		notes+=("$n ranks, $pat: $(cat "$work/row"); rank 0: $(tail -n 3 "$work/rank0.err" | tr '\n' ' ')")
	}
	rm -f "$work/others.err"
}

# text_run N PATTERN: rank 0 with the text report instead (no JSON
# document in memory): its peak memory and time; appends to trows.
text_run() {
	local n=$1 pat=$2 p r pid hwm=0 k v start end rc others=0 pids=() ok=yes
	p=$(free_port) || die "no free port"
	echo "cluster-scale: $n ranks, $pat, text report ..." >&2
	start=$EPOCHREALTIME
	QPERF_RANK=0 QPERF_SIZE=$n "$QPERF" "${CL_ARGS[@]}" --rendezvous "127.0.0.1:$p" \
		--cluster "$pat" -ws "$JOIN_S" -t "$TT" tcp_lat >"$work/text.out" 2>"$work/rank0.err" </dev/null &
	pid=$!
	track_pid $pid
	start_others "$n" "$pat" "$p" /dev/null
	sample_hwm "$pid"
	wait "$pid"
	rc=$?
	end=$EPOCHREALTIME
	for r in "${pids[@]}"; do wait "$r" || others=$((others + 1)); done
	if [ "$rc" -gt 1 ] || [ "$others" != 0 ] ||
		grep -Eq 'pair tests? failed;|^gone: ' "$work/text.out"; then
		ok=NO
		fail=1
		notes+=("$n ranks, $pat, text: rank 0 exit $rc, $others others failed; $(grep -E 'failed;|^gone: ' "$work/text.out" | head -n 3 | tr '\n' ' ')")
	fi
	trows+=("| $n | $pat | $ok | $hwm | $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') |")
}

trows=()
for n in $SIZES; do
	for pat in $PATTERNS; do
		one_run "$n" "$pat"
		text_run "$n" "$pat"
	done
done

rev=$(git -C "$here/.." describe --always --dirty 2>/dev/null || echo unknown)
printf '%s\n' "${rows[@]}" >"$work/rows"
"$PY" - "$work/rows" "$TT" "$JOIN_S" "$rev" "$(nproc)" "$(uname -r)" "$(cut -d' ' -f1-3 /proc/loadavg)" <<-'EOF'
	import json, sys, time
	rows = [json.loads(l) for l in open(sys.argv[1])]
	tt, js, rev, cpus, kern, load = sys.argv[2:]
	print("# Cluster mode at scale on one machine\n")
	print(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {cpus} CPUs, {kern}; load average at the end: {load}")
	print(f"- qperf: {rev}; every rank on loopback (QPERF_RANK/QPERF_SIZE, --rendezvous 127.0.0.1:PORT), `-t {tt} tcp_lat`, `-ws {js}` (the join window), rank 0 started first, with --json_stream")
	print("- peak memory: rank 0's VmHWM (its main process: the coordinator); start to first result: from rank 0's start line (it listens) through the joins of all ranks to the first pair result; round: from the end of the round before (the first: from its first result) to the round's last result; after: the retries of failed pairs and the suspects' retests\n")
	print("| ranks | pattern | complete | figures | retried (measured) | rank 0 VmHWM kB | rounds | start to first result s | per round s | after s | total s |")
	print("|--:|:--|:--|--:|--:|--:|--:|--:|:--|--:|--:|")
	for r in rows:
	    if "error" in r:
	        print(f"| {r['n']} | {r['pattern']} | no: {r['error'].strip()} | | | | | | | | |")
	        continue
	    per = ", ".join(f"{x:.2f}" for x in r["round_s"])
	    print(f"| {r['n']} | {r['pattern']} | {'yes' if r['ok'] else 'NO'} | {r['figures']} of {r['want']} | {r['retried']} ({r['retried_ok']}) | {r['hwm_kb']} | {r['rounds']} | {r['first_s']:.2f} | {per} | {r['after_s']:.2f} | {r['total_s']:.1f} |")
EOF
echo
echo "The same runs with rank 0's text report (no JSON document held in memory):"
echo
echo "| ranks | pattern | complete | rank 0 VmHWM kB | total s |"
echo "|--:|:--|:--|--:|--:|"
printf '%s\n' "${trows[@]}"
echo
for l in "${notes[@]}"; do echo "- failed: $l"; done
exit $fail
