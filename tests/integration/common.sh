# SPDX-License-Identifier: GPL-2.0-only
# What the loopback integration files share (sourced by each of them):
# tests/lib.sh, report-line patterns (L, BW, TIME, ...), layout checks
# (aligned, names_in_order), C (our client against this file's server),
# server_child and integration_server.
#
# Each file starts its own server on an ephemeral port (published in a
# port file); each check asserts on the client's exit status, stdout and
# stderr.  Report layouts are compared with the spec's captured 0.4.11
# outputs (§5.11) with the figures replaced by patterns.  Tests run for
# -t 0.3 (TT).  QPERF=path tests another binary.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

TT=${TT:-0.3}

# L NAME VALUE-RE: the pattern of one report line, "    NAME  =  VALUE".
L() {
	printf '    %s *  =  *%s' "$1" "$2"
}
BW="$POS (bytes|KB|MB|GB|TB)/sec"
BWB="$POS (bits|Kb|Mb|Gb|Tb)/sec"
RATE="$POS [KMGT]?/sec"
TIME="$POS (ns|us|ms|sec)"
COST="$POS (ns|us|ms|sec)/GB"
CPUS="$NUM % cpus"
CNT="$NUM( (thousand|million|billion))? "
SIZE="$NUM (bytes|KB|MB|GB|TB|KiB \\($NUM\\)|MiB \\($NUM\\)|GiB \\($NUM\\))"

# aligned NAME: every table line of the last stdout has its "  =  " in
# the same column, and every line with a unit ends its number in the
# same column (0.4.11's place_show).
aligned() {
	local bad
	bad=$(awk '
		/^    / {
			i = index($0, "  =  ")
			if (i == 0) { print "no =: " $0; next }
			if (eq && i != eq) print "= column " i " != " eq ": " $0
			eq = i
		}
		/^[a-z_]+:$/ { eq = 0 }
	' "$OUT_FILE")
	if [ -z "$bad" ]; then
		pass "$1"
	else
		fail "$1" "$bad" "$(ctx)"
	fi
}

# names_in_order NAME FULL REQUIRED: the report names of the last stdout
# (lines under a single test header) appear in the order of FULL (a
# space-separated list, the 0.4.11 order), and every name in REQUIRED is
# present.  Names of FULL may be absent (zero values are hidden).
names_in_order() {
	local name=$1 full=$2 req=$3
	local got
	got=$(sed -n 's/^    \([a-z_]*\) *  =  .*/\1/p' "$OUT_FILE" | tr '\n' ' ')
	local why=() n pos=0 i
	local -a fl=($full)
	for n in $got; do
		i=$pos
		while [ $i -lt ${#fl[@]} ] && [ "${fl[$i]}" != "$n" ]; do
			i=$((i + 1))
		done
		if [ $i -ge ${#fl[@]} ]; then
			why+=("unexpected or out-of-order line: $n")
			break
		fi
		pos=$((i + 1))
	done
	for n in $req; do
		case " $got " in
		*" $n "*) ;;
		*) why+=("missing line: $n") ;;
		esac
	done
	if [ ${#why[@]} -eq 0 ]; then
		pass "$name"
	else
		fail "$name" "${why[@]}" "$(ctx)"
	fi
}

# 12345 -> 12,345
commas() {
	echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'
}

C() {
	run "$QPERF" 127.0.0.1 -lp "$SERVER_PORT" "$@"
}

# The child serving the client's current request: our server's child
# that is not one of $1 (the children there were before), if any.
server_child() {
	local k
	for k in $(ps -o pid= --ppid "$SERVER_PID" 2>/dev/null); do
		case " $1 " in *" $k "*) ;; *) echo "$k"; return ;; esac
	done
}

# integration_server: start this file's server (SERVER_PORT, SERVER_PID);
# a server that does not come up ends the file with one failure.
integration_server() {
	if ! start_server; then
		fail "server starts and publishes its port"
		finish
	fi
}
