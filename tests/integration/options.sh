#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests, options (verbosity and units, --loop, -n, -t,
# parameters, -vx): our client against our server. Runs alone (bash
# tests/integration/options.sh) or as tests/run.sh integration:options;
# tests/integration/common.sh has the shared set-up and helpers.

. "$(dirname "$0")/common.sh"

integration_server

# --- verbosity and unit options (spec §5.11) -------------------------------
C -t 1 -v tcp_bw
expect "-v tcp_bw exit 0" 0
match_lines "-v tcp_bw layout" "$OUT_FILE" 'tcp_bw:' "$(L bw "$BW")" \
	"$(L msg_rate "$RATE")" "$(L time '1 sec')" "$(L send_cost "$COST")" \
	"$(L recv_cost "$COST")" "$(L send_cpus_used "$CPUS")" \
	"$(L recv_cpus_used "$CPUS")"
aligned "-v tcp_bw aligned"

SR_T="cpus_used cpus_user cpus_intr cpus_kernel cpus_iowait real_time cpu_time"
SR_S="errors bytes msgs max_cqe"
full="bw msg_rate msg_size time timeout send_cost recv_cost"
for w in $SR_T $SR_S; do full="$full send_$w"; done
for w in $SR_T $SR_S; do full="$full recv_$w"; done
C -t $TT -vv tcp_bw
expect "-vv tcp_bw exit 0" 0
names_in_order "-vv tcp_bw lines (spec order)" "$full" \
	"bw msg_rate msg_size time timeout send_cost recv_cost send_cpus_used
	 send_real_time send_cpu_time send_bytes send_msgs recv_cpus_used
	 recv_real_time recv_cpu_time recv_bytes recv_msgs"
aligned "-vv tcp_bw aligned"
if has "$(L msg_size '64 KiB \(65,536\)')" && has "$(L timeout '5 sec')" &&
	has "$(L send_msgs "$CNT")\$"; then
	pass "-vv tcp_bw msg_size 64 KiB, timeout 5 sec, count with trailing space"
else
	fail "-vv tcp_bw msg_size 64 KiB, timeout 5 sec, count with trailing space" "$(ctx)"
fi

LR_T="cpus_used cpus_user cpus_intr cpus_kernel cpus_iowait real_time cpu_time"
LR_S="send_errors recv_errors send_bytes recv_bytes send_msgs recv_msgs max_cqe"
full="latency msg_rate msg_size time timeout"
for w in $LR_T $LR_S; do full="$full loc_$w"; done
for w in $LR_T $LR_S; do full="$full rem_$w"; done
C -t $TT -vv tcp_lat
expect "-vv tcp_lat exit 0" 0
names_in_order "-vv tcp_lat lines (loc/rem, spec order)" "$full" \
	"latency msg_rate msg_size time timeout loc_cpus_used loc_real_time
	 loc_cpu_time loc_send_bytes loc_recv_bytes loc_send_msgs loc_recv_msgs
	 rem_cpus_used rem_real_time rem_cpu_time rem_send_bytes rem_recv_bytes
	 rem_send_msgs rem_recv_msgs"
has "$(L msg_size '1 bytes')" && pass "-vv tcp_lat msg_size 1 bytes" ||
	fail "-vv tcp_lat msg_size 1 bytes" "$(ctx)"

C -t $TT -vs tcp_bw
expect "-vs tcp_bw exit 0" 0
match_lines "-vs tcp_bw layout" "$OUT_FILE" 'tcp_bw:' "$(L bw "$BW")" \
	"$(L msg_rate "$RATE")"
C -t $TT -vt tcp_bw
expect "-vt tcp_bw exit 0" 0
match_lines "-vt tcp_bw layout" "$OUT_FILE" 'tcp_bw:' "$(L bw "$BW")" \
	"$(L send_cost "$COST")" "$(L recv_cost "$COST")" \
	"$(L send_cpus_used "$CPUS")" "$(L recv_cpus_used "$CPUS")"
