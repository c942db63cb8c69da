# SPDX-License-Identifier: GPL-2.0-only
# The ceiling of the path and the host checks (issue 18 items 1 and 2;
# docs/ceiling.md), over softverbs with a planted sysfs tree per end
# (softverbs/sysfs-plant; qperf reads it through SYSFS_PATH, softverbs
# through SOFTVERBS_SYSFS).  A degraded server (PCIe Gen4 x8 of Gen5 x16,
# device on NUMA node 1 while the test runs on node 0, governor
# powersave) gives exactly its three warnings, on the server's side, once
# per run, and conf shows them too; a clean pair gives none; -vx shows
# bw_ceiling (the lowest limit, named) and bw_efficiency; RoCE v2 counts
# its headers, and an interface MTU below the path MTU is found; JSON
# carries the ceiling and the findings and stays valid against the
# schema; a 0.4.11 server leaves the client's side only, and says so.
# Sourced by tests/rdma/run.sh (C, headline, T, TT, PORT, start_server
# and the helpers of tests/lib.sh).

CEIL_SRV=$T/ceil-srv CEIL_OK=$T/ceil-ok CEIL_CLI=$T/ceil-cli CEIL_LOW=$T/ceil-low
CEIL_ROCE=$T/ceil-roce CEIL_PORT=$T/ceil-port
# The server is pinned (-rca 1: CPU 0, NUMA node 0 on every machine) so
# that qperf does not place it on its device's planted node 1, which this
# host may lack: the test then runs on node 0, as the check should see.
"$LIB_ROOT/softverbs/sysfs-plant" "$CEIL_SRV" --pcie 4,8 --pcie-max 5,16 \
	--numa 1 --governor powersave --speed NDR --width 4x >/dev/null &&
	"$LIB_ROOT/softverbs/sysfs-plant" "$CEIL_CLI" --pcie 5,16 --speed NDR \
		--width 4x >/dev/null &&
	"$LIB_ROOT/softverbs/sysfs-plant" "$CEIL_OK" --pcie 5,16 --speed NDR \
		--width 4x >/dev/null &&
	"$LIB_ROOT/softverbs/sysfs-plant" "$CEIL_LOW" --pcie 5,16 --speed NDR \
		--width 4x --governor powersave >/dev/null &&
	"$LIB_ROOT/softverbs/sysfs-plant" "$CEIL_ROCE" --pcie 5,16 --speed NDR \
		--width 4x --link-layer eth --net-mtu 1500 >/dev/null &&
	"$LIB_ROOT/softverbs/sysfs-plant" "$CEIL_PORT" --pcie 5,16 --speed HDR \
		--width 1x >/dev/null ||
	fail "ceiling: sysfs-plant makes the trees"

