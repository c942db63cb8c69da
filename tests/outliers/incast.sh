#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# D. incast:K and fanout:K behind tc tbf (issue 19 item 4; docs/cluster.md
#    "Incast and fan-out"), sourced by tests/outliers/run.sh after its
#    namespaces are up: 5 ranks (namespaces 0-4), every veth at RATE
#    Mbit/s both ways (shape_all, tbf), but for one tighter way (htb).
#  - incast:4 tcp_bw tcp_lat, --json: each round 4 senders into one
#    receiver, whose ingress tbf is the bottleneck: the aggregate within
#    10% of its payload share (RATE; rank 4's SLOWRX: at most 10% above),
#    a fairness index in every round; rank 4's round is the one tcp_bw
#    outlier (a receiver by its aggregate), confirmed by its retest (exit
#    1); rank 3
#    sends at its own TIGHT Mbit/s, and is named the slowest (the unfair
#    one) in each of its 4 rounds and in no other; tcp_lat's victims
#    wait behind the loads' packets (at least 0.1 ms, against about 6 us
#    alone: a 1514-byte frame takes 242 us at 50 Mbit/s; a receiver whose
#    victim waits longer than the others' may be confirmed an outlier);
#  - fanout:4 tcp_bw, text: each round one sender to 4 receivers, its
#    egress tbf the bottleneck: the aggregate within 10% likewise; rank 2
#    receives at its own TIGHT Mbit/s and is named the slowest in the 4
#    rounds it receives in.

NI=5 # ranks
TIGHT=${TIGHT:-2} # Mbit/s of the one tighter way
SLOWRX=${SLOWRX:-20} # Mbit/s into incast's one slow receiver
# Seconds per test: fan-out's bottleneck is the sender's own qdisc, whose
# drops now and then stall one of its flows for a retransmission timeout
# (at 2 s a round fell 8-16% short in 2 of 60; at 3 s none in 30).
TT_FAN=${TT_FAN:-3}
# tbf meters frames, qperf counts payload (tests/netns/run.sh): TCP's
# 1448 bytes of 1514; the aggregate's target in MB/s.
payload() { awk -v r="$1" 'BEGIN { printf "%.4f", r * 1448 / 1514 / 8 }'; }
AGG=$(payload "$RATE")

# tight NS DEV: DEV's full-size packets at TIGHT Mbit/s, its small ones
# (below 512 bytes: ACKs, control) at RATE, so that the tight end's
# ACKs do not slow its own other flows (at 2 Mbit/s they took half the
# rate of a 50 Mbit/s round it received or sent in).
tight() {
	tc -n "$1" qdisc del dev "$2" root 2>/dev/null
	tc -n "$1" qdisc add dev "$2" root handle 1: htb default 20 &&
		tc -n "$1" class add dev "$2" parent 1: classid 1:10 htb rate "${RATE}mbit" &&
		tc -n "$1" class add dev "$2" parent 1: classid 1:20 htb rate "${TIGHT}mbit" &&
		tc -n "$1" filter add dev "$2" parent 1: protocol ip prio 1 u32 \
			match u16 0x0000 0xfe00 at 2 flowid 1:10
}

shape_all
# rank 3's sends (its egress, in its namespace) at the tighter rate;
# rank 4 receives through a slower tbf (its ingress, on the hub's side)
if tight "$(ns 3)" "qc$$r3" 2>"$T/tc.err" &&
	tc -n "$HUB" qdisc replace dev "qc$$h4" root tbf rate "${SLOWRX}mbit" \
		burst 64kb latency 50ms 2>>"$T/tc.err"; then
	pass "incast: rank 3 sends at ${TIGHT}mbit (htb), rank 4 receives through tbf ${SLOWRX}mbit, every other way ${RATE}mbit (tbf)"
else
	fail "incast: rank 3 sends at ${TIGHT}mbit, rank 4 receives at ${SLOWRX}mbit" "$(cat "$T/tc.err")"