C -t $TT -vvs tcp_bw
expect "-vvs tcp_bw exit 0" 0
match_lines "-vvs tcp_bw layout" "$OUT_FILE" 'tcp_bw:' "$(L bw "$BW")" \
	"$(L msg_rate "$RATE")" "$(L send_bytes "$SIZE")" \
	"$(L send_msgs "$CNT")" "$(L recv_bytes "$SIZE")" \
	"$(L recv_msgs "$CNT")"
C -t 1 -vu tcp_lat
expect "-vu tcp_lat exit 0" 0
match_lines "-vu tcp_lat layout (only user-set params)" "$OUT_FILE" \
	'tcp_lat:' "$(L latency "$TIME")" "$(L time '1 sec')"
C -t 1 -m 3K -vvu tcp_lat
expect "-vvu tcp_lat exit 0" 0
match_lines "-m 3K -vvu tcp_lat layout" "$OUT_FILE" 'tcp_lat:' \
	"$(L latency "$TIME")" "$(L msg_size '3 KiB \(3,072\)')" \
	"$(L time '1 sec')" "$(L timeout '5 sec')"
C -t 1 -uu tcp_bw
expect "-uu tcp_bw exit 0" 0
match_lines "-uu tcp_bw layout (bytes/sec, no commas)" "$OUT_FILE" \
	'tcp_bw:' "$(L bw '[1-9][0-9]* bytes/sec')"
C -t 1 -vv -uu tcp_bw
expect "-vv -uu tcp_bw exit 0" 0
if has "$(L msg_size '65536 bytes')" && has "$(L time '1000000000 ns')" &&
	has "$(L timeout '5000000000 ns')" && ! has '[0-9],[0-9]'; then
	pass "-vv -uu tcp_bw: unscaled sizes and times, no commas"
else
	fail "-vv -uu tcp_bw: unscaled sizes and times, no commas" "$(ctx)"
fi
C -t $TT -ub tcp_bw
expect "-ub tcp_bw exit 0" 0
match_lines "-ub tcp_bw layout (bits)" "$OUT_FILE" 'tcp_bw:' "$(L bw "$BWB")"
C -t $TT -ub -v udp_bw
expect "-ub -v udp_bw exit 0" 0
has "$(L send_bw "$BWB")" && has "$(L recv_bw "$BWB")" &&
	pass "-ub -v udp_bw send_bw/recv_bw in bits" ||
	fail "-ub -v udp_bw send_bw/recv_bw in bits" "$(ctx)"
C -t 1 -un -v tcp_bw
expect "-un -v tcp_bw exit 0" 0
match_lines "-un -v tcp_bw layout (loc/rem naming)" "$OUT_FILE" 'tcp_bw:' \
	"$(L bw "$BW")" "$(L msg_rate "$RATE")" "$(L time '1 sec')" \
	"$(L send_cost "$COST")" "$(L recv_cost "$COST")" \
	"$(L loc_cpus_used "$CPUS")" "$(L rem_cpus_used "$CPUS")"
# Trailing zeros are stripped, so "at most P significant digits"; with
# P=8 at least 6 remain unless 3 trailing zeros come up (1 in 1000).
C -t $TT -e 5 tcp_bw
expect "-e 5 tcp_bw exit 0" 0
match_lines "-e 5 tcp_bw: at most 5 significant digits" "$OUT_FILE" 'tcp_bw:' \
	"$(L bw '([0-9](\.[0-9]{1,4})?|[0-9]{2}(\.[0-9]{1,3})?|[0-9]{3}(\.[0-9]{1,2})?) (bytes|KB|MB|GB|TB)/sec')"
C -t $TT -e 8 tcp_lat
expect "-e 8 tcp_lat exit 0" 0
match_lines "-e 8 tcp_lat: 6 to 8 significant digits" "$OUT_FILE" 'tcp_lat:' \
	"$(L latency '([0-9]\.[0-9]{5,7}|[0-9]{2}\.[0-9]{4,6}|[0-9]{3}\.[0-9]{3,5}) (ns|us|ms)')"
C -t $TT -e 0 -v tcp_lat
expect "-e 0 -v tcp_lat exit 0 (0.4.11 accepts -e 0; docs/bugs-found.md #1)" 0
if has "$(L latency '[0-9,]+ (ns|us|ms)')" && ! has '[0-9]\.[0-9]'; then
	pass "-e 0: no fractions"
