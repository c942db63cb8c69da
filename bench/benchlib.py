# SPDX-License-Identifier: GPL-2.0-only
"""What the report code of compare-0411.sh and compare-rdma.sh shares."""
from collections import defaultdict


def read_raw(raw):
    """The raw TSV ("case tool pair metric value", or "... FAIL reason"):
    vals[case, metric, tool] = {pair: value} and nfail[case, tool] = the
    number of failed runs."""
    vals = defaultdict(dict)
    nfail = defaultdict(int)
    for line in open(raw):
        case, tool, pair, metric, value = line.rstrip("\n").split("\t", 4)
        if metric == "FAIL":
            nfail[case, tool] += 1
        else:
            vals[case, metric, tool][int(pair)] = float(value)
    return vals, nfail


def rss_cases(raw):
    """The (case, tool) pairs of the peak-memory runs (cases named "rss
    ..."), in the order they ran."""
    seen = []
    for line in open(raw):
        case, tool = line.split("\t")[:2]
        if case.startswith("rss") and (case, tool) not in seen:
            seen.append((case, tool))
    return seen
