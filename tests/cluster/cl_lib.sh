#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback cluster runs for tests/cluster/strangers.sh and verdicts.sh,
# and the checks of a run's --json and --plot (jq_is, json_valid, svg_ok)
# for tests/cluster/run.sh and tests/outliers/run.sh (sourced after
# tests/lib.sh): ranks started with QPERF_RANK/QPERF_SIZE
# and --rendezvous 127.0.0.1:$P, each with CL_ARGS (from CLUSTER_ARGS:
# options every rank gets, e.g. "--secret_file FILE").

read -ra CL_ARGS <<<"${CLUSTER_ARGS:-}"
PY=$(command -v /usr/bin/python3 || command -v python3) # the plain one starts fast

# cl_alone: for a file of the cluster suite run alone (after tests/lib.sh
# and this file): softverbs built (SV_LIB) and a job secret of its own.
cl_alone() {
	make -s -C "$LIB_ROOT/softverbs" >/dev/null || fail "$1: softverbs builds"
	SV_LIB=$LIB_ROOT/softverbs/build
	head -c 32 /dev/urandom | base64 >"$T/job.key" && chmod 600 "$T/job.key"
	export QPERF_SECRET_FILE=$T/job.key
}

# cl_env RANK: VAR=VALUE words for that rank's environment (CL_ENV_FN names a
# function that prints them; none by default).
cl_env() {
	[ -z "${CL_ENV_FN:-}" ] || "$CL_ENV_FN" "$1"
}
# cl_ranks N FROM PATTERN ARGS...: ranks FROM..N-1 of a loopback run on port $P
# in the background, each rank's stderr in $T/cl.RANK.err (CL_PIDS).
cl_ranks() {
	local n=$1 from=$2 r
	shift 2
	CL_PIDS=()
	for r in $(seq "$from" $((n - 1))); do
		# shellcheck disable=SC2046 # cl_env's words, split on purpose
		env $(cl_env "$r") QPERF_RANK=$r QPERF_SIZE=$n "$QPERF" "${CL_ARGS[@]}" \
			--rendezvous "127.0.0.1:$P" --cluster "$@" >/dev/null 2>"$T/cl.$r.err" </dev/null &
		CL_PIDS+=($!)
		track_pid $!
	done
}
# cl_rank0 N PATTERN ARGS...: rank 0 in the background, stdout $T/cl.out, stderr
# $T/cl.0.err (CL0).
cl_rank0() {
	local n=$1
	shift
	: >"$T/cl.out"
	# shellcheck disable=SC2046 # cl_env's words, split on purpose
	env $(cl_env 0) QPERF_RANK=0 QPERF_SIZE=$n timeout 120 "$QPERF" "${CL_ARGS[@]}" \
		--rendezvous "127.0.0.1:$P" --cluster "$@" >"$T/cl.out" 2>"$T/cl.0.err" </dev/null &
	CL0=$!
	track_pid $CL0
}
# cl_wait: wait for rank 0 (RC, OUT, ERR and their files, as run sets them)
# and the others (CL_RC: the last failing status).
# shellcheck disable=SC2034 # OUT, ERR: read by tests/lib.sh (ctx)
cl_wait() {
	local pid
	wait "$CL0"
	RC=$?
	CL_RC=0
	for pid in "${CL_PIDS[@]}"; do wait "$pid" || CL_RC=$?; done
	cp "$T/cl.out" "$OUT_FILE"
	cp "$T/cl.0.err" "$ERR_FILE"
	OUT=$(cat "$OUT_FILE")
	ERR=$(cat "$ERR_FILE")
}
# server_port K: rank K's server port from rank 0's header.
server_port() {
	sed -n "s/^  rank $1: .* port \([0-9]*\))\$/\1/p" "$T/cl.out"
}
# jq_is NAME EXPR: EXPR, Python on the --json document in OUT_FILE (d;
# c = d["cluster"]), is true.
jq_is() {
	if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); c = d["cluster"]; sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$OUT_FILE" "$2" 2>"$T/jq.err"; then
		pass "$1"
	else
		fail "$1" "$2" "$(cat "$T/jq.err")" "$(head -c 1500 "$OUT_FILE")"
	fi
}
json_valid() { # NAME: OUT_FILE is one document valid against the schema
	local why
	why=$(python3 "$LIB_ROOT/tests/json_check.py" doc "$OUT_FILE" 2>&1) &&
		pass "$1" || fail "$1" "$why" "$(head -c 600 "$OUT_FILE")"
}
# svg_ok NAME SVG N: well-formed, N x N cells, renders; RED is then the
# number of pixels drawn in the outlier marks' colour.
svg_ok() {
	local cells
	RED=-1
	if ! xmllint --noout "$2" 2>"$T/xmllint.err"; then
		fail "$1: well-formed XML (xmllint)" "$(cat "$T/xmllint.err")"
		return
	fi
	cells=$(grep -c '<rect class="cell[ "]' "$2")
	if [ "$cells" != $(($3 * $3)) ] ||
		! rsvg-convert -o "$T/heat.png" "$2" 2>"$T/rsvg.err"; then
		fail "$1: $3 x $3 cells ($cells) and renders" "$(cat "$T/rsvg.err")"
		return
	fi
	RED=$(png_ink "$T/heat.png" e31a1c)
	pass "$1: well-formed, $3 x $3 cells, renders ($(png_ink "$T/heat.png") pixels drawn, $RED in red)"
}
