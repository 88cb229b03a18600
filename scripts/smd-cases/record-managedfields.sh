#!/usr/bin/env bash
# record-managedfields.sh OUT.jsonl -- runs the tests of apimachinery's
# server-side apply field manager (k8s.io/apimachinery/pkg/util/managedfields
# and its internal package, at the commit shared/reference pins) with
# testfieldmanager.go (beside this script) in place of the upstream test
# helper, and writes one line per field manager a test drives: its kind and
# the operations (apply, update, reset) with the reference's outcomes.
# Each operation starts on a fresh wall-clock second; the times it stamps
# are rewritten to a time of its own (2030-01-01T00:MM:00Z, MM its index in
# the recording), so that a replay can give the same `now`.
#
#   APIMACHINERY_MIRROR  bare git snapshot of kubernetes/apimachinery
#   SMD_VENDOR           vendor tree of the dependencies (default ~/smpgo/src/vendor)
#   MF_BUILD             build folder, outside every repository (default ~/smpgo/mfcases)
#   GO                   the go binary (default: go on the PATH)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: record-managedfields.sh OUT.jsonl}
MIRROR=${APIMACHINERY_MIRROR:-/work/.mirror/kubernetes+apimachinery/repo}
VENDOR=${SMD_VENDOR:-$HOME/smpgo/src/vendor}
BUILD=${MF_BUILD:-$HOME/smpgo/mfcases}
GO=${GO:-go}
COMMIT=eed236ceee2c19c2753a3d93ac0631dc20750454

rm -rf "$BUILD"
# The tests read the API server's swagger.json seven folders above their
# package, as in kubernetes/kubernetes (staging/src/k8s.io/apimachinery):
# the module goes there, and the swagger.json of apimachinery's own test
# data would lack most kinds the tests use: in its place, the definitions of
# the OpenAPI v3 documents smp's built-in schemas come from
# (shared/k8s/openapi-v3), as one swagger.json.
ROOT=$BUILD
BUILD=$ROOT/staging/src/k8s.io/apimachinery
mkdir -p "$BUILD" "$ROOT/api/openapi-spec"
git --git-dir="$MIRROR" archive "$COMMIT" pkg third_party | tar -x -C "$BUILD"
MF=$BUILD/pkg/util/managedfields
OPENAPI_V3=${OPENAPI_V3:-$(cd "$HERE/../.." && pwd)/../shared/k8s/openapi-v3}
python3 - "$OPENAPI_V3" "$ROOT/api/openapi-spec/swagger.json" <<'PY'
import glob, json, os, sys
defs = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    defs.update(json.load(open(path)).get("components", {}).get("schemas", {}))
text = json.dumps({"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v3 documents"}, "paths": {}, "definitions": defs})
open(sys.argv[2], "w").write(text.replace('"#/components/schemas/', '"#/definitions/'))
PY
cp "$HERE/testfieldmanager.go" "$MF/internal/testing/testfieldmanager.go"
# Tests that need modules the vendor tree lacks (testify, go-cmp): not recorded.
rm -f "$MF/internal/typeconverter_test.go" "$MF/extract_test.go"

{
  echo "module k8s.io/apimachinery"
  echo
  echo "go 1.26.0"
  echo
  grep '^# ' "$VENDOR/modules.txt" | while read -r _ mod ver _; do
    [ "$mod" = k8s.io/apimachinery ] && continue
    mkdir -p "$BUILD/_deps/$mod"
    cp -r "$VENDOR/$mod/." "$BUILD/_deps/$mod/"
    # Their own requirements are test-only: none is needed here; their
    # language version stays.
    gover=$(grep -m1 '^go ' "$BUILD/_deps/$mod/go.mod" 2>/dev/null || echo "go 1.26.0")
    printf 'module %s\n\n%s\n' "$mod" "$gover" > "$BUILD/_deps/$mod/go.mod"
    echo "require $mod $ver"
    echo "replace $mod => ./_deps/$mod"
  done
} > "$BUILD/go.mod"

cd "$BUILD"
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GOSUMDB=off GOTELEMETRY=off
SMD_RECORD=1 "$GO" test ./pkg/util/managedfields/ ./pkg/util/managedfields/internal/ -count=1 -v -p 1 -run '^Test' > "$BUILD/test.out" 2>&1 || true
grep -E '^(--- FAIL|FAIL|ok)' "$BUILD/test.out" >&2 || true

python3 - "$BUILD/test.out" "$OUT" <<'PY'
import json, re, sys, time
name, pkg, hist, order = None, 0, {}, []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("=== RUN"):
        name = line.split(None, 2)[2]
    elif line.startswith(("ok ", "FAIL\t", "ok\t")):
        pkg += 1  # field manager ids restart in each test binary
    elif line.startswith("MFOP "):
        op = json.loads(line[len("MFOP "):])
        key = (pkg, op.pop("fm"))
        if key not in hist:
            hist[key] = {"case": name, "apiVersion": op["apiVersion"], "kind": op["kind"],
                         "subresource": op["subresource"], "chained": op["chained"], "ops": []}
            order.append(key)
        for k in ("apiVersion", "kind", "subresource", "chained"):
            op.pop(k)
        hist[key]["ops"].append(op)
# Each operation's wall-clock second becomes a time of its own.
stamp = {}
for key in order:
    for op in hist[key]["ops"]:
        if "second" in op:
            sec = op.pop("second")
            t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sec))
            stamp[t] = "2030-01-01T%02d:%02d:00Z" % divmod(len(stamp), 60)
            op["now"] = stamp[t]
text = "\n".join(json.dumps(hist[k], sort_keys=True, separators=(",", ":")) for k in order)
text = re.sub(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', lambda m: stamp.get(m.group(0), m.group(0)), text)
lines = text.split("\n") if text else []
# Number the histories of one test; sort by name for a stable file.
seen, out = {}, []
for l in lines:
    h = json.loads(l)
    seen[h["case"]] = seen.get(h["case"], 0) + 1
    h["case"] = "%s#%d" % (h["case"], seen[h["case"]])
    # A chain that only repeats a step of the server's (a second
    # last-applied updater, which finds nothing left to do) is the server's.
    if h["chained"] and h["case"].startswith("TestLastAppliedUpdater#"):
        h["chained"] = False
        h["note"] = "the test adds a second last-applied updater to the server's chain: the same answers"
    # A test's own chain or a subresource's manager is not replayed: its
    # name stays, its operations (megabytes of annotations for some) go.
    if h["chained"] or h["subresource"]:
        h["ops"] = []
    out.append(json.dumps(h, sort_keys=True, separators=(",", ":")))
with open(sys.argv[2], "w") as f:
    f.write("".join(l + "\n" for l in out))
print("record-managedfields.sh: %d histories, %d operations -> %s" % (len(out), sum(len(hist[k]["ops"]) for k in order), sys.argv[2]), file=sys.stderr)
PY
