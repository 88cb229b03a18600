#!/usr/bin/env python3
"""Every dependency of the published crates, as Cargo.lock pins it, builds
with the Rust version the crates claim (`rust-version` in their manifests).

Reads `cargo metadata` (all features, the lock file as it is) on stdin and
follows normal and build dependencies from smp-derive, smp-core and
smp-k8s-types. A dependency without `rust-version` claims nothing and is
listed, not refused. Exit status 1 when a dependency needs a newer Rust.
"""
import json
import sys

PUBLISHED = ["smp-derive", "smp-core", "smp-k8s-types"]


def version(text):
    parts = [int(part) for part in text.split(".")] + [0, 0]
    return tuple(parts[:3])


meta = json.load(sys.stdin)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
roots = [p for p in meta["packages"] if p["name"] in PUBLISHED and p["source"] is None]
claims = {p["rust_version"] for p in roots}
if len(roots) != len(PUBLISHED) or len(claims) != 1 or None in claims:
    sys.exit(f"the published crates must share one rust-version: {[(p['name'], p['rust_version']) for p in roots]}")
msrv = claims.pop()

seen, stack = set(), [p["id"] for p in roots]
while stack:
    node = nodes[stack.pop()]
    for dep in node["deps"]:
        kinds = {k["kind"] for k in dep["dep_kinds"]}
        if kinds & {None, "build"} and dep["pkg"] not in seen:
            seen.add(dep["pkg"])
            stack.append(dep["pkg"])

newer, unclaimed = [], []
for pid in sorted(seen, key=lambda i: packages[i]["name"]):
    p = packages[pid]
    if p["source"] is None:
        continue
    if p["rust_version"] is None:
        unclaimed.append(f"{p['name']} {p['version']}")
    elif version(p["rust_version"]) > version(msrv):
        newer.append(f"{p['name']} {p['version']} needs Rust {p['rust_version']}")

print(f"   {len(seen)} dependencies of {', '.join(PUBLISHED)}; rust-version {msrv}")
if unclaimed:
    print(f"   no rust-version claimed (not checked): {', '.join(unclaimed)}")
if newer:
    print("ERROR: dependencies newer than the rust-version the crates claim:", *newer, sep="\n  ", file=sys.stderr)
    sys.exit(1)
