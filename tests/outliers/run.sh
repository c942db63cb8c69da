#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster mode's outlier search on a shaped fabric, on one machine (split
# from tests/cluster/run.sh: its figures judge timing, so tests/run.sh runs
# this suite alone, with only light suites beside it).
#
# B. Outlier finding: 6 ranks, each in its own network namespace joined
#    to a bridge (in a hub namespace) by a veth shaped with tc (tbf per
#    veth; an htb class with a u32 filter for one slow link), started with
#    QPERF_RANK/QPERF_SIZE and --rendezvous.  Nothing planted: no outlier;
#    one slow node: exactly that node; one slow link: exactly that link.
#    The heat maps (--plot) of these runs mark exactly what was found;
#    the slow-link run writes --json, which names exactly that link.
# C. A rank killed mid-run is reported and the others finish.
# D. incast:4 and fanout:4 of 5 ranks behind tbf: aggregates within 10%
#    of the rate, fairness, the one sender (receiver) behind a tighter
#    rate named the slowest, the one slower receiver the outlier
#    (tests/outliers/incast.sh, sourced here).
#
# Usage: bash tests/outliers/run.sh   (needs root and iproute2)

. "$(dirname "$0")/../lib.sh"
. "$LIB_ROOT/tests/cluster/cl_lib.sh" # jq_is, json_valid, svg_ok

# The rates are low and the tests 2 s long so that the shaper, not this
# small shared machine's CPUs, sets the figures (at 100 Mbit/s and 1 s, a
# load of 13 on 2 CPUs gave pairs at half the rate).
RATE=${RATE:-50} # Mbit/s of every veth
SLOW=${SLOW:-10} # Mbit/s of a planted slow node or link
N=${N:-6}
TT=${TT:-2} # seconds per pair test

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
	fail "root, ip and tc (iproute2) are available"
	finish
fi
# every rank's messages are sealed with a job secret
head -c 32 /dev/urandom >"$T/job.key" && chmod 600 "$T/job.key"
export QPERF_SECRET_FILE=$T/job.key

# --- B. namespaces, a bridge and planted faults ------------------------------
HUB=qpc-hub-$$
at_exit "ip netns del $HUB"
ns() { echo "qpc-$$-$1"; }
addr() { echo "10.79.0.$(($1 + 1))"; }
setup() {
	ip netns add "$HUB" &&
		ip -n "$HUB" link add br0 type bridge &&
		ip -n "$HUB" link set br0 up || return 1
	for k in $(seq 0 $((N - 1))); do
		ip netns add "$(ns $k)" &&
			ip link add "qc$$r$k" type veth peer name "qc$$h$k" &&
			ip link set "qc$$r$k" netns "$(ns $k)" &&
			ip link set "qc$$h$k" netns "$HUB" &&
			ip -n "$HUB" link set "qc$$h$k" master br0 &&
			ip -n "$HUB" link set "qc$$h$k" up &&
			ip -n "$(ns $k)" addr add "$(addr $k)/24" dev "qc$$r$k" &&
			ip -n "$(ns $k)" link set lo up &&
			ip -n "$(ns $k)" link set "qc$$r$k" up || return 1
	done
}
for k in $(seq 0 $((N - 1))); do at_exit "ip netns del $(ns $k)"; done
if setup 2>"$T/setup.err"; then
	pass "$N namespaces on a bridge (10.79.0.1-$N)"
else
	fail "$N namespaces on a bridge" "$(cat "$T/setup.err")"
	finish
fi

