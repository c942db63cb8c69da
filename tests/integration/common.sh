# SPDX-License-Identifier: GPL-2.0-only
# What the loopback integration files share (sourced by each of them):
# tests/lib.sh, report-line patterns (L, BW, TIME, ...), layout checks
# (aligned, names_in_order), C (our client against this file's server),
# server_child and integration_server.
#
# Each file starts its own server on an ephemeral port (published in a
# port file); each check asserts on the client's exit status, stdout and
# stderr.  Report layouts are compared with the spec's captured 0.4.11
# outputs (§5.11) with the figures replaced by patterns.  Tests run for
# -t 0.3 (TT).  QPERF=path tests another binary.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

TT=${TT:-0.3}
OL_WRAP=() # ol_stall_run: what runs the client (softverbs' env)
OL_STALL_S=0.05 # ol_stall_run: the stall asked for (s)
OL_STALL_MAX_MS= # ol_co_check: a longer stall is not judged (RC's timeout)
OL_CO_HIGH=1.2 # ol_co_check: at most this times rate x (stall - 10 ms)

# L NAME VALUE-RE: the pattern of one report line, "    NAME  =  VALUE".
L() {
	printf '    %s *  =  *%s' "$1" "$2"
}
BW="$POS (bytes|KB|MB|GB|TB)/sec"
BWB="$POS (bits|Kb|Mb|Gb|Tb)/sec"
RATE="$POS [KMGT]?/sec"
TIME="$POS (ns|us|ms|sec)"
COST="$POS (ns|us|ms|sec)/GB"
CPUS="$NUM % cpus"
CNT="$NUM( (thousand|million|billion))? "
SIZE="$NUM (bytes|KB|MB|GB|TB|KiB \\($NUM\\)|MiB \\($NUM\\)|GiB \\($NUM\\))"

