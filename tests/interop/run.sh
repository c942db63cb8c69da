#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Interoperability with Debian's qperf 0.4.11 (/usr/bin/qperf), both ways:
#   X: our client  -> 0.4.11 server
#   Y: 0.4.11 client -> our server
# for conf, quit, tcp_bw, tcp_lat, udp_bw, udp_lat and the options -m, -t,
# -v, -vv, -uu, -ub, --loop, -lp, -ip, -sb, -ar1, -ca, -to, -ws (each in
# both directions), remote errors both ways, the version-mismatch texts,
# and the exact bytes of our legacy request (a python fake server records
# them; they must equal the spec's layout and 0.4.11's own request).
# Then, over softverbs, the report lines of the 21 RDMA tests 0.4.11 has
# at the default verbosity, -v and -vv, both ways (tests/interop/rdma.sh).
#
# Usage: bash tests/interop/run.sh   (QPERF=..., LEGACY_QPERF=... override)
# Needs the Debian package qperf (apt-get install qperf) and python3.

. "$(dirname "$0")/../lib.sh"
PEER=$LIB_ROOT/tests/robust/peer.py

if [ ! -x "$LEGACY_QPERF" ] || ! "$LEGACY_QPERF" --version 2>&1 | grep -q 0.4.11; then
	fail "qperf 0.4.11 is installed at $LEGACY_QPERF (apt-get install qperf)"
	finish
fi

L() {
	printf '    %s *  =  *%s' "$1" "$2"
}
BW="$POS (bytes|KB|MB|GB|TB)/sec"
TIME="$POS (ns|us|ms|sec)"
CNT="$NUM( (thousand|million|billion))? "

if ! start_legacy_server; then
	fail "0.4.11 server starts"
	finish
fi
pass "0.4.11 server listens on $LEGACY_PORT"
if ! start_server; then
	fail "our server starts"
	finish
fi
pass "our server listens on $SERVER_PORT"

X() {	# our client -> 0.4.11 server
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" "$@"
}
Y() {	# 0.4.11 client -> our server
	run "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@"
}

# both NAME ARGS... / then checks use $DIR: run the same command in both
# directions via a callback: each call of `both` runs the function
# named in CHECK with DIR set to X or Y after running the command.
both() {
	local name=$1
	shift
	local d
	for d in X Y; do
		DIR=$d
		"$d" "$@"
		"$CHECK" "$d: $name"
	done
}

# --- conf ----------------------------------------------------------------
X conf
expect "X: conf exit 0" 0 "$(L rem_qperf '0\.4\.11')" '^$'
has "$(L loc_qperf '0\.5\.[0-9]+')" && [ "$(count_lines '^    (loc|rem)_')" = 8 ] &&
	pass "X: conf prints 8 lines, loc 0.5, rem 0.4.11" ||
	fail "X: conf prints 8 lines, loc 0.5, rem 0.4.11" "$(ctx)"
Y conf
expect "Y: conf exit 0" 0 "$(L rem_qperf '0\.5\.[0-9]+')" '^$'
has "$(L loc_qperf '0\.4\.11')" && has "$(L rem_os "$(uname -s) .+")" &&
	[ "$(count_lines '^    (loc|rem)_')" = 8 ] &&
	pass "Y: conf prints 8 lines, rem 0.5 with our os" ||
	fail "Y: conf prints 8 lines, rem 0.5 with our os" "$(ctx)"

# --- the four tests, with the options ---------------------------------------
ck_bw() {
	expect "$1 exit 0" 0 "$(L bw "$BW")"
}
CHECK=ck_bw both "tcp_bw -t 1" -t 1 tcp_bw

ck_lat_v() {
	expect "$1 exit 0" 0 "$(L latency "$TIME")"
	has "$(L msg_rate "$POS [KM]?/sec")" && has "$(L time '1 sec')" &&
		has "$(L loc_cpus_used "$NUM % cpus")" &&
		has "$(L rem_cpus_used "$NUM % cpus")" &&
		[ "$(count_lines '^    ')" = 5 ] &&
		pass "$1 -v layout" || fail "$1 -v layout" "$(ctx)"
}
CHECK=ck_lat_v both "tcp_lat -t 1 -v" -t 1 -v tcp_lat

