#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian packages (debian/): dpkg-buildpackage -b builds qperf and
# qperf-softverbs in a scratch copy of the tracked tree (never in the
# checkout, which other suites run from); the packages' metadata and
# contents are checked and lintian must report no error.  Then
# tests/package/install.sh installs them over Debian's qperf 0.4.11,
# uses them, removes and purges them and puts 0.4.11 back, all inside a
# private mount namespace whose /usr, /etc and /var are overlays of the
# machine's: the real dpkg database and 0.4.11 below, every change in a
# scratch layer.  So suites running beside this one (interop, rdma, ...)
# keep /usr/bin/qperf 0.4.11 the whole time, and an interrupted run
# leaves the machine as it was; the last check says the machine's qperf
# is untouched.  Needs root (dpkg, mount) for the install phase.
set -u
. "$(dirname "$0")/../lib.sh"

ROOT=$LIB_ROOT
ARCH=$(dpkg --print-architecture)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
VER=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version 2>/dev/null)
UPVER=${VER%-*}
OUTDIR=$T/build
SRC=$OUTDIR/qperf-$UPVER
DEB=$OUTDIR/qperf_${VER}_$ARCH.deb
SVDEB=$OUTDIR/qperf-softverbs_${VER}_$ARCH.deb

missing=
for c in dpkg-buildpackage dh lintian; do
	command -v "$c" >/dev/null || missing="$missing $c"
done
if [ -n "$missing" ] || [ -z "$VER" ]; then
	fail "packaging tools installed" "missing:$missing (scripts/install-deps --test)"
	finish
fi

section build
# The tracked files, as a fresh clone has them.
mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -z | xargs -0 cp -p --parents -t "$SRC")
start=$SECONDS
(cd "$SRC" && env -u MAKEFLAGS DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck noddebs" \
	timeout -k 5 900 dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
rc=$?
echo "# dpkg-buildpackage took $((SECONDS - start)) s"
if [ $rc -eq 0 ] && [ -f "$DEB" ] && [ -f "$SVDEB" ]; then
	pass "dpkg-buildpackage -b builds qperf and qperf-softverbs $VER"
else
	fail "dpkg-buildpackage -b builds qperf and qperf-softverbs $VER" \
		"rc=$rc; $(ls "$OUTDIR")" "$(tail -n 30 "$T/build.log")"
	finish
fi

# field PKG.deb FIELD: a control field of a built package.
field() {
	dpkg-deb -f "$1" "$2"
}
# has_file PKG.deb PATH: is PATH (./PATH in the archive) in the package?
has_file() {
	dpkg-deb -c "$1" | awk '{ print $6 }' | grep -qx "\./$2"
}

section metadata
# Build-Depends are scripts/install-deps' build list (build-essential
# aside) plus debhelper: the two cannot drift apart.
want=$(sed -n '/^BUILD="/,/"$/p' "$ROOT/scripts/install-deps" | tr -d '"\\' |
	sed 's/^BUILD=//' | tr ' ' '\n' | grep -v -e '^$' -e '^build-essential$' | sort | tr '\n' ' ')
have=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$ROOT/debian/control" | sed 's/^Build-Depends://' |
	grep -v '^[A-Z]' | tr ',' '\n' | sed 's/^ *//; s/ *$//; s/ .*//' |
	grep -v -e '^$' -e '^debhelper-compat$' | sort | tr '\n' ' ')
if [ -n "$want" ] && [ "$want" = "$have" ]; then
	pass "Build-Depends are scripts/install-deps' build dependencies"
else
	fail "Build-Depends are scripts/install-deps' build dependencies" \
		"install-deps: $want" "debian/control: $have"
fi
d=$(field "$DEB" Depends)
if [[ $d == *"libibverbs1 "* && $d == *"librdmacm1 "* && $d == *"libjansson4 "* ]]; then
	pass "qperf: Depends from shlibs name libibverbs1, librdmacm1, libjansson4"
else
	fail "qperf: Depends from shlibs name libibverbs1, librdmacm1, libjansson4" "Depends: $d"
fi
s=$(field "$DEB" Suggests)
if [[ $s == *libpmix2* && $d != *libpmix* ]]; then
	pass "qperf: libpmix2 (dlopen'ed) is a Suggests, not a Depends"
else
	fail "qperf: libpmix2 (dlopen'ed) is a Suggests, not a Depends" "Depends: $d" "Suggests: $s"