# CT TREE ARGS...: our client (node 2) on planted tree TREE.
CT() {
	run env SOFTVERBS_NODE=2 SYSFS_PATH="$1" SOFTVERBS_SYSFS="$1" \
		"$QPERF" localhost -lp "$PORT" "${@:2}"
}
# The warning lines of the last run's stderr.
warnings() {
	grep '^qperf: warning: ' "$ERR_FILE"
}
# expect_warnings NAME RE...: the last run exited 0 and its warnings are
# exactly the lines matching RE..., in that order.
expect_warnings() {
	local name=$1 i=0 re
	shift
	if [ "$RC" = 0 ] && [ "$(warnings | wc -l)" = $# ]; then
		for re in "$@"; do
			i=$((i + 1))
			warnings | sed -n "${i}p" | grep -Eqx "$re" || break
			[ "$i" = $# ] && { pass "$name"; return; }
		done
	fi
	fail "$name" "$(ctx)"
}

CEIL_PCIE='qperf: warning: server: softv0: PCIe link at Gen4 x8, below its maximum Gen5 x16: reseat the card or check the slot and its BIOS setting \(0000:17:00.0\)'
CEIL_NUMA='qperf: warning: server: softv0: on NUMA node 1, the test ran on node 0: run it on node 1 \(--numa_node 1, or -ca with a CPU of that node\)'
CEIL_GOV='qperf: warning: server: cpufreq: CPU frequency governor is powersave, not performance: set it \(cpupower frequency-set -g performance\)'

ceiling_degraded() {
	CT "$CEIL_CLI" -t "$TT" -rca 1 -vx rc_bw rc_lat
	expect "ceiling: degraded server: rc_bw rc_lat run" 0 "$(headline rc_bw)"
	expect_warnings "ceiling: degraded server: exactly its 3 warnings, once per run" \
		"$CEIL_PCIE" "$CEIL_NUMA" "$CEIL_GOV"
	has '^    bw_ceiling +=  14.4 GB/sec \(PCIe Gen4 x8 of the server \(0000:17:00.0\)\)$' &&
		has '^    bw_efficiency +=  [0-9.]+%$' &&
		pass "ceiling: -vx: bw_ceiling names the server's PCIe, bw_efficiency follows" ||
		fail "ceiling: -vx: bw_ceiling names the server's PCIe, bw_efficiency follows" "$(ctx)"
	[ "$(grep -c '^    bw_ceiling' "$OUT_FILE")" = 1 ] &&
		pass "ceiling: no bw_ceiling for a latency test" ||
		fail "ceiling: no bw_ceiling for a latency test" "$(ctx)"
	# The message rate the same limit carries: 14.4035 GB/s over 65536
	# bytes a message, 219.78 K/sec; its efficiency after it.
	has '^    msg_rate_ceiling +=  220 K/sec$' &&
		has '^    msg_rate_efficiency +=  [0-9.]+%$' &&
		[ "$(grep -c '^    msg_rate_ceiling' "$OUT_FILE")" = 1 ] &&
		pass "ceiling: -vx: msg_rate_ceiling and msg_rate_efficiency (rc_bw only)" ||
		fail "ceiling: -vx: msg_rate_ceiling and msg_rate_efficiency (rc_bw only)" "$(ctx)"
	CT "$CEIL_CLI" -t "$TT" -rca 1 --expect 'msg_rate>=0.001%' \
		--expect 'msg_rate<=100%' rc_bw
	expect "ceiling: --expect msg_rate>=0.001% and <=100% of its ceiling: pass" 0 \
		'^    verdict = pass$'
	CT "$CEIL_CLI" -t "$TT" -rca 1 --expect 'msg_rate>=500%' rc_bw
	expect "ceiling: --expect msg_rate>=500%: fail naming the ceiling, exit 3" 3 \
		'^    verdict = fail: msg_rate [0-9.]+ [kM]?/s < 500% of 220 k/s \(PCIe Gen4 x8 of the server \(0000:17:00\.0\)\)$'
	# The findings of both ends come before the first test's output (the
	# preflight, core/pathrun.h), even its interval lines; each once.
	run env SOFTVERBS_NODE=2 SYSFS_PATH="$CEIL_LOW" SOFTVERBS_SYSFS="$CEIL_LOW" \
		bash -c '"$@" 2>&1' _ "$QPERF" localhost -lp "$PORT" -t "$TT" \
		-rca 1 -I 0.1 rc_bw rc_lat
	if [ "$RC" = 0 ] && [ "$(grep -Ec '^qperf: warning: (client|server):' "$OUT_FILE")" = 4 ] &&
		sed -n 1p "$OUT_FILE" | grep -Eq '^qperf: warning: client: cpufreq: CPU frequency governor is powersave' &&
		sed -n 2p "$OUT_FILE" | grep -Eqx "$CEIL_PCIE" &&
		sed -n 3p "$OUT_FILE" | grep -Eqx "$CEIL_NUMA" &&
		sed -n 4p "$OUT_FILE" | grep -Eqx "$CEIL_GOV" &&
		[ "$(sed -n 5p "$OUT_FILE")" = "rc_bw:" ] &&
		grep -Eq '^    0\.00-[0-9.]+ +sec +(loc send|rem recv)' "$OUT_FILE"; then
		pass "ceiling: both ends' findings before the first test's output, once"
	else
		fail "ceiling: both ends' findings before the first test's output, once" "$(ctx)"
	fi
	# conf checks the hosts too (no test ran: no NUMA check), with the
	# server's findings in its CONF extension.
	CT "$CEIL_CLI" conf
	expect_warnings "ceiling: conf: the server's PCIe and governor findings" \
		"$CEIL_PCIE" "$CEIL_GOV"
	# ... and in JSON, as warning events of the run, the same words.
	CT "$CEIL_CLI" --json conf
	if [ "$RC" = 0 ] && python3 - "$OUT_FILE" "$CEIL_PCIE" "$CEIL_GOV" <<'PY'
import json, re, sys
ev = [e["message"] for e in json.load(open(sys.argv[1]))["events"]
      if e["type"] == "warning"]
want = [re.sub(r"^\^?qperf: warning: ", "", w) for w in sys.argv[2:]]
sys.exit(not (len(ev) == 2 and all(re.fullmatch(w, m) for w, m in zip(want, ev))))
PY
	then
		pass "ceiling: conf --json: the findings as warning events"
	else
		fail "ceiling: conf --json: the findings as warning events" "$(ctx)"
	fi
	# The default layout stays 0.4.11's: the headline and nothing else.
	CT "$CEIL_CLI" -t "$TT" -rca 1 rc_bw
	[ "$RC" = 0 ] && [ "$(wc -l <"$OUT_FILE")" = 2 ] &&
		! has 'ceiling|efficiency' &&
		pass "ceiling: the default report is 0.4.11's two lines" ||
		fail "ceiling: the default report is 0.4.11's two lines" "$(ctx)"
	CT "$CEIL_CLI" -t "$TT" -rca 1 --json rc_bw
	if [ "$RC" = 0 ] && python3 "$LIB_ROOT/tests/json_check.py" doc "$OUT_FILE" &&
		python3 - "$OUT_FILE" <<'PY'; then
import json, sys
t = json.load(open(sys.argv[1]))["tests"][0]
c = t["results"]["ceiling"]
assert c["limit"] == "PCIe Gen4 x8 of the server (0000:17:00.0)", c
assert abs(c["value_Bps"] - 14.4035e9) < 1e6, c
assert 0 < c["efficiency"] < 1, c
assert c["inputs"]["server"]["pcie_width"] == 8, c
assert c["inputs"]["client"]["pcie_width"] == 16, c
f = [(x["end"], x["check"]) for x in t["findings"]]
assert f == [("server", "pcie_link"), ("server", "numa"),
             ("server", "governor")], f
PY
		pass "ceiling: JSON: ceiling and findings of the degraded server, schema-valid"
	else
		fail "ceiling: JSON: ceiling and findings of the degraded server, schema-valid" "$(ctx)"
	fi
}

ceiling_clean() {
	CT "$CEIL_CLI" -t "$TT" -vx rc_bw
	expect "ceiling: clean pair: no warning" 0 \
		'^    bw_ceiling +=  49.4 GB/sec \(4x NDR port of the client \(softv0:1\) at MTU 2048\)$' '^$'
	# The client's own finding is the client's, not the server's.
	CT "$CEIL_LOW" -t "$TT" rc_bw
	expect "ceiling: the client's governor is said on the client's side" 0 \
		"$(headline rc_bw)" \
		'^qperf: warning: client: cpufreq: CPU frequency governor is powersave'
	[ "$(warnings | wc -l)" = 1 ] &&
		pass "ceiling: one warning, the client's" ||
		fail "ceiling: one warning, the client's" "$(ctx)"
	C -t "$TT" -vx tcp_bw
	expect "ceiling: loopback sockets: none, said" 0 \
		'^    bw_ceiling +=  none \(loopback\)$'
	has bw_efficiency && fail "ceiling: loopback: no efficiency" "$(ctx)" ||
		pass "ceiling: loopback: no efficiency"
}

# RoCE v2 (IPv4 GIDs): the port's ceiling counts Ethernet, IP, UDP, BTH
# and ICRC (2048/2130 of 50 GB/s); the server's interface MTU 1500 cannot
# carry the path MTU 2048.
ceiling_roce() {
	run env SOFTVERBS_NODE=2 SOFTVERBS_LINK_LAYER=eth SYSFS_PATH="$CEIL_OK" \
		SOFTVERBS_SYSFS="$CEIL_OK" "$QPERF" localhost -lp "$PORT" \
		-t "$TT" -vx rc_bw
	expect "ceiling: RoCE v2: the port's ceiling, named" 0 \
		'^    bw_ceiling +=  48.1 GB/sec \(4x NDR RoCE v2 port of the client \(softv0:1\) at MTU 2048\)$' \
		'^qperf: warning: server: eth0: interface MTU 1500 too small for RoCE path MTU 2048 \(needs 2108\): raise it \(ip link set eth0 mtu 9000\)$'
	[ "$(warnings | wc -l)" = 1 ] &&
		pass "ceiling: RoCE v2: that warning only" ||
		fail "ceiling: RoCE v2: that warning only" "$(ctx)"
}

ceiling_legacy() {
	CT "$CEIL_CLI" -t "$TT" --json rc_bw
	if [ "$RC" = 0 ] && python3 - "$OUT_FILE" <<'PY'; then
import json, sys
c = json.load(open(sys.argv[1]))["tests"][0]["results"]["ceiling"]
assert c["inputs"]["server"] is None, c
assert c["note"].startswith("the server's side is unknown"), c
assert c["limit"].endswith("of the client (softv0:1) at MTU 2048"), c
PY
		pass "ceiling: a 0.4.11 server: the client's side only, said"
	else
		fail "ceiling: a 0.4.11 server: the client's side only, said" "$(ctx)"
	fi
}

# A server port trained at 1x HDR while its PortInfo enables 4x NDR
# (softverbs' libibumad answers SubnGet(PortInfo) with
# SOFTVERBS_WIDTH_ENABLED and SOFTVERBS_SPEED_ENABLED): its two findings,
# before the test, in conf (through the CONF extension) and in JSON.
CEIL_PW='qperf: warning: server: softv0:1: link active at 1x, below the 4x its port enables: a lane is down; reseat or replace the cable, check the switch port \(ibportstate, ibstat\)'
CEIL_PS='qperf: warning: server: softv0:1: link active at HDR, below the NDR its port enables: the cable or the switch port holds it lower; check both \(ibportstate, ibstat\)'
ceiling_port() {
	CT "$CEIL_OK" -t "$TT" rc_bw
	expect_warnings "ceiling: a port below its enabled width and speed: both findings" \
		"$CEIL_PW" "$CEIL_PS"
	CT "$CEIL_OK" conf
	expect_warnings "ceiling: conf: the server's port findings reach the client" \
		"$CEIL_PW" "$CEIL_PS"
	CT "$CEIL_OK" -t "$TT" --json rc_bw
	if [ "$RC" = 0 ] && python3 "$LIB_ROOT/tests/json_check.py" doc "$OUT_FILE" &&
		python3 - "$OUT_FILE" <<'PY'; then
import json, sys
t = json.load(open(sys.argv[1]))["tests"][0]
i = t["results"]["ceiling"]["inputs"]
assert (i["server"]["width"], i["server"]["width_enabled"]) == (1, 4), i
assert (i["server"]["speed_code"], i["server"]["speed_code_enabled"]) == (64, 128), i
assert (i["client"]["width"], i["client"]["width_enabled"]) == (4, 4), i
f = [(x["end"], x["check"]) for x in t["findings"]]
assert f == [("server", "port_width"), ("server", "port_speed")], f
PY
		pass "ceiling: JSON: enabled width and speed of both ends, the findings, schema-valid"
	else
		fail "ceiling: JSON: enabled width and speed of both ends, the findings, schema-valid" "$(ctx)"
	fi
}

# ceiling_on TREE FUNCTION [VAR=VALUE...]: FUNCTION's checks against our
# server on TREE (with VAR=VALUE in its environment).
ceiling_on() {
	if ! start_server env SYSFS_PATH="$1" SOFTVERBS_SYSFS="$1" "${@:3}" --; then
		fail "ceiling: our server on $1"
		return
	fi
	PORT=$SERVER_PORT
	SPID=$SERVER_PID
	"$2"
	stop_server "$PORT" "$SPID"
}
ceiling_on "$CEIL_SRV" ceiling_degraded
ceiling_on "$CEIL_OK" ceiling_clean
ceiling_on "$CEIL_PORT" ceiling_port SOFTVERBS_WIDTH_ENABLED=4x \
	SOFTVERBS_SPEED_ENABLED=NDR
export SOFTVERBS_LINK_LAYER=eth
ceiling_on "$CEIL_ROCE" ceiling_roce
unset SOFTVERBS_LINK_LAYER
if [ -x "$LEGACY_QPERF" ] && start_legacy_server; then
	PORT=$LEGACY_PORT
	ceiling_legacy
	timeout 10 "$QPERF" localhost -lp "$PORT" quit >/dev/null 2>&1
else
	skip "ceiling: a 0.4.11 server" "no qperf 0.4.11"
fi
