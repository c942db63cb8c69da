#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Loopback integration tests, interval reports (-I) and sweep plots
# (--plot): our client against our server.  Runs alone (bash
# tests/integration/interval_plot.sh) or as tests/run.sh
# integration:interval_plot; tests/integration/common.sh has the shared
# set-up and helpers.
#
# Interval lines are checked against the final report of the same run:
# with -uu the figures are exact integers, so the bytes of the interval
# lines must add up to the report's send_bytes and recv_bytes exactly.

. "$(dirname "$0")/common.sh"
integration_server


# ival_sum SIDE: the bytes of the last stdout's "SIDE" interval lines.
ival_sum() {
	awk -v side="$1" '$0 ~ " " side " " && $0 ~ /sec/ {
		for (i = 1; i <= NF; i++) if ($(i + 1) == "bytes") { s += $i; break } }
		END { printf "%.0f\n", s }' "$OUT_FILE"
}
# report VALUE-NAME: the figure of a report line "    name  =  N unit".
report() {
	awk -v n="$1" '$1 == n && $2 == "=" { print $3 }' "$OUT_FILE"
}
# labels: the names of the report lines, in order.
labels() {
	awk '$2 == "=" { print $1 }' "$OUT_FILE"
}
IVL='^    [0-9]+\.[0-9]{2}-[0-9]+\.[0-9]{2} +sec  '

# --- -I with a 0.5 server: sender and receiver, summing to the total --------
C -uu -vvs -t 3 -I 1 tcp_bw
expect "-I 1 -t 3 tcp_bw: exit 0, nothing on stderr" 0 '' '^$'
ns=$(count_lines "${IVL}loc send ")
nr=$(count_lines "${IVL}rem recv ")
[ "$ns" = 3 ] && [ "$nr" = 3 ] &&
	pass "-I 1 -t 3 tcp_bw: 3 sender and 3 receiver lines" ||
	fail "-I 1 -t 3 tcp_bw: 3 sender and 3 receiver lines" "$(ctx)"
has "${IVL}loc send " && has '^    0\.00-1\.[0-9]{2} +sec  loc send' &&
	has '^    2\.[0-9]{2}-(2\.9[0-9]|3\.[0-9]{2}) +sec  loc send' && # the last ends with the test: 2.99 seen
	pass "-I 1 -t 3 tcp_bw: intervals 0-1 ... 2-3 s" ||
	fail "-I 1 -t 3 tcp_bw: intervals 0-1 ... 2-3 s" "$(ctx)"
s=$(ival_sum "loc send")
r=$(ival_sum "rem recv")
[ "$s" = "$(report send_bytes)" ] && [ "$r" = "$(report recv_bytes)" ] &&
	[ "$s" -gt 0 ] &&
	pass "-I tcp_bw: interval bytes add up to the totals ($s sent, $r received)" ||
	fail "-I tcp_bw: interval bytes add up to the totals" \
		"sent $s vs $(report send_bytes), received $r vs $(report recv_bytes)" "$(ctx)"
# every interval moved data at a rate within 100x of the whole test's
bw=$(report bw)
awk -v bw="$bw" '/ sec  (loc|rem) / && / msgs / { r = $(NF - 3); if (!(r > bw / 100 && r < bw * 100)) bad = 1 }
	END { exit bad }' "$OUT_FILE" &&
	pass "-I tcp_bw: each interval's bandwidth is plausible (whole test $bw bytes/sec)" ||
	fail "-I tcp_bw: each interval's bandwidth is plausible" "$(ctx)"
# the final report is the one without -I
grep -Ev "$IVL" "$OUT_FILE" >"$T/with-I"
labels >"$T/labels-I"
C -uu -vvs -t 1 tcp_bw
labels >"$T/labels-plain"
cmp -s "$T/labels-I" "$T/labels-plain" && ! grep -Eq "$IVL" "$OUT_FILE" &&
	[ "$(wc -l <"$T/with-I")" = "$(wc -l <"$OUT_FILE")" ] &&
	pass "-I: the final report has the same lines as without it" ||
	fail "-I: the final report has the same lines as without it" \
		"$(diff "$T/labels-I" "$T/labels-plain")" "$(ctx)"

