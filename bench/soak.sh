#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Functions run in the background look unreachable to shellcheck:
# shellcheck disable=SC2317
#
# bench/soak.sh: one qperf server serves N short tests (sockets, and RDMA
# over softverbs when it is built), mixed with aborted clients, while its
# resident memory, open descriptors and children are sampled.  The report
# (markdown) goes to stdout, progress to stderr.  See bench/README.md.
#
#   make && bench/soak.sh > bench/results-soak.md      (N=20000)
#   N=2000 bench/soak.sh                               (what CI runs)
#
# Growth, as judged here (exit 1 when any is seen):
#   - children: the server has no child left once its clients are done
#     (every sample is taken idle: it waits up to DRAIN seconds for that);
#   - descriptors: when idle, the server holds exactly as many open
#     descriptors at every sample as at the first one;
#   - memory: VmRSS at the last sample exceeds VmRSS at the 10% sample
#     by more than RSS_TOL_KB;
# and the run fails too when the server dies, or when fewer than MIN_OK
# percent of the tests succeed.  Exit 2 on a setup error.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/lib.sh
. "$here/../tests/lib.sh"
N=${N:-20000}
PAR=${PAR:-6}
BATCH=${BATCH:-10}
MSGS=${MSGS:-10}
SIZE=${SIZE:-1K}
SAMPLES=${SAMPLES:-20}
ABORT_EVERY=${ABORT_EVERY:-6}
RSS_TOL_KB=${RSS_TOL_KB:-1024}
MIN_OK=${MIN_OK:-99}
DRAIN=${DRAIN:-15}
RDMA=${RDMA:-auto}
SV_LIB=${SV_LIB:-$here/../softverbs/build}
PEER=$here/../tests/robust/peer.py
QPERF=${OURS:-$QPERF}

die() { echo "soak: $*" >&2; exit 2; }
for v in N PAR BATCH MSGS SAMPLES ABORT_EVERY RSS_TOL_KB MIN_OK DRAIN; do
	case ${!v} in ''|*[!0-9]*) die "$v must be a whole number, got '${!v}'" ;; esac
done
if [ "$N" -lt "$BATCH" ] || [ "$BATCH" -lt 1 ] || [ "$PAR" -lt 1 ] ||
	[ "$SAMPLES" -lt 2 ]; then
	die "need N >= BATCH >= 1, PAR >= 1, SAMPLES >= 2"
fi
[ -x "$QPERF" ] || die "qperf not found at '$QPERF' (run make, or set OURS=)"
command -v python3 >/dev/null || die "python3 is needed for the aborted clients"
case $RDMA in
auto) [ -e "$SV_LIB/libibverbs.so.1" ] && RDMA=1 || RDMA=0 ;;
0 | 1) ;;
*) die "RDMA must be auto, 0 or 1, got '$RDMA'" ;;
esac
[ "$RDMA" = 0 ] || [ -e "$SV_LIB/libibverbs.so.1" ] ||
	die "softverbs not built in '$SV_LIB' (make, or RDMA=0)"

# The tests, taken in turn, BATCH per client run, each with -n MSGS.
SOCK_TESTS=(tcp_lat tcp_bw udp_lat udp_bw)
RDMA_TESTS=(rc_lat rc_bw ud_lat uc_bw rc_rdma_write_lat rc_rdma_read_bw
	rc_fetch_add_mr rc_compare_swap_mr ud_bw rc_bi_bw)
if [ "$RDMA" = 1 ]; then
	# Half sockets, half RDMA.
	MIX=()
	for i in "${!RDMA_TESTS[@]}"; do
		MIX+=("${SOCK_TESTS[i % ${#SOCK_TESTS[@]}]}" "${RDMA_TESTS[i]}")
	done
	export LD_LIBRARY_PATH=$SV_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export SOFTVERBS_FABRIC=soak-$$
	unset SOFTVERBS_LINK_LAYER
else
	MIX=("${SOCK_TESTS[@]}")
fi
ABORTS=(kill-tcp_bw half-request connect-close peer-mid-test kill-rdma peer-fuzz)
[ "$RDMA" = 1 ] || ABORTS=(kill-tcp_bw half-request connect-close peer-mid-test peer-fuzz)
[ -n "${ABORT_KINDS-}" ] && read -ra ABORTS <<<"$ABORT_KINDS"

work=$LIB_TMP/soak
mkdir -p "$work"
if ! start_server env SOFTVERBS_NODE=1 -- --max_per_client 16 -lto 1; then
	die "the server did not start: $(cat "$SERVER_LOG")"
fi
SP=$SERVER_PID
PORT=$SERVER_PORT
CLI=(env SOFTVERBS_NODE=2 timeout -k 2 60 "$QPERF" 127.0.0.1 -lp "$PORT")

