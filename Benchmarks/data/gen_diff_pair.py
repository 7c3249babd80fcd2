#!/usr/bin/env python3
"""Write two Parse export directories that differ in one field of a share of their objects.

A/GameScore.json and B/GameScore.json each hold {"results":[...]} with N GameScore objects
(objectId, createdAt, updatedAt, score, playerName, cheatMode, level, tags). B is A with
`score` changed (plus one) in every object whose index is a multiple of round(1/share), so
with the default share of 1% exactly N/100 objects differ. Objects are in the same order in
both files, as two exports of one class made one after the other would be.

The output is a pure function of (N, seed, share): same arguments, same bytes.

usage: gen_diff_pair.py N DIR_A DIR_B [--seed S] [--share 0.01]
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_parse_export import iso_at  # noqa: E402 (the one ISO-8601 formatter of the generators)

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
NAMES = ["José", "Zoë", "Ana", "Łukasz", "Søren", "Ольга", "李雷", "Ayşe", "Chloé", "Kenji"]
TAGS = ["ranked", "daily", "casual", "pro", "event-🎉", "coop", "solo"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("n", type=int)
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--share", type=float, default=0.01)
    args = p.parse_args()
    step = max(1, round(1 / args.share))
    r = random.Random(args.seed)
    os.makedirs(args.a, exist_ok=True)
    os.makedirs(args.b, exist_ok=True)
    with open(os.path.join(args.a, "GameScore.json"), "w", encoding="utf-8") as fa, \
         open(os.path.join(args.b, "GameScore.json"), "w", encoding="utf-8") as fb:
        fa.write('{"results":[')
        fb.write('{"results":[')
        for i in range(args.n):
            t = 1_577_836_800 + r.randrange(4 * 365 * 86400)
            obj = {
                "objectId": "".join(r.choice(ALNUM) for _ in range(10)),
                "createdAt": iso_at(t, r.randrange(1000)),
                "updatedAt": iso_at(t + r.randrange(86400), r.randrange(1000)),
                "score": r.randrange(100000),
                "playerName": r.choice(NAMES),
                "cheatMode": r.random() < 0.1,
                "level": r.randrange(1, 60),
                "tags": [r.choice(TAGS) for _ in range(r.randrange(3))],
            }
            sep = "," if i else ""
            fa.write(sep + json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
            if i % step == 0:
                obj["score"] += 1
            fb.write(sep + json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
        fa.write("]}\n")
        fb.write("]}\n")


if __name__ == "__main__":
    main()