else
	fail "-e 0: no fractions" "$(ctx)"
fi
C -t $TT -v udp_bw
expect "-v udp_bw exit 0" 0
match_lines "-v udp_bw layout" "$OUT_FILE" 'udp_bw:' "$(L send_bw "$BW")" \
	"$(L recv_bw "$BW")" "$(L msg_rate "$RATE")" "$(L time '300 ms')" \
	"$(L send_cost "$COST")" "$(L recv_cost "$COST")" \
	"$(L send_cpus_used "$CPUS")" "$(L recv_cpus_used "$CPUS")"
C -t $TT -v udp_lat
expect "-v udp_lat exit 0" 0
match_lines "-v udp_lat layout" "$OUT_FILE" 'udp_lat:' \
	"$(L latency "$TIME")" "$(L msg_rate "$RATE")" "$(L time '300 ms')" \
	"$(L loc_cpus_used "$CPUS")" "$(L rem_cpus_used "$CPUS")"
C -t $TT -un -vv udp_bw
expect "-un -vv udp_bw exit 0" 0
if has "$(L loc_send_msgs "$CNT")" && has "$(L rem_recv_msgs "$CNT")" &&
	! has '^    send_msgs' && ! has 'loc_recv_msgs'; then
	pass "-un -vv udp_bw: loc_send_*, rem_recv_*"
else
	fail "-un -vv udp_bw: loc_send_*, rem_recv_*" "$(ctx)"
fi

# --- --loop ---------------------------------------------------------------
C -t $TT --loop msg_size:1:64K:*4 -vu tcp_lat
expect "--loop msg_size:1:64K:*4 exit 0" 0
want=()
for s in '1 bytes' '4 bytes' '16 bytes' '64 bytes' '256 bytes' \
	'1 KiB \(1,024\)' '4 KiB \(4,096\)' '16 KiB \(16,384\)' \
	'64 KiB \(65,536\)'; do
	want+=('tcp_lat:' "$(L latency "$TIME")" "$(L msg_size "$s")" \
		"$(L time '300 ms')")
done
match_lines "--loop runs 9 tests with msg_size 1..64K" "$OUT_FILE" "${want[@]}"
C -t $TT -oo msg_size:1K:3K:+1K -vu udp_lat
expect "-oo msg_size:1K:3K:+1K exit 0" 0
[ "$(count_lines '^udp_lat:$')" = 3 ] &&
	has "$(L msg_size '2 KiB \(2,048\)')" &&
	pass "-oo +1K runs 3 tests (1K 2K 3K)" ||
	fail "-oo +1K runs 3 tests (1K 2K 3K)" "$(ctx)"

# --- -n: count-based runs -------------------------------------------------
C -n 1000 -vvs tcp_bw
expect "-n 1000 tcp_bw exit 0" 0
has "$(L send_msgs '1,000 ')\$" && has "$(L recv_msgs '1,000 ')\$" &&
	pass "-n 1000 tcp_bw sends and receives exactly 1000" ||
	fail "-n 1000 tcp_bw sends and receives exactly 1000" "$(ctx)"
C -n 1000 -vvs tcp_lat
expect "-n 1000 tcp_lat exit 0" 0
has "$(L loc_send_msgs '1,000 ')\$" && has "$(L loc_recv_msgs '1,000 ')\$" &&
	has "$(L rem_send_msgs '1,000 ')\$" &&
	has "$(L rem_recv_msgs '1,000 ')\$" &&
	pass "-n 1000 tcp_lat: exactly 1000 each way" ||
	fail "-n 1000 tcp_lat: exactly 1000 each way" "$(ctx)"
C -n 1000 -vvs udp_bw
expect "-n 1000 udp_bw exit 0" 0
has "$(L send_msgs '1,000 ')\$" && has "$(L recv_msgs "$CNT")" &&
	pass "-n 1000 udp_bw sends exactly 1000 (receiver may lose some)" ||
	fail "-n 1000 udp_bw sends exactly 1000 (receiver may lose some)" "$(ctx)"
