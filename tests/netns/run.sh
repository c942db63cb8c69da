#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Accuracy in two network namespaces joined by a veth pair.
#
# The server runs in namespace S (10.77.0.1), the client in namespace C
# (10.77.0.2).  A `tc tbf` rate limit on the client's veth (the sending
# side of tcp_bw and udp_bw) gives a known bandwidth; the reported tcp_bw
# and the receiver-side udp_bw figure (recv_bw) must be within 10% of it
# (of the payload share of it: see EFF_TCP and EFF_UDP below).  The
# ceiling qperf derives from the veth's sysfs speed is checked once.
# An unshaped run first shows the link is much faster than the limit, so
# the limit, not the machine, sets the figure.  At the first rate the same
# is checked for 0.4.11's client against our server (its figures come from
# our legacy STAT) and for our client against a 0.4.11 server.
#
# The machines here are small (2 vCPUs) and shared, so a shaped run can
# fall short when other work steals the CPU; a figure outside the
# tolerance is measured once more and both attempts are shown.  Rates of
# 100 and 50 Mbit/s leave the CPUs idle enough for the shaper to keep time
# (at 200 Mbit/s tbf itself delivered 82-97% here, as the veth rx counters
# confirmed, whatever tool measured it).
#
# Then, through a 5 KB tbf queue, tcp_bw's retransmits are counted on the
# sending client's end and not on the server's (issue 18 item 5).
#
# Usage: bash tests/netns/run.sh   (needs root and iproute2; RATES="100 50"
# Mbit/s and TT=3 seconds per test can be overridden)

. "$(dirname "$0")/../lib.sh"

RATES=${RATES:-"100 50"}
TT=${TT:-3}
TOL=10 # percent

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
	fail "root, ip and tc (iproute2) are available"
	finish
fi

NS_S=qperf-s-$$
NS_C=qperf-c-$$
VS=qps$$
VC=qpc$$
at_exit "ip netns del $NS_S"
at_exit "ip netns del $NS_C"

setup() {
	ip netns add "$NS_S" &&
		ip netns add "$NS_C" &&
		ip link add "$VS" type veth peer name "$VC" &&
		ip link set "$VS" netns "$NS_S" &&
		ip link set "$VC" netns "$NS_C" &&
		ip -n "$NS_S" addr add 10.77.0.1/24 dev "$VS" &&
		ip -n "$NS_C" addr add 10.77.0.2/24 dev "$VC" &&
		ip -n "$NS_S" link set lo up &&
		ip -n "$NS_C" link set lo up &&
		ip -n "$NS_S" link set "$VS" up &&
		ip -n "$NS_C" link set "$VC" up
}
if setup 2>"$T/setup.err"; then
	pass "two namespaces joined by veth ($NS_S $VS 10.77.0.1, $NS_C $VC 10.77.0.2)"
else
	fail "two namespaces joined by veth" "$(cat "$T/setup.err")"
	ip link del "$VS" 2>/dev/null
	finish
fi

if ! start_server ip netns exec "$NS_S" --; then
	fail "server starts in $NS_S" "$(cat "$SERVER_LOG")"
	finish
fi
pass "server listens in $NS_S on port $SERVER_PORT"

CL=$QPERF # the client binary
C() {
	run -t 30 ip netns exec "$NS_C" "$CL" 10.77.0.1 -lp "$SERVER_PORT" "$@"
}
# bits_of NAME: the figure of "NAME = N bits/sec" (-ub -uu output).
bits_of() {
	sed -n "s/^    $1 *  =  *\\([0-9]*\\) bits\\/sec\$/\\1/p" "$OUT_FILE" | head -n 1
}
# tbf meters whole frames (Ethernet header included) while qperf reports
# payload, so the payload rate the limit allows is RATE x payload/frame:
# TCP 1448/1514 (MSS with timestamps in a 1500 MTU), UDP -m 1400:
# 1400/(1400+8+20+14).
EFF_TCP=$(awk 'BEGIN { print 1448 / 1514 }')
EFF_UDP=$(awk 'BEGIN { print 1400 / 1442 }')

