#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# No-flake check: the whole softverbs conformance suite N times in a row
# (default 20).  Builds once, then runs run.sh --repeat N; any failure in any
# iteration fails the whole run.  Extra arguments go to run.sh (e.g. --asan,
# or case patterns).
#   tests/softverbs/repeat.sh [N] [run.sh options and patterns]
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n=20
case ${1:-} in
[0-9]*) n=$1; shift ;;
esac
exec "$HERE/run.sh" --repeat "$n" "$@"
