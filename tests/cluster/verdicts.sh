#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster mode's verdicts (issue 18 item 6; docs/cluster.md "Verdicts"):
# three ranks over softverbs, each on a planted sysfs tree
# (softverbs/sysfs-plant), rank 2's HCA at PCIe Gen4 x8 of its Gen5 x16:
#  - every pair gets its ceiling and efficiency (a text matrix, JSON's
#    efficiency_matrix and each pair line's ceiling, a heat-map panel);
#  - --expect holds every pair; the failing pairs are listed with the
#    limit their ends named, by rank ("PCIe Gen4 x8 of rank 2"), and the
#    run exits 3 ("N pair results failed their checks");
#  - a limit every pair meets: pass, exit 0; --baseline: not yet (exit 2);
#  - each rank's host checks come in its JOIN: rank 2's PCIe finding is
#    said under rank 2 only (text and JSON), none for the clean ranks.
# Sourced by tests/cluster/run.sh, or alone (about 20 s):
#   bash tests/cluster/verdicts.sh

if [ -z "${LIB_ROOT:-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	. "$LIB_ROOT/tests/cluster/cl_lib.sh"
	cl_alone verdicts
	VERDICTS_ALONE=1
fi

for r in 0 1 2; do
	pcie=(--pcie 5,16)
	[ $r = 2 ] && pcie=(--pcie 4,8 --pcie-max 5,16)
	"$LIB_ROOT/softverbs/sysfs-plant" "$T/vt$r" "${pcie[@]}" --speed NDR \
		--width 4x >/dev/null || fail "verdicts: sysfs-plant rank $r's tree"
done
# verdict_env RANK: softverbs node RANK+1 on tree vtRANK.
verdict_env() {
	echo LD_LIBRARY_PATH="$SV_LIB" SOFTVERBS_NODE=$(($1 + 1)) \
		SYSFS_PATH="$T/vt$1" SOFTVERBS_SYSFS="$T/vt$1"
}
CL_ENV_FN=verdict_env
# vrun ARGS...: a 3-rank rc_bw run with ARGS, waited for.  WANT: the exit
# status it should have: $1 of vrun_want, or 1 when rank 0 confirmed an
# outlier (on one busy machine the pairs' figures are noise, and an
# outlier keeps status 1: docs/cluster.md).
vrun() {
	P=$(free_port)
	cl_ranks 3 1 all -t 0.3 "$@" rc_bw
	cl_rank0 3 all -t 0.3 "$@" rc_bw
	cl_wait
}
vrun_want() {
	WANT=$1
	grep -Eq '^cluster: [1-9][0-9]* outliers?$' "$OUT_FILE" && WANT=1
	return 0
}

vrun --expect 'bw>=90%' --plot "$T/v.svg"
vrun_want 3
PCIE2='PCIe Gen4 x8 of rank 2 \([^)]*\) \(0000:17:00\.0\)'
expect "verdicts: every pair short of 90% of its ceiling: listed, exit 3 (1 with an outlier)" "$WANT" \
	'^rc_bw: verdict: 6 of 6 pair results failed their checks:$' \
	'^qperf: 6 pair results failed their checks$'
n2=$(grep -Ec "^  rank [0-9] \([^)]*\) -> rank [0-9] \([^)]*\): fail: bw .* < 90% of 14\.4 GB/s \($PCIE2\)\$" "$OUT_FILE")
n01=$(grep -Ec '^  rank [01] \([^)]*\) -> rank [01] \([^)]*\): fail: bw .* < 90% of 49\.4 GB/s \(4x NDR port of rank [01] ' "$OUT_FILE")
[ "$n2" = 4 ] && [ "$n01" = 2 ] &&
	pass "verdicts: rank 2's four pairs name its PCIe Gen4 x8, ranks 0-1's their NDR ports" ||
	fail "verdicts: rank 2's four pairs name its PCIe Gen4 x8, ranks 0-1's their NDR ports" \
		"rank 2's: $n2, ranks 0-1's: $n01" "$(ctx)"
# Each rank's host checks, once per rank, with or without --expect: rank
# 2's PCIe finding under rank 2 only, none for the clean ranks.
F2='^rank 2 \([^)]*\): warning: softv0: PCIe link at Gen4 x8, below its maximum Gen5 x16: reseat the card or check the slot and its BIOS setting \(0000:17:00\.0\)$'
[ "$(grep -Ec "$F2" "$OUT_FILE")" = 1 ] &&
	[ "$(grep -c '^rank [0-9] (.*): warning: ' "$OUT_FILE")" = 1 ] &&
	pass "verdicts: rank 2's PCIe finding under rank 2 only, once; none for ranks 0-1" ||
	fail "verdicts: rank 2's PCIe finding under rank 2 only, once; none for ranks 0-1" "$(ctx)"
has "^rc_bw: efficiency: received bandwidth in % of the path's ceiling; row = client \(sender\), column = server$" &&
	[ "$(grep -Ec '^     [0-2]( +(-|[0-9.]+%)){3}$' "$OUT_FILE")" = 3 ] &&
	pass "verdicts: an efficiency matrix, 3 x 3" ||
	fail "verdicts: an efficiency matrix, 3 x 3" "$(ctx)"
python3 - "$T/v.svg" >"$T/v.err" 2>&1 <<'PY' &&
import sys, xml.etree.ElementTree as ET
svg = ET.parse(sys.argv[1]).getroot()
titles = [t.text or "" for t in svg.iter() if t.tag.endswith("text")]
assert any("efficiency in % of the path's ceiling" in t for t in titles), titles
PY
	pass "verdicts: --plot: well-formed, with an efficiency panel" ||
	fail "verdicts: --plot: well-formed, with an efficiency panel" "$(cat "$T/v.err")"

vrun --expect 'bw>=90%' --json
WANT=3
python3 -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["cluster"]["outliers"])' \
	"$OUT_FILE" 2>/dev/null && WANT=1
