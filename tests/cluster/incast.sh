#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster mode's group patterns on loopback (issue 19 item 4;
# docs/cluster.md "Incast and fan-out"), 4 ranks:
#  - incast:2, text: each round into its receiver (rank r in round r+1)
#    from 2 other ranks, each flow's figure, the aggregate (their sum),
#    Jain's index and the slowest against the fair share as recomputed
#    from the printed flows; tcp_lat's rounds: the victim and its load;
#    the table by receiver; 8 figures in the tcp_bw matrix;
#  - fanout:2 with -n under mpirun, --json valid against the schema:
#    every round's flows from its sender, aggregate, fairness, slowest and
#    completion as recomputed from the flows, the starts within 0.5 s,
#    the flows' figures in the matrix, the victims' latencies;
#  - incast:2 --json_stream: valid lines, a group line per round and a
#    pair line per flow with the same figure;
#  - incast:2 of rc_bw over softverbs with local rank 1's device one that
#    does not exist: exactly the rounds rank 1 is in fail, each named by
#    rank 1's error (not by a flow stopped for it), tried again once, and
#    their flows are not in the matrix; exit 1;
#  - bad values: K not below the number of ranks, 0, not a number, 17.
# On one busy machine the figures are noise: a round far below the
# others can be confirmed an outlier (exit 1 with its outlier: line),
# as in the other loopback runs; nothing may fail or be gone.
# Sourced by tests/cluster/run.sh, or alone (about 20 s):
#   bash tests/cluster/incast.sh

