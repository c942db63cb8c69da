#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/fuzz-depth.sh: run each libFuzzer harness of tests/fuzz for RUNS
# executions (default 1,000,000) and report, per harness, the executions,
# the wall time, executions per second and libFuzzer's coverage figures
# (cov: edges covered, ft: features, corp: corpus entries/bytes) in a
# markdown table on stdout.  Needs clang.  See bench/README.md.
#
#   bench/fuzz-depth.sh > bench/results-fuzz.md
#   HARNESSES="fuzz_cluster fuzz_interval" RUNS=100000 bench/fuzz-depth.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-1000000}
case $RUNS in ''|*[!0-9]*|0) echo "fuzz-depth: RUNS must be a positive number, got '$RUNS'" >&2; exit 2 ;; esac
command -v clang >/dev/null || { echo "fuzz-depth: clang is not installed" >&2; exit 2; }
if [ -z "${HARNESSES-}" ]; then
	HARNESSES=$(cd "$here/../tests/fuzz" && printf '%s\n' fuzz_*.c | sed 's/\.c$//')
fi
read -ra hs <<<"${HARNESSES//$'\n'/ }"
logs=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-depth.XXXXXX") || exit 2
trap 'rm -rf "$logs"' EXIT
rows=() failed=0
echo "fuzz-depth: ${hs[*]}, $RUNS runs each" >&2
# one build, then each harness in turn (tests/fuzz/run.sh)
QPERF_CHECKS=$(IFS='|'; echo "${hs[*]}") FUZZ_RUNS=$RUNS FUZZ_LOG_DIR=$logs \
	bash "$here/../tests/fuzz/run.sh" >"$logs/run.out" 2>&1 || failed=1
for h in "${hs[@]}"; do
	log=$logs/$h.log
	if [ ! -s "$log" ]; then
		rows+=("| $h | build or run failed | | | | | | |")
		failed=1
		continue
	fi
	# the last status line: "#1000000<TAB>DONE   cov: 412 ft: 1830 corp: 190/9Kb ..."
	last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9a-zA-Z/]*\).*/\1/p' <<<"$last")
	ok=yes
	if ! grep -q "^ok   $h " "$logs/run.out"; then
		ok="**no**: $(grep -m1 -E 'ERROR|SUMMARY' "$log" | head -c 200)"
		failed=1
	fi
	rows+=("| $h | ${runs:-?} | ${secs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $ok |")
done
cat <<EOF
# Fuzzing depth: each harness for $RUNS executions

- date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(hostname), $(nproc) CPUs,
  $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)
- qperf: $(git -C "$here/.." describe --always --dirty 2>/dev/null); $(clang --version | head -n 1)
- harnesses built by tests/fuzz/run.sh (ASan + UBSan, -O1), each run with
  \`-runs=$RUNS -max_len=4096\` from an empty corpus, one after the other;
  s is the run's time as libFuzzer reports it (whole seconds)

| harness | executions | s | exec/s | cov (edges) | ft (features) | corpus (entries/size) | clean |
|---|--:|--:|--:|--:|--:|--:|---|
EOF
printf '%s\n' "${rows[@]}"
exit $failed