fi
d=$(field "$SVDEB" Depends)
if [[ $d == *libc6* && $d != *libibverbs* && $d != *librdmacm* ]]; then
	pass "qperf-softverbs: Depends libc6, not rdma-core's libraries"
else
	fail "qperf-softverbs: Depends libc6, not rdma-core's libraries" "Depends: $d"
fi
ctl=$(dpkg-deb --ctrl-tarfile "$SVDEB" | tar t | sed 's|^\./||' | grep -v '^$' | sort | tr '\n' ' ')
if [ "$ctl" = "control md5sums " ]; then
	pass "qperf-softverbs: no shlibs, symbols, triggers or maintainer scripts"
else
	fail "qperf-softverbs: no shlibs, symbols, triggers or maintainer scripts" "control members: $ctl"
fi

section contents
for f in usr/bin/qperf usr/share/man/man1/qperf.1.gz usr/share/man/man7/qperf-guide.7.gz \
	lib/systemd/system/qperf.service usr/share/bash-completion/completions/qperf \
	usr/share/zsh/vendor-completions/_qperf usr/share/fish/vendor_completions.d/qperf.fish \
	usr/share/doc/qperf/copyright usr/share/doc/qperf/README.md.gz; do
	if has_file "$DEB" "$f"; then pass "qperf ships /$f"; else fail "qperf ships /$f" "$(dpkg-deb -c "$DEB")"; fi
done
for f in usr/bin/qperf-softverbs usr/share/man/man1/qperf-softverbs.1.gz \
	"usr/lib/$MA/qperf-softverbs/libibverbs.so.1" "usr/lib/$MA/qperf-softverbs/librdmacm.so.1" \
	"usr/lib/$MA/qperf-softverbs/libibumad.so.3"; do
	if has_file "$SVDEB" "$f"; then pass "qperf-softverbs ships /$f"; else fail "qperf-softverbs ships /$f" "$(dpkg-deb -c "$SVDEB")"; fi
done
# Nothing on the default library path: softverbs must never replace
# rdma-core's libraries for other programs.
pub=$(dpkg-deb -c "$SVDEB" | awk '{ print $6 }' |
	grep -E "^\./(usr/)?lib/($MA/)?[^/]+\.so" || true)
if [ -z "$pub" ]; then
	pass "qperf-softverbs: no library on the default library path"
else
	fail "qperf-softverbs: no library on the default library path" "$pub"
fi

section lintian
start=$SECONDS
run -t 300 lintian --tag-display-limit 0 "$OUTDIR/qperf_${VER}_$ARCH.changes"
echo "# lintian took $((SECONDS - start)) s"
grep -E '^[WI]: ' "$OUT_FILE" | sed 's/^/# lintian: /'
if [ "$RC" -eq 0 ] && ! grep -q '^E: ' "$OUT_FILE"; then
	pass "lintian: no errors"
else
	fail "lintian: no errors" "$(ctx)"
fi

section install
if [ "$(id -u)" != 0 ]; then
	skip "install, use, remove and purge over Debian's qperf" "needs root"
	finish
fi
before=$(dpkg-query -W -f='${Version}' qperf 2>/dev/null)
sum_before=$(md5sum /usr/bin/qperf 2>/dev/null)
wrap_before=$(ls /usr/bin/qperf-softverbs 2>/dev/null)
start=$SECONDS
timeout -k 5 300 unshare --mount --propagation private \
	bash "$ROOT/tests/package/install.sh" "$DEB" "$SVDEB" 2>&1 | tee "$T/install.log"
echo "# the install phase took $((SECONDS - start)) s"
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/install.log" | tail -n 1)
if [ -z "$last" ]; then
	fail "install phase ended with a summary" "$(tail -n 20 "$T/install.log")"
else
	PASSED=$((PASSED + ${last%% passed*}))
	f=${last#*passed, }
	FAILED=$((FAILED + ${f%% failed*}))
fi
after=$(dpkg-query -W -f='${Version}' qperf 2>/dev/null)
sum_after=$(md5sum /usr/bin/qperf 2>/dev/null)
if [ "$before" = "$after" ] && [ "$sum_before" = "$sum_after" ] &&
	[ "$wrap_before" = "$(ls /usr/bin/qperf-softverbs 2>/dev/null)" ]; then
	pass "the machine's qperf is untouched ($after)"
else
	fail "the machine's qperf is untouched ($before)" "after: $after" "$sum_before" "$sum_after"
fi
finish