C -uu -vvs -t 2 -I 1 udp_bw
expect "-I 1 -t 2 udp_bw: exit 0" 0 "${IVL}rem recv " '^$'
[ "$(count_lines "${IVL}loc send ")" = 2 ] &&
	[ "$(count_lines "${IVL}rem recv ")" = 2 ] &&
	[ "$(ival_sum "loc send")" = "$(report send_bytes)" ] &&
	[ "$(ival_sum "rem recv")" = "$(report recv_bytes)" ] &&
	pass "-I udp_bw: 2+2 lines adding up to send_bytes and recv_bytes" ||
	fail "-I udp_bw: 2+2 lines adding up to send_bytes and recv_bytes" "$(ctx)"

# an interval longer than the test: one line per side for the whole test
C -t 1 -I 10 tcp_bw
# (the server's window may start a little after ours and end a little
# before: it ends when our close arrives)
[ "$RC" = 0 ] &&
	[ "$(count_lines "^    0\.00-(0\.9[0-9]|1\.[0-9]{2}) +sec  (loc send|rem recv) ")" = 2 ] &&
	[ "$(count_lines "$IVL")" = 2 ] &&
	pass "-I 10 -t 1: one line per side for the whole test" ||
	fail "-I 10 -t 1: one line per side for the whole test" "$(ctx)"

# -I on a latency test: a warning, the usual report
C -t $TT -I 1 tcp_lat
expect "-I on tcp_lat: warned, report as usual" 0 '^    latency  =  ' \
	'^qperf: warning: -I set but not used in test tcp_lat'
! grep -Eq "$IVL" "$OUT_FILE" && pass "-I on tcp_lat: no interval lines" ||
	fail "-I on tcp_lat: no interval lines" "$(ctx)"

for v in 0 -1 abc 0.05 1x; do
	C -I "$v" tcp_bw
	expect "-I $v: usage error naming the value" 2 '^$' "^qperf: -I: $v: "
	[ "$(wc -l <"$ERR_FILE")" = 1 ] || fail "-I $v: one error line" "$(ctx)"
done
C --interval
expect "--interval without a value: usage error" 2 '^$' 'missing argument to --interval'

# --- a hostile server's interval records are bounded (issue 17 item 6) ------
# peer.py's flood server sends records every 5 ms (or 0.1 s) forever and
# never its done block: the client stops with one error, within seconds.
PEER=$LIB_ROOT/tests/robust/peer.py
for gap in 0.005 0.1; do
	pf=$T/flood$gap.port
	python3 "$PEER" ival-flood-server "$pf" "$gap" >/dev/null 2>&1 &
	track_pid $!
	wait_for 10 test -s "$pf"
	if [ $gap = 0.005 ]; then
		run -t 10 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -t 1 -I 0.1 tcp_bw
		want='^qperf: the server sent interval reports past the end of the test \([0-9]+ records, one ending at [0-9.]+ s, for a 1\.0 s test at 0\.1 s intervals\)$'
	else # a count test: records at the right pace, but no end
		run -t 10 "$QPERF" 127.0.0.1 -lp "$(cat "$pf")" -n 1000 -to 1 -I 0.1 tcp_bw
		# (or, on a slow machine, more records than the time allows)
		want="^qperf: the server('s interval reports did not end within 1\.0 s of the test's end| sent interval reports past the end of the test .*)$"
	fi
	expect "records every $gap s, forever: one error, in time" 1 '' "$want"
	[ "$(grep -c 'rem recv' "$OUT_FILE")" -le 20 ] && [ "$(grep -c . "$ERR_FILE")" = 1 ] &&
		pass "records every $gap s: at most 20 printed, one error line" ||
		fail "records every $gap s: at most 20 printed, one error line" "$(ctx)"
done

# --- --plot ------------------------------------------------------------------
SVG=$T/sweep.svg
C -t 0.3 --plot "$SVG" -oo msg_size:1:16K:*4 tcp_bw tcp_lat udp_bw
expect "--plot sweep: exit 0" 0 '^tcp_lat:$'
if [ -s "$SVG" ] && xmllint --noout "$SVG" 2>"$T/xmllint.err"; then
	pass "--plot: the file is well-formed XML (xmllint)"
else
	fail "--plot: the file is well-formed XML (xmllint)" "$(cat "$T/xmllint.err")"
