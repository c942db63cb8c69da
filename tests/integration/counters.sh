#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loss and error counters of both ends (issue 18 item 5) on loopback:
# tcp_bw -vx shows both ends' TCP_INFO lines after 0.4.11's and the
# default layout stays 0.4.11's; JSON carries a counters object for both
# ends (per stream with --streams, adding up); the client's loopback
# retransmits are only the spurious kind (each a D-SACK); udp_bw into a
# 4 KiB receive buffer reports the server socket's drops; a qperf 0.4.11
# server: the local side only, and said.
#
# Usage: bash tests/integration/counters.sh   (QPERF=... overrides)

. "$(dirname "$0")/../lib.sh"
TT=${TT:-0.3}

start_server || { fail "our server starts"; finish; }
PORT=$SERVER_PORT
pass "server listens on $PORT"

Q() {
	run "$QPERF" 127.0.0.1 -lp "$PORT" -t "$TT" "$@"
}

N='[0-9][0-9,]*'
Q -vx tcp_bw
expect "tcp_bw -vx: both ends' counters after the -vx lines" 0 \
	"^    loc_counters +=  tcp \(socket: this test's\)$"
for l in loc_tcp_retrans loc_tcp_dsack_dups loc_tcp_rtt_us loc_tcp_snd_cwnd \
	rem_counters rem_tcp_retrans rem_tcp_lost rem_tcp_busy_us; do
	has "^    $l +=  +($N|tcp .*)" || fail "tcp_bw -vx: $l line" "$(ctx)"
done
a=$(grep -n '^    bw_ceiling ' "$OUT_FILE" | cut -d: -f1) # the last other -vx line
b=$(grep -n '^    loc_counters ' "$OUT_FILE" | cut -d: -f1)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] &&
	pass "tcp_bw -vx: counter lines come after 0.4.11's and the other -vx lines" ||
	fail "tcp_bw -vx: counter lines come after 0.4.11's and the other -vx lines" "$(ctx)"

Q -v tcp_bw
expect "tcp_bw -v: no counter line (0.4.11's layout)" 0
has 'counters|tcp_retrans' && fail "tcp_bw -v: no counter line" "$(ctx)" ||
	pass "tcp_bw -v: no counter line"

if json_need; then
	Q --json tcp_bw
	expect "tcp_bw --json: exit 0" 0
	json_valid "tcp_bw --json" doc
	json_assert "tcp_bw --json: counters of both ends, socket scope" \
		"R['counters']['scope'] == 'socket' and R['counters']['client']['source'] == 'tcp' and 'tcp_retrans' in R['counters']['server']['values'] and 'server_missing' not in R['counters']"
	# Loopback loses nothing: a retransmit there is a tail-loss probe
	# or an early one the receiver reports back as a duplicate (D-SACK).
	json_assert "tcp_bw loopback: client retransmits <= D-SACK duplicates + 3" \
		"(lambda v: v['tcp_retrans'] <= v['tcp_dsack_dups'] + 3)(R['counters']['client']['values'])"
	json_assert "tcp_bw loopback: the receiving server retransmits nothing" \
		"R['counters']['server']['values']['tcp_retrans'] == 0"

	Q --json --streams 2 tcp_bw
	json_valid "tcp_bw --streams 2 --json" doc
	json_assert "tcp_bw --streams 2: each stream's counters, adding up" \
		"(lambda c: len(c['streams']) == 2 and all(sum(s[e]['values']['tcp_retrans'] for s in c['streams']) == c[e]['values']['tcp_retrans'] and sum(s[e]['values']['tcp_busy_us'] for s in c['streams']) == c[e]['values']['tcp_busy_us'] for e in ('client', 'server')))(R['counters'])"

	# A 4 KiB receive buffer (the kernel doubles it) cannot keep up with
	# a sender of 32 KiB datagrams: the server's socket drops some.
	Q --json -rsb 4096 -m 32k udp_bw
	json_valid "udp_bw -rsb 4096 --json" doc
	json_assert "udp_bw -rsb 4096: the server's socket drops, host-wide errors named" \
		"(lambda c: c['server']['values']['udp_sock_drops'] > 0 and c['client']['values']['udp_sock_drops'] == 0 and c['scope'] == 'socket+host' and c['server']['host_wide'] == ['udp_rcvbuf_errors', 'udp_csum_errors'])(R['counters'])"
fi

Q -vx -rsb 4096 -m 32k udp_bw
expect "udp_bw -rsb 4096 -vx: the server's drops shown" 0 \
	'^    rem_udp_sock_drops +=  +[1-9][0-9,]* $'

# --- a qperf 0.4.11 server ---------------------------------------------------
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 -vx tcp_bw
	expect "0.4.11 server -vx: this side's counters and the missing server said" 0 \
		'^    rem_counters +=  none: the server does not send them$'
	has "^    loc_tcp_retrans +=  +$N $" && ! has '^    rem_tcp_' &&
		pass "0.4.11 server -vx: loc_ lines only" ||
		fail "0.4.11 server -vx: loc_ lines only" "$(ctx)"
	if json_need; then
		run "$QPERF" 127.0.0.1 -lp "$LEGACY_PORT" -t 1 --json tcp_bw
		json_valid "0.4.11 server --json" doc
		json_assert "0.4.11 server --json: server_missing, the client's there" \
			"R['counters']['server_missing'] == 'the server does not send them' and 'server' not in R['counters'] and 'tcp_retrans' in R['counters']['client']['values']"
	fi
else
	skip "0.4.11 server checks" "no $LEGACY_QPERF"
fi

finish