# aligned NAME: every table line of the last stdout has its "  =  " in
# the same column, and every line with a unit ends its number in the
# same column (0.4.11's place_show).
aligned() {
	local bad
	bad=$(awk '
		/^    / {
			i = index($0, "  =  ")
			if (i == 0) { print "no =: " $0; next }
			if (eq && i != eq) print "= column " i " != " eq ": " $0
			eq = i
		}
		/^[a-z_]+:$/ { eq = 0 }
	' "$OUT_FILE")
	if [ -z "$bad" ]; then
		pass "$1"
	else
		fail "$1" "$bad" "$(ctx)"
	fi
}

# names_in_order NAME FULL REQUIRED: the report names of the last stdout
# (lines under a single test header) appear in the order of FULL (a
# space-separated list, the 0.4.11 order), and every name in REQUIRED is
# present.  Names of FULL may be absent (zero values are hidden).
names_in_order() {
	local name=$1 full=$2 req=$3
	local got
	got=$(sed -n 's/^    \([a-z_]*\) *  =  .*/\1/p' "$OUT_FILE" | tr '\n' ' ')
	local why=() n pos=0 i
	local -a fl=($full)
	for n in $got; do
		i=$pos
		while [ $i -lt ${#fl[@]} ] && [ "${fl[$i]}" != "$n" ]; do
			i=$((i + 1))
		done
		if [ $i -ge ${#fl[@]} ]; then
			why+=("unexpected or out-of-order line: $n")
			break
		fi
		pos=$((i + 1))
	done
	for n in $req; do
		case " $got " in
		*" $n "*) ;;
		*) why+=("missing line: $n") ;;
		esac
	done
	if [ ${#why[@]} -eq 0 ]; then
		pass "$name"
	else
		fail "$name" "${why[@]}" "$(ctx)"
	fi
}

# 12345 -> 12,345
commas() {
	echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'
}

C() {
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@"
}

# The child serving the client's current request: our server's child
# that is not one of $1 (the children there were before), if any.
server_child() {
	local k
	for k in $(ps -o pid= --ppid "$SERVER_PID" 2>/dev/null); do
		case " $1 " in *" $k "*) ;; *) echo "$k"; return ;; esac
	done
}

# integration_server: start this file's server (SERVER_PORT, SERVER_PID);
# a server that does not come up ends the file with one failure.
integration_server() {
	if ! start_server; then
		fail "server starts and publishes its port"
		finish
	fi
}

# Q ARGS...: our client against the file's server (PORT), through run.
Q() {
	run "$QPERF" 127.0.0.1 -lp "$PORT" "$@"
}

# one_error NAME RC RE: the last run exited RC with one stderr line,
# matching RE.
one_error() {
	local why=()
	[ "$RC" = "$2" ] || why+=("exit status $RC, wanted $2")
	[ "$(grep -c . "$ERR_FILE")" = 1 ] || why+=("stderr is not one line")
	grep -Eq -- "$3" "$ERR_FILE" || why+=("stderr lacks /$3/")
	if [ ${#why[@]} -eq 0 ]; then pass "$1"; else fail "$1" "${why[@]}" "$(ctx)"; fi
}

# ol_near TEST: TEST closed loop and open loop at 2k/s (-t 2 -vx, through
# the sourcing file's Q), up to three tries, until the open loop's p50 is
# within 3x or +200 us of the closed loop's; sets near (yes or empty) and
# tries (each try's two p50s).  The last open-loop run stays in OUT_FILE.
ol_near() {
	local try closed open
	near= tries=
	for try in 1 2 3; do
		Q -t 2 -vx "$1"
		closed=$(vx_ns latency_p50)
		Q -t 2 -vx --rate 2k/s "$1"
		open=$(vx_ns latency_p50)
		tries="$tries try $try: open ${open:-none} ns, closed ${closed:-none} ns;"
		if [ -n "$closed" ] && [ -n "$open" ] &&
			{ [ "$open" -le $((3 * closed)) ] ||
				[ "$open" -le $((closed + 200000)) ]; }; then
			near=yes
			return
		fi
	done
}

# ol_stall_run OUT ARGS...: run a 3 s test (--json) against this file's
# server ($SERVER_PORT; OL_WRAP, an array, runs before the client, e.g.
# softverbs' env) in the background, SIGSTOP the server's test process
# for ~OL_STALL_S a second into it; STALL_MS is the stall as measured here
# (from just after SIGSTOP to just before SIGCONT, bash's $EPOCHREALTIME:
# date +%s%N would fork inside the stall).
ol_stall_run() {
	local out=$1 old cpid kid t0 t1
	shift
	old=$(ps -o pid= --ppid "$SERVER_PID" 2>/dev/null | tr '\n' ' ')
	"${OL_WRAP[@]}" "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 3 --json \
		"$@" >"$out" 2>"$LIB_TMP/stall.err" </dev/null &
	cpid=$!
	track_pid "$cpid"
	sleep 1
	kid=$(server_child "$old")
	STALL_MS=
	if [ -n "$kid" ]; then
		# kill is a builtin and EPOCHREALTIME a variable: nothing
		# forks between the stop and the clock reads.
		kill -STOP "$kid"
		t0=${EPOCHREALTIME/./}
		sleep "$OL_STALL_S"
		t1=${EPOCHREALTIME/./}
		kill -CONT "$kid"
		STALL_MS=$(((t1 - t0) / 1000))
	fi
	wait_bg "$cpid" "$out" "$LIB_TMP/stall.err"
}

# ol_co_check TEST ARGS...: coordinated omission, open loop at 2000/s:
# the ~50 ms stall counts for each request it delayed, rate x (stall -
# 10 ms) of them above 10 ms, at least 80% and at most OL_CO_HIGH times, rtt max >= 40 ms and p99.9 >=
# 20 ms.  A loaded machine may stall either end on its own as well,
# which adds requests above 10 ms that are not ours: up to 3 tries, each
# shown.  With OL_STALL_MAX_MS a try whose stall was longer is shown but
# not judged (RC: past the transport's retransmission timeout the sender
# resends, which delays more than the stall), up to 5 tries.  Needs
# json_need.
ol_co_check() {
	local t=$1 try want got tries=() extra judged=0
	shift
	extra=("$@")
	for try in 1 2 3 4 5; do
		[ "$judged" -ge 3 ] && break
		ol_stall_run "$LIB_TMP/open.json" --rate 2000/s "${extra[@]}" "$t"
		expect "$t: stalled open loop (try $try): exit 0" 0
		json_valid "$t: stalled open loop (try $try) --json" doc
		if [ -z "$STALL_MS" ]; then
			fail "$t open loop: found the server's test process" "$(ctx)"
			return
		fi
		# Requests sent during a stall of D ms wait from D down to 0
		# ms: rtt > 10 ms for rate x (D - 10 ms) of them.
		want=$((2 * (STALL_MS - 10)))
		got=$("$JSON_PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["tests"][0]["results"]; print(r["open_loop"]["rtt_above_10ms"], r["round_trip"]["max_s"], r["round_trip"]["p99_9_s"], r["latency"]["count"])' "$OUT_FILE")
		set -- $got
		tries+=("try $try: stall ${STALL_MS} ms, ${1:-none} above 10 ms, want $want")
		if [ -n "$OL_STALL_MAX_MS" ] && [ "$STALL_MS" -gt "$OL_STALL_MAX_MS" ]; then
			tries+=("(not judged: stall above $OL_STALL_MAX_MS ms)")
			continue
		fi
		judged=$((judged + 1))
		if [ -n "$1" ] && awk -v g="$1" -v w="$want" -v h="$OL_CO_HIGH" \
			'BEGIN { exit !(w > 0 && g >= 0.8 * w && g <= h * w) }'; then
			json_assert "$t open loop, stall ${STALL_MS} ms: rtt max and p99.9 >= 20 ms" \
				'R["round_trip"]["max_s"] >= 0.040 and R["round_trip"]["p99_9_s"] >= 0.020'
			pass "$t open loop: $1 requests above 10 ms, want 2000/s x (${STALL_MS} - 10) ms = $want -20%..x$OL_CO_HIGH (rtt max $2 s, p99.9 $3 s, $4 samples; try $try)"
			return
		fi
	done
	fail "$t open loop: requests delayed = rate x stall (-20%..x$OL_CO_HIGH)" \
		"${tries[@]}" "$(ctx)"
}
