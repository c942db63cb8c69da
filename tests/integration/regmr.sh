#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# reg_mr, the memory registration test (issue 20 item 3), over softverbs:
# sizes from 4 KiB to 16 MiB with --loop (positive percentiles and rate,
# the JSON's sizes in order and valid against the schema); cold regions
# cost more to register than prefaulted ones; --threads; --hugepages with
# huge pages reserved here (vm.nr_hugepages, put back on exit) and the one
# line when none are; On-Demand Paging explicit, implicit and prefetch,
# with the first-touch write into a cold range slower than into a warm
# one; --hugepages and --odp on rc_rdma_write_bw (the client's buffer);
# bad values (one usage error, exit 2).  No server runs reg_mr: the
# client is pointed at a port where nothing listens.
#
# Timing checks (cold > prefaulted, first touch cold > warm) try up to
# three times: on a loaded 2-CPU machine one run may be unlucky.  Both
# differences are large over softverbs (a page fault per 4 KiB page
# against none: 3x and more at 4 MiB).
#
# Usage: bash tests/integration/regmr.sh   (QPERF=... overrides)

. "$(dirname "$0")/common.sh"

SV_LIB=${SV_LIB:-$LIB_ROOT/softverbs/build}
SV=(env "LD_LIBRARY_PATH=$SV_LIB" "SOFTVERBS_FABRIC=qperf-regmr-$$")
NOPORT=$(free_port)

# R ARGS...: reg_mr's client over softverbs, no server anywhere.
R() {
	run "${SV[@]}" "$QPERF" 127.0.0.1 -lp "$NOPORT" "$@"
}

need_softverbs

# --- sizes ----------------------------------------------------------------------
section sizes
R -n 8 --loop msg_size:4K:16M:*4 reg_mr
expect "--loop msg_size:4K:16M:*4: exit 0, no server needed" 0 \
	"$(L reg_p50 "$TIME")" '^$'
n=$(grep -c '^reg_mr' "$OUT_FILE")
[ "$n" = 7 ] && pass "--loop msg_size:4K:16M:*4: seven reports" ||
	fail "--loop msg_size:4K:16M:*4: seven reports" "got $n" "$(ctx)"
missing=
for l in reg_p50 reg_p90 reg_p99 reg_max dereg_p50 dereg_p90 dereg_p99 dereg_max; do
	[ "$(grep -cE "$(L "$l" "$TIME")" "$OUT_FILE")" = 7 ] || missing="$missing $l"
done
if [ -z "$missing" ]; then
	pass "--loop: every report has the reg and dereg percentiles"
else
	fail "--loop: every report has the reg and dereg percentiles" "missing:$missing" "$(ctx)"
fi
[ "$(grep -cE "$(L reg_bw "$BW")" "$OUT_FILE")" = 7 ] &&
	[ "$(grep -cE "$(L regions 8)" "$OUT_FILE")" = 7 ] &&
	[ "$(grep -cE "$(L pages '4 KiB, cold')" "$OUT_FILE")" = 7 ] &&
	pass "--loop: reg_bw, regions 8, 4 KiB cold pages in every report" ||
	fail "--loop: reg_bw, regions 8, 4 KiB cold pages in every report" "$(ctx)"
aligned "--loop: the report is aligned"

json_need && {
	R -n 8 --json --loop msg_size:4K:16M:*4 reg_mr
	json_valid "reg_mr --json --loop" doc
	json_assert "reg_mr --json: sizes 4 KiB..16 MiB in order, 8 regions each, positive figures" \
		'[t["results"]["reg_mr"]["size_B"] for t in tests] == [4096 << 2 * i for i in range(7)] and all(
		 r["regions"] == 8 and r["reg"]["count"] == 8 and r["reg"]["p50_s"] > 0 and
		 r["dereg"]["p50_s"] > 0 and r["reg"]["p50_s"] <= r["reg"]["p99_s"] <= r["reg"]["max_s"] and
		 r["reg_Bps"] > 0 and r["odp"] == "off" and r["first_touch"] is None and
		 t["results"]["measure"] == "registration"
		 for t in tests for r in [t["results"]["reg_mr"]]) and E["exit_status"] == 0'
	json_assert "reg_mr --json: 16 MiB takes longer to register than 4 KiB (cold pages)" \
		'tests[-1]["results"]["reg_mr"]["reg"]["p50_s"] > tests[0]["results"]["reg_mr"]["reg"]["p50_s"]'
}

