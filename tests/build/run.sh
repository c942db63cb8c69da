#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build matrix: gcc and clang with -Werror, NO_RDMA=1, NO_PMIX=1, ./configure && make
# giving the same features as plain make, make install with PREFIX and
# DESTDIR, make clean.  Each build happens in a scratch copy of the tree.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$T
copy() { # dir: a clean copy of the sources
	mkdir -p "$1"
	git ls-files -z | xargs -0 cp --parents -t "$1" 2>/dev/null ||
		{ echo "copy failed"; return 1; }
}

copy "$tmp/gcc" && check "gcc -Werror build" make -C "$tmp/gcc" CC=gcc qperf
check "gcc build: --version" grep -q . <("$tmp/gcc/qperf" --version)

copy "$tmp/clang" && check "clang -Werror build" make -C "$tmp/clang" CC=clang qperf

copy "$tmp/nordma" && check "NO_RDMA=1 build" make -C "$tmp/nordma" NO_RDMA=1
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

copy "$tmp/nonuma" && check "NO_NUMA=1 build" make -C "$tmp/nonuma" NO_NUMA=1 qperf
check "NO_NUMA=1: --version says NUMA is not built" \
	grep -q "numa: not built" <("$tmp/nonuma/qperf" --version)
check "default build: --version says NUMA is built" \
	grep -q "numa: built" <("$tmp/gcc/qperf" --version)
copy "$tmp/noauth" && check "NO_AUTH=1 build" make -C "$tmp/noauth" NO_AUTH=1 qperf
check "NO_AUTH=1: --version says the shared secret is not built" \
	grep -q "secret: not built" <("$tmp/noauth/qperf" --version)
check "NO_AUTH=1: no libcrypto linked" \
	sh -c "! ldd '$tmp/noauth/qperf' | grep -q libcrypto"
check "default build: --version has the shared secret" \
	grep -q "secret: hmac-sha256" <("$tmp/gcc/qperf" --version)
printf 'k\n' >"$tmp/secret" && chmod 600 "$tmp/secret"
out=$("$tmp/noauth/qperf" -lp 0 --secret_file "$tmp/secret" 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q "built without shared-secret support" <<<"$out"; then
	pass "NO_AUTH=1: --secret_file refused with one line, exit 1"
else
	fail "NO_AUTH=1: --secret_file refused with one line, exit 1 (rc=$rc: $out)"
fi

copy "$tmp/nopmix" && check "NO_PMIX=1 build" make -C "$tmp/nopmix" NO_PMIX=1 qperf
check "NO_PMIX=1: --version says PMIx is not built" \
	grep -q "pmix: not built)$" <("$tmp/nopmix/qperf" --version)
check "default build: --version says PMIx is loaded at run time" \
	grep -q "pmix: dlopen)$" <("$tmp/gcc/qperf" --version)
out=$(env PMIX_NAMESPACE=x PMIX_RANK=1 QPERF_SIZE=2 "$tmp/nopmix/qperf" --cluster all tcp_lat 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$out" = "qperf: rank 1: PMIx: this qperf was built without PMIx support (NO_PMIX=1 or no libpmix-dev); pass --rendezvous HOST:PORT" ]; then
	pass "NO_PMIX=1: cluster mode under PMIx without --rendezvous: one line, exit 1"
else
	fail "NO_PMIX=1: cluster mode under PMIx without --rendezvous: one line, exit 1 (rc=$rc: $out)"
fi

if command -v autoconf >/dev/null; then
	copy "$tmp/conf" && check "autoconf && ./configure && make" \
		sh -c "cd '$tmp/conf' && autoconf && ./configure && make qperf"
	check "configure and plain make give the same features" \
		cmp <("$tmp/conf/qperf" --version) <("$tmp/gcc/qperf" --version)
	copy "$tmp/conf2" && check "./configure --without-rdma" \
		sh -c "cd '$tmp/conf2' && autoconf && ./configure --without-rdma && make qperf"
	check "configure --without-rdma: --version says RDMA is not built" \
		grep -q "rdma: not built" <("$tmp/conf2/qperf" --version)
	copy "$tmp/conf3" && check "./configure --without-auth" \
		sh -c "cd '$tmp/conf3' && autoconf && ./configure --without-auth && make qperf"
	check "configure --without-auth: --version says the secret is not built" \
		grep -q "secret: not built" <("$tmp/conf3/qperf" --version)
	copy "$tmp/conf4" && check "./configure --without-pmix" \
		sh -c "cd '$tmp/conf4' && autoconf && ./configure --without-pmix && make qperf"
	check "configure --without-pmix: --version says PMIx is not built" \
		grep -q "pmix: not built)$" <("$tmp/conf4/qperf" --version)
else
	fail "autoconf is not installed (scripts/install-deps --test installs it)"
fi

check "make install PREFIX DESTDIR" make -C "$tmp/gcc" install PREFIX=/opt/q DESTDIR="$tmp/root"
check "installed binary" test -x "$tmp/root/opt/q/bin/qperf"
check "installed man page" test -f "$tmp/root/opt/q/share/man/man1/qperf.1"
check "installed qperf-guide(7)" test -f "$tmp/root/opt/q/share/man/man7/qperf-guide.7"

check "make clean" make -C "$tmp/gcc" clean
left=$(cd "$tmp/gcc" && find . -name '*.o' -o -name '*.a' -o -name qperf -type f | head)
if [ -z "$left" ]; then pass "make clean removes what was built"; else fail "make clean removes what was built" "make clean left: $left"; fi

finish