if [ -z "${LIB_ROOT:-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	. "$LIB_ROOT/tests/cluster/cl_lib.sh"
	cl_alone incast
	INCAST_ALONE=1
fi
CL_ENV_FN=

# ran_ok NAME: the last cluster run (text) went to its end (exit 0, or
# 1 with an outlier), nothing failed or gone, every other rank exited 0.
ran_ok() {
	if { [ "$RC" = 0 ] || { [ "$RC" = 1 ] && has '^outlier: '; }; } &&
		[ "$CL_RC" = 0 ] && ! has 'failed|^gone: '; then
		pass "$1"
	else
		fail "$1" "others' exit: $CL_RC" "$(ctx)" "$(cat "$T"/cl.[1-9].err 2>/dev/null | head)"
	fi
}
# The same of a --json document (c: its cluster member), or of
# --json_stream lines (their cluster line).
JSON_RAN='d["exit_status"] == @RC@ and (d["exit_status"] == 0 or (d["exit_status"] == 1 and c["outliers"])) and c["gone"] == [] and all(t["failed_pairs"] == 0 and all(g["status"] == "ok" for g in t["groups"]) for t in c["tests"])'


section "incast"
P=$(free_port)
cl_ranks 4 1 incast:2 -t 0.3 tcp_bw tcp_lat
cl_rank0 4 incast:2 --seed 11 -t 0.3 tcp_bw tcp_lat
cl_wait
ran_ok "incast:2, 4 ranks, tcp_bw tcp_lat: ran to its end"
has '^cluster: 4 ranks, pattern incast:2, seed 11, 4 rounds$' &&
	pass "incast:2: header: 4 ranks, 4 rounds (each rank the receiver once)" ||
	fail "incast:2: header: 4 ranks, 4 rounds" "$(ctx)"
# Each tcp_bw round: its header, 2 flows into rank r-1, the aggregate
# line; the sums, Jain's index and the slowest recomputed from the
# printed figures (3 significant digits: within 1%).
python3 - "$OUT_FILE" >"$T/inc.err" 2>&1 <<'PY'
import re, sys
L = open(sys.argv[1]).read().split("\n")
num = lambda s: float(s.replace(",", ""))
spreads = []
for r in range(1, 5):
    i = next(i for i, l in enumerate(L) if l.startswith("round %d: tcp_bw " % r))
    m = re.fullmatch(r"round %d: tcp_bw into rank %d \(.*\) from ranks (\d), (\d); "
                     r"starts within ([0-9.]+) (us|ms|s) \(clock offsets \+-[0-9.]+ (us|ms|s)\)" % (r, r - 1), L[i])
    assert m, L[i]
    senders = {int(m.group(1)), int(m.group(2))}
    assert len(senders) == 2 and r - 1 not in senders, L[i]
    spreads.append(float(m.group(3)) * {"us": 1e-6, "ms": 1e-3, "s": 1}[m.group(4)])
    fl = {}
    for l in L[i + 1:i + 3]:
        f = re.fullmatch(r"  rank (\d) -> %d: ([0-9.,]+) MB/s" % (r - 1), l)
        assert f, l
        fl[int(f.group(1))] = num(f.group(2))
    assert set(fl) == senders, (fl, senders)
    a = re.fullmatch(r"  aggregate ([0-9.,]+) MB/s, fairness ([0-9.]+), slowest rank (\d) "
                     r"at ([0-9.]+) of the fair share", L[i + 3])
    assert a, L[i + 3]
    s = sum(fl.values())
    assert abs(num(a.group(1)) - s) <= 0.01 * s, (a.group(1), fl)
    jain = s * s / (2 * sum(x * x for x in fl.values()))
    assert abs(float(a.group(2)) - jain) <= 0.01, (a.group(2), jain)
    slow = min(fl, key=fl.get)
    assert int(a.group(3)) == slow or fl[int(a.group(3))] <= 1.01 * fl[slow], (a.group(3), fl)
    assert abs(float(a.group(4)) - fl[int(a.group(3))] / (s / 2)) <= 0.02, (a.group(4), fl)
print("%.2f" % (1e3 * max(spreads)))
PY
if [ $? = 0 ]; then
	pass "incast:2 tcp_bw: 4 rounds of 2 flows each into its receiver; aggregate, fairness and slowest agree with the flows (starts within $(cat "$T/inc.err") ms at most)"
else
	fail "incast:2 tcp_bw: 4 rounds of 2 flows; aggregate, fairness and slowest agree with the flows" "$(cat "$T/inc.err")" "$(ctx)"
fi
n=$(grep -Ec '^round [1-4]: tcp_lat into rank [0-3] \(.*\): rank [0-3]'"'"'s latency beside tcp_bw from rank [0-3]; starts within ' "$OUT_FILE")
v=$(grep -Ec '^  rank [0-3] -> [0-3]: [0-9.,]+ us \(victim\)$' "$OUT_FILE")
l=$(grep -Ec '^  rank [0-3] -> [0-3]: [0-9.,]+ MB/s \(tcp_bw\)$' "$OUT_FILE")
a=$(grep -Ec '^  load aggregate [0-9.,]+ MB/s$' "$OUT_FILE")
[ "$n" = 4 ] && [ "$v" = 4 ] && [ "$l" = 4 ] && [ "$a" = 4 ] &&
	pass "incast:2 tcp_lat: 4 rounds, each a victim's latency beside one tcp_bw load" ||
	fail "incast:2 tcp_lat: 4 rounds, each a victim's latency beside one tcp_bw load" \
		"rounds $n, victims $v, loads $l, load aggregates $a" "$(ctx)"
has '^tcp_bw: by receiver: the aggregate in MB/s, Jain.s fairness index and the slowest flow against the fair share$' &&
	[ "$(grep -Ec '^ +[0-3] +[0-9.,]+ +(0\.[0-9]{3}|1\.000)  rank [0-3] at [0-9.]+$' "$OUT_FILE")" = 4 ] &&
	has '^tcp_lat: by receiver: the victim.s latency in us beside the others. tcp_bw: their aggregate in MB/s and fairness$' &&
	pass "incast:2: a table by receiver of each test (tcp_bw: 4 rows of aggregate, fairness and slowest)" ||
	fail "incast:2: a table by receiver of each test" "$(ctx)"
cells=$(awk '/^tcp_bw: received bandwidth/ { on = 1; next } /^[a-z]/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ && / -( |$)/ { for (i = 2; i <= NF; i++) if ($i != "-") n++ } END { print n + 0 }' "$OUT_FILE")
[ "$cells" = 8 ] && pass "incast:2: the tcp_bw matrix holds the 8 flows (K x N), the other cells -" ||
	fail "incast:2: the tcp_bw matrix holds the 8 flows" "got $cells" "$(ctx)"

section "fanout"
# Under mpirun the job secret is the one Open MPI gives the job.
P=$(free_port)
run -t 120 env -u QPERF_SECRET_FILE mpirun --allow-run-as-root --oversubscribe -n 4 \
	"$QPERF" --cluster fanout:2 --rendezvous 127.0.0.1:$P --seed 3 -n 4000 --json tcp_bw tcp_lat
json_valid "fanout:2 --json: valid against the schema"
jq_is "fanout:2 under mpirun, -n 4000, --json: ran to its end (exit $RC)" "${JSON_RAN//@RC@/$RC}"
jq_is "fanout:2 --json: per test 4 rounds, each from its sender (rank r-1) to 2 others; aggregate, fairness, slowest and completion agree with the flows; starts within 0.5 s" '(
all(len(t["groups"]) == 4 and
    all(g["round"] == r + 1 and g["hub"] == r and g["status"] == "ok" and len(g["flows"]) == 2 and
        all(f["client"] == r and f["server"] != r for f in g["flows"]) and
        len({f["server"] for f in g["flows"]}) == 2 and
        g["start_spread_s"] < 0.5 and g["clock_uncertainty_s"] < 0.1
        for r, g in enumerate(t["groups"]))
    for t in c["tests"]) and
all((lambda x: abs(g["aggregate"] - sum(x)) <= 1e-6 * sum(x) and
               abs(g["fairness"] - sum(x) ** 2 / (len(x) * sum(v * v for v in x))) <= 1e-6 and
               g["slowest"]["figure"] == min(x) and
               abs(g["slowest"]["ratio"] - min(x) / (sum(x) / len(x))) <= 1e-6 and
               g["completion_s"] >= max(f["done_s"] for f in g["flows"]) * 0.999)
    ([f["figure"] for f in g["flows"]])
    for g in c["tests"][0]["groups"]))'
