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
mkdir -p "$dir" &&
	(cd "$root" && git ls-files -z | xargs -0 cp -p --parents -t "$dir") &&
	make -C "$dir" -s SANITIZE=address,undefined "$@"
