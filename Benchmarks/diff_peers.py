#!/usr/bin/env python3
"""Diff two Parse class exports ({"results":[...]}) with a Python peer, for diff-bench.sh.

usage: diff_peers.py deepdiff|jsondiff A.json B.json

Both files are loaded with the standard json module and their rows keyed by objectId, which
is what `pfarchive diff` compares (a class is a set of objects by objectId); jsondiff's list
diff is a quadratic longest-common-subsequence and would not finish on 1,000,000 rows. The
script prints the peer's count of changed values, so the run can be checked against
pfarchive's summary line.
"""
import json
import sys


def load(path):
    with open(path, "rb") as f:
        rows = json.load(f)["results"]
    return {row["objectId"]: row for row in rows}


def main():
    peer, a_path, b_path = sys.argv[1:4]
    a, b = load(a_path), load(b_path)
    if peer == "deepdiff":
        from deepdiff import DeepDiff
        d = DeepDiff(a, b)
        changed = len(d.get("values_changed", {})) + len(d.get("type_changes", {}))
    elif peer == "jsondiff":
        import jsondiff
        d = jsondiff.diff(a, b, syntax="explicit")
        changed = sum(len(v) for v in d.values()) if d else 0
    else:
        sys.exit("unknown peer " + peer)
    print("%s: %d changed" % (peer, changed))


if __name__ == "__main__":
    main()