fi
grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$SVG" &&
	grep -q 'bandwidth (.*/sec) against msg_size' "$SVG" &&
	grep -q 'latency (.*) against msg_size' "$SVG" &&
	grep -q 'msg_size (bytes, log scale)' "$SVG" &&
	grep -q '>udp_bw recv_bw</text>' "$SVG" && grep -q '>tcp_lat (p50, band to p99)</text>' "$SVG" &&
	[ "$(grep -c '<circle' "$SVG")" = $((8 * 4)) ] &&
	pass "--plot: two panels, labelled axes, legend, one point per run" ||
	fail "--plot: two panels, labelled axes, legend, one point per run" \
		"circles: $(grep -c '<circle' "$SVG")" "$(head -c 2000 "$SVG")"
if rsvg-convert -o "$T/sweep.png" "$SVG" 2>"$T/rsvg.err"; then
	total=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(16+8); w,h=struct.unpack(">II",d[16:24]); print(w*h)' "$T/sweep.png")
	ink=$(png_ink "$T/sweep.png")
	blue=$(png_ink "$T/sweep.png" 1f77b4) # the first series' colour
	[ "$ink" -gt $((total / 50)) ] && [ "$blue" -gt 50 ] &&
		pass "--plot: renders (rsvg-convert): $ink of $total pixels drawn, $blue in the first series' colour" ||
		fail "--plot: renders to a picture that is not blank" "ink $ink of $total, series colour $blue"
else
	fail "--plot: rsvg-convert renders the file" "$(cat "$T/rsvg.err")"
fi

C -t $TT --plot "$SVG" tcp_bw
expect "--plot without --loop: usage error" 2 '^$' \
	'^qperf: --plot: tcp_bw has no --loop'
C -t $TT --plot /nonexistent-dir/x.svg -oo msg_size:1:2:*2 tcp_bw
expect "--plot to an unwritable path: exit 1 before any test" 1 '^$' \
	'^qperf: --plot: /nonexistent-dir/x.svg: cannot write: No such file or directory$'

# --plot in a shared directory (issue 17 item 11): a planted symlink to a
# mode-600 file is refused and the file untouched; a hard link to it is
# replaced by the plot, not written through; a FIFO neither hangs nor is
# written to.  No temporary file is left behind.
P=$T/shared
mkdir -p "$P"
echo precious >"$P/victim"
chmod 600 "$P/victim"
ln -s "$P/victim" "$P/link.svg"
C -t 0.1 --plot "$P/link.svg" -oo msg_size:1:2:*2 tcp_bw
expect "--plot onto a symlink: refused before any test" 1 '^$' \
	"^qperf: --plot: $P/link.svg: cannot write: it is a symbolic link; not followed or replaced\$"
ln "$P/victim" "$P/hard.svg"
C -t 0.1 --plot "$P/hard.svg" -oo msg_size:1:2:*2 tcp_bw
expect "--plot onto a hard link: runs" 0 '^tcp_bw:$' '^$'
grep -q '<svg' "$P/hard.svg" && [ ! "$P/hard.svg" -ef "$P/victim" ] &&
	pass "--plot onto a hard link: the plot replaces the name, not the file" ||
	fail "--plot onto a hard link: the plot replaces the name, not the file" "$(ls -li "$P")"
mkfifo "$P/fifo.svg"
run -t 10 "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" -t 0.1 --plot "$P/fifo.svg" -oo msg_size:1:2:*2 tcp_bw
expect "--plot onto a FIFO: refused at once, no hang" 1 '^$' \
	"^qperf: --plot: $P/fifo.svg: cannot write: it is a FIFO, not a regular file\$"
[ "$(cat "$P/victim")" = precious ] && [ "$(stat -c %a "$P/victim")" = 600 ] && [ -L "$P/link.svg" ] &&
	[ -p "$P/fifo.svg" ] && [ "$(ls "$P" | wc -l)" = 4 ] &&
	pass "--plot: the mode-600 file untouched, the link and FIFO kept, no temporary left" ||
	fail "--plot: the mode-600 file untouched, the link and FIFO kept, no temporary left" "$(ls -l "$P"; cat "$P/victim")"

check_alive "server still answers conf" "$SERVER_PORT" "$SERVER_PID"

finish
