#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build matrix: clang with -Werror (gcc's -Werror build is the tree's own,
# which `make check` made before any suite: $QPERF), one build with every
# feature off (NO_RDMA=1 NO_NUMA=1 NO_AUTH=1 NO_PMIX=1: each knob's checks
# below look at its own feature), ./configure giving the make plain make
# gives (with the same knobs), make install with PREFIX and DESTDIR, make
# clean.  Each build happens in a scratch copy of the tree.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$T
copy() { # dir: a clean copy of the sources
	mkdir -p "$1"
	git ls-files -z | xargs -0 cp --parents -t "$1" 2>/dev/null ||
		{ echo "copy failed"; return 1; }
}

check "gcc build (the tree's): --version" grep -q . <("$QPERF" --version)

copy "$tmp/clang" && check "clang -Werror build" make -C "$tmp/clang" CC=clang qperf

copy "$tmp/nordma" && check "NO_RDMA=1 NO_NUMA=1 NO_AUTH=1 NO_PMIX=1 build" \
	make -C "$tmp/nordma" NO_RDMA=1 NO_NUMA=1 NO_AUTH=1 NO_PMIX=1
check "NO_RDMA=1: --version says RDMA is not built" \
	grep -q "rdma: not built" <("$tmp/nordma/qperf" --version)
check "NO_RDMA=1: no softverbs built" test ! -e "$tmp/nordma/softverbs/build/libibverbs.so.1"
out=$("$tmp/nordma/qperf" localhost -ws 0 rc_bw 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q "lacks RDMA support" <<<"$out"; then
	pass "NO_RDMA=1: rc_bw says the build lacks RDMA support"
else
	fail "NO_RDMA=1: rc_bw says the build lacks RDMA support (rc=$rc: $out)"
fi

# NO_NUMA, NO_AUTH and NO_PMIX in one build: each HAVE_* conditional lives
# in the one file that wraps its library (tests/unit/test_docs.sh checks
# that), so the three switches cannot meet in any file; each has its own
# checks below.
check "NO_NUMA=1: --version says NUMA is not built" \
	grep -q "numa: not built" <("$tmp/nordma/qperf" --version)
check "default build: --version says NUMA is built" \
	grep -q "numa: built" <("$QPERF" --version)
check "NO_AUTH=1: --version says the shared secret is not built" \
	grep -q "secret: not built" <("$tmp/nordma/qperf" --version)
check "NO_AUTH=1: no libcrypto linked" \
	sh -c "! ldd '$tmp/nordma/qperf' | grep -q libcrypto"
check "default build: --version has the shared secret" \
	grep -q "secret: hmac-sha256" <("$QPERF" --version)
printf 'k\n' >"$tmp/secret" && chmod 600 "$tmp/secret"
out=$("$tmp/nordma/qperf" -lp 0 --secret_file "$tmp/secret" 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q "built without shared-secret support" <<<"$out"; then
	pass "NO_AUTH=1: --secret_file refused with one line, exit 1"
else
	fail "NO_AUTH=1: --secret_file refused with one line, exit 1 (rc=$rc: $out)"
fi
check "NO_PMIX=1: --version says PMIx is not built" \
	grep -q "pmix: not built)$" <("$tmp/nordma/qperf" --version)
check "default build: --version says PMIx is loaded at run time" \
	grep -q "pmix: dlopen)$" <("$QPERF" --version)
# Cluster mode seals every message with the job secret: a NO_AUTH build
# refuses it before anything else (so before its missing PMIx).
out=$(env PMIX_NAMESPACE=x PMIX_RANK=1 QPERF_SIZE=2 "$tmp/nordma/qperf" --cluster all tcp_lat 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$out" = "qperf: rank 1: cluster mode needs shared-secret support (every message is sealed with the job secret), but this qperf was built without it (NO_AUTH=1 or no libcrypto); rebuild it with libssl-dev installed" ]; then
	pass "NO_AUTH=1: cluster mode: one line, exit 1"
else
	fail "NO_AUTH=1: cluster mode: one line, exit 1 (rc=$rc: $out)"
fi

# ./configure only writes settings (config.mak.autogen): what make then
# runs must be exactly what plain make runs with the same knobs (make -n
# in two clean copies; the builds above show those knobs build and work).
same_make() { # name, configure args, make knobs
	local name=$1 cargs=$2 knobs=$3
	if ! (cd "$tmp/conf" && ./configure $cargs) >"$tmp/conf.log" 2>&1; then
		fail "$name: ./configure $cargs" "$(tail -n 20 "$tmp/conf.log")"
		return
	fi
	cc=$(sed -n 's/^CC = //p' "$tmp/conf/config.mak.autogen")
	make -s -n -C "$tmp/conf" qperf >"$tmp/conf.cmds" 2>&1
	make -s -n -C "$tmp/plain" CC="$cc" $knobs qperf >"$tmp/plain.cmds" 2>&1
	if [ -n "$cc" ] && grep -q -- "-o qperf " "$tmp/conf.cmds" &&
		cmp -s "$tmp/conf.cmds" "$tmp/plain.cmds"; then
		pass "$name"
	else
		fail "$name" "CC=$cc" "$(diff "$tmp/plain.cmds" "$tmp/conf.cmds" | head -n 20)"
	fi
}
if command -v autoconf >/dev/null; then
	copy "$tmp/plain" && copy "$tmp/conf" &&
		check "autoconf" sh -c "cd '$tmp/conf' && autoconf"
	same_make "./configure: make runs what plain make runs" "" ""
	same_make "./configure --without-rdma: make runs what NO_RDMA=1 runs" \
		--without-rdma NO_RDMA=1
	same_make "./configure --without-numa --without-auth --without-pmix: make runs what NO_NUMA=1 NO_AUTH=1 NO_PMIX=1 runs" \
		"--without-numa --without-auth --without-pmix" "NO_NUMA=1 NO_AUTH=1 NO_PMIX=1"
	check "configure --without-rdma writes NO_RDMA" sh -c \
		"cd '$tmp/conf' && ./configure --without-rdma >/dev/null 2>&1 && grep -qx 'NO_RDMA = 1' config.mak.autogen"
else
	fail "autoconf is not installed (scripts/install-deps --test installs it)"
fi

check "make install PREFIX DESTDIR" make -C "$tmp/clang" CC=clang install PREFIX=/opt/q DESTDIR="$tmp/root"
check "installed binary" test -x "$tmp/root/opt/q/bin/qperf"
check "installed man page" test -f "$tmp/root/opt/q/share/man/man1/qperf.1"
check "installed qperf-guide(7)" test -f "$tmp/root/opt/q/share/man/man7/qperf-guide.7"

check "make clean" make -C "$tmp/clang" CC=clang clean
left=$(cd "$tmp/clang" && find . -name '*.o' -o -name '*.a' -o -name qperf -type f | head)
if [ -z "$left" ]; then pass "make clean removes what was built"; else fail "make clean removes what was built" "make clean left: $left"; fi

finish