# shape K RATE: both directions of rank K's veth (its egress in its own
# namespace, its ingress on the hub side) limited to RATE Mbit/s.
shape() {
	tc -n "$(ns $1)" qdisc replace dev "qc$$r$1" root tbf rate "${2}mbit" burst 64kb latency 50ms &&
		tc -n "$HUB" qdisc replace dev "qc$$h$1" root tbf rate "${2}mbit" burst 64kb latency 50ms
}
# slow_link A B: RATE for everything from A except to B, SLOW to B (and
# the same from B to A): an htb class with a u32 filter on each side.
slow_link() {
	local a=$1 b=$2 x y
	for x in "$a $b" "$b $a"; do
		set -- $x
		y="qc$$r$1"
		tc -n "$(ns $1)" qdisc del dev "$y" root 2>/dev/null
		tc -n "$(ns $1)" qdisc add dev "$y" root handle 1: htb default 10 &&
			tc -n "$(ns $1)" class add dev "$y" parent 1: classid 1:10 htb rate "${RATE}mbit" &&
			tc -n "$(ns $1)" class add dev "$y" parent 1: classid 1:20 htb rate "${SLOW}mbit" &&
			tc -n "$(ns $1)" filter add dev "$y" parent 1: protocol ip prio 1 u32 \
				match ip dst "$(addr $2)/32" flowid 1:20 || return 1
	done
}
shape_all() {
	for k in $(seq 0 $((N - 1))); do shape $k "$RATE" || return 1; done
}

# cluster_run NAME [EXTRA-ARGS]: ranks 1..CL_N-1 (N by default) in the
# background, rank 0 in the foreground (its report in OUT_FILE), pattern
# CL_PATTERN (all by default); the others' output in $T/rank.NAME.K.
# Sets RANK_PIDS.
RV_PORT=19790
cluster_run() {
	local name=$1 k n=${CL_N:-$N}
	shift
	RANK_PIDS=()
	for k in $(seq 1 $((n - 1))); do
		ip netns exec "$(ns $k)" env QPERF_RANK=$k QPERF_SIZE=$n "$QPERF" \
			--cluster "${CL_PATTERN:-all}" --rendezvous "$(addr 0):$RV_PORT" -t "$TT" "$@" \
			>"$T/rank.$name.$k" 2>&1 </dev/null &
		RANK_PIDS+=($!)
		track_pid $!
	done
	run -t 300 ip netns exec "$(ns 0)" env QPERF_RANK=0 QPERF_SIZE=$n "$QPERF" \
		--cluster "${CL_PATTERN:-all}" --rendezvous "$(addr 0):$RV_PORT" --seed 5 -t "$TT" "$@"
}
ranks_exit_0() {
	local k=1 pid bad=
	for pid in "${RANK_PIDS[@]}"; do
		wait "$pid" || bad="$bad $k"
		k=$((k + 1))
	done
	[ -z "$bad" ] && pass "$1: ranks 1-$((k - 1)) exit 0" ||
		fail "$1: ranks 1-$((k - 1)) exit 0 (not:$bad)" "$(cat "$T"/rank.$1.* | head -20)"
}
outliers_are() { # NAME EXPECTED-LINES-REGEX COUNT [FILE]
	local got f=${4:-$OUT_FILE}
	got=$(grep -c '^outlier: ' "$f")
	if [ "$got" = "$3" ] && { [ "$3" = 0 ] || [ "$(grep '^outlier: ' "$f" | grep -Ec -- "$2")" = "$3" ]; }; then
		pass "$1"
	else
		fail "$1 ($got outlier lines)" "$(ctx)"
	fi
}

if shape_all 2>"$T/tc.err"; then
	pass "tc tbf ${RATE}mbit on every veth, both directions"
else
	fail "tc tbf on every veth" "$(cat "$T/tc.err")"
	finish