C -n 1000 -vvs udp_lat
expect "-n 1000 udp_lat exit 0" 0
has "$(L loc_send_msgs '1,000 ')\$" && has "$(L rem_recv_msgs '1,000 ')\$" &&
	pass "-n 1000 udp_lat: exactly 1000" ||
	fail "-n 1000 udp_lat: exactly 1000" "$(ctx)"

# --- fractional time ------------------------------------------------------
C -t 0.3 -vvt tcp_bw
expect "-t 0.3 exit 0" 0
rt=$(sed -n 's/^    send_real_time *  =  *\([0-9.]*\) ms$/\1/p' "$OUT_FILE")
if [ -n "$rt" ] && awk -v t="$rt" 'BEGIN { exit !(t >= 280 && t <= 400) }'; then
	pass "-t 0.3 runs for about 300 ms ($rt ms)"
else
	fail "-t 0.3 runs for about 300 ms" "$(ctx)"
fi
# Time units are s, m, h and d (spec §4); "ms" is not one of them.
C -t 300ms tcp_lat
expect "-t 300ms: usage error naming the value" 2 '^$' '^qperf: -t: 300ms: '
C -t 0.005m -vu tcp_lat
expect "-t 0.005m: fractional minutes (300 ms)" 0 "$(L time '300 ms')"

# --- parameters that change the test --------------------------------------
C -t $TT -m 1536K -vv tcp_lat
expect "-m 1536K tcp_lat exit 0" 0 "$(L msg_size '1\.57 MB')"
C -t $TT -m 1536K -vvs tcp_bw
expect "-m 1536K tcp_bw exit 0" 0
b=$(sed -n 's/^    send_bytes *  =  *\(.*\)$/\1/p' "$OUT_FILE")
m=$(sed -n 's/^    send_msgs *  =  *\([0-9,]*\) $/\1/p' "$OUT_FILE" | tr -d ,)
if [ -n "$m" ] && [ "$m" -gt 0 ]; then
	pass "-m 1536K tcp_bw sent $m msgs ($b)"
else
	fail "-m 1536K tcp_bw sent msgs" "$(ctx)"
fi
C -t $TT -m 65507 -vu udp_bw
expect "-m 65507 udp_bw (largest IPv4 datagram)" 0 "$(L msg_size '65\.5 KB')"
C -t $TT -m 65508 udp_bw
# A value checked locally is a usage error, before anything runs.
expect "-m 65508 udp_bw: usage error naming -m, exit 2" 2 '^$' \
	'^qperf: -m: 65508: larger than a udp_bw datagram can carry \(65507 bytes\)$'
C -t $TT -sb 64K -vu tcp_bw
expect "-sb 64K tcp_bw" 0 "$(L sock_buf_size '64 KiB \(65,536\)')"
C -t $TT -sb 64K -vu udp_bw
expect "-sb 64K udp_bw" 0 "$(L sock_buf_size '64 KiB \(65,536\)')"
C -t $TT -lsb 64K -rsb 128K -vu tcp_lat
expect "-lsb/-rsb differ: loc_/rem_ lines" 0 \
	"$(L rem_sock_buf_size '128 KiB \(131,072\)')"
ip_port=$(free_port)
C -t $TT -ip "$ip_port" -vu tcp_bw
expect "-ip $ip_port tcp_bw" 0 "$(L port "$(commas "$ip_port") ")"
C -t $TT -ip "$ip_port" udp_lat
expect "-ip $ip_port udp_lat" 0 "$(L latency "$TIME")"
# The data port really is the one asked for: a port already in use (our
# own server's listen port) cannot be bound for the data socket.
C -t $TT -ip "$SERVER_PORT" tcp_bw
expect "-ip busy port: server reports the bind failure" 1 '' \
	"^qperf: server: .*$SERVER_PORT.*([Aa]ddress already in use)"
C -t $TT -ar1 -vu udp_bw
expect "-ar1 udp_bw" 0 "$(L access_recv '1 ')"
C -t $TT -ar1 tcp_bw
expect "-ar1 tcp_bw" 0 "$(L bw "$BW")"
C -t $TT -ca 1 -vu tcp_lat
expect "-ca 1 tcp_lat" 0 "$(L affinity '1 ')"
C -t $TT -lca 1 -rca 2 -vu tcp_lat
expect "-lca 1 -rca 2: loc_/rem_affinity" 0 "$(L rem_affinity '2 ')"
C -t $TT -to 3 -vu tcp_lat
expect "-to 3 shown as timeout" 0 "$(L timeout '3 sec')"

