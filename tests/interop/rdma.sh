# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by tests/interop/run.sh (after its socket checks): the report
# layout of every RDMA test 0.4.11 has (the 21 of spec §2 that Debian's
# build has: no XRC), at the default verbosity, -v and -vv, over
# softverbs.  For each, 0.4.11's client against 0.4.11's server gives the
# reference: the names of the report lines, in order; our client against
# 0.4.11's server (X), 0.4.11's client against our server (Y) and ours
# against ours must print the same names in the same order.  Figures
# differ from run to run, so only names are compared, and the lines whose
# value may be zero by chance (hidden, spec §3.6) are left out: the
# system's interrupt and iowait shares, and error counts.
#
# 0.4.11 counts whole seconds, so each run takes 1 s; the twelve runs of a
# test go side by side, 0.4.11's against six 0.4.11 servers (it serves
# one test at a time).  A pair whose names differ runs again, alone, up
# to three times: on a loaded machine a run may complete nothing in its
# second (0.4.11's rc_rdma_read_bw did, against either server, 2 times in
# 8 at a load of 40), and its zero lines are then hidden; a layout that
# differs differs every time.
#   SV_LIB=DIR  softverbs library directory (default softverbs/build)

section "rdma layout"
SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
RDMA_LAYOUT_TESTS="rc_bi_bw rc_bw rc_lat uc_bi_bw uc_bw uc_lat ud_bi_bw ud_bw
ud_lat rc_rdma_read_bw rc_rdma_read_lat rc_rdma_write_bw rc_rdma_write_lat
rc_rdma_write_poll_lat uc_rdma_write_bw uc_rdma_write_lat
uc_rdma_write_poll_lat rc_compare_swap_mr rc_fetch_add_mr
ver_rc_compare_swap ver_rc_fetch_add"

# rdma_names FILE: the report's line names, one line, space-separated.
rdma_names() {
	sed -n 's/^    \([a-z_]*\) *  =  .*/\1/p' "$1" |
		grep -vE '(iowait|intr|errors)$' | tr '\n' ' '
}

# rl_start WHO TEST V SLOT: start, in the background, run WHO (LL:
# 0.4.11's client and server, X: ours -> 0.4.11, Y: 0.4.11 -> ours, ours)
# of TEST at verbosity V; 0.4.11 servers RL_LPORTS[SLOT] (LL) and
# [SLOT + 1] (X).  Its output goes to $T/rl.TEST$V.WHO.
rl_start() {
	local who=$1 t=$2 v=$3 i=$4 cl=$QPERF port=$RL_OPORT
	case $who in
	LL) cl=$LEGACY_QPERF port=${RL_LPORTS[i]} ;;
	X) port=${RL_LPORTS[i + 1]} ;;
	Y) cl=$LEGACY_QPERF ;;
	esac
	# (an empty V is no argument)
	SOFTVERBS_NODE=2 timeout -k 2 20 "$cl" localhost -lp "$port" -t 1 \
		${v:+"$v"} "$t" >"$T/rl.$t$v.$who" 2>&1 </dev/null &
	RL_PIDS+=($!)
}

rdma_layout() {
	local lpids=() t v i who f ref got
	RL_LPORTS=()
	export LD_LIBRARY_PATH=$SV_LIB
	export SOFTVERBS_FABRIC=qperf-interop-$$ SOFTVERBS_NODE=1
	# 0.4.11's server runs one test at a time (spec §1): one server for
	# each of the six runs of a test that use one
	for i in 0 1 2 3 4 5; do
		if ! start_legacy_server; then
			fail "rdma layout: 0.4.11 servers start over softverbs"
			return
		fi
		RL_LPORTS+=("$LEGACY_PORT")
		lpids+=("$LEGACY_PID")
	done
	# six clients at once from one address
	if ! start_server -- --max_per_client 16; then
		fail "rdma layout: our server starts over softverbs"
		return
	fi
	RL_OPORT=$SERVER_PORT
	for t in $RDMA_LAYOUT_TESTS; do
		checks_match "rdma layout" "$t" || continue
		RL_PIDS=()
		i=0
		for v in "" -v -vv; do
			for who in LL X Y ours; do
				rl_start "$who" "$t" "$v" "$i"
			done
			i=$((i + 2))
		done
		wait "${RL_PIDS[@]}"
		i=0
		for v in "" -v -vv; do
			f=$T/rl.$t$v
			for who in X Y ours; do
				ref=$(rdma_names "$f.LL")
				got=$(rdma_names "$f.$who")
				for _ in 1 2 3; do
					[ -n "$ref" ] && [ "$got" = "$ref" ] && break
					# Again, the two alone: on a loaded
					# machine a run may do nothing in its
					# second, and its zero lines are hidden.
					RL_PIDS=()
					rl_start LL "$t" "$v" "$i"
					rl_start "$who" "$t" "$v" "$i"
					wait "${RL_PIDS[@]}"
					ref=$(rdma_names "$f.LL")
					got=$(rdma_names "$f.$who")
				done
				if [ -n "$ref" ] && [ "$got" = "$ref" ]; then
					pass "rdma layout: $who: $t${v:+ $v} as 0.4.11's"
				else
					fail "rdma layout: $who: $t${v:+ $v} as 0.4.11's" \
						"ours:   $got" "0.4.11: $ref" \
						"$(cat "$f.$who")" "--- 0.4.11:" \
						"$(cat "$f.LL")"
				fi
			done
			i=$((i + 2))
		done
	done
	for i in 0 1 2 3 4 5; do
		stop_server "${RL_LPORTS[i]}" "${lpids[i]}"
	done
	stop_server "$RL_OPORT" "$SERVER_PID"
	unset LD_LIBRARY_PATH SOFTVERBS_FABRIC SOFTVERBS_NODE
}

if [ ! -e "$SV_LIB/libibverbs.so.1" ]; then
	fail "rdma layout: softverbs is built ($SV_LIB/libibverbs.so.1)" "run make first"
elif ! "$QPERF" --version | grep -q 'rdma: built'; then
	fail "rdma layout: this qperf has the RDMA tests" "$("$QPERF" --version)"
else
	rdma_layout
fi