jq_is "fanout:2 --json: tcp_bw's 8 flows are its matrix cells; each tcp_lat round a victim beside a tcp_bw load, its latency in the matrix" '(
sorted((f["client"], f["server"], f["figure"]) for g in c["tests"][0]["groups"] for f in g["flows"]) ==
sorted((i, j, v) for i, row in enumerate(c["tests"][0]["matrix"]) for j, v in enumerate(row) if v is not None) and
all([f["role"] for f in g["flows"]] == ["victim", "load"] and g["flows"][1]["test"] == "tcp_bw" and
    g["victim_latency_s"] == g["flows"][0]["figure"] > 0 and
    abs(c["tests"][1]["matrix"][g["flows"][0]["client"]][g["flows"][0]["server"]] - g["victim_latency_s"]) <= 1e-6 * g["victim_latency_s"]
    for g in c["tests"][1]["groups"]))'

section "incast stream"
P=$(free_port)
cl_ranks 4 1 incast:2 -t 0.2 --json_stream tcp_bw
cl_rank0 4 incast:2 -t 0.2 --json_stream tcp_bw
cl_wait
why=$(python3 "$LIB_ROOT/tests/json_check.py" stream "$OUT_FILE" 2>&1) &&
	pass "incast:2 --json_stream: every line valid against the schema" ||
	fail "incast:2 --json_stream: every line valid against the schema" "$why" "$(head -c 600 "$OUT_FILE")"
python3 - "$OUT_FILE" "$RC" "$CL_RC" "${JSON_RAN//@RC@/$RC}" >"$T/st.err" 2>&1 <<'PY' &&
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
G = [l for l in L if l["type"] == "group" and l["round"] is not None]
P = [l for l in L if l["type"] == "pair"]
assert [g["round"] for g in G] == [1, 2, 3, 4] and [g["hub"] for g in G] == [0, 1, 2, 3], G
fl = sorted((f["client"], f["server"], f["figure"]) for g in G for f in g["flows"])
assert fl == sorted((p["client"], p["server"], p["figure"]) for p in P) and len(P) == 8, (fl, P)
assert L[-2]["type"] == "cluster" and len(L[-2]["cluster"]["tests"][0]["groups"]) == 4
c, d = L[-2]["cluster"], L[-1]
assert d["exit_status"] == int(sys.argv[2]) and sys.argv[3] == "0", (d, sys.argv[2:])
assert eval(sys.argv[4]), (d, c["outliers"], c["gone"])
PY
	pass "incast:2 --json_stream: a group line per round (hubs 0-3), a pair line per flow with its figure, the cluster line's 4 groups; ran to its end" ||
	fail "incast:2 --json_stream: a group line per round, a pair line per flow" "$(cat "$T/st.err")" "$(head -c 1500 "$OUT_FILE")"

