#!/usr/bin/env bash
# Time per case of `smp apply|diff|three-way --kind Deployment --jsonl` on
# the three Deployment bench cases (each line repeated REPEAT times, one
# thread, best of RUNS), for one or more smp binaries side by side, with
# the Go reference's time per case (bench-cases/README.md, quiet machine)
# and each binary's ratio to it.
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

printf '%-20s %-10s %10s' case command "Go µs"
for smp in "$@"; do printf ' %22s' "$(basename "$smp") µs (x Go)"; done
echo
for spec in "deploy-apply-small:apply:{original,patch}:105.668" \
  "deploy-twoway-1env:diff:{original,modified}:207.563" \
  "deploy-threeway:three-way:{original,modified,current,overwrite}:429.112"; do
  IFS=: read -r name command fields go_us <<<"$spec"
  file="$dir/$name.jsonl"
  line=$(jq -c "$fields" "$shared/bench-cases/$name.json")
  for ((i = 0; i < repeat; i++)); do printf '%s\n' "$line"; done >"$file"
  printf '%-20s %-10s %10.1f' "$name" "$command" "$go_us"
  for smp in "$@"; do
    best=
    for _ in $(seq "$runs"); do
      start=$(date +%s%N)
      "$smp" "$command" --kind Deployment --jsonl "$file" -j 1 >"$dir/out"
      end=$(date +%s%N)
      ns=$((end - start))
      if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
    done
    if grep -q '^{"error"' "$dir/out"; then
      echo " error: $(head -c 200 "$dir/out")" >&2
      exit 1
    fi
    awk -v ns="$best" -v n="$repeat" -v go="$go_us" 'BEGIN { us = ns / n / 1000; printf " %14.2f (%5.1fx)", us, go / us }'
  done
  echo
done
