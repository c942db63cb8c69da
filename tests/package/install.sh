#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The install phase of tests/package/run.sh, which starts it in a private
# mount namespace (unshare --mount): /usr, /etc and /var become overlays
# of the machine's, so dpkg here works on the real database and on
# Debian's installed qperf 0.4.11 while every change lands in a scratch
# layer that goes away with the namespace.
#   tests/package/install.sh QPERF.deb QPERF-SOFTVERBS.deb
# Installs both with dpkg -i over 0.4.11, checks what they put in place
# and runs a loopback test and RDMA tests through qperf-softverbs, then
# removes and purges both, checks nothing of them is left and installs
# 0.4.11 again (from apt's cache, or downloaded with apt-get download).
set -u
. "$(dirname "$0")/../lib.sh"
DEB=$1
SVDEB=$2
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
SVDIR=/usr/lib/$MA/qperf-softverbs
export DEBIAN_FRONTEND=noninteractive
QPERF=/usr/bin/qperf

section setup
# Our own mount namespace, never the machine's: / must not be shared.
if [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ]; then
	fail "runs in a private mount namespace" "start it from tests/package/run.sh"
	finish
fi
for d in usr etc var; do
	mkdir -p "$T/ov/$d/up" "$T/ov/$d/work"
	if ! mount -t overlay overlay -o \
		"lowerdir=/$d,upperdir=$T/ov/$d/up,workdir=$T/ov/$d/work" "/$d" 2>"$T/mount.err"; then
		fail "overlay over /$d" "$(cat "$T/mount.err")"
		finish
	fi
	at_exit "umount -l /$d"
done
pass "overlays over /usr, /etc and /var"
# man-db's dpkg trigger would rebuild the whole man index after each of
# the four dpkg runs below (most of this phase's time on a busy machine);
# man -w reads the pages, not the index.  (In the overlay only.)
rm -f /var/lib/man-db/auto-update

old=$(dpkg-query -W -f='${Version}' qperf 2>/dev/null)
case $old in
0.4.11-*) pass "Debian's qperf $old is installed" ;;
*)
	fail "Debian's qperf 0.4.11 is installed" "dpkg says '$old' (scripts/install-deps --test installs it)"
	finish ;;
esac
olddeb=$(ls /var/cache/apt/archives/qperf_"${old/:/%3a}"_*.deb 2>/dev/null | head -n 1)
if [ -z "$olddeb" ]; then
	(cd "$T" && timeout -k 5 120 apt-get download -q "qperf=$old") >"$T/dl.log" 2>&1
	olddeb=$(ls "$T"/qperf_*.deb 2>/dev/null | head -n 1)
fi
if [ -n "$olddeb" ]; then
	pass "Debian's qperf $old package at hand (to put it back)"
else
	fail "Debian's qperf $old package at hand (to put it back)" "$(cat "$T/dl.log")"
	finish
fi

section "install over 0.4.11"
run -t 180 dpkg -i "$DEB" "$SVDEB"
expect "dpkg -i over qperf $old: no question, no error" 0 \
	"Unpacking qperf \(0\.5\.0-1\) over \(${old//./\\.}\)"
for p in qperf qperf-softverbs; do
	st=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>&1)
	if [ "$st" = "install ok installed 0.5.0-1" ]; then
		pass "$p 0.5.0-1 installed"
	else
		fail "$p 0.5.0-1 installed" "$st"
	fi
done
run /usr/bin/qperf --version
expect "qperf --version says 0.5" 0 '^qperf 0\.5\.0 \(transports: .*rc.*; rdma: built'
gone=
for f in /usr/share/doc/qperf/help.txt.gz /usr/share/doc/qperf/AUTHORS; do
	[ -e "$f" ] && gone="$gone $f"
done
if [ -z "$gone" ]; then
	pass "0.4.11's own files are gone"
else
	fail "0.4.11's own files are gone" "left:$gone"
fi

section "man pages"
for m in "1 qperf /usr/share/man/man1/qperf.1.gz" \
	"7 qperf-guide /usr/share/man/man7/qperf-guide.7.gz" \
	"1 qperf-softverbs /usr/share/man/man1/qperf-softverbs.1.gz"; do
	set -- $m
	run man -aw "$1" "$2"
	if [ "$RC" = 0 ] && grep -qx "$3" "$OUT_FILE" && [ -s "$3" ] &&
		zcat "$3" | grep -q '^\.SH NAME'; then
		pass "man -w $2 finds $3"
	else
		fail "man -w $2 finds $3" "$(ctx)"
	fi
done

section "systemd unit"
unit=/lib/systemd/system/qperf.service
if grep -qx 'ExecStart=/usr/bin/qperf --no_quit' "$unit" 2>/dev/null; then
	pass "qperf.service in place, running /usr/bin/qperf"
else
	fail "qperf.service in place, running /usr/bin/qperf" "$(cat "$unit" 2>&1)"
fi
enabled=$(find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
	-name qperf.service 2>/dev/null)
run systemctl is-enabled qperf.service
if [ -z "$enabled" ] && [ "$OUT" = disabled ]; then
	pass "qperf.service is not enabled"
else
	fail "qperf.service is not enabled" "links: $enabled" "$(ctx)"
fi