# --- cold against prefaulted ---------------------------------------------------
section prefault
tries=''
for try in 1 2 3; do
	R -n 12 -m 4M reg_mr
	cold=$(vx_ns reg_p50)
	R -n 12 -m 4M --prefault reg_mr
	warm=$(vx_ns reg_p50)
	tries="$tries try $try: cold ${cold:-none} ns, prefaulted ${warm:-none} ns;"
	[ -n "$cold" ] && [ -n "$warm" ] && [ "$cold" -gt "$warm" ] && break
done
expect "--prefault: exit 0, prefaulted pages" 0 "$(L pages '4 KiB, prefaulted')" '^$'
[ -n "$cold" ] && [ -n "$warm" ] && [ "$cold" -gt "$warm" ] &&
	pass "4 MiB: cold regions cost more to register than prefaulted ones ($tries)" ||
	fail "4 MiB: cold regions cost more to register than prefaulted ones" "$tries"

# --- threads -------------------------------------------------------------------
section threads
R -n 10 -m 256K --threads 2 reg_mr
expect "--threads 2 -n 10: exit 0, 20 regions, threads 2" 0 "$(L regions 20)" '^$'
has "$(L threads 2)" || fail "--threads 2: the threads line" "$(ctx)"
R -t 0.3 -m 64K --threads 3 --json reg_mr
json_assert "--threads 3 -t 0.3 --json: threads 3, regions and rate" \
	'R["reg_mr"]["threads"] == 3 and R["reg_mr"]["regions"] >= 3 and R["reg_mr"]["reg_Bps"] > 0'

# --- -t 0: until SIGINT ----------------------------------------------------------
# The threads register until a signal ends the window; the report covers
# the whole run (not one round, as before).  The window has started once
# the process has more than one thread (its registering threads, or
# softverbs' own, both after the window's start).
section forever
threads_of() {
	awk '$1 == "Threads:" { print $2 }' "/proc/$1/status" 2>/dev/null
}
two_threads() {
	[ "$(threads_of "$1")" -ge 2 ] 2>/dev/null
}
"${SV[@]}" "$QPERF" 127.0.0.1 -lp "$NOPORT" -t 0 --threads 2 -m 64K reg_mr \
	>"$LIB_TMP/fv.out" 2>"$LIB_TMP/fv.err" </dev/null &
FV=$!
track_pid "$FV"
if wait_for 30 two_threads "$FV"; then
	sleep 0.5
	kill -INT "$FV"
	wait "$FV"
	rc=$?
	n=$(awk '$1 == "regions" { gsub(",", "", $3); print $3 }' "$LIB_TMP/fv.out")
	[ "$rc" = 0 ] && [ "${n:-0}" -gt 2 ] && [ ! -s "$LIB_TMP/fv.err" ] &&
		pass "-t 0 reg_mr: runs until SIGINT, exit 0, $n regions" ||
		fail "-t 0 reg_mr: runs until SIGINT, exit 0, more than 2 regions" \
			"rc=$rc regions=$n" "$(cat "$LIB_TMP/fv.out" "$LIB_TMP/fv.err")"
else
	kill -KILL "$FV" 2>/dev/null
	fail "-t 0 reg_mr: its threads start" "$(cat "$LIB_TMP/fv.err")"
fi

