#!/usr/bin/env bash
# Time per case of `smp apply|diff|three-way --kind Deployment --jsonl` on
# the three Deployment bench cases and two on the three-way case's live
# object (each line repeated REPEAT times, one thread, best of RUNS), for
# one or more smp binaries side by side, with the Go reference's time per
# case (bench-cases/README.md, quiet machine) and each binary's ratio to it.
#
# The time is the process's CPU time (`perf stat -e task-clock`, user and
# system; wall time where perf is missing), which other work on a loaded
# machine disturbs less than wall time. With INSTRUCTIONS=1, each binary's
# instructions per case are counted too (callgrind, on REPEAT / 10 cases,
# less those of a run of one case: what load does not disturb at all).
#
#   scripts/batch-speed.sh target/smp-old target/release/smp
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- target/release/smp
repeat=${REPEAT:-5000}
runs=${RUNS:-5}
dir=target/batch-speed
mkdir -p "$dir"
shared=${SMP_SHARED:-../shared}  # the shared data folder beside the project
perf=$(command -v perf || true)
if [ -n "$perf" ] && ! "$perf" stat -x, -e task-clock true >/dev/null 2>&1; then perf=; fi

# CPU (or wall) nanoseconds of one run of the command given.
cpu_ns() {
  if [ -n "$perf" ]; then
    "$perf" stat -x, -e task-clock "$@" 2>&1 >"$dir/out" | awk -F, '$3 == "task-clock" { printf "%d\n", $1 * 1e6 }'
  else
    local start end
    start=$(date +%s%N)
    "$@" >"$dir/out"
    end=$(date +%s%N)
    echo $((end - start))
  fi
}

# Instructions of one run of the command given (callgrind).
instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}

printf '%-20s %-10s %8s' case command "Go µs"
for smp in "$@"; do
  printf ' %24s' "$(basename "$smp") µs (x Go)"
  [ -z "${INSTRUCTIONS:-}" ] || printf ' %12s' "instr/case"
done
echo
# Cases on the live object of the three-way case (with kubectl's
# last-applied annotation, as objects on a server have it), which the
# reference has no figures for: the apply case's patch applied to it; its
# diff with its replica count changed (kubectl edit's two-way patch); and
# the three-way case with the managedFields the API server would add to it
# (one entry for kubectl's fields, one for the status).
cases=$shared/bench-cases
jq -c --slurpfile live "$cases/deploy-threeway.json" '{original: $live[0].current, patch}' \
  "$cases/deploy-apply-small.json" >"$dir/live-apply.case"
jq -c '{original: .current, modified: (.current | .spec.replicas = 5)}' "$cases/deploy-threeway.json" \
  >"$dir/live-twoway.case"
jq -c '
  def fields: if type == "object" then with_entries(.key = "f:" + .key | .value |= fields)
    elif type == "array" then map(if type == "object" and has("name")
      then {key: ("k:" + ({name} | tojson)), value: fields} else {key: ("v:" + tojson), value: {}} end) | from_entries
    else {} end;
  def entry(manager; f): {apiVersion: "apps/v1", fieldsType: "FieldsV1", fieldsV1: f, manager: manager,
    operation: "Update", time: "2026-01-12T09:31:00Z"};
  .current.metadata.managedFields = [
    entry("kubectl-client-side-apply"; {"f:spec": (.current.spec | fields),
      "f:metadata": (.current.metadata | {labels, annotations} | fields)}),
    entry("kube-controller-manager"; {"f:status": (.current.status | fields)}) + {subresource: "status"}]
  | {original, modified, current, overwrite}' "$cases/deploy-threeway.json" >"$dir/live-threeway.case"
for spec in "deploy-apply-small:apply:{original,patch}:105.668" \
  "deploy-twoway-1env:diff:{original,modified}:207.563" \
  "deploy-threeway:three-way:{original,modified,current,overwrite}:429.112" \
  "live-apply:apply:.:-" \
  "live-twoway:diff:.:-" \
  "live-threeway:three-way:.:-"; do
  IFS=: read -r name command fields go_us <<<"$spec"
  file="$dir/$name.jsonl"
  source=$cases/$name.json
  [ -f "$source" ] || source=$dir/$name.case
  line=$(jq -c "$fields" "$source")
  for ((i = 0; i < repeat; i++)); do printf '%s\n' "$line"; done >"$file"
  printf '%s\n' "$line" >"$dir/$name.one.jsonl"
  few=$((repeat / 10 > 1 ? repeat / 10 : 2))
  head -n "$few" "$file" >"$dir/$name.few.jsonl"
  if [ "$go_us" = - ]; then go_shown=-; else go_shown=$(printf '%.1f' "$go_us"); fi
  printf '%-20s %-10s %8s' "$name" "$command" "$go_shown"
  for smp in "$@"; do
    run=("$smp" "$command" --kind Deployment --jsonl)
    best=
    for _ in $(seq "$runs"); do
      ns=$(cpu_ns "${run[@]}" "$file" -j 1)
      if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
    done
    if grep -q '^{"error"' "$dir/out"; then
      echo " error: $(head -c 200 "$dir/out")" >&2
      exit 1
    fi
    awk -v ns="$best" -v n="$repeat" -v go="$go_us" \
      'BEGIN { us = ns / n / 1000; if (go == "-") printf " %16.2f (   - )", us; else printf " %16.2f (%5.1fx)", us, go / us }'
    if [ -n "${INSTRUCTIONS:-}" ]; then
      many=$(instructions "${run[@]}" "$dir/$name.few.jsonl" -j 1)
      one=$(instructions "${run[@]}" "$dir/$name.one.jsonl" -j 1)
      awk -v a="$many" -v b="$one" -v n="$few" 'BEGIN { printf " %11.0fk", (a - b) / (n - 1) / 1000 }'
    fi
  done
  echo
done