section completion
for c in "bash /usr/share/bash-completion/completions/qperf" \
	"zsh /usr/share/zsh/vendor-completions/_qperf" \
	"fish /usr/share/fish/vendor_completions.d/qperf.fish"; do
	set -- $c
	/usr/bin/qperf --completion "$1" >"$T/comp.$1" 2>&1
	if [ -s "$2" ] && cmp -s "$2" "$T/comp.$1"; then
		pass "$1 completion in place ($2)"
	else
		fail "$1 completion in place ($2)" "$(ls -l "$2" 2>&1)" "$(diff "$2" "$T/comp.$1" 2>&1 | head)"
	fi
done
run bash -c '. /usr/share/bash-completion/completions/qperf && complete -p qperf'
expect "bash: the installed script registers qperf's completion" 0 '^complete .* qperf$'

section loopback
if start_server; then
	run /usr/bin/qperf 127.0.0.1 -lp "$SERVER_PORT" -t 1 tcp_lat
	expect "installed qperf: tcp_lat on loopback" 0 "^ +latency += +$POS [mun]?s$"
	stop_server "$SERVER_PORT" "$SERVER_PID" "installed qperf: server stops with quit"
else
	fail "installed qperf: server starts" "$(cat "$SERVER_LOG")"
fi

section softverbs
run qperf-softverbs
expect "qperf-softverbs without a command: usage error" 2 '^$' "no command given"
run qperf-softverbs qperf-no-such-command
expect "qperf-softverbs: a missing command" 127 '^$' "'qperf-no-such-command': command not found"
run ldconfig -p
if [ "$RC" = 0 ] && ! grep -q qperf-softverbs "$OUT_FILE"; then
	pass "softverbs is not in the dynamic linker's cache"
else
	fail "softverbs is not in the dynamic linker's cache" "$(grep qperf-softverbs "$OUT_FILE")"
fi
run ldd /usr/bin/qperf
if has "libibverbs\.so\.1 => " && ! has "qperf-softverbs"; then
	pass "plain qperf loads rdma-core's libibverbs"
else
	fail "plain qperf loads rdma-core's libibverbs" "$(ctx)"
fi
run qperf-softverbs ldd /usr/bin/qperf
expect "through the wrapper qperf loads softverbs' libibverbs and librdmacm" 0 \
	"libibverbs\.so\.1 => $SVDIR/libibverbs\.so\.1"
has "librdmacm\.so\.1 => $SVDIR/librdmacm\.so\.1" ||
	fail "through the wrapper: librdmacm from $SVDIR" "$(ctx)"
export SOFTVERBS_FABRIC=qperf-package-$$
if SOFTVERBS_NODE=1 start_server qperf-softverbs --; then
	if grep -q "$SVDIR/libibverbs.so.1" "/proc/$SERVER_PID/maps"; then
		pass "server over the wrapper maps softverbs' libibverbs"
	else
		fail "server over the wrapper maps softverbs' libibverbs" "$(grep -i verbs "/proc/$SERVER_PID/maps")"
	fi
	run env SOFTVERBS_NODE=2 qperf-softverbs /usr/bin/qperf 127.0.0.1 -lp "$SERVER_PORT" -t 1 rc_bw
	expect "qperf-softverbs qperf ... rc_bw" 0 "^ +bw += +$POS [KMG]?B/sec$"
	run env SOFTVERBS_NODE=2 qperf-softverbs /usr/bin/qperf 127.0.0.1 -lp "$SERVER_PORT" -t 1 -cm1 rc_lat
	expect "qperf-softverbs qperf -cm1 ... rc_lat (librdmacm)" 0 "^ +latency += +$POS [mun]?s$"
	stop_server "$SERVER_PORT" "$SERVER_PID" "server over the wrapper stops with quit"
else
	fail "server over the wrapper starts" "$(cat "$SERVER_LOG")"
fi

section "remove and purge"
dpkg -L qperf qperf-softverbs 2>/dev/null | sort -u >"$T/listed"
while IFS= read -r f; do
	[ -d "$f" ] && continue # (and /lib, a link to usr/lib)
	echo "$f"
done <"$T/listed" >"$T/files"
n=$(wc -l <"$T/files")
run -t 120 dpkg -r qperf-softverbs qperf
expect "dpkg -r qperf-softverbs qperf" 0 'Removing qperf '
run -t 120 dpkg -P qperf-softverbs qperf
expect "dpkg -P qperf-softverbs qperf" 0
for p in qperf qperf-softverbs; do
	run dpkg -L "$p"
	if [ "$RC" != 0 ] && [ -z "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | tr -d ' n')" ]; then
		pass "$p: dpkg knows of nothing installed"
	else
		fail "$p: dpkg knows of nothing installed" "$(ctx)"
	fi
done
left=
while IFS= read -r f; do
	{ [ -e "$f" ] || [ -L "$f" ]; } && left="$left $f"
done <"$T/files"
for f in "$SVDIR" /usr/share/doc/qperf /usr/share/doc/qperf-softverbs \
	$(find /etc/systemd /var/lib/systemd -name 'qperf.service*' 2>/dev/null); do
	[ -e "$f" ] && left="$left $f"
done
if [ "$n" -gt 20 ] && [ -z "$left" ]; then
	pass "none of the $n files of both packages is left"
else
	fail "none of the $n files of both packages is left" "left:$left"
fi

section "0.4.11 back"
run -t 120 dpkg -i "$olddeb"
expect "dpkg -i Debian's qperf $old" 0 "Setting up qperf \(${old//./\\.}\)"
run /usr/bin/qperf --version
expect "/usr/bin/qperf is 0.4.11 again" 0 '^qperf 0\.4\.11$'
finish