# --- huge pages ------------------------------------------------------------------
section hugepages
HP=/proc/sys/vm/nr_hugepages
if [ ! -w "$HP" ] || [ ! -e /sys/kernel/mm/hugepages/hugepages-2048kB ]; then
	skip "--hugepages" "needs root and 2 MiB huge pages ($HP)"
else
	HP_OLD=$(cat "$HP")
	hp_restore() { echo "$HP_OLD" >"$HP"; }
	at_exit hp_restore
	echo 0 >"$HP"
	R -n 4 -m 4M --hugepages reg_mr
	one_error "--hugepages with none reserved: exit 1, one line naming what to reserve" 1 \
		'^qperf: reg_mr: --hugepages needs 2 free 2 MiB huge pages and 0 are free; reserve them first \(sysctl vm.nr_hugepages=2, as root\)$'
	echo 8 >"$HP"
	if [ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)" -lt 4 ]; then
		skip "--hugepages with pages reserved" "the kernel gave fewer than 4 of 8"
	else
		R -n 8 -m 4M --hugepages reg_mr
		expect "--hugepages with 8 reserved: exit 0, 2 MiB pages" 0 \
			"$(L pages '2 MiB huge, cold')" '^$'
		huge=$(vx_ns reg_p50)
		R -n 8 -m 4M --hugepages --prefault --threads 2 --json reg_mr
		json_assert "--hugepages --prefault --threads 2 --json: hugepages true, 16 regions" \
			'R["reg_mr"]["hugepages"] and R["reg_mr"]["prefault"] and R["reg_mr"]["regions"] == 16'
		echo 4 >"$HP"
		R -n 4 -m 4M --hugepages --threads 3 reg_mr
		one_error "--hugepages --threads 3 with 4 free: exit 1, names the 6 needed" 1 \
			'--hugepages needs 6 free 2 MiB huge pages and [0-9]+ are free'
		echo "regmr: 4 MiB reg_p50: 4 KiB pages ${cold:-?} ns, 2 MiB pages ${huge:-?} ns"
	fi
	hp_restore
	[ "$(cat "$HP")" = "$HP_OLD" ] && pass "vm.nr_hugepages put back ($HP_OLD)" ||
		fail "vm.nr_hugepages put back ($HP_OLD)" "$(cat "$HP")"
fi

# --- On-Demand Paging ------------------------------------------------------------
section odp
# explicit and implicit: the first write into an untouched range is slower
# than the same write again.  prefetch: the advice faulted the range in
# already, so its first write costs less than explicit's cold one.
ex_cold=''
for mode in explicit implicit prefetch; do
	tries='' ok='' what='the first touch of a cold range is slower'
	[ $mode = prefetch ] && what="the prefetched first touch costs less than explicit's cold one (${ex_cold:-none} ns)"
	for try in 1 2 3; do
		R -n 6 -m 4M --odp $mode reg_mr
		c=$(vx_ns first_touch_cold) w=$(vx_ns first_touch_warm)
		tries="$tries try $try: cold ${c:-none} ns, warm ${w:-none} ns;"
		[ "$RC" = 0 ] && [ -n "$c" ] && [ -n "$w" ] || continue
		if [ $mode = prefetch ]; then
			[ -n "$ex_cold" ] && [ "$c" -lt "$ex_cold" ] && ok=yes
		elif [ "$c" -gt "$w" ]; then
			ok=yes
			[ $mode = explicit ] && ex_cold=$c
		fi
		[ "$ok" ] && break
	done
	expect "--odp $mode: exit 0, the odp line" 0 "$(L odp "$mode")" '^$'
	[ "$ok" ] && pass "--odp $mode: $what ($tries)" ||
		fail "--odp $mode: $what" "$tries" "$(ctx)"
	echo "regmr: --odp $mode 4 MiB: $tries"
done
R -n 6 -m 1M --odp prefetch reg_mr
has "$(L advise_p50 "$TIME")" && pass "--odp prefetch: advise percentiles" ||
	fail "--odp prefetch: advise percentiles" "$(ctx)"
