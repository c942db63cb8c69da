#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Soak (issue 17 item 18): bench/soak.sh with N=2000: one server serves
# 2,000 short tests (sockets, and RDMA over softverbs) mixed with aborted
# clients; its children, descriptors and memory must not grow.  The
# checks assert on the figures the script prints ("soak: figures ...").
#
# Run alone (bash tests/robust/soak.sh) or sourced by tests/robust/run.sh.
if [ -z "${LIB_ROOT-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	SOAK_ALONE=1
fi
section "soak"
if checks_match "soak"; then
	SOAK_N=${SOAK_N:-2000}
	run -t 400 env N="$SOAK_N" SAMPLES=10 BATCH=20 PAR=8 ABORT_EVERY=4 \
		OURS="$QPERF" bash "$LIB_ROOT/bench/soak.sh"
	# soak_fig NAME: the figure NAME=VALUE of the "soak: figures" line.
	soak_fig() {
		sed -n 's/^soak: figures //p' "$OUT_FILE" | tr ' ' '\n' |
			sed -n "s/^$1=//p"
	}
	ok=$(soak_fig tests_ok) ran=$(soak_fig tests_run)
	aborts=$(soak_fig aborts) secs=$(soak_fig secs)
	if [ -n "$ok" ] && [ "$ran" -ge "$SOAK_N" ] &&
		[ $((ok * 100)) -ge $((ran * 99)) ] &&
		[ "$aborts" -ge $((SOAK_N / 100)) ]; then
		pass "soak: $ok of $ran tests succeeded, $aborts aborted clients (${secs}s)"
	else
		fail "soak: at least 99% of $SOAK_N tests succeeded, aborted clients mixed in" "$(ctx)"
	fi
	[ "$(soak_fig kids_max)" = 0 ] && pass "soak: no child left when idle" ||
		fail "soak: no child left when idle" "$(ctx)"
	f0=$(soak_fig fd_first)
	if [ -n "$f0" ] && [ "$f0" = "$(soak_fig fd_max)" ] &&
		[ "$f0" = "$(soak_fig fd_last)" ]; then
		pass "soak: open descriptors back to $f0 at every idle sample"
	else
		fail "soak: open descriptors back to the first sample's count" "$(ctx)"
	fi
	g=$(soak_fig rss_growth) tol=$(soak_fig rss_tol)
	if [ -n "$g" ] && [ "$g" -le "$tol" ]; then
		pass "soak: VmRSS grew $g kB after the 10% mark (tolerance $tol kB)"
	else
		fail "soak: VmRSS growth after the 10% mark within tolerance" "$(ctx)"
	fi
	[ "$RC" = 0 ] && has '^soak: verdict ok$' &&
		pass "soak: bench/soak.sh verdict ok, exit 0" ||
		fail "soak: bench/soak.sh verdict ok, exit 0" "$(ctx)"
fi
[ -n "${SOAK_ALONE-}" ] && finish
