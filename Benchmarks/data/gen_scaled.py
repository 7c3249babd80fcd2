#!/usr/bin/env python3
"""Scales the three JSON benchmark files (canada, citm_catalog, twitter) to about a target
size, keeping their shapes, for the memory benchmarks of documents that are not a sequence of
records (Docs/Benchmarks.md, "Streaming"):

- canada: the one feature repeated (a FeatureCollection of N copies);
- citm_catalog: every member of its maps (`events`, `areaNames`, ...) repeated under new
  keys (`<key>_<copy>`), so each map holds N times its members, and its `performances`
  array repeated;
- twitter: the statuses repeated, `search_metadata` kept.

Usage: gen_scaled.py DATA_DIR OUT_DIR [MEGABYTES]   (default 150)
"""
import json
import os
import sys

src, out = sys.argv[1], sys.argv[2]
target = int(sys.argv[3]) if len(sys.argv) > 3 else 150
os.makedirs(out, exist_ok=True)

def load(name):
    with open(os.path.join(src, name + ".json")) as f:
        return json.load(f)

def copies(name):
    return max(1, target * 1_000_000 // os.path.getsize(os.path.join(src, name + ".json")))

def save(name, doc):
    with open(os.path.join(out, name + "-scaled.json"), "w") as f:
        json.dump(doc, f, ensure_ascii=False)

canada = load("canada")
canada["features"] = canada["features"] * copies("canada")
save("canada", canada)

citm = load("citm_catalog")
n = copies("citm_catalog")
for key, value in list(citm.items()):
    if isinstance(value, dict):
        citm[key] = {f"{k}_{c}" if c else k: v for c in range(n) for k, v in value.items()}
    elif isinstance(value, list):
        citm[key] = value * n
save("citm_catalog", citm)

twitter = load("twitter")
twitter["statuses"] = twitter["statuses"] * copies("twitter")
save("twitter", twitter)