ck_udp_vv() {
	expect "$1 exit 0" 0 "$(L send_bw "$BW")"
	has "$(L recv_bw "$BW")" && has "$(L msg_size '32 KiB \(32,768\)')" &&
		has "$(L timeout '5 sec')" && has "$(L send_msgs "$CNT")" &&
		has "$(L recv_msgs "$CNT")" &&
		has "$(L send_cpus_used "$NUM % cpus")" &&
		pass "$1 -vv lines" || fail "$1 -vv lines" "$(ctx)"
	local s r
	s=$(sed -n 's/^    send_msgs *  =  *\([0-9,]*\) $/\1/p' "$OUT_FILE" | tr -d ,)
	r=$(sed -n 's/^    recv_msgs *  =  *\([0-9,]*\) $/\1/p' "$OUT_FILE" | tr -d ,)
	[ -n "$s" ] && [ -n "$r" ] && [ "$r" -gt 0 ] && [ "$r" -le "$s" ] &&
		pass "$1: 0 < recv_msgs ($r) <= send_msgs ($s)" ||
		fail "$1: 0 < recv_msgs <= send_msgs" "$(ctx)"
}
CHECK=ck_udp_vv both "udp_bw -t 1 -vv" -t 1 -vv udp_bw

ck_uu() {
	expect "$1 exit 0" 0 "$(L latency '[1-9][0-9]* ns')"
	! has '[0-9],[0-9]' && pass "$1: no commas" || fail "$1: no commas" "$(ctx)"
}
CHECK=ck_uu both "udp_lat -t 1 -uu" -t 1 -uu udp_lat

ck_ub() {
	expect "$1 exit 0" 0 "$(L bw "$POS (bits|Kb|Mb|Gb|Tb)/sec")"
}
CHECK=ck_ub both "tcp_bw -t 1 -ub" -t 1 -ub tcp_bw

ck_m() {
	expect "$1 exit 0" 0 "$(L msg_size '16 KiB \(16,384\)')"
	has "$(L bw "$BW")" && pass "$1 bw" || fail "$1 bw" "$(ctx)"
}
CHECK=ck_m both "tcp_bw -m 16K -vu" -t 1 -m 16K -vu tcp_bw

ck_m2() {
	expect "$1 exit 0" 0 "$(L msg_size '1\.4 KB')"
	has "$(L recv_bw "$BW")" && pass "$1 recv_bw" || fail "$1 recv_bw" "$(ctx)"
}
CHECK=ck_m2 both "udp_bw -m 1400 -vu" -t 1 -m 1400 -vu udp_bw

ck_loop() {
	expect "$1 exit 0" 0
	local want=() s
	for s in '1 bytes' '4 bytes' '16 bytes' '64 bytes' '256 bytes' \
		'1 KiB \(1,024\)'; do
		want+=('udp_lat:' "$(L latency "$TIME")" "$(L msg_size "$s")" \
			"$(L time '1 sec')")
	done
	match_lines "$1: 6 tests, msg_size 1..1K" "$OUT_FILE" "${want[@]}"
}
CHECK=ck_loop both "--loop msg_size:1:1K:*4 -vu udp_lat" \
	-t 1 --loop msg_size:1:1K:*4 -vu udp_lat