json_need && {
	R -n 6 -m 1M --odp implicit --json reg_mr
	json_valid "--odp implicit --json" doc
	json_assert "--odp implicit --json: odp implicit, no rate, first touch cold and warm" \
		'(R["reg_mr"]["odp"] == "implicit" and R["reg_mr"]["reg_Bps"] is None and
		 R["reg_mr"]["advise"] is None and R["reg_mr"]["first_touch"]["cold_s"] > 0 and
		 R["reg_mr"]["first_touch"]["warm_s"] > 0 and R["reg_mr"]["first_touch"]["size_B"] == 1048576)'
	R -n 6 -m 1M --odp prefetch --json reg_mr
	json_assert "--odp prefetch --json: the advice's latency" \
		'R["reg_mr"]["odp"] == "prefetch" and R["reg_mr"]["advise"]["count"] == 6'
}

# --- the RDMA tests take --hugepages and --odp ------------------------------------
section bw
if ! start_server "${SV[@]}" SOFTVERBS_NODE=1 --; then
	fail "server over softverbs starts" "$(cat "$SERVER_LOG")"
else
	run "${SV[@]}" SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
		-t 0.3 --odp rc_rdma_write_bw
	expect "rc_rdma_write_bw --odp: exit 0, a bandwidth" 0 "$(L bw "$BW")" '^$'
	run "${SV[@]}" SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
		-t 0.3 --odp implicit rc_bw
	expect "rc_bw --odp implicit: exit 0, a bandwidth" 0 "$(L bw "$BW")" '^$'
	run "${SV[@]}" SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
		-t 0.3 --prefault tcp_bw
	expect "tcp_bw --prefault: a warning that it is not used" 0 "$(L bw "$BW")" \
		'^qperf: warning: --prefault set but not used in test tcp_bw \(reg_mr only\)$'
	if [ -w "${HP:-/nonexistent}" ]; then
		echo 0 >"$HP"
		run "${SV[@]}" SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			-t 0.3 --hugepages rc_bw
		one_error "rc_bw --hugepages with none reserved: exit 1, one line" 1 \
			'^qperf: .*--hugepages needs 1 free 2 MiB huge pages and 0 are free'
		echo 4 >"$HP"
		run "${SV[@]}" SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			-t 0.3 --hugepages rc_bw
		expect "rc_bw --hugepages with 4 reserved: exit 0" 0 "$(L bw "$BW")" '^$'
		hp_restore
	fi
	check_alive "the server survives them" "$SERVER_PORT" "$SERVER_PID"
fi

# --- bad values ------------------------------------------------------------------
section usage
R -m 0 reg_mr
one_error "-m 0: exit 2, one line naming it" 2 '^qperf: -m: 0: must be greater than 0$'
R --loop msg_size:0:4K:+1K reg_mr
one_error "--loop msg_size from 0: exit 2, one line" 2 '^qperf: --loop: msg_size:0:4K:\+1K: --msg_size: 0: must be greater than 0$'
R --odp bogus reg_mr
one_error "--odp bogus: exit 2, one line naming it" 2 '^qperf: --odp: bogus: bad mode; use explicit, implicit or prefetch$'
R --threads 0 reg_mr
one_error "--threads 0: exit 2, one line" 2 '^qperf: --threads: 0: '
R --threads 65 reg_mr
one_error "--threads 65: exit 2, one line" 2 '^qperf: --threads: 65: '
run env -u LD_LIBRARY_PATH "$QPERF" 127.0.0.1 -lp "$NOPORT" -n 1 reg_mr
if ls /sys/class/infiniband 2>/dev/null | grep -q .; then
	skip "reg_mr without an RDMA device" "this host has one"
else
	one_error "reg_mr without an RDMA device: exit 1, one line" 1 '^qperf: reg_mr: failed to find any RDMA devices'
fi

finish
