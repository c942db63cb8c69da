#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The ASan+UBSan build that the sanitizer passes share (tests/sanitize,
# the RDMA suite's second pass): the tree's tracked files are copied into
# tests/.san-build with their times kept, so make there rebuilds only what
# changed since the last pass.
#   tests/san-build.sh TARGET...   (e.g. qperf unit); exit status: make's
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/tests/.san-build
# Suites running side by side (tests/run.sh -j) take turns: a copy made
# while another pass compiles from it would give that pass torn sources.
mkdir -p "$dir" &&
	exec 9>"$dir.lock" && flock 9 &&
	(cd "$root" && git ls-files -z | xargs -0 cp -p --parents -t "$dir") &&
	make -C "$dir" -s SANITIZE=address,undefined "$@"