# measure NAME FIELD RATE EFF ARGS...: run the client with -ub -uu ARGS;
# FIELD must be within TOL% of RATE x EFF Mbit/s, on the first or a second
# attempt.  The percentage of the raw configured rate is shown as well.
measure() {
	local name=$1 field=$2 mbit=$3 eff=$4
	shift 4
	local tries=() got pct raw i
	for i in 1 2; do
		C -ub -uu "$@"
		got=$(bits_of "$field")
		if [ "$RC" != 0 ] || [ -z "$got" ]; then
			fail "$name" "no figure" "$(ctx)"
			return
		fi
		pct=$(awk -v g="$got" -v r="$mbit" -v e="$eff" 'BEGIN { printf "%.1f", 100 * g / (r * e * 1e6) }')
		raw=$(awk -v g="$got" -v r="$mbit" 'BEGIN { printf "%.1f", 100 * g / (r * 1e6) }')
		tries+=("$(awk -v g="$got" 'BEGIN { printf "%.1f", g / 1e6 }') Mbit/s = $pct% of payload rate ($raw% of $mbit Mbit/s)")
		if awk -v p="$pct" -v t="$TOL" 'BEGIN { exit !(p >= 100 - t && p <= 100 + t) }'; then
			pass "$name: ${tries[*]}"
			return
		fi
	done
	fail "$name: outside ±$TOL% twice: ${tries[*]}" "$(ctx)"
}

# Sanity across the namespaces.
C conf
expect "conf across namespaces" 0 '^    rem_qperf  =  0\.5'
C -t 0.5 tcp_lat udp_lat
[ "$RC" = 0 ] && [ "$(count_lines '^    latency  =  ')" = 2 ] &&
	pass "tcp_lat and udp_lat across namespaces" ||
	fail "tcp_lat and udp_lat across namespaces" "$(ctx)"

# The ceiling of a socket test (docs/ceiling.md): the speed of the
# interface the data connection uses, from sysfs.  A veth has no device
# behind it: its 10000 Mb/s is nominal (it carries more), so it is no
# limit and the report says why.  The same interface planted as a 10 Gb/s
# NIC (softverbs/sysfs-plant, read through SYSFS_PATH) is one: TCP at MTU
# 1500 carries 1448 of 1538 bytes, 1.177 GB/s, named as the client's.
C -t 0.3 -vx tcp_bw
expect "tcp_bw -vx over a veth: no ceiling, the virtual interface named" 0 \
	"^    bw_ceiling +=  none \\(virtual interface $VC of the client: its speed is nominal, not a limit\\)\$"
has '^    bw_efficiency ' && fail "tcp_bw -vx over a veth: no bw_efficiency" "$(ctx)" ||
	pass "tcp_bw -vx over a veth: no bw_efficiency"
# The advertised link modes (ethtool): a veth advertises none, so no
# figure and no link_speed finding at either end.
C -t 0.3 --json tcp_bw
json_assert "tcp_bw --json over a veth: no advertised speed (ethtool), no finding" \
	"all(R['ceiling']['inputs'][e]['netdev'] and R['ceiling']['inputs'][e]['netdev_advertised_Mbps'] is None for e in ('client', 'server')) and T0['findings'] == []"
"$LIB_ROOT/softverbs/sysfs-plant" "$T/nic" --link-layer eth --netdev "$VC" \
	--net-speed 10000 --net-mtu 1500 >/dev/null ||
	fail "sysfs-plant: a tree with $VC as a 10 Gb/s NIC"
run -t 30 ip netns exec "$NS_C" env SYSFS_PATH="$T/nic" "$CL" 10.77.0.1 \
	-lp "$SERVER_PORT" -t 0.3 -vx tcp_bw
expect "tcp_bw -vx, $VC planted as a 10 Gb/s NIC: the ceiling is its 10000 Mb/s, named" 0 \
	"^    bw_ceiling +=  1\\.18 GB/sec \\(10000 Mb/s interface of the client \\($VC\\) at MTU 1500\\)\$"
has '^    bw_efficiency +=  [0-9.]+%$' &&
	pass "tcp_bw -vx, planted NIC: bw_efficiency" ||
	fail "tcp_bw -vx, planted NIC: bw_efficiency" "$(ctx)"

# Unshaped: the link is far faster than the limits below.
C -t 1 -ub -uu tcp_bw
free_bits=$(bits_of bw)
max=$(echo $RATES | tr ' ' '\n' | sort -n | tail -n 1)
if [ "$RC" = 0 ] && [ -n "$free_bits" ] &&
	awk -v g="$free_bits" -v r="$max" 'BEGIN { exit !(g > 2 * r * 1e6) }'; then
	pass "unshaped tcp_bw ($((free_bits / 1000000)) Mbit/s) is over twice the largest limit"
else
	fail "unshaped tcp_bw is over twice the largest limit (${max} Mbit/s)" "$(ctx)"
fi