IPX=$(free_port)
ck_ip() {
	local p=$IPX
	expect "$1 exit 0" 0 "$(L port "$(echo "$p" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') ")"
}
CHECK=ck_ip both "tcp_bw -ip $IPX -vu" -t 1 -ip "$IPX" -vu tcp_bw
CHECK=ck_ip both "udp_lat -ip $IPX -vu" -t 1 -ip "$IPX" -vu udp_lat

ck_sb() {
	expect "$1 exit 0" 0 "$(L sock_buf_size '64 KiB \(65,536\)')"
}
CHECK=ck_sb both "tcp_bw -sb 64K -vu" -t 1 -sb 64K -vu tcp_bw
CHECK=ck_sb both "udp_bw -sb 64K -vu" -t 1 -sb 64K -vu udp_bw

ck_ar() {
	expect "$1 exit 0" 0 "$(L access_recv '1 ')"
}
CHECK=ck_ar both "udp_bw -ar1 -vu" -t 1 -ar1 -vu udp_bw
CHECK=ck_ar both "tcp_bw -ar1 -vu" -t 1 -ar1 -vu tcp_bw

ck_ca() {
	expect "$1 exit 0" 0 "$(L affinity '1 ')"
	has "$(L latency "$TIME")" && pass "$1 latency" || fail "$1 latency" "$(ctx)"
}
CHECK=ck_ca both "tcp_lat -ca 1 -vu" -t 1 -ca 1 -vu tcp_lat
ck_rca() {
	expect "$1 exit 0" 0 "$(L rem_affinity '2 ')"
}
CHECK=ck_rca both "udp_lat -rca 2 -vu" -t 1 -rca 2 -vu udp_lat

ck_to() {
	expect "$1 exit 0" 0 "$(L timeout '7 sec')"
}
CHECK=ck_to both "tcp_lat -to 7 -vu" -t 1 -to 7 -vu tcp_lat
ck_rto() {
	expect "$1 exit 0" 0 "$(L rem_timeout '9 sec')"
}
CHECK=ck_rto both "udp_bw -rto 9 -vu" -t 1 -rto 9 -vu udp_bw

ck_ws() {
	expect "$1 exit 0" 0 "$(L latency "$TIME")"
}
CHECK=ck_ws both "tcp_lat -ws 2" -t 1 -ws 2 tcp_lat

ck_t() {
	expect "$1 exit 0" 0 "$(L time '2 sec')"
	local rt
	rt=$(sed -n 's/^    loc_real_time *  =  *\([0-9.]*\) sec$/\1/p' "$OUT_FILE")
	[ -n "$rt" ] && awk -v t="$rt" 'BEGIN { exit !(t >= 1.9 && t <= 2.3) }' &&
		pass "$1: ran 2 s ($rt)" || fail "$1: ran 2 s" "$(ctx)"
}
CHECK=ck_t both "udp_lat -t 2 -vvu -vvt" -t 2 -vvu -vvt udp_lat

# The peer's STAT as the other side reads it: both windows about 1 s
# (0.4.11 ticks are 10 ms), receive counts present and at most one above
# the sender's (0.4.11 counts the last, partial read as a message: spec
# §5.11 shows send_msgs 53,425 and recv_msgs 53,426).
ck_stat() {
	expect "$1 exit 0" 0 "$(L send_real_time '1(\.0[0-3])? sec')"
	has "$(L recv_real_time '1(\.0[0-3])? sec')" &&
		pass "$1: both real times about 1 s" ||
		fail "$1: both real times about 1 s" "$(ctx)"
	local s r
	s=$(sed -n 's/^    send_msgs *  =  *\([0-9,]*\) $/\1/p' "$OUT_FILE" | tr -d ,)
	r=$(sed -n 's/^    recv_msgs *  =  *\([0-9,]*\) $/\1/p' "$OUT_FILE" | tr -d ,)
	[ -n "$s" ] && [ -n "$r" ] && [ "$r" -gt 0 ] && [ "$r" -le $((s + 1)) ] &&
		pass "$1: 0 < recv_msgs ($r) <= send_msgs + 1 ($s + 1)" ||
		fail "$1: 0 < recv_msgs <= send_msgs + 1" "$(ctx)"
}
CHECK=ck_stat both "tcp_bw -t 1 -vv (STAT both ways)" -t 1 -vv tcp_bw

# Our client with a fractional -t against 0.4.11 (whole seconds): it
# still works, and says how it rounded.
X -t 0.5 tcp_bw
expect "X: -t 0.5 against 0.4.11 works, warns about rounding" 0 \
	"$(L bw "$BW")" 'warning: .*(round|whole)'
# ... and the parameter list shows the time that was run
# (docs/bugs-found.md #5).
X -t 0.5 -vu -vvt tcp_lat
if [ "$RC" = 0 ] && has "$(L loc_real_time '1(\.0[0-3])? sec')" &&
	has "$(L time '1 sec')"; then
	pass "X: -t 0.5 -vu against 0.4.11: 'time' shows the 1 s that ran"
else
	fail "X: -t 0.5 -vu against 0.4.11: 'time' shows the 1 s that ran" "$(ctx)"
fi
# Our client's -n against 0.4.11: tcp_lat ends after the count.
X -n 500 -vvs tcp_lat
expect "X: -n 500 tcp_lat against 0.4.11" 0 "$(L loc_send_msgs '500 ')"

# -ws waiting for a server that starts later, both ways.
wsport=$(free_port)
"$QPERF" 127.0.0.1 -lp "$wsport" -ws 8 -t 1 tcp_lat >"$T/ws.out" 2>"$T/ws.err" &
wspid=$!
track_pid $wspid
"$LEGACY_QPERF" -lp "$wsport" >/dev/null 2>&1 &
wsl=$!
track_pid $wsl
if wait_for 15 pid_gone $wspid; then
	wait $wspid
	st=$?
else
	st=124
fi
[ "$st" = 0 ] && grep -q '^    latency' "$T/ws.out" &&
	pass "X: -ws 8 waits for a 0.4.11 server started later" ||
	fail "X: -ws 8 waits for a 0.4.11 server started later" "rc=$st" \
		"$(cat "$T/ws.out" "$T/ws.err")"
kill $wsl 2>/dev/null

wsport=$(free_port)
"$LEGACY_QPERF" 127.0.0.1 -lp "$wsport" -ws 8 -t 1 tcp_lat >"$T/ws.out" 2>"$T/ws.err" &
wspid=$!
track_pid $wspid
"$QPERF" -lp "$wsport" >/dev/null 2>&1 &
wss=$!
track_pid $wss
if wait_for 15 pid_gone $wspid; then
	wait $wspid
	st=$?
else
	st=124
fi
[ "$st" = 0 ] && grep -q '^    latency' "$T/ws.out" &&
	pass "Y: -ws 8 waits for our server started later" ||
	fail "Y: -ws 8 waits for our server started later" "rc=$st" \
		"$(cat "$T/ws.out" "$T/ws.err")"
kill $wss 2>/dev/null

# --- interval reports: a 0.4.11 server sends none -----------------------------
X -t 2 -I 1 tcp_bw udp_bw
expect "X: -I 1 tcp_bw udp_bw: exit 0, bw reported" 0 "$(L bw "$BW")" \
	'^qperf: warning: the server runs qperf 0\.4, which sends no interval reports; showing this side.s figures only$'
[ "$(count_lines '^    [0-9.]+-[0-9.]+ +sec  loc send ')" = 4 ] &&
	! has ' rem (send|recv) ' &&
	[ "$(grep -c 'sends no interval reports' "$ERR_FILE")" = 1 ] &&
	pass "X: -I: sender lines only (2 per test), the warning once" ||
	fail "X: -I: sender lines only (2 per test), the warning once" "$(ctx)"

# --- --streams and -ca lists: refused against a 0.4.11 server ------------------
# One line naming the option and the server's version, exit 1; one
# stream (the default, or -st 1) and a single -ca still run as 0.4.11's.
for args in "-st 2 tcp_bw" "--streams 4 udp_bw"; do
	X -t 1 $args
	opt=${args%% *}
	expect "X: $args: refused" 1 '' \
		"^qperf: ${args##* }: $opt needs a server running qperf 0\.5\.0 or later; this server runs 0\.4, which runs one stream per test\$"
	[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "X: $args: one line" ||
		fail "X: $args: one line" "$(ctx)"
done
X -t 1 -st 2 -ca 1,2 tcp_bw
expect "X: -st 2 -ca 1,2 tcp_bw: refused naming -st" 1 '' \
	'^qperf: tcp_bw: -st needs a server running qperf 0\.5\.0 or later; this server runs 0\.4'
X -t 1 -ca 1,2 tcp_lat
expect "X: -ca 1,2 tcp_lat: a CPU list refused" 1 '' \
	'^qperf: tcp_lat: -ca needs a server running qperf 0\.5\.0 or later; this server runs 0\.4, whose -ca takes one CPU number, not a list$'
X -t 1 -st 1 tcp_bw
expect "X: -st 1 tcp_bw: runs as 0.4.11's" 0 "$(L bw "$BW")" '^$'
X -t 1 -ca 1 tcp_bw
expect "X: -ca 1 tcp_bw: one CPU number still works" 0 "$(L bw "$BW")" '^$'

# --- same lines as 0.4.11's client ---------------------------------------------
# Our client and 0.4.11's, run side by side against our server, must
# print the same report lines in the same order (names only; figures
# differ from run to run, and lines whose value may be zero by chance are
# left out), and the same "set but not used" and obsolete-option warnings.
names() {
	sed -n 's/^    \([a-z_]*\) *  =  .*/\1/p' "$1" |
		grep -vE '(iowait|intr|user|kernel|errors|max_cqe)$' | tr '\n' ' '
}
warns() {
	sed -n 's/^\(qperf: \)\{0,1\}warning: //p' "$1" | sort | tr '\n' '|'
}
same_as_legacy() {
	local what=$1 name=$2
	shift 2
	timeout 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@" >"$T/z.ours" 2>&1 &
	local zp=$!
	timeout 20 "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@" >"$T/z.theirs" 2>&1
	wait $zp
	local a b
	a=$($what "$T/z.ours")
	b=$($what "$T/z.theirs")
	if [ -n "$b" ] && [ "$a" = "$b" ]; then
		pass "$name: same as 0.4.11's client"
	else
		fail "$name: same as 0.4.11's client" "ours:   $a" "0.4.11: $b" \
			"$(cat "$T/z.ours")"
	fi
}
for o in "-vv" "-vs" "-vt" "-vu" "-un -vv" "-uu -ub -v"; do
	for t in tcp_bw tcp_lat udp_bw udp_lat; do
		same_as_legacy names "report lines of -t 1 $o $t" -t 1 $o $t
	done
done
same_as_legacy names "report lines of -t 1 --loop msg_size:1:4K:*8 -vvu tcp_lat" \
	-t 1 --loop msg_size:1:4K:*8 -vvu tcp_lat
for o in "-f 1 -ap 2 -sl 3" "-ar1" "-sr 10 -cm1" "-a 1"; do
	same_as_legacy warns "warnings of -t 1 $o tcp_lat" -t 1 $o tcp_lat
done
# -cp1 makes our socket tests spin (docs/performance.md, "Socket fast
# paths"), so only 0.4.11's client says it is not used; every other
# warning is the same.
warns_but_cp1() {
	warns "$1" | sed 's/-cp1 set but not used in test udp_bw|//'
}
same_as_legacy warns_but_cp1 "warnings of -t 1 -i mlx5_0 -cp1 udp_bw (but -cp1)" \
	-t 1 -i mlx5_0 -cp1 udp_bw
if grep -q -- '-cp1 set but not used' "$T/z.theirs" &&
	! grep -q -- '-cp1 set but not used' "$T/z.ours"; then
	pass "-cp1 udp_bw: used by ours, unused in 0.4.11"
else
	fail "-cp1 udp_bw: used by ours, unused in 0.4.11" "$(cat "$T/z.ours")" \
		"--- 0.4.11:" "$(cat "$T/z.theirs")"
fi

# --- remote errors both ways ------------------------------------------------
X -t 1 -rca 5000 tcp_lat
expect "X: -rca 5000: server error on stderr, exit 1" 1 '' \
	'^qperf: server: cannot set processor affinity \(cpu 4999\): Invalid argument$'
[ "$(grep -c . "$ERR_FILE")" = 1 ] && pass "X: -rca 5000: one stderr line" ||
	fail "X: -rca 5000: one stderr line" "$(ctx)"
X -t 1 sctp_bw
expect "X: sctp_bw: 0.4.11's error shown as server:, exit 1" 1 '' \
	'^qperf: server: unable to make SCTP socket$'
X -t 1 -ip "$LEGACY_PORT" tcp_bw
expect "X: -ip busy port: 0.4.11's bind error shown as server:, exit 1" 1 '' \
	'^qperf: server: '
Y -t 1 -ip "$SERVER_PORT" tcp_bw
expect "Y: -ip busy port: our bind error reaches the 0.4.11 client, exit 1" 1

# The 0.4.11 client may print just "server: " because of its own race
# (spec §7 item 6: it reads the text once, without waiting).  Our server
# sends filler before the urgent byte and, where it may (chrt -f works),
# sends byte and text at real-time priority, so a 0.4.11 client on its CPU
# cannot preempt it in between.  Nothing in the guest can stop the host
# from stalling the server's vCPU between the two sends, though (CI saw
# that once in 24 tries), so each case is tried 20 times: pinned, at least
# 17 must show the reason (before the real-time sends a client on the
# server's CPU got it about 1 time in 20), and every other try 0.4.11's
# bare line.
RT_SENDS=
chrt -f 1 true 2>/dev/null && RT_SENDS=1
# reason_tries REGEX CMD...: run CMD, a 0.4.11 client that our server
# refuses, 20 times; full = exit 1 with the one stderr line REGEX, bare =
# exit 1 with 0.4.11's bare "server: ", other = anything else (kept).
reason_tries() {
	local re=$1 i
	shift
	full=0 bare=0 other=0
	: >"$T/y_other"
	for i in $(seq 20); do
		run "$@"
		if [ "$RC" = 1 ] && [ "$(grep -c . "$ERR_FILE")" = 1 ] &&
			has "$re" "$ERR_FILE"; then
			full=$((full + 1))
		elif [ "$RC" = 1 ] && [ "$ERR" = "server: " ]; then
			bare=$((bare + 1))
		else
			other=$((other + 1))
			{ echo "--- exit $RC:"; cat "$ERR_FILE"; } >>"$T/y_other"
		fi
	done
}
# judge_reason NAME MIN: at least MIN of the 20 showed the reason, and
# none anything but the reason or the bare line.
judge_reason() {
	if [ "$other" = 0 ] && [ "$full" -ge "$2" ]; then
		pass "Y: $1 ($full of 20 with the reason, $bare bare)"
	else
		fail "Y: $1 (at least $2 of 20 with the reason, nothing else)" \
			"full=$full bare=$bare other=$other" "$(cat "$T/y_other")"
	fi
}
# Unpinned, the scheduler decides where each end runs: CI saw 15 of 20
# there (cause not found; 200 of 200 on this project's machines), so the
# unpinned cases need the reason at least once and nothing else; the
# pinned cases below hold the 17.
rt_min=1
reason_tries '^server: cannot set processor affinity \(cpu 4999\): Invalid argument$' \
	"$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 1 -rca 5000 tcp_lat
judge_reason "-rca 5000: 0.4.11 client shows server: cannot set processor affinity..." $rt_min
reason_tries '^server: .*SDP' "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 1 sdp_lat
judge_reason "sdp_lat: 0.4.11 client shows our server's SDP error, exit 1" $rt_min
check_alive "our server still answers after the errors" "$SERVER_PORT" "$SERVER_PID"

# --- version mismatch texts ---------------------------------------------------
V() {
	run python3 "$PEER" client 127.0.0.1 "$1" "req:ver=$2" wait:5
}
V "$SERVER_PORT" 0.3.9
expect "our server to a 0.3.9 request: urgent '?' and 'upgrade qperf on client from 0.3.9 to 0.5.0'" 0 \
	"^reply after .* urgent=\\? eof=yes .* text='upgrade qperf on client from 0\\.3\\.9 to 0\\.5\\.0'\$"
V "$SERVER_PORT" 1.4.11
expect "our server to a 1.4.11 request: 'upgrade qperf on server from 0.5.0 to 1.4.11'" 0 \
	"^reply after .* urgent=\\? eof=yes .* text='upgrade qperf on server from 0\\.5\\.0 to 1\\.4\\.11'\$"
# The same script against 0.4.11 gives the texts of spec §2.3, which
# shows the script builds requests the way 0.4.11 reads them.
V "$LEGACY_PORT" 0.3.9
expect "0.4.11 server to the same 0.3.9 request (script check)" 0 \
	"text='upgrade qperf on client from 0\\.3\\.9 to 0\\.4\\.11'"
V "$LEGACY_PORT" 0.4.99
expect "0.4.11 server accepts 0.4.99 (script check: conf answered, no error)" 0 \
	"urgent=none"
V "$SERVER_PORT" 0.4.99
expect "our server accepts 0.4.99 like 0.4.11 (no upgrade error)" 0 \
	"urgent=none"

# Our client facing version errors from other servers (fake, python):
# a newer server asks to upgrade the client: shown, exit 1, no retry loop;
# a server that rejects even the legacy request: exit 1, bounded.
verr() {
	local pf=$T/ve.port
	rm -f "$pf"
	python3 "$PEER" error-server "$pf" "$1" >/dev/null 2>&1 &
	local vp=$!
	track_pid $vp
	wait_for 10 test -s "$pf"
	run -t 30 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -t 1 tcp_lat
	kill $vp 2>/dev/null
	wait $vp 2>/dev/null
}
verr "upgrade qperf on client from 0.5.0 to 0.6.0"
expect "newer server: 'server: upgrade qperf on client from 0.5.0 to 0.6.0', exit 1" 1 '' \
	'^qperf: server: upgrade qperf on client from 0\.5\.0 to 0\.6\.0$'
verr "upgrade qperf on server from 0.4.11 to 0.5.0"
[ "$RC" = 1 ] && has '^qperf: server: upgrade qperf on server' "$ERR_FILE" &&
	pass "server rejecting the legacy request too: exit 1, no endless retry" ||
	fail "server rejecting the legacy request too: exit 1, no endless retry" "$(ctx)"

# --- our legacy request, byte for byte ---------------------------------------
# 200 bytes as hex: ver 0.4.11, then fields; see spec §2.2.
hexreq() {
	python3 - "$@" <<'EOF'
import struct, sys
kw = dict(a.split("=") for a in sys.argv[1:])
names = ["access_recv", "affinity", "alt_port", "flip", "msg_size",
         "mtu_size", "no_msgs", "poll_mode", "port", "rd_atomic", "sl",
         "sock_buf_size", "src_path_bits", "time", "timeout", "use_cm"]
v = [int(kw.get(n, 0)) for n in names]
b = struct.pack("<4H", 0, 4, 11, int(kw["idx"])) + struct.pack("<16I", *v)
print((b + b"\0" * 128).hex())
EOF
}
# record CLIENT ARGS...: the 200 legacy bytes CLIENT sends, in $REC.
record() {
	local pf=$T/rec.port rf=$T/rec.hex
	rm -f "$pf" "$rf"
	python3 "$PEER" legacy-recorder "$pf" "$rf" >/dev/null 2>&1 &
	local rp=$!
	track_pid $rp
	REC=
	wait_for 10 test -s "$pf" || return
	timeout 10 "$1" 127.0.0.1 -lp "$(cat "$pf")" "${@:2}" >/dev/null 2>&1
	wait_for 5 pid_gone $rp
	REC=$(cat "$rf" 2>/dev/null)
}
bytes_check() {
	local name=$1 want=$2
	shift 2
	record "$QPERF" "$@"
	local ours=$REC
	record "$LEGACY_QPERF" "$@"
	local theirs=$REC
	if [ -n "$ours" ] && [ "$ours" = "$want" ]; then
		pass "legacy request bytes, $name: as spec §2.2"
	else
		fail "legacy request bytes, $name: as spec §2.2" \
			"ours:   $ours" "wanted: $want"
	fi
	if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then
		pass "legacy request bytes, $name: identical to 0.4.11's"
	else
		fail "legacy request bytes, $name: identical to 0.4.11's" \
			"ours:   $ours" "0.4.11: $theirs"
	fi
}
bytes_check "-t 1 tcp_lat" "$(hexreq idx=9 msg_size=1 time=1 timeout=5)" \
	-t 1 tcp_lat
bytes_check "conf" "$(hexreq idx=0 time=2 timeout=5)" conf
bytes_check "-t 3 -m 1400 -ip 5000 -rsb 1000 -ar1 -rca 2 -rto 9 udp_bw" \
	"$(hexreq idx=10 access_recv=1 affinity=2 msg_size=1400 port=5000 \
		sock_buf_size=1000 time=3 timeout=9)" \
	-t 3 -m 1400 -ip 5000 -rsb 1000 -ar1 -rca 2 -rto 9 udp_bw

# --- -vx against a 0.4.11 server: this end's figures only ------------------
# The server sends no histogram and no process CPU: the percentiles come
# from our own round trips (exactly n in count mode), no rem_proc lines.
X -n 300 -vx tcp_lat
expect "X: -vx -n 300 tcp_lat exit 0" 0 '' '^$'
check_vx "X: -vx -n 300 tcp_lat: our 300 round trips, no server CPU" 2 300 norem
X -t 1 -vx udp_lat
expect "X: -vx -t 1 udp_lat exit 0" 0 '' '^$'
check_vx "X: -vx -t 1 udp_lat: our round trips, no server CPU" 2 '' norem
# --- shared secret (--secret_file) ------------------------------------------------
# X: a client given a secret does not fall back to 0.4.11's dialect, which
# cannot carry it: it refuses the server with one line.  Y: our server with
# a secret refuses a 0.4.11 client with a reason 0.4.11 prints ("server:
# TEXT").  0.4.11 reads the text once, right after the urgent byte (spec
# §2.8): our server puts filler before that byte so the text has time to
# follow (a client on another CPU), and sends byte and text at real-time
# priority where it may (a client on the server's CPU); 20 tries each, as
# for the errors above.  Without that privilege a client on the server's
# CPU can print a bare "server: " (0.4.11's own race, with 0.4.11 servers
# too): then each try must show the reason or that bare line.
printf 'interop secret\n' >"$T/secret" && chmod 600 "$T/secret"
X -sf "$T/secret" -t 1 tcp_lat
expect "X: with --secret_file: the 0.4.11 server is refused, no fallback" 1 '' \
	'^qperf: a shared secret was given, but the server runs qperf 0\.4, which cannot check one; refusing to run tests with it$'
X -t 1 tcp_lat
expect "X: ... and without it the same server serves" 0 "$(L latency "$TIME")"
main_pid=$SERVER_PID main_port=$SERVER_PORT main_log=$SERVER_LOG
if [ "$(nproc)" -lt 2 ]; then
	fail "Y: the --secret_file refusal checks need 2 CPUs (nproc: $(nproc))"
elif start_server taskset -c 0 -- --secret_file "$T/secret"; then
	reason='server: this server requires a shared secret, which qperf 0\.4 clients cannot send; use a qperf 0\.5\.[0-9]+ client with --secret_file'
	reason_tries "^$reason\$" taskset -c 1 "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 1 tcp_lat
	judge_reason "0.4.11 client (CPU 1) vs our server with --secret_file (CPU 0): refused, exit 1, prints the reason" 17
	reason_tries "^$reason\$" taskset -c 0 "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 1 tcp_lat
	if [ -n "$RT_SENDS" ]; then
		judge_reason "... 0.4.11 client on the server's CPU (real-time sends)" 17
	else
		judge_reason "... 0.4.11 client on the server's CPU: the reason or 0.4.11's bare 'server: ' (no real-time priority here)" 0
	fi
	n=$(grep -c '^qperf: refused 127\.0\.0\.1: this server requires a shared secret, which qperf 0\.4 clients cannot send' "$SERVER_LOG")
	[ "$n" = 40 ] && pass "Y: ... the server logs each refusal" ||
		fail "Y: ... the server logs each refusal" "$n lines" "$(cat "$SERVER_LOG")"
	run "$LEGACY_QPERF" 127.0.0.1 -lp "$SERVER_PORT" quit
	[ "$RC" = 1 ] && ! pid_gone "$SERVER_PID" &&
		pass "Y: ... its quit is refused too (the server runs on)" ||
		fail "Y: ... its quit is refused too (the server runs on)" "$(ctx)"
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -sf "$T/secret" -t 0.3 tcp_lat quit
	expect "Y: ... and our client with the secret is served, and stops it" 0 \
		"$(L latency "$TIME")"
else
	fail "our server with --secret_file starts"
fi
SERVER_PID=$main_pid SERVER_PORT=$main_port SERVER_LOG=$main_log

# --- quit both ways -----------------------------------------------------------
X quit
expect "X: quit exit 0" 0 '^quit:$'
if wait_for 10 pid_gone "$LEGACY_PID"; then
	wait "$LEGACY_PID"
	st=$?
else
	st=running
fi
[ "$st" = 0 ] && pass "X: our quit stops the 0.4.11 server (exit 0)" ||
	fail "X: our quit stops the 0.4.11 server (exit 0)" "status $st"
has 'upgrade qperf on server from 0\.4\.11 to 0\.5\.0' "$LEGACY_LOG" &&
	pass "X: the 0.4.11 server saw (and rejected) our 0.5 requests first" ||
	fail "X: the 0.4.11 server saw (and rejected) our 0.5 requests first" \
		"$(cat "$LEGACY_LOG")"

Y quit
expect "Y: quit exit 0" 0 '^quit:$'
if wait_for 10 pid_gone "$SERVER_PID"; then
	wait "$SERVER_PID"
	st=$?
else
	st=running
fi
[ "$st" = 0 ] && pass "Y: 0.4.11's quit stops our server (exit 0)" ||
	fail "Y: 0.4.11's quit stops our server (exit 0)" "status $st"

# --- the RDMA tests' report layouts, over softverbs ------------------------------
. "$(dirname "$0")/rdma.sh"

finish