# --- the jobs (each in the background; results in $work/JOB.*) -------------
# A batch: one client run of BATCH tests; a success is a test whose
# figure was printed.
job_batch() { # job first-test-index
	local j=$1 k=$2 t=() i
	for ((i = 0; i < BATCH; i++)); do
		t+=("${MIX[(k + i) % ${#MIX[@]}]}")
	done
	"${CLI[@]}" -n "$MSGS" -m "$SIZE" "${t[@]}" >"$work/$j.out" 2>"$work/$j.err" </dev/null
	echo $? >"$work/$j.rc"
}
# An aborted client, of kind KIND.
job_abort() { # job kind
	local j=$1 pid
	case $2 in
	kill-tcp_bw | kill-rdma)
		local tst=tcp_bw
		[ "$2" = kill-rdma ] && tst=rc_bw
		# (-to 2: the server's side gives up 2 s after the client is
		# gone in the middle of a connection set-up)
		# (no timeout(1) between: the SIGKILL must hit the client)
		env SOFTVERBS_NODE=2 "$QPERF" 127.0.0.1 -lp "$PORT" -to 2 -t 10 "$tst" \
			>/dev/null 2>&1 </dev/null &
		pid=$!
		sleep 0.$((2 + RANDOM % 4))
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null ;;
	half-request)
		# the first half of a request, then close
		{ exec 3<>"/dev/tcp/127.0.0.1/$PORT" &&
			printf 'QPX2\0\0\0\x40\x01\x00' >&3 && exec 3>&-; } 2>/dev/null ;;
	connect-close)
		{ exec 3<>"/dev/tcp/127.0.0.1/$PORT" && exec 3>&-; } 2>/dev/null ;;
	peer-mid-test)
		timeout -k 2 30 python3 "$PEER" client 127.0.0.1 "$PORT" \
			req:idx=9,time=2,timeout=2 port data:tcp sync exit \
			>/dev/null 2>&1 </dev/null ;;
	peer-fuzz)
		timeout -k 2 60 python3 "$PEER" fuzz 127.0.0.1 "$PORT" 5 "$j" \
			>/dev/null 2>&1 </dev/null ;;
	esac
	echo "$2" >"$work/$j.abort"
}