for rate in $RATES; do
	tc -n "$NS_C" qdisc del dev "$VC" root 2>/dev/null
	if ! tc -n "$NS_C" qdisc add dev "$VC" root tbf rate "${rate}mbit" \
		burst 64kb latency 50ms 2>"$T/tc.err"; then
		fail "tc tbf ${rate}mbit on $VC" "$(cat "$T/tc.err")"
		continue
	fi
	pass "tc tbf rate ${rate}mbit burst 64kb latency 50ms on $VC (client egress)"

	measure "tcp_bw at ${rate}mbit" bw "$rate" "$EFF_TCP" -t "$TT" tcp_bw
	measure "udp_bw -m 1400 recv_bw at ${rate}mbit" recv_bw "$rate" \
		"$EFF_UDP" -t "$TT" -m 1400 udp_bw
	s=$(bits_of send_bw)
	r=$(bits_of recv_bw)
	# each end divides by its own window: the receiver's may be the
	# shorter by a little (seen: recv 0.14% above send), never by 1%
	[ -n "$s" ] && [ -n "$r" ] && [ $((s * 101)) -ge $((r * 100)) ] &&
		pass "udp_bw at ${rate}mbit: recv_bw at most 1% above send_bw" ||
		fail "udp_bw at ${rate}mbit: recv_bw at most 1% above send_bw" "$(ctx)"
	if [ "$rate" = "${RATES%% *}" ] && [ -x "$LEGACY_QPERF" ]; then
		# 0.4.11's client computes these from our server's legacy STAT
		# (tick times, receive counts): they must be as accurate.
		CL=$LEGACY_QPERF
		measure "0.4.11 client, tcp_bw at ${rate}mbit" bw "$rate" \
			"$EFF_TCP" -t "$TT" tcp_bw
		measure "0.4.11 client, udp_bw -m 1400 recv_bw at ${rate}mbit" \
			recv_bw "$rate" "$EFF_UDP" -t "$TT" -m 1400 udp_bw
		CL=$QPERF
		# Our client against a 0.4.11 server in the server namespace
		# (its own namespace: the default port 19765 is free there).
		ip netns exec "$NS_S" "$LEGACY_QPERF" >"$T/legacy.log" 2>&1 </dev/null &
		LPID=$!
		track_pid $LPID
		legacy_listens() {
			ip netns exec "$NS_S" ss -ltnH 'sport = :19765' | grep -q LISTEN
		}
		if wait_for 10 legacy_listens; then
			SP=$SERVER_PORT
			SERVER_PORT=19765
			measure "our client -> 0.4.11 server, tcp_bw at ${rate}mbit" \
				bw "$rate" "$EFF_TCP" -t "$TT" tcp_bw
			measure "our client -> 0.4.11 server, udp_bw -m 1400 recv_bw at ${rate}mbit" \
				recv_bw "$rate" "$EFF_UDP" -t "$TT" -m 1400 udp_bw
			C quit
			SERVER_PORT=$SP
			wait_for 10 pid_gone $LPID &&
				pass "0.4.11 server in $NS_S stops on our quit" ||
				fail "0.4.11 server in $NS_S stops on our quit"
		else
			fail "0.4.11 server listens in $NS_S"
		fi
	fi
done
tc -n "$NS_C" qdisc del dev "$VC" root 2>/dev/null

# Counters (issue 18 item 5): a queue too small for TCP's bursts drops
# packets, so the sender (the client) retransmits; the receiving server
# sends nothing to retransmit.  Both are shown on their own end.
if tc -n "$NS_C" qdisc add dev "$VC" root tbf rate 50mbit burst 5kb \
	latency 5ms 2>"$T/tc.err"; then
	C -t 1 --json tcp_bw
	if [ "$RC" = 0 ] && json_need; then
		json_assert "tcp_bw through a 5 KB tbf queue: the client's retransmits > 0, the server's 0" \
			"R['counters']['client']['values']['tcp_retrans'] > 0 and R['counters']['server']['values']['tcp_retrans'] == 0"
	else
		fail "tcp_bw through a 5 KB tbf queue --json: exit 0" "$(ctx)"
	fi
	C -t 1 -vx tcp_bw
	expect "tcp_bw through a 5 KB tbf queue -vx: loc_tcp_retrans > 0" 0 \
		'^    loc_tcp_retrans +=  +[1-9][0-9,]* $'
	tc -n "$NS_C" qdisc del dev "$VC" root 2>/dev/null
else
	fail "tc tbf rate 50mbit burst 5kb latency 5ms on $VC" "$(cat "$T/tc.err")"
fi

# The server stops on quit from the other namespace.
run -t 15 ip netns exec "$NS_C" "$QPERF" 10.77.0.1 -lp "$SERVER_PORT" quit
if wait_for 10 pid_gone "$SERVER_PID"; then
	wait "$SERVER_PID"
	st=$?
	[ "$st" = 0 ] && pass "quit from $NS_C stops the server (exit 0)" ||
		fail "quit from $NS_C stops the server (exit 0)" "status $st"
else
	fail "quit from $NS_C stops the server (exit 0)" "still running"
fi

finish