section "incast failed rounds"
# sv_env RANK: softverbs node RANK+1, local rank RANK (so -i's list gives
# rank 1 the device that does not exist).
sv_env() {
	echo LD_LIBRARY_PATH="$SV_LIB" SOFTVERBS_NODE=$(($1 + 1)) QPERF_LOCAL_RANK=$1
}
CL_ENV_FN=sv_env
P=$(free_port)
cl_ranks 4 1 incast:2 -t 0.2 -i softv0,nodev,softv0,softv0 rc_bw
cl_rank0 4 incast:2 --seed 3 -t 0.2 -i softv0,nodev,softv0,softv0 rc_bw
cl_wait
CL_ENV_FN=
python3 - "$OUT_FILE" >"$T/fl.err" 2>&1 <<'PY'
import re, sys
L = open(sys.argv[1]).read().split("\n")
why = r"rank (\d) -> (\d): rc_bw: (server: )?no RDMA device nodev; devices: softv0"
failed = set()
for l in L:
    m = re.match(r"round (\d): rc_bw( \(tried again\))? into rank (\d) \(.*\) from ranks (\d), (\d)(.*)$", l)
    if not m:
        continue
    r, again, hub, a, b, rest = m.groups()
    with1 = "1" in (hub, a, b)
    if not with1:
        assert not again and rest.startswith("; starts within "), l
        continue
    f = re.fullmatch(": failed: " + why + ("" if again else "; tried again after the schedule"), rest)
    assert f and "1" in f.group(1, 2), l
    failed.add((r, bool(again)))
rounds = {r for r, _ in failed}
assert rounds and failed == {(r, a) for r in rounds for a in (False, True)}, failed
assert not any("another flow" in l for l in L), [l for l in L if "another flow" in l]
rows = [l.split() for l in L if re.match(r"^ +[0-3]( +(-|[0-9.,]+)){4}$", l)][:4]
assert all(rows[1][1:] == ["-"] * 4 and rows[i][2] == "-" for i in range(4)), rows
print(len(rounds))
PY
py=$?
if [ "$RC" = 1 ] && [ "$CL_RC" = 0 ] && [ "$py" = 0 ]; then
	pass "incast:2 rc_bw, rank 1 without its device: its $(cat "$T/fl.err") rounds fail named by its error, tried again once; its cells empty; exit 1"
else
	fail "incast:2 rc_bw, rank 1 without its device: its rounds fail named by its error, tried again once" \
		"$(cat "$T/fl.err")" "others' exit: $CL_RC" "$(ctx)"
fi

section "incast usage"
run -t 30 env QPERF_RANK=0 QPERF_SIZE=4 "$QPERF" --cluster incast:4 --rendezvous 127.0.0.1:1 tcp_bw
expect "incast:4 with 4 ranks: one line naming it, exit 2" 2 '^$' \
	"^qperf: --cluster incast:4: K must be below the number of ranks \(4\): a round's 4 senders are among the 3 other ranks$"
[ "$(wc -l <"$ERR_FILE")" = 1 ] && pass "incast:4 with 4 ranks: exactly one line" ||
	fail "incast:4 with 4 ranks: exactly one line" "$(ctx)"
run -t 30 env QPERF_RANK=3 QPERF_SIZE=4 "$QPERF" --cluster fanout:9 --rendezvous 127.0.0.1:1 tcp_bw
expect "fanout:9 with 4 ranks (rank 3): one line, exit 2" 2 '^$' \
	"^qperf: --cluster fanout:9: K must be below the number of ranks \(4\): a round's 9 receivers are among the 3 other ranks$"
for bad in incast:0 incast:x fanout: fanout:17 incast:2x; do
	run "$QPERF" --cluster "$bad" tcp_bw
	if [ "$RC" = 2 ] && [ -z "$OUT" ] && [ "$(wc -l <"$ERR_FILE")" = 1 ] &&
		grep -Eq "^qperf: --cluster: $bad: bad cluster pattern $bad: (K must be 1 to 16|(incast|fanout):K needs a number of (senders|receivers))$" "$ERR_FILE"; then
		pass "--cluster $bad: one line naming it, exit 2"
	else
		fail "--cluster $bad: one line naming it, exit 2" "$(ctx)"
	fi
done
section ""

[ -n "${INCAST_ALONE:-}" ] && finish