fi
CL_PATTERN=incast:4 CL_N=$NI cluster_run incast --json tcp_bw tcp_lat
json_valid "incast:4 behind tbf --json: valid against the schema"
python3 - "$OUT_FILE" "$RC" "$AGG" "$(payload "$SLOWRX")" >"$T/inc.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, rc = d["cluster"], int(sys.argv[2])
bw, lat = c["tests"]
# Exactly rank 4's tcp_bw round an outlier, by its aggregate, confirmed
# by its retest; the victims' latency differs by round (whether the
# tighter sender is among their loads), and a receiver's can be
# confirmed an outlier too.
assert rc == d["exit_status"] == 1 and c["gone"] == [], (rc, c["outliers"], c["gone"])
o = [o for o in c["outliers"] if o["test"] == "tcp_bw"]
assert [(x["kind"], x["ranks"], x["quantity"]) for x in o] == [("receiver", [4], "aggregate")], c["outliers"]
assert all(x["test"] == "tcp_lat" for x in c["outliers"] if x not in o), c["outliers"]
rows = []
for r, g in enumerate(bw["groups"]):
    agg = float(sys.argv[4 if r == 4 else 3]) * 1e6
    assert g["status"] == "ok" and g["hub"] == r and len(g["flows"]) == 4, g
    assert sorted(f["client"] for f in g["flows"]) == [k for k in range(5) if k != r], g
    # rank 4's slower tbf holds a smaller queue: 4 flows fill it less
    # evenly (85-96% of its rate); it only has to be the slower one
    lo = 0.5 if r == 4 else 0.9
    assert lo <= g["aggregate"] / agg <= 1.1, ("aggregate", r, g["aggregate"], agg)
    assert 0 < g["fairness"] <= 1, g
    slow = g["slowest"]["client"]
    assert (slow == 3) == (r != 3), ("slowest", r, slow, g["flows"])
    rows.append("%d: %.2f MB/s (%.1f%%), fairness %.3f, slowest %d at %.2f" % (
        r, g["aggregate"] / 1e6, 100 * g["aggregate"] / agg, g["fairness"], slow,
        g["slowest"]["ratio"]))
v = [g["victim_latency_s"] for g in lat["groups"]]
assert all(g["status"] == "ok" and [f["role"] for f in g["flows"]] == ["victim", "load", "load", "load"]
           for g in lat["groups"]), lat["groups"]
assert min(v) >= 1e-4, v
print("; ".join(rows) + "; " + o[0]["line"])
print("victims %s ms%s" % (", ".join("%.1f" % (1e3 * x) for x in v),
                           "".join("; " + x["line"] for x in c["outliers"] if x not in o)))
PY
if [ $? = 0 ]; then
	pass "incast:4 behind tbf: each receiver's aggregate within 10% of its tbf's ${AGG} MB/s (rank 4 behind $(payload "$SLOWRX") MB/s: at most 10% above), a fairness index per round, rank 3 named the slowest exactly in its 4 rounds, rank 4's round the one outlier, retested ($(head -1 "$T/inc.out"))"
	pass "incast:4 tcp_lat: each victim's latency behind the loads' queue, at least 0.1 ms ($(tail -1 "$T/inc.out"))"
else
	fail "incast:4 behind tbf: aggregates within 10%, rank 3 named the slowest, rank 4's round the outlier" "$(cat "$T/inc.out")" "$(ctx)"
fi
ranks_exit_0 incast

shape_all
# rank 2's receives (its ingress, on the hub's side) at the tighter rate
if tight "$HUB" "qc$$h2" 2>"$T/tc.err"; then
	pass "fanout: rank 2 receives at ${TIGHT}mbit (htb), every other way ${RATE}mbit (tbf)"
else
	fail "fanout: rank 2 receives at ${TIGHT}mbit" "$(cat "$T/tc.err")"
fi
TT=$TT_FAN CL_PATTERN=fanout:4 CL_N=$NI cluster_run fanout tcp_bw
python3 - "$OUT_FILE" "$AGG" >"$T/fan.out" 2>&1 <<'PY'
import re, sys
L = open(sys.argv[1]).read().split("\n")
agg = float(sys.argv[2])
rows = []
for r in range(5):
    i = next(i for i, l in enumerate(L) if l.startswith("round %d: tcp_bw from rank %d " % (r + 1, r)))
    fl = [re.fullmatch(r"  rank %d -> (\d): ([0-9.,]+) MB/s" % r, l) for l in L[i + 1:i + 5]]
    assert all(fl), L[i:i + 6]
    a = re.fullmatch(r"  aggregate ([0-9.,]+) MB/s, fairness ([0-9.]+), slowest rank (\d) at ([0-9.]+) of the fair share", L[i + 5])
    assert a, L[i + 5]
    x = float(a.group(1).replace(",", ""))
    assert abs(x / agg - 1) <= 0.10, ("aggregate", r, x, agg)
    assert (int(a.group(3)) == 2) == (r != 2), ("slowest", L[i:i + 6])
    rows.append("%d: %s MB/s, fairness %s, slowest %s at %s" % ((r,) + a.groups()))
print("; ".join(rows))
PY
py=$?
if [ "$RC" = 0 ] && [ $py = 0 ]; then
	pass "fanout:4 behind tbf: each sender's aggregate within 10% of ${AGG} MB/s, rank 2 named the slowest exactly in its 4 rounds ($(cat "$T/fan.out"))"
else
	fail "fanout:4 behind tbf: aggregates within 10%, rank 2 named the slowest" "$(cat "$T/fan.out")" "$(ctx)"
fi
ranks_exit_0 fanout
shape_all
