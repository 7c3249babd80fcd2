#!/usr/bin/env bash
# Fails when a target's `import`s and the dependencies Package.swift declares for it differ:
# every module a target's sources import must be a declared dependency (no module reached only
# through another one's dependencies), and every declared dependency must be imported somewhere
# in the target (no unused ones). Toolchain and platform modules (Foundation, Glibc, Testing, …)
# are not dependencies and are ignored. Run by scripts/test.sh; run it alone after changing
# imports or Package.swift:  bash scripts/check-imports.sh
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
swift package dump-package >"$manifest"
python3 - "$manifest" <<'PY'
import json, os, re, sys

manifest = json.load(open(sys.argv[1]))

# Modules that come with the toolchain or the platform, not from a declared dependency.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "Dispatch", "Glibc", "Musl", "Darwin", "Android", "Bionic", "WinSDK", "ucrt",
    "CRT", "Synchronization", "Observation", "RegexBuilder", "Distributed", "Swift",
    "_Concurrency", "_StringProcessing", "Testing", "XCTest", "os",
}
# A product whose module is not named like the product (none today; add pairs as needed).
PRODUCT_MODULES = {}

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_.]+)?\s*(?://.*)?$")


def imports_of(directory):
    found = {}
    for root, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.endswith(".docc")]
        for name in files:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            in_literal = False  # inside a """ string (the interop tests embed Python there)
            for line in open(path, encoding="utf-8"):
                if not in_literal:
                    m = IMPORT.match(line)
                    if m and m.group(1) not in SYSTEM:
                        found.setdefault(m.group(1), path)
                if line.count('"""') % 2 == 1:
                    in_literal = not in_literal
    return found


failures = []
for target in manifest["targets"]:
    if target["type"] in ("system", "binary", "plugin", "macro"):
        continue
    name = target["name"]
    default_root = "Tests" if target["type"] == "test" else "Sources"
    directory = target.get("path") or os.path.join(default_root, name)
    declared = set()
    for dep in target.get("dependencies", []):
        if "byName" in dep:
            declared.add(dep["byName"][0])
        elif "target" in dep:
            declared.add(dep["target"][0])
        elif "product" in dep:
            product = dep["product"][0]
            declared.add(PRODUCT_MODULES.get(product, product))
    imported = imports_of(directory)
    for module in sorted(set(imported) - declared):
        failures.append(f"{name}: imports {module} ({imported[module]}) but Package.swift does not declare it")
    for module in sorted(declared - set(imported)):
        failures.append(f"{name}: declares {module} in Package.swift but no source imports it")

if failures:
    print("check-imports: targets' imports and declared dependencies differ:", file=sys.stderr)
    for line in failures:
        print("  " + line, file=sys.stderr)
    sys.exit(1)
print(f"check-imports: {len(manifest['targets'])} targets import exactly what they declare")
PY