# --- -vx: latency percentiles and process CPU --------------------------------
# Count mode: both ends time their round trips; the server's first message
# answers nothing, so a 0.5 pair gives 2n - 1 samples.
for t in tcp_lat udp_lat; do
	C -n 500 -vx $t
	expect "-vx -n 500 $t exit 0" 0 '' '^$'
	check_vx "-vx -n 500 $t: percentiles, rtt, both ends merged, process CPU" 2 999
	C -t $TT -vx $t
	expect "-vx -t $TT $t exit 0" 0 '' '^$'
	check_vx "-vx -t $TT $t: percentiles, rtt, process CPU" 2
	# The histogram's mean and 0.4.11's mean measure the same round trips.
	l=$(vx_ns latency) m=$(vx_ns latency_mean)
	[ "$m" -le $((l * 11 / 10)) ] && [ "$m" -ge $((l / 2)) ] &&
		pass "-vx $t: latency_mean $m ns close to latency $l ns" ||
		fail "-vx $t: latency_mean $m ns close to latency $l ns" "$(ctx)"
	# -vx comes after 0.4.11's lines and changes none of them.
	C -t $TT -vx -vv $t
	expect "-vx -vv $t exit 0" 0
	first=$(awk '$2 == "=" { print $1 }' "$OUT_FILE" | grep -n -m1 '^latency_samples$' | cut -d: -f1)
	last=$(awk '$2 == "=" { print $1 }' "$OUT_FILE" | grep -n '_recv_msgs$' | tail -n 1 | cut -d: -f1)
	[ -n "$first" ] && [ -n "$last" ] && [ "$first" -gt "$last" ] &&
		pass "-vx -vv $t: the new lines follow 0.4.11's" ||
		fail "-vx -vv $t: the new lines follow 0.4.11's" "$(ctx)"
done
# --loop: each iteration has its own figures.
C -t 0.2 -vx -oo msg_size:1:4:*2 tcp_lat
expect "-vx --loop tcp_lat exit 0" 0
[ "$(grep -c '^    latency_p99 ' "$OUT_FILE")" = 3 ] &&
	[ "$(grep -c '^    rtt_p99.99 ' "$OUT_FILE")" = 3 ] &&
	[ "$(grep -c '^    rem_proc_sys ' "$OUT_FILE")" = 3 ] &&
	pass "-vx --loop tcp_lat: percentiles and CPU for each of 3 sizes" ||
	fail "-vx --loop tcp_lat: percentiles and CPU for each of 3 sizes" "$(ctx)"
C -n 200 -vx -oo msg_size:1:4:*2 udp_lat
check_vx "-vx -n 200 --loop udp_lat: first iteration" 2 399
[ "$(grep -Ec '^    latency_samples +=  +399 $' "$OUT_FILE")" = 3 ] &&
	pass "-vx -n 200 --loop udp_lat: 399 samples in each of 3 iterations" ||
	fail "-vx -n 200 --loop udp_lat: 399 samples in each of 3 iterations" "$(ctx)"
# A bandwidth test: process CPU and cost per message, no percentiles.
C -t $TT -vx tcp_bw
expect "-vx tcp_bw: process CPU, cost per message, no latency lines" 0 \
	"$(L send_cost_msg "$POS (ns|us|ms|sec)/msg")"
grep -q '^    loc_proc_sys ' "$OUT_FILE" && ! grep -q '^    latency' "$OUT_FILE" &&
	pass "-vx tcp_bw: loc_proc_sys, no latency_* lines" ||
	fail "-vx tcp_bw: loc_proc_sys, no latency_* lines" "$(ctx)"
# Not implied by -v or -vv.
for v in -v -vv; do
	C -t $TT $v tcp_lat
	! grep -Eq '^    (latency_|rtt_|loc_proc|rem_proc)' "$OUT_FILE" &&
		pass "$v tcp_lat: no -vx lines" || fail "$v tcp_lat: no -vx lines" "$(ctx)"
done

finish
