#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build each libFuzzer harness with clang (ASan+UBSan) and run it briefly.
# FUZZ_SECONDS (default 8) per harness (half that for fuzz_interval).  Last line: "N passed, N failed".
# FUZZ_RUNS=N runs N executions instead (bench/fuzz-depth.sh), and
# FUZZ_LOG_DIR=DIR keeps each harness's libFuzzer log in DIR.
# Narrowing (QPERF_CHECKS) builds and runs only the harnesses it selects.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
secs=${FUZZ_SECONDS:-8}
out=$T
if ! command -v clang >/dev/null; then
	fail "clang is not installed"; finish
fi
# the harnesses narrowing selects (each check is named after its harness)
harnesses=()
for h in tests/fuzz/fuzz_*.c; do
	selected_check "$(basename "$h" .c)" && harnesses+=("$h")
done
srcs="
	$(ls lib/*.c)
	core/opts.c
	core/opts_loop.c
	core/opt_table.c
	core/opt_err.c
	core/acl.c
	core/auth.c
	core/supervise.c
	core/param.c
	core/help.c
	core/ctl.c
	core/ctl_qps.c
	core/session.c
	core/session_cnt.c
	core/pathrun.c
	core/streams.c
	core/cpu.c
	core/measure.c
	core/openloop.c
	core/clients_check.c
	core/load_check.c
	core/regmr_opts.c
	core/measure_win.c
	core/measure_conn.c
	core/interval.c
	core/fabric.c
	cluster/cluster_msg.c
	transports/table.c
	transports/sock.c
	transports/sock_io.c
	transports/sock_cnt.c
	transports/sock_conn.c
	transports/sock_facts.c
	transports/sock_conns.c
	output/out.c
	output/report.c
	output/report_tab.c
	output/report_x.c
	output/report_cnt.c
	output/report_pace.c
	output/plot.c
	output/conf_text.c
	output/report_ival.c
	output/report_streams.c
	output/sink.c
	core/checks.c
	output/verdict_out.c
	output/baseline.c
	output/compare.c
	output/json.c
	output/json_cnt.c
	output/json_regmr.c
	output/report_regmr.c
	output/json_conn.c
	output/report_conn.c
	output/json_path.c
	output/report_clients.c
	output/json_clients.c
	output/report_load.c
	output/json_load.c
	output/report_qps.c
	output/json_qps.c
"
# The product sources are compiled once (for every harness; in parallel,
# as many at once as there are CPUs), then each harness is linked.
# (the flags: words without spaces, so one exported string)
FUZZ_CFLAGS="-std=gnu11 -g -O1 -D_GNU_SOURCE -I. -fsanitize=address,undefined -fno-sanitize-recover=undefined"
# libcrypto's HMAC (core/auth.c), as the product has it when installed:
# fuzz_cluster opens sealed messages.
FUZZ_LIBS=$(pkg-config --libs jansson) # --baseline and JSON (core/checks.c)
if pkg-config --exists libcrypto 2>/dev/null; then
	FUZZ_CFLAGS="$FUZZ_CFLAGS -DHAVE_AUTH"
	FUZZ_LIBS="$FUZZ_LIBS $(pkg-config --libs libcrypto)"
fi
mkdir -p "$out/obj"
objs=()
for f in $srcs; do
	objs+=("$out/obj/${f//\//_}.o")
done
cc_one() { # source: its object, or a .err file
	# shellcheck disable=SC2086 # FUZZ_CFLAGS is a list of words
	clang $FUZZ_CFLAGS -fsanitize=fuzzer-no-link -c -o "$out/obj/${1//\//_}.o" "$1" \
		2>"$out/obj/${1//\//_}.err"
}
export -f cc_one
export out FUZZ_CFLAGS
printf '%s\n' $srcs | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c 'cc_one "$1"' _ {}
build() { # harness
	local name
	name=$(basename "$1" .c)
	# shellcheck disable=SC2086 # FUZZ_CFLAGS and FUZZ_LIBS are lists of words
	if clang $FUZZ_CFLAGS -fsanitize=fuzzer -o "$out/$name" "$1" "${objs[@]}" \
		-lm -pthread $FUZZ_LIBS 2>"$out/$name.build"; then
		touch "$out/$name.built"
	else
		cat "$out"/obj/*.err >>"$out/$name.build"
	fi
}
for h in "${harnesses[@]}"; do
	build "$h"
done
for h in "${harnesses[@]}"; do
	name=$(basename "$h" .c)
	mkdir -p "$out/corpus-$name"
	if [ ! -e "$out/$name.built" ]; then
		fail "$name: build" "$(cat "$out/$name.build")"; continue
	fi
	# fuzz_interval and fuzz_counters decode one small block: half the
	# time is plenty
	hsecs=$secs
	case $name in
	fuzz_interval | fuzz_counters) hsecs=$(((secs + 1) / 2)) ;;
	esac
	# FUZZ_RUNS (bench/fuzz-depth.sh): that many executions instead
	limit=(-max_total_time="$hsecs")
	[ -n "${FUZZ_RUNS-}" ] && limit=(-runs="$FUZZ_RUNS" -print_final_stats=1)
	# tests/fuzz/seeds/NAME: inputs that once failed (regressions),
	# read before fuzzing; what a run finds is written under $out, never
	# into the checkout (-artifact_prefix)
	seeds=()
	[ -d "tests/fuzz/seeds/$name" ] && seeds=("tests/fuzz/seeds/$name")
	if "$out/$name" "${limit[@]}" -max_len=4096 -timeout=10 \
		-artifact_prefix="$out/$name-" \
		"$out/corpus-$name" "${seeds[@]}" >"$out/$name.log" 2>&1; then
		pass "$name ($(grep -o 'Done [0-9]* runs' "$out/$name.log"))"
	else
		fail "$name" "$(tail -n 30 "$out/$name.log")"
	fi
	# FUZZ_LOG_DIR: keep each harness's log there
	[ -n "${FUZZ_LOG_DIR-}" ] && cp "$out/$name.log" "$FUZZ_LOG_DIR/"
done
finish
