#!/usr/bin/env bash
# record.sh OUT.jsonl -- runs structured-merge-diff's own `merge` tests
# (sigs.k8s.io/structured-merge-diff/v6, tag v6.4.2) against the real
# updater with fixture.go (beside this script) in place of the upstream
# test fixture, and writes each test case as a line of smp's fixtures:
# {"case", "schemas", "ops" (each with the reference's outcome), "converter",
#  "ignoreFilter", "ignoredFields", "object", "apiVersion", "managed", "error"}.
#
#   SMD_MIRROR   bare git snapshot of kubernetes-sigs/structured-merge-diff
#                (default: .mirror/kubernetes-sigs+structured-merge-diff/repo beside shared/)
#   SMD_VENDOR   a vendor tree with its dependencies (default ~/smpgo/src/vendor,
#                made by shared/reference/build.sh)
#   SMD_BUILD    build folder, outside every repository (default ~/smpgo/smdcases)
#   GO           the go binary (default: go on the PATH)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: record.sh OUT.jsonl}
ROOT=$(cd "$HERE/../.." && pwd)
MIRROR=${SMD_MIRROR:-$(cd "$ROOT/../.." && pwd)/.mirror/kubernetes-sigs+structured-merge-diff/repo}
[ -d "$MIRROR" ] || MIRROR=/work/.mirror/kubernetes-sigs+structured-merge-diff/repo
VENDOR=${SMD_VENDOR:-$HOME/smpgo/src/vendor}
BUILD=${SMD_BUILD:-$HOME/smpgo/smdcases}
GO=${GO:-go}
TAG=v6.4.2

rm -rf "$BUILD"
mkdir -p "$BUILD"
git --git-dir="$MIRROR" archive "$TAG" fieldpath schema typed value merge internal/testdata go.mod | tar -x -C "$BUILD"
mkdir -p "$BUILD/internal/fixture"
cp "$HERE/fixture.go" "$BUILD/internal/fixture/"

# Dependencies from the vendor tree, each a local module.
deps=(github.com/json-iterator/go github.com/modern-go/concurrent github.com/modern-go/reflect2 go.yaml.in/yaml/v2)
{
  echo "module sigs.k8s.io/structured-merge-diff/v6"
  echo
  echo "go 1.23"
  echo
  for d in "${deps[@]}"; do
    mkdir -p "$BUILD/_deps/$d"
    cp -r "$VENDOR/$d/." "$BUILD/_deps/$d/"
    # Their own requirements are test-only: none is needed here.
    echo "module $d" > "$BUILD/_deps/$d/go.mod"
    v=v0.0.0; case $d in */v[0-9]*) v=${d##*/}.0.0;; esac
    echo "require $d $v"
    echo "replace $d => ./_deps/$d"
  done
} > "$BUILD/go.mod"

cd "$BUILD"
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GOSUMDB=off GOTELEMETRY=off
SMD_RECORD=1 "$GO" test ./merge/ -count=1 -v -run '^Test' > "$BUILD/test.out" 2>&1 || true
grep -E '^(--- FAIL|FAIL|ok)' "$BUILD/test.out" >&2 || true

python3 - "$BUILD/test.out" "$OUT" <<'PY'
import json, sys
name, lines, seen = None, [], {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("=== RUN"):
        name = line.split(None, 2)[2]
    elif line.startswith("SMDCASE "):
        rec = json.loads(line[len("SMDCASE "):])
        # A test may run several cases under one name: number them.
        seen[name] = seen.get(name, 0) + 1
        case = name if seen[name] == 1 else "%s#%d" % (name, seen[name])
        lines.append(json.dumps({"case": case, **rec}, sort_keys=True, separators=(",", ":")))
# Upstream runs the cases of a table in map order: sort for a stable file.
lines.sort(key=lambda l: json.loads(l)["case"])
with open(sys.argv[2], "w") as out:
    out.write("".join(l + "\n" for l in lines))
print("record.sh: %d cases -> %s" % (len(lines), sys.argv[2]), file=sys.stderr)
PY
