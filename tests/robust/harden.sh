#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hardening: the defects found by attacking the shipped server (and the
# client's exit status), one section each, numbered as in
# tests/BUGS-found.md.  Each case failed on the code before its fix.
#
# Run alone (bash tests/robust/harden.sh) or sourced by tests/robust/run.sh,
# which then prints the summary.  Needs python3 and ss.
if [ -z "${LIB_ROOT-}" ]; then
	. "$(dirname "$0")/../lib.sh"
	HARDEN_ALONE=1
fi
PEER=$LIB_ROOT/tests/robust/peer.py

# hreply NAME MAX TEXT-RE: the last peer.py run got urgent '?' and a text
# matching TEXT-RE within MAX seconds (as run.sh's reply()).
hreply() {
	local name=$1 max=$2 re=$3 t
	t=$(sed -n 's/^reply after \([0-9.]*\) .*/\1/p' "$OUT_FILE" | tail -n 1)
	if [ -n "$t" ] && has "^reply after .* urgent=\\? .*text='.*$re" &&
		awk -v t="$t" -v m="$max" 'BEGIN { exit !(t <= m) }'; then
		pass "$name (${t}s)"
	else
		fail "$name" "wanted urgent ?, text /$re/ within ${max}s" "$(ctx)"
	fi
}

# --- 5. -lpf follows a planted symlink ---------------------------------------
# The old code wrote FILE.PID.tmp with fopen("w"): a symlink planted there
# made the server overwrite its target.  The wrapper plants the link for
# the PID the server will have (exec keeps it) and then becomes qperf.
victim=$T/victim
echo precious >"$victim"
plant='ln -s "$V" "$5.$$.tmp"; exec "$@"'
if V=$victim start_server sh -c "$plant" sh --; then
	pf=$T/port.$SERVER_N
	if [ "$(cat "$victim")" = precious ] && [ ! -L "$pf" ] &&
		[ "$(cat "$pf")" = "$SERVER_PORT" ]; then
		pass "-lpf: a planted FILE.PID.tmp symlink is not followed"
	else
		fail "-lpf: a planted FILE.PID.tmp symlink is not followed" \
			"victim: $(cat "$victim")" "$(ls -l "$pf")"
	fi
	stop_server "$SERVER_PORT" "$SERVER_PID"
else
	fail "-lpf with a planted symlink: server starts" "$(cat "$SERVER_LOG")"
fi
run "$QPERF" -lp 0 -lpf "$T/no-such-dir/port"
expect "-lpf in a missing directory: the error names -lpf and FILE" 1 '^$' \
	"^qperf: -lpf: cannot write \"$T/no-such-dir/port\": No such file or directory\$"

# --- 6. the client exits 0 when its results cannot be written ---------------
if start_server; then
	for how in /dev/full closed pipe; do
		case $how in
		/dev/full) timeout 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			-t 0.2 tcp_lat conf >/dev/full 2>"$ERR_FILE"
			RC=$? ;;
		closed) timeout 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			-t 0.2 tcp_lat conf >&- 2>"$ERR_FILE"
			RC=$? ;;
		pipe) timeout 20 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" \
			-t 0.2 tcp_lat conf 2>"$ERR_FILE" | head -c0
			RC=${PIPESTATUS[0]} ;;
		esac
		if [ "$RC" = 1 ] && [ "$(wc -l <"$ERR_FILE")" = 1 ] &&
			has '^qperf: cannot write results: ' "$ERR_FILE"; then
			pass "results to $how: exit 1, one line: $(cat "$ERR_FILE")"
		else
			fail "results to $how: exit 1, one line on stderr" \
				"rc=$RC" "$(cat "$ERR_FILE")"
		fi
	done
	stop_server "$SERVER_PORT" "$SERVER_PID"
else
	fail "server for the output checks starts"
fi

# --- 2. a child signals a process it did not start ----------------------------
# Under a subreaper (tests/robust/reaper.py): two quit requests; after the
# first the old server exited and the second child sent SIGQUIT to its new
# parent, the subreaper.  SIGTERM left the children running as orphans.
REAPER=$LIB_ROOT/tests/robust/reaper.py
run -t 40 python3 "$REAPER" "$QPERF" twoquit
expect "two quit requests: nobody else gets SIGQUIT, the server exits 0" 0 \
	'^sigquit=0 server_exit=0 orphans=0 '
run -t 40 python3 "$REAPER" "$QPERF" term
expect "SIGTERM with a test running: exit 0, the child ends too, its client is told" \
	0 '^sigquit=0 server_exit=0 orphans=0 client=.*the server is shutting down'

[ -n "${HARDEN_ALONE-}" ] && finish
