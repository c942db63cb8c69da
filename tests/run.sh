#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run every test suite: the C unit tests, then each tests/*/run.sh.  Each
# suite's last line is "N passed, N failed"; this sums them.  The last
# line printed here is the total; the exit status is 1 if anything failed.
#   tests/run.sh [SUITE...]     e.g. tests/run.sh unit interop
set -u
cd "$(dirname "$0")/.." || exit 1

suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
	suites=(unit docs build sanitize fuzz integration interop compat robust netns softverbs softverbs-cm rdma cluster)
fi

# The suites' own builds (scratch copies, sanitizer builds) use every CPU;
# each make started by a suite gets its own job slots.
MAKEFLAGS=-j$(nproc 2>/dev/null || echo 2)
export MAKEFLAGS

total_pass=0
total_fail=0
summary=()

run_suite() { # name, command...
	local name=$1 out last p f start
	shift
	start=$(date +%s)
	echo "=== $name: $*"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$last" ]; then
		echo "=== $name: no summary line: counted as 1 failure"
		p=0 f=1
	else
		p=${last%% passed*}
		f=${last#*passed, }
		f=${f%% failed*}
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary+=("$(printf '%-12s %4d passed, %3d failed  (%ds)' "$name" "$p" "$f" $(($(date +%s) - start)))")
}

for s in "${suites[@]}"; do
	case $s in
	unit)
		for t in tests/unit/test_*.c; do
			b=${t%.c}
			run_suite "unit:$(basename "$b")" "./$b"
		done ;;
	integration)
		run_suite integration bash tests/integration/run.sh
		run_suite integration:json bash tests/integration/json.sh
		run_suite integration:streams bash tests/integration/streams.sh ;;
	docs)
		[ -f tests/unit/test_docs.sh ] && run_suite docs bash tests/unit/test_docs.sh ;;
	softverbs-cm)
		# In CI the rdma_cm/rsockets suite also runs on the ASan build.
		run_suite softverbs-cm bash tests/softverbs-cm/run.sh
		[ "${CI:-}" = true ] &&
			run_suite softverbs-cm:asan bash tests/softverbs-cm/run.sh --asan ;;
	*)
		if [ -f "tests/$s/run.sh" ]; then
			run_suite "$s" bash "tests/$s/run.sh"
		else
			echo "=== $s: no tests/$s/run.sh"; total_fail=$((total_fail + 1))
		fi ;;
	esac
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
