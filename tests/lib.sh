# SPDX-License-Identifier: GPL-2.0-only
# The one shell test library: every suite under tests/ sources it
# (tests/softverbs/lib.sh adds what the softverbs suites share), and so
# does bench/lib.sh.  Source it from a suite script:
#
#   . "$(dirname "$0")/../lib.sh"
#
# What it gives:
#   - QPERF (our binary, default ./qperf at the repo root), LEGACY_QPERF
#     (Debian's 0.4.11, default /usr/bin/qperf), T (a private temp dir,
#     LIB_TMP; the library's own files are there, so a script may use T
#     for something else, as bench/ does);
#   - free_port, port_free, port_listening, wait_for, pid_gone: ports and
#     polling, for every suite and bench/;
#   - start_server / start_legacy_server: servers whose port we learn by
#     reading a port file (ours) or polling `ss -ltn` (0.4.11), never by
#     sleeping a fixed time;
#   - run: run a command under `timeout`, capturing stdout, stderr, status;
#   - pass/fail and assertion helpers that count, and finish, which prints
#     "N passed, N failed" and exits 1 on any failure;
#   - a cleanup trap that kills only the PIDs these helpers started and
#     runs any cleanup commands a suite registered (network namespaces);
#   - png_ink: count the drawn pixels of a PNG (checks of --plot's SVG
#     rendered by rsvg-convert);
#   - narrowing: QPERF_CHECKS (tests/run.sh SUITE:PATTERN sets it) holds
#     "|"-separated substrings; pass/fail/skip count and print only checks
#     whose name, or whose section (section NAME), contains one of them
#     (case-sensitive); checks_match tells a suite whether to do a piece
#     of work at all.
#
# Invariant: every process we start in the background is recorded in
# LIB_PIDS, and nothing else is ever killed.

LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QPERF=${QPERF:-$LIB_ROOT/qperf}
case $QPERF in /*) ;; *) QPERF=$PWD/$QPERF ;; esac
LEGACY_QPERF=${LEGACY_QPERF:-/usr/bin/qperf}
TIMEOUT=${TIMEOUT:-20}

PASSED=0
FAILED=0
LIB_PIDS=()
LIB_CLEANUP=()
LIB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/qperf-test.XXXXXX")
T=$LIB_TMP

# Is $1 still a live child of this shell?  (Never signal a PID that has
# been reaped and perhaps reused by someone else's process.)
# No fork (cleanup asks this of every tracked PID, hundreds in cluster).
our_child() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	set -- $st
	[ "$1" != Z ] && [ "$2" = "$$" ]
}

lib_cleanup() {
	local pid c
	for pid in "${LIB_PIDS[@]}"; do
		our_child "$pid" && kill "$pid" 2>/dev/null
	done
	for pid in "${LIB_PIDS[@]}"; do
		# Give each one a moment, then insist.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			our_child "$pid" || break
			sleep 0.1
		done
		our_child "$pid" && kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for c in "${LIB_CLEANUP[@]}"; do
		eval "$c" >/dev/null 2>&1
	done
	rm -rf "$LIB_TMP"
}
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

# Register a shell command to run at exit (after killing our PIDs).
at_exit() {
	LIB_CLEANUP+=("$1")
}

# Remember a PID we started so cleanup can kill it.
track_pid() {
	LIB_PIDS+=("$1")
}

# --- narrowing ---------------------------------------------------------------
# checks_match NAME...: does one of the NAMEs contain one of the
# "|"-separated substrings of QPERF_CHECKS?  True when it is unset or empty.
# The C harnesses (tests/unit/harness.h, ...) read the same variable the
# same way.
checks_match() {
	local pats p n
	[ -n "${QPERF_CHECKS:-}" ] || return 0
	IFS='|' read -ra pats <<<"$QPERF_CHECKS"
	for p in "${pats[@]}"; do
		[ -n "$p" ] || continue
		for n in "$@"; do
			[[ $n == *"$p"* ]] && return 0
		done
	done
	return 1
}

# section NAME: the checks that follow belong to section NAME: a pattern
# that matches NAME selects all of them.
SECTION=
section() {
	SECTION=$1
}

# Is check NAME selected?
selected_check() {
	checks_match "$1" "$SECTION"
}

pass() {
	selected_check "$1" || return 0
	PASSED=$((PASSED + 1))
	echo "ok   $1"
}

# fail NAME [DETAIL...]: DETAIL lines are indented under the FAIL line.
fail() {
	local name=$1
	shift
	selected_check "$name" || return 0
	FAILED=$((FAILED + 1))
	echo "FAIL $name"
	local d
	for d in "$@"; do
		printf '%s\n' "$d" | head -n 40 | sed 's/^/     | /'
	done
}

# Print the summary line and exit with the right status.  First, our
# servers' logs must hold no sanitizer or crash reports (they matter when
# QPERF is a SANITIZE=address,undefined build).
finish() {
	local logs bad
	logs=$(ls "$LIB_TMP"/server.*.log 2>/dev/null)
	# (a narrowed run that selected no check does not count this one)
	if [ -n "$logs" ] && { [ -z "${QPERF_CHECKS:-}" ] ||
		[ $((PASSED + FAILED)) -gt 0 ]; }; then
		local QPERF_CHECKS=
		bad=$(grep -l -E 'AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|core dumped' $logs)
		if [ -z "$bad" ]; then
			pass "server logs: no sanitizer or crash reports"
		else
			fail "server logs: no sanitizer or crash reports" "$(cat $bad | head -40)"
		fi
	fi
	checks_none_note "$PASSED" "$FAILED"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
	exit $?
}

# checks_none_note PASSED FAILED: under narrowing, say so when nothing ran.
checks_none_note() {
	[ -n "${QPERF_CHECKS:-}" ] && [ $(($1 + $2)) -eq 0 ] &&
		echo "# no check matches the narrowing (QPERF_CHECKS='$QPERF_CHECKS')"
	return 0
}

# Skip a check that cannot run here, loudly.  It counts as neither.
skip() {
	selected_check "$1" || return 0
	echo "skip $1${2:+ ($2)}"
}

# run [-t SECS] CMD...: run CMD under timeout with stdout in $OUT_FILE,
# stderr in $ERR_FILE; sets RC, OUT, ERR.  RC 124 means it timed out.
OUT_FILE=$LIB_TMP/out
ERR_FILE=$LIB_TMP/err
run() {
	local to=$TIMEOUT
	if [ "$1" = -t ]; then
		to=$2
		shift 2
	fi
	timeout -k 2 "$to" "$@" >"$OUT_FILE" 2>"$ERR_FILE" </dev/null
	RC=$?
	OUT=$(cat "$OUT_FILE")
	ERR=$(cat "$ERR_FILE")
	return 0
}

# stop_bg SIG PID OUT ERR: send SIG to a client we started in the
# background (stdout in file OUT, stderr in ERR), wait for it and load its
# status and output as run() does.
stop_bg() {
	kill -"$1" "$2"
	wait_bg "$2" "$3" "$4"
}

# wait_bg PID OUT ERR: wait for a client we started in the background
# (stdout in file OUT, stderr in ERR) and load its status and output as
# run() does.
wait_bg() {
	wait "$1"
	RC=$?
	cp "$2" "$OUT_FILE"
	cp "$3" "$ERR_FILE"
	OUT=$(cat "$OUT_FILE") ERR=$(cat "$ERR_FILE")
}

# The context printed under a failed check.
ctx() {
	printf 'rc=%s\n--- stdout:\n%s\n--- stderr:\n%s' "$RC" "$OUT" "$ERR"
}

# check NAME CMD...: passes when CMD exits 0; its output goes to
# $LIB_TMP/check.log, whose last lines a failure shows.
check() {
	local name=$1
	shift
	if "$@" >"$LIB_TMP/check.log" 2>&1; then
		pass "$name"
	else
		fail "$name" "command failed: $*" "$(tail -n 20 "$LIB_TMP/check.log")"
	fi
}

# expect NAME RC-WANTED [REGEX-ON-STDOUT [REGEX-ON-STDERR]]: assert on the
# last run.  An empty regex is not checked; the special regex '^$' asks
# for an empty stream.  Regexes are extended (grep -E) over the whole
# text, matched line by line.
expect() {
	local name=$1 want=$2 ore=${3-} ere=${4-}
	local why=()
	[ "$RC" = "$want" ] || why+=("exit status $RC, wanted $want")
	if [ -n "$ore" ]; then
		if [ "$ore" = '^$' ]; then
			[ -z "$OUT" ] || why+=("stdout not empty")
		elif ! grep -Eq -- "$ore" "$OUT_FILE"; then
			why+=("stdout lacks /$ore/")
		fi
	fi
	if [ -n "$ere" ]; then
		if [ "$ere" = '^$' ]; then
			[ -z "$ERR" ] || why+=("stderr not empty")
		elif ! grep -Eq -- "$ere" "$ERR_FILE"; then
			why+=("stderr lacks /$ere/")
		fi
	fi
	if [ ${#why[@]} -eq 0 ]; then
		pass "$name"
	else
		fail "$name" "${why[@]}" "$(ctx)"
	fi
}

# has RE [FILE]: does the last stdout (or FILE) contain a line matching RE?
has() {
	grep -Eq -- "$1" "${2:-$OUT_FILE}"
}

# Count lines of the last stdout matching RE.
count_lines() {
	grep -Ec -- "$1" "${2:-$OUT_FILE}"
}

# match_lines NAME FILE PATTERN...: FILE must have exactly as many lines as
# patterns, line i matching pattern i in full (grep -Ex).  This is how
# report layouts are compared with the spec's captured output, with the
# figures replaced by patterns.
match_lines() {
	local name=$1 file=$2
	shift 2
	local n=$#
	local have
	have=$(wc -l <"$file")
	if [ "$have" -ne "$n" ]; then
		fail "$name" "$have lines, wanted $n" "$(ctx)"
		return
	fi
	local i=1 p line
	for p in "$@"; do
		line=$(sed -n "${i}p" "$file")
		if ! printf '%s\n' "$line" | grep -Exq -- "$p"; then
			fail "$name" "line $i: '$line' !~ /$p/" "$(ctx)"
			return
		fi
		i=$((i + 1))
	done
	pass "$name"
}

# Patterns for report figures: a number as 0.4.11 prints it (commas,
# optional fraction), and one that must be positive.
NUM='[0-9][0-9,]*(\.[0-9]+)?'
POS='([1-9][0-9,]*(\.[0-9]+)?|0\.[0-9]*[1-9][0-9]*)'

# Wait until CMD succeeds, polling every 0.05 s, at most SECS seconds.
# A CMD status of 2 means "it will never succeed": give up at once.
wait_for() {
	local secs=$1 rc
	shift
	local end=$((SECONDS + secs + 1))
	while [ $SECONDS -lt $end ]; do
		"$@"
		rc=$?
		[ $rc -eq 0 ] && return 0
		[ $rc -eq 2 ] && return 2
		sleep 0.05
	done
	"$@"
}

# start_server [WRAPPER...] -- [QPERF-ARGS...]: start our server on an
# ephemeral port; sets SERVER_PID, SERVER_PORT and SERVER_LOG (stdout and
# stderr of the server).  WRAPPER is e.g. `ip netns exec NS` or
# `valgrind ...`; both lists may be empty.  Returns 1 if it did not come
# up within 10 s (or the time in START_WAIT).
SERVER_N=0
start_server() {
	local wrap=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		wrap+=("$1")
		shift
	done
	[ "${1-}" = -- ] && shift
	SERVER_N=$((SERVER_N + 1))
	local pf=$LIB_TMP/port.$SERVER_N
	SERVER_LOG=$LIB_TMP/server.$SERVER_N.log
	rm -f "$pf"
	"${wrap[@]}" "$QPERF" -lp 0 -lpf "$pf" "$@" >"$SERVER_LOG" 2>&1 \
		</dev/null &
	SERVER_PID=$!
	track_pid "$SERVER_PID"
	SERVER_PORT=
	if ! wait_for "${START_WAIT:-10}" server_up "$pf"; then
		echo "server did not publish its port; log:" >&2
		cat "$SERVER_LOG" >&2
		return 1
	fi
	SERVER_PORT=$(cat "$pf")
	case $SERVER_PORT in
	'' | *[!0-9]*) return 1 ;;
	esac
	return 0
}

server_up() {
	[ -s "$1" ] && return 0
	pid_gone "$SERVER_PID" && return 2
	return 1
}

# port_listening PORT [t|u]: is something listening on TCP (or bound to
# UDP) port PORT in the current namespace?
port_listening() {
	ss -Hl"${2:-t}"n "sport = :$1" 2>/dev/null | grep -q .
}

# Is TCP port $1 unused (no socket of any state bound to it)?
port_free() {
	! ss -tanH "sport = :$1" 2>/dev/null | grep -q . &&
		! ss -uanH "sport = :$1" 2>/dev/null | grep -q .
}

# Pick a free port for a server that cannot publish port 0 (0.4.11), below
# the kernel's ephemeral range: a port from that range can be taken at any
# moment as the local port of some outgoing connection (suites run side by
# side; tests/robust's stranger makes thousands), and the server's bind
# then fails with "Address already in use".
EPHEMERAL_LO=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[ "${EPHEMERAL_LO:-0}" -gt 12000 ] 2>/dev/null || EPHEMERAL_LO=32768
free_port() {
	local p
	for _ in $(seq 200); do
		p=$((10000 + RANDOM % (EPHEMERAL_LO - 10000)))
		if port_free "$p"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# start_legacy_server [ARGS...]: start Debian's qperf 0.4.11 on a free
# port; sets LEGACY_PID, LEGACY_PORT, LEGACY_LOG.  Its stdout gets the
# "upgrade qperf on server" line each time our client falls back.
LEGACY_N=0
start_legacy_server() {
	local tries
	for tries in 1 2 3; do
		LEGACY_N=$((LEGACY_N + 1))
		LEGACY_PORT=$(free_port) || return 1
		LEGACY_LOG=$LIB_TMP/legacy.$LEGACY_N.log
		"$LEGACY_QPERF" -lp "$LEGACY_PORT" "$@" >"$LEGACY_LOG" 2>&1 \
			</dev/null &
		LEGACY_PID=$!
		track_pid "$LEGACY_PID"
		if wait_for 10 legacy_up; then
			return 0
		fi
		# Lost a race for the port (it exited): try another one.
		stop_legacy_server
	done
	return 1
}

# stop_legacy_server: stop the 0.4.11 server start_legacy_server started.
stop_legacy_server() {
	kill "$LEGACY_PID" 2>/dev/null
	wait "$LEGACY_PID" 2>/dev/null
}

legacy_up() {
	pid_gone "$LEGACY_PID" && return 2
	port_listening "$LEGACY_PORT"
}

# Does our server (or any qperf server) at port $1 answer conf?  Optional
# $2 is a command prefix (e.g. `ip netns exec NS`).
server_answers() {
	local port=$1
	shift
	timeout -k 2 15 "$@" "$QPERF" 127.0.0.1 -lp "$port" conf \
		>"$LIB_TMP/alive.out" 2>"$LIB_TMP/alive.err" </dev/null &&
		grep -q '^    rem_qperf  =  ' "$LIB_TMP/alive.out"
}

# check_alive NAME PORT [PID]: the server must answer conf (and PID, when
# given, must still be running).
check_alive() {
	local name=$1 port=$2 pid=${3-}
	if [ -n "$pid" ] && pid_gone "$pid"; then
		fail "$name" "server process $pid is gone"
		return 1
	fi
	if server_answers "$port"; then
		pass "$name"
	else
		fail "$name" "conf failed:" "$(cat "$LIB_TMP/alive.out" "$LIB_TMP/alive.err")"
		return 1
	fi
}

# stop_server PORT PID [NAME]: send quit (with STOP_CLIENT, default
# QPERF, to STOP_HOST, default 127.0.0.1) and check the server exits 0
# within 10 s.
stop_server() {
	local port=$1 pid=$2 name=${3-}
	timeout -k 2 15 "${STOP_CLIENT:-$QPERF}" "${STOP_HOST:-127.0.0.1}" -lp "$port" quit \
		>/dev/null 2>&1 </dev/null
	local st=124
	if wait_for 10 pid_gone "$pid"; then
		wait "$pid"
		st=$?
	fi
	if [ -n "$name" ]; then
		if [ "$st" -eq 0 ]; then
			pass "$name"
		else
			fail "$name" "server exit status $st (124: still running)"
		fi
	fi
	return 0
}
# Has process $1 exited?  A zombie child (not yet reaped) counts as gone.
pid_gone() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "${st%% *}" = Z ]
}

# Is QPERF built with AddressSanitizer (valgrind cannot run it)?
qperf_is_asan() {
	grep -q __asan_init "$QPERF" 2>/dev/null
}

# Is a python3 interpreter here?  The robust and interop suites use it
# for fake peers.
need_python() {
	command -v python3 >/dev/null 2>&1
}

# --- a scripted server's record of the request items it got -----------------

# items_has NAME FILE ITEMS / items_lacks NAME FILE ITEMS: FILE (the item
# types of a request, space-separated) holds one of ITEMS (an ERE
# alternation, "16|17"), or is there and holds none of them.
items_has() {
	grep -Eq "(^| )($3)( |\$)" "$2" && pass "$1" ||
		fail "$1" "items: $(cat "$2" 2>/dev/null)"
}
items_lacks() {
	[ -s "$2" ] && ! grep -Eq "(^| )($3)( |\$)" "$2" && pass "$1" ||
		fail "$1" "items: $(cat "$2" 2>/dev/null)"
}

# --- -vx (latency percentiles and process CPU) ----------------------------

# vx_ns NAME: the value of the first report line NAME in OUT_FILE, in ns
# (times) or as a plain number (counts); empty if there is none.
vx_ns() {
	awk -v n="$1" '$1 == n && $2 == "=" {
		v = $3; gsub(",", "", v); u = $4
		m = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "sec" ? 1e9 : 1
		printf "%.0f\n", v * m; exit }' "$OUT_FILE"
}

VX_LAT="latency_min latency_mean latency_p50 latency_p90 latency_p99 latency_p99.9 latency_p99.99 latency_max"
VX_RTT=$(echo "$VX_LAT" | sed 's/latency_/rtt_/g')

# check_vx NAME DIV [SAMPLES [REM]]: the -vx block of the (first) latency
# test in OUT_FILE.  Every line is there, in order, after 0.4.11's; the
# percentiles never decrease from min to max, the mean is within them;
# the round trip is DIV times the latency (2 ping-pong, 1 RDMA read) to
# the report's 3 digits; latency_samples is SAMPLES if given, else > 0;
# the process CPU of this end is shown and of the server too unless REM
# is "norem" (a 0.4.11 server).
check_vx() {
	local name=$1 div=$2 want=${3-} rem=${4-} why=() n prev v l r
	local order="latency latency_samples $VX_LAT $VX_RTT loc_proc_user loc_proc_sys"
	[ "$rem" = norem ] || order="$order rem_proc_user rem_proc_sys"
	local got
	got=$(awk '$2 == "=" { print $1 }' "$OUT_FILE" |
		grep -xF -f <(echo "$order" | tr ' ' '\n') | head -n "$(echo $order | wc -w)" | tr '\n' ' ')
	[ "$got" = "$order " ] || why+=("lines: got [$got], want [$order ]")
	if [ "$rem" = norem ] && grep -q '^    rem_proc_' "$OUT_FILE"; then
		why+=("rem_proc lines from a server that cannot send them")
	fi
	n=$(vx_ns latency_samples)
	if [ -n "$want" ]; then
		[ "$n" = "$want" ] || why+=("latency_samples $n, want $want")
	else
		[ "${n:-0}" -gt 0 ] || why+=("latency_samples ${n:-absent}")
	fi
	for l in "$VX_LAT" "$VX_RTT"; do
		prev=0
		for v in $(echo $l | tr ' ' '\n' | grep -v mean); do
			v=$(vx_ns "$v")
			[ -n "$v" ] && [ "$v" -ge "$prev" ] ||
				why+=("${l%% *}..: not ordered at ${v:-absent} < $prev")
			prev=${v:-0}
		done
	done
	for v in p50 p99 max; do
		l=$(vx_ns latency_$v) r=$(vx_ns rtt_$v)
		awk -v l="$l" -v r="$r" -v d="$div" \
			'BEGIN { x = r - d * l; exit !(x <= r / 100 && -x <= r / 100) }' ||
			why+=("rtt_$v $r is not $div x latency_$v $l")
	done
	v=$(vx_ns latency_mean)
	[ "$v" -ge "$(vx_ns latency_min)" ] && [ "$v" -le "$(vx_ns latency_max)" ] ||
		why+=("latency_mean $v outside min..max")
	if [ ${#why[@]} -eq 0 ]; then
		pass "$name"
	else
		fail "$name" "${why[@]}" "$(ctx)"
	fi
}

# need_softverbs: this qperf has the RDMA tests and softverbs is built in
# SV_LIB; otherwise one failure, and the file ends there.
need_softverbs() {
	if ! "$QPERF" --version | grep -q 'rdma: built'; then
		# A NO_RDMA=1 build has no RDMA tests: say so, loudly.
		fail "this qperf has the RDMA tests" "$("$QPERF" --version)"
		finish
	fi
	if [ ! -e "$SV_LIB/libibverbs.so.1" ]; then
		fail "softverbs is built ($SV_LIB/libibverbs.so.1)" "run make first"
		finish
	fi
}

# --- JSON output (--json, --json_stream) ---------------------------------------
# Validated with Debian's python3-jsonschema against docs/qperf-schema.json
# by tests/json_check.py.
JSON_PY=/usr/bin/python3
[ -x "$JSON_PY" ] || JSON_PY=python3

# json_need: fails (and counts a failure) without python3-jsonschema.
json_need() {
	"$JSON_PY" -c 'import jsonschema' 2>/dev/null && return 0
	fail "python3-jsonschema is installed (scripts/install-deps --test)"
	return 1
}

# json_valid NAME MODE: the last stdout is one valid --json document
# (MODE doc) or valid --json_stream lines, start first and end last
# (MODE stream).
json_valid() {
	local why
	if why=$("$JSON_PY" "$LIB_ROOT/tests/json_check.py" "$2" "$OUT_FILE" 2>&1); then
		pass "$1: valid against the schema"
	else
		fail "$1: valid against the schema" "$why" "$(ctx)"
	fi
}

# json_assert NAME EXPR: a Python expression over the last stdout must be
# true.  d is the document (a list of lines for a stream), tests its test
# entries, T0 the first, R its results, E the run's end (d, or the "end"
# line), S its start (d, or the "start" line).
json_assert() {
	if "$JSON_PY" - "$OUT_FILE" "$2" <<'PYEOF'; then
import json, sys
text = open(sys.argv[1]).read()
try:
    d = json.loads(text)
except ValueError:
    d = [json.loads(l) for l in text.splitlines()]
if isinstance(d, dict):
    tests, E = d["tests"], d
else:
    tests, E = [l for l in d if l["type"] == "test"], d[-1]
S = d if isinstance(d, dict) else d[0]
T0 = tests[0] if tests else {}
R = T0.get("results") or {}
sys.exit(0 if eval(sys.argv[2]) else 1)
PYEOF
		pass "$1"
	else
		fail "$1" "false: $2" "$(ctx)"
	fi
}

# png_ink PNG [COLOUR]: pixels not white (or, with COLOUR rrggbb, of that
# colour) of an 8-bit RGB/RGBA PNG, decoded here (no imaging library).
png_ink() {
	python3 - "$@" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w, h, ct = 8, b'', 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ct = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ct in (2, 6), 'unsupported PNG type'
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
bpp = 3 if ct == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
want = bytes.fromhex(sys.argv[2]) if len(sys.argv) > 2 else None
ink = 0
for line in rows:
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        ink += (px == want) if want else (px != b'\xff\xff\xff')
print(ink)
EOF
}