# --- counting ----------------------------------------------------------------
tests_ok=0 tests_run=0 batches_failed=0 aborts=0 fail_notes=''
declare -A abort_kind=()
collect() { # the finished jobs' files
	local f j n rc
	for f in "$work"/*.rc; do
		[ -e "$f" ] || continue
		j=${f%.rc}
		rc=$(cat "$f")
		n=$(grep -cE '^    (latency|bw|recv_bw|msg_rate)  =  ' "$j.out")
		tests_ok=$((tests_ok + n))
		if [ "$rc" != 0 ] || [ "$n" != "$BATCH" ]; then
			batches_failed=$((batches_failed + 1))
			[ "$batches_failed" -le 5 ] &&
				fail_notes+="- job ${j##*/}: exit $rc, $n of $BATCH figures: $(head -c 300 "$j.err" | tr '\n' ' ')"$'\n'
		fi
		rm -f "$j.rc" "$j.out" "$j.err"
	done
	for f in "$work"/*.abort; do
		[ -e "$f" ] || continue
		n=$(cat "$f")
		abort_kind[$n]=$((${abort_kind[$n]:-0} + 1))
		aborts=$((aborts + 1))
		rm -f "$f"
	done
}

# --- sampling (idle) -----------------------------------------------------------
nkids() { ps --ppid "$SP" --no-headers 2>/dev/null | wc -l; }
nfds() { find "/proc/$SP/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$SP/status" 2>/dev/null; }
idle() { [ "$(nkids)" -eq 0 ] && { [ -z "${FD0-}" ] || [ "$(nfds)" -eq "$FD0" ]; }; }
samples=() # "tests secs rss fds kids drain"
sample() {
	local t0=$SECONDS
	pid_gone "$SP" && return 1
	wait_for "$DRAIN" idle
	samples+=("$tests_run $((SECONDS - START)) $(rss_kb) $(nfds) $(nkids) $((SECONDS - t0))")
	echo "soak: sample ${samples[-1]} (tests secs rss_kb fds children drain_s)" >&2
	FD0=${FD0-$(nfds)}
}

# --- the run -----------------------------------------------------------------
START=$SECONDS
rev=$(git -C "$here/.." describe --always --dirty 2>/dev/null)
fd_start=$(nfds) rss_start=$(rss_kb)
unset FD0
step=$(((N + SAMPLES - 1) / SAMPLES))
next=$step
job=0 k=0 nabort=0
running=()
server_died=0
while [ "$tests_run" -lt "$N" ]; do
	# keep PAR jobs in flight
	while [ ${#running[@]} -ge "$PAR" ]; do
		wait -n -p done_pid "${running[@]}"
		left=()
		for r in "${running[@]}"; do
			[ "$r" = "$done_pid" ] || left+=("$r")
		done
		running=("${left[@]}")
	done
	job=$((job + 1))
	if [ $((job % ABORT_EVERY)) -eq 0 ]; then
		job_abort "$job" "${ABORTS[nabort % ${#ABORTS[@]}]}" &
		nabort=$((nabort + 1))
	else
		job_batch "$job" "$k" &
		k=$(((k + BATCH) % ${#MIX[@]}))
		tests_run=$((tests_run + BATCH))
	fi
	running+=($!)
	if [ "$tests_run" -ge "$next" ] || [ "$tests_run" -ge "$N" ]; then
		[ ${#running[@]} -gt 0 ] && wait "${running[@]}"
		running=()
		collect
		sample || { server_died=1; break; }
		next=$((next + step))
	fi
done
[ ${#running[@]} -gt 0 ] && wait "${running[@]}"
collect
secs=$((SECONDS - START))
alive=1
pid_gone "$SP" && alive=0
conf_ok=0
[ $alive = 1 ] && server_answers "$PORT" && conf_ok=1

# --- verdicts ------------------------------------------------------------------
ns=${#samples[@]}
i10=$(((ns + 9) / 10 - 1)) # the sample at (or just after) the 10% mark
read -r _ _ rss10 _ _ _ <<<"${samples[i10]}"
read -r _ _ rss_last fd_last _ _ <<<"${samples[ns - 1]}"
read -r _ _ _ fd_first _ _ <<<"${samples[0]}"
fd_max=0 kid_max=0 rss_max=0 drain_max=0
for s in "${samples[@]}"; do
	read -r _ _ r f c d <<<"$s"
	[ "$f" -gt "$fd_max" ] && fd_max=$f
	[ "$c" -gt "$kid_max" ] && kid_max=$c
	[ "$r" -gt "$rss_max" ] && rss_max=$r
	[ "$d" -gt "$drain_max" ] && drain_max=$d
done
rss_growth=$((rss_last - rss10))
bad=()
[ $alive = 1 ] && [ $conf_ok = 1 ] || bad+=("server gone or not answering conf")
[ $server_died = 0 ] || bad+=("server died during the run")
[ "$kid_max" -eq 0 ] || bad+=("children left when idle: max $kid_max")
[ "$fd_max" -eq "$fd_first" ] && [ "$fd_last" -eq "$fd_first" ] ||
	bad+=("descriptors grew: first $fd_first, max $fd_max, last $fd_last")
[ "$rss_growth" -le "$RSS_TOL_KB" ] ||
	bad+=("VmRSS grew by $rss_growth kB after the 10% mark (tolerance $RSS_TOL_KB kB)")
[ $((tests_ok * 100)) -ge $((tests_run * MIN_OK)) ] ||
	bad+=("only $tests_ok of $tests_run tests succeeded (need $MIN_OK%)")
[ "$tests_run" -gt 0 ] || bad+=("no test ran")
stop_server "$PORT" "$SP"

# --- report --------------------------------------------------------------------
cat <<EOF
# Soak: one server, $tests_run short tests and $aborts aborted clients

- date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(hostname), $(nproc) CPUs,
  $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)
- qperf: $QPERF (source $rev at the start)
- tests: ${MIX[*]} in turn, $BATCH per client run, each \`-n $MSGS -m $SIZE\`;
  $PAR client runs at a time; RDMA over softverbs: $([ "$RDMA" = 1 ] && echo "yes (fabric $SOFTVERBS_FABRIC)" || echo no)
- aborted clients (one job in $ABORT_EVERY): $(for a in "${ABORTS[@]}"; do printf '%s %s, ' "$a" "${abort_kind[$a]:-0}"; done | sed 's/, $//')
- time: $secs s ($(awk -v n="$tests_run" -v s="$secs" 'BEGIN { printf "%.1f", s ? n / s : 0 }') tests/s)

| tests | s | VmRSS kB | fds | children | drain s |
|--:|--:|--:|--:|--:|--:|
EOF
echo "| start | 0 | $rss_start | $fd_start | 0 | |"
for s in "${samples[@]}"; do
	read -r a b c d e f <<<"$s"
	echo "| $a | $b | $c | $d | $e | $f |"
done
cat <<EOF

Each sample is taken idle: the clients of the window have ended and the
server's children are gone (drain s: how long that took).

soak: tests ok $tests_ok of $tests_run, batches failed $batches_failed, aborts $aborts, $secs s
soak: children max $kid_max when idle
soak: fds first $fd_first max $fd_max last $fd_last (before any test $fd_start)
soak: rss_kb at 10% $rss10, last $rss_last, max $rss_max, growth $rss_growth, tolerance $RSS_TOL_KB
EOF
echo "soak: figures tests_ok=$tests_ok tests_run=$tests_run aborts=$aborts" \
	"secs=$secs kids_max=$kid_max fd_first=$fd_first fd_max=$fd_max" \
	"fd_last=$fd_last rss10=$rss10 rss_last=$rss_last" \
	"rss_growth=$rss_growth rss_tol=$RSS_TOL_KB"
[ -n "$fail_notes" ] && printf '\nFailed client runs (first 5):\n\n%s' "$fail_notes"
if [ ${#bad[@]} -eq 0 ]; then
	echo "soak: verdict ok"
	exit 0
fi
for b in "${bad[@]}"; do
	echo "soak: GROWTH OR FAILURE: $b"
done
echo "soak: verdict failed"
exit 1