fi
cluster_run none --plot "$T/none.svg" tcp_bw
expect "uniform fabric: report of $N ranks, $((N - 1)) rounds" 0 "^cluster: $N ranks, pattern all, seed 5, $((N - 1)) rounds$" '^$'
outliers_are "uniform fabric: no outlier" x 0
has '^cluster: 0 outliers$' && pass "uniform fabric: 'cluster: 0 outliers'" || fail "uniform fabric: 'cluster: 0 outliers'" "$(ctx)"
ranks_exit_0 none
# The figures are the shaped rate: every cell within 60-100% of RATE
# (payload over frames, and 3 pairs at once through one bridge).
cells=$(awk -v lo=$((RATE * 60 / 8 / 100)) -v hi=$((RATE / 8 + 1)) '/^tcp_bw:/ { on = 1; next } /^[a-z]/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ && / -( |$)/ { for (i = 2; i <= NF; i++) if ($i != "-") { n++; v = $i; gsub(",", "", v); if (v + 0 >= lo && v + 0 <= hi) ok++ } }
	END { print ok + 0 "/" n + 0 }' "$OUT_FILE")
[ "$cells" = "$((N * (N - 1)))/$((N * (N - 1)))" ] &&
	pass "uniform fabric: all $((N * (N - 1))) directed figures near ${RATE} Mbit/s" ||
	fail "uniform fabric: directed figures near ${RATE} Mbit/s ($cells)" "$(ctx)"
svg_ok "uniform fabric: heat map" "$T/none.svg" $N
# It marks what the report found (nothing, unless the check above failed).
nodes=$(count_lines '^outlier: node ') links=$(count_lines '^outlier: link ')
[ "$(grep -c '<rect class="outlier-node"' "$T/none.svg")" = $((2 * nodes)) ] &&
	[ "$(grep -c '<rect class="outlier-link"' "$T/none.svg")" = $((2 * links)) ] &&
	{ [ $((nodes + links)) != 0 ] || [ "$RED" = 0 ]; } &&
	pass "uniform fabric: heat map marks what the report found ($nodes nodes, $links links, $RED red pixels)" ||
	fail "uniform fabric: heat map marks what the report found ($nodes nodes, $links links, $RED red pixels)" "$(grep 'outlier' "$T/none.svg")"

shape 3 "$SLOW"
cluster_run node --plot "$T/node.svg" tcp_bw
outliers_are "slow node: exactly rank 3 is an outlier" '^outlier: node .* \(rank 3\): tcp_bw .* MB/s against a median of .* MB/s \(-[0-9]+%\); retest against rank [0-9]+: .* MB/s$' 1
expect "slow node: exit 1 (an outlier was found)" 1 '^cluster: 1 outlier$'
svg_ok "slow node: heat map" "$T/node.svg" $N
# Rank 3's row and column outlined, its two labels and its key in red.
[ "$RED" -gt 100 ] && [ "$(grep -c '<rect class="outlier-node"' "$T/node.svg")" = 2 ] &&
	[ "$(grep -Ec 'fill="#e31a1c" font-weight="bold">[^<]*:3</text>' "$T/node.svg")" = 2 ] &&
	grep -q '>outlier node [^<]*:3</text>' "$T/node.svg" && ! grep -q 'class="outlier-link"' "$T/node.svg" &&
	pass "slow node: heat map marks rank 3's row and column, only" ||
	fail "slow node: heat map marks rank 3 only ($RED red pixels)" "$(grep -i 'outlier\|e31a1c' "$T/node.svg")"
ranks_exit_0 node

shape_all
if slow_link 1 4 2>"$T/tc.err"; then
	pass "htb: link 1-4 at ${SLOW}mbit, everything else at ${RATE}mbit"
else
	fail "htb slow link" "$(cat "$T/tc.err")"
fi
# With --json: the same content as the text report's outlier: line.
cluster_run link --json --plot "$T/link.svg" tcp_bw
json_valid "slow link --json: one document, valid against the schema"
jq_is "slow link --json: $N ranks, $((N * (N - 1))) directed figures, none missing" \
	'c["size"] == '$N' and c["pattern"] == "all" and c["seed"] == 5 and len(c["ranks"]) == '$N' and c["tests"][0]["directed_figures"] == '$((N * (N - 1)))' and c["tests"][0]["missing"] == [] and len(c["tests"][0]["node_medians"]) == '$N
jq_is "slow link --json: exactly link 1-4 is an outlier, confirmed by its retest" \
	'[(o["kind"], o["ranks"]) for o in c["outliers"]] == [("link", [1, 4])] and c["outliers"][0]["retest"] < c["outliers"][0]["median"] and c["gone"] == [] and d["exit_status"] == 1'
python3 -c 'import json, sys; [print(o["line"]) for o in json.load(open(sys.argv[1]))["cluster"]["outliers"]]' \
	"$OUT_FILE" >"$T/link.lines" 2>&1
outliers_are "slow link: its line is the text report's outlier: line" '^outlier: link .* \(rank 1\) - .* \(rank 4\): tcp_bw .* MB/s against .* of its nodes \(-[0-9]+%\); retest alone: .* MB/s$' 1 "$T/link.lines"
svg_ok "slow link: heat map" "$T/link.svg" $N
[ "$RED" -gt 50 ] && [ "$(grep -c '<rect class="outlier-link"' "$T/link.svg")" = 2 ] &&
	grep -q '>outlier link [^<]*:1 - [^<]*:4</text>' "$T/link.svg" && ! grep -q 'class="outlier-node"' "$T/link.svg" &&
	pass "slow link: heat map marks cells 1-4 and 4-1, only" ||
	fail "slow link: heat map marks link 1-4 only ($RED red pixels)" "$(grep -i 'outlier\|e31a1c' "$T/link.svg")"
ranks_exit_0 link

# --- D. incast:K and fanout:K behind tbf (tests/outliers/incast.sh) --------
. "$(dirname "$0")/incast.sh"

# --- C. a rank killed mid-run ------------------------------------------------
shape_all
N_KILL=3
RANK_PIDS=()
for k in $(seq 1 $((N - 1))); do
	ip netns exec "$(ns $k)" env QPERF_RANK=$k QPERF_SIZE=$N "$QPERF" \
		--cluster all --rendezvous "$(addr 0):$RV_PORT" -t "$TT" tcp_bw \
		>"$T/rank.kill.$k" 2>&1 </dev/null &
	RANK_PIDS+=($!)
	track_pid $!
done
: >"$T/kill.out" # before the wait: grep fails at once on no file (wait_for)
ip netns exec "$(ns 0)" env QPERF_RANK=0 QPERF_SIZE=$N "$QPERF" --cluster all \
	--rendezvous "$(addr 0):$RV_PORT" -t "$TT" tcp_bw >"$T/kill.out" 2>"$T/kill.err" </dev/null &
R0=$!
track_pid $R0
# Once every rank has joined (rank 0 lists them), kill rank 3 by its PID.
wait_for 30 grep -qs "^  rank $((N - 1)):" "$T/kill.out"
sleep 2
kill -9 "${RANK_PIDS[$((N_KILL - 1))]}"
wait $R0
RC=$?
OUT=$(cat "$T/kill.out")
ERR=$(cat "$T/kill.err")
cp "$T/kill.out" "$OUT_FILE"
cp "$T/kill.err" "$ERR_FILE"
expect "killed rank: rank 0 finishes and reports it gone (exit 1)" 1 "^gone: rank $N_KILL \(.*\): " "rank $N_KILL \(.*\) (left|did not finish)"
has '^cluster: [0-9]+ outliers?$' && pass "killed rank: the run went on to its end" ||
	fail "killed rank: the run went on to its end" "$(ctx)"
alive_ok=1
for k in $(seq 1 $((N - 1))); do
	[ $k = $N_KILL ] && continue
	wait "${RANK_PIDS[$((k - 1))]}" || alive_ok=0
done
[ $alive_ok = 1 ] && pass "killed rank: the other ranks exit 0" ||
	fail "killed rank: the other ranks exit 0" "$(cat "$T"/rank.kill.* | head)"
sleep 0.5
left=$(ip netns pids "$(ns $N_KILL)" 2>/dev/null | wc -l)
[ "$left" = 0 ] && pass "killed rank: its server child ended with it" ||
	fail "killed rank: its server child ended with it ($left processes left in its namespace)"

finish