if json_need; then
	python3 "$LIB_ROOT/tests/json_check.py" doc "$OUT_FILE" >"$T/jc.err" 2>&1 &&
		python3 - "$OUT_FILE" >>"$T/jc.err" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["cluster"]["tests"][0]
v = t["verdict"]
assert v["expect"] == ["bw>=90%"] and v["checked"] == 6 and v["failed"] == 6, v
assert sum("of rank 2" in f["reason"] for f in v["failing"]) == 4, v["failing"]
f = {r["rank"]: [x["check"] for x in r.get("findings", [])]
     for r in json.load(open(sys.argv[1]))["cluster"]["ranks"]}
assert f == {0: [], 1: [], 2: ["pcie_link"]}, f
e = [x for row in t["efficiency_matrix"] for x in row if x is not None]
assert len(e) == 6 and all(0 < x < 0.9 for x in e), t["efficiency_matrix"]
PY
	[ "$RC" = "$WANT" ] && [ ! -s "$T/jc.err" ] &&
		pass "verdicts --json: valid; verdict 6 of 6 failed, 4 naming rank 2; rank 2's finding only; 6 efficiencies; exit 3 (1 with an outlier)" ||
		fail "verdicts --json: valid; verdict 6 of 6 failed, 4 naming rank 2; rank 2's finding only; 6 efficiencies; exit 3 (1 with an outlier)" \
			"rc $RC" "$(cat "$T/jc.err")" "$(ctx)"
fi

vrun --expect 'bw>=1MB'
vrun_want 0
expect "verdicts: a limit every pair meets: pass, exit 0 (1 with an outlier)" "$WANT" \
	'^rc_bw: verdict: pass \(6 pair results checked\)$'
CL_ENV_FN=

run -t 30 env QPERF_RANK=0 QPERF_SIZE=2 "$QPERF" "${CL_ARGS[@]}" --cluster all \
	--rendezvous 127.0.0.1:1 --baseline /dev/null tcp_bw
expect "verdicts: --baseline in cluster mode: not yet, exit 2" 2 '^$' \
	'^qperf: --baseline: not yet in cluster mode \(--expect is\)$'

[ -n "${VERDICTS_ALONE:-}" ] && finish
